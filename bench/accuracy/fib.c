/*
 * fib.c — accuracy program: tree-recursive fib. Known answer: fib() is a
 * divide-and-conquer clique whose two recursive calls are an independent
 * candidate (no memory at all); the calls are unbalanced (fib(n-1) costs
 * ~1.618 times fib(n-2)), and under libgomp spawning at more levels does
 * not balance them (a thread in taskwait runs only its own children; an
 * idle one takes the oldest task), so the expected speedup on two cores is
 * ~1/0.618 = 1.62 (schemas/feedback-model.md, "Unbalanced splits"; the
 * profile measures the split: Deep.data's inside). DP_PAR, the shape the feedback
 * recommends (schemas/feedback-model.md 6: the later calls spawned, the
 * first inline): fib(n-2) in a task, fib(n-1) inline, taskwait, down to
 * depth CUTOFF (the recommended cut-off; run.py passes it), serial below.
 * The order matters with libgomp: a thread in taskwait runs only its own
 * children, so when the thief took fib(n-1) (the larger) the spawner idled
 * at the root taskwait for the difference: measured 1.56x at cut-off 9
 * against 1.9x in this order (the thief finishes the smaller fib(n-2)
 * first and, back in the barrier, takes any queued task).
 * Part of deepprof's bench. MIT licence.
 */
#include <math.h>

#include "acc.h"

#ifndef CUTOFF
#define CUTOFF 8
#endif

/* aligned: the serial and the -fopenmp builds then place fib's code alike
 * (measured: at 0x1240 in one and 0x12a0 in the other, the same
 * instructions ran 15% slower in the OpenMP build, which the achieved
 * speedup then counted against the parallelisation) */
__attribute__((noinline, aligned(64))) static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
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

int main(int argc, char **argv)
{
	/* fib(n) costs ~1.618^n: scale s adds log(s)/log(1.618) to n */
	int n = 41 + (int)lround(log(acc_scale(argc, argv)) / log(1.6180339887));
	long r;

#ifdef DP_PAR
#pragma omp parallel
#pragma omp single
	r = fib_par(n, 0);
#else
	r = fib(n);
#endif
	printf("fib(%d) = %ld\n", n, r);
	return 0;
}
