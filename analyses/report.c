/*
 * report.c — build report structures from the deep structure (Mercury's
 * create_report): summary, top procedures, one procedure, one clique, one
 * call site, the callers of a procedure, recursion types. No formatting here.
 * Part of deepprof's analyses library. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctxpath.h"
#include "names.h"
#include "report.h"

/* ================================================================
 * Names
 * ================================================================ */

static const char *const kind_names[DPA_REPORT_NKINDS] = {
	"summary", "top", "proc", "clique", "site", "callers", "recursion",
};
static const char *const group_names[DPA_GROUP_N] = { "site", "proc", "file", "clique" };

const char *dpa_report_kind_name(enum dpa_report_kind k)
{
	return (unsigned)k < DPA_REPORT_NKINDS ? kind_names[k] : "?";
}

int dpa_report_kind_parse(const char *s)
{
	for (int i = 0; i < DPA_REPORT_NKINDS; i++)
		if (!strcmp(s, kind_names[i]))
			return i;
	return -1;
}

const char *dpa_report_group_name(enum dpa_report_group g)
{
	return (unsigned)g < DPA_GROUP_N ? group_names[g] : "?";
}

int dpa_report_group_parse(const char *s)
{
	for (int i = 0; i < DPA_GROUP_N; i++)
		if (!strcmp(s, group_names[i]))
			return i;
	return -1;
}

int dpa_report_measure_parse(const char *s)
{
	if (!strcmp(s, "calls"))
		return DPA_CALLS;
	if (!strcmp(s, "cscs") || !strcmp(s, "csc"))
		return DPA_CSCS;
	if (!strcmp(s, "ticks") || !strcmp(s, "time"))
		return DPA_TICKS;
	if (!strcmp(s, "allocs"))
		return DPA_ALLOCS;
	if (!strcmp(s, "bytes"))
		return DPA_BYTES;
	return -1;
}

double dpa_report_value(const struct dpa_report *r, const struct dpa_report_row *row,
			enum dpa_measure m)
{
	double v = (double)(r->o.total ? row->c.total[m] : row->c.own[m]);

	if (r->o.per_call)
		return row->calls ? v / (double)row->calls : 0.0;
	return v;
}

/* ================================================================
 * Rows and sections
 * ================================================================ */

static int oom(struct dpa_report *r, struct dpa_error *err)
{
	snprintf(err->msg, sizeof(err->msg), "%s: out of memory building the report", r->p->path);
	return -1;
}

static struct dpa_report_section *new_section(struct dpa_report *r, const char *name)
{
	struct dpa_report_section *s = &r->sec[r->n_sec++];

	s->name = name;
	return s;
}

/* A zeroed new row at the end of s, or NULL when out of memory. */
static struct dpa_report_row *add_row(struct dpa_report_section *s)
{
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 16;
		struct dpa_report_row *v = realloc(s->row, cap * sizeof(*v));

		if (!v)
			return NULL;
		s->row = v;
		s->cap = cap;
	}
	memset(&s->row[s->n], 0, sizeof(s->row[0]));
	return &s->row[s->n++];
}

static void add_costs(struct dpa_report_costs *to, const struct dpa_report_costs *c)
{
	for (int m = 0; m < DPA_NMEASURES; m++) {
		to->own[m] += c->own[m];
		to->total[m] += c->total[m];
	}
}

static void csd_costs(const struct dpa_deep *d, uint32_t x, struct dpa_report_costs *c)
{
	for (int m = 0; m < DPA_NMEASURES; m++) {
		c->own[m] = dpa_own(d->p, x, m);
		c->total[m] = dpa_deep_csd_total(d, x, m);
	}
}

static void pd_costs(const struct dpa_deep *d, uint32_t pd, struct dpa_report_costs *c)
{
	for (int m = 0; m < DPA_NMEASURES; m++) {
		c->own[m] = dpa_deep_pd_own(d, pd, m);
		c->total[m] = dpa_deep_pd_total(d, pd, m);
	}
}

static void clique_costs(const struct dpa_deep *d, uint32_t cq, struct dpa_report_costs *c)
{
	for (int m = 0; m < DPA_NMEASURES; m++) {
		c->own[m] = dpa_deep_clique_own(d, cq, m);
		c->total[m] = dpa_deep_clique_total(d, cq, m);
	}
}

/* Sort rows by the value the options ask for, largest first; ties by the
 * row's first id so the order is stable across runs. */
