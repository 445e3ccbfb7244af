/* parallel sections, each section calling one function (issue 11's
 * 15-line program): each runs once, on whichever thread takes it. */
#include <stdio.h>

static int a(int x) { return x + 1; }
static int b(int x) { return x * 2; }
static int c(int x) { return x - 3; }

int main(void)
{
	int r1 = 0, r2 = 0, r3 = 0;
#pragma omp parallel sections
	{
#pragma omp section
		r1 = a(1);
#pragma omp section
		r2 = b(2);
#pragma omp section
		r3 = c(3);
	}
	printf("%d %d %d\n", r1, r2, r3);
	return 0;
}
