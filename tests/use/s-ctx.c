/*
 * s-ctx.c — a callee hot in one context only: g() calls f() four times on
 * 5M steps each, h() 100000 times on 10: f() is costly per call only from
 * g(), cheap on average. Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>

static unsigned long f(unsigned long s, long n)
{
	for (long i = 0; i < n; i++) {
		s ^= s >> 31;
		s *= 0x9e3779b97f4a7c15UL;
	}
	return s;
}

static unsigned long g(void)
{
	unsigned long a = 0;

	for (int i = 0; i < 4; i++)
		a ^= f((unsigned long)i, 5000000);
	return a;
}

static unsigned long h(void)
{
	unsigned long a = 0;

	for (long i = 0; i < 100000; i++)
		a += f((unsigned long)i, 10);
	return a;
}

int main(void)
{
	printf("g %lu h %lu\n", g(), h());
	return 0;
}
