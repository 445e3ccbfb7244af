/*
 * loops.c — the dependence check on loop candidates (tests/check/run.py
 * t011): each loop makes one costly call per iteration.
 *   chunks    fill() writes its own chunk of a: independent
 *   overlap   fill() writes chunks that overlap by half: a conflict
 *   accum     bump() adds into one global: a conflict
 *   opaque    tell() calls getpid(), which the check cannot see into
 * Prints a checksum. Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CH 20000
#define N 8

static long g_total;

static void fill(unsigned *v, int n, int c)
{
	for (int r = 0; r < 8; r++)
		for (int i = 0; i < n; i++)
			v[i] = v[i] * 3u + (unsigned)(i + c + r);
}

static void bump(long *t, int c)
{
	long s = 0;

	for (int i = 0; i < 8 * CH; i++)
		s += (i ^ c) & 7;
	*t += s;
}

static long tell(int c)
{
	long s = getpid() > 0;

	for (int i = 0; i < 8 * CH; i++)
		s += (i ^ c) & 3;
	return s;
}

static void chunks(unsigned *a)
{
	for (int c = 0; c < N; c++)
		fill(a + c * CH, CH, c);
}

static void overlap(unsigned *a)
{
	for (int c = 0; c < N; c++)
		fill(a + c * (CH / 2), CH, c);
}

static void accum(void)
{
	for (int c = 0; c < N; c++)
		bump(&g_total, c);
}

static long opaque(void)
{
	long s = 0;

	for (int c = 0; c < N; c++)
		s += tell(c);
	return s;
}

int main(void)
{
	unsigned *a = calloc((size_t)N * CH, sizeof(unsigned));
	long sum = 0;

	chunks(a);
	overlap(a);
	accum();
	sum = opaque();
	for (long i = 0; i < (long)N * CH; i++)
		sum += a[i] % 1000;
	printf("%ld %ld\n", sum, g_total);
	free(a);
	return 0;
}
