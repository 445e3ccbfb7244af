/*
 * autopar.c — parallelism candidates: straight-line runs of costly calls in
 * costly procedures, the dependences between them, their safety, the best
 * partition into tasks (par_cost.c) and a verdict for each
 * (schemas/feedback-model.md). Part of deepprof's feedback library. MIT licence.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autopar.h"
#include "par_cost.h"
#include "places.h"
#include "recursion_patterns.h"
#include "var_use.h"

/* ================================================================
 * Costs of one procedure in one view (a context, or merged)
 * ================================================================ */

/* One call of a region, with its costs in the view. */
struct rcall {
	const struct dpa_pr_call *call;     /* NULL: no program representation */
	uint32_t css;           /* 0: never ran in this view */
	uint64_t calls;
	double total;
	bool rec;               /* a call back into the procedure's own clique */
};

/* A procedure as seen in a view: merged (pd 0) or one context. */
struct view {
	uint32_t ps, pd;
	struct dpf_fn f;
	double acts, mean;      /* activations, total cost per activation */
	uint64_t *calls;        /* [n_sites] of f (or of css when no progrep) */
	double *total;
	uint32_t *css;
	bool *rec;              /* [n_sites]: the site calls back into the clique */
	/* a recursive procedure: its clique's recursion pattern (NULL: none),
	 * and the cost of its non-recursive calls and own code over the run */
	const struct dpf_recursion *recursion;
	uint32_t clique;
	double nonrec_total;
};

/* Candidates being built (copied into the feedback at the end). */
struct cands {
	struct dpf_candidate *v;
	uint32_t n, cap;
};

/* Fill the per-site costs of v (f, ps, pd set). Returns 0 or -1. */
static int view_costs(const struct dpf_ctx *c, struct view *v)
{
	uint32_t n = v->f.fn->n_sites;

	v->calls = calloc(n + 1, sizeof(*v->calls));
	v->total = calloc(n + 1, sizeof(*v->total));
	v->css = calloc(n + 1, sizeof(*v->css));
	v->rec = calloc(n + 1, sizeof(*v->rec));
	if (!v->calls || !v->total || !v->css || !v->rec)
		return -1;
	if (v->recursion) {
		/* which sites call back into the clique, and what the rest costs */
		v->nonrec_total = (double)(v->pd ? dpa_deep_pd_own(c->d, v->pd, c->m)
					  : dpa_deep_ps_own(c->d, v->ps, c->m));
		for (uint32_t s = 0; s < n; s++) {
			uint32_t css = dpf_site_css(c, &v->f, s), csd = css ? c->css_csd[css] : 0;

			if (csd && dpa_clique_of(&c->d->cl, c->p->csd[csd].callee_pd) == v->clique)
				v->rec[s] = true;
		}
	}
	if (!v->pd) {
		for (uint32_t s = 0; s < n; s++) {
			uint32_t css = dpf_site_css(c, &v->f, s);

			v->css[s] = css;
			if (css) {
				v->calls[s] = dpa_deep_css_own(c->d, css, DPA_CALLS);
				v->total[s] = (double)dpa_deep_css_total(c->d, css, c->m);
				if (!v->rec[s])
					v->nonrec_total += v->total[s];
			}
		}
		return 0;
	}
	{
		const struct dpa_pd *q = &c->p->pd[v->pd];

		for (uint32_t o = 0; o < dpa_pd_out_n(q); o++) {
			uint32_t csd = dpa_out_csd(c->p, q->out_first + o);
			uint32_t css = c->p->csd[csd].css;
			const struct dpa_pr_call *call = css ? c->pr->css[css].call : NULL;
			size_t local;

			if (!call || call->fn != (uint32_t)(v->f.fn - c->pr->mod[v->f.mod].pr.fn))
				continue;
			local = (size_t)(call - v->f.fn->calls);
			if (local >= n)
				continue;
			v->css[local] = css;
			v->calls[local] += dpa_own(c->p, csd, DPA_CALLS);
			v->total[local] += (double)dpa_deep_csd_total(c->d, csd, c->m);
			if (!v->rec[local])
				v->nonrec_total += (double)dpa_deep_csd_total(c->d, csd, c->m);
		}
	}
	return 0;
}

static void view_release(struct view *v)
{
	free(v->calls);
	free(v->total);
	free(v->css);
	free(v->rec);
	v->rec = NULL;
	v->calls = NULL;
	v->total = NULL;
	v->css = NULL;
}

/* ================================================================
 * One region
 * ================================================================ */

/* Is source/target x the same named object as y? */
static bool same_object(const struct dpa_pr_ref *x, const struct dpa_pr_ref *y)
{
	if (x->kind != y->kind)
		return false;
	switch (x->kind) {
	case DPA_PR_LOCAL:
	case DPA_PR_PARAM:
	case DPA_PR_GLOBAL:
	case DPA_PR_VIA_PARAM:
		return x->name && y->name && !strcmp(x->name, y->name);
	case DPA_PR_HEAP:
		return x->has_site && y->has_site && x->site == y->site;
	}
	return false;
}

/* A display name for object t (arena string), NULL out of memory. */
static const char *object_name(struct dpf_ctx *c, const struct dpa_pr_ref *t)
{
	char b[300];

	if (t->kind == DPA_PR_HEAP)
		snprintf(b, sizeof(b), "heap object of site %u", t->site);
	else if (t->kind == DPA_PR_VIA_PARAM)
		snprintf(b, sizeof(b), "*%s", t->name ? t->name : "?");
	else
		snprintf(b, sizeof(b), "%s", t->name ? t->name : "?");
	return dpf_strdup(c->fb, b);
}

/* The place of a call: from its css when it ran, else from the record. */
static int place_call(struct dpf_ctx *c, const struct view *v, const struct rcall *r,
		      struct dpf_place *at)
{
	if (r->css)
		return dpf_place_css(c->fb, c->p, c->pr, r->css, at);
	memset(at, 0, sizeof(*at));
	if (!r->call || !v->f.fn)
		return 0;
	at->fn = dpf_strdup(c->fb, v->f.fn->name);
	at->file = dpf_strdup(c->fb, v->f.fn->file);
	at->line = r->call->line;
	at->col = r->call->col;
	at->has_site = true;
	at->tu_id = c->pr->mod[v->f.mod].pr.tu[v->f.fn->tu].id;
	at->site = r->call->site;
	at->checksum = v->f.fn->checksum;
	return (v->f.fn->name && !at->fn) ? -1 : 0;
}

/* "main > solve > ": the callers of pd from the thread's first procedure
 * (the <root> pd left out), by first in csd; arena string. */
static const char *context_of(struct dpf_ctx *c, uint32_t pd)
{
	uint32_t chain[32], n = 0, cur = pd;
	char b[1024];
	size_t len = 0;

	while (n < 32) {
		const struct dpa_pd *q = &c->p->pd[cur];
		uint32_t caller;

		if (!dpa_pd_in_n(q))
			break;
		caller = c->p->csd[dpa_in_csd(c->p, q->in_first)].caller_pd;
		if (!caller || caller == cur || !dpa_pd_in_n(&c->p->pd[caller]))
			break;          /* the thread's root */
		chain[n++] = caller;
		cur = caller;
	}
	b[0] = 0;
	for (uint32_t i = n; i-- > 0 && len < sizeof(b) - 1;) {
		int w = snprintf(b + len, sizeof(b) - len, "%s > ",
				 dpa_ps_name(c->p, c->p->pd[chain[i]].ps));

		if (w < 0)
			break;
		len += (size_t)w;
		if (len >= sizeof(b))
			len = sizeof(b) - 1;
	}
	return dpf_strdup(c->fb, b);
}

/* Add dependence (from, to) to the list unless it is there for the same var. */
static int add_dep(struct dpf_pc_dep **d, struct dpf_dep **fd, uint32_t *n, uint32_t *cap,
		   const struct dpf_pc_dep *x, const struct dpf_dep *fx)
{
	for (uint32_t i = 0; i < *n; i++)
		if ((*d)[i].from == x->from && (*d)[i].to == x->to &&
		    (((*fd)[i].var && fx->var && !strcmp((*fd)[i].var, fx->var)) ||
		     (!(*fd)[i].var && !fx->var)))
			return 0;
	if (*n == *cap) {
		uint32_t nc = *cap ? 2 * *cap : 8;
		struct dpf_pc_dep *nd = realloc(*d, nc * sizeof(*nd));
		struct dpf_dep *nf;

		if (!nd)
			return -1;
		*d = nd;
		nf = realloc(*fd, nc * sizeof(*nf));
		if (!nf)
			return -1;
		*fd = nf;
		*cap = nc;
	}
	(*d)[*n] = *x;
	(*fd)[(*n)++] = *fx;
	return 0;
}

