/* s-ucontext.c — a coroutine on a stack of its own (makecontext,
 * swapcontext): main resumes it 100 times, each time it calls leaf() and
 * yields back through yield_back(); then it returns, and uc_link brings
 * main back. Prints two sums. */
#include <stdio.h>
#include <ucontext.h>
static ucontext_t main_ctx, co_ctx;
static char stack[65536];
volatile unsigned sink;
__attribute__((noinline)) unsigned leaf(unsigned x) { return x + sink; }
__attribute__((noinline)) void yield_back(void) { swapcontext(&co_ctx, &main_ctx); }
__attribute__((noinline)) void co_body(void)
{
	for (unsigned i = 0; i < 100; i++) {
		sink += leaf(i);
		yield_back();
	}
}
__attribute__((noinline)) void resume(void) { swapcontext(&main_ctx, &co_ctx); }
__attribute__((noinline)) unsigned work(unsigned n) { unsigned s = 0; for (unsigned i = 0; i < n; i++) s += leaf(i); return s; }
int main(void)
{
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = sizeof stack;
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, co_body, 0);
	unsigned t = 0;
	for (int i = 0; i < 100; i++) {
		resume();
		t += work(3);
	}
	resume();       /* co_body returns: uc_link back to main */
	printf("%u %u\n", t, sink);
	return 0;
}
