/*
 * plugin.c — the deepprof GCC plugin's ABI v1 (compiler-plugins/deepprof-abi.h,
 * schemas/plugin-abi.md): TU registration, the enter/call/return hooks and
 * back-edge ticks, on the same graph as the -finstrument-functions route.
 * Part of deepprof's libprof. MIT licence.
 *
 * How the plugin's hooks map onto the graph (internal.h, "Plugin frames"):
 * dp_abi_call pushes a frame for the call, with the csd of (current pd,
 * site) found in the pd's slot array by the site's index; the callee's
 * dp_abi_enter only marks it entered (binding the csd to the callee's pd
 * the first time: recursion folding happens there); dp_abi_return pops it.
 * A call into uninstrumented code (libc) keeps its frame until it returns,
 * so its time, allocations and the callbacks it makes are that csd's. A
 * call in tail position has no return hook: when its callee is entered, the
 * callee's frame replaces the caller's (which counts its exit then), so a
 * tail recursion 10^7 deep keeps one frame. Callbacks (an enter with no
 * call pending for it) have no exit hook either: the next hook from a
 * frame at or above theirs ends them, as an exit.
 *
 * KNOWN: under a flood of instrumented signal handlers (one every 50 us,
 * tests/plugin-rt t014) some handler runs are lost, each counted instead
 * as one more call of the interrupted site (loop -> work), left as a
 * non-local exit: on a VM whose 50 us timer is precise (2026-11-27: about
 * 5,000 handler runs in a run) 0 to 14 in a run. The window that did it
 * every time in a stress build (a second handler in reclaim() wrote its
 * record over the first's: DEEPPROF_STRESS=0x4100) is closed, reclaim()
 * runs with signals blocked (tests/plugin-rt t033 tries every v1 point);
 * the one left was not found: no v1 stress point, alone or with others,
 * reproduces it (the slow paths, which a flood sends hooks through, have
 * none). (The -finstrument-functions route's
 * race, a handler's dead frame taken for a stale one, is another cause:
 * v1 publishes a push with set_top, never a written-over slot.)
 * A callee inlined at -O2 shares its caller's frame (DP_FR_INL), so a
 * longjmp back into that very frame is not seen until a shallower hook.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "graph.h"
#include "deepprof-abi.h"

_Static_assert(sizeof(struct dp_css_static) == 48, "dp_css_static layout");
_Static_assert(sizeof(struct dp_tu) == 88, "dp_tu layout");     /* 80 without extra */

/*
 * Back-edge ticks (deepprof-abi.h): incremented inline by instrumented
 * code; every hook charges the increase since the last charge to the csd
 * that was current (dp_loops_take: the counter is never reset, so that a
 * signal handler's hooks cannot lose or double an interrupted increment).
 * The timer does not charge them: the csd current at a tick is also the
 * one current at the next hook, so charging there gives the same counts.
 */
DP_EXPORT __thread uint64_t dp_loop_ticks;

/* tu->runtime[] slots (the plugin leaves them zero). TU_PS: struct dp_ps *[n_ps]
 * (filled lazily, release stores); TU_CSS: struct dp_css *[n_css], the css of
 * each site from its static caller (under dp_rt.lock). */
enum { TU_PS = 0, TU_CSS = 1 };

/* --- private prototypes --- */
static struct dp_ps **tu_map(struct dp_tu *tu);
static struct dp_ps *static_ps(struct dp_tu *tu, uint32_t i);
static struct dp_ps *external_ps(const char *name);
static struct dp_css *site_css(struct dp_tu *tu, uint32_t site, struct dp_ps *caller);
static int bind(struct dp_thread *t, struct dp_csd *c, struct dp_ps *ps);
static int bind_uninstrumented(struct dp_thread *t, struct dp_csd *c);
static void pop_stale(struct dp_thread *t);
static inline bool set_top(struct dp_hot *h, struct dp_frame *from, struct dp_frame *to);
static void settle(struct dp_hot *h);
static int room(struct dp_thread *t);
DP_COLD static void enter_slow(struct dp_tu *tu, uint32_t psn, uintptr_t sp);
DP_COLD static void call_slow(struct dp_tu *tu, uint32_t site, uintptr_t fn, uintptr_t sp);
DP_COLD static void return_slow(struct dp_tu *tu, uint32_t site, uintptr_t sp);

#define BARRIER() __asm__ volatile("" ::: "memory")

/* Node making may be interrupted by a signal handler whose hooks only use
 * nodes that exist (DP_MAKING); growing arrays may not (DP_BUSY). */
static inline void making_on(struct dp_thread *t)  { __atomic_fetch_or(&t->h->stop, DP_MAKING, __ATOMIC_RELAXED); }
static inline void making_off(struct dp_thread *t) { __atomic_fetch_and(&t->h->stop, ~(uint32_t)DP_MAKING, __ATOMIC_RELAXED); }
static inline bool may_make(const struct dp_thread *t) { return !(t->h->stop & DP_MAKING); }

/* ==== registration ========================================================= */

