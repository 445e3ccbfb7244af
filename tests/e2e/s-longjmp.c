/* s-longjmp.c — non-local exits: deep(49) recurses to depth 50 and longjmps
 * back to main; then main calls after() (resynchronised at an enter hook);
 * then middle() setjmps, deep2(10) longjmps back into it, middle calls leaf
 * and big (a big frame) and returns
 * (resynchronised at an exit hook); finally shallow(3) recurses normally. */
#include <setjmp.h>
static jmp_buf top, mid;
void deep(int n) { if (n == 0) longjmp(top, 1); deep(n - 1); }
void deep2(int n) { if (n == 0) longjmp(mid, 1); deep2(n - 1); }
int leaf(int x) { return x * 2; }
/* A bigger frame than deep's and deep2's: its stack pointer at the hook lies
 * below theirs, though its frame address does not. */
int big(int x) { volatile char buf[512]; buf[x] = 1; return buf[x]; }
void after(void) { leaf(1); leaf(2); big(0); }
int middle(void)
{
	if (setjmp(mid) == 0) {
		deep2(10);
		return 0;
	}
	return leaf(3) + big(1) - 1;
}
int shallow(int n) { return n == 0 ? 0 : 1 + shallow(n - 1); }
int main(void)
{
	if (setjmp(top) == 0) {
		deep(49);
		return 1;
	}
	after();
	if (middle() != 6)
		return 2;
	return shallow(3) == 3 ? 0 : 3;
}
