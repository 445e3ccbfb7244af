/* A task-parallel mergesort of 1024 ints: every split makes two tasks,
 * joined by taskwait (argv[1] "wait") or by a taskgroup ("group"); the
 * top call runs in a single inside a parallel region. 2047 calls of
 * msort, 1023 of merge, 2046 task runs. */
#include <stdio.h>
#include <string.h>

#define N 1024
static int a[N], tmp[N];
static int group;

static void merge(int lo, int mid, int hi)
{
	int i = lo, j = mid, k = lo;
	while (i < mid && j < hi)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < hi)
		tmp[k++] = a[j++];
	memcpy(a + lo, tmp + lo, (hi - lo) * sizeof *a);
}

static void msort(int lo, int hi)
{
	if (hi - lo < 2)
		return;
	int mid = lo + (hi - lo) / 2;
	if (group) {
#pragma omp taskgroup
		{
#pragma omp task
			msort(lo, mid);
#pragma omp task
			msort(mid, hi);
		}
	} else {
#pragma omp task
		msort(lo, mid);
#pragma omp task
		msort(mid, hi);
#pragma omp taskwait
	}
	merge(lo, mid, hi);
}

int main(int argc, char **argv)
{
	group = argc > 1 && strcmp(argv[1], "group") == 0;
	for (int i = 0; i < N; i++)
		a[i] = (i * 7919) % N;
#pragma omp parallel num_threads(2)
#pragma omp single
	msort(0, N);
	int ok = 1;
	for (int i = 0; i < N; i++)
		ok &= a[i] == i;
	printf("%s\n", ok ? "sorted" : "NOT SORTED");
	return !ok;
}