static int by_value(const void *x, const void *y, void *ctx)
{
	const struct dpa_report *r = ctx;
	const struct dpa_report_row *a = x, *b = y;
	double va = dpa_report_value(r, a, r->o.sort), vb = dpa_report_value(r, b, r->o.sort);

	if (va != vb)
		return va > vb ? -1 : 1;
	if (a->ps != b->ps)
		return a->ps < b->ps ? -1 : 1;
	if (a->css != b->css)
		return a->css < b->css ? -1 : 1;
	if (a->clique != b->clique)
		return a->clique < b->clique ? -1 : 1;
	if (a->pd != b->pd)
		return a->pd < b->pd ? -1 : 1;
	if (a->csd != b->csd)
		return a->csd < b->csd ? -1 : 1;
	if (a->other_ps != b->other_ps)
		return a->other_ps < b->other_ps ? -1 : 1;
	return a->label && b->label ? strcmp(a->label, b->label) : 0;
}

/* Sort s by value, then keep the rows that pass the threshold and the limit. */
static void rank(struct dpa_report *r, struct dpa_report_section *s)
{
	uint32_t keep = 0;
	double min = 0.0;

	if (s->n > 1)
		qsort_r(s->row, s->n, sizeof(s->row[0]), by_value, r);
	s->n_before_limit = s->n;
	if (r->o.threshold > 0.0)
		min = r->o.threshold / 100.0 * (double)r->program[r->o.sort];
	/* The threshold is on the row's share of the program (not per call),
	 * so with --per-call the rows it keeps need not be the first ones. */
	for (uint32_t i = 0; i < s->n && !(r->o.limit && keep == r->o.limit); i++) {
		const struct dpa_report_row *w = &s->row[i];
		double v = (double)(r->o.total ? w->c.total[r->o.sort] : w->c.own[r->o.sort]);

		if (r->o.threshold > 0.0 && v < min)
			continue;
		if (keep != i)
			s->row[keep] = *w;
		keep++;
	}
	s->n = keep;
}

/*
 * Ranking while rows are made, for sections that may have millions of rows
 * (a procedure each; a clique's call sites and children): with a limit, s
 * holds only the rows rank() would keep, as a heap whose root is the worst
 * of them, so memory is O(limit), not O(rows). Rows must differ in
 * by_value() (by ps, css, clique, pd, csd or other_ps).
 * keep_row() offers *w (copied); keep_finish() sorts what is kept.
 */
struct keep {
	uint64_t seen;          /* rows offered */
	double min;             /* the threshold's value, when one is set */
};

static void keep_init(const struct dpa_report *r, struct keep *k)
{
	k->seen = 0;
	k->min = r->o.threshold > 0.0 ? r->o.threshold / 100.0 * (double)r->program[r->o.sort] : 0.0;
}

static void swap_rows(struct dpa_report_row *a, struct dpa_report_row *b)
{
	struct dpa_report_row t = *a;

	*a = *b;
	*b = t;
}

/* Returns 0 or -1 (out of memory). */
static int keep_row(struct dpa_report *r, struct dpa_report_section *s, struct keep *k,
		    const struct dpa_report_row *w)
{
	struct dpa_report_row *h;
	uint32_t i;

	if (!r->o.limit) {
		struct dpa_report_row *n = add_row(s);

		if (!n)
			return -1;
		*n = *w;
		return 0;
	}
	k->seen++;
	if (r->o.threshold > 0.0 &&
	    (double)(r->o.total ? w->c.total[r->o.sort] : w->c.own[r->o.sort]) < k->min)
		return 0;
	if (s->n < r->o.limit) {
		if (!(h = add_row(s)))
			return -1;
		*h = *w;
		for (i = s->n - 1; i && by_value(&s->row[(i - 1) / 2], &s->row[i], r) < 0; i = (i - 1) / 2)
			swap_rows(&s->row[(i - 1) / 2], &s->row[i]);
		return 0;
	}
	h = s->row;
	if (by_value(w, &h[0], r) >= 0)
		return 0;       /* no better than the worst kept */
	h[0] = *w;
	for (i = 0;;) {
		uint32_t l = 2 * i + 1, big = i;

		if (l < s->n && by_value(&h[l], &h[big], r) > 0)
			big = l;
		if (l + 1 < s->n && by_value(&h[l + 1], &h[big], r) > 0)
			big = l + 1;
		if (big == i)
			break;
		swap_rows(&h[i], &h[big]);
		i = big;
	}
	return 0;
}

