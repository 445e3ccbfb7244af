/*
 * graph.c — the slow paths of the deep call graph: creating ps, css, pd and
 * csd nodes, recursion folding for new csds, table and stack growth, and
 * resynchronising the shadow stack after non-local exits.
 * Part of deepprof's libprof. MIT licence.
 */
#include <sys/auxv.h>
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <unwind.h>
#include "graph.h"

/* --- private prototypes --- */
static void pop_nonlocal(struct dp_thread *t);
static bool on_altstack(uintptr_t sp);
static const char *str_copy(const char *s);
static void ps_adopt(struct dp_ps *ps);

#define ps_get(fn)              dp_graph_ps_get((fn), NULL)
#define css_get(site, caller)   dp_graph_css_get((site), (caller), NULL)
#define pd_new                  dp_graph_pd_new
#define outer_reserve           dp_graph_outer_reserve
#define tab_insert              dp_graph_tab_insert

#define PD_TAB_INIT 4

#define busy_on  dp_busy_on
#define busy_off dp_busy_off

static uintptr_t module_base_of(uintptr_t addr)
{
	Dl_info info;
	if (addr && dladdr((void *)addr, &info))
		return (uintptr_t)info.dli_fbase;
	return 0;
}

/* ==== global nodes: ps and css ============================================ */

static inline uint32_t hash_ptr(uintptr_t a, uintptr_t b)
{
	return (uint32_t)(((a ^ (b * 31)) * 0x9E3779B97F4A7C15ull) >> 32);
}

/* Double a chained hash table's bucket array (caller holds dp_rt.lock). */
#define REHASH(type, buckets, hmask, keyexpr)                                   \
	do {                                                                    \
		uint32_t nm = (hmask) * 2 + 1;                                  \
		type **nb = dp_mem_global(sizeof(*nb) * (nm + 1));              \
		if (!nb)                                                        \
			break;                                                  \
		for (uint32_t i = 0; i <= (hmask); i++) {                       \
			type *e = (buckets)[i], *nx;                            \
			for (; e; e = nx) {                                     \
				nx = e->hnext;                                  \
				uint32_t h = keyexpr & nm;                      \
				e->hnext = nb[h];                               \
				nb[h] = e;                                      \
			}                                                       \
		}                                                               \
		(buckets) = nb;                                                 \
		(hmask) = nm;                                                   \
	} while (0)

/* Create the synthetic root procedure, PS 1 (runtime init, lock held). */
struct dp_ps *dp_graph_root_ps(void)
{
	struct dp_ps *ps = dp_mem_global(sizeof *ps);
	if (!ps)
		return NULL;
	ps->idx = ++dp_rt.n_ps;
	ps->kind = DP_PS_SYNTH;
	ps->name = "<root>";
	dp_rt.ps_head = dp_rt.ps_tail = ps;
	return ps;
}

static struct dp_ps *ps_find(uintptr_t fn)
{
	for (struct dp_ps *p = dp_rt.ps_hash[hash_ptr(fn, 0) & dp_rt.ps_hmask]; p; p = p->hnext)
		if (p->fn == fn)
			return p;
	return NULL;
}

/* A copy of s in the global arena (caller holds dp_rt.lock); NULL for NULL
 * or when out of memory. Plugin tables may be unmapped (dlclose) before the
 * profile is written, so nodes keep copies of their strings. */
