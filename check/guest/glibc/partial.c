// SPDX-License-Identifier: GPL-2.0
/*
 * The one function that the .sframe section of glibc/partial/chains
 * describes, with its PLT: the rest of the program has none, as in the
 * programs Debian built while its gcc passed --gsframe, whose sections
 * describe only their start-up code.
 */
int partial_described(int x);

int partial_described(int x)
{
	return x + 1;
}