/*
 * Before a row's costs are all computed: true (the row counted as offered)
 * when it cannot be kept, the kept rows being a full heap and *w, whose
 * ids and the value it is ranked by are set, no better than the worst of
 * them. Then keep_row() need not be called.
 */
static bool keep_cannot_enter(const struct dpa_report *r, const struct dpa_report_section *s,
			      struct keep *k, const struct dpa_report_row *w)
{
	const struct dpa_report_row *h = &s->row[0];
	const enum dpa_measure m = r->o.sort;

	if (!r->o.limit || s->n < r->o.limit)
		return false;
	/* by_value()'s first test inline (most rows of a big profile end
	 * there): a smaller value ranks after the worst kept row */
	if (!r->o.per_call && (double)(r->o.total ? w->c.total[m] : w->c.own[m]) <
			      (double)(r->o.total ? h->c.total[m] : h->c.own[m])) {
		k->seen++;
		return true;
	}
	if (by_value(w, h, (void *)r) < 0)
		return false;
	k->seen++;
	return true;
}

static void keep_finish(struct dpa_report *r, struct dpa_report_section *s, const struct keep *k)
{
	if (!r->o.limit) {
		rank(r, s);
		return;
	}
	if (s->n > 1)
		qsort_r(s->row, s->n, sizeof(s->row[0]), by_value, r);
	s->n_before_limit = (uint32_t)k->seen;
}

/* The procedures named by r->o.name, marked in a calloc'ed array. */
static bool *mark_procs(struct dpa_report *r, struct dpa_error *err)
{
	bool *mark;

	if (r->o.n_procs) {
		/* looked up already by the caller */
		r->procs = malloc(r->o.n_procs * sizeof(*r->procs));
		if (!r->procs) {
			oom(r, err);
			return NULL;
		}
		memcpy(r->procs, r->o.procs, r->o.n_procs * sizeof(*r->procs));
		r->n_procs = r->o.n_procs;
	} else if (dpa_names_find(r->p, r->o.name, &r->procs, &r->n_procs, err) < 0) {
		return NULL;
	}
	mark = dpa_calloc_huge((size_t)r->p->n_ps + 1, sizeof(bool));
	if (!mark) {
		oom(r, err);
		return NULL;
	}
	for (uint32_t i = 0; i < r->n_procs; i++)
		mark[r->procs[i]] = true;
	return mark;
}

/* ================================================================
 * The reports
 * ================================================================ */

static void ps_costs(const struct dpa_deep *d, uint32_t ps, struct dpa_report_costs *c)
{
	dpa_deep_ps_costs(d, ps, c->own, c->total);     /* all measures in one pass */
}

/* procedures: one row per procedure that was called (not <root>): ps,
 * count = its contexts (pds), calls into it. */
static int top(struct dpa_report *r, struct dpa_error *err)
{
	const struct dpa_profile *p = r->p;
	struct dpa_report_section *s = new_section(r, "procedures");
	struct dpa_report_row w;
	struct keep k;

	keep_init(r, &k);
	/* w is zeroed again only after a row is kept: a row that cannot enter
	 * set nothing but its ids, the value it is ranked by and its calls
	 * (most procedures of a big profile, which would each clear a row) */
	memset(&w, 0, sizeof(w));
	for (uint32_t ps = 2; ps <= p->n_ps; ps++) {
		uint64_t v;
		/* the value it is ranked by first, with its contexts: most
		 * procedures of a big profile go no further */
		uint32_t npd = dpa_deep_ps_rank(r->d, ps, r->o.sort, r->o.total, &v);

		if (!npd)
			continue;
		w.ps = ps;
		w.count = npd;
		if (r->o.total)
			w.c.total[r->o.sort] = v;
		else
			w.c.own[r->o.sort] = v;
		w.calls = r->o.per_call ? dpa_deep_ps_own(r->d, ps, DPA_CALLS) : 0;
		if (keep_cannot_enter(r, s, &k, &w))
			continue;
		ps_costs(r->d, ps, &w.c);
		w.calls = w.c.own[DPA_CALLS];
		if (keep_row(r, s, &k, &w) < 0)
			return oom(r, err);
		memset(&w, 0, sizeof(w));
	}
	keep_finish(r, s, &k);
	return 0;
}