/* The TU's ps array, made at its first registration or hook. NULL when out of memory. */
static struct dp_ps **tu_map(struct dp_tu *tu)
{
	struct dp_ps **map = DP_LOAD_ACQ((struct dp_ps ***)&tu->runtime[TU_PS]);
	if (likely(map))
		return map;
	dp_lock();
	map = (struct dp_ps **)tu->runtime[TU_PS];
	if (!map) {
		struct dp_css **css = dp_mem_global((tu->n_css + 1) * sizeof *css);
		map = css ? dp_mem_global((tu->n_ps + 1) * sizeof *map) : NULL;
		if (map) {
			tu->runtime[TU_CSS] = css;
			DP_STORE_REL(&tu->runtime[TU_PS], (void *)map);
		}
	}
	dp_unlock();
	return map;
}

/* May run before the runtime's own constructor: takes nothing but the
 * statically initialised lock and the global arena. */
DP_EXPORT void dp_register_tu(struct dp_tu *tu)
{
	int saved_errno = errno;
	dp_code_note(tu);       /* its module holds instrumented code (timer.c) */
	bool old_v2 = tu->abi_version == 2 && !(tu->flags & DP_TU_V2_TAGGED);
	if (tu->abi_version == 2 && !old_v2)
		dp_plugin2_register(tu);
	else if (tu->abi_version != 1) {
		if (!tu->runtime[2]) {
			tu->runtime[2] = (void *)1;
			DP_ADD(&dp_rt.lost, 1);
			if (old_v2)
				dp_log(tu->file ? tu->file : "?", ": compiled by an older deepprof plugin "
				       "whose inline code this libprof does not run",
				       "(rebuild it with this deepprof-cc): its calls are not recorded");
			else
				dp_log(tu->file ? tu->file : "?", ": compiled for a plugin ABI this libprof "
				       "does not implement", "(rebuild with --deepprof-arg=abi=1)");
		}
		errno = saved_errno;
		return;
	}
	if (tu->flags & DP_TU_BACKEDGES)
		DP_STORE_REL(&dp_rt.clock_loops, 1);
	DP_STORE_REL(&dp_rt.abi1, 1);
	tu_map(tu);
	errno = saved_errno;
}

/* The nodes made from the table keep copies of its strings, so nothing is
 * left to do when it goes away. */
DP_EXPORT void dp_unregister_tu(struct dp_tu *tu)
{
	(void)tu;
}

/* ==== static nodes ========================================================= */

/* The ps of function i of tu, made if new. NULL when out of memory. */
static struct dp_ps *static_ps(struct dp_tu *tu, uint32_t i)
{
	struct dp_ps **map = tu_map(tu);
	if (!map || i >= tu->n_ps)
		return NULL;
	struct dp_ps *ps = DP_LOAD_ACQ(&map[i]);
	if (ps)
		return ps;
	const struct dp_ps_static *s = &tu->ps[i];
	struct dp_ps init = {
		.kind = DP_PS_STATIC, .name = s->name, .file = s->file, .line = s->line,
		.first_css = s->first_css, .n_css = s->n_css, .tu = tu,
	};
	if ((tu->flags & DP_TU_EXTRA_SLOTS) && tu->abi_version == 2 && tu->extra) {
		const uint32_t *x = tu->extra;
		init.n_extra = x[i + 1] - x[i];
		init.extra = x + tu->n_ps + 1 + x[i];
	}
	ps = dp_graph_ps_get((uintptr_t)s, &init);
	if (ps)
		DP_STORE_REL(&map[i], ps);
	return ps;
}

/* The synthetic ps of an uninstrumented callee known by name: one per name,
 * keyed by a hash with bit 63 set (no code address has it). */
static struct dp_ps *external_ps(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const char *p = name ? name : "?"; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	struct dp_ps init = { .kind = DP_PS_EXTERNAL, .name = name ? name : "?", .uninstrumented = true };
	return dp_graph_ps_get((uintptr_t)(h | (1ull << 63)), &init);
}

/* The css of site of tu called from caller (the site's static caller but for
 * calls=surviving builds), made if new. NULL when out of memory. */
static struct dp_css *site_css(struct dp_tu *tu, uint32_t site, struct dp_ps *caller)
{
	const struct dp_css_static *s = &tu->css[site];
	struct dp_css **cache = tu->runtime[TU_CSS];
	bool own = caller->fn == (uintptr_t)&tu->ps[s->caller];
	if (own && cache && DP_LOAD_ACQ(&cache[site]))
		return cache[site];
	struct dp_css init = { .kind = s->kind, .file = s->file, .line = s->line, .col = s->col,
			       .sflags = s->flags, .callee_name = s->callee };
	if (s->callee_ps)
		init.callee = static_ps(tu, s->callee_ps - 1);
	else if (s->kind == DP_CSS_KIND_EXTERNAL)
		init.callee = external_ps(s->callee);
	if ((s->callee_ps || s->kind == DP_CSS_KIND_EXTERNAL) && !init.callee)
		return NULL;
	struct dp_css *css = dp_graph_css_get((uintptr_t)s, caller, &init);
	if (css && own && cache)
		DP_STORE_REL(&cache[site], css);
	return css;
}

/* For plugin2.c (ABI v2), which shares the static nodes. */
struct dp_ps *dp_plugin_static_ps(struct dp_tu *tu, uint32_t i) { return static_ps(tu, i); }
struct dp_css *dp_plugin_site_css(struct dp_tu *tu, uint32_t site, struct dp_ps *caller)
{
	return site_css(tu, site, caller);
}

/* ==== per-thread nodes ===================================================== */

/* Bind csd c to callee ps: the outermost activation of ps on this thread if
 * there is one (recursion folding), else a new pd; then publish c. */
