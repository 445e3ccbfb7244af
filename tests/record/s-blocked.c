/* s-blocked.c — a worker thread with every signal blocked, as liblzma's
 * (xz -T2) and many thread pools make them: main blocks all signals around
 * pthread_create ("inherit"), or the worker blocks them itself once it runs
 * ("self", through sigprocmask). The worker spins in spin() for argv[2]
 * rounds; main only waits. Prints "mask ok" when the worker's mask blocks
 * what the program asked (SIGINT, SIGUSR1, SIGTERM), so a profiler that
 * keeps SIGPROF deliverable has changed nothing else; and "handler ok" when
 * a SIGUSR1 handler that runs with SIGPROF blocked (its sa_mask) and sets
 * a full mask finds SIGPROF blocked still, as asked: a tick must never
 * interrupt a handler that blocks it (libunwind sets full masks while the
 * tick handler unwinds). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile unsigned long sink;
static int self_block;
static unsigned long rounds;
static int mask_ok;
static volatile sig_atomic_t handler_ok;

static void on_usr1(int sig)
{
	(void)sig;
	sigset_t all, old, now;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	sigprocmask(SIG_BLOCK, NULL, &now);
	handler_ok = sigismember(&now, SIGPROF) == 1 && sigismember(&now, SIGINT) == 1;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

__attribute__((noinline)) void spin(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	sink = x;
}

__attribute__((noinline)) void *worker(void *arg)
{
	(void)arg;
	sigset_t all, now;
	if (self_block) {
		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, NULL);
	}
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	mask_ok = sigismember(&now, SIGINT) == 1 && sigismember(&now, SIGUSR1) == 1 &&
		  sigismember(&now, SIGTERM) == 1;
	spin(rounds);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: s-blocked inherit|self ROUNDS\n");
		return 2;
	}
	self_block = !strcmp(argv[1], "self");
	rounds = strtoul(argv[2], NULL, 10);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGPROF);
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	sigset_t all, old;
	sigfillset(&all);
	pthread_t t;
	if (!self_block)
		pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	if (!self_block)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_join(t, NULL);
	printf("mask %s\nhandler %s\n", mask_ok ? "ok" : "wrong", handler_ok ? "ok" : "wrong");
	return 0;
}