/* The caller ps of pd's busiest call from outside its clique (or any). */
static uint32_t main_caller(const struct dpa_deep *d, uint32_t pd)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_pd *q = &p->pd[pd];
	uint32_t best = 0;
	uint64_t bc = 0;
	bool best_ext = false;

	for (uint32_t i = 0; i < dpa_pd_in_n(q); i++) {
		uint32_t x = dpa_in_csd(p, q->in_first + i);
		bool ext = !dpa_csd_internal(&d->cl, p, x);
		uint64_t c = dpa_own(p, x, DPA_CALLS);

		if (!best || (ext && !best_ext) || (ext == best_ext && c > bc)) {
			best = x;
			bc = c;
			best_ext = ext;
		}
	}
	return best ? p->pd[p->csd[best].caller_pd].ps : 0;
}

struct site_key {
	uint32_t css, callee_ps, csd;
};

static int site_key_cmp(const void *x, const void *y)
{
	const struct site_key *a = x, *b = y;

	if (a->css != b->css)
		return a->css < b->css ? -1 : 1;
	if (a->callee_ps != b->callee_ps)
		return a->callee_ps < b->callee_ps ? -1 : 1;
	return a->csd < b->csd ? -1 : a->csd > b->csd;
}

/* Group the csds keys[0..n) (sorted) by (css, callee ps) into rows of s,
 * ranked and cut like top's (one indirect site may reach millions of
 * procedures). */
static int group_sites(struct dpa_report *r, struct dpa_report_section *s,
		       const struct site_key *keys, uint32_t n, struct dpa_error *err)
{
	const struct dpa_profile *p = r->p;
	struct dpa_report_row w;
	struct keep k;
	bool open = false;

	keep_init(r, &k);
	for (uint32_t i = 0; i < n; i++) {
		struct dpa_report_costs c;
		uint32_t x = keys[i].csd;

		if (!open || w.css != keys[i].css || w.other_ps != keys[i].callee_ps) {
			if (open && keep_row(r, s, &k, &w) < 0)
				return oom(r, err);
			memset(&w, 0, sizeof(w));
			w.css = keys[i].css;
			w.ps = p->css[keys[i].css].caller_ps;
			w.other_ps = keys[i].callee_ps;
			w.csd = x;
			w.internal = true;
			open = true;
		}
		csd_costs(r->d, x, &c);
		add_costs(&w.c, &c);
		w.calls += c.own[DPA_CALLS];
		w.count++;
		if (!dpa_csd_internal(&r->d->cl, p, x))
			w.internal = false;
		if (w.count > 1)
			w.csd = 0;
	}
	if (open && keep_row(r, s, &k, &w) < 0)
		return oom(r, err);
	keep_finish(r, s, &k);
	return 0;
}

/* proc NAME: self = the procedure(s) summed; "contexts": each pd (pd,
 * clique, other_ps = its main caller, csd = the call it is named through
 * (dpa_ctx_parent) and css its site, count = how many call sites of its
 * path tell it apart from the others (dpa_ctx_distinguish)); "call_sites": each (css of the
 * procedure, callee ps) with the csds through it summed (count = csds). */
