/*
 * startup.c — from a read profile to the "deep" structure: cliques, then
 * total (own + descendants) costs bottom-up over the cliques, then the
 * per-procedure and per-call-site totals in one walk down the clique tree.
 * Part of deepprof's analyses library. MIT licence.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "startup.h"

/* --- private prototypes ------------------------------------------------ */

static int fail(struct dpa_error *err, const struct dpa_profile *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static uint64_t tier_get(const struct dpa_deep_tier *t, uint32_t c);
static int tier_set(struct dpa_deep_tier *t, uint32_t c, uint64_t v);
static uint64_t csd_total_slot(const struct dpa_deep *d, uint32_t x, enum dpa_measure m, int s);
static int clique_totals(struct dpa_deep *d, struct dpa_error *err);
static int static_totals(struct dpa_deep *d, struct dpa_error *err);

/* ===================================================================== */

static int fail(struct dpa_error *err, const struct dpa_profile *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err)
		return -1;
	n = snprintf(err->msg, sizeof(err->msg), "%s: ", p && p->path ? p->path : "profile");
	if (n < 0 || (size_t)n >= sizeof(err->msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
	va_end(ap);
	return -1;
}

static void *zalloc(struct dpa_deep *d, size_t n, size_t size)
{
	void *a = calloc(n ? n : 1, size);

	if (a)
		d->bytes += n * size;
	return a;
}

/* ===================================================================== */
/* { ==== per-clique totals: 32 bits each, wider values aside ==== */

static uint64_t tier_get(const struct dpa_deep_tier *t, uint32_t c)
{
	uint32_t lo = 0, hi = t->n_over;

	if (t->lo[c] != UINT32_MAX)
		return t->lo[c];
	/* over_id is descending (cliques are stored from n down to 1) */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->over_id[mid] == c)
			return t->over_val[mid];
		if (t->over_id[mid] > c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;       /* not reached: every UINT32_MAX has its entry */
}

/* Cliques must be set in descending id order. Returns 0 or -1 (out of memory). */
static int tier_set(struct dpa_deep_tier *t, uint32_t c, uint64_t v)
{
	if (v < UINT32_MAX) {
		t->lo[c] = (uint32_t)v;
		return 0;
	}
	if (t->n_over == t->cap_over) {
		uint32_t ncap = t->cap_over ? t->cap_over * 2 : 64;
		uint32_t *ni = realloc(t->over_id, (size_t)ncap * sizeof(*ni));
		uint64_t *nv;

		if (!ni)
			return -1;
		t->over_id = ni;
		nv = realloc(t->over_val, (size_t)ncap * sizeof(*nv));
		if (!nv)
			return -1;
		t->over_val = nv;
		t->cap_over = ncap;
	}
	t->lo[c] = UINT32_MAX;
	t->over_id[t->n_over] = c;
	t->over_val[t->n_over] = v;
	t->n_over++;
	return 0;
}

/* } ==== */

/* ===================================================================== */
/* { ==== csd, pd and clique totals ==== */

/* floor(rest * w / wsum), exactly */
static uint64_t share(uint64_t rest, uint64_t w, uint64_t wsum)
{
	return (uint64_t)(((unsigned __int128)rest * w) / wsum);
}

/* An entry's weight in its clique's shares: its calls, or 1 if no entry called. */
static uint64_t entry_weight(const struct dpa_deep *d, uint32_t i, uint32_t x)
{
	return d->multi_w[i] ? d->p->csd[x].m[DPA_CALLS] : 1;
}

static uint64_t entry_wsum(const struct dpa_deep *d, uint32_t i)
{
	return d->multi_w[i] ? d->multi_w[i] : d->cl.multi[i].n;
}

/* The total of csd x for measure m, stored in slot s (>= 0). */
static uint64_t csd_total_slot(const struct dpa_deep *d, uint32_t x, enum dpa_measure m, int s)
{
	const struct dpa_profile *p = d->p;
	uint32_t cc = d->cl.pd_clique[p->csd[x].callee_pd];
	uint32_t e, i;

	if (d->cl.pd_clique[p->csd[x].caller_pd] == cc)
		return p->csd[x].m[m];
	e = d->cl.entry[cc];
	if (!(e & DPA_CLIQUE_MULTI))
		return tier_get(&d->tier[s], cc);       /* x is its only entry */
	i = e & ~DPA_CLIQUE_MULTI;
	if (x == d->cl.multi[i].primary)
		return p->csd[x].m[m] + d->multi_prim[(size_t)i * d->n_slots + s];
	return p->csd[x].m[m] + share(d->multi_rest[(size_t)i * d->n_slots + s],
				      entry_weight(d, i, x), entry_wsum(d, i));
}

uint64_t dpa_deep_csd_total(const struct dpa_deep *d, uint32_t csd, enum dpa_measure m)
{
	return d->slot[m] < 0 ? 0 : csd_total_slot(d, csd, m, d->slot[m]);
}

uint64_t dpa_deep_csd_desc(const struct dpa_deep *d, uint32_t csd, enum dpa_measure m)
{
	return d->slot[m] < 0 ? 0 : csd_total_slot(d, csd, m, d->slot[m]) - d->p->csd[csd].m[m];
}

uint64_t dpa_deep_pd_own(const struct dpa_deep *d, uint32_t pd, enum dpa_measure m)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_pd *q = &p->pd[pd];
	uint64_t sum = 0;

	for (uint32_t j = 0; j < q->in_n; j++)
		sum += p->csd[p->in_csd[q->in_first + j]].m[m];
	return sum;
}

uint64_t dpa_deep_pd_desc(const struct dpa_deep *d, uint32_t pd, enum dpa_measure m)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_pd *q = &p->pd[pd];
	uint32_t c = d->cl.pd_clique[pd];
	uint64_t sum = 0;
	int s = d->slot[m];

	if (s < 0)
		return 0;
	for (uint32_t j = 0; j < q->out_n; j++) {
		uint32_t x = p->out_csd[q->out_first + j];

		if (d->cl.pd_clique[p->csd[x].callee_pd] != c)
			sum += csd_total_slot(d, x, m, s);
	}
	return sum;
}

