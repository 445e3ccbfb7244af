/* c-prog.c — the profiled program of the cgi suite: leaf() is called
 * argv[1] times through work(), so two runs give two profiles that differ
 * in known counts (the suite's data files A and B).
 * Part of deepprof's tests. MIT licence. */
#include <stdlib.h>

static int leaf(int x)
{
	return x + 1;
}

static int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	return work(n) == -1;
}
