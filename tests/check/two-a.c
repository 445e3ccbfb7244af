/*
 * two-a.c — the dependence check across translation units (tests/check/run.py
 * t008), with two-b.c: pair() runs half() (two-b.c) on both halves of an
 * array; ptrs() runs the same through a table of function pointers; sorted()
 * runs qsort on both halves (the C library's code, which the check cannot
 * see into). Prints a checksum. Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 100000

void half(int *v, int lo, int hi);     /* two-b.c */

static void twice(int *v, int lo, int hi)
{
	half(v, lo, hi);
	half(v, lo, hi);
}

static void (*const ops[])(int *, int, int) = { twice, half };

void pair(int *v)
{
	half(v, 0, N / 2);
	half(v, N / 2, N);
}

void ptrs(int *v, int k)
{
	ops[k](v, 0, N / 2);
	ops[k](v, N / 2, N);
}

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void sort_part(int *v, int lo, int hi)
{
	qsort(v + lo, (size_t)(hi - lo), sizeof(int), cmp);
}

void sorted(int *v)
{
	sort_part(v, 0, N / 2);
	sort_part(v, N / 2, N);
}

int main(void)
{
	int *v = calloc(N, sizeof(int));
	long s = 0;

	if (!v)
		return 2;
	pair(v);
	ptrs(v, 0);
	sorted(v);
	for (int i = 0; i < N; i++)
		s += (long)v[i] * (i % 13);
	printf("%ld\n", s);
	free(v);
	return 0;
}
