/*
 * graph.h — the hot path of the deep call graph: a call and a return, as
 * static inline functions that every front end (cyg.c for
 * -finstrument-functions, later the GCC plugin's static sites) inlines.
 * Part of deepprof's libprof. MIT licence.
 */
#ifndef DP_GRAPH_H
#define DP_GRAPH_H

#include "internal.h"

/*
 * Stress builds (-DDP_STRESS, tests/e2e t030): dp_stress(n) raises SIGALRM
 * at hook point n when $DEEPPROF_STRESS (a bit mask of points) names it, so
 * an instrumented handler lands exactly in a chosen window of a hook (as
 * Lua's HARDSTACKTESTS force stack reallocation). Points of plugin ABI v1
 * (8 and up) fire every other visit, so a push retried after a handler is
 * not hit again, and twice in a row with $DEEPPROF_STRESS_TWICE set (a
 * second handler right after the first). Ordinary builds: nothing.
 */
enum dp_stress_point {
	DP_ST_FILLED = 1,           /* enter: the new frame written, not yet pushed */
	DP_ST_PUSHED = 2,           /* enter: pushed, not yet checked */
	DP_ST_SLOW_FILLED = 3,      /* the same two in dp_graph_enter_slow */
	DP_ST_SLOW_PUSHED = 4,
	DP_ST_REFILL = 5,           /* dp_graph_refill: the frame half written again (its tab,
	                               not its at; its sp still DP_SP_DEAD) */
	DP_ST_POPPED = 6,           /* exit: popped, not yet counted */
	DP_ST_EXIT = 7,             /* exit: checked, not yet popped */
	DP_ST_V1_PUSH = 8,          /* plugin ABI v1 (plugin.c): a call's frame half written */
	DP_ST_V1_FAILED = 9,        /* v1: its push found a handler's callback frame on top */
	DP_ST_V1_PUSHED = 10,       /* v1: a call's frame pushed, outer[] not yet set */
	DP_ST_V1_ENTER = 11,        /* v1: the callee's enter, before it marks the frame entered */
	DP_ST_V1_RETURN = 12,       /* v1: a return, before its pop */
	DP_ST_V1_POPPED = 13,       /* v1: a return popped, not yet counted */
	DP_ST_V1_RECLAIM = 14,      /* v1: a failed push ends the handler's callback frame */
};
#ifdef DP_STRESS
void dp_stress(unsigned point);
#define DP_STRESS_AT(n) dp_stress(n)
#else
#define DP_STRESS_AT(n) ((void)0)
#endif

/*
 * Whether frame f, on top of the stack when a function is called from site
 * with frame address sp by the enter hook called at at, was left by a
 * longjmp: it is deeper, or it is at the same address without being the
 * container of an inlined function. GCC reports an inlined function with its
 * container's own return address as site (so the same sp), from an enter
 * hook call of its own (so another at); the same site and the same at mean
 * the same call made again, after a longjmp out of the first. The root
 * frame (sp = UINTPTR_MAX) is never stale; a slot being filled (DP_SP_DEAD,
 * 0) always is, which sends the enter hook's fast path to the slow one.
 */
static inline bool dp_frame_stale(const struct dp_frame *f, uintptr_t site, uintptr_t sp, uintptr_t at)
{
	return f->sp < sp || (f->sp == sp && (f->csd->site != site || f->at == at));
}

/*
 * A call of fn from call site site. hook_sp is fn's stack pointer where it
 * called the hook, at that call's return address; fn's frame offset (learned
 * by the slow path, kept in the csd, checked against the return address
 * found there) turns hook_sp into fn's canonical frame address. Finds the
 * csd of (current pd, site, fn) and pushes a frame (which is what counts
 * the call: see struct dp_csd). Recursion folding costs nothing here: the
 * slow path that made the csd pointed it at the pd folding chose then
 * (dp_graph_active_pd), and every later call through it goes there (as
 * Mercury's csd does). Everything rare happens in dp_graph_enter_slow().
 */
