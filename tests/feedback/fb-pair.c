/* fb-pair.c — the feedback suite's program: in main, two independent calls
 * (left, right: N1 and N2 loop iterations of pure arithmetic, one CSC each
 * in a plugin build; default 3*10^6 each, else argv[1], argv[2]) in one
 * straight-line region, the one parallelism candidate to accept; then a
 * pair of cheap calls (tiny_a, tiny_b) that must not be recommended.
 * Part of deepprof's tests. MIT licence. */
#include <stdio.h>
#include <stdlib.h>

static long work(long n, long seed)
{
	long s = seed;

	for (long i = 0; i < n; i++)
		s = (s * 31 + i) % 1000003;
	return s;
}

__attribute__((noinline)) long left(long n) { return work(n, 1); }
__attribute__((noinline)) long right(long n) { return work(n, 2); }
__attribute__((noinline)) long tiny_a(long x) { return x + 1; }
__attribute__((noinline)) long tiny_b(long x) { return x + 2; }

int main(int argc, char **argv)
{
	long n1 = argc > 2 ? atol(argv[1]) : 3000000, n2 = argc > 2 ? atol(argv[2]) : 3000000;
	long a = left(n1);
	long b = right(n2);
	long c = tiny_a(a);
	long d = tiny_b(b);

	printf("%ld\n", a + b + c + d);
	return 0;
}
