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
 * A call of fn from call site site, made with the stack at sp. Builds or
 * reuses the csd of (current pd, site, fn), folds recursion through the
 * thread's outermost activations, counts the call and pushes a frame.
 * Everything rare happens in dp_graph_enter_slow().
 */
static inline __attribute__((always_inline))
void dp_graph_enter(uintptr_t fn, uintptr_t site, uintptr_t sp)
{
	struct dp_thread *t = dp_self;
	if (unlikely(!t || t->stop)) {
		dp_graph_enter_slow(t, fn, site, sp);
		return;
	}
	struct dp_frame *f = t->top;
	if (unlikely(f->sp <= sp || f == t->stack_last)) {
		dp_graph_enter_slow(t, fn, site, sp);   /* stale frames (longjmp) or a full stack */
		return;
	}
	struct dp_pd *pd = f->pd;
	struct dp_csd *c = pd->tab[dp_hash(site, fn) & pd->mask];
	if (unlikely(!c || c->site != site || c->fn != fn)) {
		c = dp_graph_csd_miss(t, pd, fn, site);
		if (unlikely(!c))
			return;                             /* out of memory: counted as lost */
	}
	struct dp_pd *callee = c->callee;
	uint32_t psi = c->psi;
	struct dp_pd *old = t->outer[psi];
	t->outer[psi] = old ? old : callee;
	c->calls++;
	t->clock++;
	f[1].sp = sp;
	f[1].fn = fn;
	f[1].csd = c;
	f[1].pd = callee;
	f[1].saved = old;
	f[1].psi = psi;
	__asm__ volatile("" ::: "memory");          /* the frame is complete before it is visible to a signal handler */
	t->top = f + 1;
}

/*
 * The return of fn, with the stack at sp. The common case pops the top frame;
 * a top frame of another function, or one deeper than sp, means frames were
 * left by longjmp: dp_graph_exit_slow() resynchronises.
 */
static inline __attribute__((always_inline))
void dp_graph_exit(uintptr_t fn, uintptr_t sp)
{
	struct dp_thread *t = dp_self;
	if (unlikely(!t || t->stop)) {
		dp_graph_exit_slow(t, fn, sp);
		return;
	}
	struct dp_frame *f = t->top;
	if (unlikely(f->fn != fn || f->sp < sp)) {
		dp_graph_exit_slow(t, fn, sp);
		return;
	}
	t->outer[f->psi] = f->saved;
	f->csd->exits++;
	__asm__ volatile("" ::: "memory");
	t->top = f - 1;
}

#endif
