/*
 * var_use.c — variable-use timing: when, within a call, each argument is
 * first consumed and each result produced, from the callee's program
 * representation and the measured costs of its call sites (Mercury's
 * var_use_analysis, for C).
 * Part of deepprof's feedback library. MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include "places.h"
#include "var_use.h"

/* How deep a timing follows an argument into callees of callees. */
#define VU_MAX_DEPTH 4

/* ================================================================
 * Walking a body
 * ================================================================ */

/*
 * What a walk of a sequence found, all conditional on the sequence being
 * entered: its expected cost, the probability p that the event happens in
 * it, tf = E[time of the event from the walk's start; found], and
 * cn = E[the whole sequence's cost; not found].
 */
struct wres {
	double cost, p, tf, cn;
};

struct walk {
	const struct dpf_ctx *c;
	struct dpf_fn f;
	uint32_t param;
	const char *name;       /* the parameter's name, NULL: unnamed */
	bool back;              /* produced: walk from the end */
	unsigned depth;
	double acts;            /* f's activations */
	bool unknown;           /* a pessimistic guess was made */
};

/* Does f's record come from a plugin that records use and store items? */
static bool has_use_items(const struct dpa_pr_fn *f)
{
	return f->version >= 2;
}

static bool has_loop(const struct dpa_pr_item *it)
{
	if (it->kind == DPA_PR_ITEM_LOOP)
		return true;
	if (it->kind == DPA_PR_ITEM_BRANCH)
		for (uint32_t a = 0; a < it->n_arms; a++)
			for (uint32_t i = 0; i < it->arms[a].n; i++)
				if (has_loop(&it->arms[a].items[i]))
					return true;
	return false;
}

/* The call record of a call item of f, NULL if out of range. */
static const struct dpa_pr_call *item_call(const struct dpa_pr_fn *fn, const struct dpa_pr_item *it)
{
	if (it->site < fn->first_site || it->site - fn->first_site >= fn->n_sites)
		return NULL;
	return &fn->calls[it->site - fn->first_site];
}

/* A call item's calls and total cost over the profile (merged). */
static void site_cost(const struct walk *w, const struct dpa_pr_call *call, double *calls,
		      double *total)
{
	uint32_t css = dpf_site_css(w->c, &w->f, (uint32_t)(call - w->f.fn->calls));

	*calls = css ? (double)dpa_deep_css_own(w->c->d, css, DPA_CALLS) : 0;
	*total = css ? (double)dpa_deep_css_total(w->c->d, css, w->c->m) : 0;
}

/* Does argument a name parameter `name` among its sources (or, for
 * pointers, point where it points)? */
static bool arg_passes(const struct dpa_pr_arg *a, const char *name)
{
	if (!name)
		return false;
	for (uint32_t j = 0; j < a->n_from; j++)
		if (a->from[j].kind == DPA_PR_PARAM && a->from[j].name && !strcmp(a->from[j].name, name))
			return true;
	for (uint32_t j = 0; j < a->n_points_to; j++)
		if (a->points_to[j].kind == DPA_PR_VIA_PARAM && a->points_to[j].name &&
		    !strcmp(a->points_to[j].name, name))
			return true;
	return false;
}

/* How many times the sequence ran, from its first call not in a loop
 * (branches: the sum of their arms); -1: not known. */
static double seq_count(const struct walk *w, const struct dpa_pr_body *b)
{
	for (uint32_t i = 0; i < b->n; i++) {
		const struct dpa_pr_item *it = &b->items[i];

		if (it->kind == DPA_PR_ITEM_CALL) {
			const struct dpa_pr_call *call = item_call(w->f.fn, it);
			double calls, total;

			if (!call)
				continue;
			site_cost(w, call, &calls, &total);
			return calls;
		}
		if (it->kind == DPA_PR_ITEM_BRANCH) {
			double sum = 0;

			for (uint32_t a = 0; a < it->n_arms; a++) {
				double n = seq_count(w, &it->arms[a]);

				if (n < 0)
					return -1;
				sum += n;
			}
			return sum;
		}
	}
	return -1;
}

static struct wres walk_seq(struct walk *w, const struct dpa_pr_body *b, double execs,
			    double scale, double own);

/* One call item: its cost per activation (times scale) and whether it
 * consumes (or produces through) the parameter, at what time by the
 * callee's own timing. */
static struct wres walk_call(struct walk *w, const struct dpa_pr_item *it, double scale)
{
	const struct dpa_pr_call *call = item_call(w->f.fn, it);
	struct wres r = { 0, 0, 0, 0 };
	double calls, total, best = -1;