uint64_t dpa_deep_pd_total(const struct dpa_deep *d, uint32_t pd, enum dpa_measure m)
{
	if (d->slot[m] < 0)
		return 0;
	return dpa_deep_pd_own(d, pd, m) + dpa_deep_pd_desc(d, pd, m);
}

uint64_t dpa_deep_clique_own(const struct dpa_deep *d, uint32_t c, enum dpa_measure m)
{
	uint32_t n;
	const uint32_t *mem = dpa_clique_members(&d->cl, c, &n);
	uint64_t sum = 0;

	for (uint32_t i = 0; i < n; i++)
		sum += dpa_deep_pd_own(d, mem[i], m);
	return sum;
}

uint64_t dpa_deep_clique_total(const struct dpa_deep *d, uint32_t c, enum dpa_measure m)
{
	return d->slot[m] < 0 ? 0 : tier_get(&d->tier[d->slot[m]], c);
}

uint64_t dpa_deep_thread_total(const struct dpa_deep *d, uint32_t thread, enum dpa_measure m)
{
	return dpa_deep_pd_total(d, d->p->thread[thread].root_pd, m);
}

/*
 * Cliques from the last (the leaves of the topological order) to the first:
 * a clique's total is its members' in csds' own costs plus the totals of the
 * csds leaving it, which are known since their callees' cliques come later.
 * A multi-entry clique then gets its shares. Costs that do not fit 64 bits
 * are an error (a corrupt or adversarial file), not a silent wrap.
 */
