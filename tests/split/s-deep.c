/*
 * s-deep.c — split test program: a linear recursion N deep (default
 * 30000) that alternates two call sites (odd n through the first, even
 * through the second) and spins at the bottom, so nearly every clock tick
 * sees N/2 activations through each site: deeper than libprof samples whole
 * (4096 shadow frames, 16384 stack words), so it samples with a stride.
 * Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>

static long spins;

__attribute__((noinline)) static long deep(long n)
{
	if (n == 0) {
		for (volatile long i = 0; i < spins; i++)
			;
		return 0;
	}
	if (n & 1)
		return deep(n - 1) + 1;
	return deep(n - 1) + 2;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 30000;

	spins = argc > 2 ? atol(argv[2]) : 100000000;
	printf("%ld\n", deep(n));
	return 0;
}