static int bind(struct dp_thread *t, struct dp_csd *c, struct dp_ps *ps)
{
	if (ps->idx >= t->outer_cap) {
		dp_busy_on(t);
		int r = dp_graph_outer_reserve(t, ps->idx);
		dp_busy_off(t);
		if (r < 0)
			return -1;
	}
	struct dp_pd *callee = dp_graph_active_pd(t, ps);
	if (!callee) {
		if (!(callee = dp_graph_pd_new(t, ps)))
			return -1;
		callee->parent = c;
	}
	c->psi = ps->idx;
	c->callee = callee;
	dp_graph_csd_publish(t, c);
	return 0;
}

struct dp_ps *dp_plugin_uninstrumented_ps(const struct dp_csd *c)
{
	if (c->fn) {
		struct dp_ps init = { .kind = DP_PS_ADDR, .uninstrumented = true };
		return dp_graph_ps_get(c->fn, &init);
	}
	return external_ps(c->css->callee_name);
}

/* Bind c, whose call returned (or was left) without entering instrumented
 * code, to its uninstrumented callee, if the runtime may make nodes now:
 * -1 when it may not or memory ran out. */
static int bind_uninstrumented(struct dp_thread *t, struct dp_csd *c)
{
	if (!may_make(t))
		return -1;
	making_on(t);
	struct dp_ps *ps = dp_plugin_uninstrumented_ps(c);
	int r = ps ? bind(t, c, ps) : -1;
	making_off(t);
	return r;
}

/*
 * The csd of (pd, site, fn) for a call of site of tu: from pd's slot (a
 * site of pd's own procedure) or pd's hash table (a site of a function
 * inlined into it, calls=surviving), made if new. NULL when out of memory.
 */
static struct dp_csd *site_csd(struct dp_thread *t, struct dp_pd *pd, struct dp_tu *tu, uint32_t site,
			       uintptr_t fn, bool create)
{
	struct dp_ps *p = pd->ps;
	uintptr_t key = (uintptr_t)&tu->css[site];
	uint32_t i = site - p->first_css;
	bool slotted = p->tu == tu && i < p->n_css;
	struct dp_csd *c, *head = NULL;
	if (slotted) {
		head = pd->slot[i];
		if (head)
			for (c = head->thead; c; c = c->tnext)
				if (c->fn == fn) {
					pd->slot[i] = c;        /* the last target first */
					return c;
				}
	} else {
		uintptr_t j = dp_hash(key, fn) & pd->mask;
		while ((c = pd->tab[j])) {
			if (c->site == key && c->fn == fn)
				return c;
			j = (j + 1) & pd->mask;
		}
	}
	if (!create)
		return NULL;
	const struct dp_css_static *s = &tu->css[site];
	struct dp_css *css = site_css(tu, site, p);
	if (!css || !(c = dp_csd_new(t)))
		return NULL;
	c->site = key;
	c->fn = fn;
	c->css = css;
	c->caller = pd;
	c->frflags = DP_FR_PLUGIN | DP_FR_PENDING | (s->flags & DP_CSS_TAIL ? DP_FR_TAIL : 0) |
		     (s->flags & DP_CSS_NORETURN ? DP_FR_NORET : 0);
	if (css->callee && bind(t, c, css->callee) < 0)
		return NULL;
	/* an indirect call into code without a TU of ours (a plugin
	 * library's function): its callee is known now, as a library
	 * call's is, and a callback from it hangs from it */
	if (!css->callee && s->kind == DP_CSS_KIND_INDIRECT && fn && !dp_code_instrumented(fn)) {
		struct dp_ps *ups = dp_plugin_uninstrumented_ps(c);
		if (!ups || bind(t, c, ups) < 0)
			return NULL;
	}
	if (slotted) {
		if (head) {
			c->thead = head->thead;
			c->tnext = head->thead->tnext;
			head->thead->tnext = c;
		} else {
			c->thead = c;
		}
		pd->slot[i] = c;
	} else if (dp_graph_tab_insert(t, pd, c) < 0) {
		return NULL;
	}
	return c;
}

/* The callback csd of (parent, ps): entered from uninstrumented code. */
static struct dp_csd *callback_csd(struct dp_thread *t, struct dp_pd *parent, struct dp_ps *ps, bool create)
{
	uintptr_t key = ps->fn;
	uintptr_t j = dp_hash(key, 0) & parent->mask;
	struct dp_csd *c;
	while ((c = parent->tab[j])) {
		if (c->site == key && c->fn == 0)
			return c;
		j = (j + 1) & parent->mask;
	}
	if (!create)
		return NULL;
	struct dp_css init = { .kind = DP_CSS_CALLBACK, .callee = ps };
	struct dp_css *css = dp_graph_css_get(key, parent->ps, &init);
	if (!css || !(c = dp_csd_new(t)))
		return NULL;
	c->site = key;
	c->css = css;
	c->caller = parent;
	c->frflags = DP_FR_PLUGIN | DP_FR_CB;
	if (dp_graph_tab_insert(t, parent, c) < 0 || bind(t, c, ps) < 0)
		return NULL;
	return c;
}

/* ==== the shadow stack ===================================================== */

/* Charge the back-edge ticks counted since the last hook to the current csd. */
static inline void settle(struct dp_hot *h)
{
	uint64_t now = dp_loop_ticks;
	if (now != h->loops_seen && h->top)
		dp_add_local(&h->top->csd->loops, dp_loops_take(h, now));
}

