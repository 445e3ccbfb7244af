/*
 * timer.c — clock ticks: a per-thread CPU-time timer (CLOCK_THREAD_CPUTIME_ID,
 * delivered to its own thread as SIGPROF) and the handler that charges each
 * tick to the csd current on the interrupted thread.
 * Part of deepprof's libprof. MIT licence.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "internal.h"

#define BELOW_MAX 64     /* uninstrumented frames looked at below an activation */

static struct dp_csd *hang(struct dp_thread *t, struct dp_pd *pd, const struct dp_uframe *fr,
			   int k, bool from_root);
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

/*
 * The runtime's own code: libprof/module.mk puts every libprof object's
 * text in the section deepprof_text, whose bounds the linker names. A tick
 * whose pc lies there is the profiler's own time (the hooks, the slow
 * paths, the allocation wrappers): it is charged to a node of its own,
 * deepprof_runtime, under the current context, not to the context's
 * procedure, so a profile shows what profiling cost it and where, apart
 * from the program's own time (as gprof's flat profile shows mcount).
 * Weak: objects built without the section (the tests' stress builds of
 * libprof) link, the bounds are 0 and no tick is the runtime's.
 */
extern const char __start_deepprof_text[] __attribute__((weak, visibility("hidden")));
extern const char __stop_deepprof_text[] __attribute__((weak, visibility("hidden")));

/* Never called: its address names the runtime's ticks in profiles (a
 * sampled procedure, named by the writer, with the line of its definition:
 * the line after runtime_line's). noipa: never folded with another empty
 * function. */
static const uint32_t runtime_line = __LINE__ + 1;
DP_EXPORT __attribute__((noipa)) void deepprof_runtime(void)
{
	__asm__ volatile("");
}

/* deepprof_runtime's procedure as the writer names it: its name, file and
 * line, so that no reader looks them up in the debug information (which
 * loads the whole module's line table for one procedure). */
bool dp_runtime_ps(uintptr_t fn, const char **name, const char **file, uint32_t *line)
{
	if (fn != (uintptr_t)deepprof_runtime)
		return false;
	*name = "deepprof_runtime";
	*file = __FILE__;
	*line = runtime_line;
	return true;
}

