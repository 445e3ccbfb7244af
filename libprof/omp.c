/*
 * omp.c — OpenMP programs (GCC's libgomp). GCC outlines the body of a
 * parallel region or a task into a function of its own (main._omp_fn.0)
 * and hands it to libgomp, which runs it on the threads of a team, or
 * later on whichever thread takes the task. Left alone, such a run would
 * hang from the root of a libgomp thread with no calling context. So
 * libprof wraps libgomp's entry points that take an outlined function
 * (GOMP_parallel and its combined forms, GOMP_task): the wrapper notes the
 * context the construct was reached in (the thread and its current pd),
 * and each run of the body becomes a call through a css of kind
 * `parallel` or `task` (at the construct: the return address of the call
 * of libgomp) from that context, into a procedure that is the outlined
 * function (ps kind DP_PS_REGION). On the thread that reached the
 * construct the context is the pd itself; on another thread it is a copy:
 * the chain of csds that made the pd, from that thread's root, made again
 * in the running thread's graph as context-only csds (ctx, no counts), so
 * every thread's costs stay in its own graph (Deep.data: each thread its
 * own graph) and still read main -> (parallel region) -> work.
 *
 * The chain counts as active for recursion folding, so a recursion
 * through tasks (sort -> task -> sort) folds into one clique on every
 * thread. The region's own code finds its csd as the plugin's prologue
 * finds any callee's (ABI v2: dp_cur names it, tagged), from the frame
 * pushed here (ABI v1: the region's sites hang from the frame's pd), or
 * from that frame as its caller (-finstrument-functions hooks of the
 * functions it calls). See schemas/deep-data.md, "OpenMP".
 *
 * Not wrapped: GOMP_taskloop (libgomp writes each task's iteration range at
 * the start of its data, where a header would go), host teams and target
 * fallback (run on the calling thread, in its context anyway).
 * Part of deepprof's libprof. MIT licence.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

typedef void (*omp_fn)(void *);

/* The context of a construct: the thread that reached it, its pd to hang
 * the region's runs under (NULL: record nothing), the construct's site and
 * the css kind of a run. */
struct ctx {
	struct dp_thread *t;
	struct dp_pd *pd;
	uintptr_t site;
	uint32_t kind;
};

/* A mirror csd's fn: no code address and no plugin key has this bit. */
#define DP_CTX_FN ((uintptr_t)1 << 62)
/* Deeper creation chains are cut (a recursion folds: a chain holds at
 * most one pd of a procedure, so this is a limit on distinct procedures). */
#define MIRROR_DEPTH 4096

/* --- private prototypes --- */
static void *real(const char *name, void **cache);
static void capture(struct ctx *x, uintptr_t site, uint32_t kind);
static struct dp_ps *region_ps(uintptr_t fn, const struct dp_ps *parent);
static struct dp_csd *region_csd(struct dp_thread *t, struct dp_pd *q, uintptr_t site, uintptr_t fn,
				 uint32_t kind);
static struct dp_csd *mirror_csd(struct dp_thread *t, struct dp_pd *q, const struct dp_csd *c);
static struct dp_pd *mirror_pd(struct dp_thread *t, struct dp_pd *p, unsigned depth);
static void run(const struct ctx *x, omp_fn fn, void *data);

/* libgomp's own function: the next definition after ours. A program that
 * calls one has libgomp loaded; without it there is nothing to call. */
static void *real(const char *name, void **cache)
{
	void *f = dp_next_sym(name, cache);
	if (unlikely(!f)) {
		dp_log("OpenMP:", name, "is not found in any library after libprof (link libgomp after it)");
		abort();
	}
	return f;
}

/* ==== the context of a construct ========================================== */