	if (!call)
		return r;
	site_cost(w, call, &calls, &total);
	r.cost = w->acts > 0 ? total / w->acts * scale : 0;
	r.cn = r.cost;
	for (uint32_t k = 0; k < call->n_args; k++) {
		const struct dpa_pr_arg *a = &call->args[k];
		struct dpf_fn g;
		double f;
		const char *why;

		if (!arg_passes(a, w->name))
			continue;
		if (w->back && (!a->has_points_to || call->effects != DPA_PR_EFF_MEMORY))
			continue;       /* cannot write through it */
		g = dpf_callee(w->c, &w->f, call);
		if (w->back && g.fn && dpf_writes_param(w->c, &g, k, w->depth + 1) == DPF_WRITES_NOT)
			continue;
		if (!g.fn || w->depth + 1 >= VU_MAX_DEPTH) {
			w->unknown = true;
			f = w->back ? 1 : 0;
		} else if (!dpf_use_fraction(w->c, &g, k, w->back ? DPF_PRODUCED : DPF_CONSUMED,
					     w->depth + 1, &f, &why)) {
			w->unknown = true;     /* f: the callee's partial or pessimistic guess */
		}
		/* offset from the walk's start: forward, f of the call;
		 * backward, what is left of it after the production */
		f = w->back ? (1 - f) * r.cost : f * r.cost;
		if (best < 0 || f < best)
			best = f;
	}
	if (best >= 0) {
		r.p = 1;
		r.tf = best;
		r.cn = 0;
	}
	return r;
}

/* One item of a sequence that ran `execs` times (-1: unknown). */
static struct wres walk_item(struct walk *w, const struct dpa_pr_item *it, double execs,
			     double scale)
{
	struct wres r = { 0, 0, 0, 0 };

	switch (it->kind) {
	case DPA_PR_ITEM_CALL:
		return walk_call(w, it, scale);
	case DPA_PR_ITEM_USE:
	case DPA_PR_ITEM_STORE:
		if (it->param == w->param && (it->kind == DPA_PR_ITEM_STORE) == w->back)
			r.p = 1;
		return r;
	case DPA_PR_ITEM_LOOP: {
		/* consumed in the first iteration, produced in the last: at the
		 * loop's start (forward) or end (backward) */
		struct wres b = walk_seq(w, &it->body, -1, scale, 0);

		r.cost = b.cost;
		r.p = b.p;
		r.cn = (1 - b.p) * b.cost;
		return r;
	}
	case DPA_PR_ITEM_BRANCH: {
		double wt[64], sum_known = 0, n_unknown = 0, total_w = 0;
		uint32_t n = it->n_arms < 64 ? it->n_arms : 64;

		for (uint32_t a = 0; a < n; a++) {
			wt[a] = seq_count(w, &it->arms[a]);
			if (wt[a] < 0)
				n_unknown++;
			else
				sum_known += wt[a];
		}
		for (uint32_t a = 0; a < n; a++) {
			if (wt[a] < 0)
				wt[a] = execs >= 0 && execs > sum_known ? (execs - sum_known) / n_unknown : 0;
			total_w += wt[a];
		}
		/* each arm walked given that it runs (its costs divided by its
		 * probability), then weighted by that probability */
		for (uint32_t a = 0; a < n; a++) {
			double pa = total_w > 0 ? wt[a] / total_w : 1.0 / n;
			struct wres x;

			if (pa <= 0)
				continue;
			x = walk_seq(w, &it->arms[a], total_w > 0 ? wt[a] : -1, scale / pa, 0);
			r.cost += pa * x.cost;
			r.p += pa * x.p;
			r.tf += pa * x.tf;
			r.cn += pa * x.cn;
		}
		return r;
	}
	}
	return r;
}

/*
 * Walk sequence b (forward, or backward for a production), which ran
 * `execs` times (-1: unknown), its call costs per activation times scale,
 * spreading `own` units of the function's own code over it: to its items
 * that hold loops, equally, or if none, equally to the gaps before,
 * between and after its items.
 */
static struct wres walk_seq(struct walk *w, const struct dpa_pr_body *b, double execs,
			    double scale, double own)
{
	struct wres r = { 0, 0, 0, 0 };
	double notyet = 1, nt, loops = 0, gap;

	for (uint32_t i = 0; i < b->n; i++)
		if (has_loop(&b->items[i]))
			loops++;
	gap = loops > 0 ? 0 : own / (b->n + 1);
	r.cost = nt = gap;
	for (uint32_t j = 0; j < b->n; j++) {
		const struct dpa_pr_item *it = &b->items[w->back ? b->n - 1 - j : j];
		struct wres x = walk_item(w, it, execs, scale);

		if (loops > 0 && has_loop(it)) {
			x.cost += own / loops;
			x.cn += (1 - x.p) * (own / loops);
		}
		x.cost += gap;
		x.cn += (1 - x.p) * gap;
		/* paths not yet found: their elapsed time, then this item's */
		r.tf += nt * x.p + notyet * x.tf;
		nt = nt * (1 - x.p) + notyet * x.cn;
		notyet *= 1 - x.p;
		r.cost += x.cost;
	}
	r.p = 1 - notyet;
	r.cn = nt;
	return r;
}

