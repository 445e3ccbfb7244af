/*
 * combine.c — one feedback from the feedbacks of several inputs of
 * one program: candidates matched across inputs, with how stable their
 * estimated speedup is (min, median, max). Part of deepprof's feedback
 * library. MIT licence.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feedback.h"

/*
 * The rules (schemas/feedback.md, "Several inputs"):
 *  - Inputs are of one program when their programs have the same base name,
 *    and are combined only when their estimates rest on the same basis
 *    (CSCs or ticks). Costs stay in each representative's own unit: for
 *    one program on one machine a CSC costs about the same in every run,
 *    and the header's ns_per_unit is the first input's.
 *  - A candidate of one input matches one of another when their procedures
 *    (function name, file, progrep checksum), contexts and calls (the same
 *    number, each with the same callee, file, line, column and, when both
 *    know it, static call-site id) are equal.
 *  - A combined candidate's estimates (partition, times, verdict, deps) are
 *    those of its representative: the input whose speedup is the median's
 *    (the lower middle one for an even count; the earliest input among
 *    equals). speedup_min/median/max are over the inputs that have the
 *    candidate (median: the mean of the two middle values for an even
 *    count), n_inputs_seen their number. An input that is itself a combined
 *    feedback counts once, with its speedup.
 *  - Candidates are ordered accepted first, then by program_speedup (higher
 *    first), then by first appearance; ids are renumbered 1, 2, ...
 *  - Hot/cold entries, recursion patterns and variable-use timings are the
 *    union over the inputs, each entry from the first input that has it.
 *  - The header: the first input's program, options, basis, ns_per_unit and
 *    program cost; the input files of every input, in order.
 */

/* ================================================================
 * Copying into out's arena
 * ================================================================ */

struct cx {
	struct dpf_feedback *out;
	bool oom;
};

static const char *cp_str(struct cx *x, const char *s)
{
	const char *c = dpf_strdup(x->out, s);

	if (s && !c)
		x->oom = true;
	return c;
}

static void *cp_mem(struct cx *x, const void *m, size_t n)
{
	void *c;

	if (!m || !n)
		return NULL;
	c = dpf_alloc(x->out, n);
	if (!c) {
		x->oom = true;
		return NULL;
	}
	memcpy(c, m, n);
	return c;
}

static void cp_place(struct cx *x, struct dpf_place *p)
{
	p->fn = cp_str(x, p->fn);
	p->file = cp_str(x, p->file);
}

static void cp_candidate(struct cx *x, struct dpf_candidate *c)
{
	cp_place(x, &c->proc);
	c->context = cp_str(x, c->context);
	c->calls = cp_mem(x, c->calls, c->n_calls * sizeof(*c->calls));
	for (uint32_t i = 0; c->calls && i < c->n_calls; i++) {
		cp_place(x, &c->calls[i].at);
		c->calls[i].callee = cp_str(x, c->calls[i].callee);
	}
	c->deps = cp_mem(x, c->deps, c->n_deps * sizeof(*c->deps));
	for (uint32_t i = 0; c->deps && i < c->n_deps; i++)
		c->deps[i].var = cp_str(x, c->deps[i].var);
	c->safety_why = cp_str(x, c->safety_why);
	c->verdict_why = cp_str(x, c->verdict_why);
	c->reach = cp_mem(x, c->reach, c->n_reach * sizeof(*c->reach));
	for (uint32_t i = 0; c->reach && i < c->n_reach; i++)
		c->reach[i] = cp_str(x, c->reach[i]);
}

/* ================================================================
 * Matching
 * ================================================================ */

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool place_eq(const struct dpf_place *a, const struct dpf_place *b)
{
	if (!str_eq(a->fn, b->fn) || !str_eq(a->file, b->file) || a->line != b->line ||
	    a->col != b->col)
		return false;
	if (a->has_site && b->has_site && (a->tu_id != b->tu_id || a->site != b->site))
		return false;
	return !a->checksum || !b->checksum || a->checksum == b->checksum;
}

static bool cand_match(const struct dpf_candidate *a, const struct dpf_candidate *b)
{
	if (!str_eq(a->proc.fn, b->proc.fn) || !str_eq(a->proc.file, b->proc.file) ||
	    (a->proc.checksum && b->proc.checksum && a->proc.checksum != b->proc.checksum) ||
	    !str_eq(a->context, b->context) || a->n_calls != b->n_calls)
		return false;
	for (uint32_t i = 0; i < a->n_calls; i++)
		if (!str_eq(a->calls[i].callee, b->calls[i].callee) ||
		    !place_eq(&a->calls[i].at, &b->calls[i].at))
			return false;
	return true;
}

