/*
 * s-ljfold.c — a longjmp out of a folded recursion, then the same
 * procedures in another context (plugin-rt t022): main -> f(1) -> g(1) ->
 * f(0) (folded into f's first pd) -> longjmp back to main; then main ->
 * f(-1) -> k -> g(0). No g is running when k calls it, so k -> g must get
 * a pd of its own, not fold into the g the longjmp left. No call is in
 * tail position (the runtime would estimate their exits).
 * Part of deepprof's tests. MIT licence.
 */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;

int f(int n);
int g(int n) { return n > 0 ? f(n - 1) + 1 : 0; }
int k(void) { return g(0) + 1; }

int f(int n)
{
	if (n > 0)
		return g(n) + 1;
	if (n == 0)
		longjmp(env, 1);
	return k() + 1;
}

int main(void)
{
	volatile int n = 1;

	if (setjmp(env) != 0)
		n = -1;
	int r = f(n);           /* one site: f(1), left by the longjmp, then f(-1) */
	if (n == 1)
		return 1;
	printf("%d\n", r);
	return 0;
}