static const char *str_copy(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *d = dp_mem_global(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/*
 * The ps of key fn, created if new: with init NULL, fn is an entry address
 * (-finstrument-functions); else the new ps takes init's kind, name, file,
 * line, site range, tu and layout (strings copied). NULL when out of memory.
 */
struct dp_ps *dp_graph_ps_get(uintptr_t fn, const struct dp_ps *init)
{
	dp_lock();
	struct dp_ps *ps = ps_find(fn);
	dp_unlock();
	if (ps)
		return ps;
	/* outside our lock: dladdr takes the loader's (and is slow: only
	 * -finstrument-functions procedures need their module's base) */
	uintptr_t base = init && init->kind != DP_PS_ADDR && init->kind != DP_PS_REGION ? 0
		       : module_base_of(fn);
	dp_lock();
	ps = ps_find(fn);
	if (!ps && (ps = dp_mem_global(sizeof *ps))) {
		ps->fn = fn;
		ps->mod_base = base;
		if (init) {
			ps->kind = init->kind;
			ps->name = str_copy(init->name);
			ps->file = str_copy(init->file);
			ps->line = init->line;
			ps->first_css = init->first_css;
			ps->n_css = init->n_css;
			ps->n_extra = init->n_extra;
			ps->extra = init->extra;
			ps->tu = init->tu;
			ps->layout = init->layout;
			ps->uninstrumented = init->uninstrumented;
		}
		ps->idx = dp_rt.n_ps + 1;
		uint32_t h = hash_ptr(fn, 0) & dp_rt.ps_hmask;
		ps->hnext = dp_rt.ps_hash[h];
		dp_rt.ps_hash[h] = ps;
		DP_STORE_REL(&dp_rt.ps_tail->next, ps);
		dp_rt.ps_tail = ps;
		DP_STORE_REL(&dp_rt.n_ps, ps->idx);
		if (dp_rt.n_ps > dp_rt.ps_hmask)
			REHASH(struct dp_ps, dp_rt.ps_hash, dp_rt.ps_hmask, hash_ptr(e->fn, 0));
	}
	dp_unlock();
	return ps;
}

static struct dp_css *css_find(uintptr_t site, struct dp_ps *caller)
{
	uint32_t h = hash_ptr(site, (uintptr_t)caller) & dp_rt.css_hmask;
	for (struct dp_css *c = dp_rt.css_hash[h]; c; c = c->hnext)
		if (c->site == site && c->caller == caller)
			return c;
	return NULL;
}

struct dp_ps *dp_graph_ps_find(uintptr_t fn)
{
	dp_lock();
	struct dp_ps *ps = ps_find(fn);
	dp_unlock();
	return ps;
}

/* A ps a tick made for a frame (DP_PS_SAMPLED, no module base: no dladdr in
 * a signal handler) whose function turns out to be instrumented: its enter
 * hook ran. It becomes an ordinary -finstrument-functions ps. */
static void ps_adopt(struct dp_ps *ps)
{
	uintptr_t base = module_base_of(ps->fn);
	dp_lock();
	if (ps->kind == DP_PS_SAMPLED) {
		ps->mod_base = base;
		ps->kind = DP_PS_ADDR;
	}
	dp_unlock();
}

/* The css of (return address site, caller ps), created if new; with init,
 * its kind, callee, file, line and col come from init (plugin sites). */
struct dp_css *dp_graph_css_get(uintptr_t site, struct dp_ps *caller, const struct dp_css *init)
{
	dp_lock();
	struct dp_css *css = css_find(site, caller);
	dp_unlock();
	if (css)
		return css;
	/* A return address outside the caller's module lies in uninstrumented
	 * code that called back (qsort, start_thread); so does any call from
	 * the root, which has no code of its own. */
	uint32_t kind = DP_CSS_DYNAMIC;
	if (init)
		kind = init->kind;
	else if (caller == dp_rt.root_ps || module_base_of(site) != caller->mod_base)
		kind = DP_CSS_CALLBACK;
	dp_lock();
	css = css_find(site, caller);
	if (!css && (css = dp_mem_global(sizeof *css))) {
		css->site = site;
		css->caller = caller;
		css->kind = kind;
		if (init) {
			css->callee = init->callee;
			css->file = str_copy(init->file);
			css->line = init->line;
			css->col = init->col;
			css->sflags = init->sflags;
			css->callee_name = str_copy(init->callee_name);
		}
		uint32_t h = hash_ptr(site, (uintptr_t)caller) & dp_rt.css_hmask;
		css->hnext = dp_rt.css_hash[h];
		dp_rt.css_hash[h] = css;
		if (dp_rt.css_tail)
			DP_STORE_REL(&dp_rt.css_tail->next, css);
		else
			DP_STORE_REL(&dp_rt.css_head, css);
		dp_rt.css_tail = css;
		DP_STORE_REL(&dp_rt.n_css, dp_rt.n_css + 1);
		if (dp_rt.n_css > dp_rt.css_hmask)
			REHASH(struct dp_css, dp_rt.css_hash, dp_rt.css_hmask,
			       hash_ptr(e->site, (uintptr_t)e->caller));
	}
	dp_unlock();
	return css;
}

/* ==== per-thread nodes: pd and csd ======================================== */

/* A new pd of ps in t's graph, linked at the end of t's pd list; a ps
 * from a plugin table gets one slot per site. */
struct dp_pd *dp_graph_pd_new(struct dp_thread *t, struct dp_ps *ps)
{
	struct dp_pd *pd = dp_mem_thread(t, sizeof *pd + dp_tab_words(PD_TAB_INIT - 1, ps->n_css) *
					 sizeof(struct dp_csd *));
	if (!pd)
		return NULL;
	pd->tab = dp_tab_init(pd + 1, PD_TAB_INIT - 1);
	if (ps->n_css)
		pd->slot = pd->tab + PD_TAB_INIT;
	pd->mask = PD_TAB_INIT - 1;
	pd->ps = ps;
	if (t->pd_tail)
		DP_STORE_REL(&t->pd_tail->next, pd);
	else
		DP_STORE_REL(&t->pd_head, pd);
	t->pd_tail = pd;
	DP_STORE_REL(&t->n_pd, t->n_pd + 1);
	return pd;
}

/* The outermost pd of ps on the creation chain of pd (pd, the pd its
 * maker was called from, and so on to a root), or NULL. */
static struct dp_pd *chain_pd(struct dp_pd *pd, const struct dp_ps *ps)
{
	struct dp_pd *found = NULL;
	for (; pd; pd = pd->parent ? pd->parent->caller : NULL)
		if (pd->ps == ps)
			found = pd;
	return found;
}

/* The outermost pd of ps on the creation chain of a DP_FR_REGION frame of
 * t (omp.c: the construct's context counts as active), or NULL. */
static struct dp_pd *region_active_pd(struct dp_thread *t, const struct dp_ps *ps)
{
	for (const struct dp_frame *f = t->stack + 1; f <= t->h->top; f++)
		if (f->sp != DP_SP_DEAD && (f->at & DP_FR_REGION) && f->pd) {
			struct dp_pd *pd = chain_pd(f->pd, ps);
			if (pd)
				return pd;
		}
	return NULL;
}

struct dp_pd *dp_graph_active_pd(struct dp_thread *t, const struct dp_ps *ps)
{
	/* an OpenMP region's run: the construct's context is active, and
	 * outermost (omp.c) */
	if (t->regions) {
		struct dp_pd *pd = region_active_pd(t, ps);
		if (pd)
			return pd;
	}
	if (ps->idx < t->outer_cap && t->h->outer[ps->idx])
		return t->h->outer[ps->idx];
	if (!t->cyg)
		return NULL;        /* a plugin-only thread: outer[] knows every activation */
	for (const struct dp_frame *f = t->stack + 1; f <= t->h->top; f++)
		if (f->sp != DP_SP_DEAD && !(f->at & DP_FR_PLUGIN) && f->pd && f->pd->ps == ps)
			return f->pd;
	return NULL;
}

/* ==== OpenMP regions (omp.c) ============================================== */

bool dp_graph_region_push(struct dp_thread *t, struct dp_csd *c, uintptr_t sp)
{
	struct dp_hot *h = t->h;
	busy_on(t);
	if (h->top == h->stack_last && dp_graph_grow_stack(t) < 0) {
		busy_off(t);
		return false;
	}
	struct dp_frame *f = h->top;
	f[1].sp = sp;
	f[1].fn = c->fn;
	f[1].csd = c;
	f[1].pd = c->callee;
	f[1].off = 0;
	f[1].tab = c->ctab = c->callee->tab;
	f[1].at = DP_FR_REGION;
	__asm__ volatile("" ::: "memory");
	h->top = f + 1;
	t->regions++;
	busy_off(t);
	return true;
}

void dp_graph_region_pop(struct dp_thread *t, uintptr_t sp)
{
	struct dp_hot *h = t->h;
	busy_on(t);
	/* frames above the region's were left without returning */
	while (h->top != t->stack && h->top->sp < sp)
		pop_nonlocal(t);
	struct dp_frame *f = h->top;
	if (f != t->stack && f->sp == sp && (f->at & DP_FR_REGION)) {
		struct dp_csd *c = f->csd;
		h->top = f - 1;
		__asm__ volatile("" ::: "memory");
		f->sp = DP_SP_DEAD;
		c->exits++;
		t->regions--;
	} else {
		t->lost++;
	}
	busy_off(t);
}

/* Make t->h->outer hold index idx. Old arrays are unmapped: only t reads them. */
int dp_graph_outer_reserve(struct dp_thread *t, uint32_t idx)
{
	if (likely(idx < t->outer_cap))
		return 0;
	uint32_t cap = t->outer_cap ? t->outer_cap : 1024;
	while (cap <= idx)
		cap *= 2;
	struct dp_pd **n = dp_mem_map(cap * sizeof *n);
	if (!n)
		return -1;
	if (t->h->outer) {
		memcpy(n, t->h->outer, t->outer_cap * sizeof *n);
		munmap(t->h->outer, t->outer_cap * sizeof *n);
		DP_ADD(&dp_rt.mem_bytes, -(uint64_t)(t->outer_cap * sizeof *n));
	}
	t->h->outer = n;
	t->outer_cap = cap;
	return 0;
}

/* Put c into pd's table, doubling it when it would be more than half full. */
int dp_graph_tab_insert(struct dp_thread *t, struct dp_pd *pd, struct dp_csd *c)
{
	if ((pd->n + 1) * 2 > pd->mask + 1) {
		uintptr_t nmask = pd->mask * 2 + 1;
		void *mem = dp_mem_thread(t, dp_tab_words(nmask, 0) * sizeof(struct dp_csd *));
		if (!mem)
			return -1;
		struct dp_csd **nt = dp_tab_init(mem, nmask);
		for (uintptr_t i = 0; i <= pd->mask; i++) {
			struct dp_csd *e = pd->tab[i];
			if (!e)
				continue;
			uintptr_t j = dp_hash(e->site, e->fn) & nmask;
			while (nt[j])
				j = (j + 1) & nmask;
			nt[j] = e;
		}
		pd->tab = nt;   /* the old table is simply abandoned in the arena */
		pd->mask = nmask;
	}
	uintptr_t j = dp_hash(c->site, c->fn) & pd->mask;
	while (pd->tab[j])
		j = (j + 1) & pd->mask;
	pd->tab[j] = c;
	pd->n++;
	return 0;
}

/*
 * The csd of (site, fn) called from pd when its first probe missed: probe
 * on, or create it (with its ps, css and callee pd). Recursion folding for a
 * new csd: if fn's ps has an outermost activation on this thread, the csd
 * adopts that pd; else it gets a new one. NULL when out of memory (lost).
 */
struct dp_csd *dp_graph_tab_find(const struct dp_pd *pd, uintptr_t site, uintptr_t fn)
{
	uintptr_t j = dp_hash(site, fn) & pd->mask;
	struct dp_csd *c;
	while ((c = pd->tab[j])) {
		if (c->site == site && c->fn == fn)
			return c;
		j = (j + 1) & pd->mask;
	}
	return NULL;
}

struct dp_csd *dp_graph_csd_miss(struct dp_thread *t, struct dp_pd *pd, uintptr_t fn, uintptr_t site,
				 uint32_t off)
{
	struct dp_csd *c = dp_graph_tab_find(pd, site, fn);
	if (c)
		return c;
	int saved_errno = errno;
	busy_on(t);
	struct dp_ps *ps = ps_get(fn);
	if (ps && ps->kind == DP_PS_SAMPLED)
		ps_adopt(ps);
	struct dp_css *css = ps ? css_get(site, pd->ps) : NULL;
	struct dp_pd *callee = NULL;
	if (!css || outer_reserve(t, ps->idx) < 0)
		goto fail;
	t->cyg = true;
	callee = dp_graph_active_pd(t, ps);
	bool made = !callee;
	if (!callee && !(callee = pd_new(t, ps)))
		goto fail;
	c = dp_csd_new(t);
	if (!c)
		goto fail;
	if (made)
		callee->parent = c;
	c->site = site;
	c->fn = fn;
	c->callee = callee;
	c->ctab = callee->tab;
	c->psi = ps->idx;
	c->off = off;
	c->css = css;
	c->caller = pd;
	if (tab_insert(t, pd, c) < 0)
		goto fail;
	dp_graph_csd_publish(t, c);
	busy_off(t);
	errno = saved_errno;
	return c;
fail:
	t->lost++;
	busy_off(t);
	errno = saved_errno;
	return NULL;
}

/* Link c, complete with its callee pd, at the end of t's csd list (only t calls this). */
void dp_graph_csd_publish(struct dp_thread *t, struct dp_csd *c)
{
	if (t->csd_tail)
		DP_STORE_REL(&t->csd_tail->next, c);
	else
		DP_STORE_REL(&t->csd_head, c);
	t->csd_tail = c;
	DP_STORE_REL(&t->n_csd, t->n_csd + 1);
}

/* ==== sampled frames (record.c, timer.c) ================================== */

/* The outermost pd of ps among the first n of path, or NULL: recursion
 * folding, as for a call (a procedure active in the context reuses its
 * outermost activation's pd). */
static struct dp_pd *path_active(struct dp_pd *const *path, int n, const struct dp_ps *ps)
{
	for (int i = 0; i < n; i++)
		if (path[i]->ps == ps)
			return path[i];
	return NULL;
}

struct dp_csd *dp_graph_sample_step(struct dp_thread *t, struct dp_pd *const *path, int n,
				    uintptr_t site, uintptr_t fn, struct dp_ps *known, uintptr_t tag)
{
	struct dp_pd *pd = path[n - 1];
	struct dp_csd *c = dp_graph_tab_find(pd, site | tag, fn);
	if (c)
		return c;
	struct dp_ps *ps = known;
	if (!ps) {
		struct dp_ps init = { .kind = DP_PS_SAMPLED };
		ps = dp_graph_ps_get(fn, &init);
	}
	/* the outermost frame has no caller of its own: a callback from the
	 * root; below an instrumented activation, a call into uninstrumented
	 * code */
	struct dp_css cinit = { .kind = !site || pd == t->root ? DP_CSS_CALLBACK
				: tag ? DP_CSS_EXTERNAL : DP_CSS_DYNAMIC,
				/* a site at its callee's entry (the runtime's own
				 * ticks, timer.c) names that callee, not a call */
				.callee = site && site == fn ? ps : NULL };
	struct dp_css *css = ps ? dp_graph_css_get(site, pd->ps, &cinit) : NULL;
	if (!css)
		return NULL;
	struct dp_pd *callee = path_active(path, n, ps);
	bool made = !callee;
	if (!callee && !(callee = dp_graph_pd_new(t, ps)))
		return NULL;
	if (!(c = dp_csd_new(t)))
		return NULL;
	if (made)
		callee->parent = c;
	c->site = site | tag;
	c->fn = fn;
	c->callee = callee;
	c->ctab = callee->tab;
	c->psi = ps->idx;
	c->css = css;
	c->caller = pd;
	if (dp_graph_tab_insert(t, pd, c) < 0)
		return NULL;
	dp_graph_csd_publish(t, c);
	return c;
}

/* ==== the shadow stack ===================================================== */

void dp_graph_tails_end(struct dp_thread *t, uint32_t base, uint32_t upto, bool exit, bool restore)
{
	for (uint32_t i = upto; i > base; i--) {
		struct dp_tailrec *r = &t->tails[i - 1];
		if (r->csd) {
			dp_add_local(exit ? &r->csd->exits : &r->csd->nonlocal, r->n);
		r->csd = NULL;  /* counted: a record left behind (see dp_graph_tails_end) stays inert */
		}
		if (restore && r->psi)      /* tail records are plugin frames' */
			t->h->outer[r->psi] = r->saved;
		r->psi = 0;
	}
}

/* Pop the top frame: its call returned, or was left without returning. */
static void pop_top(struct dp_thread *t, bool returned)
{
	struct dp_frame *f = t->h->top;
	dp_frame_restore_outer(t->h, f);
	t->h->top = f - 1;
	__asm__ volatile("" ::: "memory");
	struct dp_csd *c = f->csd;
	f->sp = DP_SP_DEAD;
	if (returned)
		c->exits++;
	else
		c->nonlocal++;
}

/* Pop the top frame as left without returning. */
static void pop_nonlocal(struct dp_thread *t)
{
	pop_top(t, false);
}

/* Pop the top frame, ended below a -finstrument-functions function that
 * returns: a plugin (ABI v1) callback frame, which that function's code
 * called (v1 has no exit hook for a callback: the next hook at or above it
 * shows that it ended), returned; anything else was left without
 * returning. */
static void pop_under_exit(struct dp_thread *t)
{
	struct dp_frame *f = t->h->top;
	uintptr_t fl = dp_frflags(f);
	if ((fl & DP_FR_CB) && (fl & DP_FR_TAILS)) {    /* tail calls replaced the callback: */
		uint64_t n = t->n_tails;                  /* they returned too */
		dp_graph_tails_end(t, (uint32_t)f->mask, (uint32_t)n, true, true);
		dp_cas_local(&t->n_tails, n, f->mask);
	}
	pop_top(t, fl & DP_FR_CB);
}

/*
 * The frame a hook of the function whose frame address is sp hangs from
 * when t's top is a slot being filled (DP_SP_DEAD, internal.h): the
 * highest complete frame below it, and *nested is set: the hook runs in a
 * signal handler that interrupted the push, deeper than every frame of the
 * interrupted code, and pushes above the slot without touching it. A hook
 * at or above that frame's address (outside the alternate signal stack)
 * cannot be nested so: the interrupted hook was left (siglongjmp out of the
 * handler) and will never complete the slot, so the dead slots are dropped
 * (the call being pushed is counted lost) and the frame is returned as the
 * top. Called busy; returns the top itself when it is complete.
 */
static struct dp_frame *push_in_progress(struct dp_thread *t, uintptr_t sp, bool *nested)
{
	struct dp_frame *p = t->h->top;
	*nested = false;
	if (likely(p->sp != DP_SP_DEAD))
		return p;
	while (p->sp == DP_SP_DEAD)     /* the root frame's sp is UINTPTR_MAX */
		p--;
	if (sp >= p->sp && !t->alt_from && !on_altstack(sp)) {
		t->h->top = p;
		t->lost++;
		return p;
	}
	*nested = true;
	return p;
}

/* ==== the alternate signal stack ========================================== */

/* Whether sp lies on the alternate signal stack the thread is running on. */
static bool on_altstack(uintptr_t sp)
{
	stack_t ss;
	if (sigaltstack(NULL, &ss) != 0 || !(ss.ss_flags & SS_ONSTACK))
		return false;
	return sp >= (uintptr_t)ss.ss_sp && sp - (uintptr_t)ss.ss_sp <= ss.ss_size;
}

/*
 * A handler running on the alternate signal stack (SA_ONSTACK) has frame
 * addresses unrelated to those of the code it interrupted: the alternate
 * stack may even lie above them (a buffer in main's frame), which would make
 * every interrupted frame look stale. So frames pushed there are tracked
 * (t->alt_from, DP_ALT) and compared only with each other; frames of the
 * interrupted stack are never popped from there. Once the thread runs on its
 * ordinary stack again with alternate-stack frames left (siglongjmp out of the
 * handler), those are popped as non-local exits. Called busy, in the slow
 * path, when frames would be popped or alternate-stack frames exist (one
 * sigaltstack call). Returns the lowest frame the staleness checks may pop.
 */
static struct dp_frame *alt_floor(struct dp_thread *t, uintptr_t sp)
{
	bool on = on_altstack(sp);
	if (t->alt_from) {
		if (on)
			return t->stack + t->alt_from;
		while (t->h->top >= t->stack + t->alt_from)
			pop_nonlocal(t);
		t->alt_from = 0;
		__atomic_fetch_and(&t->h->stop, ~(uint32_t)DP_ALT, __ATOMIC_RELAXED);
		return t->stack + 1;
	}
	if (on) {       /* the handler's first frame: the interrupted ones stay */
		t->alt_from = (uint32_t)(t->h->top - t->stack) + 1;
		__atomic_fetch_or(&t->h->stop, DP_ALT, __ATOMIC_RELAXED);
		return t->stack + t->alt_from;
	}
	return t->stack + 1;
}

/* After a pop: the last alternate-stack frame is gone. */
static void alt_check(struct dp_thread *t)
{
	if (t->alt_from && t->h->top < t->stack + t->alt_from) {
		t->alt_from = 0;
		__atomic_fetch_and(&t->h->stop, ~(uint32_t)DP_ALT, __ATOMIC_RELAXED);
	}
}

/* Double t's shadow stack. The old one is left mapped: a writer on another
 * thread may be reading it. */
int dp_graph_grow_stack(struct dp_thread *t)
{
	size_t cap = t->stack_cap * 2;
	struct dp_frame *s = dp_mem_map(cap * sizeof *s);
	if (!s)
		return -1;
	size_t depth = (size_t)(t->h->top - t->stack);
	memcpy(s, t->stack, (depth + 1) * sizeof *s);
	s[0].psi = (uint32_t)cap;
	DP_STORE_REL(&t->stack, s);
	t->stack_cap = cap;
	t->h->stack_last = s + cap - 1;
	t->h->top = s + depth;
	return 0;
}

/*
 * The canonical frame address (CFA) of the function that called a hook,
 * from that hook's own CFA, hook_sp (__builtin_dwarf_cfa() in cyg.c).
 *
 * Exactly, from the call frame information: a one-level unwind with
 * libgcc's _Unwind_Backtrace. In its callback, _Unwind_GetCFA reports the
 * stack pointer of the frame the callback is about (the CFA of the frame
 * below it), so the step that reports hook_sp is in the hook's caller and
 * the next one reports the caller's CFA. A fixed distance from hook_sp
 * would not do: GCC calls a hook with a call's stack arguments still pushed
 * (deferred pop), so two hooks of one function, even the enter and exit of
 * one inlined function, can sit at different distances from its CFA; and
 * the first stack word above hook_sp that holds the return address may be
 * a copy of it the function keeps in its frame.
 *
 * Safe in a signal handler and without malloc (libprof interposes it): with
 * GCC 12's libgcc and glibc 2.35 or later, finding a function's FDE is
 * glibc's lock-free _dl_find_object, and the rest reads the stack and the
 * unwind tables; libgcc's one-time setup (a pthread_once) and the lazy
 * binding of these symbols are done by dp_graph_cfa_init() at start-up.
 * (A program that links libunwind ahead of libgcc_s gets libunwind's
 * _Unwind_Backtrace instead, which gives the same answers more slowly.)
 * It costs about a microsecond (a few frames, each an FDE lookup and a
 * CFA program run), which only the slow paths pay: the fast path checks
 * the offset the last slow path kept in the csd (off).
 */
struct cfa_walk {
	uintptr_t hook_sp;
	uintptr_t cfa;              /* out: the caller's CFA; 0 if not found */
	unsigned frames;
	bool in_caller;             /* the walk has reached the hook's caller */
};

#define CFA_WALK_FRAMES 16      /* libprof's own frames and the hook's, at most */

static _Unwind_Reason_Code cfa_step(struct _Unwind_Context *ctx, void *arg)
{
	struct cfa_walk *w = arg;
	uintptr_t sp = (uintptr_t)_Unwind_GetCFA(ctx);
	if (w->in_caller) {
		if (sp > w->hook_sp)
			w->cfa = sp;
		return _URC_END_OF_STACK;
	}
	if (sp == w->hook_sp)
		w->in_caller = true;
	else if (sp > w->hook_sp || ++w->frames > CFA_WALK_FRAMES)
		return _URC_END_OF_STACK;   /* passed it: not our stack's hook */
	return _URC_NO_REASON;
}

/* A static program: GCC links it without .eh_frame_hdr, and libgcc's
 * unwinder, finding no frame information for itself there, aborts. */
static bool no_unwinder;

/* The exact CFA of the hook's caller; 0 when its frame has no call frame
 * information (code built with -fno-asynchronous-unwind-tables) or the
 * unwinder cannot be used. */
static __attribute__((noinline)) uintptr_t unwound_cfa(uintptr_t hook_sp)
{
	if (no_unwinder)
		return 0;
	struct cfa_walk w = { .hook_sp = hook_sp };
	(void)_Unwind_Backtrace(cfa_step, &w);
	return w.cfa;
}

/* One walk at start-up, so that no hook (in a signal handler, say) runs
 * libgcc's one-time setup or the loader's lazy binding of the unwinder. */
void dp_graph_cfa_init(void)
{
	if (!getauxval(AT_BASE)) {
		no_unwinder = true;     /* frame addresses are searched for instead */
		return;
	}
	(void)unwound_cfa(0);
}

/*
 * Without call frame information: just above the return address, the
 * first stack word from hook_sp up that holds site (a copy of the return
 * address in the frame is taken for it, which the first use says on
 * stderr). The search reads at most 64 KiB of the function's own frame
 * (the return address bounds it, so it never leaves the stack). A bigger
 * frame gets hook_sp + 8: still above every callee's frame address and
 * below its caller's, so nesting and longjmp resync stay right; only a
 * stale sibling with a smaller frame may then go unnoticed.
 */
#define CFA_SCAN_BYTES (64 * 1024)
static uintptr_t scanned_cfa(const struct dp_thread *t, uintptr_t hook_sp, uintptr_t site)
{
	static int said;
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		dp_log("instrumented code without call frame information (-fno-asynchronous-unwind-tables?):",
		       "its frame addresses are searched for on the stack, where a copy of a return address",
		       "can make calls show as lost events and non-local exits");
	uintptr_t end = hook_sp + CFA_SCAN_BYTES;
	if (t->stack_hi && t->stack_hi > hook_sp && end > t->stack_hi)
		end = t->stack_hi;
	for (const uintptr_t *p = (const uintptr_t *)hook_sp; (uintptr_t)(p + 1) <= end; p++)
		if (*p == site)
			return (uintptr_t)(p + 1);
	return hook_sp + 8;
}

static uintptr_t frame_cfa(const struct dp_thread *t, uintptr_t hook_sp, uintptr_t site)
{
	uintptr_t cfa = unwound_cfa(hook_sp);
	return cfa ? cfa : scanned_cfa(t, hook_sp, site);
}

/*
 * Everything the enter hook's fast path does not handle: the thread's first
 * hook, re-entry while the runtime is busy, a stopped runtime, a new csd, a
 * frame laid out differently from last time, stale frames left by longjmp
 * (dp_frame_stale), a full stack.
 */
DP_COLD void dp_graph_enter_slow(uintptr_t fn, uintptr_t site, uintptr_t hook_sp, uintptr_t at)
{
	struct dp_thread *t = dp_self;
	if (!t && !(t = dp_thread_init()))
		return;
	if (t->h->stop & ~(uint32_t)DP_ALT) {
		if (!(t->h->stop & (DP_STOPPED | DP_EXITED)))
			t->lost++;
		return;
	}
	int saved_errno = errno;
	uintptr_t sp = frame_cfa(t, hook_sp, site);
	busy_on(t);
	bool nested;
	struct dp_frame *p = push_in_progress(t, sp, &nested);
	if (!nested && (t->alt_from || dp_frame_stale(t->h->top, site, sp, at))) {
		struct dp_frame *floor = alt_floor(t, sp);
		while (t->h->top >= floor && t->h->top->sp != DP_SP_DEAD &&
		       dp_frame_stale(t->h->top, site, sp, at))
			pop_nonlocal(t);
		p = push_in_progress(t, sp, &nested);   /* the pops may uncover one */
	} else if (nested && !t->alt_from) {
		(void)alt_floor(t, sp);     /* a handler on the alternate stack: its first frame */
	}
	size_t pi = (size_t)(p - t->stack);
	if (t->h->top == t->h->stack_last && dp_graph_grow_stack(t) < 0) {
		t->lost++;
		busy_off(t);
		errno = saved_errno;
		return;
	}
	busy_off(t);
	struct dp_frame *f = t->h->top;
	p = t->stack + pi;          /* the caller: f, or below f when f is being filled */
	struct dp_pd *pd = p->pd;
	if (p->tab != pd->tab) {    /* refresh caches left stale by table growth */
		p->tab = pd->tab;
		if (p->csd->callee == pd)
			p->csd->ctab = pd->tab;
	}
	struct dp_csd *c = pd->tab[dp_hash(site, fn) & pd->mask];
	if (!c || c->site != site || c->fn != fn) {
		c = dp_graph_csd_miss(t, pd, fn, site, (uint32_t)(sp - hook_sp));
		if (!c) {
			errno = saved_errno;
			return;
		}
		p->tab = pd->tab;
		if (p->csd->callee == pd)
			p->csd->ctab = pd->tab;
	}
	c->guess = ((const uintptr_t *)sp)[-1] != site;    /* no CFI, and a frame too big to search */
	c->off = (uint32_t)(sp - hook_sp);  /* the layout seen last is the likeliest next */
	f[1].sp = sp;               /* first: see dp_graph_refill */
	__asm__ volatile("" ::: "memory");
	f[1].fn = fn;
	f[1].csd = c;
	f[1].pd = c->callee;
	f[1].off = (uint32_t)(sp - hook_sp);
	f[1].tab = c->ctab = c->callee->tab;
	f[1].at = at;
	__asm__ volatile("" ::: "memory");
	DP_STRESS_AT(DP_ST_SLOW_FILLED);
	t->h->top = f + 1;
	__asm__ volatile("" ::: "memory");
	DP_STRESS_AT(DP_ST_SLOW_PUSHED);
	if (f[1].sp != sp)
		dp_graph_refill(f + 1, sp, fn, c, at);
	errno = saved_errno;
}

/*
 * Write frame f again: a signal handler's instrumented code ran between the
 * moment f's filling began (with sp, written first) and the moment it was
 * pushed, and used the same slot, which its pops left DP_SP_DEAD. f is
 * pushed already, so a handler landing now pushes above it, and sees it as
 * a push in progress (internal.h) until sp, written last, completes it.
 */
DP_COLD void dp_graph_refill(struct dp_frame *f, uintptr_t sp, uintptr_t fn, struct dp_csd *c, uintptr_t at)
{
	f->sp = DP_SP_DEAD;         /* already: the handler's pops left it so */
	__asm__ volatile("" ::: "memory");
	f->fn = fn;
	f->csd = c;
	f->pd = c->callee;
	f->off = c->off;
	f->tab = c->ctab;
	DP_STRESS_AT(DP_ST_REFILL);     /* a handler's hook probes this tab (graph.h) */
	f->at = at;
	__asm__ volatile("" ::: "memory");
	f->sp = sp;                 /* last: the frame is complete */
}

#ifdef DP_STRESS
/*
 * A stress build's hook point (graph.h): raise SIGALRM here if
 * $DEEPPROF_STRESS names point and the program has a handler for it; never
 * from within a handler the raise itself started.
 */
static __thread volatile sig_atomic_t stress_in;    /* volatile: a handler reads it */
void dp_stress(unsigned point)
{
	static unsigned long mask = ~0ul;
	if (mask == ~0ul) {
		const char *s = getenv("DEEPPROF_STRESS");
		mask = s ? strtoul(s, NULL, 0) : 0;
	}
	if (stress_in || !(mask >> point & 1))
		return;
	static __thread unsigned long visits[16];
	if (point >= DP_ST_V1_PUSH && point < 16 && visits[point]++ % 2)
		return;                 /* v1 retries a push that a handler hit: not again */
	struct sigaction sa;
	if (sigaction(SIGALRM, NULL, &sa) != 0 || sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN)
		return;
	/* not where SIGALRM is blocked (in the handler itself, or in a window
	 * the runtime closes to signals): the signal would wait, and come
	 * after stress_in is cleared, from a handler whose hooks raise it
	 * again, without end */
	sigset_t now;
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &now, _NSIG / 8) != 0 || sigismember(&now, SIGALRM))
		return;
	int saved_errno = errno;
	stress_in = 1;
	raise(SIGALRM);             /* the handler runs before raise returns */
	if (point >= DP_ST_V1_PUSH && getenv("DEEPPROF_STRESS_TWICE"))
		raise(SIGALRM);     /* a second handler right after the first */
	stress_in = 0;
	errno = saved_errno;
}
#endif