/* A popped frame's call returned (a callback, which has no exit hook, or a
 * call in tail position into uninstrumented code) or was left without
 * returning (everything else). */
static inline bool ended_by_return(uintptr_t at)
{
	return (at & DP_FR_CB) || (at & (DP_FR_PENDING | DP_FR_TAIL)) == (DP_FR_PENDING | DP_FR_TAIL);
}

/* Pop the top frame, which a hook from a shallower frame shows has ended.
 * Every field is read before the slot is given up (a signal handler's
 * hooks may push into it at once). */
static void pop_stale(struct dp_thread *t)
{
	struct dp_hot *h = t->h;
	struct dp_frame *f = h->top;
	struct dp_csd *c = f->csd;
	uintptr_t at = dp_frflags(f);   /* 0: a -finstrument-functions frame (longjmp'd over) */
	bool plugin = f->at & DP_FR_PLUGIN;
	uint32_t base = (uint32_t)f->mask, psi = f->psi;
	struct dp_pd *saved = f->saved;
	if (f == t->cb_slot) {
		/* the last callback frame: as recorded, in case an interrupted
		 * push wrote over part of it (see reclaim) */
		c = t->cb_csd;
		at = t->cb_at;
		psi = t->cb_psi;
		saved = t->cb_saved;
		base = t->cb_base;
		plugin = true;
	}
	bool ret = ended_by_return(at);
	if (!set_top(h, f, f - 1))
		return;         /* a handler's frame came on top: the caller pops it first */
	if (f == t->cb_slot)
		t->cb_slot = NULL;
	if ((at & DP_FR_CB) && (dp_frflags(f - 1) & DP_FR_PENDING))
		settle(h);      /* a library's callback: the ticks since the last hook are its own */
	if (plugin)
		h->outer[psi] = saved;
	if (at & DP_FR_TAILS) {
		uint64_t n = t->n_tails;
		dp_graph_tails_end(t, base, (uint32_t)n, ret, true);
		dp_cas_local(&t->n_tails, n, base);   /* not if a handler added records above */
	}
	if (c == &t->outside)
		return;
	if (!c->callee && bind_uninstrumented(t, c) < 0) {
		t->lost++;
		return;
	}
	dp_add_local(ret ? &c->exits : &c->nonlocal, 1);
}

/*
 * h->top = to if it is still from: one instruction, so a signal handler
 * cannot run between the test and the store (its hooks may push callback
 * frames, which stay on top after it returns: no hook sees a callback's
 * return). Not atomic between threads; only the owner writes its top.
 */
static inline bool set_top(struct dp_hot *h, struct dp_frame *from, struct dp_frame *to)
{
#if defined(__x86_64__)
	bool ok;
	__asm__ volatile("cmpxchgq %3, %1" : "=@ccz"(ok), "+m"(h->top), "+a"(from) : "r"(to) : "memory");
	return ok;
#else
	return __atomic_compare_exchange_n(&h->top, &from, to, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
#endif
}

/*
 * A push on f failed: a signal handler ran during it and left its callback
 * frame in f + 1, which the push may have written over. Count that frame
 * from what enter_slow recorded (it returned: an exit) and take it off.
 */
DP_COLD static void reclaim(struct dp_hot *h, struct dp_frame *f)
{
	struct dp_thread *t = h->t;
	if (!t || h->top != f + 1 || t->cb_slot != f + 1)
		return;
	/* Signals blocked from the check to the end (a failed push is rare):
	 * a second handler landing here pushed its own callback frame above
	 * f + 1 and its record over cb_*, and this reclaim then counted the
	 * second callback, dropped both frames and lost the first (the stress
	 * build's V1_RECLAIM point: one handler run lost per visit). Raw
	 * system calls: the program's sigprocmask is wrapped (sigmask.c). */
	sigset_t all, old;
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, _NSIG / 8);
	if (h->top == f + 1 && t->cb_slot == f + 1) {
		DP_STRESS_AT(DP_ST_V1_RECLAIM);
		t->cb_slot = NULL;
		h->top = f;
		h->outer[t->cb_psi] = t->cb_saved;
		dp_add_local(&t->cb_csd->exits, 1);
		if (t->cb_at & DP_FR_TAILS) {
			uint64_t n = t->n_tails;
			dp_graph_tails_end(t, t->cb_base, (uint32_t)n, true, true);
			dp_cas_local(&t->n_tails, n, t->cb_base);
		}
	}
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, _NSIG / 8);
}

/* Push a frame for a call through c on top of f (not the last slot).
 * False when a signal handler's callback frame got there first (nothing
 * is changed then: the slow path ends that frame and pushes again). */
static inline __attribute__((always_inline))
bool push(struct dp_hot *h, struct dp_frame *f, uintptr_t sp, uintptr_t fn, struct dp_csd *c, uintptr_t at)
{
	/* an empty table: mask 0 in its header, one slot, never filled */
	static struct dp_csd *const empty_tab[2] = { NULL, NULL };
	struct dp_pd *callee = c->callee;
	uint32_t psi = c->psi;          /* 0 while unbound: outer[0] is never used */
	struct dp_pd *old = h->outer[psi];
	f[1].sp = sp;
	f[1].fn = fn;
	DP_STRESS_AT(DP_ST_V1_PUSH);
	f[1].csd = c;
	f[1].pd = callee;
	/* a -finstrument-functions hook (an object built without the plugin)
	 * probes the top frame's table: this pd's, or one that finds nothing
	 * (the slow path then) while the call is unbound. A slot never used
	 * before held NULL, and the probe crashed. */
	f[1].tab = callee ? callee->tab : (struct dp_csd **)&empty_tab[1];
	f[1].saved = old;
	f[1].psi = psi;
	f[1].at = at;
	BARRIER();
	if (unlikely(!set_top(h, f, f + 1)))
		return false;
	DP_STRESS_AT(DP_ST_V1_PUSHED);
	h->outer[psi] = old ? old : callee;
	return true;
}