/* Time fraction (of the call's cost) when call r's argument k is first
 * consumed or produced, with its known flag. */
static double frac_of(struct dpf_ctx *c, const struct view *v, const struct rcall *r, uint32_t k,
		      enum dpf_use use, bool *known)
{
	struct dpf_fn g = dpf_callee(c, &v->f, r->call);
	double f;
	const char *why;

	*known = dpf_use_fraction(c, &g, k, use, 0, &f, &why);
	return f;
}

/* ---- the dependence check (deepprof-cc --deepprof-check) ---- */

/* Does check region r hold every call of rc[0 .. n) of view v (same
 * function and file; calls by line, column and callee)? idx[i]: r's index
 * of call i. */
static bool check_holds(const struct dpa_check_region *r, const struct view *v,
			const struct rcall *rc, uint32_t n, uint32_t *idx)
{
	if (!r->executions || strcmp(r->fn, v->f.fn->name) ||
	    strcmp(dpa_basename(r->file), dpa_basename(v->f.fn->file ? v->f.fn->file : "")))
		return false;
	for (uint32_t i = 0; i < n; i++) {
		const struct dpa_pr_call *x = rc[i].call;
		uint32_t k = 0;

		if (!x)
			return false;
		/* a call through a pointer: callee "" */
		while (k < r->n_calls && (r->calls[k].line != x->line || r->calls[k].col != x->col ||
					  strcmp(r->calls[k].callee, x->callee ? x->callee : "")))
			k++;
		if (k == r->n_calls)
			return false;
		idx[i] = k;
	}
	return true;
}

/* "file:line" of a check place "file:line:col". */
static void short_loc(const char *loc, char *b, size_t n)
{
	const char *col = strrchr(loc, ':');

	snprintf(b, n, "%.*s", col ? (int)(col - loc) : (int)strlen(loc), loc);
}

/* A conflict in words: "sort() (call 1) writes a at m.c:12 and merge() (call
 * 3) reads it at m.c:30". */
static void conflict_words(const struct dpa_check_conflict *x, const struct rcall *rc, uint32_t i,
			   uint32_t j, char *b, size_t n)
{
	char li[256], lj[256];
	const char *var = *x->var_i ? x->var_i : *x->var_j ? x->var_j : NULL;
	bool wi = strncmp(x->kind, "read", 4) != 0, wj = strcmp(x->kind, "write-read") != 0;
	char what[300];

	short_loc(x->loc_i, li, sizeof(li));
	short_loc(x->loc_j, lj, sizeof(lj));
	if (var)
		snprintf(what, sizeof(what), "%s", var);
	else
		snprintf(what, sizeof(what), "%" PRIu64 " bytes", x->size);
	snprintf(b, n, "%.100s() (call %u) %s %.100s at %.120s and %.100s() (call %u) %s %s at %.120s",
		 rc[i].call->callee ? rc[i].call->callee : "(a pointer)",
		 i + 1, wi ? "writes" : "reads", what, li, rc[j].call->callee ? rc[j].call->callee : "(a pointer)", j + 1,
		 wj ? "writes" : "reads", var ? "it" : "them", lj);
}

/*
 * The best sub-span [*a, *b] of the checked calls rc[0 .. span) and its
 * partition, where calls the check saw touch the same memory share a task
 * (conflicting calls left before or after the sub-span run there, in
 * order). pb carries the costs and overheads; res->task must hold span
 * entries. Returns 1 with *a, *b and res filled, 0 when every split
 * separates a conflict, -1 out of memory.
 */
static int check_partition(const struct dpf_pc_problem *pb0, const bool *conf, uint32_t span,
			   uint32_t *a_out, uint32_t *b_out, struct dpf_pc_result *res)
{
	uint32_t group[span], best_task[span];
	double best = DBL_MAX;
	int found = 0;
	struct dpf_pc_result best_res;

	for (uint32_t a = 0; a + 1 < span; a++)
		for (uint32_t b = a + 1; b < span; b++) {
			struct dpf_pc_problem pb = *pb0;
			struct dpf_pc_result r = { .task = best_task + 0 };
			uint32_t n = b - a + 1, ng = 0, t[span];
			double v;

			/* the groups: components of the conflict graph on [a, b] */
			for (uint32_t i = 0; i < n; i++)
				group[i] = UINT32_MAX;
			for (uint32_t i = 0; i < n; i++) {
				uint32_t stack[span], sp = 0;

				if (group[i] != UINT32_MAX)
					continue;
				group[i] = ng;
				stack[sp++] = i;
				while (sp) {
					uint32_t x = stack[--sp];

					for (uint32_t y = 0; y < n; y++)
						if (group[y] == UINT32_MAX && conf[(a + x) * span + a + y]) {
							group[y] = ng;
							stack[sp++] = y;
						}
				}
				ng++;
			}
			if (ng < 2)
				continue;
			pb.n = n;
			pb.cost = pb0->cost + a;
			for (uint32_t i = 0; i < a; i++)
				pb.before += pb0->cost[i];
			for (uint32_t i = b + 1; i < span; i++)
				pb.after += pb0->cost[i];
			r.task = t;
			if (dpf_pc_search_groups(&pb, group, ng, &r) < 0)
				return -1;
			v = r.par;
			if (r.n_tasks >= 2 && v < best) {
				best = v;
				*a_out = a;
				*b_out = b;
				best_res = r;
				memcpy(res->task, t, n * sizeof(*t));
				found = 1;
			}
		}
	if (found) {
		uint32_t *keep = res->task;

		*res = best_res;
		res->task = keep;
	}
	return found;
}

/* The procedures that ran beneath calls rc[0 .. n) (their callees and
 * everything under them, in every context of the view), names in the
 * feedback's arena, into k. More than DPF_REACH_MAX: k->reach_all. */
#define DPF_REACH_MAX 4096
static int reach_of(struct dpf_ctx *c, const struct view *v, const struct rcall *rc, uint32_t n,
		    struct dpf_candidate *k)
{
	const struct dpa_profile *p = c->p;
	uint8_t *seen_pd = calloc((size_t)p->n_pd + 2, 1), *seen_ps = calloc((size_t)p->n_ps + 2, 1);
	uint32_t *stack = NULL, sp = 0, cap = 0, n_ps = 0, visited = 0;
	int rc_ = -1;

	if (!seen_pd || !seen_ps)
		goto out;
	for (uint32_t id = 1; id <= p->n_csd; id++) {
		const struct dpa_csd *x = &p->csd[id];
		bool mine = false;

		for (uint32_t i = 0; i < n && !mine; i++)
			mine = rc[i].css && x->css == rc[i].css;
		if (!mine || (v->pd && x->caller_pd != v->pd) || seen_pd[x->callee_pd])
			continue;
		if (sp == cap) {
			uint32_t nc = cap ? 2 * cap : 256, *ns = realloc(stack, nc * sizeof(*ns));

			if (!ns)
				goto out;
			stack = ns;
			cap = nc;
		}
		seen_pd[x->callee_pd] = 1;
		stack[sp++] = x->callee_pd;
	}
	while (sp && !k->reach_all) {
		const struct dpa_pd *q = &p->pd[stack[--sp]];

		if (!seen_ps[q->ps]) {
			seen_ps[q->ps] = 1;
			n_ps++;
		}
		if (++visited > 4 * (uint32_t)DPF_REACH_MAX * 16 || n_ps > DPF_REACH_MAX)
			k->reach_all = true;
		for (uint32_t j = 0; j < dpa_pd_out_n(q); j++) {
			uint32_t callee = p->csd[dpa_out_csd(p, q->out_first + j)].callee_pd;

			if (seen_pd[callee])
				continue;
			if (sp == cap) {
				uint32_t nc = 2 * cap, *ns = realloc(stack, nc * sizeof(*ns));

				if (!ns)
					goto out;
				stack = ns;
				cap = nc;
			}
			seen_pd[callee] = 1;
			stack[sp++] = callee;
		}
	}
	if (!k->reach_all && n_ps) {
		k->reach = dpf_alloc(c->fb, n_ps * sizeof(*k->reach));
		if (!k->reach)
			goto out;
		for (uint32_t ps = 1; ps <= p->n_ps; ps++)
			if (seen_ps[ps]) {
				const char *name = dpa_ps_name(p, ps);

				if (name && !(k->reach[k->n_reach++] = dpf_strdup(c->fb, name)))
					goto out;
			}
	}
	rc_ = 0;
out:
	free(seen_pd);
	free(seen_ps);
	free(stack);
	return rc_;
}

