/*
 * record.c — sampling mode, for `deepprof record`: libprof preloaded into an
 * unmodified program. Each tick of a thread's CPU timer unwinds the
 * interrupted stack with libunwind and charges the tick to that calling
 * context, folded into the same ps/css/pd/csd graph instrumented runs build.
 * Linked only into libprof-record.so; unwind.c has the unwinder.
 * Part of deepprof's libprof. MIT licence.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/time.h>
#include "internal.h"

/* The deepest stack a tick unwinds; a deeper one keeps its innermost
 * REC_DEPTH frames, hung from the synthetic "<truncated>" procedure. */
#define REC_DEPTH 1024

/* A thread's tick scratch (t->rec), written only by its tick handler. */
struct rec_buf {
	struct dp_uframe f[REC_DEPTH];
	struct dp_pd *path[REC_DEPTH + 2];  /* the pds of the context, root first */
};

/* --- private state --- */

static struct dp_ps *trunc_ps;          /* "<truncated>", made at the first deep stack */
static unsigned warned;                 /* enum dp_rec_flags already warned about */
static char file_copy[4096];            /* $DEEPPROF_FILE, kept when it is unset */
static bool following;                  /* --follow-exec: exec'd images are sampled too */
/* Set while this thread runs libunwind (the tick handler, set-up): it masks
 * signals around its caches through sigprocmask, not the program's doing. */
static __thread int in_tick __attribute__((tls_model("initial-exec")));

/* --- private prototypes --- */
static void on_tick(int sig, siginfo_t *si, void *uc);
static void charge(struct dp_thread *t, struct rec_buf *b, int n, bool truncated);
static void disturbed(unsigned flag, const char *what);

/* ==== set-up =============================================================== */

/* Take this object out of $LD_PRELOAD (entries are separated by ':' or
 * spaces), keeping the user's own. */
static void drop_preload(void)
{
	const char *v = getenv("LD_PRELOAD");
	if (!v)
		return;
	char *out = malloc(strlen(v) + 1), *o = out;
	if (!out)
		return;
	for (const char *p = v; *p;) {
		size_t n = strcspn(p, ": ");
		const char *base = p;
		for (size_t i = 0; i < n; i++)
			if (p[i] == '/')
				base = p + i + 1;
		if (n && !(p + n - base == 17 && !strncmp(base, "libprof-record.so", 17))) {
			if (o != out)
				*o++ = ':';
			memcpy(o, p, n);
			o += n;
		}
		p += n;
		if (*p)
			p++;
	}
	*o = 0;
	if (*out)
		setenv("LD_PRELOAD", out, 1);
	else
		unsetenv("LD_PRELOAD");
	free(out);
}

/* Whether to sample: `deepprof record` sets DEEPPROF_RECORD=1 (runtime init).
 * Without --follow-exec (DEEPPROF_RECORD_EXEC unset), the environment the
 * program passes on is cleaned, so that programs it executes run plain. */
int dp_record_wanted(void)
{
	const char *on = getenv("DEEPPROF_RECORD");
	if (!on || strcmp(on, "1"))
		return 0;
	const char *root = getenv("DEEPPROF_RECORD_ROOT");
	dp_rt.rec_root = root ? (pid_t)strtol(root, NULL, 10) : getpid();
	const char *gen = getenv("DEEPPROF_RECORD_GEN");
	dp_rt.rec_gen = gen ? (unsigned)strtoul(gen, NULL, 10) : 0;
	const char *exec = getenv("DEEPPROF_RECORD_EXEC");
	following = exec && !strcmp(exec, "1");
	if (!following) {
		const char *file = getenv("DEEPPROF_FILE");
		if (file && strlen(file) < sizeof file_copy) {
			strcpy(file_copy, file);
			dp_rt.file_env = file_copy;
		}
		unsetenv("DEEPPROF_RECORD");
		unsetenv("DEEPPROF_FILE");
		unsetenv("DEEPPROF_HZ");
		unsetenv("DEEPPROF_RECORD_ROOT");
		unsetenv("DEEPPROF_RECORD_GEN");
		drop_preload();
	}
	return 1;
}

