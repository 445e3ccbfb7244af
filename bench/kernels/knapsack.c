/*
 * knapsack.c — kernel: 0/1 knapsack by plain recursion (each item left out
 * or taken; an overfull sack is infeasible). Both recursive calls are made
 * unconditionally, the capacity checked on entry, as textbooks write it;
 * they read the items and write nothing (pure): the plugin can prove it
 * safe. (A branch-and-bound version shares its best-so-far between the
 * branches and would make them dependent.) DP_PAR: the "take" branch in a
 * task, "leave" inline, taskwait, down to depth CUTOFF, serial below.
 * DP_NAIVE: the same at every item. Part of deepprof's bench. MIT licence.
 */
#include <limits.h>
#include <math.h>

#include "kern.h"

#ifndef CUTOFF
#define CUTOFF 12
#endif

struct item {
	long weight, value;
};

/* The best value of items[0..n) in a sack of capacity cap. */
static long knap(const struct item *items, int n, long cap)
{
	long leave, take;

	if (cap < 0)
		return LONG_MIN / 2;    /* infeasible */
	if (n == 0)
		return 0;
	leave = knap(items + 1, n - 1, cap);
	take = knap(items + 1, n - 1, cap - items->weight) + items->value;
	return take > leave ? take : leave;
}

#if defined(DP_PAR) || defined(DP_NAIVE)
static long knap_par(const struct item *items, int n, long cap, int depth)
{
	long leave, take;

#ifdef DP_PAR
	if (depth >= CUTOFF)
		return knap(items, n, cap);
#endif
	if (cap < 0 || n == 0)
		return knap(items, n, cap);
#pragma omp task shared(take)
	take = knap_par(items + 1, n - 1, cap - items->weight, depth + 1) + items->value;
	leave = knap_par(items + 1, n - 1, cap, depth + 1);
#pragma omp taskwait
	return take > leave ? take : leave;
}
#endif

int main(int argc, char **argv)
{
	/* the search tree grows ~2x per item: scale s adds log2(s) items */
	int n = 29 + (int)lround(log2(kern_scale(argc, argv)));
	struct item items[64];
	unsigned long x = 4242;
	long total = 0, r;

	if (n < 4)
		n = 4;
	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++) {
		items[i].weight = 10 + (long)(kern_next(&x) % 90);
		items[i].value = 1 + (long)(kern_next(&x) % 100);
		total += items[i].weight;
	}
#if defined(DP_PAR) || defined(DP_NAIVE)
#pragma omp parallel
#pragma omp single
	r = knap_par(items, n, total / 2, 0);
#else
	r = knap(items, n, total / 2);
#endif
	printf("knapsack(%d items, capacity %ld) = %ld\n", n, total / 2, r);
	return 0;
}