/* ================================================================
 * Timings
 * ================================================================ */

enum dpf_write dpf_call_writes_arg(const struct dpf_ctx *c, const struct dpf_fn *f,
				     const struct dpa_pr_call *call, uint32_t k, unsigned depth)
{
	struct dpf_fn g;

	if (k >= call->n_args || !call->args[k].has_points_to || call->effects != DPA_PR_EFF_MEMORY)
		return DPF_WRITES_NOT;
	g = dpf_callee(c, f, call);
	if (!g.fn || depth >= VU_MAX_DEPTH)
		return DPF_WRITES_MAYBE;
	return dpf_writes_param(c, &g, k, depth);
}

enum dpf_write dpf_writes_param(const struct dpf_ctx *c, const struct dpf_fn *f, uint32_t param,
				unsigned depth)
{
	const struct dpa_pr_fn *fn = f->fn;
	enum dpf_write res = DPF_WRITES_NOT;

	if (!fn || param >= fn->n_params || depth >= VU_MAX_DEPTH)
		return DPF_WRITES_MAYBE;
	if (!fn->params[param].pointer)
		return DPF_WRITES_NOT;
	if (!has_use_items(fn))
		return DPF_WRITES_MAYBE;
	/* a store item anywhere in the body */
	{
		const struct dpa_pr_body *stack[64];
		uint32_t top = 0;

		stack[top++] = &fn->body;
		while (top) {
			const struct dpa_pr_body *b = stack[--top];

			for (uint32_t i = 0; i < b->n; i++) {
				const struct dpa_pr_item *it = &b->items[i];

				if (it->kind == DPA_PR_ITEM_STORE && it->param == param)
					return DPF_WRITES;
				if (it->kind == DPA_PR_ITEM_LOOP && top < 64)
					stack[top++] = &it->body;
				if (it->kind == DPA_PR_ITEM_BRANCH)
					for (uint32_t a = 0; a < it->n_arms && top < 64; a++)
						stack[top++] = &it->arms[a];
			}
		}
	}
	/* or a call it passes the pointer on to that writes through it */
	for (uint32_t s = 0; s < fn->n_sites; s++) {
		const struct dpa_pr_call *call = &fn->calls[s];

		for (uint32_t k = 0; k < call->n_args; k++) {
			enum dpf_write wr;

			if (!arg_passes(&call->args[k], fn->params[param].name))
				continue;
			wr = dpf_call_writes_arg(c, f, call, k, depth + 1);
			if (wr == DPF_WRITES)
				return DPF_WRITES;
			if (wr == DPF_WRITES_MAYBE)
				res = DPF_WRITES_MAYBE;
		}
	}
	return res;
}

bool dpf_use_fraction(const struct dpf_ctx *c, const struct dpf_fn *f, uint32_t param,
		      enum dpf_use use, unsigned depth, double *fraction, const char **why)
{
	struct walk w = { .c = c, .f = *f, .param = param, .back = use == DPF_PRODUCED,
			  .depth = depth };
	struct wres r;
	double acts, own;

