/*
 * s-siteasm.c — plugin-rt t044: f calls h, then two inlined copies of p
 * (quiet bodies: their checks, no call), then h again. The restore of
 * dp_cur after the first h is followed by no read of it but the checks.
 * Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>

__attribute__((noinline)) long h(long x)
{
	return x ^ 0x55;
}

static inline long p(long x)
{
	return x * 2 + 1;
}

__attribute__((noinline)) long f(long a, long b)
{
	long r = h(a);

	return h(p(r) * p(b)) + r;
}

int main(void)
{
	long s = 0;

	for (long i = 0; i < 50; i++)
		s += f(i, i + 1);
	printf("%ld\n", s);
	return 0;
}