/* Whether entering ps is the call pending in frame f (its csd c). */
static bool expects(const struct dp_csd *c, const struct dp_ps *ps)
{
	if (c->callee)
		return c->callee->ps == ps;
	if (c->css->kind == DP_CSS_KIND_INDIRECT)   /* a target outside instrumented code
						       calls ps back (a plugin's function) */
		return !c->fn || dp_code_instrumented(c->fn);
	return c->css->callee_name && ps->name && strcmp(c->css->callee_name, ps->name) == 0;
}

/* Room for one more tail record; -1 when out of memory. */
static int tails_room(struct dp_thread *t)
{
	if (t->n_tails < t->tails_cap)
		return 0;
	uint32_t cap = t->tails_cap ? t->tails_cap * 2 : 256;
	struct dp_tailrec *n = dp_mem_map(cap * sizeof *n);
	if (!n)
		return -1;
	if (t->tails)
		memcpy(n, t->tails, t->n_tails * sizeof *n);    /* the old array stays mapped */
	t->tails = n;
	t->tails_cap = cap;
	return 0;
}

/*
 * The callee of p's pending call, a call in tail position, is entered: its
 * frame replaces its caller's frame a (the machine frame is gone too), so a
 * tail recursion of any depth keeps one frame. The replaced activation is
 * recorded (struct dp_tailrec) and ends when the new frame does, as the
 * return hook that would have ended it ends the new frame; its outermost
 * activation entry stays until then, so recursion through tail calls folds.
 */
static int tail_replace(struct dp_thread *t, struct dp_frame *p, uintptr_t sp)
{
	struct dp_hot *h = t->h;
	struct dp_frame *a = p - 1;
	if (a == t->stack) {
		p->at &= ~(uintptr_t)DP_FR_PENDING;
		return 0;
	}
	struct dp_csd *ac = a->csd == &t->outside ? NULL : a->csd;
	uint32_t base = (a->at & DP_FR_TAILS) ? (uint32_t)a->mask : (uint32_t)t->n_tails;
	bool changed = h->outer[a->psi] != a->saved;     /* a was its ps's outermost activation */
	struct dp_tailrec *r = NULL;
	if (!changed)
		for (uint32_t i = base; i < t->n_tails; i++)
			if (t->tails[i].csd == ac) {
				r = &t->tails[i];
				break;
			}
	if (!r) {
		if (tails_room(t) < 0)
			return -1;
		r = &t->tails[t->n_tails++];
		r->csd = ac;
		r->n = 0;
		r->psi = changed ? a->psi : 0;
		r->saved = a->saved;
	}
	r->n++;
	if ((a->at & DP_FR_CB) && a->sp <= sp)
		a->sp = sp + 1;         /* a callback's bound is its own stack pointer */
	a->csd = p->csd;
	a->pd = p->pd;
	a->saved = p->saved;
	a->psi = p->psi;
	a->mask = base;
	/* the tail callee runs in the frame of the call it replaces: inlined
	 * (or a tail recursion GCC made a loop of, inlined in turn) */
	uintptr_t inl = !(a->at & DP_FR_CB) && sp == a->sp ? DP_FR_INL : 0;
	a->at = DP_FR_PLUGIN | DP_FR_TAILS | (a->at & DP_FR_CB) | inl;
	if (a == t->cb_slot) {          /* what reclaim() needs to end it */
		t->cb_csd = a->csd;
		t->cb_saved = a->saved;
		t->cb_psi = a->psi;
		t->cb_base = base;
		t->cb_at = a->at;
	}
	BARRIER();
	h->top = a;
	return 0;
}

/* ==== the hooks ============================================================ */

/* The hot path: the callee of the call pending on top, already bound. */
DP_EXPORT void dp_abi_enter(struct dp_tu *tu, uint32_t ps)
{
	uintptr_t sp = (uintptr_t)__builtin_dwarf_cfa();
	struct dp_hot *h = &dp_hot;
	if (unlikely(h->stop))
		return enter_slow(tu, ps, sp);
	struct dp_frame *f = h->top;
	struct dp_ps **map = DP_LOAD((struct dp_ps ***)&tu->runtime[TU_PS]);
	/* sp == f->sp: the callee was inlined into the caller at -O2, its
	 * enter hook runs in the caller's frame */
	if (unlikely(f->at != (DP_FR_PLUGIN | DP_FR_PENDING) || sp > f->sp || !map ||
		     !f->pd || f->pd->ps != map[ps]))
		return enter_slow(tu, ps, sp);
	uint64_t now = dp_loop_ticks;   /* charged only once the top is known current */
	if (now != h->loops_seen)
		dp_add_local(&f->csd->loops, dp_loops_take(h, now));
	DP_STRESS_AT(DP_ST_V1_ENTER);
	f->at = sp == f->sp ? DP_FR_PLUGIN | DP_FR_INL : DP_FR_PLUGIN;
}

