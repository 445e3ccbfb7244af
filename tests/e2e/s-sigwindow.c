/* s-sigwindow.c — an instrumented SIGALRM handler (on_sig -> sig_leaf) and
 * loop() calling work() argv[1] times, with no timer: a stress build of
 * libprof (-DDP_STRESS, e2e t030) raises the signal inside its own hooks at
 * the points $DEEPPROF_STRESS names. Prints the number of handler runs.
 * With a second argument, loop first calls grow1..grow4 once each, so that
 * loop's csd table has grown twice (4 -> 8 -> 16 slots) before work's csd
 * is made in it: the hooks' fast path then finds work in a grown table. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static volatile long runs;
static volatile unsigned long sink;
void sig_leaf(void) { runs++; }
void on_sig(int sig) { (void)sig; sig_leaf(); }
void work(int i) { sink += (unsigned long)i; }
void grow1(void) { sink += 1; }
void grow2(void) { sink += 2; }
void grow3(void) { sink += 3; }
void grow4(void) { sink += 4; }
void loop(long n, int grow)
{
	if (grow) {
		grow1();
		grow2();
		grow3();
		grow4();
	}
	for (long i = 0; i < n; i++)
		work((int)i);
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sig;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	loop(n, argc > 2);
	signal(SIGALRM, SIG_IGN);
	printf("%ld\n", runs);
	return 0;
}
