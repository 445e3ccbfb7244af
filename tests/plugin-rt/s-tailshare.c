/*
 * s-tailshare.c — a tail call whose caller is left both ways (plugin-rt
 * t023): main calls g(-1), g(0), g(1), g(2); g(0) calls k, which longjmps
 * back to main; otherwise g tail-calls h, which longjmps for n < 0 and
 * returns for the others. So g -> h: 3 calls, 2 returned; main -> g: 4
 * calls, 2 returned. Part of deepprof's tests. MIT licence.
 */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;

int h(int n)
{
	if (n < 0)
		longjmp(env, 1);
	return n + 1;
}

int k(void)
{
	longjmp(env, 2);
}

int g(int n)
{
	if (n == 0)
		k();
	return h(n);            /* a tail call */
}

int main(void)
{
	volatile int i, sum = 0;

	for (i = -1; i <= 2; i++)
		if (setjmp(env) == 0)
			sum += g(i);
	printf("%d\n", sum);
	return 0;
}