DP_EXPORT void dp_abi_call(struct dp_tu *tu, uint32_t site, void *fn)
{
	uintptr_t sp = (uintptr_t)__builtin_dwarf_cfa();
	struct dp_hot *h = &dp_hot;
	if (unlikely(h->stop))
		return call_slow(tu, site, (uintptr_t)fn, sp);
	struct dp_frame *f = h->top;
	if (unlikely(sp >= f->sp) && !(sp == f->sp && (f->at & DP_FR_INL)))
		return call_slow(tu, site, (uintptr_t)fn, sp);     /* stale frames (longjmp) */
	if (unlikely((f->at & DP_FR_PENDING) || f == h->stack_last))
		return call_slow(tu, site, (uintptr_t)fn, sp);
	struct dp_pd *pd = f->pd;
	const struct dp_ps *p = pd->ps;
	uint32_t i = site - p->first_css;
	if (unlikely(i >= p->n_css || p->tu != tu))
		return call_slow(tu, site, (uintptr_t)fn, sp);
	struct dp_csd *c = pd->slot[i];
	if (unlikely(!c || c->fn != (uintptr_t)fn))
		return call_slow(tu, site, (uintptr_t)fn, sp);
	uint64_t now = dp_loop_ticks;
	if (now != h->loops_seen)
		dp_add_local(&f->csd->loops, dp_loops_take(h, now));
	if (unlikely(!push(h, f, sp, (uintptr_t)&tu->css[site], c, c->frflags))) {
		DP_STRESS_AT(DP_ST_V1_FAILED);
		reclaim(h, f);
		return call_slow(tu, site, (uintptr_t)fn, sp);
	}
}

DP_EXPORT void dp_abi_return(struct dp_tu *tu, uint32_t site)
{
	uintptr_t sp = (uintptr_t)__builtin_dwarf_cfa();
	struct dp_hot *h = &dp_hot;
	if (unlikely(h->stop))
		return return_slow(tu, site, sp);
	struct dp_frame *f = h->top;
	if (unlikely(f->fn != (uintptr_t)&tu->css[site] || f->sp < sp || !f->pd || (f->at & DP_FR_TAILS)))
		return return_slow(tu, site, sp);
	struct dp_csd *c = f->csd;     /* read before the slot is given up */
	uint64_t now = dp_loop_ticks;
	if (now != h->loops_seen)
		dp_add_local(&c->loops, dp_loops_take(h, now));
	struct dp_pd *saved = f->saved;
	uint32_t psi = f->psi;
	DP_STRESS_AT(DP_ST_V1_RETURN);
	if (unlikely(!set_top(h, f, f - 1)))
		return return_slow(tu, site, sp);     /* a handler left a callback frame on top */
	DP_STRESS_AT(DP_ST_V1_POPPED);
	h->outer[psi] = saved;
	dp_add_local(&c->exits, 1);
}

/* Only TUs built with backedges=call call this; the others increment dp_loop_ticks. */
DP_EXPORT void dp_abi_backedge(void)
{
	dp_loop_ticks++;
}

/* ==== ticks outside instrumented code (timer.c) =========================== */

struct dp_csd *dp_plugin_outside(struct dp_thread *t, uintptr_t sp, bool *root)
{
	const struct dp_frame *f = t->h->top;
	*root = false;
	/* a frame whose canonical frame address is at or below the stack
	 * pointer has returned: a callback the library made, popped only
	 * by the next hook */
	while (f > t->stack && (f->sp == DP_SP_DEAD || f->sp <= sp))
		f--;
	if (f == t->stack) {
		*root = true;
		return NULL;
	}
	struct dp_csd *c = f->csd;
	if (!(f->at & DP_FR_PLUGIN) || !(f->at & DP_FR_PENDING) || !c || c == &t->outside)
		return NULL;
	if (c->callee)
		return c->callee->ps->uninstrumented || c->callee->ps->kind == DP_PS_EXTERNAL ? c : NULL;
	if (!c->css || c->css->kind != DP_CSS_EXTERNAL || bind_uninstrumented(t, c) < 0)
		return NULL;
	return c;
}

/* ==== OpenMP regions (omp.c) ============================================== */

bool dp_plugin_region_push(struct dp_thread *t, struct dp_csd *c, uintptr_t sp)
{
	struct dp_hot *h = t->h;
	if (c->psi >= t->outer_cap) {
		dp_busy_on(t);
		int r = dp_graph_outer_reserve(t, c->psi);
		dp_busy_off(t);
		if (r < 0)
			return false;
	}
	settle(h);
	if (room(t) < 0)
		return false;
	for (;;) {
		struct dp_frame *f = h->top;
		if (push(h, f, sp, c->fn, c, DP_FR_PLUGIN | DP_FR_REGION))
			break;
		reclaim(h, f);
	}
	t->regions++;
	return true;
}

void dp_plugin_region_pop(struct dp_thread *t, uintptr_t sp)
{
	struct dp_hot *h = t->h;
	/* frames above the region's ended: callbacks returned (no hook saw
	 * it), the others were left */
	while (h->top != t->stack && h->top->sp < sp)
		pop_stale(t);
	settle(h);
	struct dp_frame *f = h->top;
	if (f == t->stack || f->sp != sp || !(f->at & DP_FR_REGION)) {
		t->lost++;
		return;
	}
	struct dp_csd *c = f->csd;
	struct dp_pd *saved = f->saved;
	uint32_t psi = f->psi;
	if (!set_top(h, f, f - 1)) {
		t->lost++;
		return;
	}
	h->outer[psi] = saved;
	dp_add_local(&c->exits, 1);
	t->regions--;
}

