/*
 * indep2.c — accuracy program: two independent costly calls of equal cost.
 * Known answer: one candidate {crunch(1), crunch(2)}, two tasks, no
 * dependence, const callees (safe); the region is the whole run, so the
 * ideal program speedup on two cores is ~2. DP_PAR: the hand-written
 * transformation. Part of deepprof's bench. MIT licence.
 */
#include "acc.h"

int main(int argc, char **argv)
{
	long n = (long)(ACC_UNIT * acc_scale(argc, argv));
	unsigned long a, b;

#ifdef DP_PAR
#pragma omp parallel
#pragma omp single
	{
#pragma omp task shared(a)
		a = crunch(1, n);
		b = crunch(2, n);
#pragma omp taskwait
	}
#else
	a = crunch(1, n);
	b = crunch(2, n);
#endif
	printf("indep2: %lu\n", a ^ b);
	return 0;
}
