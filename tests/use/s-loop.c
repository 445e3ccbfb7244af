/*
 * s-loop.c — loops of calls (tests/use/run.py, t016/t017): each loop makes
 * one costly call per iteration. What the use build makes of each:
 *   sum_loop   s += work(i), 8 iterations: a task per iteration
 *   tree       a recursive call in a loop (nqueens' shape): tasks down to
 *              the feedback's cut-off depth
 *   chain      x = work(x): each iteration needs the last one's result
 *   stores     a[i] = work(i): the statement is not a sum
 *   peek       the sum is read inside the loop
 *   early      the loop can return (own_team: OpenMP code of its own)
 * Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>

/* const for GCC: arithmetic on its argument, a loop of known length */
static unsigned long work(unsigned long i)
{
	unsigned long x = i + 1;

	for (unsigned k = 0; k < 200000; k++)
		x = x * 6364136223846793005UL + k;
	return x & 0xffff;
}

static long sum_loop(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += work((unsigned long)i);
	return s;
}

static unsigned long tree(int depth, int fan)
{
	unsigned long s = 0;

	if (depth == 0)
		return work((unsigned long)fan) % 7;
	for (int i = 0; i < fan; i++)
		s += tree(depth - 1, fan);
	return s;
}

static unsigned long chain(int n)
{
	unsigned long x = 1;

	for (int i = 0; i < n; i++)
		x = work(x);
	return x;
}

static long stores(int n, unsigned long *a)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		a[i] = work((unsigned long)i + 100);
	for (int i = 0; i < n; i++)
		s += (long)a[i];
	return s;
}

static long peek(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++) {
		s += (long)work((unsigned long)i + 200);
		if (s < 0)
			break;
	}
	return s;
}

static long early(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++) {
		if (n > 1000)
			return -1;
		s += (long)work((unsigned long)i + 300);
	}
	return s;
}

/* OpenMP code of its own: the use build leaves the loop alone */
static long own_team(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += (long)work((unsigned long)i + 400);
#pragma omp critical
	s += 1;
	return s;
}

/* a difference, in a while loop that may break */
static long minus_loop(int n)
{
	long s = 0;
	int i = 0;

	while (i < n) {
		s -= (long)work((unsigned long)i + 500);
		if (++i == 6)
			break;
	}
	return s;
}

/* a do-while loop with a sum in a narrower type */
static int narrow_loop(int n)
{
	int s = 0, i = 0;

	do
		s += (int)work((unsigned long)i + 600);
	while (++i < n);
	return s;
}

int main(int argc, char **argv)
{
	unsigned long a[8];
	int n = argc > 1 ? atoi(argv[1]) : 8;

	if (n < 1 || n > 8)
		n = 8;
	printf("sum_loop %ld\n", sum_loop(n));
	printf("tree %lu\n", tree(4, 4));
	printf("chain %lu\n", chain(n));
	printf("stores %ld\n", stores(n, a));
	printf("peek %ld\n", peek(n));
	printf("early %ld\n", early(n));
	printf("own_team %ld\n", own_team(n));
	printf("minus_loop %ld\n", minus_loop(n));
	printf("narrow_loop %d\n", narrow_loop(n));
	return 0;
}