void dp_record_install(void)
{
	in_tick = 1;            /* libunwind's set-up masks signals: not the program */
	int ok = dp_unwind_init("record:");
	in_tick = 0;
	if (ok < 0) {
		dp_log("record: no samples", NULL, NULL);
		return;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_tick;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	static void *r;
	int (*f)(int, const struct sigaction *, struct sigaction *) = dp_next_sym("sigaction", &r);
	if (!f || f(SIGPROF, &sa, NULL) != 0)
		dp_log("record: cannot install the SIGPROF handler: no samples", NULL, NULL);
}

int dp_record_thread(struct dp_thread *t)
{
	if (!t->rec)
		t->rec = dp_mem_map(sizeof(struct rec_buf));
	return t->rec ? 0 : -1;
}

/* Sampling does not interpose malloc (alloc.c is not in libprof-record.so:
 * its wrappers would be frames and cost in every sample); runtime init
 * still names this. Weak: a build of every libprof file (tests/e2e t030)
 * has alloc.c's. */
__attribute__((weak)) void dp_alloc_link(void)
{
}

/* ==== the tick ============================================================= */

/*
 * A tick of the interrupted thread's CPU timer. Async-signal-safe: the
 * stack is unwound from the signal's ucontext into the thread's scratch
 * (dp_unwind: libunwind's local unwinder, no malloc; the signal masking
 * around its cache lock is skipped, see sigprocmask below), at most
 * REC_DEPTH frames; charge() then walks the graph. New nodes come from
 * the thread's mmap'ed arena, global ones under dp_rt.lock, which this
 * thread never holds here: runtime code that takes it on a thread with a
 * timer marks the thread busy, and a busy thread's tick goes to its sink.
 */
static void on_tick(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)si;
	int saved_errno = errno;
	struct dp_thread *t = dp_self;
	if (!t)
		goto out;
	if (t->h->stop || !t->rec) {
		t->outside.ticks++;
		goto out;
	}
	struct rec_buf *b = t->rec;
	bool truncated;
	in_tick = 1;
	int n = dp_unwind(uc, b->f, REC_DEPTH, &truncated);
	in_tick = 0;
	if (!n) {
		DP_ADD(&dp_rt.rec_failed, 1);
		t->outside.ticks++;
		goto out;
	}
	if (truncated)
		DP_ADD(&dp_rt.rec_truncated, 1);
	dp_busy_on(t);
	charge(t, b, n, truncated);
	dp_busy_off(t);
out:
	errno = saved_errno;
}

/* Charge one tick to the context of frames b->f[0 .. n) (innermost first),
 * walked from the root: the call into frame i is made from site
 * f[i+1].ip (a return address) to f[i].fn. Self-recursive csds on the
 * way count the activation for the split of recursions (split.c's
 * "inside"). */
static void charge(struct dp_thread *t, struct rec_buf *b, int n, bool truncated)
{
	struct dp_pd **path = b->path;
	int depth = 0;
	struct dp_csd *c = NULL;
	path[depth++] = t->root;
	if (truncated) {
		if (!trunc_ps) {
			struct dp_ps init = { .kind = DP_PS_SYNTH, .name = "<truncated>" };
			trunc_ps = dp_graph_ps_get(1, &init);   /* key 1: never a function's entry */
		}
		if (!trunc_ps || !(c = dp_graph_sample_step(t, path, depth, 0, 1, trunc_ps, 0)))
			goto lost;
		path[depth++] = c->callee;
	}
	for (int i = n - 1; i >= 0; i--) {
		uintptr_t site = i == n - 1 ? 0 : b->f[i + 1].ip;
		if (!(c = dp_graph_sample_step(t, path, depth, site, b->f[i].fn, NULL, 0)))
			goto lost;
		if (c->callee == c->caller)
			c->inside++;
		else
			path[depth++] = c->callee;
	}
	c->ticks++;
	DP_ADD(&dp_split_samples, 1);
	return;
lost:
	t->lost++;
	t->outside.ticks++;
}

/* ==== threads ============================================================== */

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *thread_start(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	if (!dp_self)
		dp_thread_init();   /* the thread's state, scratch and timer */
	return s.fn(s.arg);
}

/* Every thread the program starts is sampled from its first instruction on. */
DP_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static void *r;
	int (*f)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) = dp_next_sym("pthread_create", &r);
	if (!f)
		return EAGAIN;
	struct start *s;
	if (!dp_rt.sampling || DP_LOAD(&dp_rt.stopped) || !(s = malloc(sizeof *s)))
		return f(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	int e = f(th, attr, thread_start, s);
	if (e)
		free(s);
	return e;
}

/* ==== what disturbs the sampling =========================================== */


/* The program did something that makes ticks go missing (or come from
 * elsewhere): one warning line per kind, and a mark in the profile. */
static void disturbed(unsigned flag, const char *what)
{
	if (!dp_rt.sampling)
		return;
	__atomic_fetch_or(&dp_rt.rec_flags, flag, __ATOMIC_RELAXED);
	if (__atomic_fetch_or(&warned, flag, __ATOMIC_RELAXED) & flag)
		return;
	dp_log("record: warning: the program", what, "(its profile is marked: times may be wrong)");
}

static void check_handler(int sig, const void *h)
{
	if (sig == SIGPROF && h != (const void *)on_tick) {
		disturbed(DP_REC_HANDLER, "installs its own SIGPROF handler");
		/* before the program's disposition is set: SIG_DFL would end
		 * the process at our next tick, its handler would get them */
		dp_timer_give_up();
	}
}

/* The set to pass on for the program's mask call: SIGPROF kept
 * deliverable (dp_sigmask_keep_prof), said once on stderr; a mask that
 * still blocks it (the program's own handler has taken SIGPROF) adds
 * nothing to that handler's mark. */