	*fraction = use == DPF_PRODUCED ? 1 : 0;
	if (!f->fn) {
		*why = "the callee has no program representation: assumed consumed at the start, "
		       "produced at the end";
		return false;
	}
	if (param >= f->fn->n_params) {
		*why = "a variadic argument: assumed consumed at the start, produced at the end";
		return false;
	}
	if (!has_use_items(f->fn)) {
		*why = "the callee's program representation records no uses or stores (an older "
		       "plugin): assumed consumed at the start, produced at the end";
		return false;
	}
	acts = f->ps ? (double)dpa_deep_ps_own(c->d, f->ps, DPA_CALLS) : 0;
	if (acts <= 0) {
		*why = "the callee never ran: assumed consumed at the start, produced at the end";
		return false;
	}
	w.name = f->fn->params[param].name;
	w.acts = acts;
	own = (double)dpa_deep_ps_own(c->d, f->ps, c->m) / acts;
	r = walk_seq(&w, &f->fn->body, acts, 1, own);
	if (r.cost <= 0) {
		*why = "the callee costs nothing: assumed consumed at the start, produced at the end";
		return false;
	}
	if (use == DPF_CONSUMED) {
		/* where it is never read, it is consumed at the end */
		*fraction = (r.tf + r.cn) / r.cost;
		*why = r.p <= 0 ? "never read by the callee"
			: "first read in the callee's body, after the measured costs of what comes before";
	} else {
		*fraction = 1 - r.tf / r.cost;
		*why = r.p <= 0 ? "never written by the callee: assumed at the end"
			: "last written in the callee's body, before the measured costs of what comes after";
	}
	if (*fraction < 0)
		*fraction = 0;
	if (*fraction > 1)
		*fraction = 1;
	if (w.unknown) {
		*why = use == DPF_CONSUMED
			? "passed to a callee whose use is not known: assumed consumed when that call starts"
			: "passed to a callee whose stores are not known: assumed produced when that call ends";
		return false;
	}
	return true;
}

/* ================================================================
 * The var-use list
 * ================================================================ */

/* Append one timing to c->vu. */
static int vu_push(struct dpf_ctx *c, uint32_t css, const struct dpf_var_use *v)
{
	if (c->n_vu == c->cap_vu) {
		uint32_t cap = c->cap_vu ? 2 * c->cap_vu : 16;
		struct dpf_var_use *nv = realloc(c->vu, cap * sizeof(*nv));
		uint32_t *nc;

		if (!nv)
			return -1;
		c->vu = nv;
		nc = realloc(c->vu_css, cap * sizeof(*nc));
		if (!nc)
			return -1;
		c->vu_css = nc;
		c->cap_vu = cap;
	}
	c->vu[c->n_vu] = *v;
	c->vu_css[c->n_vu++] = css;
	return 0;
}

int dpf_var_use_add(struct dpf_ctx *c, const struct dpf_fn *f, const struct dpa_pr_call *call,
		    uint32_t css, double cost)
{
	struct dpf_var_use v;
	struct dpf_fn g;

	for (uint32_t i = 0; i < c->n_vu; i++)
		if (c->vu_css[i] == css)
			return 0;
	memset(&v, 0, sizeof(v));
	if (dpf_place_css(c->fb, c->p, c->pr, css, &v.at) < 0)
		goto oom;
	if (call->callee && !(v.callee = dpf_strdup(c->fb, call->callee)))
		goto oom;
	v.call_cost = cost;
	g = dpf_callee(c, f, call);
	if (call->result.kind != DPA_PR_NONE) {
		v.arg = -1;
		v.var = "return";
		v.use = DPF_PRODUCED;
		v.time = cost;
		v.fraction = 1;
		v.known = true;
		v.why = "a return value is produced when the call returns";
		if (vu_push(c, css, &v) < 0)
			goto oom;
	}
	for (uint32_t k = 0; k < call->n_args; k++) {
		const char *name = g.fn && k < g.fn->n_params ? g.fn->params[k].name : NULL;
		double fr;
		const char *why;

		v.arg = (int32_t)k;
		if (name && !(v.var = dpf_strdup(c->fb, name)))
			goto oom;
		if (!name)
			v.var = NULL;
		v.use = DPF_CONSUMED;
		v.known = dpf_use_fraction(c, &g, k, DPF_CONSUMED, 0, &fr, &why);
		v.fraction = fr;
		v.time = fr * cost;
		v.why = why;
		if (vu_push(c, css, &v) < 0)
			goto oom;
		if (dpf_call_writes_arg(c, f, call, k, 0) != DPF_WRITES_NOT) {
			v.use = DPF_PRODUCED;
			v.known = dpf_use_fraction(c, &g, k, DPF_PRODUCED, 0, &fr, &why);
			v.fraction = fr;
			v.time = fr * cost;
			v.why = why;
			if (vu_push(c, css, &v) < 0)
				goto oom;
		}
	}
	return 0;
oom:
	return dpa_fail(c->err, c->p, "out of memory timing variable uses");
}

int dpf_var_use_finish(struct dpf_ctx *c)
{
	c->fb->n_var_use = 0;
	c->fb->var_use = NULL;
	if (!c->n_vu)
		return 0;
	c->fb->var_use = dpf_alloc(c->fb, c->n_vu * sizeof(*c->fb->var_use));
	if (!c->fb->var_use)
		return dpa_fail(c->err, c->p, "out of memory timing variable uses");
	memcpy(c->fb->var_use, c->vu, c->n_vu * sizeof(*c->vu));
	c->fb->n_var_use = c->n_vu;
	return 0;
}