/* ==== slow paths =========================================================== */

/* The calling thread's state if it may record now (made at its first hook). */
static struct dp_thread *thread_ready(void)
{
	struct dp_thread *t = dp_self;
	if (!t && !(t = dp_thread_init()))
		return NULL;
	uint32_t stop = t->h->stop & ~(uint32_t)DP_MAKING;
	if (stop) {
		if (!(stop & (DP_STOPPED | DP_EXITED)))
			t->lost++;
		return NULL;
	}
	return t;
}

/* Room for one more frame; -1 (lost) when the stack cannot grow. */
static int room(struct dp_thread *t)
{
	if (likely(t->h->top != t->h->stack_last))
		return 0;
	dp_busy_on(t);
	int r = dp_graph_grow_stack(t);
	dp_busy_off(t);
	return r;
}

/* The ps of function psn of tu (made if new, with the runtime busy) and
 * room for it in the thread's outermost-activation array. */
static struct dp_ps *entered_ps(struct dp_thread *t, struct dp_tu *tu, uint32_t psn)
{
	struct dp_ps **map = DP_LOAD_ACQ((struct dp_ps ***)&tu->runtime[TU_PS]);
	struct dp_ps *ps = map && psn < tu->n_ps ? DP_LOAD_ACQ(&map[psn]) : NULL;
	if (ps && ps->idx < t->outer_cap)
		return ps;
	if (!ps) {
		if (!may_make(t))
			return NULL;
		making_on(t);
		ps = static_ps(tu, psn);
		making_off(t);
	}
	if (ps && ps->idx >= t->outer_cap) {
		dp_busy_on(t);
		if (dp_graph_outer_reserve(t, ps->idx) < 0)
			ps = NULL;
		dp_busy_off(t);
	}
	return ps;
}

/*
 * Everything dp_abi_enter's fast path leaves: the thread's first hook, a
 * stopped or busy runtime, frames left by longjmp or ended callbacks, a
 * first call through a csd (bind it), a tail call, a callback. The runtime
 * is marked busy only while it makes nodes or grows arrays: a signal
 * handler's hooks may run anywhere else (they are dropped, and counted as
 * lost, while it is busy).
 */
DP_COLD static void enter_slow(struct dp_tu *tu, uint32_t psn, uintptr_t sp)
{
	struct dp_thread *t = thread_ready();
	if (!t)
		return;
	int saved_errno = errno;
	struct dp_hot *h = t->h;
	struct dp_ps *ps = entered_ps(t, tu, psn);
	if (!ps)
		goto lost;
again:
	for (struct dp_frame *f; (f = h->top) != t->stack;) {
		uintptr_t fl = dp_frflags(f);
		if ((fl & (DP_FR_PENDING | DP_FR_TAIL)) == (DP_FR_PENDING | DP_FR_TAIL) &&
		    f->csd != &t->outside && expects(f->csd, ps))
			break;          /* a tail call: the caller's frame is gone, not stale */
		if ((fl & DP_FR_PENDING) && sp == f->sp && f->csd != &t->outside && expects(f->csd, ps))
			break;          /* an inlined callee (its hooks run in the caller's
			                   frame), or a leaf whose body is its enter hook jumps
			                   to it (a sibling call): the hook has the caller's sp */
		if (sp == f->sp && (fl & DP_FR_INL))
			break;
		/* A callback on top, made by uninstrumented code still running
		 * (a call pending below it), has returned to it when another
		 * enter comes (no exit hook tells): libraries call back one at a
		 * time, at any depth (glibc's qsort recurses). A callback from
		 * nothing (main, a thread's start, a signal handler) has not. */
		if (sp + 1 < f->sp && !((fl & DP_FR_CB) && (dp_frflags(f - 1) & DP_FR_PENDING)))
			break;  /* (call frames' sp are even: this is sp < f->sp) */
		pop_stale(t);
	}
	settle(h);
	if (room(t) < 0)
		goto lost;
	struct dp_frame *f = h->top;
	struct dp_pd *parent = f->pd ? f->pd : t->root;
	if ((dp_frflags(f) & DP_FR_PENDING) && f->csd != &t->outside) {
		struct dp_csd *c = f->csd;
		if (expects(c, ps)) {
			if (!c->callee) {
				if (!may_make(t))
					goto lost;
				making_on(t);
				int r = bind(t, c, ps);
				making_off(t);
				if (r < 0)
					goto lost;
				struct dp_pd *old = h->outer[c->psi];
				h->outer[c->psi] = old ? old : c->callee;
				f->pd = c->callee;
				f->saved = old;
				f->psi = c->psi;
			}
			if (f->at & DP_FR_TAIL) {
				dp_busy_on(t);
				int r = tail_replace(t, f, sp);
				dp_busy_off(t);
				if (r < 0)
					goto lost;
			} else {
				f->at &= ~(uintptr_t)DP_FR_PENDING;
				if (sp == f->sp)
					f->at |= DP_FR_INL;
			}
			goto done;
		}
		/* A callback from the callee of f's call if that is known to be
		 * uninstrumented; else (a signal handler, most likely) from the
		 * caller. */
		parent = c->callee && c->callee->ps->uninstrumented ? c->callee : c->caller;
	}
	struct dp_csd *c = callback_csd(t, parent, ps, false);
	if (!c) {
		if (!may_make(t))
			goto lost;
		making_on(t);
		c = callback_csd(t, parent, ps, true);
		making_off(t);
		if (!c)
			goto lost;
		if (h->top != f)
			goto again;     /* a signal handler's frame came on top meanwhile */
	}
	f = h->top;
	if (!push(h, f, sp + 1, 0, c, c->frflags)) {
		reclaim(h, f);
		goto again;
	}
	t->cb_csd = c;
	t->cb_saved = f[1].saved;
	t->cb_psi = f[1].psi;
	t->cb_at = f[1].at;
	t->cb_slot = f + 1;
done:
	errno = saved_errno;
	return;
lost:
	t->lost++;
	errno = saved_errno;
}