/* One more slot in cs (zeroed), or NULL out of memory. */
static struct dpf_candidate *cand_slot(struct cands *cs)
{
	if (cs->n == cs->cap) {
		uint32_t nc = cs->cap ? 2 * cs->cap : 16;
		struct dpf_candidate *nv = realloc(cs->v, nc * sizeof(*nv));

		if (!nv)
			return NULL;
		cs->v = nv;
		cs->cap = nc;
	}
	memset(&cs->v[cs->n], 0, sizeof(cs->v[0]));
	return &cs->v[cs->n];
}

/*
 * Evaluate the region rc[0 .. n) of view v and add it to cs when it is a
 * candidate (two or more costly calls) or a listed rejection (too cheap, but
 * two of its calls each cost at least list_thr over the run; merged view
 * only).
 */
static int region(struct dpf_ctx *c, const struct view *v, const struct rcall *rc, uint32_t n,
		  struct cands *cs)
{
	struct dpf_feedback *fb = c->fb;
	uint64_t execs = 0;
	uint32_t n_costly = 0, first = n, last = 0, span, ran = 0, n_rec = 0;
	bool at_top = false, dc_model = false;
	double before = 0, after = 0;
	double cost[n], mean[n];
	const double *sc;
	struct dpf_pc_dep *deps = NULL, *confl = NULL;
	struct dpf_dep *fdeps = NULL, *fconfl = NULL;
	uint32_t n_deps = 0, cap_deps = 0, n_confl = 0, cap_confl = 0;
	struct dpf_pc_problem pb;
	struct dpf_pc_result res;
	struct dpf_candidate *k;
	uint32_t *task = NULL;
	bool too_cheap, safe = true;
	const char *unsafe_call = NULL, *disjoint_var = NULL;
	char why[512], cwhy[700] = "";
	int rc_ = -1;
	/* the dependence check */
	const struct dpa_check_opaque *opaque = NULL;
	bool checked = false, conflict = false, saw_conflict = false;
	uint64_t check_execs = 0;
	uint32_t check_inputs = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (rc[i].calls > execs)
			execs = rc[i].calls;
		if (rc[i].calls)
			ran++;
	}
	if (ran < 2 || !execs)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		if (rc[i].rec)
			n_rec++;
	if (n_rec && v->recursion && v->recursion->n_levels >= 2 && v->recursion->entry_calls) {
		/* a recursive call: costed at the recursion's top level (its
		 * calls inside the clique carry no descendants' costs); the
		 * region runs once per entry into the clique */
		const struct dpf_recursion *r = v->recursion;
		double sub = r->level_cost[1];
		double k = r->branching ? r->branching : n_rec;
		double rest = r->level_cost[0] - k * sub;

		at_top = true;
		/* entered at every level of another recursion: the top entry
		 * (recursion_patterns.c nested_model), once per that recursion's */
		execs = r->nested_in ? 1 : r->entry_calls;
		if (rest < 0)
			rest = 0;
		for (uint32_t i = 0; i < n; i++) {
			double x = rc[i].rec ? sub
				: v->nonrec_total > 0 ? rest * rc[i].total / v->nonrec_total : 0;

			cost[i] = mean[i] = x;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!at_top) {
			cost[i] = rc[i].total / (double)execs;
			mean[i] = rc[i].calls ? rc[i].total / (double)rc[i].calls : 0;
		}
		if (mean[i] >= c->call_thr) {
			n_costly++;
			if (first == n)
				first = i;
			last = i;
		}
	}
	too_cheap = n_costly < 2 || v->mean < c->proc_thr;
	if (too_cheap) {
		/* listed only when two of its calls are each a visible share
		 * of the program (cheap, but made very often) */
		uint32_t big = 0;

		for (uint32_t i = 0; i < n; i++)
			if (cost[i] * (double)execs >= c->list_thr)
				big++;
		if (v->pd || big < 2)
			return 0;
	}
	if (n_costly < 2) {
		first = 0;
		last = n - 1;
	}
	for (uint32_t i = 0; i < first; i++)
		before += cost[i];
	for (uint32_t i = last + 1; i < n; i++)
		after += cost[i];
	span = last - first + 1;
	rc += first;
	sc = cost + first;

	/* ---- dependences ---- */
	for (uint32_t j = 0; j < span && rc[0].call; j++) {
		const struct dpa_pr_call *cj = rc[j].call;

		for (uint32_t a = 0; a < cj->n_args; a++) {
			const struct dpa_pr_arg *arg = &cj->args[a];

			/* registers and locals: a result that feeds the argument */
			for (uint32_t s = 0; s < arg->n_from; s++) {
				const struct dpa_pr_ref *src = &arg->from[s];

				for (uint32_t i = j; i-- > 0;) {
					const struct dpa_pr_call *ci = rc[i].call;
					bool hit = false;

					if (src->kind == DPA_PR_CALL && src->has_site && src->site == ci->site)
						hit = true;
					if ((src->kind == DPA_PR_LOCAL || src->kind == DPA_PR_PARAM) &&
					    ci->result.kind == src->kind && src->name && ci->result.name &&
					    !strcmp(src->name, ci->result.name))
						hit = true;
					if (!hit)
						continue;
					{
						struct dpf_pc_dep x = { i, j, sc[i], 0 };
						struct dpf_dep fx = { i, j, NULL, 1, 0, false, false };
						bool kn;
						char nb[300];

						fx.consumed = frac_of(c, v, &rc[j], a, DPF_CONSUMED, &kn);
						fx.known = kn;
						x.consume = fx.consumed * sc[j];
						if (ci->result.name)
							fx.var = dpf_strdup(fb, ci->result.name);
						else {
							snprintf(nb, sizeof(nb), "%s()",
								 ci->callee ? ci->callee : "(indirect)");
							fx.var = dpf_strdup(fb, nb);
						}
						if (!fx.var || add_dep(&deps, &fdeps, &n_deps, &cap_deps, &x, &fx) < 0)
							goto oom;
					}
					break;  /* the latest definition only */
				}
			}
			/* memory: an object an earlier call writes through a
			 * pointer, read here by value */
			for (uint32_t s = 0; s < arg->n_from; s++) {
				const struct dpa_pr_ref *src = &arg->from[s];

				if (src->kind != DPA_PR_LOCAL && src->kind != DPA_PR_PARAM &&
				    src->kind != DPA_PR_GLOBAL)
					continue;
				for (uint32_t i = 0; i < j; i++) {
					const struct dpa_pr_call *ci = rc[i].call;

					for (uint32_t b = 0; b < ci->n_args; b++) {
						const struct dpa_pr_arg *ai = &ci->args[b];
						bool hit = false;
						enum dpf_write wi;

						for (uint32_t x = 0; x < ai->n_points_to && !hit; x++)
							hit = same_object(&ai->points_to[x], src);
						if (!hit || (wi = dpf_call_writes_arg(c, &v->f, ci, b, 0)) ==
								    DPF_WRITES_NOT)
							continue;
						{
							struct dpf_pc_dep x = { i, j, 0, 0 };
							struct dpf_dep fx = { i, j, object_name(c, src), 1, 0,
										 false, true };
							bool k1, k2;

							if (!fx.var)
								goto oom;
							fx.produced = frac_of(c, v, &rc[i], b, DPF_PRODUCED, &k1);
							fx.consumed = frac_of(c, v, &rc[j], a, DPF_CONSUMED, &k2);
							fx.known = k1 && k2 && wi == DPF_WRITES;
							fx.memory = true;
							x.produce = fx.produced * sc[i];
							x.consume = fx.consumed * sc[j];
							if (add_dep(&deps, &fdeps, &n_deps, &cap_deps, &x, &fx) < 0)
								goto oom;
						}
					}
				}
			}
			/* memory: an object both calls point to */
			for (uint32_t i = 0; i < j && arg->has_points_to; i++) {
				const struct dpa_pr_call *ci = rc[i].call;

				for (uint32_t b = 0; b < ci->n_args; b++) {
					const struct dpa_pr_arg *ai = &ci->args[b];
					const struct dpa_pr_ref *obj = NULL;
					enum dpf_write wi, wj;

					if (!ai->has_points_to)
						continue;
					for (uint32_t x = 0; x < ai->n_points_to && !obj; x++)
						for (uint32_t y = 0; y < arg->n_points_to && !obj; y++)
							if (same_object(&ai->points_to[x], &arg->points_to[y]))
								obj = &ai->points_to[x];
					if (!obj)
						continue;
					wi = dpf_call_writes_arg(c, &v->f, ci, b, 0);
					wj = dpf_call_writes_arg(c, &v->f, cj, a, 0);
					if (wi == DPF_WRITES_NOT && wj == DPF_WRITES_NOT)
						continue;
					{
						struct dpf_pc_dep x = { i, j, 0, 0 };
						struct dpf_dep fx = { i, j, object_name(c, obj), 1, 0, false, true };
						bool k1, k2;

						if (!fx.var)
							goto oom;
						bool part = obj->kind == DPA_PR_VIA_PARAM || obj->kind == DPA_PR_HEAP;
						bool twin = part && ci->callee && cj->callee &&
							    !strcmp(ci->callee, cj->callee);

						if (twin) {
							/* divide and conquer: two calls of one
							 * function on parts of one object */
							if (!disjoint_var)
								disjoint_var = fx.var;
						} else if (wi != DPF_WRITES_NOT && (wj == DPF_WRITES_NOT || part)) {
							/* i writes it, j reads (or updates) it:
							 * j's first use waits for i's last store */
							fx.produced = frac_of(c, v, &rc[i], b, DPF_PRODUCED, &k1);
							fx.consumed = frac_of(c, v, &rc[j], a, DPF_CONSUMED, &k2);
							fx.known = k1 && k2 && wi == DPF_WRITES;
							fx.memory = true;
							x.produce = fx.produced * sc[i];
							x.consume = fx.consumed * sc[j];
							if (add_dep(&deps, &fdeps, &n_deps, &cap_deps, &x, &fx) < 0)
								goto oom;
						} else if (add_dep(&confl, &fconfl, &n_confl, &cap_confl, &x,
								   &fx) < 0) {
							goto oom;
						}
					}
				}
			}
		}
	}

	/* ---- safety ---- */
	for (uint32_t i = 0; i < span; i++)
		if (!rc[i].call || rc[i].call->effects == DPA_PR_EFF_MEMORY) {
			safe = false;
			if (!unsafe_call && rc[i].call)
				unsafe_call = rc[i].call->callee ? rc[i].call->callee : "(indirect)";
		}

	/* ---- the best partition ---- */
	task = calloc(span, sizeof(*task));
	if (!task)
		goto oom;
	memset(&pb, 0, sizeof(pb));
	pb.n = span;
	pb.cost = sc;
	/* dependences are on span indexes already */
	pb.n_deps = n_deps;
	pb.deps = deps;
	pb.n_conflicts = n_confl;
	pb.conflicts = confl;
	pb.before = before;
	pb.after = after;
	pb.ov = c->ov;
	pb.max_tasks = fb->opt.max_tasks ? fb->opt.max_tasks : 1;
	pb.budget = fb->opt.search_budget;
	res.task = task;
	if (dpf_pc_search(&pb, &res) < 0)
		goto oom;

	/* ---- the dependence check's findings, where the calls are not proved
	 * independent: a conflict keeps two calls in one task (or one of them
	 * out of the region); what it never saw is `checked` ---- */
	if (!(safe && !n_confl) && rc[0].call) {
		/* every checked region holding the calls, on any input: a
		 * conflict on one is a conflict */
		uint32_t cidx[span], inputs[64], n_inputs = 0;
		bool *conf = NULL, found = false;
		const struct dpa_check_conflict *first_x = NULL;
		uint32_t fi = 0, fj = 0, a = 0, b = span - 1;

		if (v->f.fn && v->f.fn->name && c->p->n_check &&
		    !(conf = calloc((size_t)span * span, sizeof(*conf))))
			goto oom;
		for (uint32_t g = 0; conf && g < c->p->n_check; g++) {
			const struct dpa_check_region *chk = &c->p->check[g];
			uint32_t q;

			if (!check_holds(chk, v, rc, span, cidx))
				continue;
			found = true;
			check_execs += chk->executions;
			for (q = 0; q < n_inputs && inputs[q] != chk->input; q++)
				;
			if (q == n_inputs && n_inputs < 64)
				inputs[n_inputs++] = chk->input;
			/* a call into code the check could not see may touch
			 * anything: it conflicts with every other call (so a split
			 * leaves it out of the region, or there is none) */
			for (q = 0; q < chk->n_opaque; q++)
				for (uint32_t i = 0; i < span; i++)
					if (chk->opaque[q].k == cidx[i]) {
						if (!opaque)
							opaque = &chk->opaque[q];
						for (uint32_t j = 0; j < span; j++)
							if (j != i)
								conf[i * span + j] = conf[j * span + i] = true;
					}
			for (q = 0; q < chk->n_conflicts; q++) {
				const struct dpa_check_conflict *x = &chk->conflicts[q];

				for (uint32_t i = 0; i < span; i++)
					for (uint32_t j = i + 1; j < span; j++)
						if (cidx[i] == x->i && cidx[j] == x->j) {
							conf[i * span + j] = conf[j * span + i] = true;
							if (!first_x || i < fi || (i == fi && j < fj)) {
								first_x = x;
								fi = i;
								fj = j;
							}
						}
			}
		}
		check_inputs = n_inputs;
		if (found && conf) {
			/* what the representation feared through memory, the check
			 * saw or not: only values passed stay dependences */
			{
				uint32_t o = 0;

				for (uint32_t e = 0; e < n_deps; e++)
					if (!fdeps[e].memory) {
						deps[o] = deps[e];
						fdeps[o++] = fdeps[e];
					}
				n_deps = o;
				pb.n_deps = n_deps;
			}
			saw_conflict = first_x || opaque;
			if (first_x) {
				conflict_words(first_x, rc, fi, fj, cwhy, sizeof(cwhy));
			} else if (opaque) {
				char at[256];

				short_loc(opaque->loc, at, sizeof(at));
				snprintf(cwhy, sizeof(cwhy), "the call that reaches %.100s() (at %.120s), which "
					 "the check cannot see into, stays outside the tasks", opaque->callee, at);
			}
			if (!n_deps) {
				int got = check_partition(&pb, conf, span, &a, &b, &res);

				if (got < 0) {
					free(conf);
					goto oom;
				}
				if (got) {
					checked = true;
					for (uint32_t i = 0; i < a; i++)
						before += sc[i];
					for (uint32_t i = b + 1; i < span; i++)
						after += sc[i];
					first += a;
					rc += a;
					sc += a;
					span = b - a + 1;
					n_confl = 0;    /* the check saw what the representation feared */
				} else {
					/* no split: a conflict, unless an unseen call is why */
					conflict = !opaque;
				}
			} else {
				/* values pass between the calls: the contiguous search,
				 * with the conflicts as pairs that stay in one task */
				n_confl = 0;
				for (uint32_t i = 0; i < span; i++)
					for (uint32_t j = i + 1; j < span; j++)
						if (conf[i * span + j]) {
							struct dpf_pc_dep x = { i, j, 0, 0 };
							struct dpf_dep fx = { i, j, "memory", 1, 0, false, true };

							if (add_dep(&confl, &fconfl, &n_confl, &cap_confl, &x, &fx) < 0) {
								free(conf);
								goto oom;
							}
						}
				pb.n_conflicts = n_confl;
				pb.conflicts = confl;
				if (dpf_pc_search(&pb, &res) < 0) {
					free(conf);
					goto oom;
				}
				checked = res.cut_allowed;
				conflict = !res.cut_allowed && !opaque;
			}
		}
		free(conf);
	}
	/* a divide-and-conquer split with a cut-off: the recursion's model
	 * (recursion_patterns.c) says what spawning down to the cut-off saves per entry,
	 * which is more than one top-level split (it balances unequal halves
	 * over many levels, and pays every level's task overheads) */
	if (at_top && res.n_tasks >= 2 && !n_deps && v->recursion->branching >= 2 &&
	    v->recursion->cutoff_depth && v->recursion->par_cost > 0) {
		double gain = v->recursion->cost_per_entry - v->recursion->par_cost;

		dc_model = true;
		res.par = res.seq > gain ? res.seq - gain : res.seq;
		/* the model spawns each of the k calls (its levels have k^L
		 * sub-problems): so does the code, a task per call, when no
		 * conflict the check saw ties calls together (strassen's seven
		 * products, not four against three at every level) */
		if (span > res.n_tasks && !n_confl && !saw_conflict) {
			for (uint32_t i = 0; i < span; i++)
				task[i] = i;
			res.n_tasks = span;
		}
	}

	/* ---- the candidate ---- */
	if (!(k = cand_slot(cs)))
		goto oom;
	if (dpf_place_ps(fb, c->p, c->pr, v->ps, &k->proc) < 0)
		goto oom;
	if (v->pd && !(k->context = context_of(c, v->pd)))
		goto oom;
	k->executions = execs;
	k->n_calls = span;
	k->calls = dpf_alloc(fb, span * sizeof(*k->calls));
	if (!k->calls)
		goto oom;
	for (uint32_t i = 0; i < span; i++) {
		struct dpf_call *x = &k->calls[i];

		if (place_call(c, v, &rc[i], &x->at) < 0)
			goto oom;
		if (rc[i].call && rc[i].call->callee && !(x->callee = dpf_strdup(fb, rc[i].call->callee)))
			goto oom;
		if (!rc[i].call && rc[i].css) {
			uint32_t cp = c->p->css[rc[i].css].callee_ps;

			if (!cp && c->css_csd[rc[i].css])
				cp = c->p->pd[c->p->csd[c->css_csd[rc[i].css]].callee_pd].ps;
			if (cp && !(x->callee = dpf_strdup(fb, dpa_ps_name(c->p, cp))))
				goto oom;
		}
		x->cost = sc[i];
		x->task = task[i];
	}
	if (!too_cheap && reach_of(c, v, rc, span, k) < 0)
		goto oom;
	k->n_tasks = res.n_tasks;
	k->n_deps = n_deps;
	if (n_deps) {
		k->deps = dpf_alloc(fb, n_deps * sizeof(*k->deps));
		if (!k->deps)
			goto oom;
		memcpy(k->deps, fdeps, n_deps * sizeof(*k->deps));
	}
	k->partitions_tried = res.tried;
	k->search_complete = res.complete;
	k->seq_time = res.seq;
	k->par_time = res.par;
	k->overhead = res.overhead;
	k->speedup = res.par > 0 ? res.seq / res.par : 1;
	{
		double pc = (double)fb->program_cost;
		double gain = (double)execs * (res.seq - res.par);

		k->program_speedup = pc > gain ? pc / (pc - gain) : 1;
	}
	k->n_inputs_seen = 1;
	k->speedup_min = k->speedup_median = k->speedup_max = k->speedup;

	k->check_inputs = checked || conflict ? check_inputs : 0;
	k->check_executions = checked || conflict ? check_execs : 0;
	if (rc[0].call && !(safe && !n_confl) && conflict) {
		k->safety = DPF_CONFLICT;
		snprintf(why, sizeof(why), "the dependence check saw %s: no split keeps such calls "
			 "in one task", cwhy);
		if (!(k->safety_why = dpf_strdup(fb, why)))
			goto oom;
	} else if (rc[0].call && !(safe && !n_confl) && checked) {
		k->safety = DPF_CHECKED;
		if (cwhy[0])
			snprintf(why, sizeof(why), "the dependence check saw no conflict between the "
				 "tasks (not proved); calls that touch the same memory share a task or run "
				 "outside the region, e.g. %s", cwhy);
		else
			snprintf(why, sizeof(why), "the dependence check saw no conflict between the "
				 "calls (not proved)");
		if (!(k->safety_why = dpf_strdup(fb, why)))
			goto oom;
	} else if (!rc[0].call) {
		k->safety = DPF_UNKNOWN_MEMORY;
		k->safety_why = "no program representation: data dependences and memory effects "
				"are unknown (a hint for a person)";
	} else if (safe && !n_confl) {
		k->safety = DPF_SAFE;
		k->safety_why = "every call is to a const or pure function: no call writes memory, "
				"and the values they share are synchronised";
	} else if (disjoint_var) {
		k->safety = DPF_UNKNOWN_MEMORY;
		snprintf(why, sizeof(why),
			 "two calls of one function write through pointers into %s: assumed to be "
			 "disjoint parts (divide and conquer), which the program representation "
			 "cannot prove (a hint for a person)", disjoint_var);
		if (!(k->safety_why = dpf_strdup(fb, why)))
			goto oom;
	} else {
		k->safety = DPF_UNKNOWN_MEMORY;
		snprintf(why, sizeof(why),
			 "%s%s may write memory (not declared const or pure): the program "
			 "representation cannot prove that the tasks touch disjoint memory "
			 "(a hint for a person)", unsafe_call ? unsafe_call : "a call",
			 unsafe_call ? "()" : "");
		if (!(k->safety_why = dpf_strdup(fb, why)))
			goto oom;
	}
	if (opaque && k->safety == DPF_UNKNOWN_MEMORY) {
		char at[256];

		short_loc(opaque->loc, at, sizeof(at));
		snprintf(why, sizeof(why), "the dependence check cannot see into %s() (called at %s: "
			 "library code, or built without --deepprof-check): the calls are not checked",
			 opaque->callee, at);
		if (!(k->safety_why = dpf_strdup(fb, why)))
			goto oom;
	}

	if (too_cheap) {
		k->verdict = DPF_TOO_CHEAP;
		if (n_costly < 2)
			snprintf(why, sizeof(why),
				 "%u of its calls cost at least the call threshold (%.0f ns per call); "
				 "two are needed", n_costly, c->call_thr * fb->ns_per_unit);
		else
			snprintf(why, sizeof(why),
				 "its procedure costs %.0f ns per call, under the procedure threshold "
				 "(%.0f ns)", v->mean * fb->ns_per_unit, c->proc_thr * fb->ns_per_unit);
	} else if (k->safety == DPF_CONFLICT) {
		k->verdict = DPF_UNSAFE;
		snprintf(why, sizeof(why), "the dependence check saw %s", cwhy);
	} else if (!res.cut_allowed) {
		k->verdict = DPF_UNSAFE;
		snprintf(why, sizeof(why),
			 "calls %u and %u touch %s and the later one may write it: a shared value "
			 "cannot order that, so no split is allowed", fconfl[0].from + 1,
			 fconfl[0].to + 1, fconfl[0].var);
	} else if (k->speedup > fb->opt.speedup_threshold) {
		k->verdict = DPF_ACCEPTED;
		snprintf(why, sizeof(why),
			 "%u tasks: estimated %.3fx on the region, %.4fx on the program%s",
			 res.n_tasks, k->speedup, k->program_speedup,
			 dc_model ? "; divide-and-conquer: spawning at every level down to the "
				    "recursion's cut-off depth (its model of the levels)" :
			 at_top ? "; recursive: costed at the recursion's top level, so spawn only "
				  "above its cut-off depth" : "");
	} else if (n_deps && res.ideal > 0 && res.seq / res.ideal <= fb->opt.speedup_threshold) {
		k->verdict = DPF_DEPENDENT;
		snprintf(why, sizeof(why),
			 "a later call needs %s before the earlier call produces it: even with "
			 "no overheads the best split gives only %.3fx", fdeps[0].var,
			 res.seq / res.ideal);
	} else {
		k->verdict = DPF_NO_SPEEDUP;
		snprintf(why, sizeof(why),
			 "the best partition (%u tasks) gives %.3fx, not above the threshold %.3f",
			 res.n_tasks, k->speedup, fb->opt.speedup_threshold);
	}
	if (!(k->verdict_why = dpf_strdup(fb, why)))
		goto oom;
	cs->n++;

	/* the var-use timings of its costly calls and of the calls at either
	 * end of a dependence */
	if (!too_cheap)
		for (uint32_t i = 0; i < span; i++) {
			bool want = mean[first + i] >= c->call_thr;

			for (uint32_t e = 0; e < n_deps && !want; e++)
				want = fdeps[e].from == i || fdeps[e].to == i;
			if (want && rc[i].call && rc[i].css &&
			    dpf_var_use_add(c, &v->f, rc[i].call, rc[i].css, mean[first + i]) < 0)
				goto out;
		}
	rc_ = 0;
	goto out;
