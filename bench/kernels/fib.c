/*
 * fib.c — kernel: tree-recursive fib, the textbook way. Its two recursive
 * calls touch no memory (const): the plugin can prove it safe.
 * DP_PAR: fib(n-2) in a task, fib(n-1) inline, taskwait, down to depth
 * CUTOFF, the serial function below (the order libgomp balances best: see
 * bench/accuracy/fib.c). DP_NAIVE: the same with no cut-off (a task for
 * every call down to n < 2). Part of deepprof's bench. MIT licence.
 */
#include <math.h>

#include "kern.h"

#ifndef CUTOFF
#define CUTOFF 12
#endif

static long fib(int n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

#ifdef DP_PAR
static long fib_par(int n, int depth)
{
	long x, y;

	if (depth >= CUTOFF || n < 2)
		return fib(n);
#pragma omp task shared(y)
	y = fib_par(n - 2, depth + 1);
	x = fib_par(n - 1, depth + 1);
#pragma omp taskwait
	return x + y;
}
#endif

#ifdef DP_NAIVE
static long fib_naive(int n)
{
	long x, y;

	if (n < 2)
		return fib(n);
#pragma omp task shared(y)
	y = fib_naive(n - 2);
	x = fib_naive(n - 1);
#pragma omp taskwait
	return x + y;
}
#endif

int main(int argc, char **argv)
{
	/* fib(n) costs ~1.618^n: scale s adds log(s)/log(1.618) to n */
	int n = 44 + (int)lround(log(kern_scale(argc, argv)) / log(1.6180339887));
	long r;

#if defined(DP_PAR)
#pragma omp parallel
#pragma omp single
	r = fib_par(n, 0);
#elif defined(DP_NAIVE)
#pragma omp parallel
#pragma omp single
	r = fib_naive(n);
#else
	r = fib(n);
#endif
	printf("fib(%d) = %ld\n", n, r);
	return 0;
}
