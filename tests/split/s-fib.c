/*
 * s-fib.c — split test program: tree-recursive fib. Its two recursive
 * sites split the work φ : 1 (fib(n-1) costs φ times fib(n-2)).
 * Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 30;

	printf("fib(%d) = %ld\n", n, fib(n));
	return 0;
}
