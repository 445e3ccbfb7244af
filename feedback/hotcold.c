/*
 * hotcold.c — hot and cold code for the feedback model: procedures and call
 * sites whose calls cost at least a threshold ("calls above threshold"), and
 * those never or almost never executed; and the places the model keys by.
 * Part of deepprof's feedback library. MIT licence.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hotcold.h"
#include "places.h"

/*
 * What "cost per call" means here (the profile keeps per-context sums, not
 * single calls):
 *
 *  A context is a csd. A site's contexts are the csds of its css; a
 *  procedure's are the csds that call one of its pds. Each context has
 *  calls c and a total cost t (dpa_deep_csd_total(): the calls' own cost
 *  plus everything below them; along a call inside a clique, only its own).
 *
 *  Procedure: only its *outer* calls are costed, the csds entering the
 *  callee's clique from another one: a recursive call's cost is already
 *  inside the outer call's total (startup never propagates along calls in
 *  a clique). A procedure called only from inside its clique (a mutual
 *  recursion member its clique mates reach) is costed over all its calls.
 *  Site: every context is costed (a recursive site's calls then cost their
 *  own share; recursion_patterns.c gives them per level).
 *
 *  mean   = sum of t / sum of c over the costed contexts: the mean over
 *           calls.
 *  median = the median over the costed calls when every call is costed at
 *           its context's mean t/c: sort the contexts by t/c, and take the
 *           value of the middle call (the mean of the two middle ones for
 *           an even number of calls). One context: median = mean; many
 *           cheap calls and a few dear ones: median < mean.
 *
 *  hot:   mean or median at least opt.hot_threshold ns (in units: divided
 *         by ns_per_unit).
 *  rare:  1 <= calls <= opt.rare_calls (all calls, outer or not), not hot.
 *  never: calls == 0: a ps or css of the profile with no calls; and with a
 *         loaded progrep, its functions and call sites the profile has no
 *         node for (progrep_never(): a run writes only the nodes it made).
 *  The thread roots (ps 1, "<root>") and their sites are left out.
 *  A never entry a compiler cannot tell from code that ran is left out
 *  too (drop_shadowed()): a compiler finds an entry by function name, file
 *  (its base name) and, for a site, line and column, not by translation
 *  unit, so a static inline function of a header, with one copy per unit,
 *  would take the "never" of a copy no run reached to the copies that ran
 *  (gawk's DEREF: its call of r_unref never ran from builtin.c but runs
 *  all the time in eval.c's interpreter).
 *  Order: hot by mean descending, then rare by calls descending, then
 *  never; ties: procedures before sites, then by id (the progrep's after
 *  the profile's, in record order).
 */

/* ================================================================
 * Costs per call
 * ================================================================ */

/* One costed context: its calls and its mean cost per call. */
struct ctx {
	double mean;
	uint64_t calls;
};

/* qsort order: ascending mean. */
static int by_mean(const void *a, const void *b)
{
	const struct ctx *x = a, *y = b;

	return x->mean < y->mean ? -1 : x->mean > y->mean;
}

/*
 * The median over calls of n contexts (each call costed at its context's
 * mean; contexts with no calls ignored). Sorts c. 0 when there are no calls.
 */
static double median_of(struct ctx *c, uint32_t n)
{
	uint64_t all = 0, lo, hi, seen = 0;
	double vlo = 0, vhi = 0;

	qsort(c, n, sizeof(*c), by_mean);
	for (uint32_t i = 0; i < n; i++)
		all += c[i].calls;
	if (!all)
		return 0;
	/* the middle calls, 1-based: lo == hi for an odd number */
	lo = (all + 1) / 2;
	hi = all / 2 + 1;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t next = seen + c[i].calls;

		if (seen < lo && lo <= next)
			vlo = c[i].mean;
		if (seen < hi && hi <= next) {
			vhi = c[i].mean;
			break;
		}
		seen = next;
	}
	return (vlo + vhi) / 2;
}

