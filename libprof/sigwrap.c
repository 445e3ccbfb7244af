/*
 * sigwrap.c — the program's sigaction and signal, seen before they take
 * SIGPROF from the runtime's clock (timer.c, dp_timer_give_up): a program
 * that resets every signal to SIG_DFL was killed by our next tick, and
 * one with its own SIGPROF handler got our ticks. Built twice: into
 * libprof.a as __wrap_sigaction and __wrap_signal, which deepprof-cc's
 * link puts in front of libc's (-Wl,--wrap=sigaction,--wrap=signal: that
 * works in static programs too, and leaves this object out of links that
 * do not ask for it); and into libprof.so (DP_SIGWRAP_SHARED) as sigaction
 * and signal themselves, ahead of libc's in the lookup order. deepprof
 * record's runtime has its own (record.c).
 * Part of deepprof's libprof. MIT licence.
 */
#include <errno.h>
#include "internal.h"

typedef int action_fn(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t signal_fn(int, sighandler_t);

/* What the program is about to do to SIGPROF: if it is not our handler,
 * the clock stops first. */
static void check(int sig, const struct sigaction *act)
{
	if (sig == SIGPROF && act && !dp_timer_handler_is_ours(act, NULL))
		dp_timer_give_up();
}

#ifdef DP_SIGWRAP_SHARED

static void *r_action, *r_signal;   /* libc's, once looked up */

/* at start: a first call in a signal handler must not run dlsym */
__attribute__((constructor)) static void prime(void)
{
	dp_next_sym("sigaction", &r_action);
	dp_next_sym("signal", &r_signal);
}

DP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	action_fn *f = (action_fn *)dp_next_sym("sigaction", &r_action);
	check(sig, act);
	return f ? f(sig, act, old) : (errno = ENOSYS, -1);
}

DP_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	signal_fn *f = (signal_fn *)dp_next_sym("signal", &r_signal);
	struct sigaction sa = { .sa_handler = h };
	check(sig, &sa);
	return f ? f(sig, h) : SIG_ERR;
}

#else

action_fn __real_sigaction;
signal_fn __real_signal;

DP_EXPORT int __wrap_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	check(sig, act);
	return __real_sigaction(sig, act, old);
}

DP_EXPORT sighandler_t __wrap_signal(int sig, sighandler_t h)
{
	struct sigaction sa = { .sa_handler = h };
	check(sig, &sa);
	return __real_signal(sig, h);
}

#endif
