/*
 * frees.c — free() inside candidate calls, for the dependence check
 * (tests/check/run.py): libprof does not interpose free(), checked code
 * calls __deepprof_chk_free before it.
 *   case_scratch   two calls each allocate a scratch block, fill it, sum
 *                  it and free it: the blocks are the calls' own, so
 *                  independent even when the second reuses the first's
 *   case_release   scan() reads block v, then drop() frees it after its
 *                  own work: freeing a block from outside a call writes
 *                  all of it, so a read-write conflict of v's bytes
 * Usage: frees [N]. Prints a checksum. Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>

#define PASSES 40

long scratch(int n)
{
	int *t = malloc((size_t)n * sizeof *t);
	long s = 0;
	if (!t)
		return -1;
	for (int p = 0; p < PASSES; p++)
		for (int i = 0; i < n; i++) {
			t[i] = (i * 7 + p) & 0xff;
			s += t[i];
		}
	free(t);
	return s;
}

long scan(const int *v, int n)
{
	long s = 0;
	for (int p = 0; p < PASSES; p++)
		for (int i = 0; i < n; i++)
			s += v[i] >> (p & 3);
	return s;
}

long drop(int *v, int n)
{
	long s = scratch(n);
	free(v);
	return s;
}

long case_scratch(int n)
{
	long s = scratch(n);
	s += scratch(n);
	return s;
}

long case_release(int *v, int n)
{
	long s = scan(v, n);
	s += drop(v, n);
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	if (n < 1)
		return 2;
	int *v = malloc((size_t)n * sizeof *v);
	if (!v)
		return 2;
	for (int i = 0; i < n; i++)
		v[i] = i;
	long s = case_scratch(n);
	s += case_release(v, n);
	printf("%ld\n", s);
	return 0;
}