oom:
	rc_ = dpa_fail(c->err, c->p, "out of memory finding parallelism candidates");
out:
	free(deps);
	free(fdeps);
	free(confl);
	free(fconfl);
	free(task);
	return rc_;
}

/* ================================================================
 * A loop of calls: one call per iteration, a task per iteration
 * ================================================================ */

/* The branching assumed of a recursive call in a loop when the profile
 * cannot estimate it (dpf_loop_branching: no clock ticks, too few). */
#define LOOP_BRANCHING 4.0

/*
 * The dependence check's findings on loop candidate q (rc its call): the
 * loop regions (a check region whose descriptor ends in "loop") holding
 * its call, on every input. A conflict between two iterations on any:
 * `conflict`, naming both accesses; a call it could not see into:
 * unknown (why says which); else `checked`. Sets q->safety and
 * q->safety_why when a region was found (why: scratch of n bytes).
 * Returns 0, or -1 out of memory.
 */
static int loop_check(struct dpf_ctx *c, const struct view *v, const struct rcall *rc,
		      struct dpf_candidate *q, char *why, size_t n)
{
	const struct dpa_check_conflict *x = NULL;
	const struct dpa_check_opaque *o = NULL;
	uint32_t inputs[64], n_inputs = 0, idx;
	uint64_t execs = 0;
	bool found = false;

