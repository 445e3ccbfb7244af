/*
 * timer.c — clock ticks: a per-thread CPU-time timer (CLOCK_THREAD_CPUTIME_ID,
 * delivered to its own thread as SIGPROF) and the handler that charges each
 * tick to the csd current on the interrupted thread.
 * Part of deepprof's libprof. MIT licence.
 */
#include <errno.h>
#include <string.h>
#include "internal.h"

/* Charge one tick: to the current csd, or to the thread's outside sink when
 * no activation is current or the runtime itself is busy; then let split.c
 * count the recursive activations on the interrupted stack. */
static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)si;
	int saved_errno = errno;
	struct dp_thread *t = dp_self;
	if (t) {
		struct dp_csd *c = dp_cur_csd(t);
		c->ticks++;
		dp_split_sample(t, uc);
	}
	errno = saved_errno;
}

/* Install the SIGPROF handler (once, at runtime init, when DEEPPROF_HZ != 0). */
void dp_timer_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigprof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) != 0)
		dp_log("cannot install the SIGPROF handler: no clock ticks", NULL, NULL);
}

/* Start t's CPU timer; t must be the calling thread. */
void dp_timer_start(struct dp_thread *t)
{
	if (!dp_rt.timer_hz || t->has_timer)
		return;
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
	sev._sigev_un._tid = t->tid;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t->timer) != 0) {
		dp_log("cannot create a CPU timer: no clock ticks for a thread", NULL, NULL);
		return;
	}
	long ns = 1000000000L / (long)dp_rt.timer_hz;
	struct itimerspec its = {
		.it_interval = { ns / 1000000000L, ns % 1000000000L },
		.it_value = { ns / 1000000000L, ns % 1000000000L },
	};
	if (timer_settime(t->timer, 0, &its, NULL) != 0) {
		timer_delete(t->timer);
		dp_log("cannot start a CPU timer: no clock ticks for a thread", NULL, NULL);
		return;
	}
	t->has_timer = true;
}

void dp_timer_stop(struct dp_thread *t)
{
	if (!t->has_timer)
		return;
	timer_delete(t->timer);
	t->has_timer = false;
}
