// SPDX-License-Identifier: GPL-2.0
/*
 * A dynamically linked program with nothing for the dynamic linker to
 * register: no library, no SFrame data, and a table only if the test
 * makes one.  x86_64: it exits with the system call itself.
 */
__attribute__((noipa)) static long work(long x)
{
	return x + 1;
}

void _start(void)
{
	long status = work(41) == 42 ? 0 : 1;

	__asm__ volatile("syscall" : : "a"(60L), "D"(status));
	__builtin_unreachable();
}