static void capture(struct ctx *x, uintptr_t site, uint32_t kind)
{
	x->t = NULL;
	x->pd = NULL;
	x->site = site;
	x->kind = kind;
	struct dp_thread *t = dp_self;
	if (!t && !(t = dp_thread_init()))
		return;
	if (t->h->stop & ~(uint32_t)DP_ALT)
		return;
	struct dp_pd *pd = NULL;
	if (DP_LOAD(&dp_rt.abi2))
		pd = dp_plugin2_context(t);
	if (!pd) {
		/* the top frame's activation (not a call still pending) */
		const struct dp_frame *f = t->h->top;
		while (f > t->stack && (f->sp == DP_SP_DEAD || !f->pd))
			f--;
		pd = f->pd ? f->pd : t->root;
	}
	x->t = t;
	x->pd = pd;
}

/* The procedure of outlined function fn, made in parent: a region of a
 * plugin function has its sites (the plugin numbers the region's calls as
 * the function's), which its pds' slots and the prologue's check follow. */
static struct dp_ps *region_ps(uintptr_t fn, const struct dp_ps *parent)
{
	struct dp_ps init = { .kind = DP_PS_REGION };
	if (parent->kind == DP_PS_STATIC || (parent->kind == DP_PS_REGION && parent->layout)) {
		init.tu = parent->tu;
		init.first_css = parent->first_css;
		init.n_css = parent->n_css;
		init.n_extra = parent->n_extra;
		init.extra = parent->extra;
		init.layout = parent->kind == DP_PS_STATIC ? (const struct dp_ps_static *)parent->fn
			      : parent->layout;
	}
	return dp_graph_ps_get(fn, &init);
}

/* Whether a region of ps runs ABI v2 code (dp_cur), ABI v1 code (plugin
 * frames) or neither (-finstrument-functions frames). */
static int region_abi(const struct dp_ps *ps)
{
	return ps->layout ? (int)((const struct dp_tu *)ps->tu)->abi_version : 0;
}

/* The csd of the runs of outlined function fn from site in pd q of t,
 * made if new. NULL when out of memory. */
static struct dp_csd *region_csd(struct dp_thread *t, struct dp_pd *q, uintptr_t site, uintptr_t fn,
				 uint32_t kind)
{
	struct dp_csd *c = dp_graph_tab_find(q, site, fn);
	if (c)
		return c;
	struct dp_ps *ps = region_ps(fn, q->ps);
	if (!ps)
		return NULL;
	struct dp_css init = { .kind = kind, .callee = ps };
	struct dp_css *css = dp_graph_css_get(site, q->ps, &init);
	if (!css || !(c = dp_csd_new(t)))
		return NULL;
	c->site = site;
	c->fn = fn;
	c->css = css;
	c->caller = q;
	if (dp_graph_tab_insert(t, q, c) < 0)
		return NULL;
	if (region_abi(ps) == 2)
		return dp_plugin2_region_bind(t, c, ps) < 0 ? NULL : c;
	if (dp_graph_outer_reserve(t, ps->idx) < 0)
		return NULL;
	struct dp_pd *pd = dp_graph_active_pd(t, ps);
	if (!pd) {
		if (!(pd = dp_graph_pd_new(t, ps)))
			return NULL;
		pd->parent = c;
	}
	c->callee = pd;
	c->psi = ps->idx;
	c->ctab = pd->tab;
	dp_graph_csd_publish(t, c);
	return c;
}

/* In pd q of t, the copy of csd c of another thread: the same site and
 * callee procedure, no counts. A region's csd is copied as the region's own
 * csd of this thread (its runs here count there). */
static struct dp_csd *mirror_csd(struct dp_thread *t, struct dp_pd *q, const struct dp_csd *c)
{
	if (DP_CSS_IS_REGION(c->css->kind))
		return region_csd(t, q, c->site, c->fn, c->css->kind);
	uintptr_t fn = c->fn | DP_CTX_FN;
	struct dp_csd *m = dp_graph_tab_find(q, c->site, fn);
	if (m)
		return m;
	if (!(m = dp_csd_new(t)))
		return NULL;
	m->site = c->site;
	m->fn = fn;
	m->css = c->css;
	m->caller = q;
	m->ctx = 1;
	struct dp_pd *pd = dp_plugin2_pd_new(t, c->callee->ps, m, c->callee->hot != NULL);
	if (!pd)
		return NULL;
	m->callee = pd;
	m->psi = pd->ps->idx;
	m->ctab = pd->tab;
	if (pd->hot)
		dp_csd_bind_hot(&m->hot, pd->hot);
	if (dp_graph_tab_insert(t, q, m) < 0)
		return NULL;
	dp_graph_csd_publish(t, m);
	return m;
}

