/*
 * s-par.c — the use build's parallel code on the shapes it must handle,
 * each with a known answer: independent calls declared as variables
 * (work() is const, but only GCC's analyses say so), calls in a loop's
 * body, calls in one expression, calls that write two arrays (GCC's alias
 * oracle tells them apart), a call made under a condition (left serial,
 * with the reason), a divide-and-conquer count (below its cut-off, the
 * serial copy), and calls that write two halves of one array (not
 * provable: named by id). Argument: the scale (default 1). Prints what the serial
 * build prints. Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>

static long scale = 1;

/* ~n steps of a 64-bit mixer: const, though not declared so */
static unsigned long work(unsigned long seed, long n)
{
	for (long i = 0; i < n; i++) {
		seed ^= seed >> 31;
		seed *= 0x9e3779b97f4a7c15UL;
		seed += (unsigned long)i;
	}
	return seed;
}

/* fills a[0..n) from seed: writes through its argument */
static void fill(unsigned long *a, long n, unsigned long seed)
{
	for (long i = 0; i < n; i++) {
		seed = work(seed, 8);
		a[i] = seed;
	}
}

/* the number of leaves of a full binary tree of depth d, counted */
static long leaves(int d)
{
	if (d == 0)
		return work((unsigned long)d, 40) & 1 ? 1 : 1;
	return leaves(d - 1) + leaves(d - 1);
}

static unsigned long pair_expr(long n)
{
	return work(11, n) ^ work(12, n);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		scale = atol(argv[1]);
	long n = 3000000 * scale;

	/* declared as variables */
	unsigned long a = work(1, n);
	unsigned long b = work(2, n);
	printf("decl: %lu %lu\n", a, b);

	/* in a loop's body */
	unsigned long acc = 0;
	for (int r = 0; r < 4; r++) {
		unsigned long p = work(100 + r, n / 4);
		unsigned long q = work(200 + r, n / 4);
		acc += p ^ q;
	}
	printf("loop: %lu\n", acc);

	/* one expression */
	printf("expr: %lu\n", pair_expr(n));

	/* disjoint arrays */
	long m = 200000 * scale;
	unsigned long *x = malloc(sizeof(*x) * m), *y = malloc(sizeof(*y) * m);
	if (!x || !y)
		return 1;
	fill(x, m, 1);
	fill(y, m, 2);
	printf("fill: %lu %lu\n", x[m - 1], y[m - 1]);
	free(x);
	free(y);

	/* under a condition */
	unsigned long c = 0, d;
	if (argc < 3)
		c = work(7, n);
	d = work(8, n);
	printf("cond: %lu %lu\n", c, d);

	/* divide and conquer */
	printf("leaves: %ld\n", leaves(14 + (scale > 1)));

	/* one array's two halves: the alias oracle cannot tell them apart */
	unsigned long *z = malloc(sizeof(*z) * 2 * m);
	if (!z)
		return 1;
	fill(z, m, 3);
	fill(z + m, m, 4);
	printf("halves: %lu %lu\n", z[m - 1], z[2 * m - 1]);
	free(z);
	return 0;
}
