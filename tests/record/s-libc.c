/* s-libc.c — an instrumented program (tests/record builds it with
 * -finstrument-functions and libprof) whose time is mostly in libc:
 * clear() in memset, sorting() in qsort (calling back cmp, instrumented)
 * on an array that filled() made, own() in its own loop. With DEEPPROF_UNWIND=1 the ticks in libc go to
 * libc's frames under clear and sorting. argv[1]: the number sorted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
volatile unsigned long sink;
static char buf[1 << 22];  /* 4 MiB: memset past the L2 cache, many ticks (1 MiB gave 5) */
__attribute__((noinline)) void clear(int n)
{
	for (int i = 0; i < n; i++) {
		memset(buf, i, sizeof buf);
		sink += (unsigned char)buf[i & 4095];
	}
}
int cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}
/* the array to sort, filled apart from sorting(): its first touch is
 * page faults, whose system time (much of it on some VMs) would otherwise
 * be sorting's own */
__attribute__((noinline)) unsigned *filled(unsigned n)
{
	unsigned *v = malloc(n * sizeof *v);
	if (!v)
		exit(1);
	for (unsigned i = 0; i < n; i++)
		v[i] = i * 2654435761u;
	return v;
}
__attribute__((noinline)) void sorting(unsigned *v, unsigned n)
{
	qsort(v, n, sizeof *v, cmp);
	sink += v[n / 2];
}
__attribute__((noinline)) void own(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}
int main(int argc, char **argv)
{
	clear(4000);
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 300000;
	unsigned *v = filled(n);
	sorting(v, n);
	free(v);
	own(100000000ul);
	printf("%lu\n", sink & 1);
	return 0;
}
