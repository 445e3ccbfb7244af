/*
 * prog.c — the batch suite's profiled program (built with
 * -finstrument-functions and libprof.a). Its calls for argument n:
 *   main -> work(n) -> leaf x n;  main -> fib(n) (folded recursion through
 *   two call sites) -> leaf at every n < 2;  for n > 4 main -> extra -> leaf;
 *   a thread: worker -> work(2n) -> leaf x 2n.
 * Part of deepprof's tests. MIT licence.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int leaf(int x)
{
	return x + 1;
}

static int fib(int n)
{
	return n < 2 ? leaf(n) : fib(n - 1) + fib(n - 2);
}

static int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

static int extra(void)
{
	return leaf(7);
}

static void *worker(void *arg)
{
	work(2 * *(int *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, s;
	pthread_t t;

	s = work(n);
	s += fib(n);
	if (n > 4)
		s += extra();
	if (pthread_create(&t, NULL, worker, &n) != 0)
		return 1;
	pthread_join(t, NULL);
	printf("%d\n", s);
	return 0;
}
