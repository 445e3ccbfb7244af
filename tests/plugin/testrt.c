/*
 * testrt.c — a tiny runtime implementing deepprof-abi.h just enough for
 * tests: prints each TU's tables when it registers and, when it
 * unregisters, how often each function was entered, each site called and
 * returned, and the back-edge ticks charged to each function.
 * Output goes to $DP_TEST_OUT (appended) or stderr. Part of deepprof. MIT licence.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deepprof-abi.h"

_Static_assert(sizeof(struct dp_ps_static) == 32, "ps layout");
_Static_assert(sizeof(struct dp_css_static) == 48, "css layout");
_Static_assert(sizeof(struct dp_tu) == 88, "tu layout");
/* deep-data.md tells readers where these are in a module file */
_Static_assert(offsetof(struct dp_css_static, index) == 36, "css index offset");
_Static_assert(offsetof(struct dp_css_static, tu_id) == 40, "css tu_id offset");

#define MAXTU 16
#define MAXN 4096
#define MAXDEPTH 4096

struct tu_counts {
	struct dp_tu *tu;
	unsigned long enters[MAXN], backedges[MAXN], calls[MAXN], returns[MAXN];
	unsigned long indirect_null[MAXN];
};

static struct tu_counts counts[MAXTU];
static int n_tu;
/* The shadow stack: the function running at each depth. */
static struct { struct tu_counts *t; uint32_t ps; } stack[MAXDEPTH];
static int depth;
/* The calls in progress: the site and the shadow stack depth when made. */
static struct { struct dp_tu *tu; uint32_t site; int depth; } pending[MAXDEPTH];
static int n_calls;
static unsigned long stray_backedges;

__thread uint64_t dp_loop_ticks;

/* Charges the back-edges counted inline since the last hook. */
static void settle(void)
{
	if (!dp_loop_ticks)
		return;
	if (depth > 0 && depth <= MAXDEPTH)
		stack[depth - 1].t->backedges[stack[depth - 1].ps] += dp_loop_ticks;
	else
		stray_backedges += dp_loop_ticks;
	dp_loop_ticks = 0;
}

struct tu_counts;
static void settle_v2(struct tu_counts *t);
static unsigned long v2_callbacks, v2_binds, v2_call_slow, v2_indirect_slow;   /* slow paths taken */

static FILE *out(void)
{
	static FILE *f;
	if (!f) {
		const char *p = getenv("DP_TEST_OUT");
		f = p ? fopen(p, "a") : NULL;
		if (!f)
			f = stderr;
		setvbuf(f, NULL, _IOLBF, 0);
	}
	return f;
}

static const char *base(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "?";
}

static struct tu_counts *find(struct dp_tu *tu)
{
	for (int i = 0; i < n_tu; i++)
		if (counts[i].tu == tu)
			return &counts[i];
	if (n_tu == MAXTU || tu->n_ps > MAXN || tu->n_css > MAXN) {
		fprintf(out(), "testrt: too many TUs or sites\n");
		exit(99);
	}
	counts[n_tu].tu = tu;
	return &counts[n_tu++];
}

static const char *const kinds[] = { "dynamic", "normal", "indirect", "external" };

void dp_register_tu(struct dp_tu *tu)
{
	FILE *f = out();
	find(tu);
	if (tu->abi_version != 1 && tu->abi_version != 2) {
		fprintf(f, "tu %s: abi %u unknown\n", base(tu->file), tu->abi_version);
		return;
	}
	fprintf(f, "tu %s abi=%u flags=%u n_ps=%u n_css=%u\n", base(tu->file), tu->abi_version,
		tu->flags, tu->n_ps, tu->n_css);
	for (uint32_t i = 0; i < tu->n_ps; i++) {
		const struct dp_ps_static *p = &tu->ps[i];
		fprintf(f, "ps %u %s %s:%u flags=%u sites=%u+%u\n", i, p->name, base(p->file), p->line,
			p->flags, p->first_css, p->n_css);
	}
	for (uint32_t i = 0; i < tu->n_css; i++) {
		const struct dp_css_static *c = &tu->css[i];
		fprintf(f, "css %u %s->%s %s %s:%u:%u callee_ps=%u flags=%u%s\n", c->index,
			tu->ps[c->caller].name, c->callee ? c->callee : "*", kinds[c->kind & 3],
			base(c->file), c->line, c->col, c->callee_ps, c->flags,
			c->tu_id == tu->tu_id ? "" : " BAD-TU-ID");
	}
}

