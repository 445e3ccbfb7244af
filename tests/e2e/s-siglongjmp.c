/* s-siglongjmp.c — deep(20) raises SIGUSR1 at the bottom; the instrumented
 * handler siglongjmps back to main, which then calls after(). */
#include <setjmp.h>
#include <signal.h>
#include <string.h>
static sigjmp_buf env;
void on_usr1(int sig) { (void)sig; siglongjmp(env, 1); }
void deep(int n) { if (n == 0) raise(SIGUSR1); else deep(n - 1); }
int after(int x) { return x + 1; }
int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	if (sigsetjmp(env, 1) == 0) {
		deep(20);
		return 1;
	}
	return after(1) == 2 ? 0 : 2;
}
