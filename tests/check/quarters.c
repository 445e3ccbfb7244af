/*
 * quarters.c — the dependence check's mergesort (tests/check/run.py, and
 * issue 13's example): sort4() sorts four quarters of an array and merges
 * them in three merges; msort() sorts both halves with one shared scratch
 * buffer (a real conflict); main() initialises the array, then sorts it
 * (a conflict). The expected split: {sort A, sort B, merge AB} with
 * {sort C, sort D, merge CD}, then the final merge after them.
 * Usage: quarters [N]. Prints a checksum. Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void merge(int *a, int lo, int mid, int hi, int *tmp)
{
	int i = lo, j = mid, k = 0;
	while (i < mid && j < hi)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < hi)
		tmp[k++] = a[j++];
	memcpy(a + lo, tmp, (size_t)k * sizeof(int));
}

static void msort(int *a, int lo, int hi, int *tmp)
{
	if (hi - lo < 2)
		return;
	int mid = lo + (hi - lo) / 2;
	msort(a, lo, mid, tmp);
	msort(a, mid, hi, tmp);
	merge(a, lo, mid, hi, tmp);
}

void sort_quarter(int *a, int lo, int hi)
{
	int *tmp = malloc((size_t)(hi - lo) * sizeof(int));
	msort(a, lo, hi, tmp);
	free(tmp);
}

void merge_parts(int *a, int lo, int mid, int hi)
{
	int *tmp = malloc((size_t)(hi - lo) * sizeof(int));
	merge(a, lo, mid, hi, tmp);
	free(tmp);
}

void init(int *a, int n, unsigned seed)
{
	for (int i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		a[i] = (int)(seed >> 8);
	}
}

void sort4(int *a, int n)
{
	int q = n / 4;
	sort_quarter(a, 0, q);
	sort_quarter(a, q, 2 * q);
	sort_quarter(a, 2 * q, 3 * q);
	sort_quarter(a, 3 * q, n);
	merge_parts(a, 0, q, 2 * q);
	merge_parts(a, 2 * q, 3 * q, n);
	merge_parts(a, 0, 2 * q, n);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 400000;
	int *a = malloc((size_t)n * sizeof(int));
	init(a, n, 7);
	sort4(a, n);
	long s = 0;
	for (int i = 0; i < n; i++)
		s += (long)a[i] * (i % 7);
	for (int i = 1; i < n; i++)
		if (a[i - 1] > a[i]) { puts("unsorted"); return 1; }
	printf("%ld\n", s);
	free(a);
	return 0;
}
