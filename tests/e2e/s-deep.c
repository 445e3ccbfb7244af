/* s-deep.c — a linear recursion of depth argv[1] (the shadow stack grows). */
#include <stdlib.h>
int down(int n) { return n == 0 ? 0 : 1 + down(n - 1); }
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50000;
	return down(n) == n ? 0 : 1;
}