void dp_unregister_tu(struct dp_tu *tu)
{
	FILE *f = out();
	struct tu_counts *t = find(tu);
	settle();
	if (tu->abi_version == 2)
		settle_v2(t);
	fprintf(f, "counts %s\n", base(tu->file));
	for (uint32_t i = 0; i < tu->n_ps; i++)
		if (t->enters[i] || t->backedges[i])
			fprintf(f, "  enter %s %lu backedges %lu\n", tu->ps[i].name, t->enters[i],
				t->backedges[i]);
	for (uint32_t i = 0; i < tu->n_css; i++)
		if (t->calls[i])
			fprintf(f, "  site %u %s->%s calls %lu returns %lu\n", i,
				tu->ps[tu->css[i].caller].name,
				tu->css[i].callee ? tu->css[i].callee : "*", t->calls[i], t->returns[i]);
	if (stray_backedges)
		fprintf(f, "  stray backedges %lu\n", stray_backedges);
	if (tu->abi_version == 2)
		fprintf(f, "  slow paths: %lu binds, %lu callbacks, %lu new csds, %lu indirect\n", v2_binds,
			v2_callbacks, v2_call_slow, v2_indirect_slow);
}

void dp_abi_enter(struct dp_tu *tu, uint32_t ps)
{
	struct tu_counts *t = find(tu);
	settle();
	t->enters[ps]++;
	if (depth < MAXDEPTH) {
		stack[depth].t = t;
		stack[depth].ps = ps;
	}
	depth++;
}

void dp_abi_call(struct dp_tu *tu, uint32_t site, void *fn)
{
	struct tu_counts *t = find(tu);
	settle();
	t->calls[site]++;
	if (tu->css[site].kind == DP_CSS_KIND_INDIRECT && !fn)
		t->indirect_null[site]++;
	if (n_calls < MAXDEPTH) {
		pending[n_calls].tu = tu;
		pending[n_calls].site = site;
		pending[n_calls].depth = depth;
	}
	n_calls++;
}

/* Pops every activation entered since the call of this site: calls made
 * in tail position above it (which have no return hook) end with it. */
void dp_abi_return(struct dp_tu *tu, uint32_t site)
{
	struct tu_counts *t = find(tu);
	settle();
	t->returns[site]++;
	int i = n_calls < MAXDEPTH ? n_calls : MAXDEPTH;
	while (--i >= 0)
		if (pending[i].tu == tu && pending[i].site == site)
			break;
	if (i >= 0) {
		depth = pending[i].depth;
		n_calls = i;
	}
}

void dp_abi_backedge(void)
{
	if (depth > 0 && depth <= MAXDEPTH)
		stack[depth - 1].t->backedges[stack[depth - 1].ps]++;
	else
		stray_backedges++;
}

/* ---- ABI v2: the inline fast path's slow paths and state ----
 * Nodes are never freed; no recursion folding (a new pd per csd): enough
 * for small test programs. At unregistration the counts of the nodes are
 * folded into the v1 arrays, so both ABIs print the same report. */

_Static_assert(offsetof(struct dp_csd_hot, calls) == 0, "csd calls");
_Static_assert(offsetof(struct dp_csd_hot, loop_cscs) == 8, "csd loop");
_Static_assert(offsetof(struct dp_csd_hot, callee) == 16, "csd callee");
_Static_assert(offsetof(struct dp_csd_hot, target) == 24, "csd target");
_Static_assert(offsetof(struct dp_csd_hot, exits) == 40, "csd exits");
_Static_assert(offsetof(struct dp_pd_hot, ps) == 0, "pd ps");
_Static_assert(offsetof(struct dp_pd_hot, slot) == 16, "pd slot");

struct pdx {
	struct dp_tu *tu;
	uint32_t psi;
	struct dp_pd_hot hot;           /* last: its slot[] follows */
};
struct csdx {
	struct dp_csd_hot hot;
	struct dp_tu *tu;               /* the site's TU; NULL for a callback csd */
	uint32_t site;
	const void *cb_from;            /* callback csds: the csd current when entered */
	struct csdx *all;               /* every csd, for the report */
	struct csdx *tfirst, *tnext;    /* indirect sites: the slot's csds, one per target */
	uint64_t *ctr;                  /* direct sites: their counters in the pd (DP_PD_COUNT) */
};

static struct dp_pd_hot unbound_pd, external_pd;   /* ps NULL: never match */
static struct dp_csd_hot root_csd = { .callee = &unbound_pd, .magic = DP_CSD_MAGIC };
static struct dp_csd_hot null_csd = { .callee = &unbound_pd, .magic = DP_CSD_MAGIC,
				       .next = (uintptr_t)&null_csd + 1 };
__thread uintptr_t dp_cur = (uintptr_t)&root_csd;
static struct csdx *all_csds;

