// SPDX-License-Identifier: GPL-2.0
/*
 * Two call chains to probe with perf probe: main -> foo -> bar -> baz,
 * and main -> foo0 -> foo1 -> ... -> foo9.  Nothing is inlined, cloned
 * or turned into a tail call, so that each function is one frame.
 */
#define noipa	__attribute__((noipa))
#define KEEP()	asm volatile("" ::: "memory")

static volatile unsigned long sink;

noipa void baz(void)
{
	sink++;
}

noipa void bar(void)
{
	baz();
	KEEP();
}

noipa void foo(void)
{
	bar();
	KEEP();
}

noipa void foo9(void)
{
	sink++;
}

#define FOO(n, next)			\
noipa void foo##n(void)			\
{					\
	foo##next();			\
	KEEP();				\
}

FOO(8, 9)
FOO(7, 8)
FOO(6, 7)
FOO(5, 6)
FOO(4, 5)
FOO(3, 4)
FOO(2, 3)
FOO(1, 2)
FOO(0, 1)

int main(void)
{
	for (int i = 0; i < 5; i++) {
		foo();
		foo0();
	}
	return 0;
}