	if (!v->f.fn || !v->f.fn->name)
		return 0;
	for (uint32_t g = 0; g < c->p->n_check; g++) {
		const struct dpa_check_region *r = &c->p->check[g];
		uint32_t k;

		if (!r->loop || !check_holds(r, v, rc, 1, &idx))
			continue;
		found = true;
		execs += r->executions;
		for (k = 0; k < n_inputs && inputs[k] != r->input; k++)
			;
		if (k == n_inputs && n_inputs < 64)
			inputs[n_inputs++] = r->input;
		if (r->n_conflicts && !x)
			x = &r->conflicts[0];
		if (r->n_opaque && !o)
			o = &r->opaque[0];
	}
	if (!found)
		return 0;
	q->check_inputs = n_inputs;
	q->check_executions = execs;
	if (x) {
		char li[256], lj[256];
		const char *var = *x->var_i ? x->var_i : *x->var_j ? x->var_j : NULL;
		const char *callee = rc->call->callee ? rc->call->callee : "(a pointer)";

		short_loc(x->loc_i, li, sizeof(li));
		short_loc(x->loc_j, lj, sizeof(lj));
		q->safety = DPF_CONFLICT;
		snprintf(why, n, "the dependence check saw %.100s() in one iteration %s %.100s at %.120s "
			 "and in a later one %s %s at %.120s: the iterations are not independent", callee,
			 strncmp(x->kind, "read", 4) ? "write" : "read", var ? var : "memory", li,
			 strcmp(x->kind, "write-read") ? "write" : "read", var ? "it" : "the same", lj);
	} else if (o) {
		char at[256];

		short_loc(o->loc, at, sizeof(at));
		q->safety = DPF_UNKNOWN_MEMORY;
		snprintf(why, n, "the dependence check cannot see into %s() (called at %s: library "
			 "code, or built without --deepprof-check): the iterations are not checked",
			 o->callee, at);
	} else {
		q->safety = DPF_CHECKED;
		snprintf(why, n, "the dependence check saw no two iterations touch the same memory "
			 "(not proved; iterations compared in windows of %u)", DPA_CHECK_WINDOW);
	}
	return (q->safety_why = dpf_strdup(c->fb, why)) ? 0 : -1;
}

