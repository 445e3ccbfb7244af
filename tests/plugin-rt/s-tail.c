/* s-tail.c — deep tail recursion, n from argv[1] (default 10^7): count()
 * calls itself in tail position, is_even()/is_odd() call each other in tail
 * position. At -O2 the calls are real tail calls (jumps): profiling must
 * not make them ordinary calls, or the machine stack overflows. */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long count(long n, long acc)
{
	if (n == 0)
		return acc;
	return count(n - 1, acc + 1);
}
long is_odd(long n);
__attribute__((noinline)) long is_even(long n) { return n == 0 ? 1 : is_odd(n - 1); }
__attribute__((noinline)) long is_odd(long n) { return n == 0 ? 0 : is_even(n - 1); }
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	printf("%ld %ld\n", count(n, 0), is_even(n));
	return 0;
}