/* What one procedure or site adds up to. */
struct acc {
	uint64_t calls;         /* every call */
	uint64_t costed;        /* the calls the mean is over */
	double total, total_cscs;
	double mean, median, mean_cscs;
};

/*
 * Cost the csds xs[0 .. n) of one procedure or site into *a, with m the
 * basis measure. outer_only: a procedure's (only csds entering the
 * callee's clique are costed, unless there are none). buf has room for n.
 */
static void cost_group(const struct dpa_deep *d, const uint32_t *xs, uint32_t n,
		       enum dpa_measure m, bool outer_only, struct ctx *buf, struct acc *a)
{
	const struct dpa_profile *p = d->p;
	uint32_t nb = 0;
	bool any_outer = false;

	memset(a, 0, sizeof(*a));
	for (uint32_t i = 0; i < n; i++) {
		uint64_t c = dpa_own(p, xs[i], DPA_CALLS);

		a->calls += c;
		if (c && !dpa_csd_internal(&d->cl, p, xs[i]))
			any_outer = true;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t c = dpa_own(p, xs[i], DPA_CALLS);
		double t;

		if (!c || (outer_only && any_outer && dpa_csd_internal(&d->cl, p, xs[i])))
			continue;
		t = (double)dpa_deep_csd_total(d, xs[i], m);
		a->costed += c;
		a->total += t;
		a->total_cscs += (double)dpa_deep_csd_total(d, xs[i], DPA_CSCS);
		buf[nb++] = (struct ctx){ t / (double)c, c };
	}
	if (!a->costed)
		return;
	a->mean = a->total / (double)a->costed;
	a->mean_cscs = a->total_cscs / (double)a->costed;
	a->median = median_of(buf, nb);
}

/* ================================================================
 * The lists
 * ================================================================ */

/* An entry before its place is filled: kind, id (ps or css), temp. */
struct cand {
	uint8_t kind, temp;
	uint32_t id;            /* ps or css; 0: known from the progrep only */
	uint32_t seq;           /* progrep only: 1, 2, ... in record order */
	const struct dpa_pr_fn *fn;     /* progrep only: the function */
	const struct dpa_pr_call *call; /* progrep only, SITE: the call */
	uint64_t tu_id;
	struct acc a;
};

/* qsort order of the list (see the top of this file). */
static int cand_order(const void *pa, const void *pb)
{
	const struct cand *x = pa, *y = pb;

	if (x->temp != y->temp)
		return x->temp < y->temp ? -1 : 1;
	if (x->temp == DPF_HOT) {
		if (x->a.mean != y->a.mean)
			return x->a.mean > y->a.mean ? -1 : 1;
		if (x->a.median != y->a.median)
			return x->a.median > y->a.median ? -1 : 1;
	} else if (x->temp == DPF_RARE && x->a.calls != y->a.calls) {
		return x->a.calls > y->a.calls ? -1 : 1;
	}
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Group csd ids 1 .. n_csd by key(csd) in 1 .. n_key: on success *first
 * gets n_key + 2 offsets and *ids the csds, those of key k at
 * ids[first[k] .. first[k+1]). Returns 0 or -1 (out of memory).
 */
static int group_csds(const struct dpa_profile *p, bool by_callee_ps, uint32_t n_key,
		      uint32_t **first, uint32_t **ids)
{
	uint32_t *f = calloc((size_t)n_key + 2, sizeof(*f));
	uint32_t *v = malloc(((size_t)p->n_csd + 1) * sizeof(*v));

	if (!f || !v) {
		free(f);
		free(v);
		return -1;
	}
	for (uint32_t x = 1; x <= p->n_csd; x++) {
		uint32_t k = by_callee_ps ? p->pd[p->csd[x].callee_pd].ps : p->csd[x].css;

		if (k >= 1 && k <= n_key)
			f[k + 1]++;
	}
	for (uint32_t k = 1; k <= n_key; k++)
		f[k + 1] += f[k];
	for (uint32_t x = 1; x <= p->n_csd; x++) {
		uint32_t k = by_callee_ps ? p->pd[p->csd[x].callee_pd].ps : p->csd[x].css;

		if (k >= 1 && k <= n_key)
			v[f[k]++] = x;
	}
	/* f[k] now ends key k: shift back */
	for (uint32_t k = n_key + 1; k >= 1; k--)
		f[k] = f[k - 1];
	f[0] = f[1] = 0;
	*first = f;
	*ids = v;
	return 0;
}

/* The callee's name of site css: static, else the progrep's, else the one
 * procedure all its csds call; NULL when unknown or several. */
static const char *callee_of(const struct dpa_profile *p, const struct dpa_progreps *pr,
			     uint32_t css, const uint32_t *xs, uint32_t n)
{
	uint32_t one = 0;

	if (p->css[css].callee_ps)
		return dpa_ps_name(p, p->css[css].callee_ps);
	if (pr && pr->css && pr->p == p && pr->css[css].call && pr->css[css].call->callee)
		return pr->css[css].call->callee;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t ps = p->pd[p->csd[xs[i]].callee_pd].ps;

		if (one && ps != one)
			return NULL;
		one = ps;
	}
	return one ? dpa_ps_name(p, one) : NULL;
}

