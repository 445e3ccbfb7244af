/*
 * fib.c — the call-heavy microbenchmark: naive doubly recursive Fibonacci,
 * one call every few nanoseconds and nothing else.
 * Part of deepprof's bench. MIT licence.
 *
 *   fib N      prints fib(N)
 */
#include <stdio.h>
#include <stdlib.h>

/*
 * noinline and no sibling-call optimization: otherwise GCC -O2 inlines fib
 * into itself and turns one of the two calls into a loop (tail recursion with
 * an accumulator), so the plain build would make a fraction of the calls the
 * instrumented builds make (instrumentation blocks both). Every variant makes
 * the same fib(N+1)*2-1 calls, and the ratios measure the cost per call.
 */
__attribute__((noinline, optimize("no-optimize-sibling-calls")))
static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 35;

	if (n < 0 || n > 60) {
		fprintf(stderr, "fib: N must be in 0..60\n");
		return 2;
	}
	printf("fib(%d) = %ld\n", n, fib(n));
	return 0;
}
