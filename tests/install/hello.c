/*
 * hello.c — the program check-install builds against an installed libprof
 * (pkg-config libprof): main calls mid twice, each mid calls leaf three
 * times, and a dp_write() snapshot goes to argv[1]. Part of deepprof's tests.
 * MIT licence.
 */
#include <deepprof.h>
#include <stdio.h>

static int leaf(int x) { return x + 1; }

static int mid(int x) { return leaf(x) + leaf(x + 1) + leaf(x + 2); }

int main(int argc, char **argv)
{
	int s = mid(1) + mid(2);        /* 9 + 12 */

	if (argc > 1 && dp_write(argv[1]) != 0)
		return 3;
	printf("%d\n", s);
	return s == 21 ? 0 : 1;
}