static inline __attribute__((always_inline))
void dp_graph_enter(uintptr_t fn, uintptr_t site, uintptr_t hook_sp, uintptr_t at)
{
	struct dp_hot *h = &dp_hot;
	if (unlikely(h->stop))
		return dp_graph_enter_slow(fn, site, hook_sp, at);  /* first hook, busy, stopped */
	/* f may be a slot being filled (DP_SP_DEAD: this hook runs in a
	 * signal handler that interrupted a push). Its tab is one word, some
	 * frame's whole table, so the probe is safe; the stale test below
	 * then takes the slow path. */
	struct dp_frame *f = h->top;
	struct dp_csd *const *tab = f->tab;
	uintptr_t mask = dp_tab_mask(tab);
	uintptr_t i = dp_hash(site, fn) & mask;
	struct dp_csd *c = tab[i];
	if (unlikely(!c || c->site != site || c->fn != fn)) {
		do {                                        /* a collision: probe on */
			if (!c)
				return dp_graph_enter_slow(fn, site, hook_sp, at);  /* a new csd */
			i = (i + 1) & mask;
			c = tab[i];
		} while (!c || c->site != site || c->fn != fn);
	}
	uint32_t off = c->off;                      /* kept in a register over the barriers */
	uintptr_t sp = hook_sp + off;
	if (unlikely(((const uintptr_t *)sp)[-1] != site) && !c->guess)
		return dp_graph_enter_slow(fn, site, hook_sp, at);  /* fn's frame is laid out otherwise this time */
	if (unlikely(f->sp <= sp) && dp_frame_stale(f, site, sp, at))
		return dp_graph_enter_slow(fn, site, hook_sp, at);  /* stale frames (longjmp), a push in progress */
	if (unlikely(f == h->stack_last))
		return dp_graph_enter_slow(fn, site, hook_sp, at);  /* a full stack */
	f[1].sp = sp;                               /* first: a signal handler's push overwrites it */
	__asm__ volatile("" ::: "memory");
	f[1].fn = fn;
	f[1].csd = c;
	f[1].pd = c->callee;
	f[1].off = off;
	f[1].tab = c->ctab;
	f[1].at = at;
	__asm__ volatile("" ::: "memory");          /* the frame is complete before a signal handler can see it */
	DP_STRESS_AT(DP_ST_FILLED);
	h->top = f + 1;
	__asm__ volatile("" ::: "memory");
	DP_STRESS_AT(DP_ST_PUSHED);
	if (unlikely(f[1].sp != sp))                /* a signal handler's hooks used the slot meanwhile: */
		dp_graph_refill(f + 1, sp, fn, c, at);  /* it is DP_SP_DEAD till then */
}

/*
 * The return of fn (hook_sp as for dp_graph_enter; ret: the exit hook's
 * return address). ret == site: the hook was tail-called after fn's frame
 * was popped (GCC does that at -O2), so hook_sp is already fn's frame
 * address. The common case pops the top frame; a top frame of another
 * function, or one deeper than fn's frame, means frames were left by
 * longjmp (or the top is a slot being filled, DP_SP_DEAD):
 * dp_graph_exit_slow() resynchronises.
 */
static inline __attribute__((always_inline))
void dp_graph_exit(uintptr_t fn, uintptr_t site, uintptr_t hook_sp, uintptr_t ret)
{
	struct dp_hot *h = &dp_hot;
	if (unlikely(h->stop))
		goto slow;
	struct dp_frame *f = h->top;
	if (unlikely(f->fn != fn))
		goto slow;
	uintptr_t off = f->off;
	if (ret == site)
		off = 0;                            /* a tail call: a conditional move */
	if (unlikely(f->sp < hook_sp + off))
		goto slow;
	struct dp_csd *c = f->csd;                  /* read before the slot is given up */
	DP_STRESS_AT(DP_ST_EXIT);
	h->top = f - 1;
	__asm__ volatile("" ::: "memory");          /* a signal between the two loses the call, never counts it twice */
	DP_STRESS_AT(DP_ST_POPPED);
	f->sp = DP_SP_DEAD;                         /* see DP_SP_DEAD (internal.h) */
	c->exits++;
	return;
slow:
	dp_graph_exit_slow(fn, site, hook_sp, ret == site);
}

#endif