/*
 * The loop at line `line` of v's procedure makes one call, rc, per
 * iteration (schemas/feedback-model.md, "Loops of calls"). Its iterations
 * are the tasks when the calls are independent of each other: the call is
 * const or pure (what the representation says; the use build proves it
 * again with GCC) and no argument is an earlier iteration's result. The
 * use build also checks that the results meet only in a sum.
 *   Not recursive: the loop runs once per activation (k = calls /
 *   activations iterations of cost t = total / calls); on P cores the
 *   iterations take ceil(k / P) * t, plus k spawns, a spawn delay and the
 *   taskwait.
 *   A call back into the procedure's clique: the whole recursion is the
 *   work W (cost per entry into the clique), spawned down to a cut-off
 *   depth D, the least with B^D >= 16 P tasks (B the branching the
 *   recursion's depth at the ticks gives, else LOOP_BRANCHING), made shallower
 *   while a task at D would cost under 100 spawn overheads; on P cores
 *   W / P, plus the spawns (over P), a spawn delay per level, the taskwait
 *   and half a task's imbalance.
 */
static int loop_region(struct dpf_ctx *c, const struct view *v, const struct rcall *rc,
		       uint32_t line, struct cands *cs)
{
	struct dpf_feedback *fb = c->fb;
	const struct dpa_pr_call *call = rc->call;
	const struct dpf_overheads *ov = &c->ov;
	double P = fb->opt.max_tasks > 1 ? fb->opt.max_tasks : 1;
	double seq, par, over, k, t, execs, height = 0;
	uint32_t cutoff = 0;
	bool too_cheap, dependent = false, rec = rc->rec && v->recursion && v->recursion->entry_calls;
	const char *dep_var = NULL;
	struct dpf_candidate *q;
	char why[600];

	if (!rc->calls || !call)
		return 0;
	if (rec) {
		const struct dpf_recursion *r = v->recursion;
		double spawn = ov->spawn_cost + ov->spawn_delay + ov->barrier_cost, tasks = 0, d, b;

		execs = (double)r->entry_calls;
		seq = r->cost_per_entry;
		/* measured from the recursion's depth at the ticks, else assumed */
		b = dpf_loop_branching(c->d, v->clique, r->entry_calls, r->internal_calls, &height);
		k = b >= 1.5 ? fmin(b, 64) : LOOP_BRANCHING;
		cutoff = (uint32_t)ceil(log(16 * P) / log(k));
		while (cutoff > 1 && seq / pow(k, cutoff) < 100 * spawn)
			cutoff--;
		t = seq / pow(k, cutoff);
		for (d = 1; d <= cutoff; d++)
			tasks += pow(k, d);
		over = tasks * ov->spawn_cost / P + cutoff * ov->spawn_delay + ov->barrier_cost + t / 2;
		par = seq / P + over;
		too_cheap = seq / k < c->call_thr || seq < c->proc_thr;
	} else {
		execs = v->acts;
		k = (double)rc->calls / execs;
		t = rc->total / (double)rc->calls;
		seq = k * t;
		over = round(k) * ov->spawn_cost + ov->spawn_delay + ov->barrier_cost;
		par = ceil(round(k) / P) * t + over;
		too_cheap = t < c->call_thr || v->mean < c->proc_thr || k < 1.5;
	}
	if (too_cheap)
		return 0;       /* a task per cheap iteration never pays: not listed */
	/* an argument made from an earlier iteration's result */
	for (uint32_t a = 0; a < call->n_args && !dependent; a++)
		for (uint32_t s = 0; s < call->args[a].n_from && !dependent; s++) {
			const struct dpa_pr_ref *src = &call->args[a].from[s];

			if (src->kind == DPA_PR_CALL && src->has_site && src->site == call->site)
				dependent = true;
			if ((src->kind == DPA_PR_LOCAL || src->kind == DPA_PR_PARAM) &&
			    call->result.kind == src->kind && src->name && call->result.name &&
			    !strcmp(src->name, call->result.name))
				dependent = true;
			if (dependent)
				dep_var = call->result.name ? call->result.name : "its result";
		}

	if (!(q = cand_slot(cs)))
		goto oom;
	if (dpf_place_ps(fb, c->p, c->pr, v->ps, &q->proc) < 0)
		goto oom;
	if (v->pd && !(q->context = context_of(c, v->pd)))
		goto oom;
	q->executions = (uint64_t)llround(execs);
	q->n_calls = 1;
	if (!(q->calls = dpf_alloc(fb, sizeof(*q->calls))))
		goto oom;
	if (place_call(c, v, rc, &q->calls[0].at) < 0)
		goto oom;
	if (call->callee && !(q->calls[0].callee = dpf_strdup(fb, call->callee)))
		goto oom;
	q->calls[0].cost = seq;
	q->loop_line = line ? line : 1;
	q->iterations = k;
	q->loop_cutoff = cutoff;
	q->n_tasks = (uint32_t)P;
	q->partitions_tried = 1;
	q->search_complete = true;
	q->seq_time = seq;
	q->par_time = par < seq ? par : seq;
	q->overhead = over;
	q->speedup = q->par_time > 0 ? seq / q->par_time : 1;
	{
		double pc = (double)fb->program_cost, gain = execs * (seq - q->par_time);

		q->program_speedup = pc > gain ? pc / (pc - gain) : 1;
	}
	q->n_inputs_seen = 1;
	q->speedup_min = q->speedup_median = q->speedup_max = q->speedup;
	if (reach_of(c, v, rc, 1, q) < 0)
		goto oom;
	if (call->effects != DPA_PR_EFF_MEMORY) {
		q->safety = DPF_SAFE;
		q->safety_why = "the call is to a const or pure function: no iteration's call writes "
				"memory another reads";
	} else if (loop_check(c, v, rc, q, why, sizeof(why)) < 0) {
		goto oom;
	} else if (!q->safety_why) {
		q->safety = DPF_UNKNOWN_MEMORY;
		snprintf(why, sizeof(why), "%s() may write memory (not declared const or pure): the "
			 "program representation cannot prove that the iterations touch disjoint memory "
			 "(a hint for a person; deepprof-cc --deepprof-check checks it)",
			 call->callee ? call->callee : "(indirect)");
		if (!(q->safety_why = dpf_strdup(fb, why)))
			goto oom;
	}
	if (q->safety == DPF_CONFLICT) {
		q->verdict = DPF_UNSAFE;
		snprintf(why, sizeof(why), "%s", q->safety_why);
	} else if (dependent) {
		q->verdict = DPF_DEPENDENT;
		snprintf(why, sizeof(why), "each iteration's call needs %s, an earlier iteration's "
			 "result: the iterations run in order", dep_var);
	} else if (q->speedup > fb->opt.speedup_threshold) {
		q->verdict = DPF_ACCEPTED;
		if (rec && height > 0)
			snprintf(why, sizeof(why), "a task per iteration down to recursion depth %u "
				 "(%.1f calls per activation, from the recursion's mean depth %.1f at the "
				 "clock ticks): estimated %.3fx on the recursion, %.4fx on the program",
				 cutoff, k, height, q->speedup, q->program_speedup);
		else if (rec)
			snprintf(why, sizeof(why), "a task per iteration down to recursion depth %u "
				 "(the branching is not measured: %.0f assumed): estimated %.3fx on the "
				 "recursion, %.4fx on the program", cutoff, LOOP_BRANCHING, q->speedup,
				 q->program_speedup);
		else
			snprintf(why, sizeof(why), "a task per iteration (%.1f per execution): estimated "
				 "%.3fx on the loop, %.4fx on the program", k, q->speedup,
				 q->program_speedup);
	} else {
		q->verdict = DPF_NO_SPEEDUP;
		snprintf(why, sizeof(why), "a task per iteration gives %.3fx, not above the "
			 "threshold %.3f", q->speedup, fb->opt.speedup_threshold);
	}
	if (!(q->verdict_why = dpf_strdup(fb, why)))
		goto oom;
	cs->n++;
	return 0;
oom:
	return dpa_fail(c->err, c->p, "out of memory finding parallelism candidates");
}