/* The interrupted pc (0 where this port does not know it). */
static uintptr_t pc_of(void *uc)
{
#if defined(__x86_64__)
	return (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#else
	(void)uc;
	return 0;
#endif
}

static bool in_runtime(uintptr_t pc)
{
	return pc >= (uintptr_t)__start_deepprof_text && pc < (uintptr_t)__stop_deepprof_text;
}

/* The csd of deepprof_runtime under the current context of t (not busy,
 * not holding dp_rt.lock); NULL when there is no context to hang it from
 * (t's sink, or a v2 site whose callee has not entered) or out of memory. */
static struct dp_csd *runtime_csd(struct dp_thread *t)
{
	struct dp_csd *cur = dp_cur_csd(t);
	struct dp_pd *pd = cur->callee;
	if (cur == &t->outside || !pd)
		return NULL;
	dp_busy_on(t);
	struct dp_csd *c = dp_graph_sample_step(t, &pd, 1, (uintptr_t)deepprof_runtime,
						(uintptr_t)deepprof_runtime, NULL, DP_SITE_SAMPLED);
	if (!c)
		t->lost++;
	dp_busy_off(t);
	return c;
}

/*
 * DEEPPROF_UNWIND=1: a tick whose pc is not in the innermost instrumented
 * activation f (a -finstrument-functions frame) lies in code that f called
 * without hooks (libc, libm): unwind to f and charge the tick to those
 * frames, as csds of sampled frames under f's pd (css kind external, calls
 * unknown: 0; keyed apart from the hooks' csds); a pc in an instrumented
 * function f called, outside its hooks, to that call's csd. NULL: charge
 * f's csd as before (the pc is in f, f is beyond BELOW_MAX frames, or the
 * tick is in a hook or in the first call of an instrumented function
 * before its enter hook made its csd).
 */
static struct dp_csd *below(struct dp_thread *t, void *uc)
{
	const struct dp_frame *f = t->h->top;
	while (f->sp == DP_SP_DEAD)
		f--;
	if (f == t->stack || (f->at & (DP_FR_PLUGIN | DP_FR_REGION)) || !f->pd)
		return NULL;
	struct dp_uframe fr[BELOW_MAX];
	bool deeper;
	int n = dp_unwind(uc, fr, BELOW_MAX, &deeper), k = 0;
	while (k < n && fr[k].fn != f->fn)
		k++;
	if (k == 0 || k == n)
		return NULL;
	const struct dp_ps *ps0 = dp_graph_ps_find(fr[0].fn);
	if (ps0 && ps0->kind != DP_PS_SAMPLED)
		/* the pc is in an instrumented function that f called (at
		 * fr[1].ip, maybe through uninstrumented code: a callback),
		 * outside its hooks: its prologue before the enter hook or its
		 * epilogue after the exit hook. Its own time: its csd under f's
		 * pd, if that call was made before (else f's, as before) */
		return dp_graph_tab_find(f->pd, fr[1].ip, fr[0].fn);
	for (int i = 0; i < k; i++) {
		if (fr[i].fn == (uintptr_t)__cyg_profile_func_enter ||
		    fr[i].fn == (uintptr_t)__cyg_profile_func_exit)
			return NULL;
		const struct dp_ps *ps = dp_graph_ps_find(fr[i].fn);
		if (ps && ps->kind != DP_PS_SAMPLED)
			return NULL;
	}
	return hang(t, f->pd, fr, k + 1, false);
}

/* Frames fr[0 .. k) of uninstrumented code, innermost first, hung as csds
 * of sampled frames under pd (fr[k - 1] runs in pd's procedure, or k
 * frames from a root, the outermost a callback); the innermost one's csd,
 * NULL when out of memory or busy. */
static struct dp_csd *hang(struct dp_thread *t, struct dp_pd *pd, const struct dp_uframe *fr,
			   int k, bool from_root)
{
	struct dp_pd *path[BELOW_MAX + 1];
	int depth = 0;
	struct dp_csd *c = NULL;
	path[depth++] = pd;
	dp_busy_on(t);
	for (int i = from_root ? k - 1 : k - 2; i >= 0; i--) {
		uintptr_t site = i + 1 < k ? fr[i + 1].ip : 0;
		c = dp_graph_sample_step(t, path, depth, site, fr[i].fn, NULL, DP_SITE_SAMPLED);
		if (!c) {
			t->lost++;
			break;
		}
		if (c->callee != c->caller)
			path[depth++] = c->callee;
	}
	dp_busy_off(t);
	return c;
}

/*
 * Plugin builds: a tick whose pc lies outside the modules holding
 * instrumented code runs in code called without hooks (libc, libm, a
 * library's own functions). ABI v2's dp_cur names the call into it (a
 * site of kind external), or a callback that has returned into it:
 * dp_plugin2_outside finds the call; ABI v1's shadow stack has it on top,
 * or under callback frames that have returned (dp_plugin_outside). The
 * frames between the pc and the instrumented caller become csds of
 * sampled frames under that call's callee, the outermost being the callee
 * itself. NULL: charge the current csd as before (pc in instrumented code,
 * libprof or the dynamic loader; no call into uninstrumented code found;
 * or the frames do not reach instrumented code).
 */
static struct dp_csd *outside(struct dp_thread *t, void *uc, bool v2)
{
#if defined(__x86_64__)
	uintptr_t pc = pc_of(uc);
	uintptr_t sp = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
#else
	uintptr_t pc = 0, sp = 0;
	return NULL;
#endif
	if (dp_code_instrumented(pc) || dp_code_in_loader(pc))
		return NULL;
	bool root;
	struct dp_csd *c = v2 ? dp_plugin2_outside(t, &root) : dp_plugin_outside(t, sp, &root);
	if (!c && !root)
		return NULL;
	struct dp_uframe fr[BELOW_MAX];
	bool deeper;
	int n = dp_unwind(uc, fr, BELOW_MAX, &deeper), k = 1;
	while (k < n && !dp_code_instrumented(fr[k].ip - 1))
		k++;
	if (root)       /* from the thread's start: every frame is uninstrumented */
		return k == n && !deeper ? hang(t, t->root, fr, n, true) : NULL;
	if (k == n)
		return NULL;
	return k == 1 ? c : hang(t, c->callee, fr, k, false);
}

/* Charge one tick: to the current csd, or to the thread's outside sink when
 * no activation is current or the runtime itself is busy; a tick in the
 * runtime's code to deepprof_runtime under the current context, a tick in
 * uninstrumented code to the frames it lies in (outside(), below()),
 * unless the thread holds dp_rt.lock, which making their nodes takes; then
 * let split.c count the recursive activations on the interrupted stack. */
static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)si;
	int saved_errno = errno;
	struct dp_thread *t = dp_self;
	if (t) {
		struct dp_csd *c = NULL;
		bool can_make = !t->h->stop && !dp_locked;     /* nodes, if need be */
		if (can_make && in_runtime(pc_of(uc)))
			c = runtime_csd(t);
		else if (can_make && DP_LOAD(&dp_rt.unwind))
			c = DP_LOAD(&dp_rt.abi2) ? outside(t, uc, true) :
			    DP_LOAD(&dp_rt.abi1) ? outside(t, uc, false) :
			    dp_rt.unwind_cyg ? below(t, uc) : NULL;
		if (!c)
			c = dp_cur_csd(t);
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

/*
 * What a call of sigprocmask or pthread_sigmask that the program makes
 * should pass on: set itself, or *copy, set without SIGPROF, when the call
 * would block SIGPROF (SIG_BLOCK or SIG_SETMASK) while ours (the runtime's
 * handler, or deepprof record's) takes the ticks. A thread that blocks
 * SIGPROF is never sampled, and programs block every signal in their
 * worker threads: liblzma does, so `xz -T2` had 10 ticks for 37 s of CPU.
 * The handler runs anywhere, so SIGPROF kept deliverable changes nothing
 * else the program sees. A handler of the program's own is left its mask.
 */
const sigset_t *dp_sigmask_keep_prof(int how, const sigset_t *set, sigset_t *copy,
				     void (*ours)(int, siginfo_t *, void *))
{
	struct sigaction cur;
	if (!set || how == SIG_UNBLOCK || sigismember(set, SIGPROF) != 1)
		return set;
	if (sigaction(SIGPROF, NULL, &cur) != 0 || !dp_timer_handler_is_ours(&cur, ours))
		return set;
	/* blocked now: in a signal handler, ours (libunwind masks signals
	 * around its cache lock while a tick unwinds) or the program's, where
	 * a SIG_SETMASK without it would let a tick interrupt the handler */
	sigset_t now;
	sigemptyset(&now);
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &now, _NSIG / 8) != 0 ||
	    sigismember(&now, SIGPROF) == 1)
		return set;
	*copy = *set;
	sigdelset(copy, SIGPROF);
	return copy;
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