/* Room for one more entry at (*cs)[*n] (doubling *cap). Returns 0 or -1. */
static int grow(struct cand **cs, uint32_t n, uint32_t *cap)
{
	struct cand *v;
	uint32_t c;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : 64;
	if (!(v = realloc(*cs, (size_t)c * sizeof(*v))))
		return -1;
	*cs = v;
	*cap = c;
	return 0;
}

/* qsort/bsearch order of strings. */
static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Never executed, from the progrep: in each loaded module, the functions
 * of its progrep that no ps of the profile maps to (nor has the name of:
 * a mapping that failed is not proof), and the call sites, in functions
 * that ran, that no css maps to. (The profile holds only the nodes a run
 * created.) A call inlined everywhere under calls=surviving is never
 * entered as a call and is listed too. Appends to *cs. Returns 0 or -1.
 */
static int progrep_never(const struct dpa_profile *p, const struct dpa_progreps *pr,
			 struct cand **cs, uint32_t *n, uint32_t *cap)
{
	const char **names = NULL;
	uint8_t *fn_hit = NULL, *call_hit = NULL;
	uint32_t *off = NULL, seq = 0;
	int rc = -1;

	if (!pr || !pr->mod || !pr->ps || !pr->css || pr->p != p || !pr->n_loaded)
		return 0;
	for (uint32_t m = 1; m <= p->n_module; m++) {
		const struct dpa_progrep *r = dpf_progrep_of(pr, m);
		uint32_t n_names = 0, n_calls = 0;

		if (!r || !r->n_fn)
			continue;
		free(names);
		free(fn_hit);
		free(call_hit);
		free(off);
		call_hit = NULL;
		names = malloc(((size_t)p->n_ps + 1) * sizeof(*names));
		fn_hit = calloc(r->n_fn, 1);
		off = malloc(((size_t)r->n_fn + 1) * sizeof(*off));
		if (!names || !fn_hit || !off)
			goto out;
		for (uint32_t f = 0; f < r->n_fn; f++) {
			off[f] = n_calls;
			n_calls += r->fn[f].n_sites;
		}
		off[r->n_fn] = n_calls;
		if (!(call_hit = calloc((size_t)n_calls + 1, 1)))
			goto out;
		for (uint32_t i = 1; i <= p->n_ps; i++) {
			if (pr->ps[i].module == m && pr->ps[i].fn)
				fn_hit[pr->ps[i].fn - r->fn] = 1;
			if (p->ps[i].module == m && dpa_src_get(p, DPA_PS_NAME, i))
				names[n_names++] = dpa_src_str(p, DPA_PS_NAME, i);
		}
		qsort(names, n_names, sizeof(*names), by_str);
		for (uint32_t c = 1; c <= p->n_css; c++) {
			const struct dpa_pr_call *call = pr->css[c].call;

			if (pr->css[c].module == m && call && call->fn < r->n_fn)
				call_hit[off[call->fn] + (call - r->fn[call->fn].calls)] = 1;
		}
		for (uint32_t f = 0; f < r->n_fn; f++) {
			const struct dpa_pr_fn *fn = &r->fn[f];
			uint64_t tu_id = fn->tu < r->n_tu ? r->tu[fn->tu].id : 0;

			if (!fn_hit[f]) {
				if (fn->name && bsearch(&fn->name, names, n_names, sizeof(*names),
							by_str))
					continue;
				if (grow(cs, *n, cap) < 0)
					goto out;
				(*cs)[(*n)++] = (struct cand){ .kind = DPF_PROC, .temp = DPF_NEVER,
							       .seq = ++seq, .fn = fn,
							       .tu_id = tu_id };
				continue;
			}
			for (uint32_t k = 0; k < fn->n_sites; k++) {
				if (call_hit[off[f] + k])
					continue;
				if (grow(cs, *n, cap) < 0)
					goto out;
				(*cs)[(*n)++] = (struct cand){ .kind = DPF_SITE, .temp = DPF_NEVER,
							       .seq = ++seq, .fn = fn,
							       .call = &fn->calls[k], .tu_id = tu_id };
			}
		}
	}
	rc = 0;
out:
	free(names);
	free(fn_hit);
	free(call_hit);
	free(off);
	return rc;
}

