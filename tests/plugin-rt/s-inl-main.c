/* s-inl-main.c — main calls the uninstrumented u() 5 times.
 * Part of deepprof's tests. MIT licence. */
#include <stdio.h>

int u(int);

int main(void)
{
	int s = 0;

	for (int i = 0; i < 5; i++)
		s += u(i);
	printf("%d\n", s);
	return 0;
}