static int proc(struct dpa_report *r, struct dpa_error *err)
{
	const struct dpa_profile *p = r->p;
	struct dpa_report_section *ctx, *sites;
	struct site_key *keys = NULL;
	struct keep kc;
	uint32_t nk = 0;
	bool *mark = mark_procs(r, err);

	if (!mark)
		return -1;
	for (uint32_t i = 0; i < r->n_procs; i++) {
		struct dpa_report_costs c;

		ps_costs(r->d, r->procs[i], &c);
		add_costs(&r->self.c, &c);
	}
	r->self.ps = r->procs[0];
	r->self.calls = r->self.c.own[DPA_CALLS];
	ctx = new_section(r, "contexts");
	keep_init(r, &kc);
	/* every context told apart: how many call sites of its path, nearest
	 * first, no other context of the procedure shares */
	uint32_t npd = 0, *pds = dpa_malloc_huge(((size_t)p->n_pd + 1) * sizeof(*pds)), *depth;

	if (!pds)
		goto fail;
	for (uint32_t k = 1; k <= p->n_pd; k++)
		if (mark[p->pd[k].ps])
			pds[npd++] = k;
	depth = dpa_malloc_huge(((size_t)npd + 1) * sizeof(*depth));
	if (!depth || dpa_ctx_distinguish(r->d, pds, npd, depth) < 0) {
		free(depth);
		free(pds);
		goto fail;
	}
	for (uint32_t i = 0; i < npd; i++) {
		struct dpa_report_row w;
		uint32_t k = pds[i];

		memset(&w, 0, sizeof(w));
		w.pd = k;
		w.ps = p->pd[k].ps;
		w.clique = dpa_clique_of(&r->d->cl, k);
		w.other_ps = main_caller(r->d, k);
		w.csd = dpa_ctx_parent(r->d, k);
		w.css = w.csd ? p->csd[w.csd].css : 0;
		w.count = depth[i];
		/* the value it is ranked by first: most contexts of a procedure
		 * with 10^5 of them go no further */
		if (r->o.total)
			w.c.total[r->o.sort] = dpa_deep_pd_total(r->d, k, r->o.sort);
		else
			w.c.own[r->o.sort] = dpa_deep_pd_own(r->d, k, r->o.sort);
		w.calls = r->o.per_call ? dpa_deep_pd_own(r->d, k, DPA_CALLS) : 0;
		if (keep_cannot_enter(r, ctx, &kc, &w)) {
			r->self.count++;
			continue;
		}
		pd_costs(r->d, k, &w.c);
		w.calls = w.c.own[DPA_CALLS];
		if (keep_row(r, ctx, &kc, &w) < 0) {
			free(depth);
			free(pds);
			goto fail;
		}
		r->self.count++;
	}
	free(depth);
	free(pds);
	keep_finish(r, ctx, &kc);
	sites = new_section(r, "call_sites");
	keys = dpa_malloc_huge(((size_t)p->n_csd + 1) * sizeof(*keys));
	if (!keys)
		goto fail;
	for (uint32_t x = 1; x <= p->n_csd; x++)
		if (mark[p->pd[p->csd[x].caller_pd].ps])
			keys[nk++] = (struct site_key){ p->csd[x].css, p->pd[p->csd[x].callee_pd].ps, x };
	if (nk > 1)
		qsort(keys, nk, sizeof(keys[0]), site_key_cmp);
	if (group_sites(r, sites, keys, nk, err) < 0) {
		free(keys);
		free(mark);
		return -1;
	}
	free(keys);
	free(mark);
	return 0;
fail:
	free(mark);
	return oom(r, err);
}

/* The calls into clique c from outside it. */
static uint64_t entry_calls(const struct dpa_cliques *cl, const struct dpa_profile *p, uint32_t c)
{
	uint32_t n;
	const uint32_t *e = dpa_clique_entries(cl, c, &n);
	uint64_t s = 0;

	for (uint32_t i = 0; i < n; i++)
		s += dpa_own(p, e[i], DPA_CALLS);
	return s;
}

/* clique ID: self = the clique; "ancestors": from its primary parent up to
 * the clique main is in (clique, csd = the primary entry leading down, ps =
 * its caller's ps, other_ps = its callee's ps, costs the clique's), the
 * nearest o.limit of them; "members": pds; "call_sites": every csd out of
 * a member (clique = the callee's clique; internal or not); "children": the
 * cliques those lead to (count = csds, calls = their calls). Members, call
 * sites and children are ranked and cut to o.limit like top's rows, and
 * n_before_limit says how many there were: a clique with 10^6 members,
 * sites or children costs memory and time for the rows kept, not all. */