/* The place of an entry known from the progrep only. Returns 0 or -1. */
static int place_pr(struct dpf_feedback *fb, const struct cand *c, struct dpf_hot *h)
{
	const struct dpa_pr_fn *fn = c->fn;

	if ((fn->name && !(h->at.fn = dpf_strdup(fb, fn->name))) ||
	    (fn->file && !(h->at.file = dpf_strdup(fb, fn->file))))
		return -1;
	h->at.line = fn->line;
	h->at.checksum = fn->checksum;
	if (!c->call)
		return 0;
	h->at.line = c->call->line;
	h->at.col = c->call->col;
	h->at.has_site = true;
	h->at.tu_id = c->tu_id;
	h->at.site = c->call->site;
	if (c->call->callee && !(h->callee = dpf_strdup(fb, c->call->callee)))
		return -1;
	return 0;
}

/* Classify one costed procedure or site; false: not listed. */
static bool classify(struct cand *c, const struct dpf_feedback *fb, double thr)
{
	if (c->a.calls == 0)
		c->temp = DPF_NEVER;
	else if (c->a.mean >= thr || c->a.median >= thr)
		c->temp = DPF_HOT;
	else if (c->a.calls <= fb->opt.rare_calls)
		c->temp = DPF_RARE;
	else
		return false;
	return true;
}

/* ================================================================
 * Never entries shadowed by code that ran
 * ================================================================ */

/* What a compiler matches an entry by: kind, function, file's base name,
 * and for a site, line and column (procedures: by name and file only, the
 * wider match, so copies anywhere in one file count as one). */
struct key {
	uint8_t kind;
	const char *fn, *file;
	uint32_t line, col;
};

