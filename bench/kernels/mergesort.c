/*
 * mergesort.c — kernel: top-down mergesort whose merge is itself divide
 * and conquer (the middle element of the longer run, its place in the
 * other found by binary search, the two sides merged separately: cilksort's
 * merge), small runs by insertion, short merges linearly. Both recursions
 * write disjoint parts of the same arrays, which GCC's alias analysis
 * cannot prove: the plugin parallelizes them when the dependence check
 * (deepprof-cc --deepprof-check) saw them independent, or when named by
 * id. DP_PAR: the second half (and the second side of a merge) in a task,
 * the first inline, taskwait, down to depth CUTOFF, serial below.
 * DP_NAIVE: the same at every level.
 * Part of deepprof's bench. MIT licence.
 */
#include <string.h>

#include "kern.h"

#ifndef CUTOFF
#define CUTOFF 6
#endif
#define SMALL 16                /* insertion sort below */
#define SHORT 2048              /* linear merge below */

static void insertion(int *a, long n)
{
	for (long i = 1; i < n; i++) {
		int v = a[i];
		long j = i;

		while (j > 0 && a[j - 1] > v) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}

/* The first index of b[0..n) whose element is not less than v. */
static long lower_bound(const int *b, long n, int v)
{
	long lo = 0, hi = n;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (b[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Merge the sorted a[0..na) and b[0..nb) into out. */
static void merge(const int *a, long na, const int *b, long nb, int *out)
{
	long ma, mb;

	if (na < nb) {
		const int *t = a;
		long tn = na;

		a = b;
		b = t;
		na = nb;
		nb = tn;
	}
	if (na + nb <= SHORT) {
		long i = 0, j = 0, k = 0;

		while (i < na && j < nb)
			out[k++] = a[i] <= b[j] ? a[i++] : b[j++];
		while (i < na)
			out[k++] = a[i++];
		while (j < nb)
			out[k++] = b[j++];
		return;
	}
	ma = na / 2;
	mb = lower_bound(b, nb, a[ma]);
	out[ma + mb] = a[ma];
	merge(a, ma, b, mb, out);
	merge(a + ma + 1, na - ma - 1, b + mb, nb - mb, out + ma + mb + 1);
}

/* Sort a[0..n), tmp: n ints of scratch. */
static void sort(int *a, int *tmp, long n)
{
	long h = n / 2;

	if (n <= SMALL) {
		insertion(a, n);
		return;
	}
	sort(a, tmp, h);
	sort(a + h, tmp + h, n - h);
	merge(a, h, a + h, n - h, tmp);
	memcpy(a, tmp, (size_t)n * sizeof(*a));
}

#if defined(DP_PAR) || defined(DP_NAIVE)
#ifdef DP_PAR
#define SERIAL_BELOW(d) ((d) >= CUTOFF)
#else
#define SERIAL_BELOW(d) 0
#endif
static void merge_par(const int *a, long na, const int *b, long nb, int *out, int depth)
{
	long ma, mb;

	if (na < nb) {
		const int *t = a;
		long tn = na;

		a = b;
		b = t;
		na = nb;
		nb = tn;
	}
	if (SERIAL_BELOW(depth) || na + nb <= SHORT) {
		merge(a, na, b, nb, out);
		return;
	}
	ma = na / 2;
	mb = lower_bound(b, nb, a[ma]);
	out[ma + mb] = a[ma];
#pragma omp task
	merge_par(a + ma + 1, na - ma - 1, b + mb, nb - mb, out + ma + mb + 1, depth + 1);
	merge_par(a, ma, b, mb, out, depth + 1);
#pragma omp taskwait
}

static void sort_par(int *a, int *tmp, long n, int depth)
{
	long h = n / 2;

	if (SERIAL_BELOW(depth) || n <= SMALL) {
		sort(a, tmp, n);
		return;
	}
#pragma omp task
	sort_par(a + h, tmp + h, n - h, depth + 1);
	sort_par(a, tmp, h, depth + 1);
#pragma omp taskwait
	merge_par(a, h, a + h, n - h, tmp, 0);
	memcpy(a, tmp, (size_t)n * sizeof(*a));
}
#endif

int main(int argc, char **argv)
{
	long n = (long)(12000000 * kern_scale(argc, argv));
	int *a = malloc((size_t)n * sizeof(*a)), *tmp = malloc((size_t)n * sizeof(*tmp));
	unsigned long x = 12345, sum = 0;

	if (!a || !tmp) {
		fputs("mergesort: out of memory\n", stderr);
		return 1;
	}
	for (long i = 0; i < n; i++)
		a[i] = (int)kern_next(&x);
#if defined(DP_PAR) || defined(DP_NAIVE)
#pragma omp parallel
#pragma omp single
	sort_par(a, tmp, n, 0);
#else
	sort(a, tmp, n);
#endif
	for (long i = 1; i < n; i++)
		if (a[i - 1] > a[i]) {
			fputs("mergesort: not sorted\n", stderr);
			return 1;
		}
	for (long i = 0; i < n; i += 1000)
		sum += (unsigned long)a[i];
	printf("mergesort(%ld) = %lu\n", n, sum);
	free(a);
	free(tmp);
	return 0;
}
