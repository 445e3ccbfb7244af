/* s-mf-main.c — with s-mf-lib.c, a two-file program (or a program and a
 * shared library): calls across files both ways, through a function
 * pointer, and a static helper() in each file. Prints the result. */
#include <stdio.h>
int lib_sum(int n);
int lib_twice(int (*f)(int), int x);
static int helper(int x) { return x + 1; }
int square(int x) { return x * x; }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 4; i++)
		s += lib_sum(10);
	s += lib_twice(square, 3);
	s += helper(1);
	printf("%d\n", s);
	return 0;
}