static const sigset_t *check_mask(int how, const sigset_t *set, sigset_t *copy)
{
	static int noted;
	if (in_tick)
		return set;
	const sigset_t *r = dp_sigmask_keep_prof(how, set, copy, on_tick);
	if (r != set && dp_rt.sampling && !__atomic_exchange_n(&noted, 1, __ATOMIC_RELAXED))
		dp_log("record: note: the program blocks SIGPROF;",
		       "it is kept unblocked, so every thread is still sampled", NULL);
	return r;
}

DP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	static void *r;
	int (*f)(int, const struct sigaction *, struct sigaction *) = dp_next_sym("sigaction", &r);
	if (act)
		check_handler(sig, (const void *)act->sa_handler);
	return f ? f(sig, act, old) : (errno = ENOSYS, -1);
}

DP_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	static void *r;
	sighandler_t (*f)(int, sighandler_t) = dp_next_sym("signal", &r);
	check_handler(sig, (const void *)h);
	return f ? f(sig, h) : SIG_ERR;
}

DP_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	static void *r;
	int (*f)(int, const sigset_t *, sigset_t *) = dp_next_sym("sigprocmask", &r);
	/* libunwind masks every signal around its global cache's lock, two
	 * system calls a frame; in the tick handler (SIGPROF already blocked,
	 * and no other handler here unwinds with libunwind) both are skipped */
	if (in_tick) {
		if (old)
			sigemptyset(old);
		return 0;
	}
	sigset_t copy;
	set = check_mask(how, set, &copy);
	return f ? f(how, set, old) : (errno = ENOSYS, -1);
}

DP_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	static void *r;
	int (*f)(int, const sigset_t *, sigset_t *) = dp_next_sym("pthread_sigmask", &r);
	sigset_t copy;
	set = check_mask(how, set, &copy);
	return f ? f(how, set, old) : ENOSYS;
}

DP_EXPORT int setitimer(__itimer_which_t which, const struct itimerval *restrict v,
			 struct itimerval *restrict old)
{
	static void *r;
	int (*f)(__itimer_which_t, const struct itimerval *, struct itimerval *) = dp_next_sym("setitimer", &r);
	if (which == ITIMER_PROF && v && (v->it_value.tv_sec || v->it_value.tv_usec))
		disturbed(DP_REC_ITIMER, "starts an ITIMER_PROF timer (SIGPROF from elsewhere)");
	return f ? f(which, v, old) : (errno = ENOSYS, -1);
}

/* At a write: the handler may also have been replaced behind our back
 * (a raw system call), and the writing thread may have SIGPROF blocked. */
void dp_record_check(void)
{
	static void *r;
	int (*f)(int, const struct sigaction *, struct sigaction *) = dp_next_sym("sigaction", &r);
	struct sigaction cur;
	if (f && f(SIGPROF, NULL, &cur) == 0 && cur.sa_sigaction != on_tick)
		disturbed(DP_REC_HANDLER, "replaced the SIGPROF handler");
}

/* ==== exec ================================================================= */

/*
 * Before the program replaces itself, write its profile (an exec runs no
 * destructor). With --follow-exec the exec'd image is profiled anew: it
 * inherits the environment, and its file name gets ".exec<N>". Only the
 * exec calls that go through these entry points are seen (not execl,
 * system or posix_spawn, which glibc makes internally; with --follow-exec
 * their images are still profiled, under their own pid's name).
 */
static char **exec_env(char *const envp[], char *buf, size_t size)
{
	static const char key[] = "DEEPPROF_RECORD_GEN=";
	if (size < sizeof key + 24)
		return (char **)envp;
	size_t n = 0;
	while (envp && envp[n])
		n++;
	char **out = malloc((n + 2) * sizeof *out);
	if (!out)
		return (char **)envp;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], "DEEPPROF_RECORD_GEN=", 20))
			out[k++] = envp[i];
	memcpy(buf, key, sizeof key - 1);
	dp_fmt_u64(buf + sizeof key - 1, dp_rt.rec_gen + 1);
	out[k++] = buf;
	out[k] = NULL;
	return out;
}

static char **before_exec(char *const envp[], char *buf, size_t size)
{
	if (!dp_rt.sampling)
		return (char **)envp;
	dp_write_profile(NULL, false, false);
	return following ? exec_env(envp, buf, size) : (char **)envp;
}

extern char **environ;

DP_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	static void *r;
	int (*f)(const char *, char *const[], char *const[]) = dp_next_sym("execve", &r);
	char buf[64];
	char **e = before_exec(envp, buf, sizeof buf);
	int ret = f ? f(path, argv, e) : (errno = ENOSYS, -1);
	int saved = errno;
	if (e != (char **)envp)
		free(e);
	errno = saved;
	return ret;
}

DP_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

DP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	static void *r;
	int (*f)(const char *, char *const[], char *const[]) = dp_next_sym("execvpe", &r);
	char buf[64];
	char **e = before_exec(envp, buf, sizeof buf);
	int ret = f ? f(file, argv, e) : (errno = ENOSYS, -1);
	int saved = errno;
	if (e != (char **)envp)
		free(e);
	errno = saved;
	return ret;
}

DP_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}
