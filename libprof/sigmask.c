/*
 * sigmask.c — the program's sigprocmask and pthread_sigmask, passed on to
 * libc's with SIGPROF kept deliverable while the runtime's clock ticks
 * (timer.c, dp_sigmask_keep_prof): a worker thread that blocks every
 * signal is still sampled. deepprof record's runtime has its own (record.c).
 * Part of deepprof's libprof. MIT licence.
 */
#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "internal.h"

typedef int mask_fn(int, const sigset_t *, sigset_t *);

/* libc's own names of the two, in libc.a only: a static program has no
 * next object to look the functions up in */
extern mask_fn __sigprocmask __attribute__((weak));
extern mask_fn __pthread_sigmask __attribute__((weak));

/*
 * The real function: the next definition after this one (libc's, or a
 * sanitizer's interceptor), else libc.a's own name. NULL when neither is
 * there (a static program that never linked libc's), and the caller makes
 * the system call itself.
 */
static mask_fn *real(const char *name, mask_fn *local, void **cache)
{
	return local ? local : (mask_fn *)dp_next_sym(name, cache);
}

/* The system call, as libc makes it: its two internal signals (32, 33:
 * thread cancellation and setxid) never blocked. Returns 0 or an errno. */
static int raw_mask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t s;
	if (set) {
		s = *set;
		((unsigned long *)&s)[0] &= ~(3ul << 31);
		set = &s;
	}
	return syscall(SYS_rt_sigprocmask, how, set, old, _NSIG / 8) == 0 ? 0 : errno;
}

static void *r_proc, *r_thread;     /* the real functions, once looked up */

/* Looked up at start, not at the first call: that may come in a signal
 * handler, where dlsym (which takes the loader's lock) must not run. */
__attribute__((constructor)) static void prime(void)
{
	real("sigprocmask", __sigprocmask, &r_proc);
	real("pthread_sigmask", __pthread_sigmask, &r_thread);
}

DP_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	mask_fn *f = real("sigprocmask", __sigprocmask, &r_proc);
	sigset_t copy;
	set = dp_sigmask_keep_prof(how, set, &copy, NULL);
	if (f)
		return f(how, set, old);
	int e = raw_mask(how, set, old);
	if (e)
		errno = e;
	return e ? -1 : 0;
}

DP_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	mask_fn *f = real("pthread_sigmask", __pthread_sigmask, &r_thread);
	sigset_t copy;
	set = dp_sigmask_keep_prof(how, set, &copy, NULL);
	return f ? f(how, set, old) : raw_mask(how, set, old);
}