/* The one call item of body b, not counting nested loops' (which must
 * make none); NULL when there are none or more. */
static const struct dpa_pr_item *only_call(const struct dpa_pr_body *b, uint32_t *n)
{
	const struct dpa_pr_item *one = NULL;

	for (uint32_t i = 0; i < b->n && *n < 2; i++) {
		const struct dpa_pr_item *it = &b->items[i];

		if (it->kind == DPA_PR_ITEM_CALL) {
			one = it;
			++*n;
		} else if (it->kind == DPA_PR_ITEM_LOOP) {
			uint32_t m = 0;

			only_call(&it->body, &m);
			*n += m ? 2 : 0;
		} else if (it->kind == DPA_PR_ITEM_BRANCH) {
			for (uint32_t a = 0; a < it->n_arms && *n < 2; a++) {
				const struct dpa_pr_item *x = only_call(&it->arms[a], n);

				if (x)
					one = x;
			}
		}
	}
	return *n == 1 ? one : NULL;
}

/* ================================================================
 * Regions of a body
 * ================================================================ */

/*
 * Every maximal run of call items in one sequence of body b (use and store
 * items do not end a run; branches and loops do), recursively into arms
 * and loop bodies, each handed to region().
 */
static int regions_of(struct dpf_ctx *c, const struct view *v, const struct dpa_pr_body *b,
		      struct cands *cs)
{
	const struct dpa_pr_fn *fn = v->f.fn;
	struct rcall run[b->n ? b->n : 1];
	uint32_t n = 0;

	for (uint32_t i = 0; i <= b->n; i++) {
		const struct dpa_pr_item *it = i < b->n ? &b->items[i] : NULL;

		if (it && it->kind == DPA_PR_ITEM_CALL) {
			uint32_t local = it->site - fn->first_site;

			if (it->site >= fn->first_site && local < fn->n_sites) {
				run[n].call = &fn->calls[local];
				run[n].css = v->css[local];
				run[n].calls = v->calls[local];
				run[n].total = v->total[local];
				run[n].rec = v->rec[local];
				n++;
			}
			continue;
		}
		if (it && (it->kind == DPA_PR_ITEM_USE || it->kind == DPA_PR_ITEM_STORE))
			continue;
		if (n >= 2 && region(c, v, run, n, cs) < 0)
			return -1;
		n = 0;
		if (!it)
			break;
		if (it->kind == DPA_PR_ITEM_LOOP) {
			uint32_t calls = 0;
			const struct dpa_pr_item *one = only_call(&it->body, &calls);
			uint32_t local = one ? one->site - fn->first_site : 0;

			if (one && one->site >= fn->first_site && local < fn->n_sites) {
				struct rcall r = { &fn->calls[local], v->css[local], v->calls[local],
						   v->total[local], v->rec[local] };

				if (loop_region(c, v, &r, it->line, cs) < 0)
					return -1;
			}
			if (regions_of(c, v, &it->body, cs) < 0)
				return -1;
		}
		if (it->kind == DPA_PR_ITEM_BRANCH)
			for (uint32_t a = 0; a < it->n_arms; a++)
				if (regions_of(c, v, &it->arms[a], cs) < 0)
					return -1;
	}
	return 0;
}

/* Order of the css of one procedure without progrep: by line, column. */
static const struct dpa_profile *sort_p;
static int css_line_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t xl = dpa_src_get(sort_p, DPA_CSS_LINE, x), yl = dpa_src_get(sort_p, DPA_CSS_LINE, y);
	uint32_t xc = dpa_src_get(sort_p, DPA_CSS_COL, x), yc = dpa_src_get(sort_p, DPA_CSS_COL, y);

	if (xl != yl)
		return xl < yl ? -1 : 1;
	if (xc != yc)
		return xc < yc ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/*
 * Without any program representation: each procedure's call sites that
 * ran, in source order, form one region (merged view only).
 */
