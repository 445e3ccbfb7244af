/*
 * msort.c — accuracy program: divide-and-conquer recursion, a top-down
 * mergesort. Known answer: msort() is a divide-and-conquer clique, and its
 * two recursive calls are a candidate (independent halves of the array,
 * memory not provable: a hint); the final merges stay sequential, so the
 * ideal speedup on two cores is a little under 2. DP_PAR, the recommended
 * shape (the later call spawned, the first inline; see fib.c): the right
 * half in a task, the left inline, taskwait, down to depth CUTOFF (the
 * recommended cut-off; run.py passes it), serial below.
 * Part of deepprof's bench. MIT licence.
 */
#include <string.h>

#include "acc.h"

#ifndef CUTOFF
#define CUTOFF 6
#endif

/* Merge the sorted a[0..h) and a[h..n) through tmp. */
__attribute__((noinline, aligned(64))) static void merge(int *a, long h, long n, int *tmp)
{
	long i = 0, j = h, k = 0;

	while (i < h && j < n)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < h)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, (size_t)n * sizeof(*a));
}

/* Sort a[0..n) (tmp: n ints of scratch). Aligned, like merge: the
 * serial and -fopenmp builds place the code alike (see fib.c). */
__attribute__((noinline, aligned(64))) static void msort(int *a, int *tmp, long n)
{
	long h = n / 2;

	if (n < 2)
		return;
	msort(a, tmp, h);
	msort(a + h, tmp + h, n - h);
	merge(a, h, n, tmp);
}

#ifdef DP_PAR
static void msort_par(int *a, int *tmp, long n, int depth)
{
	long h = n / 2;

	if (depth >= CUTOFF || n < 2) {
		msort(a, tmp, n);
		return;
	}
#pragma omp task
	msort_par(a + h, tmp + h, n - h, depth + 1);
	msort_par(a, tmp, h, depth + 1);
#pragma omp taskwait
	merge(a, h, n, tmp);
}
#endif

int main(int argc, char **argv)
{
	long n = (long)(3000000 * acc_scale(argc, argv));
	int *a = malloc((size_t)n * sizeof(*a)), *tmp = malloc((size_t)n * sizeof(*tmp));
	unsigned long x = 12345, sum = 0;

	if (!a || !tmp) {
		fputs("msort: out of memory\n", stderr);
		return 1;
	}
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		a[i] = (int)(x >> 33);
	}
#ifdef DP_PAR
#pragma omp parallel
#pragma omp single
	msort_par(a, tmp, n, 0);
#else
	msort(a, tmp, n);
#endif
	for (long i = 1; i < n; i++)
		if (a[i - 1] > a[i]) {
			fputs("msort: not sorted\n", stderr);
			return 1;
		}
	for (long i = 0; i < n; i += 1000)
		sum += (unsigned long)a[i];
	printf("msort: %lu\n", sum);
	free(a);
	free(tmp);
	return 0;
}