/*
 * The exit hook's slow path: frames deeper than fn's frame were left by
 * longjmp and are popped as non-local exits; then fn's frame is popped as a
 * return. An exit whose enter was never seen (ignored while busy) is lost.
 * fn's frame address is found again (frame_cfa's unwind), not taken as
 * hook_sp plus the offset its enter hook had: an exit hook may run with
 * fewer stack arguments pushed than the enter hook did (gawk's do_print
 * inlines DEREF so), which puts that sum above fn's frame, and fn's frame
 * would be popped as left by longjmp and its exit lost.
 */
DP_COLD void dp_graph_exit_slow(uintptr_t fn, uintptr_t site, uintptr_t hook_sp, bool tail)
{
	struct dp_thread *t = dp_self;
	if (!t || (t->h->stop & ~(uint32_t)DP_ALT))
		return;
	int saved_errno = errno;
	uintptr_t sp = tail ? hook_sp : unwound_cfa(hook_sp);
	if (!sp) {      /* no call frame information: the enter's offset if the return address is there, else a search */
		struct dp_frame *top = t->h->top;
		if (top != t->stack && top->sp != DP_SP_DEAD && top->fn == fn)
			sp = hook_sp + top->off;
		if (!sp || ((const uintptr_t *)sp)[-1] != site)
			sp = scanned_cfa(t, hook_sp, site);
	}
	busy_on(t);
	bool nested;
	(void)push_in_progress(t, sp, &nested);
	if (!nested) {
		struct dp_frame *floor = t->alt_from ? alt_floor(t, sp) : t->stack + 1;
		while (t->h->top >= floor && t->h->top->sp < sp && t->h->top->sp != DP_SP_DEAD)
			pop_under_exit(t);
		(void)push_in_progress(t, sp, &nested);
	}
	struct dp_frame *f = t->h->top;
	if (f != t->stack && f->sp != DP_SP_DEAD && f->fn == fn) {
		struct dp_csd *c = f->csd;
		dp_frame_restore_outer(t->h, f);
		t->h->top = f - 1;
		__asm__ volatile("" ::: "memory");
		f->sp = DP_SP_DEAD;
		c->exits++;
	} else {        /* its enter was not seen (and when nested: a handler's, in a push) */
		t->lost++;
	}
	alt_check(t);
	busy_off(t);
	errno = saved_errno;
}

