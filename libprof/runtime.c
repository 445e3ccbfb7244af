/*
 * runtime.c — libprof's lifecycle: global init, the thread registry and each
 * thread's state, thread end, fork, the fatal-signal and exit-time writes, and
 * the public dp_write().
 * Part of deepprof's libprof. MIT licence.
 */
#include <dlfcn.h>
#include <errno.h>
#include <sys/auxv.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "internal.h"
#include "deepprof.h"

/*
 * The runtime's globals. lock guards the ps/css tables, the thread registry
 * and the global arena; the writer reads the lists without it (see internal.h).
 */
struct dp_runtime dp_rt = { .lock = PTHREAD_MUTEX_INITIALIZER };
__thread uint32_t dp_locked __attribute__((tls_model("initial-exec")));

/* The calling thread's hot state; dp_hot.t is NULL until its first hook. */
__thread struct dp_hot dp_hot DP_TLS_HOT = { .stop = DP_UNINIT };

/* Set while this thread builds its state, and forever if that failed. */
static __thread int initializing __attribute__((tls_model("initial-exec")));

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pid_t pid_at_prepare;

/* --- private prototypes --- */
static void runtime_init_once(void);
static void on_quick_exit(void);
static void thread_key_dtor(void *arg);
static void on_fatal_signal(int sig);
static void fork_prepare(void);
static void fork_parent(void);
static void fork_child(void);

#define STACK_INIT 1024
#define FIRST_SLAB 2048         /* bytes of a thread's first nodes, from the global arena */

/* ==== small async-signal-safe helpers ====================================== */

char *dp_fmt_u64(char *out, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*out++ = tmp[--n];
	*out = 0;
	return out;
}

/* One line on stderr: "deepprof: a b c" (NULL parts are skipped). */
void dp_log(const char *a, const char *b, const char *c)
{
	char buf[1024];
	size_t n = 0;
	const char *parts[4] = { "deepprof: ", a, b, c };
	for (int i = 0; i < 4; i++) {
		if (!parts[i])
			continue;
		if (i > 1 && n < sizeof buf)
			buf[n++] = ' ';
		for (const char *s = parts[i]; *s && n < sizeof buf - 1; s++)
			buf[n++] = *s;
	}
	buf[n++] = '\n';
	ssize_t r = write(2, buf, n);
	(void)r;
}

