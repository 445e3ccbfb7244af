/*
 * s-sitefold.c — plugin-rt t045: f's direct sites call functions that
 * make calls (n1, n2: dp_cur set before, restored after, exits counted
 * there), two inlined copies of m, whose sites are quiet bodies', and
 * an inlined loop.
 * Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>

__attribute__((noinline)) long h(long x)
{
	return x ^ 0x55;
}

__attribute__((noinline)) long n1(long x)
{
	return h(x) + 1;
}

__attribute__((noinline)) long n2(long x)
{
	return h(x + 1) * 3;
}

static inline long m(long x)
{
	long v = x & 1 ? n1(x) : n2(x);

	return v + 1;
}

/* inlined, its loop's ticks go to its own csd, which it reads from
 * dp_cur right after the site set it */
static inline long lp(long x)
{
	long s = 0;

	for (long i = 0; i < x; i++)
		s += i * x;
	return s;
}

__attribute__((noinline)) long f(long a, long b)
{
	long r = n1(a) + n2(b);

	r += m(a) + m(b) + lp(a & 7);
	return r + n1(r);
}

int main(void)
{
	long s = 0;

	for (long i = 0; i < 50; i++)
		s += f(i, 2 * i + 1);
	printf("%ld\n", s);
	return 0;
}