static struct pdx *new_pd(struct dp_tu *tu, uint32_t psi)
{
	const struct dp_ps_static *ps = &tu->ps[psi];
	/* below it, two counters per slot (deepprof-abi.h, DP_PD_COUNT) */
	char *m = calloc(1, 16 * (ps->n_css + 1) + sizeof(struct pdx) + ps->n_css * sizeof(void *));
	if (!m)
		abort();
	struct pdx *p = (struct pdx *)(m + 16 * (ps->n_css + 1));
	for (uint32_t i = 0; i < ps->n_css; i++)      /* calls from all ones: the first goes slow */
		*(uint64_t *)((char *)&p->hot + DP_PD_COUNT(i)) = ~(uint64_t)0;
	p->tu = tu;
	p->psi = psi;
	p->hot.ps = ps;
	p->hot.n_slot = ps->n_css;
	for (uint32_t i = 0; i < ps->n_css; i++)     /* indirect slots never hold NULL */
		if (tu->css[ps->first_css + i].kind == DP_CSS_KIND_INDIRECT)
			p->hot.slot[i] = (uintptr_t)&null_csd | 1;
	return p;
}

/* The ABI's rule: callee_ps follows callee (a prologue checks it). */
static void bind(struct dp_csd_hot *h, struct dp_pd_hot *p)
{
	h->callee = p;
	h->callee_ps = p->ps;
}

static struct csdx *new_csd(struct dp_tu *tu, uint32_t site, const void *target)
{
	struct csdx *c = calloc(1, sizeof *c);
	if (!c)
		abort();
	c->tu = tu;
	c->site = site;
	c->hot.target = target;
	c->hot.magic = DP_CSD_MAGIC;
	bind(&c->hot, tu && tu->css[site].kind == DP_CSS_KIND_EXTERNAL ? &external_pd : &unbound_pd);
	c->all = all_csds;
	all_csds = c;
	return c;
}

#define PDX(h) ((struct pdx *)((char *)(h) - offsetof(struct pdx, hot)))

void *dp_abi_call_slow(struct dp_tu *tu, uint32_t site, void *fn, void *pd_hot)
{
	struct pdx *pd = PDX(pd_hot);
	v2_call_slow++;
	uint32_t slot = site - tu->ps[pd->psi].first_css;
	/* a slot holds its csd | 1, which the site stores in dp_cur as it is */
	uintptr_t old = pd->hot.slot[slot];
	struct dp_csd_hot *head = (struct dp_csd_hot *)(old & ~(uintptr_t)1);
	if (fn) {
		v2_indirect_slow++;
		/* the ABI's rule: the slot's csd for the target becomes the
		 * slot's, the slot's old csd its next (what the site tries
		 * before calling here) */
		for (struct csdx *c = head != &null_csd ? ((struct csdx *)head)->tfirst : NULL; c; c = c->tnext)
			if (c->hot.target == fn) {
				if (&c->hot != head)
					c->hot.next = old;
				pd->hot.slot[slot] = (uintptr_t)&c->hot | 1;  /* the last target first */
				return (void *)pd->hot.slot[slot];
			}
	}
	struct csdx *c = new_csd(tu, site, fn);
	if (fn) {
		c->hot.next = old;      /* never 0: a csd of the slot, or null_csd */
		struct csdx *first = head != &null_csd ? ((struct csdx *)head)->tfirst : c;
		c->tfirst = first;
		if (first != c) {
			c->tnext = first->tnext;
			first->tnext = c;
		}
	}
	/* the ABI's rule: a direct site whose callee is a procedure of its TU
	 * gets a csd bound to it (an inlined callee's prologue does not check;
	 * a leaf without a prologue is counted by its sites, not bound here) */
	const struct dp_css_static *cs = &tu->css[site];
	if (!fn && cs->kind == DP_CSS_KIND_NORMAL && cs->callee_ps &&
	    !(cs->flags & DP_CSS_LEAF_CALLEE)) {
		bind(&c->hot, &new_pd(tu, cs->callee_ps - 1)->hot);
		v2_binds++;
	}
	pd->hot.slot[slot] = (uintptr_t)&c->hot | 1;
	return (void *)pd->hot.slot[slot];
}

/* A direct site's first call through a pd: its slot's csd counts in the
 * slot's counters from now on (deepprof-abi.h) */
void *dp_abi_count_slow(struct dp_tu *tu, uint32_t site, void *fn, void *pd_hot)
{
	(void)fn;
	struct pdx *pd = PDX(pd_hot);
	uint32_t slot = site - tu->ps[pd->psi].first_css;
	uint64_t *k = (uint64_t *)((char *)pd_hot + DP_PD_COUNT(slot));
	uintptr_t v = pd->hot.slot[slot] ? pd->hot.slot[slot] : (uintptr_t)dp_abi_call_slow(tu, site, NULL, pd_hot);
	struct csdx *c = (struct csdx *)(v & ~(uintptr_t)1);
	k[0] += 1;
	if (!c->ctr)
		c->ctr = k;
	return (void *)v;
}

