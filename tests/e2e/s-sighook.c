/* s-sighook.c — an instrumented signal handler interrupting the program
 * (and so, often, libprof's hooks) thousands of times: loop() calls work()
 * argv[1] times while ITIMER_REAL sends SIGALRM to on_tick every 50 us;
 * on_tick calls tick_leaf. Prints the number of handler runs. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
static volatile long ticks;
static volatile unsigned long sink;
void tick_leaf(void) { ticks++; }
void on_tick(int sig) { (void)sig; tick_leaf(); }
void work(int i) { sink += (unsigned long)i; }
void loop(long n) { for (long i = 0; i < n; i++) work((int)i); }
int main(int argc, char **argv)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_tick;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	setitimer(ITIMER_REAL, &it, NULL);
	loop(argc > 1 ? atol(argv[1]) : 3000000);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	printf("%ld\n", ticks);
	return 0;
}