static bool hot_match(const struct dpf_hot *a, const struct dpf_hot *b)
{
	return a->kind == b->kind && a->temp == b->temp && str_eq(a->callee, b->callee) &&
	       place_eq(&a->at, &b->at);
}

static bool rec_match(const struct dpf_recursion *a, const struct dpf_recursion *b)
{
	return a->type == b->type && place_eq(&a->at, &b->at);
}

static bool use_match(const struct dpf_var_use *a, const struct dpf_var_use *b)
{
	return a->arg == b->arg && a->use == b->use && str_eq(a->callee, b->callee) &&
	       place_eq(&a->at, &b->at);
}

/* The base name of a program path ("" for NULL). */
static const char *prog_base(const char *p)
{
	const char *s;

	if (!p)
		return "";
	s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* The file that names input i in messages. */
static const char *in_name(const struct dpf_feedback *f)
{
	return f->n_input && f->input[0].path ? f->input[0].path : "feedback";
}

/* ================================================================
 * Combining
 * ================================================================ */

/* A group of matching candidates: members[k] is (input, index). */
struct group {
	uint32_t n, cap;
	uint32_t (*m)[2];
	uint32_t first;         /* order of first appearance */
	struct dpf_candidate c;  /* the combined one (copied at the end) */
	const char **reach;     /* the union of the members' reach (malloc'ed) */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	bool aa = a->c.verdict == DPF_ACCEPTED, ba = b->c.verdict == DPF_ACCEPTED;

	if (aa != ba)
		return aa ? -1 : 1;
	if (a->c.program_speedup != b->c.program_speedup)
		return a->c.program_speedup > b->c.program_speedup ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

/* Fill g->c from its members: the representative's estimates, the speedup
 * spread. Returns -1 when out of memory. */
static int settle(struct group *g, const struct dpf_feedback *in)
{
	double *s = malloc(g->n * sizeof(*s));
	double median, lower;
	uint32_t rep = 0;

	if (!s)
		return -1;
	for (uint32_t k = 0; k < g->n; k++)
		s[k] = in[g->m[k][0]].cand[g->m[k][1]].speedup;
	qsort(s, g->n, sizeof(*s), cmp_double);
	lower = s[(g->n - 1) / 2];
	median = g->n % 2 ? lower : (s[g->n / 2 - 1] + s[g->n / 2]) / 2;
	for (uint32_t k = 0; k < g->n; k++)
		if (in[g->m[k][0]].cand[g->m[k][1]].speedup == lower) {
			rep = k;
			break;
		}
	g->c = in[g->m[rep][0]].cand[g->m[rep][1]];
	/* the dependence check over the inputs: a conflict seen on one is a
	 * conflict; else checked on the inputs whose check covered it */
	{
		uint32_t checked = 0, conflict = UINT32_MAX;
		uint64_t execs = 0;

		for (uint32_t k = 0; k < g->n; k++) {
			const struct dpf_candidate *x = &in[g->m[k][0]].cand[g->m[k][1]];

			if (x->safety == DPF_CONFLICT && conflict == UINT32_MAX)
				conflict = k;
			if (x->safety == DPF_CHECKED || x->safety == DPF_CONFLICT) {
				checked += x->check_inputs;
				execs += x->check_executions;
			}
		}
		if (conflict != UINT32_MAX && g->c.safety != DPF_CONFLICT) {
			const struct dpf_candidate *x = &in[g->m[conflict][0]].cand[g->m[conflict][1]];

			g->c.safety = x->safety;
			g->c.safety_why = x->safety_why;
			g->c.verdict = x->verdict;
			g->c.verdict_why = x->verdict_why;
		} else if (conflict == UINT32_MAX && checked && g->c.safety == DPF_UNKNOWN_MEMORY) {
			for (uint32_t k = 0; k < g->n; k++) {
				const struct dpf_candidate *x = &in[g->m[k][0]].cand[g->m[k][1]];

				if (x->safety == DPF_CHECKED) {
					g->c.safety = x->safety;
					g->c.safety_why = x->safety_why;
					break;
				}
			}
		}
		g->c.check_inputs = checked;
		g->c.check_executions = execs;
	}
	/* what ran beneath the calls on any input */
	{
		uint32_t total = 0, o = 0;

		for (uint32_t k = 0; k < g->n; k++) {
			const struct dpf_candidate *x = &in[g->m[k][0]].cand[g->m[k][1]];

			total += x->n_reach;
			g->c.reach_all |= x->reach_all;
		}
		g->c.n_reach = 0;
		g->c.reach = NULL;
		if (total && !g->c.reach_all) {
			if (!(g->reach = malloc(total * sizeof(*g->reach)))) {
				free(s);
				return -1;
			}
			for (uint32_t k = 0; k < g->n; k++) {
				const struct dpf_candidate *x = &in[g->m[k][0]].cand[g->m[k][1]];

				for (uint32_t i = 0; i < x->n_reach; i++) {
					uint32_t j = 0;

					while (j < o && strcmp(g->reach[j], x->reach[i]))
						j++;
					if (j == o)
						g->reach[o++] = x->reach[i];
				}
			}
			g->c.reach = g->reach;
			g->c.n_reach = o;
		}
	}
	g->c.n_inputs_seen = g->n;
	g->c.speedup_min = s[0];
	g->c.speedup_median = median;
	g->c.speedup_max = s[g->n - 1];
	free(s);
	return 0;
}

static int add_member(struct group *g, uint32_t input, uint32_t idx)
{
	if (g->n == g->cap) {
		uint32_t cap = g->cap ? g->cap * 2 : 4;
		void *m = realloc(g->m, cap * sizeof(*g->m));

		if (!m)
			return -1;
		g->m = m;
		g->cap = cap;
	}
	g->m[g->n][0] = input;
	g->m[g->n][1] = idx;
	g->n++;
	return 0;
}

/* The message is one line even when names read from files hold control
 * characters. Returns -1. */
static int one_line(struct dpa_error *err)
{
	if (err)
		for (char *s = err->msg; *s; s++)
			if ((unsigned char)*s < ' ' || *s == 0x7f)
				*s = '?';
	return -1;
}

static int oom(struct dpa_error *err)
{
	if (err)
		snprintf(err->msg, sizeof(err->msg), "feedback: out of memory combining inputs");
	return -1;
}

/* Candidates: group, settle, sort, copy into out. */
static int combine_candidates(struct cx *x, const struct dpf_feedback *in, uint32_t n,
			      struct dpa_error *err)
{
	struct dpf_feedback *out = x->out;
	struct group *g = NULL;
	uint32_t ng = 0, cap = 0, seq = 0;
	int rc = -1;

	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < in[i].n_cand; j++, seq++) {
			const struct dpf_candidate *c = &in[i].cand[j];
			uint32_t k;

			/* earlier inputs only: an input's own candidates are distinct */
			for (k = 0; k < ng; k++)
				if (g[k].m[g[k].n - 1][0] != i &&
				    cand_match(&in[g[k].m[0][0]].cand[g[k].m[0][1]], c))
					break;
			if (k == ng) {
				if (ng == cap) {
					uint32_t nc = cap ? cap * 2 : 16;
					struct group *ngp = realloc(g, nc * sizeof(*g));

					if (!ngp)
						goto done;
					g = ngp;
					cap = nc;
				}
				memset(&g[ng], 0, sizeof(g[ng]));
				g[ng].first = seq;
				ng++;
			}
			if (add_member(&g[k], i, j) < 0)
				goto done;
		}
	for (uint32_t k = 0; k < ng; k++)
		if (settle(&g[k], in) < 0)
			goto done;
	if (ng)
		qsort(g, ng, sizeof(*g), cmp_group);
	out->cand = dpf_alloc(out, (ng ? ng : 1) * sizeof(*out->cand));
	if (!out->cand)
		goto done;
	for (uint32_t k = 0; k < ng; k++) {
		out->cand[k] = g[k].c;
		out->cand[k].id = k + 1;
		cp_candidate(x, &out->cand[k]);
	}
	out->n_cand = ng;
	rc = x->oom ? -1 : 0;
done:
	for (uint32_t k = 0; k < ng; k++) {
		free(g[k].m);
		free(g[k].reach);
	}
	free(g);
	return rc < 0 ? oom(err) : 0;
}

/* The union of one list over the inputs: LIST is the field, N its count. */
#define UNION(x, in, n, LIST, N, match, copy)                                    \
	do {                                                                     \
		uint32_t tot_ = 0, k_ = 0;                                       \
		for (uint32_t i_ = 0; i_ < (n); i_++)                             \
			tot_ += (in)[i_].N;                                       \
		(x)->out->LIST = dpf_alloc((x)->out, (tot_ ? tot_ : 1) *       \
					   sizeof(*(x)->out->LIST));           \
		if (!(x)->out->LIST) {                                           \
			(x)->oom = true;                                         \
			break;                                                   \
		}                                                                \
		for (uint32_t i_ = 0, k0_ = 0; i_ < (n); i_++, k0_ = k_)          \
			for (uint32_t j_ = 0; j_ < (in)[i_].N; j_++) {            \
				uint32_t q_;                                     \
				/* earlier inputs' entries only */               \
				for (q_ = 0; q_ < k0_; q_++)                     \
					if (match(&(x)->out->LIST[q_],           \
						  &(in)[i_].LIST[j_]))           \
						break;                           \
				if (q_ < k0_)                                    \
					continue;                                \
				(x)->out->LIST[k_] = (in)[i_].LIST[j_];           \
				copy(x, &(x)->out->LIST[k_]);                    \
				k_++;                                            \
			}                                                        \
		(x)->out->N = k_;                                                \
	} while (0)

static void cp_hot(struct cx *x, struct dpf_hot *h)
{
	cp_place(x, &h->at);
	h->callee = cp_str(x, h->callee);
}

static void cp_rec(struct cx *x, struct dpf_recursion *r)
{
	cp_place(x, &r->at);
	r->level_cost = cp_mem(x, r->level_cost, r->n_levels * sizeof(double));
	r->why = cp_str(x, r->why);
}

static void cp_use(struct cx *x, struct dpf_var_use *v)
{
	cp_place(x, &v->at);
	v->callee = cp_str(x, v->callee);
	v->var = cp_str(x, v->var);
	v->why = cp_str(x, v->why);
}

int dpf_feedback_combine(struct dpf_feedback *out, const struct dpf_feedback *in, uint32_t n,
			 struct dpa_error *err)
{
	struct cx x = { out, false };
	uint32_t tot = 0;

	memset(out, 0, sizeof(*out));
	if (n == 0) {
		if (err)
			snprintf(err->msg, sizeof(err->msg), "feedback: no input to combine");
		return -1;
	}
	for (uint32_t i = 1; i < n; i++)
		if (strcmp(prog_base(in[i].program), prog_base(in[0].program))) {
			if (err)
				snprintf(err->msg, sizeof(err->msg),
					 "%s: a profile of '%s', not of '%s' like %s", in_name(&in[i]),
					 prog_base(in[i].program), prog_base(in[0].program),
					 in_name(&in[0]));
			return one_line(err);
		}
	for (uint32_t i = 1; i < n; i++)
		if (in[i].basis != in[0].basis) {
			/* costs in different units cannot be compared or mixed */
			if (err)
				snprintf(err->msg, sizeof(err->msg),
					 "%s: its estimates rest on %s, those of %s on %s (--basis "
					 "chooses one for both)", in_name(&in[i]),
					 dpf_basis_name(in[i].basis), in_name(&in[0]),
					 dpf_basis_name(in[0].basis));
			return one_line(err);
		}
	out->version = DPF_FEEDBACK_VERSION;
	out->program = cp_str(&x, in[0].program);
	out->opt = in[0].opt;
	out->basis = in[0].basis;
	out->ns_per_unit = in[0].ns_per_unit;
	out->program_cost = in[0].program_cost;
	for (uint32_t i = 0; i < n; i++)
		tot += in[i].n_input;
	out->input = dpf_alloc(out, (tot ? tot : 1) * sizeof(*out->input));
	if (!out->input)
		goto fail;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < in[i].n_input; j++) {
			struct dpf_input *d = &out->input[out->n_input++];

			*d = in[i].input[j];
			d->path = cp_str(&x, d->path);
			d->program = cp_str(&x, d->program);
		}
	if (combine_candidates(&x, in, n, err) < 0) {
		dpf_feedback_release(out);
		return -1;
	}
	UNION(&x, in, n, hot, n_hot, hot_match, cp_hot);
	UNION(&x, in, n, rec, n_rec, rec_match, cp_rec);
	UNION(&x, in, n, var_use, n_var_use, use_match, cp_use);
	if (x.oom)
		goto fail;
	return 0;
fail:
	dpf_feedback_release(out);
	return oom(err);
}
