/* s-takeprof.c — takes SIGPROF from the profiler, then burns CPU for a
 * while: "dfl" resets every signal to SIG_DFL with signal() (as daemons
 * do; SIGPROF's default action ends the process), "ign" ignores SIGPROF,
 * "handler" installs its own handler with sigaction and prints how many
 * SIGPROFs it got (it starts no timer: 0). Prints "survived". */
#include <signal.h>
#include <stdio.h>
#include <string.h>
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
int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	burn(20000000ul);
	if (!strcmp(how, "dfl")) {
		for (int i = 1; i < 32; i++)
			if (i != SIGKILL && i != SIGSTOP)
				signal(i, SIG_DFL);
	} else if (!strcmp(how, "ign")) {
		signal(SIGPROF, SIG_IGN);
	} else if (!strcmp(how, "handler")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_prof;
		sigaction(SIGPROF, &sa, NULL);
	}
	burn(200000000ul);
	if (!strcmp(how, "handler"))
		printf("SIGPROFs: %d\n", (int)profs);
	printf("survived\n");
	return 0;
}