/* The copy in t's graph of pd p of another thread: its creation chain
 * (the csd that made it, the pd that csd was called from, ...) copied
 * from t's root down. The other thread's nodes are read without its
 * lock: the fields read never change once the node is published, and
 * libgomp's hand-over of the work orders their writes before this. */
static struct dp_pd *mirror_pd(struct dp_thread *t, struct dp_pd *p, unsigned depth)
{
	const struct dp_csd *c = p->parent;
	if (!c || !c->caller || depth >= MIRROR_DEPTH)
		return t->root;
	struct dp_pd *q = mirror_pd(t, c->caller, depth + 1);
	if (!q)
		return NULL;
	struct dp_csd *m = mirror_csd(t, q, c);
	return m ? m->callee : NULL;
}

/* ==== a run of a region ==================================================== */

/* Run fn(data) on this thread as a call through the region csd of x. */
static __attribute__((noinline)) void run(const struct ctx *x, omp_fn fn, void *data)
{
	struct dp_thread *t = NULL;
	struct dp_csd *c = NULL;
	if (x->pd && (t = dp_self ? dp_self : dp_thread_init()) && !(t->h->stop & ~(uint32_t)DP_ALT)) {
		int saved_errno = errno;
		dp_busy_on(t);
		struct dp_pd *q = t == x->t ? x->pd : mirror_pd(t, x->pd, 0);
		c = q ? region_csd(t, q, x->site, (uintptr_t)fn, x->kind) : NULL;
		dp_busy_off(t);
		if (!c)
			t->lost++;
		errno = saved_errno;
	}
	if (!c) {
		fn(data);
		return;
	}
	if (c->v2) {
		uintptr_t saved = dp_cur;
		dp_add_local(&c->hot.calls, 1);
		dp_cur = (uintptr_t)&c->hot | 1;
		fn(data);
		dp_add_local(&c->hot.exits, 1);
		dp_cur = saved;
		return;
	}
	/* a frame above the region's own: ABI v1's or -finstrument-functions' */
	bool v1 = region_abi(c->callee->ps) == 1;
	uintptr_t sp = (uintptr_t)__builtin_dwarf_cfa();
	if (!(v1 ? dp_plugin_region_push : dp_graph_region_push)(t, c, sp)) {
		t->lost++;
		fn(data);
		return;
	}
	fn(data);
	(v1 ? dp_plugin_region_pop : dp_graph_region_pop)(t, sp);
}

/* ==== parallel regions ===================================================== */

/* What every thread of the team is handed instead of fn(data). */
struct team {
	omp_fn fn;
	void *data;
	struct ctx x;
};

static void team_run(void *arg)
{
	struct team *w = arg;
	run(&w->x, w->fn, w->data);
}

#define TEAM(w, fn, data) \
	struct team w = { (fn), (data), { 0 } }; \
	capture(&w.x, (uintptr_t)__builtin_return_address(0), DP_CSS_PARALLEL)

DP_EXPORT void GOMP_parallel(omp_fn fn, void *data, unsigned n, unsigned flags)
{
	static void *r;
	void (*f)(omp_fn, void *, unsigned, unsigned) = real("GOMP_parallel", &r);
	TEAM(w, fn, data);
	f(team_run, &w, n, flags);
}