static int clique(struct dpa_report *r, struct dpa_error *err)
{
	const struct dpa_profile *p = r->p;
	const struct dpa_cliques *cl = &r->d->cl;
	struct dpa_report_section *anc, *mem, *sites, *kids;
	struct dpa_report_row w;
	struct keep km, ks, kk;
	const uint32_t *m;
	uint32_t c = r->o.id, nm, n_kid = 0, kid_cap = 0, n_anc = 0;
	/* callee clique -> its index in kid_calls/kid_n + 1: a clique may call
	 * millions; kid_clique[i] is child i's clique */
	uint32_t *kid_row = NULL, *kid_clique = NULL, *kid_n = NULL;
	uint64_t *kid_calls = NULL;

	if (c < 1 || c > cl->n) {
		snprintf(err->msg, sizeof(err->msg), "%s: no clique %u (cliques are 1..%u)", p->path,
			 c, cl->n);
		return -1;
	}
	r->self.clique = c;
	clique_costs(r->d, c, &r->self.c);
	m = dpa_clique_members(cl, c, &nm);
	r->self.count = nm;
	r->self.ps = p->pd[m[0]].ps;
	r->self.calls = entry_calls(cl, p, c);
	dpa_recursion_of(r->d, c, r->o.sort, &r->self.rec);

	anc = new_section(r, "ancestors");
	for (uint32_t below = c, e; (e = dpa_clique_primary_entry(cl, below)) != 0;) {
		uint32_t up = dpa_clique_of(cl, p->csd[e].caller_pd);
		struct dpa_report_row *a;

		if (p->pd[p->csd[e].caller_pd].ps == 1)
			break;  /* the thread's root: the chain ends at main's clique */
		below = up;
		if (r->o.limit && n_anc++ >= r->o.limit)
			continue;       /* past the limit: only counted */
		if (!(a = add_row(anc)))
			return oom(r, err);
		a->clique = up;
		a->csd = e;
		a->css = p->csd[e].css;
		a->ps = p->pd[p->csd[e].caller_pd].ps;
		a->other_ps = p->pd[p->csd[e].callee_pd].ps;
		clique_costs(r->d, up, &a->c);
		a->calls = entry_calls(cl, p, up);
	}
	anc->n_before_limit = r->o.limit ? n_anc : anc->n;

	mem = new_section(r, "members");
	sites = new_section(r, "call_sites");
	kids = new_section(r, "children");
	kid_row = dpa_calloc_huge((size_t)cl->n + 1, sizeof(uint32_t));
	if (!kid_row)
		goto fail;
	keep_init(r, &km);
	keep_init(r, &ks);
	keep_init(r, &kk);
	for (uint32_t i = 0; i < nm; i++) {
		const struct dpa_pd *q = &p->pd[m[i]];

		memset(&w, 0, sizeof(w));
		w.pd = m[i];
		w.ps = q->ps;
		w.clique = c;
		pd_costs(r->d, m[i], &w.c);
		w.calls = w.c.own[DPA_CALLS];
		if (keep_row(r, mem, &km, &w) < 0)
			goto fail;
		for (uint32_t k = 0; k < dpa_pd_out_n(q); k++) {
			uint32_t x = dpa_out_csd(p, q->out_first + k);
			uint32_t callee_cq = dpa_clique_of(cl, p->csd[x].callee_pd);

			memset(&w, 0, sizeof(w));
			w.csd = x;
			w.css = p->csd[x].css;
			w.pd = m[i];
			w.ps = q->ps;
			w.other_ps = p->pd[p->csd[x].callee_pd].ps;
			w.clique = callee_cq;
			w.internal = callee_cq == c;
			w.count = 1;
			/* the value it is ranked by first: a clique with 10^6
			 * call sites keeps 20 of them */
			w.calls = dpa_own(p, x, DPA_CALLS);
			if (r->o.total)
				w.c.total[r->o.sort] = dpa_deep_csd_total(r->d, x, r->o.sort);
			else
				w.c.own[r->o.sort] = dpa_own(p, x, r->o.sort);
			if (!keep_cannot_enter(r, sites, &ks, &w)) {
				csd_costs(r->d, x, &w.c);
				if (keep_row(r, sites, &ks, &w) < 0)
					goto fail;
			}
			if (w.internal)
				continue;
			if (!kid_row[callee_cq]) {
				if (n_kid == kid_cap) {
					/* grow the per-child arrays by doubling */
					size_t cap = kid_cap ? 2 * (size_t)kid_cap : 16;
					uint32_t *a = realloc(kid_clique, cap * sizeof(*a));
					uint32_t *b = a ? realloc(kid_n, cap * sizeof(*b)) : NULL;
					uint64_t *d = b ? realloc(kid_calls, cap * sizeof(*d)) : NULL;

					if (a)
						kid_clique = a;
					if (b)
						kid_n = b;
					if (!d)
						goto fail;
					kid_calls = d;
					kid_cap = (uint32_t)cap;
				}
				kid_clique[n_kid] = callee_cq;
				kid_n[n_kid] = 0;
				kid_calls[n_kid] = 0;
				kid_row[callee_cq] = ++n_kid;
			}
			kid_calls[kid_row[callee_cq] - 1] += w.calls;
			kid_n[kid_row[callee_cq] - 1]++;
		}
	}
	for (uint32_t i = 0; i < n_kid; i++) {
		uint32_t n2;

		memset(&w, 0, sizeof(w));
		w.clique = kid_clique[i];
		w.ps = p->pd[dpa_clique_members(cl, kid_clique[i], &n2)[0]].ps;
		w.calls = kid_calls[i];
		w.count = kid_n[i];
		if (r->o.total)
			w.c.total[r->o.sort] = dpa_deep_clique_total(r->d, kid_clique[i], r->o.sort);
		else
			w.c.own[r->o.sort] = dpa_deep_clique_own(r->d, kid_clique[i], r->o.sort);
		if (keep_cannot_enter(r, kids, &kk, &w))
			continue;
		clique_costs(r->d, kid_clique[i], &w.c);
		if (keep_row(r, kids, &kk, &w) < 0)
			goto fail;
	}
	keep_finish(r, mem, &km);
	keep_finish(r, sites, &ks);
	keep_finish(r, kids, &kk);
	free(kid_row);
	free(kid_clique);
	free(kid_n);
	free(kid_calls);
	return 0;
fail:
	free(kid_row);
	free(kid_clique);
	free(kid_n);
	free(kid_calls);
	return oom(r, err);
}

