/*
 * record_mix.c — the sampling benchmark's program of known shares (deepprof
 * record against perf record and the instrumented profile): CPU in several
 * functions reached from distinct contexts, a recursion, and libc (qsort
 * calling back a comparator, memset), so that a top-10 by self time has ten
 * rows to compare. Part of deepprof's bench. MIT licence.
 *
 *   record_mix UNITS      prints a checksum
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long spin(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

__attribute__((noinline)) static void heavy(unsigned long n) { sink += spin(4 * n, sink); }
__attribute__((noinline)) static void medium(unsigned long n) { sink += spin(2 * n, sink + 1); }
__attribute__((noinline)) static void light(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	sink = x;
}
__attribute__((noinline)) static unsigned long walk(int depth, unsigned long n)
{
	unsigned long x = spin(n, (unsigned long)depth);
	return depth ? x + walk(depth - 1, n) : x;
}
static int cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}
__attribute__((noinline)) static void sorting(unsigned n)
{
	unsigned *v = malloc(n * sizeof *v);
	if (!v)
		exit(1);
	for (unsigned i = 0; i < n; i++)
		v[i] = (unsigned)(i * 2654435761u);
	qsort(v, n, sizeof *v, cmp);
	sink += v[n / 2];
	free(v);
}
__attribute__((noinline)) static void clearing(size_t n)
{
	static char buf[1 << 20];
	for (size_t i = 0; i < n; i++) {
		memset(buf, (int)i, sizeof buf);
		sink += (unsigned char)buf[i & 1023];
	}
}
__attribute__((noinline)) static void phase_a(unsigned long n) { heavy(n); light(n); }
__attribute__((noinline)) static void phase_b(unsigned long n) { medium(n); walk(30, n / 64); }

int main(int argc, char **argv)
{
	int units = argc > 1 ? atoi(argv[1]) : 10;
	for (int u = 0; u < units; u++) {
		phase_a(10000000);
		phase_b(10000000);
		sorting(400000);
		clearing(300);
	}
	printf("%lu\n", sink & 0xffff);
	return 0;
}
