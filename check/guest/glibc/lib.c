// SPDX-License-Identifier: GPL-2.0
/*
 * The libraries of registrar.c: libsf.so (a DT_NEEDED of the program) and
 * libsf-dl.so (opened with dlopen()) have SFrame, libnosf.so has none.
 */
int LIBFN(int x)
{
	return 3 * x + 1;
}
