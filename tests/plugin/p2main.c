/* p2main.c — plugin test: two translation units in the executable and a
 * shared library (p2lib.c) that calls back into the executable. */
#include <stdio.h>
int helper(int x);
int lib_sum(int n, int (*cb)(int));
static int cb(int v) { return helper(v); }
int main(void)
{
	printf("%d\n", lib_sum(4, cb));
	return 0;
}