/* Whether a disposition for SIGPROF is ours (ours NULL: the runtime's
 * handler, else deepprof record's). */
bool dp_timer_handler_is_ours(const struct sigaction *act, void (*ours)(int, siginfo_t *, void *))
{
	return act && (act->sa_flags & SA_SIGINFO) && act->sa_sigaction == (ours ? ours : on_sigprof);
}

/*
 * The program takes SIGPROF (its own handler, SIG_IGN, or SIG_DFL, whose
 * action would end the process at our next tick: a daemon resetting every
 * signal was killed, "Profiling timer expired"): every thread's CPU timer
 * is deleted before the program's disposition is set, no thread starts
 * one again, and clock ticks stop (calls and CSCs are still counted).
 * Called from the program's sigaction and signal (sigwrap.c, record.c).
 */
void dp_timer_give_up(void)
{
	static uint32_t given_up;
	if (!dp_rt.timer_hz || __atomic_exchange_n(&given_up, 1, __ATOMIC_ACQ_REL))
		return;
	dp_rt.given_up_cpu_ns = dp_now_ns(CLOCK_PROCESS_CPUTIME_ID);
	dp_rt.timer_hz = 0;
	uint32_t n = DP_LOAD_ACQ(&dp_rt.n_threads);
	struct dp_thread *t = DP_LOAD_ACQ(&dp_rt.threads);
	for (uint32_t i = 0; i < n && t; i++, t = DP_LOAD_ACQ(&t->next))
		if (t->has_timer) {
			t->has_timer = false;
			timer_delete(t->timer);
		}
	if (!dp_rt.sampling)
		dp_log("the program takes SIGPROF for itself:",
		       "clock ticks stop here (calls and call sequence counts go on)", NULL);
}

void dp_timer_stop(struct dp_thread *t)
{
	if (!t->has_timer)
		return;
	timer_delete(t->timer);
	t->has_timer = false;
}