static const char *base_or_empty(const char *path)
{
	const char *s;

	if (!path)
		return "";
	s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int key_order(const void *pa, const void *pb)
{
	const struct key *x = pa, *y = pb;
	int c;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if ((c = strcmp(x->fn, y->fn)) || (c = strcmp(x->file, y->file)))
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->col < y->col ? -1 : x->col > y->col;
}

/* The key of procedure ps of the profile (as dpf_place_ps() places it). */
static struct key key_ps(const struct dpa_profile *p, const struct dpa_progreps *pr, uint32_t ps)
{
	const struct dpa_pr_fn *f = pr && pr->ps && pr->p == p && pr->ps[ps].module ?
				    pr->ps[ps].fn : NULL;
	const char *name = dpa_ps_name(p, ps);
	const char *file = dpa_src_get(p, DPA_PS_FILE, ps) ? dpa_src_str(p, DPA_PS_FILE, ps) :
			   f ? f->file : NULL;

	return (struct key){ DPF_PROC, name ? name : "", base_or_empty(file), 0, 0 };
}

/* The key of call site css of the profile (as dpf_place_css() places it). */
static struct key key_css(const struct dpa_profile *p, const struct dpa_progreps *pr, uint32_t css)
{
	const struct dpa_css *s = &p->css[css];
	const char *fn = s->caller_ps ? dpa_ps_name(p, s->caller_ps) :
			 dpa_src_str(p, DPA_CSS_IN_FN, css);
	struct key k = { DPF_SITE, fn ? fn : "",
			 base_or_empty(dpa_src_get(p, DPA_CSS_FILE, css) ?
				       dpa_src_str(p, DPA_CSS_FILE, css) : NULL),
			 dpa_src_get(p, DPA_CSS_LINE, css), dpa_src_get(p, DPA_CSS_COL, css) };

	if (!k.line && pr && pr->css && pr->p == p && pr->css[css].module && pr->css[css].call) {
		k.line = pr->css[css].call->line;
		k.col = pr->css[css].call->col;
	}
	return k;
}

/* The key of entry c (profile or progrep). */
static struct key key_cand(const struct dpa_profile *p, const struct dpa_progreps *pr,
			   const struct cand *c)
{
	if (!c->fn)
		return c->kind == DPF_PROC ? key_ps(p, pr, c->id) : key_css(p, pr, c->id);
	if (!c->call)
		return (struct key){ DPF_PROC, c->fn->name ? c->fn->name : "",
				     base_or_empty(c->fn->file), 0, 0 };
	return (struct key){ DPF_SITE, c->fn->name ? c->fn->name : "", base_or_empty(c->fn->file),
			     c->call->line, c->call->col };
}

/*
 * Leave out of cs[0 .. *n) every never entry whose key is that of a
 * procedure or site of the profile that ran (ran_ps[i] for i < n_ps,
 * ran_css likewise: 1 when it had calls). Returns 0 or -1 (out of memory).
 */
static int drop_shadowed(const struct dpa_profile *p, const struct dpa_progreps *pr,
			 const uint8_t *ran_ps, const uint8_t *ran_css, struct cand *cs, uint32_t *n)
{
	struct key *ks;
	uint32_t nk = 0, kept = 0;

	ks = malloc(((size_t)p->n_ps + p->n_css + 1) * sizeof(*ks));
	if (!ks)
		return -1;
	for (uint32_t ps = 2; ps <= p->n_ps; ps++)
		if (ran_ps[ps])
			ks[nk++] = key_ps(p, pr, ps);
	for (uint32_t s = 1; s <= p->n_css; s++)
		if (ran_css[s])
			ks[nk++] = key_css(p, pr, s);
	qsort(ks, nk, sizeof(*ks), key_order);
	for (uint32_t i = 0; i < *n; i++) {
		struct key k;

		if (cs[i].temp == DPF_NEVER) {
			k = key_cand(p, pr, &cs[i]);
			if (bsearch(&k, ks, nk, sizeof(*ks), key_order))
				continue;
		}
		cs[kept++] = cs[i];
	}
	*n = kept;
	free(ks);
	return 0;
}

/* fb->hot: the hot, rare and never executed procedures and sites of d (see
 * the top of this file), in fb's arena. Returns 0, or -1 out of memory. */
int dpf_hotcold(struct dpf_feedback *fb, const struct dpa_deep *d,
		const struct dpa_progreps *pr, struct dpa_error *err)
{
	const struct dpa_profile *p = d->p;
	enum dpa_measure m = fb->basis == DPF_TICKS ? DPA_TICKS : DPA_CSCS;
	double thr = fb->ns_per_unit > 0 ? fb->opt.hot_threshold / fb->ns_per_unit : INFINITY;
	uint32_t *pf = NULL, *pv = NULL, *sf = NULL, *sv = NULL, n = 0, cap = 0;
	struct ctx *buf = NULL;
	struct cand *cs = NULL;
	uint8_t *ran_ps = NULL, *ran_css = NULL;
	int rc = -1;

	fb->n_hot = 0;
	fb->hot = NULL;
	if (group_csds(p, true, p->n_ps, &pf, &pv) < 0 ||
	    group_csds(p, false, p->n_css, &sf, &sv) < 0)
		goto oom;
	buf = malloc(((size_t)p->n_csd + 1) * sizeof(*buf));
	ran_ps = calloc((size_t)p->n_ps + 1, 1);
	ran_css = calloc((size_t)p->n_css + 1, 1);
	if (!buf || !ran_ps || !ran_css)
		goto oom;
	/* only the listed entries are kept: most procedures and sites are not */
	for (uint32_t ps = 2; ps <= p->n_ps; ps++) {
		struct cand *c;

		if (grow(&cs, n, &cap) < 0)
			goto oom;
		c = &cs[n];
		memset(c, 0, sizeof(*c));
		c->kind = DPF_PROC;
		c->id = ps;
		cost_group(d, pv + pf[ps], pf[ps + 1] - pf[ps], m, true, buf, &c->a);
		ran_ps[ps] = c->a.calls > 0;
		if (classify(c, fb, thr))
			n++;
	}
	for (uint32_t s = 1; s <= p->n_css; s++) {
		struct cand *c;

		if (p->css[s].caller_ps == 1)
			continue;       /* a thread root's call of main */
		if (grow(&cs, n, &cap) < 0)
			goto oom;
		c = &cs[n];
		memset(c, 0, sizeof(*c));
		c->kind = DPF_SITE;
		c->id = s;
		cost_group(d, sv + sf[s], sf[s + 1] - sf[s], m, false, buf, &c->a);
		ran_css[s] = c->a.calls > 0;
		if (classify(c, fb, thr))
			n++;
	}
	if (progrep_never(p, pr, &cs, &n, &cap) < 0 ||
	    drop_shadowed(p, pr, ran_ps, ran_css, cs, &n) < 0)
		goto oom;
	if (n)
		qsort(cs, n, sizeof(*cs), cand_order);
	if (n && !(fb->hot = dpf_alloc(fb, (size_t)n * sizeof(*fb->hot))))
		goto oom;
	for (uint32_t i = 0; i < n; i++) {
		const struct cand *c = &cs[i];
		struct dpf_hot *h = &fb->hot[i];

		h->kind = c->kind;
		h->temp = c->temp;
		h->calls = c->a.calls;
		h->outer_calls = c->a.costed;
		h->mean = c->a.mean;
		h->median = c->a.median;
		h->mean_cscs = c->a.mean_cscs;
		h->mean_ns = c->a.mean * fb->ns_per_unit;
		if (c->fn) {
			if (place_pr(fb, c, h) < 0)
				goto oom;
		} else if (c->kind == DPF_PROC) {
			if (dpf_place_ps(fb, p, pr, c->id, &h->at) < 0)
				goto oom;
		} else {
			const char *callee = callee_of(p, pr, c->id, sv + sf[c->id],
						       sf[c->id + 1] - sf[c->id]);

			if (dpf_place_css(fb, p, pr, c->id, &h->at) < 0 ||
			    (callee && !(h->callee = dpf_strdup(fb, callee))))
				goto oom;
		}
	}
	fb->n_hot = n;
	rc = 0;
	goto out;
oom:
	rc = dpa_fail(err, p, "out of memory finding hot and cold code");
	fb->n_hot = 0;
out:
	free(pf);
	free(pv);
	free(sf);
	free(sv);
	free(buf);
	free(cs);
	free(ran_ps);
	free(ran_css);
	return rc;
}
