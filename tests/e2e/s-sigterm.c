/* s-sigterm.c — main -> work -> wait_here, which says "ready" and waits for
 * a signal. Without arguments SIGTERM kills it (libprof's handler writes the
 * profile first); with "handler" the program's own SIGTERM handler on_term
 * runs and the program returns normally. */
#include <signal.h>
#include <string.h>
#include <unistd.h>
static volatile sig_atomic_t got;
void on_term(int sig) { (void)sig; got = 1; }
void wait_here(void)
{
	if (write(1, "ready\n", 6) != 6)
		_exit(9);
	while (!got)
		pause();
}
void work(void) { wait_here(); }
int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "handler") == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_term;
		sigaction(SIGTERM, &sa, NULL);
	}
	work();
	if (write(1, "handled\n", 8) != 8)
		return 9;
	return 0;
}