static int clique_totals(struct dpa_deep *d, struct dpa_error *err)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_cliques *cl = &d->cl;
	uint32_t ns = d->n_slots;
	bool overflow = false;

	for (uint32_t c = cl->n; c >= 1; c--) {
		uint64_t acc[DPA_NMEASURES] = { 0 };
		uint32_t nm;
		const uint32_t *mem = dpa_clique_members(cl, c, &nm);

		for (uint32_t i = 0; i < nm; i++) {
			const struct dpa_pd *q = &p->pd[mem[i]];

			for (uint32_t j = 0; j < q->in_n; j++) {
				const struct dpa_csd *e = &p->csd[p->in_csd[q->in_first + j]];

				for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++)
					if (d->slot[m] >= 0)
						overflow |= __builtin_add_overflow(acc[m], e->m[m], &acc[m]);
			}
			for (uint32_t j = 0; j < q->out_n; j++) {
				uint32_t x = p->out_csd[q->out_first + j];

				if (cl->pd_clique[p->csd[x].callee_pd] == c)
					continue;
				for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++)
					if (d->slot[m] >= 0)
						overflow |= __builtin_add_overflow(
							acc[m], csd_total_slot(d, x, m, d->slot[m]), &acc[m]);
			}
		}
		for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++)
			if (d->slot[m] >= 0 && tier_set(&d->tier[d->slot[m]], c, acc[m]))
				return fail(err, p, "out of memory computing clique totals");

		if (cl->entry[c] & DPA_CLIQUE_MULTI) {
			uint32_t i = cl->entry[c] & ~DPA_CLIQUE_MULTI, n;
			const uint32_t *es = dpa_clique_entries(cl, c, &n);
			uint64_t w = 0;

			for (uint32_t k = 0; k < n; k++)
				overflow |= __builtin_add_overflow(w, p->csd[es[k]].m[DPA_CALLS], &w);
			d->multi_w[i] = w;
			for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++) {
				int s = d->slot[m];
				uint64_t rest = acc[m], prim;

				if (s < 0)
					continue;
				/* the entries' own costs are part of acc: never underflows */
				for (uint32_t k = 0; k < n; k++)
					rest -= p->csd[es[k]].m[m];
				prim = rest;
				for (uint32_t k = 0; k < n; k++)
					if (es[k] != cl->multi[i].primary)
						prim -= share(rest, entry_weight(d, i, es[k]),
							      entry_wsum(d, i));
				d->multi_rest[(size_t)i * ns + s] = rest;
				d->multi_prim[(size_t)i * ns + s] = prim;
			}
		}
	}
	if (overflow)
		return fail(err, p, "costs overflow 64 bits");
	return 0;
}

/* } ==== */

/* ===================================================================== */
/* { ==== ps and css totals: one walk down the tree of primary parents ==== */

/*
 * The walk keeps, for every ps and css, how many primary entry csds on the
 * path from the root down to the current clique have it as caller ps / as
 * css. A pd (csd) is outermost, and counted in its ps's (css's) total, when
 * that count is 0 for its ps (css). Entering a clique through entry x adds
 * x's caller's ps and x's css; leaving it takes them away.
 */
struct walk {
	uint32_t c;
	uint32_t next;          /* next child to visit: child[next] */
};

/* Own costs (all measures) and totals (stored measures, by slot) of pd v. */
static void pd_costs(const struct dpa_deep *d, uint32_t v, uint64_t *own, uint64_t *total)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_pd *q = &p->pd[v];
	uint32_t c = d->cl.pd_clique[v];

	memset(own, 0, DPA_NMEASURES * sizeof(*own));
	for (uint32_t j = 0; j < q->in_n; j++) {
		const struct dpa_csd *e = &p->csd[p->in_csd[q->in_first + j]];

		for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++)
			own[m] += e->m[m];
	}
	for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++)
		if (d->slot[m] >= 0)
			total[d->slot[m]] = own[m];
	for (uint32_t j = 0; j < q->out_n; j++) {
		uint32_t x = p->out_csd[q->out_first + j];

		if (d->cl.pd_clique[p->csd[x].callee_pd] == c)
			continue;
		for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++)
			if (d->slot[m] >= 0)
				total[d->slot[m]] += csd_total_slot(d, x, m, d->slot[m]);
	}
}

