/* fb-pair.c — the feedback suite's program: in main, two independent calls
 * of equal cost (left, right: each about 3*10^6 loop iterations of pure
 * arithmetic) in one straight-line region, the one parallelism candidate
 * to accept; then a pair of cheap calls (tiny_a, tiny_b) that must not be
 * recommended. Part of deepprof's tests. MIT licence. */
#include <stdio.h>

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

int main(void)
{
	long a = left(3000000);
	long b = right(3000000);
	long c = tiny_a(a);
	long d = tiny_b(b);

	printf("%ld\n", a + b + c + d);
	return 0;
}