/*
 * Count every activation on t's stack as a non-local exit (pthread_exit,
 * exit() or a fatal signal below them, the final profile). When t is the
 * calling thread the stack is emptied; another thread's stack is only read.
 */
void dp_graph_unwind_all(struct dp_thread *t, bool returned)
{
	if (DP_LOAD(&dp_rt.abi2))
		dp_plugin2_unwind(t, returned);
	struct dp_frame *lo, *hi;
	if (!dp_graph_frames(t, &lo, &hi))
		return;
	uint64_t now = t->loop_ticks ? DP_LOAD(t->loop_ticks) : 0;
	if (now != t->h->loops_seen)   /* back-edges since the last hook: the top frame's */
		hi->csd->loops += dp_loops_take(t->h, now);
	uint32_t upto = (uint32_t)DP_LOAD(&t->n_tails);
	for (struct dp_frame *f = hi; f >= lo; f--) {
		if (f->sp == DP_SP_DEAD)        /* a push in progress: not an activation yet */
			continue;
		struct dp_csd *c = f->csd;
		/* Plugin frames: a callback on top returned into uninstrumented
		 * code (no hook sees that), as did a tail call above it. */
		if (!(returned && (f->at & DP_FR_PLUGIN) &&
		      ((f->at & DP_FR_CB) || (f->at & (DP_FR_PENDING | DP_FR_TAIL)) == (DP_FR_PENDING | DP_FR_TAIL))))
			returned = false;
		if (c != &t->outside && c->callee) {
			if (returned)
				c->exits++;
			else
				c->nonlocal++;
		}
		if ((f->at & DP_FR_PLUGIN) && (f->at & DP_FR_TAILS) && f->mask <= upto) {
			dp_graph_tails_end(t, (uint32_t)f->mask, upto, returned, false);
			upto = (uint32_t)f->mask;
		}
	}
	if (t == dp_self) {
		for (struct dp_frame *f = hi; f >= lo; f--) {
			if (f->sp != DP_SP_DEAD)
				dp_frame_restore_outer(t->h, f);
			f->sp = DP_SP_DEAD;
		}
		t->h->top = t->stack;
		t->regions = 0;
		t->n_tails = 0;
	}
}

/*
 * The activations on t's stack, bottom lo to top hi, read consistently
 * even while t runs and grows its stack (each stack array carries its own
 * capacity in its root frame). False when there are none (or t was caught
 * switching arrays). t must not have ended: its top lives in its TLS.
 */
bool dp_graph_frames(struct dp_thread *t, struct dp_frame **lo, struct dp_frame **hi)
{
	struct dp_frame *base = DP_LOAD_ACQ(&t->stack);
	if (!base)
		return false;   /* an ended thread's (runtime.c: keep_spare) */
	size_t cap = base[0].psi;
	struct dp_frame *top = DP_LOAD(&t->h->top);
	if (top <= base || top >= base + cap)
		return false;
	*lo = base + 1;
	*hi = top;
	return true;
}