static int regions_without_progrep(struct dpf_ctx *c, struct cands *cs)
{
	const struct dpa_profile *p = c->p;
	uint32_t *first = calloc((size_t)p->n_ps + 2, sizeof(*first));
	uint32_t *order = malloc(((size_t)p->n_css + 1) * sizeof(*order));
	struct rcall *run = malloc(((size_t)p->n_css + 1) * sizeof(*run));
	int rc = -1;

	if (!first || !order || !run)
		goto out;
	for (uint32_t s = 1; s <= p->n_css; s++)
		if (p->css[s].caller_ps <= p->n_ps)
			first[p->css[s].caller_ps + 1]++;
	for (uint32_t i = 1; i <= p->n_ps + 1; i++)
		first[i] += first[i - 1];
	{
		uint32_t *fill = calloc((size_t)p->n_ps + 1, sizeof(*fill));

		if (!fill)
			goto out;
		for (uint32_t s = 1; s <= p->n_css; s++) {
			uint32_t ps = p->css[s].caller_ps;

			if (ps <= p->n_ps)
				order[first[ps] + fill[ps]++] = s;
		}
		free(fill);
	}
	sort_p = p;
	for (uint32_t ps = 1; ps <= p->n_ps; ps++) {
		struct view v = { .ps = ps };
		uint32_t n = 0, k0 = first[ps], k1 = first[ps + 1];

		v.acts = (double)dpa_deep_ps_own(c->d, ps, DPA_CALLS);
		if (v.acts <= 0 || k1 - k0 < 2)
			continue;
		v.mean = (double)dpa_deep_ps_total(c->d, ps, c->m) / v.acts;
		qsort(order + k0, k1 - k0, sizeof(*order), css_line_cmp);
		for (uint32_t k = k0; k < k1; k++) {
			uint32_t s = order[k];

			run[n].call = NULL;
			run[n].rec = false;
			run[n].css = s;
			run[n].calls = dpa_deep_css_own(c->d, s, DPA_CALLS);
			run[n].total = (double)dpa_deep_css_total(c->d, s, c->m);
			if (run[n].calls)
				n++;
		}
		if (n >= 2 && region(c, &v, run, n, cs) < 0)
			goto out;
	}
	rc = 0;
out:
	if (rc < 0 && !c->err->msg[0])
		dpa_fail(c->err, p, "out of memory finding parallelism candidates");
	free(first);
	free(order);
	free(run);
	return rc;
}

/* ================================================================
 * All candidates
 * ================================================================ */

/* The recursion pattern of pd's clique, NULL when it is not recursive. */
static const struct dpf_recursion *rec_of(const struct dpf_ctx *c, uint32_t pd)
{
	uint32_t cl;

	if (!pd)
		return NULL;
	cl = dpa_clique_of(&c->d->cl, pd);
	if (!c->rec_of_clique || cl > c->d->cl.n || !c->rec_of_clique[cl])
		return NULL;
	return &c->fb->rec[c->rec_of_clique[cl] - 1];
}

/* Set v's recursion pattern from pd's clique. */
static void set_recursion(const struct dpf_ctx *c, struct view *v, uint32_t pd)
{
	v->recursion = rec_of(c, pd);
	v->clique = pd ? dpa_clique_of(&c->d->cl, pd) : 0;
}

/* Accepted first, then by program speedup (larger first), then as found. */
static int cand_cmp(const void *a, const void *b)
{
	const struct dpf_candidate *x = a, *y = b;
	bool ax = x->verdict == DPF_ACCEPTED, ay = y->verdict == DPF_ACCEPTED;

	if (ax != ay)
		return ax ? -1 : 1;
	if (x->program_speedup != y->program_speedup)
		return x->program_speedup > y->program_speedup ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int dpf_autopar(struct dpf_ctx *c)
{
	struct dpf_feedback *fb = c->fb;
	const struct dpa_profile *p = c->p;
	struct cands cs = { NULL, 0, 0 };
	uint32_t *pds_of_ps = NULL, *first_pd = NULL;
	int rc = -1;

	if (!c->pr) {
		if (regions_without_progrep(c, &cs) < 0)
			goto out;
	} else {
		first_pd = calloc((size_t)p->n_ps + 1, sizeof(*first_pd));
		c->rec_of_clique = calloc((size_t)c->d->cl.n + 1, sizeof(*c->rec_of_clique));
		if (!first_pd || !c->rec_of_clique) {
			dpa_fail(c->err, p, "out of memory finding parallelism candidates");
			goto out;
		}
		for (uint32_t i = 0; i < fb->n_rec; i++)
			if (fb->rec[i].clique <= c->d->cl.n)
				c->rec_of_clique[fb->rec[i].clique] = i + 1;
		/* per ps, a pd in a recursive clique if it has one */
		for (uint32_t q = 1; q <= p->n_pd; q++) {
			uint32_t ps = p->pd[q].ps;

			if (!first_pd[ps] || (!rec_of(c, first_pd[ps]) && rec_of(c, q)))
				first_pd[ps] = q;
		}
		for (uint32_t ps = 1; ps <= p->n_ps; ps++) {
			struct view v = { .ps = ps };

			v.f = dpf_fn_of_ps(c, ps);
			v.acts = (double)dpa_deep_ps_own(c->d, ps, DPA_CALLS);
			if (!v.f.fn || v.acts <= 0)
				continue;
			set_recursion(c, &v, first_pd[ps]);
			v.mean = (double)dpa_deep_ps_total(c->d, ps, c->m) / v.acts;
			if (v.recursion && v.recursion->n_levels >= 1)
				v.mean = v.recursion->level_cost[0];
			if (view_costs(c, &v) < 0) {
				view_release(&v);
				dpa_fail(c->err, p, "out of memory finding parallelism candidates");
				goto out;
			}
			if (regions_of(c, &v, &v.f.fn->body, &cs) < 0) {
				view_release(&v);
				goto out;
			}
			view_release(&v);
		}
		if (fb->opt.per_context) {
			pds_of_ps = calloc((size_t)p->n_ps + 1, sizeof(*pds_of_ps));
			if (!pds_of_ps) {
				dpa_fail(c->err, p, "out of memory finding parallelism candidates");
				goto out;
			}
			for (uint32_t q = 1; q <= p->n_pd; q++)
				pds_of_ps[p->pd[q].ps]++;
			for (uint32_t q = 1; q <= p->n_pd; q++) {
				struct view v = { .ps = p->pd[q].ps, .pd = q };

				/* a procedure with one context is its merged view */
				if (pds_of_ps[v.ps] < 2)
					continue;
				v.f = dpf_fn_of_ps(c, v.ps);
				v.acts = (double)dpa_deep_pd_own(c->d, q, DPA_CALLS);
				if (!v.f.fn || v.acts <= 0)
					continue;
				v.mean = (double)dpa_deep_pd_total(c->d, q, c->m) / v.acts;
				set_recursion(c, &v, q);
				if (v.recursion && v.recursion->n_levels >= 1)
					v.mean = v.recursion->level_cost[0];
				if (v.mean < c->proc_thr)
					continue;
				if (view_costs(c, &v) < 0) {
					view_release(&v);
					dpa_fail(c->err, p, "out of memory finding parallelism candidates");
					goto out;
				}
				if (regions_of(c, &v, &v.f.fn->body, &cs) < 0) {
					view_release(&v);
					goto out;
				}
				view_release(&v);
			}
		}
	}
	for (uint32_t i = 0; i < cs.n; i++)
		cs.v[i].id = i;         /* the order found, for ties */
	if (cs.n)
		qsort(cs.v, cs.n, sizeof(*cs.v), cand_cmp);
	fb->n_cand = 0;
	fb->cand = NULL;
	if (cs.n) {
		fb->cand = dpf_alloc(fb, cs.n * sizeof(*fb->cand));
		if (!fb->cand) {
			dpa_fail(c->err, p, "out of memory finding parallelism candidates");
			goto out;
		}
		for (uint32_t i = 0; i < cs.n; i++) {
			fb->cand[i] = cs.v[i];
			fb->cand[i].id = i + 1;
		}
		fb->n_cand = cs.n;
	}
	rc = dpf_var_use_finish(c);
out:
	free(cs.v);
	free(pds_of_ps);
	free(first_pd);
	free(c->rec_of_clique);
	c->rec_of_clique = NULL;
	return rc;
}
