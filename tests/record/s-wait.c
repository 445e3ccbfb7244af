/* s-wait.c — burns in warm(), prints its pid, then spins in forever()
 * until a signal ends it. argv[1]: "handler" installs its own SIGPROF
 * handler first, "block" blocks SIGPROF, "itimer" starts ITIMER_PROF;
 * those run a fixed amount of work instead of spinning for ever. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
volatile unsigned long sink;
static volatile sig_atomic_t profs;
static void on_prof(int sig) { (void)sig; profs++; }
__attribute__((noinline)) void burn(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	sink = x;
}
__attribute__((noinline)) void warm(void) { burn(50000000ul); }
__attribute__((noinline)) void forever(void) { for (;;) burn(1000000ul); }
__attribute__((noinline)) void after(void) { burn(100000000ul); }
int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	warm();
	if (!strcmp(how, "handler")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_prof;
		sigaction(SIGPROF, &sa, NULL);
	} else if (!strcmp(how, "block")) {
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, SIGPROF);
		sigprocmask(SIG_BLOCK, &s, NULL);
	} else if (!strcmp(how, "itimer")) {
		signal(SIGPROF, on_prof);
		struct itimerval v = { { 0, 10000 }, { 0, 10000 } };
		setitimer(ITIMER_PROF, &v, NULL);
	}
	if (*how) {
		after();
		printf("done\n");
		return 0;
	}
	printf("%d\n", (int)getpid());
	fflush(stdout);
	forever();
	return 0;
}