/* site ID: self = the css (ps = its caller, other_ps = its static callee);
 * "callees": its csds grouped by callee ps (count = contexts). */
static int site(struct dpa_report *r, struct dpa_error *err)
{
	const struct dpa_profile *p = r->p;
	struct dpa_report_section *s;
	struct site_key *keys;
	uint32_t nk = 0, id = r->o.id;

	if (id < 1 || id > p->n_css) {
		snprintf(err->msg, sizeof(err->msg), "%s: no call site %u (call sites are 1..%u)",
			 p->path, id, p->n_css);
		return -1;
	}
	r->self.css = id;
	r->self.ps = p->css[id].caller_ps;
	r->self.other_ps = p->css[id].callee_ps;
	for (int m = 0; m < DPA_NMEASURES; m++) {
		r->self.c.own[m] = dpa_deep_css_own(r->d, id, m);
		r->self.c.total[m] = dpa_deep_css_total(r->d, id, m);
	}
	r->self.calls = r->self.c.own[DPA_CALLS];
	s = new_section(r, "callees");
	keys = dpa_malloc_huge(((size_t)p->n_csd + 1) * sizeof(*keys));
	if (!keys)
		return oom(r, err);
	for (uint32_t x = 1; x <= p->n_csd; x++)
		if (p->csd[x].css == id) {
			keys[nk++] = (struct site_key){ id, p->pd[p->csd[x].callee_pd].ps, x };
			r->self.count++;
		}
	if (nk > 1)
		qsort(keys, nk, sizeof(keys[0]), site_key_cmp);
	int rc = group_sites(r, s, keys, nk, err);
	free(keys);
	return rc;
}

/* callers NAME: every csd into a pd of the procedure, grouped by caller
 * site (css, ps = caller), procedure (ps), file (label) or clique (clique,
 * ps = its first member's). count = csds; internal if all are. Ranked. */
static int callers(struct dpa_report *r, struct dpa_error *err)
{
	const struct dpa_profile *p = r->p;
	const struct dpa_cliques *cl = &r->d->cl;
	struct dpa_report_section *s;
	bool *mark = mark_procs(r, err);
	uint32_t *slot = NULL;  /* group key → row index + 1 */
	uint32_t nslot;

	if (!mark)
		return -1;
	for (uint32_t i = 0; i < r->n_procs; i++) {
		struct dpa_report_costs c;

		ps_costs(r->d, r->procs[i], &c);
		add_costs(&r->self.c, &c);
	}
	r->self.ps = r->procs[0];
	r->self.calls = r->self.c.own[DPA_CALLS];
	for (uint32_t k = 1; k <= p->n_pd; k++)
		if (mark[p->pd[k].ps])
			r->self.count++;
	s = new_section(r, "callers");
	nslot = (r->o.group == DPA_GROUP_SITE ? p->n_css : r->o.group == DPA_GROUP_CLIQUE ? cl->n
										     : p->n_ps) + 1;
	slot = calloc(nslot, sizeof(uint32_t));
	if (!slot) {
		free(mark);
		return oom(r, err);
	}
	for (uint32_t x = 1; x <= p->n_csd; x++) {
		const struct dpa_csd *y = &p->csd[x];
		uint32_t caller_ps = p->pd[y->caller_pd].ps, key;
		struct dpa_report_row *w;
		struct dpa_report_costs c;

		if (!mark[p->pd[y->callee_pd].ps])
			continue;
		switch (r->o.group) {
		case DPA_GROUP_SITE: key = y->css; break;
		case DPA_GROUP_CLIQUE: key = dpa_clique_of(cl, y->caller_pd); break;
		case DPA_GROUP_FILE: {
			const char *f = dpa_src_str(p, DPA_PS_FILE, caller_ps);

			/* slot[ps] is the row of ps's file: looked up once per ps */
			key = caller_ps;
			for (uint32_t i = 0; !slot[key] && i < s->n; i++) {
				const char *g = s->row[i].label;

				if ((f && g && !strcmp(f, g)) || (!f && !g))
					slot[key] = i + 1;
			}
			break;
		}
		default: key = caller_ps; break;
		}
		if (slot[key]) {
			w = &s->row[slot[key] - 1];
		} else {
			if (!(w = add_row(s))) {
				free(slot);
				free(mark);
				return oom(r, err);
			}
			slot[key] = s->n;
			w->internal = true;
			w->ps = caller_ps;
			switch (r->o.group) {
			case DPA_GROUP_SITE: w->css = y->css; break;
			case DPA_GROUP_CLIQUE: w->clique = key; break;
			case DPA_GROUP_FILE: w->label = dpa_src_str(p, DPA_PS_FILE, caller_ps); break;
			default: break;
			}
			if (r->o.group == DPA_GROUP_CLIQUE) {
				uint32_t n2;

				w->ps = p->pd[dpa_clique_members(cl, key, &n2)[0]].ps;
			}
		}
		csd_costs(r->d, x, &c);
		add_costs(&w->c, &c);
		w->calls += c.own[DPA_CALLS];
		w->count++;
		if (!dpa_csd_internal(cl, p, x))
			w->internal = false;
	}
	free(slot);
	free(mark);
	rank(r, s);
	return 0;
}

