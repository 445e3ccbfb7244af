/* s-qsort.c — qsort (uninstrumented libc) calling back an instrumented
 * comparator; prints how many comparisons it made. With -DQSORT_KEY the
 * comparator reads each element through an instrumented key() (two call
 * sites), so a callback makes calls of its own. */
#include <stdio.h>
#include <stdlib.h>
static long ncmp;
#ifdef QSORT_KEY
__attribute__((noinline)) int key(const void *p)
{
	return *(const int *)p;
}
#define KEY(p) key(p)
#else
#define KEY(p) (*(const int *)(p))
#endif
int cmp(const void *a, const void *b)
{
	ncmp++;
	int x = KEY(a), y = KEY(b);
	return (x > y) - (x < y);
}
int main(void)
{
	int v[100];
	unsigned r = 12345;
	for (int i = 0; i < 100; i++) {
		r = r * 1103515245u + 12345u;
		v[i] = (int)(r >> 16) % 1000;
	}
	qsort(v, 100, sizeof v[0], cmp);
	for (int i = 1; i < 100; i++)
		if (v[i - 1] > v[i])
			return 1;
	printf("%ld\n", ncmp);
	return 0;
}
