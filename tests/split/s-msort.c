/*
 * s-msort.c — split test program: mergesort of 2^k ints, several rounds.
 * Its two recursive sites sort equal halves: a balanced split, 1 : 1.
 * Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>

static void merge(int *a, int *tmp, long lo, long mid, long hi)
{
	long i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < hi)
		tmp[k++] = a[j++];
	for (k = lo; k < hi; k++)
		a[k] = tmp[k];
}

__attribute__((noinline)) static void msort(int *a, int *tmp, long lo, long hi)
{
	long mid = lo + (hi - lo) / 2;

	if (hi - lo < 2)
		return;
	msort(a, tmp, lo, mid);
	msort(a, tmp, mid, hi);
	merge(a, tmp, lo, mid, hi);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 4;
	long n = 1L << 18, sum = 0;
	int *a = malloc(n * sizeof(*a)), *tmp = malloc(n * sizeof(*tmp));
	unsigned x = 12345;

	if (!a || !tmp)
		return 1;
	for (int r = 0; r < rounds; r++) {
		for (long i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			a[i] = (int)(x >> 8);
		}
		msort(a, tmp, 0, n);
		sum += a[n / 2];
	}
	printf("%ld\n", sum);
	free(a);
	free(tmp);
	return 0;
}
