/* A parallel loop with a reduction whose body calls a function, a single
 * inside a parallel region, and nested parallel regions, after
 * omp_set_num_threads(2). */
#include <omp.h>
#include <stdio.h>

static long f(long i) { return i % 7; }
static long g(void) { return 5; }
static long h(long x) { return x * 2; }

static long work(long n)
{
	long s = 0;
#pragma omp parallel for reduction(+:s) schedule(static)
	for (long i = 0; i < n; i++)
		s += f(i);
	return s;
}

int main(void)
{
	omp_set_num_threads(2);
	long s = work(1000);
	long t = 0;
#pragma omp parallel
	{
#pragma omp single
		t = g();
	}
	omp_set_max_active_levels(2);
	long u = 0;
#pragma omp parallel num_threads(2) reduction(+:u)
	{
#pragma omp parallel num_threads(2) reduction(+:u)
		u += h(1);
	}
	printf("%ld %ld %ld\n", s, t, u);
	return 0;
}