uint64_t dp_now_ns(clockid_t clk)
{
	struct timespec ts;
	if (clock_gettime(clk, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ==== global init ========================================================== */

static void runtime_init_once(void)
{
	int saved_errno = errno;
	dp_lock();
	dp_rt.ps_hmask = 1023;
	dp_rt.css_hmask = 1023;
	dp_rt.ps_hash = dp_mem_global(1024 * sizeof *dp_rt.ps_hash);
	dp_rt.css_hash = dp_mem_global(1024 * sizeof *dp_rt.css_hash);
	dp_rt.root_ps = dp_graph_root_ps();
	dp_unlock();
	if (!dp_rt.ps_hash || !dp_rt.css_hash || !dp_rt.root_ps) {
		dp_log("out of memory at start: not profiling", NULL, NULL);
		dp_rt.stopped = 1;
		errno = saved_errno;
		return;
	}
	dp_rt.start_ns = dp_now_ns(CLOCK_REALTIME);
	dp_rt.start_mono_ns = dp_now_ns(CLOCK_MONOTONIC);
	dp_rt.pid = getpid();

	const char *hz = getenv("DEEPPROF_HZ");
	dp_rt.timer_hz = 1000;
	if (hz && *hz) {
		char *end;
		unsigned long v = strtoul(hz, &end, 10);
		if (*end || v > 1000000)
			dp_log("DEEPPROF_HZ:", hz, "is not a rate in Hz; using 1000");
		else
			dp_rt.timer_hz = (unsigned)v;
	}
	const char *file = getenv("DEEPPROF_FILE");
	dp_rt.file_env = (file && *file) ? file : NULL;
	static char start_dir[4096];
	if (getcwd(start_dir, sizeof start_dir) && start_dir[0] == '/')
		dp_rt.start_dir = start_dir;

	if (pthread_key_create(&dp_rt.key, thread_key_dtor) != 0)
		dp_log("cannot create a thread key: thread ends will not be seen", NULL, NULL);
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	/* registered first, so run last: after the program's own handlers */
	at_quick_exit(on_quick_exit);

	static const int fatal[] = { SIGINT, SIGTERM };
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
		struct sigaction old;
		if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
		    !(old.sa_flags & SA_SIGINFO)) {
			struct sigaction sa;
			memset(&sa, 0, sizeof sa);
			sa.sa_handler = on_fatal_signal;
			sigemptyset(&sa.sa_mask);
			sigaction(fatal[i], &sa, NULL);
		}
	}
	/* `deepprof record` (libprof-record.so only): ticks unwind the stack */
	dp_rt.sampling = dp_record_wanted && dp_record_wanted();
	/* ticks in uninstrumented code go to its frames (timer.c): by default
	 * in plugin builds (quietly off without libunwind), with
	 * DEEPPROF_UNWIND=1 in -finstrument-functions ones; =0: never */
	const char *uw = getenv("DEEPPROF_UNWIND");
	bool asked = uw && !strcmp(uw, "1");
	/* not by default in a static program: dlopen there brings a second
	 * libc whose dl_iterate_phdr does not see the program's own code */
	if ((asked || ((!uw || strcmp(uw, "0")) && getauxval(AT_BASE))) && dp_rt.timer_hz &&
	    !dp_rt.sampling) {
		dp_code_note((const void *)dp_code_note);       /* libprof's own code */
		dp_code_note_loader();
		dp_rt.unwind = dp_unwind_init(asked ? "DEEPPROF_UNWIND:" : NULL) == 0;
		dp_rt.unwind_cyg = asked;
	}
	if (dp_rt.timer_hz) {
		if (dp_rt.sampling)
			dp_record_install();
		else
			dp_timer_install();
	}
	dp_alloc_link();
	dp_graph_cfa_init();
	DP_STORE_REL(&dp_rt.inited, 1);
	errno = saved_errno;
}

/* Set up the global state once; safe to call from any hook or constructor. */
void dp_runtime_init(void)
{
	if (!DP_LOAD_ACQ(&dp_rt.inited))
		pthread_once(&init_once, runtime_init_once);
}

/* glibc passes (argc, argv, envp) to ELF constructors, in executables and libraries. */
__attribute__((constructor(101)))
static void dp_ctor(int argc, char **argv, char **envp)
{
	(void)envp;
	dp_rt.argc = argc;
	dp_rt.argv = argv;
	dp_runtime_init();
	dp_write_modules_scan();
	if (dp_rt.sampling)
		dp_thread_init();   /* no hooks will: the main thread's timer starts now */
}

/* The final profile, after main returned (and its exit hook ran) or exit() was called. */
__attribute__((destructor(101)))
static void dp_dtor(void)
{
	int saved_errno = errno;
	dp_rt.normal_end = 1;
	dp_write_profile(NULL, true, false);
	errno = saved_errno;
}

/* The next definition of name after libprof's (libc's, a sanitizer's
 * interceptor, libgomp's), looked up once into *cache; NULL when there is
 * none (a static program has no next object). For the wrappers of libc
 * and libgomp functions. */
void *dp_next_sym(const char *name, void **cache)
{
	void *f = DP_LOAD_ACQ(cache);
	if (!f) {
		f = dlsym(RTLD_NEXT, name);
		DP_STORE_REL(cache, f);
	}
	return f;
}

/* The final profile when the process ends without exit's handlers and
 * destructors: quick_exit() (after the program's at_quick_exit handlers),
 * and _exit() or _Exit() called from a plugin build's code (the plugin
 * calls dp_abi_exiting() right before). Not in a vfork child: it shares
 * the parent's memory, and the parent's profile is the parent's to write. */
static bool own_process(void)
{
	return dp_rt.pid && (pid_t)syscall(SYS_getpid) == dp_rt.pid;
}

static void final_write(void)
{
	int saved_errno = errno;
	if (own_process()) {
		dp_rt.normal_end = 1;
		/* as from a signal handler, where both are often called: the
		 * module list is scanned only if a node lies in no module of it */
		dp_write_profile(NULL, true, true);
	}
	errno = saved_errno;
}

static void on_quick_exit(void)
{
	final_write();
}

DP_EXPORT void dp_abi_exiting(void)
{
	final_write();
}

/* Before an exec function, from a plugin build's code: the image that
 * replaces this one runs no destructor of ours, so its profile is written
 * now, as a snapshot (not final: if the exec fails, the program goes on
 * and its final profile replaces this one). Not in a vfork child. */
DP_EXPORT void dp_abi_exec(void)
{
	int saved_errno = errno;
	if (own_process())
		dp_write_profile(NULL, false, true);
	errno = saved_errno;
}

/* ==== threads ============================================================== */

extern void *__libc_stack_end;

/* An address above every frame of the calling thread's machine stack: the
 * process's initial stack pointer for the main thread, the thread
 * descriptor (which glibc puts above the stack) for the others. */
static uintptr_t stack_top(const struct dp_thread *t)
{
	if (t->tid == getpid())
		return (uintptr_t)__libc_stack_end;
	return (uintptr_t)t->self;
}

/*
 * The calling thread's state, built at its first hook: a root pd, a shadow
 * stack holding the root frame, its registry entry and its CPU timer.
 * NULL if the runtime has stopped or memory ran out (then never retried).
 */
struct dp_thread *dp_thread_init(void)
{
	if (initializing)
		return NULL;
	initializing = 1;
	int saved_errno = errno;
	dp_runtime_init();
	if (DP_LOAD(&dp_rt.stopped) || !dp_rt.root_ps) {
		errno = saved_errno;
		return NULL;
	}
	/* The thread's record and the first nodes of its graph are carved
	 * from the global arena: they stay for the write, and a thread that
	 * lives briefly (one per request) then costs a few hundred bytes, not
	 * pages of its own. Its shadow stack and outer[] are an ended
	 * thread's when one is spare (thread_key_dtor). */
	struct dp_spare sp = { 0 };
	dp_lock();
	uint32_t n_ps = dp_rt.n_ps;
	struct dp_thread *t = dp_mem_global(sizeof *t);
	char *slab = t ? dp_mem_global(FIRST_SLAB) : NULL;
	if (slab && dp_rt.n_spare)
		sp = dp_rt.spare[--dp_rt.n_spare];
	dp_unlock();
	struct dp_frame *stack = sp.stack ? sp.stack : slab ? dp_mem_map(STACK_INIT * sizeof *stack) : NULL;
	if (!stack) {
		dp_log("out of memory: a thread is not profiled", NULL, NULL);
		DP_ADD(&dp_rt.lost, 1);
		errno = saved_errno;
		return NULL;
	}
	size_t stack_cap = sp.stack ? sp.stack_cap : STACK_INIT;
	t->arena = slab;
	t->arena_end = slab + FIRST_SLAB;
	t->h = &dp_hot;
	t->loop_ticks = &dp_loop_ticks;
	t->cur = &dp_cur;
	t->stack = stack;
	t->stack_cap = stack_cap;
	t->h->stack_last = stack + stack_cap - 1;
	t->h->top = stack;
	t->tid = (pid_t)syscall(SYS_gettid);
	t->self = pthread_self();
	t->stack_hi = stack_top(t);
	uint32_t cap = 1024;
	while (cap <= n_ps * 2)
		cap *= 2;
	t->seen = sp.seen;              /* plugin2.c's search: mapped at its first use */
	t->seen_cap = sp.seen_cap;
	t->callmemo = sp.callmemo;      /* plugin2.c's too */
	if (sp.outer) {                 /* grown on demand (graph.c) if it is short */
		t->h->outer = sp.outer;
		t->outer_cap = sp.outer_cap;
	} else {
		t->h->outer = dp_mem_map(cap * sizeof *t->h->outer);
		t->outer_cap = cap;
	}
	/* The root pd is the first of the thread's pd list: pd_new is reached
	 * through csd creation, so build it by hand here. */
	struct dp_pd *root = dp_mem_thread(t, sizeof *root + dp_tab_words(3, 0) * sizeof(struct dp_csd *));
	if (!t->h->outer || !root) {
		dp_log("out of memory: a thread is not profiled", NULL, NULL);
		DP_ADD(&dp_rt.lost, 1);
		errno = saved_errno;
		return NULL;
	}
	root->tab = dp_tab_init(root + 1, 3);
	root->mask = 3;
	root->ps = dp_rt.root_ps;
	t->root = t->pd_head = t->pd_tail = root;
	t->n_pd = 1;
	stack[0].sp = UINTPTR_MAX;
	stack[0].psi = (uint32_t)stack_cap;  /* the array's capacity: see dp_graph_frames */
	t->outside.hot.magic = DP_CSD_MAGIC;
	stack[0].csd = &t->outside;
	stack[0].pd = root;
	stack[0].tab = root->tab;

	dp_lock();
	if (dp_rt.threads_tail)
		DP_STORE_REL(&dp_rt.threads_tail->next, t);
	else
		DP_STORE_REL(&dp_rt.threads, t);
	dp_rt.threads_tail = t;
	DP_STORE_REL(&dp_rt.n_threads, dp_rt.n_threads + 1);
	dp_unlock();

	pthread_setspecific(dp_rt.key, t);
	if (dp_rt.sampling && dp_record_thread(t) < 0) {
		dp_log("out of memory: a thread is not sampled", NULL, NULL);
		DP_ADD(&dp_rt.lost, 1);
	}
	dp_timer_start(t);
	dp_self = t;
	__atomic_fetch_and(&dp_hot.stop, ~(uint32_t)DP_UNINIT, __ATOMIC_RELAXED);
	initializing = 0;
	errno = saved_errno;
	return t;
}

/* CPU time of t: measured at its end, or now from its CPU clock. */
uint64_t dp_thread_cpu_ns(struct dp_thread *t)
{
	if (t->exited)
		return t->cpu_ns_end;
	if (t == dp_self)
		return dp_now_ns(CLOCK_THREAD_CPUTIME_ID);
	clockid_t clk;
	if (pthread_getcpuclockid(t->self, &clk) != 0)
		return 0;
	return dp_now_ns(clk);
}

/* A thread ends (return from its start routine or pthread_exit): what is
 * still on its stack left without returning; its data stays for the writer. */
void dp_thread_end(struct dp_thread *t)
{
	__atomic_fetch_or(&t->h->stop, DP_BUSY, __ATOMIC_RELAXED);
	dp_graph_unwind_all(t, true);
	dp_timer_stop(t);
	t->cpu_ns_end = dp_now_ns(CLOCK_THREAD_CPUTIME_ID);
	DP_STORE_REL(&t->exited, true);
	__atomic_fetch_or(&t->h->stop, DP_EXITED, __ATOMIC_RELAXED);
	__atomic_fetch_and(&t->h->stop, ~(uint32_t)DP_BUSY, __ATOMIC_RELAXED);
}

/* Give an array's pages back (zero when next touched), or with gone unmap it. */
static void drop_pages(void *p, size_t bytes, bool gone)
{
	bytes = (bytes + 4095) & ~(size_t)4095;
	if (!p || !bytes)
		return;
	if (!gone) {
		madvise(p, bytes, MADV_DONTNEED);
	} else if (munmap(p, bytes) == 0) {
		DP_ADD(&dp_rt.mem_bytes, -(uint64_t)bytes);
	}
}

/*
 * An ended thread's shadow stack, outer[], search stack and call memo
 * are no longer read (the writer reads only running threads' stacks, and
 * the thread's own hooks stop at DP_EXITED): their pages go back to the
 * kernel, and the arrays, zero again, wait for the next thread (at most 64
 * sets; the others are unmapped). A program that starts a thread per
 * request then keeps, per ended thread, only its record and its graph.
 * Called with the write lock held, so that no snapshot is reading them.
 */
static void keep_spare(struct dp_thread *t)
{
	struct dp_spare sp = { t->stack, t->stack_cap, t->h->outer, t->outer_cap, t->seen, t->seen_cap,
			       t->callmemo };
	bool kept = false;
	if (!sp.stack || !sp.outer)
		return;
	t->stack = NULL;
	t->stack_cap = 0;
	t->h->outer = NULL;
	t->outer_cap = 0;
	t->h->top = t->h->stack_last = NULL;
	t->seen = NULL;
	t->seen_cap = 0;
	t->callmemo = NULL;
	/* pages dropped (zero again) before another thread can take them */
	drop_pages(sp.stack, sp.stack_cap * sizeof *sp.stack, false);
	drop_pages(sp.outer, sp.outer_cap * sizeof *sp.outer, false);
	drop_pages(sp.seen, sp.seen_cap * sizeof *sp.seen, false);
	drop_pages(sp.callmemo, DP_CALLMEMO * sizeof *sp.callmemo, false);
	dp_lock();
	if (dp_rt.n_spare < sizeof dp_rt.spare / sizeof dp_rt.spare[0]) {
		dp_rt.spare[dp_rt.n_spare++] = sp;
		kept = true;
	}
	dp_unlock();
	if (!kept) {
		drop_pages(sp.stack, sp.stack_cap * sizeof *sp.stack, true);
		drop_pages(sp.outer, sp.outer_cap * sizeof *sp.outer, true);
		drop_pages(sp.seen, sp.seen_cap * sizeof *sp.seen, true);
		drop_pages(sp.callmemo, DP_CALLMEMO * sizeof *sp.callmemo, true);
	}
}

static void thread_key_dtor(void *arg)
{
	struct dp_thread *t = arg;
	int saved_errno = errno;
	if (t && t == dp_self && !(t->h->stop & DP_EXITED) && !DP_LOAD(&dp_rt.final_done)) {
		int locked = dp_write_lock() == 0;
		dp_thread_end(t);
		if (locked) {
			keep_spare(t);
			dp_write_unlock();
		}
	}
	errno = saved_errno;
}

/* ==== fork ================================================================= */

/* Sampling mode and DEEPPROF_UNWIND: a tick that lands while this thread
 * holds dp_rt.lock must not make nodes (their handlers skip a busy thread). */
static void fork_busy(bool on)
{
	struct dp_thread *t = dp_self;
	if ((dp_rt.sampling || dp_rt.unwind) && t && !(t->h->stop & DP_EXITED)) {
		if (on)
			dp_busy_on(t);
		else
			dp_busy_off(t);
	}
}

static void fork_prepare(void)
{
	pid_at_prepare = getpid();
	fork_busy(true);
	dp_lock();
}

static void fork_parent(void)
{
	dp_unlock();
	fork_busy(false);
}

/*
 * The child keeps profiling from zero: only the forking thread's graph
 * remains, its counters are cleared, and the frames already on its stack
 * send their exits to the sink (they were called in the parent).
 */
static void fork_child(void)
{
	int saved_errno = errno;
	dp_unlock();
	dp_rt.fork_of = pid_at_prepare;
	dp_rt.pid = getpid();
	dp_rt.start_ns = dp_now_ns(CLOCK_REALTIME);
	dp_rt.start_mono_ns = dp_now_ns(CLOCK_MONOTONIC);
	dp_rt.allocs_outside = dp_rt.bytes_outside = dp_rt.lost = 0;
	dp_rt.rec_truncated = dp_rt.rec_failed = 0;
	dp_split_samples = 0;
	dp_rt.final_done = 0;
	dp_write_reset_child();
	struct dp_thread *t = dp_self;
	if (t && (t->h->stop & (DP_EXITED | DP_STOPPED)))
		t = NULL;
	dp_rt.threads = dp_rt.threads_tail = t;
	dp_rt.n_threads = t ? 1 : 0;
	if (t) {
		t->next = NULL;
		uint32_t n = t->n_csd;
		struct dp_csd *c = t->csd_head;
		for (uint32_t i = 0; i < n && c; i++, c = c->next)
			c->exits = c->nonlocal = c->ticks = c->allocs = c->bytes = c->loops = c->inside = 0;
		memset(&t->outside, 0, sizeof t->outside);
		t->outside.hot.magic = DP_CSD_MAGIC;
		dp_plugin2_fork_child(t);
		for (struct dp_frame *f = t->h->top; f > t->stack; f--)
			f->csd = &t->outside;
		for (uint32_t i = 0; i < t->n_tails; i++)
			t->tails[i].csd = NULL;
		t->stack[0].csd = &t->outside;
		t->lost = 0;
		t->tid = (pid_t)syscall(SYS_gettid);
		t->self = pthread_self();
		t->has_timer = false;
		fork_busy(false);
		dp_timer_start(t);
	}
	errno = saved_errno;
}

/* ==== writes: on fatal signals and on demand =============================== */

/* SIGINT/SIGTERM with our handler (installed only over SIG_DFL): write the
 * final profile, then die of the signal as the program would have. */
static void on_fatal_signal(int sig)
{
	int saved_errno = errno;
	dp_write_profile(NULL, true, true);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	errno = saved_errno;
}

DP_EXPORT int dp_write(const char *path)
{
	int saved_errno = errno;
	dp_runtime_init();
	int r = dp_write_profile(path, false, false);
	errno = saved_errno;
	return r;
}
