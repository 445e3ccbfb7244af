/*
 * nqueens.c — kernel: count the placements of n queens, row by row, the
 * columns and diagonals taken passed by value as bitmasks (no shared board:
 * the recursive calls are independent and touch no memory). The idiomatic
 * shape is a loop over the free squares of a row with one recursive call
 * in it: the feedback's loop candidate (a task per iteration, down to its
 * cut-off depth), which GCC proves safe (solve() is const). DP_PAR: a task
 * per free square down to row CUTOFF (each writes its own slot of a
 * per-row array), serial below. DP_NAIVE: the same at every row (BOTS'
 * shape without its cut-off).
 * Part of deepprof's bench. MIT licence.
 */
#include <math.h>

#include "kern.h"

#ifndef CUTOFF
#define CUTOFF 3
#endif

/* Placements of the remaining rows given the columns and the two
 * diagonals already attacked (all: the mask of n columns). */
static long solve(unsigned all, unsigned cols, unsigned left, unsigned right)
{
	unsigned free_sq;
	long count = 0;

	if (cols == all)
		return 1;
	free_sq = all & ~(cols | left | right);
	while (free_sq) {
		unsigned bit = free_sq & -free_sq;

		free_sq -= bit;
		count += solve(all, cols | bit, (left | bit) << 1, (right | bit) >> 1);
	}
	return count;
}

#if defined(DP_PAR) || defined(DP_NAIVE)
static long solve_par(unsigned all, unsigned cols, unsigned left, unsigned right, int row)
{
	unsigned free_sq;
	long part[32], count = 0;
	int k = 0;

#ifdef DP_PAR
	if (row >= CUTOFF)
		return solve(all, cols, left, right);
#endif
	if (cols == all)
		return solve(all, cols, left, right);
	free_sq = all & ~(cols | left | right);
	while (free_sq) {
		unsigned bit = free_sq & -free_sq;

		free_sq -= bit;
#pragma omp task shared(part) firstprivate(k, bit)
		part[k] = solve_par(all, cols | bit, (left | bit) << 1, (right | bit) >> 1, row + 1);
		k++;
	}
#pragma omp taskwait
	for (int i = 0; i < k; i++)
		count += part[i];
	return count;
}
#endif

int main(int argc, char **argv)
{
	/* each more queen costs ~6x: scale s adds log(s)/log(6) to n */
	int n = 15 + (int)lround(log(kern_scale(argc, argv)) / log(6.0));
	unsigned all;
	long r;

	if (n < 4)
		n = 4;
	all = (1u << n) - 1;
#if defined(DP_PAR) || defined(DP_NAIVE)
#pragma omp parallel
#pragma omp single
	r = solve_par(all, 0, 0, 0, 0);
#else
	r = solve(all, 0, 0, 0);
#endif
	printf("nqueens(%d) = %ld\n", n, r);
	return 0;
}