static void add_clique(struct dpa_deep *d, uint32_t c, const uint32_t *active_ps,
		       const uint32_t *active_css)
{
	const struct dpa_profile *p = d->p;
	uint32_t nm, ns = d->n_slots;
	const uint32_t *mem = dpa_clique_members(&d->cl, c, &nm);

	for (uint32_t i = 0; i < nm; i++) {
		uint32_t v = mem[i], ps = p->pd[v].ps;
		const struct dpa_pd *q = &p->pd[v];

		if (ps <= p->n_ps) {
			uint64_t own[DPA_NMEASURES], total[DPA_NMEASURES];
			uint64_t *po = d->ps_own + (size_t)ps * DPA_NMEASURES;
			uint64_t *pt = d->ps_total + (size_t)ps * ns;

			pd_costs(d, v, own, total);
			for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++)
				po[m] += own[m];
			if (active_ps[ps] == 0)
				for (uint32_t s = 0; s < ns; s++)
					pt[s] += total[s];
		}
		for (uint32_t j = 0; j < q->out_n; j++) {
			uint32_t x = p->out_csd[q->out_first + j], s = p->csd[x].css;
			uint64_t *co, *ct;

			if (s > p->n_css)
				continue;
			co = d->css_own + (size_t)s * DPA_NMEASURES;
			ct = d->css_total + (size_t)s * ns;
			for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++) {
				co[m] += p->csd[x].m[m];
				if (d->slot[m] >= 0 && active_css[s] == 0)
					ct[d->slot[m]] += csd_total_slot(d, x, m, d->slot[m]);
			}
		}
	}
}

/* Enter (+1) or leave (-1) clique c: its primary entry's caller ps and css. */
static void mark(const struct dpa_deep *d, uint32_t c, uint32_t *active_ps,
		 uint32_t *active_css, int delta)
{
	const struct dpa_profile *p = d->p;
	uint32_t x = dpa_clique_primary_entry(&d->cl, c), ps, s;

	if (!x)
		return;
	ps = p->pd[p->csd[x].caller_pd].ps;
	s = p->csd[x].css;
	if (ps <= p->n_ps)
		active_ps[ps] += delta;
	if (s <= p->n_css)
		active_css[s] += delta;
}

static int static_totals(struct dpa_deep *d, struct dpa_error *err)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_cliques *cl = &d->cl;
	uint32_t n = cl->n;
	uint32_t *cfirst = NULL, *child = NULL, *active_ps = NULL, *active_css = NULL;
	struct walk *st = NULL;
	uint32_t nst = 0, capst = 0;
	int ret = -1;

	d->ps_own = zalloc(d, ((size_t)p->n_ps + 1) * DPA_NMEASURES, sizeof(uint64_t));
	d->css_own = zalloc(d, ((size_t)p->n_css + 1) * DPA_NMEASURES, sizeof(uint64_t));
	d->ps_total = zalloc(d, ((size_t)p->n_ps + 1) * (d->n_slots ? d->n_slots : 1), sizeof(uint64_t));
	d->css_total = zalloc(d, ((size_t)p->n_css + 1) * (d->n_slots ? d->n_slots : 1), sizeof(uint64_t));
	/* the tree of primary parents, children grouped by counting sort */
	cfirst = calloc((size_t)n + 2, sizeof(*cfirst));
	child = malloc(((size_t)n + 1) * sizeof(*child));
	active_ps = calloc((size_t)p->n_ps + 1, sizeof(*active_ps));
	active_css = calloc((size_t)p->n_css + 1, sizeof(*active_css));
	if (!d->ps_own || !d->css_own || !d->ps_total || !d->css_total || !cfirst || !child ||
	    !active_ps || !active_css)
		goto oom;
	for (uint32_t c = 1; c <= n; c++)
		cfirst[dpa_clique_parent(cl, p, c) + 1]++;      /* parent 0: the roots */
	for (uint32_t c = 1; c <= n + 1; c++)
		cfirst[c] += cfirst[c - 1];
	for (uint32_t c = 1; c <= n; c++)
		child[cfirst[dpa_clique_parent(cl, p, c)]++] = c;
	for (uint32_t c = n + 1; c >= 1; c--)
		cfirst[c] = cfirst[c - 1];
	cfirst[0] = 0;
	/* children of c: child[cfirst[c] .. cfirst[c+1]); of "0": the roots */

	capst = 64;
	st = malloc(capst * sizeof(*st));
	if (!st)
		goto oom;
	st[0] = (struct walk){ .c = 0, .next = cfirst[0] };
	nst = 1;
	while (nst) {
		struct walk *w = &st[nst - 1];
		uint32_t k;

		if (w->next == cfirst[w->c + 1]) {
			if (w->c)
				mark(d, w->c, active_ps, active_css, -1);
			nst--;
			continue;
		}
		k = child[w->next++];
		mark(d, k, active_ps, active_css, +1);
		add_clique(d, k, active_ps, active_css);
		if (nst == capst) {
			struct walk *ns;

			if (capst > UINT32_MAX / 2)
				goto oom;
			ns = realloc(st, (size_t)capst * 2 * sizeof(*st));
			if (!ns)
				goto oom;
			st = ns;
			capst *= 2;
		}
		st[nst++] = (struct walk){ .c = k, .next = cfirst[k] };
	}
	ret = 0;
	goto out;
