/*
 * cheap.c — accuracy program: a pair of independent calls far too cheap to
 * run in parallel (~100 ns each, against task overheads of about a
 * microsecond), made many times in a loop. Known answer: the pair is a
 * candidate rejected as too cheap. DP_PAR: the transformation applied
 * anyway (a task per iteration), to show the slowdown it would cause.
 * Part of deepprof's bench. MIT licence.
 */
#include "acc.h"

enum { K = 8 };                 /* steps per call: ~100 ns */

int main(int argc, char **argv)
{
	long m = (long)(ACC_UNIT * acc_scale(argc, argv) / (2 * K));
	unsigned long a = 0, b = 0;

#ifdef DP_PAR
#pragma omp parallel
#pragma omp single
	for (long i = 0; i < m; i++) {
		unsigned long x, y;

#pragma omp task shared(x)
		x = crunch((unsigned long)i, K);
		y = crunch((unsigned long)i + 1, K);
#pragma omp taskwait
		a += x;
		b ^= y;
	}
#else
	for (long i = 0; i < m; i++) {
		a += crunch((unsigned long)i, K);
		b ^= crunch((unsigned long)i + 1, K);
	}
#endif
	printf("cheap: %lu\n", a ^ b);
	return 0;
}
