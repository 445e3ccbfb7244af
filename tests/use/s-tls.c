/*
 * s-tls.c — a candidate whose calls read thread-local state: mix() is
 * pure, but a task on another thread would read that thread's salt, so the
 * use build leaves it serial and says why. Prints what the serial build
 * prints. Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>

static __thread unsigned long salt = 1;

static unsigned long mix(unsigned long s, long n)
{
	for (long i = 0; i < n; i++)
		s = (s ^ (s >> 29)) * 0xbf58476d1ce4e5b9UL + salt;
	return s;
}

int main(void)
{
	salt = 7;
	unsigned long a = mix(1, 20000000);
	unsigned long b = mix(2, 20000000);
	printf("%lu %lu\n", a, b);
	return 0;
}
