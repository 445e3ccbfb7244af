/*
 * omp_msort.c — an OpenMP task-parallel mergesort for make bench: threaded,
 * call-dense code (a call per node of the recursion, down to single
 * elements), so that the cost of each route on a program whose calls run
 * on libgomp's threads is measured. Tasks only above CUTOFF elements.
 * usage: omp_msort [N]   (default 4194304); prints a checksum.
 * Part of deepprof's bench. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUTOFF 8192

static void merge(int *a, int *tmp, long lo, long mid, long hi)
{
	long i = lo, j = mid, k = lo;
	while (i < mid && j < hi)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < hi)
		tmp[k++] = a[j++];
	memcpy(a + lo, tmp + lo, (size_t)(hi - lo) * sizeof *a);
}

static void msort(int *a, int *tmp, long lo, long hi)
{
	if (hi - lo < 2)
		return;
	long mid = lo + (hi - lo) / 2;
	if (hi - lo > CUTOFF) {
#pragma omp task
		msort(a, tmp, lo, mid);
#pragma omp task
		msort(a, tmp, mid, hi);
#pragma omp taskwait
	} else {
		msort(a, tmp, lo, mid);
		msort(a, tmp, mid, hi);
	}
	merge(a, tmp, lo, mid, hi);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4194304;
	if (n < 1) {
		fprintf(stderr, "usage: omp_msort [N > 0]\n");
		return 2;
	}
	int *a = malloc((size_t)n * sizeof *a), *tmp = malloc((size_t)n * sizeof *tmp);
	if (!a || !tmp) {
		fprintf(stderr, "omp_msort: out of memory\n");
		return 1;
	}
	unsigned x = 12345;
	for (long i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		a[i] = (int)(x >> 8);
	}
#pragma omp parallel
#pragma omp single
	msort(a, tmp, 0, n);
	unsigned long sum = 0;
	for (long i = 0; i < n; i++) {
		if (i && a[i - 1] > a[i]) {
			printf("not sorted at %ld\n", i);
			return 1;
		}
		sum = sum * 31 + (unsigned)a[i];
	}
	printf("%lu\n", sum);
	free(a);
	free(tmp);
	return 0;
}
