/*
 * unbal3.c — accuracy program: three independent costly calls of costs
 * 3:2:1. Known answer: one candidate of three calls whose best partition
 * into two tasks is {A}{B, C} (3 against 2 + 1), const callees (safe);
 * ideal speedup 6/3 = 2. DP_PAR: A in a task, B then C inline.
 * Part of deepprof's bench. MIT licence.
 */
#include "acc.h"

int main(int argc, char **argv)
{
	long n = (long)(ACC_UNIT * acc_scale(argc, argv) / 3);
	unsigned long a, b, c;

#ifdef DP_PAR
#pragma omp parallel
#pragma omp single
	{
#pragma omp task shared(a)
		a = crunch(1, 3 * n);
		b = crunch(2, 2 * n);
		c = crunch(3, n);
#pragma omp taskwait
	}
#else
	a = crunch(1, 3 * n);
	b = crunch(2, 2 * n);
	c = crunch(3, n);
#endif
	printf("unbal3: %lu\n", a ^ b ^ c);
	return 0;
}