DP_EXPORT unsigned GOMP_parallel_reductions(omp_fn fn, void *data, unsigned n, unsigned flags)
{
	static void *r;
	unsigned (*f)(omp_fn, void *, unsigned, unsigned) = real("GOMP_parallel_reductions", &r);
	TEAM(w, fn, data);
	return f(team_run, &w, n, flags);
}

DP_EXPORT void GOMP_parallel_sections(omp_fn fn, void *data, unsigned n, unsigned count, unsigned flags)
{
	static void *r;
	void (*f)(omp_fn, void *, unsigned, unsigned, unsigned) = real("GOMP_parallel_sections", &r);
	TEAM(w, fn, data);
	f(team_run, &w, n, count, flags);
}

/* The combined parallel loops: a chunk size or not (runtime schedules). */
#define LOOP_CHUNK(name) \
DP_EXPORT void name(omp_fn fn, void *data, unsigned n, long start, long end, long incr, \
		    long chunk, unsigned flags) \
{ \
	static void *r; \
	void (*f)(omp_fn, void *, unsigned, long, long, long, long, unsigned) = real(#name, &r); \
	TEAM(w, fn, data); \
	f(team_run, &w, n, start, end, incr, chunk, flags); \
}
#define LOOP_RUNTIME(name) \
DP_EXPORT void name(omp_fn fn, void *data, unsigned n, long start, long end, long incr, \
		    unsigned flags) \
{ \
	static void *r; \
	void (*f)(omp_fn, void *, unsigned, long, long, long, unsigned) = real(#name, &r); \
	TEAM(w, fn, data); \
	f(team_run, &w, n, start, end, incr, flags); \
}
LOOP_CHUNK(GOMP_parallel_loop_static)
LOOP_CHUNK(GOMP_parallel_loop_dynamic)
LOOP_CHUNK(GOMP_parallel_loop_guided)
LOOP_CHUNK(GOMP_parallel_loop_nonmonotonic_dynamic)
LOOP_CHUNK(GOMP_parallel_loop_nonmonotonic_guided)
LOOP_RUNTIME(GOMP_parallel_loop_runtime)
LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* ==== tasks ================================================================ */

/*
 * A task's data is copied by libgomp (by cpyfn, or memcpy of arg_size
 * bytes) into the task, run later. The wrapper hands libgomp a larger
 * argument: a header (the outlined function, the context, where the data
 * starts) followed by the task's own data at an offset that keeps its
 * alignment, and a copy function that writes both.
 */
struct task_hdr {
	omp_fn fn;
	struct ctx x;
	long off;
};
struct task_send {
	struct task_hdr h;
	void (*cpyfn)(void *, void *);
	void *data;
	long size;
};

static void task_copy(void *dst, void *src)
{
	const struct task_send *s = src;
	memcpy(dst, &s->h, sizeof s->h);
	char *d = (char *)dst + s->h.off;
	if (s->cpyfn)
		s->cpyfn(d, s->data);
	else if (s->size)
		memcpy(d, s->data, (size_t)s->size);
}

static void task_run(void *arg)
{
	const struct task_hdr *h = arg;
	run(&h->x, h->fn, (char *)arg + h->off);
}

DP_EXPORT void GOMP_task(omp_fn fn, void *data, void (*cpyfn)(void *, void *), long arg_size,
			 long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
			 void *detach)
{
	static void *r;
	void (*f)(omp_fn, void *, void (*)(void *, void *), long, long, bool, unsigned, void **,
		  int, void *) = real("GOMP_task", &r);
	long align = arg_align > (long)_Alignof(struct task_hdr) ? arg_align : (long)_Alignof(struct task_hdr);
	struct task_send s = { .h = { .fn = fn }, .cpyfn = cpyfn, .data = data, .size = arg_size };
	s.h.off = ((long)sizeof(struct task_hdr) + align - 1) / align * align;
	capture(&s.h.x, (uintptr_t)__builtin_return_address(0), DP_CSS_TASK);
	f(task_run, &s, task_copy, s.h.off + arg_size, align, if_clause, flags, depend, priority, detach);
}
