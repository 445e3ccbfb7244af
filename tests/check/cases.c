/*
 * cases.c — regions with known memory behaviour, for the dependence check
 * (tests/check/run.py). Each case_* function runs two or more costly calls
 * that `deepprof feedback` makes a parallelism candidate of; what the
 * calls touch is known:
 *   case_halves     fill() two disjoint halves of one array: independent
 *   case_overlap    fill() two ranges that overlap by a fifth: write-write
 *   case_accum      sum_into() both add into one accumulator: write-write
 *   case_global     produce() writes g_table, consume() reads it: write-read
 *   case_input      fill() [0, m) and [k, n), k from the command line:
 *                   independent when k >= m, else write-write
 *   case_opaque     stamp() calls getpid(), which the check cannot see into
 * Usage: cases K (k of case_input, in per mille of n). Prints a checksum.
 * Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N 100000
#define PASSES 6

static int g_table[N];

void fill(int *v, int lo, int hi)
{
	for (int p = 0; p < PASSES; p++)
		for (int i = lo; i < hi; i++)
			v[i] = (v[i] * 3 + i + p) & 0xffff;
}

void sum_into(long *acc, const int *v, int lo, int hi)
{
	for (int p = 0; p < PASSES; p++)
		for (int i = lo; i < hi; i++)
			*acc += v[i] ^ p;
}

void produce(int n)
{
	for (int p = 0; p < PASSES; p++)
		for (int i = 0; i < n; i++)
			g_table[i] = (g_table[i] * 5 + i + p) & 0xffff;
}

long consume(int n)
{
	long s = 0;
	for (int p = 0; p < PASSES; p++)
		for (int i = 0; i < n; i++)
			s += g_table[i] >> p;
	return s;
}

void stamp(int *v, int lo, int hi)
{
	int id = (int)(getpid() & 1);
	for (int p = 0; p < PASSES; p++)
		for (int i = lo; i < hi; i++)
			v[i] = v[i] + id * 0 + p;
}

void case_halves(int *a)
{
	fill(a, 0, N / 2);
	fill(a, N / 2, N);
}

void case_overlap(int *b)
{
	fill(b, 0, 3 * N / 5);
	fill(b, 2 * N / 5, N);
}

long case_accum(const int *a)
{
	long total = 0;
	sum_into(&total, a, 0, N / 2);
	sum_into(&total, a, N / 2, N);
	return total;
}

long case_global(void)
{
	long s;
	produce(N);
	s = consume(N);
	return s;
}

void case_input(int *c, int k)
{
	fill(c, 0, N / 2);
	fill(c, k, N);
}

void case_opaque(int *d)
{
	stamp(d, 0, N / 2);
	stamp(d, N / 2, N);
}

int main(int argc, char **argv)
{
	int permille = argc > 1 ? atoi(argv[1]) : 500;
	int *a = calloc(N, sizeof(int)), *b = calloc(N, sizeof(int));
	int *c = calloc(N, sizeof(int)), *d = calloc(N, sizeof(int));
	long s = 0;

	if (!a || !b || !c || !d || permille < 0 || permille > 1000)
		return 2;
	case_halves(a);
	case_overlap(b);
	s += case_accum(a);
	s += case_global();
	case_input(c, (int)((long)N * permille / 1000));
	case_opaque(d);
	for (int i = 0; i < N; i++)
		s += (long)a[i] + b[i] + c[i] + d[i];
	printf("%ld\n", s);
	free(a);
	free(b);
	free(c);
	free(d);
	return 0;
}
