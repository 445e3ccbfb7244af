/* s-lean.c — calls GCC inlines at -O2 into bodies that make no call (sq:
 * public, so it has a prologue where it is not inlined) and into one that
 * makes a call on a path (chk -> bump): tests/plugin-rt t040. */
#include <stdio.h>
#include <stdlib.h>

int sq(int x) { return x * x; }
__attribute__((noinline)) int bump(int x) { return x + 1; }
int chk(int x) { return x < 0 ? bump(x) : x; }

__attribute__((noinline)) int f1(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += sq(i);
	return s;
}

__attribute__((noinline)) int f2(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += chk(i - 3);
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	printf("%d %d %d\n", f1(n), f2(n), sq(n));
	return 0;
}