oom:
	fail(err, p, "out of memory computing procedure totals");
out:
	free(cfirst);
	free(child);
	free(active_ps);
	free(active_css);
	free(st);
	return ret;
}

/* } ==== */

/* ===================================================================== */

int dpa_deep_init_measures(struct dpa_deep *d, struct dpa_profile *p, unsigned mask,
			   struct dpa_error *err)
{
	memset(d, 0, sizeof(*d));
	d->p = p;
	for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++)
		d->slot[m] = (mask & (1u << m)) ? (int8_t)d->n_slots++ : -1;
	d->measures = mask & DPA_ALL_MEASURES;

	if (dpa_cliques_init(&d->cl, p, err)) {
		memset(d, 0, sizeof(*d));
		return -1;
	}
	d->tier = zalloc(d, d->n_slots, sizeof(*d->tier));
	if (!d->tier)
		goto oom;
	for (uint32_t s = 0; s < d->n_slots; s++) {
		d->tier[s].lo = zalloc(d, (size_t)d->cl.n + 1, sizeof(uint32_t));
		if (!d->tier[s].lo)
			goto oom;
	}
	d->multi_w = zalloc(d, d->cl.n_multi, sizeof(uint64_t));
	d->multi_rest = zalloc(d, (size_t)d->cl.n_multi * d->n_slots, sizeof(uint64_t));
	d->multi_prim = zalloc(d, (size_t)d->cl.n_multi * d->n_slots, sizeof(uint64_t));
	if (!d->multi_w || !d->multi_rest || !d->multi_prim)
		goto oom;
	if (clique_totals(d, err) || static_totals(d, err))
		goto fail;
	for (uint32_t s = 0; s < d->n_slots; s++)
		d->bytes += (size_t)d->tier[s].cap_over * (sizeof(uint32_t) + sizeof(uint64_t));
	d->bytes += d->cl.bytes;
	return 0;
oom:
	fail(err, p, "out of memory computing inherited costs");
fail:
	dpa_deep_release(d);
	return -1;
}

int dpa_deep_init(struct dpa_deep *d, struct dpa_profile *p, struct dpa_error *err)
{
	return dpa_deep_init_measures(d, p, DPA_ALL_MEASURES, err);
}

void dpa_deep_release(struct dpa_deep *d)
{
	if (!d)
		return;
	if (d->tier)
		for (uint32_t s = 0; s < d->n_slots; s++) {
			free(d->tier[s].lo);
			free(d->tier[s].over_id);
			free(d->tier[s].over_val);
		}
	free(d->tier);
	free(d->multi_w);
	free(d->multi_rest);
	free(d->multi_prim);
	free(d->ps_own);
	free(d->css_own);
	free(d->ps_total);
	free(d->css_total);
	dpa_cliques_release(&d->cl);
	memset(d, 0, sizeof(*d));
}