/* dp_abi_call's rare cases: stale frames, a new csd, another target, a site
 * of a function inlined into the current one, a full stack. */
DP_COLD static void call_slow(struct dp_tu *tu, uint32_t site, uintptr_t fn, uintptr_t sp)
{
	struct dp_thread *t = thread_ready();
	if (!t)
		return;
	int saved_errno = errno;
	struct dp_hot *h = t->h;
again:
	while (h->top != t->stack && sp >= h->top->sp &&
	       !(sp == h->top->sp && (dp_frflags(h->top) & DP_FR_INL)))
		pop_stale(t);
	settle(h);
	struct dp_frame *f = h->top;
	if ((dp_frflags(f) & DP_FR_PENDING) && f->csd != &t->outside && !f->csd->callee) {
		/* instrumented code running below a call that entered none: the
		 * callee is uninstrumented (an enter hook was lost otherwise) */
		struct dp_csd *pc = f->csd;
		if (bind_uninstrumented(t, pc) < 0)
			goto lost;
		struct dp_pd *old = h->outer[pc->psi];
		h->outer[pc->psi] = old ? old : pc->callee;
		f->pd = pc->callee;
		f->saved = old;
		f->psi = pc->psi;
	}
	struct dp_pd *pd = f->pd ? f->pd : t->root;
	struct dp_csd *c = site_csd(t, pd, tu, site, fn, false);
	if (!c && may_make(t)) {
		making_on(t);
		c = tu_map(tu) ? site_csd(t, pd, tu, site, fn, true) : NULL;
		making_off(t);
		if (c && h->top != f)
			goto again;     /* a signal handler's frame came on top meanwhile */
	}
	if (!c || room(t) < 0)
		goto lost;
	f = h->top;
	if (!push(h, f, sp, (uintptr_t)&tu->css[site], c, c->frflags)) {
		reclaim(h, f);
		goto again;
	}
	errno = saved_errno;
	return;
lost:
	t->lost++;
	errno = saved_errno;
}

/*
 * After the program's constructors (this one runs after theirs: libprof.a
 * comes last in a static link, as for plugin2.c's after_constructors): a
 * constructor whose last call, in tail position, went into a library
 * function (free) left that call's frame on the shadow stack, since no hook
 * follows a tail call, and main, entered with no call pending, was taken
 * for a callback from it (tests/plugin-rt t041). Every frame above the
 * root has ended by now: they are popped as the next shallower hook would.
 */
__attribute__((constructor)) static void v1_after_constructors(void)
{
	struct dp_thread *t = dp_self;
	if (!t || (t->h->stop & ~(uint32_t)DP_MAKING))
		return;
	int saved_errno = errno;
	while (t->h->top != t->stack)
		pop_stale(t);
	settle(t->h);
	errno = saved_errno;
}

/* dp_abi_return's rare cases: frames above the call's (longjmp, ended
 * callbacks, tail calls into uninstrumented code), a callee that was never
 * entered (bind it as uninstrumented), a call whose frame was never pushed. */
DP_COLD static void return_slow(struct dp_tu *tu, uint32_t site, uintptr_t sp)
{
	struct dp_thread *t = dp_self;
	if (!t || (t->h->stop & ~(uint32_t)DP_MAKING))
		return;
	int saved_errno = errno;
	struct dp_hot *h = t->h;
	uintptr_t key = (uintptr_t)&tu->css[site];
	struct dp_frame *f;
again:
	while ((f = h->top) != t->stack) {
		if (f->fn == key && f->sp >= sp)
			break;
		if (sp < f->sp) {
			f = NULL;       /* the call's frame is not there */
			break;
		}
		pop_stale(t);
	}
	settle(h);
	if (!f || f == t->stack) {
		t->lost++;
		errno = saved_errno;
		return;
	}
	struct dp_csd *c = f->csd;
	if (c != &t->outside && !c->callee && bind_uninstrumented(t, c) < 0) {
		t->lost++;
		c = &t->outside;
	}
	uintptr_t at = f->at;
	uint32_t base = (uint32_t)f->mask;
	struct dp_pd *saved = f->saved;
	uint32_t psi = f->psi;
	if (!set_top(h, f, f - 1))
		goto again;
	h->outer[psi] = saved;
	if (at & DP_FR_TAILS) {
		uint64_t n = t->n_tails;
		dp_graph_tails_end(t, base, (uint32_t)n, true, true);
		dp_cas_local(&t->n_tails, n, base);
	}
	dp_add_local(&c->exits, 1);
	errno = saved_errno;
}