/* A devirtualized site (fn is procedure psi of tu): fn's csd, bound to psi. */
/* a site with no slot (libprof's: the same path, a plain call) */
void *dp_abi_call_noslot(struct dp_tu *tu, uint32_t site, void *fn, void *pd_hot)
{
	return dp_abi_call_slow(tu, site, fn, pd_hot);
}

void *dp_abi_call_bound(struct dp_tu *tu, uint32_t site, void *fn, void *pd_hot, uint32_t psi)
{
	uintptr_t v = (uintptr_t)dp_abi_call_slow(tu, site, fn, pd_hot);
	struct dp_csd_hot *c = (struct dp_csd_hot *)(v & ~(uintptr_t)1);
	if (c->callee == &unbound_pd) {
		bind(c, &new_pd(tu, psi)->hot);
		v2_binds++;
	}
	return (void *)v;
}

void *dp_abi_enter_slow(struct dp_tu *tu, uint32_t psi, uintptr_t cur)
{
	struct dp_csd_hot *me = (struct dp_csd_hot *)(cur & ~(uintptr_t)1);
	if ((cur & 1) && me->callee == &unbound_pd && me != &root_csd) {
		bind(me, &new_pd(tu, psi)->hot);        /* first call through this csd */
		v2_binds++;
		dp_cur = (uintptr_t)me;
		return me;
	}
	/* a callback: entered from uninstrumented code, or from the start */
	for (struct csdx *c = all_csds; c; c = c->all)
		if (!c->tu && c->cb_from == me && PDX(c->hot.callee)->tu == tu &&
		    PDX(c->hot.callee)->psi == psi) {
			c->hot.calls++;
			dp_cur = (uintptr_t)&c->hot;
			v2_callbacks++;
			return &c->hot;
		}
	struct csdx *c = new_csd(NULL, 0, NULL);
	c->cb_from = me;
	bind(&c->hot, &new_pd(tu, psi)->hot);
	c->hot.calls = 1;
	dp_cur = (uintptr_t)&c->hot;
	v2_callbacks++;
	return &c->hot;
}

/* A part GCC split off procedure psi found dp_cur naming a csd of another
 * procedure: only a signal handler can make that happen, and no program of
 * this suite has one, so it is the plugin's mistake. */
void *dp_abi_resume(struct dp_tu *tu, uint32_t psi, uintptr_t cur)
{
	fprintf(stderr, "testrt: dp_abi_resume(%s, ps %u, %#lx): a part ran outside its activation\n",
		tu->file ? tu->file : "?", psi, (unsigned long)cur);
	exit(3);
}

#ifdef DP_ABI_REGS_ENTRY
/* as the optimised code calls them (deepprof-abi.h) */
DP_ABI_REGS_ENTRY(dp_abi_enter_slow_regs, dp_abi_enter_slow);
DP_ABI_REGS_ENTRY(dp_abi_call_slow_regs, dp_abi_call_slow);
DP_ABI_REGS_ENTRY(dp_abi_count_slow_regs, dp_abi_count_slow);
DP_ABI_REGS_ENTRY(dp_abi_resume_regs, dp_abi_resume);
#endif

/* After setjmp & co returned: a longjmp landed when dp_cur names another
 * csd than me; the test runtime only puts dp_cur back. */
void dp_abi_land(struct dp_tu *tu, void *me)
{
	(void)tu;
	dp_cur = (uintptr_t)me;
}

/* Folds the v2 nodes of `t` into its v1 counters: calls per site, entries
 * (calls of csds bound to a function) and back-edges per function. */
static void settle_v2(struct tu_counts *t)
{
	for (struct csdx *c = all_csds; c; c = c->all) {
		uint64_t calls = c->hot.calls + (c->ctr ? c->ctr[0] : 0);
		if (c->tu == t->tu)
			t->calls[c->site] += calls;
		struct dp_pd_hot *callee = c->hot.callee;
		if (callee && callee->ps && PDX(callee)->tu == t->tu) {
			t->enters[PDX(callee)->psi] += calls;
			t->backedges[PDX(callee)->psi] += c->hot.loop_cscs;
		}
	}
}

/* ---- -finstrument-functions hooks, for deepprof-cc --deepprof-mode=cyg ---- */

static unsigned long cyg_enters, cyg_exits;

void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn, (void)site;
	cyg_enters++;
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn, (void)site;
	cyg_exits++;
}

__attribute__((destructor)) static void cyg_report(void)
{
	if (cyg_enters || cyg_exits)
		fprintf(out(), "cyg enters %lu exits %lu\n", cyg_enters, cyg_exits);
}
