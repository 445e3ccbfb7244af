/* s-altstack.c — an instrumented SIGUSR1 handler running on an alternate
 * signal stack that is a buffer in main's frame, so its frames lie above the
 * frames it interrupts: main -> work -> deep, which raises SIGUSR1 (on_sig ->
 * in_handler on the alternate stack), then calls leaf. With "jump" the
 * handler siglongjmps back to main, which then calls after. */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static sigjmp_buf back;
static int jump;
static volatile int sink;

void in_handler(void) { sink++; }
void on_sig(int sig)
{
	(void)sig;
	in_handler();
	if (jump)
		siglongjmp(back, 1);
}
void leaf(void) { sink++; }
void deep(void)
{
	raise(SIGUSR1);
	leaf();
}
void work(void) { deep(); }
void after(void) { sink++; }

int main(int argc, char **argv)
{
	static char spare[1];       /* keeps alt below in main's frame */
	char alt[64 * 1024];
	stack_t ss;
	struct sigaction sa;

	jump = argc > 1 && strcmp(argv[1], "jump") == 0;
	memset(&ss, 0, sizeof ss);
	ss.ss_sp = alt;
	ss.ss_size = sizeof alt;
	if (sigaltstack(&ss, NULL) != 0)
		return 7;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sig;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	if (sigsetjmp(back, 1) == 0)
		work();
	else
		after();
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	spare[0] = (char)sink;
	return 0;
}