/* recursion: by_type counts every clique but the thread roots; "cliques":
 * each recursive one (clique, ps = first member, calls = entry calls,
 * count = members, rec), ranked. */
static int recursion(struct dpa_report *r, struct dpa_error *err)
{
	const struct dpa_profile *p = r->p;
	const struct dpa_cliques *cl = &r->d->cl;
	struct dpa_report_section *s = new_section(r, "cliques");

	for (uint32_t c = 1; c <= cl->n; c++) {
		struct dpa_recursion rec;
		struct dpa_report_row *w;
		uint32_t nm;
		const uint32_t *m = dpa_clique_members(cl, c, &nm);

		if (p->pd[m[0]].ps == 1 && nm == 1)
			continue;       /* a thread's root */
		dpa_recursion_of(r->d, c, r->o.sort, &rec);
		r->by_type[rec.type]++;
		if (rec.type == DPA_REC_NONE)
			continue;
		if (!(w = add_row(s)))
			return oom(r, err);
		w->clique = c;
		w->ps = p->pd[m[0]].ps;
		w->count = nm;
		w->rec = rec;
		clique_costs(r->d, c, &w->c);
		w->calls = rec.entry_calls;
	}
	rank(r, s);
	return 0;
}

static int summary(struct dpa_report *r)
{
	for (uint32_t c = 1; c <= r->d->cl.n; c++)
		if (dpa_clique_recursive(&r->d->cl, r->p, c))
			r->n_recursive++;
	return 0;
}

int dpa_report_init(struct dpa_report *r, const struct dpa_deep *d,
		    const struct dpa_report_opts *o, struct dpa_error *err)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->o = *o;
	r->d = d;
	r->p = d->p;
	for (uint32_t t = 1; t <= r->p->n_thread; t++)
		for (int m = 0; m < DPA_NMEASURES; m++)
			r->program[m] += dpa_deep_thread_total(d, t, m);
	switch (o->kind) {
	case DPA_REPORT_SUMMARY: rc = summary(r); break;
	case DPA_REPORT_TOP: rc = top(r, err); break;
	case DPA_REPORT_PROC: rc = proc(r, err); break;
	case DPA_REPORT_CLIQUE: rc = clique(r, err); break;
	case DPA_REPORT_SITE: rc = site(r, err); break;
	case DPA_REPORT_CALLERS: rc = callers(r, err); break;
	case DPA_REPORT_RECURSION: rc = recursion(r, err); break;
	default:
		snprintf(err->msg, sizeof(err->msg), "%s: unknown report kind %d", r->p->path, o->kind);
		rc = -1;
	}
	if (rc < 0)
		dpa_report_release(r);
	return rc;
}

void dpa_report_release(struct dpa_report *r)
{
	for (int i = 0; i < r->n_sec; i++)
		free(r->sec[i].row);
	free(r->procs);
	memset(r, 0, sizeof(*r));
}
