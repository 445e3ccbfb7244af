/*
 * recursion_patterns.c — the feedback model's recursion patterns: the type
 * of a recursive clique from the progrep (else from its counts,
 * dpa_recursion_of() in analyses/recursion.c), the cost of a call at each
 * level and a parallel cut-off.
 * Part of deepprof's feedback library. MIT licence.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "places.h"
#include "recursion_patterns.h"

/* ================================================================
 * Recursion patterns for the feedback model
 * ================================================================ */

/*
 * The type. With a loaded progrep for a one-member clique, its recursive
 * call sites (the css of its internal csds) are looked up in the
 * function's body: the most recursive calls one execution of the body can
 * make is the sum along a sequence, the largest over a branch's arms (one
 * arm runs per execution), so sites in different arms of one branch are
 * single recursion and two on one path divide-and-conquer (k-way for k on
 * one path); a recursive site inside a loop makes an unknown number of
 * calls per activation: other. A site the body does not place (unplaced,
 * another TU, no record) sends it back to the counts of dpa_recursion_of()
 * (one site simple, two divide-and-conquer, more other). Two or more
 * members: mutual.
 *
 * The level model (single and divide-and-conquer). An entry's activations
 * A/E = (entry + internal calls) / entry calls; T = the clique's total cost
 * per entry; every activation costs the same per_call = T / (A/E) without
 * its recursive calls (its own work and its non-recursive callees).
 *   single, depth D = A/E: the call at level L (0: the entry) runs levels
 *     L .. D-1, cost(L) = (D - L) * per_call.
 *   divide-and-conquer with k calls per activation, balanced: A/E =
 *     (k^D - 1) / (k - 1), so D = log_k((A/E)(k - 1) + 1), and
 *     cost(L) = per_call * (k^(D-L) - 1) / (k - 1): each level about 1/k of
 *     the one above (halves for k = 2).
 * Levels 0 .. ceil(D)-1 exist; level_cost holds the first 64.
 *
 * The cut-off. The overheads of spawning one task are O = spawn_cost +
 * spawn_delay + barrier_cost (ns, in basis units by ns_per_unit).
 *   divide-and-conquer (k calls per activation, P = max_tasks cores):
 *     with cut-off c the activations at levels 0 .. c-1 spawn their calls
 *     (k^c - 1 tasks) and the k^c calls at level c run serially. An
 *     activation's work outside its recursive calls has two parts: its
 *     own code, the same at every activation (o = own / activations), and
 *     its non-recursive callees (merge, partition: M per entry), taken as
 *     proportional to the sub-problem (T(n) = k T(n/k) + O(n)): M/D at
 *     every level, shared by the level's k^L activations. The parallel
 *     time of one entry is
 *       T(c) = sum over L < c of (M/D/k^L + o) * ceil(k^L / P)
 *                                  (the top levels: the first merge alone)
 *            + max(leaf, below/P + leaf * (P-1) / (2P))
 *                                  (below = the rest of the work, leaf =
 *                                   below / k^c; the last leaves finish
 *                                   unevenly: the other cores idle about
 *                                   half a leaf at the end)
 *            + (k^c - 1) * (spawn_cost + barrier_cost) / P + c * spawn_delay
 *     and cutoff_depth = the deepest c in 1 .. min(levels - 1, 40) whose
 *     T(c) is within DPF_CUTOFF_SLACK (1%) of the least T and whose
 *     leaves (cost_per_entry / k^c) cost at least DPF_LEAF_FACTOR (1000)
 *     task overheads, else the least's c (real splits vary from node to
 *     node; more, smaller tasks even them out, down to where the costs of
 *     tasks the model leaves out, stealing and cache misses, would show),
 *     if the least is less than the sequential cost of an entry; par_cost
 *     = that c's T. The imbalance term stands for both the
 *     end of the run and unbalanced splits (fib(n-1)/fib(n-2)): with few
 *     leaves it is large, so the model prefers enough leaves to balance.
 *   single: a spawned call at level L runs beside what is left of its
 *     caller's own work, at most per_call, at every level alike: if
 *     per_call >= factor * O every level gains (cutoff_depth = ceil(D)-1,
 *     the deepest), else none.
 * 0: never (also for mutual and other recursion, with no level model).
 *
 * The split (schemas/feedback-model.md 3, "Unbalanced splits"). The
 * model above takes a divide-and-conquer's k calls as equal halves. With
 * k = 2 and the profile's split measure (schemas/deep-data.md, inside: the
 * time inside each recursive site's calls, per activation on the stack),
 * i = the first site's share of the two (source order: line, column, then
 * the site's address) is how the work below an activation divides between
 * the call made inline (the first; the later one is spawned,
 * feedback-model.md 6) and the spawned one. libgomp then schedules so:
 * the thread that runs the entry (the spawner) descends the inline calls,
 * queueing at level j the spawned task S_j (share i^(j-1) (1-i) of the
 * entry's recursive work), and at each taskwait runs only its own child,
 * so it never helps another thread; an idle thread takes the oldest queued
 * task. With P cores the P-1 others take S_1, S_2, ... in that order, S_j
 * while they are free before the spawner reaches it (it reaches S_j at
 * i^j, having run its leaf i^c and S_c .. S_(j+1)), and the spawner does
 * the rest: m tasks stolen (m >= min(c, P-1), S_j taken while
 * (1 - i^(j-1)) / (P-1) < i^j, j <= c), the entry takes at least
 *   T_split(c) = cost_per_entry * max(i^m, (1 - i^m) / (P - 1)) + overheads
 * and the model's T(c) is the larger of T_split(c) and the balanced T(c).
 * On 2 cores fib (i = 0.618) gives 0.618 at every cut-off: speedup 1/0.618
 * = 1.618, where the balanced model said ~2; a mergesort (i = 0.5) keeps
 * the balanced T(c) (T_split is 0.5 plus overheads, never more). Exact for
 * P = 2; for more cores the thieves' own imbalance is left out. Without
 * the measure (an old file, the timer off, fewer than DPF_SPLIT_MIN
 * activation-ticks on the two sites or DPF_SPLIT_TICKS clock ticks in the
 * recursion, or not two sites) the balanced model
 * stands, and `why` says so.
 */
#define DPF_SPLIT_MIN 50.0
#define DPF_SPLIT_TICKS 20.0    /* and clock ticks in the recursion */
#define DPF_CUTOFF_FACTOR 10.0
#define DPF_CUTOFF_SLACK 0.01   /* the deepest cut-off this close to the best */
#define DPF_LEAF_FACTOR 1000.0  /* ... whose leaves cost this many task overheads */
#define DPF_MAX_CUTOFF 40
#define MAX_REC_SITES 16

/* The progrep's view of a body: the most recursive calls on one path, and
 * whether one sits in a loop. found[i] is set for rec site i seen. */
struct body_scan {
	const uint32_t *site;   /* the recursive sites (TU-wide ids) */
	uint32_t n;
	bool found[MAX_REC_SITES];
	bool in_loop;
};

/* The most recursive calls one execution of body b makes (see above). */
static uint32_t scan_body(struct body_scan *s, const struct dpa_pr_body *b, bool loop)
{
	uint32_t sum = 0;

	for (uint32_t i = 0; i < b->n; i++) {
		const struct dpa_pr_item *it = &b->items[i];

		switch (it->kind) {
		case DPA_PR_ITEM_CALL:
			for (uint32_t j = 0; j < s->n; j++)
				if (s->site[j] == it->site) {
					s->found[j] = true;
					s->in_loop |= loop;
					sum++;
					break;
				}
			break;
		case DPA_PR_ITEM_BRANCH: {
			uint32_t best = 0;

			for (uint32_t a = 0; a < it->n_arms; a++) {
				uint32_t k = scan_body(s, &it->arms[a], loop);

				if (k > best)
					best = k;
			}
			sum += best;
			break;
		}
		case DPA_PR_ITEM_LOOP:
			sum += scan_body(s, &it->body, true);
			break;
		default:
			break;
		}
	}
	return sum;
}

/*
 * The type of one-member clique c (pd q) from the progrep: 0 and *type,
 * *branching set; -1 when the progrep cannot say (not loaded, a recursive
 * site not placed in the body).
 */
static int type_from_progrep(const struct dpa_deep *d, const struct dpa_progreps *pr, uint32_t q,
			     uint8_t *type, uint32_t *branching)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_pd *pd = &p->pd[q];
	const struct dpa_pr_fn *fn;
	const struct dpa_progrep *r;
	struct body_scan s = { 0 };
	uint32_t site[MAX_REC_SITES];
	uint32_t mod, k;
	uint64_t tu_id;

	if (!pr || !pr->ps || !pr->css || !pr->mod || pr->p != p)
		return -1;
	mod = pr->ps[pd->ps].module;
	fn = pr->ps[pd->ps].fn;
	if (!mod || !fn || mod > p->n_module || pr->mod[mod].state != DPA_PR_LOADED)
		return -1;
	r = &pr->mod[mod].pr;
	if (fn->tu >= r->n_tu)
		return -1;
	tu_id = r->tu[fn->tu].id;
	for (uint32_t i = 0; i < dpa_pd_out_n(pd); i++) {
		uint32_t x = dpa_out_csd(p, pd->out_first + i);
		const struct dpa_pr_css_map *m;
		uint32_t j;

		if (p->csd[x].callee_pd != q)
			continue;
		m = &pr->css[p->csd[x].css];
		if (m->module != mod || m->tu_id != tu_id)
			return -1;
		for (j = 0; j < s.n && site[j] != m->site; j++)
			;
		if (j < s.n)
			continue;
		if (s.n == MAX_REC_SITES)
			return -1;
		site[s.n++] = m->site;
	}
	if (!s.n)
		return -1;
	s.site = site;
	k = scan_body(&s, &fn->body, false);
	for (uint32_t j = 0; j < s.n; j++)
		if (!s.found[j])
			return -1;
	if (s.in_loop) {
		*type = DPA_REC_OTHER;
		*branching = 0;
	} else if (k >= 2) {
		*type = DPA_REC_DIVIDE;
		*branching = k;
	} else {
		*type = DPA_REC_SIMPLE;
		*branching = 1;
	}
	return 0;
}

/* cost(L) of the level model (see above). */
static double level_cost(double per_call, double depth, uint32_t k, double level)
{
	if (k <= 1)
		return (depth - level) * per_call;
	return per_call * (pow(k, depth - level) - 1.0) / (double)(k - 1);
}

/* The parts of T(c) of the divide-and-conquer model (see above), basis
 * units per entry. */
struct dc_time {
	double top, below, imbalance, overhead, total;
};

/* T(c) for r (its cost_per_entry, depth, own_per_call, combine_cost and
 * cores set), k calls per activation, cut-off c >= 1; sc = spawn_cost +
 * barrier_cost and dl = spawn_delay in basis units. */
static struct dc_time dc_time(const struct dpf_recursion *r, uint32_t k, uint32_t c,
			      double sc, double dl)
{
	struct dc_time t = { 0 };
	double nodes = 1, work = 0, per_level = r->depth > 0 ? r->combine_cost / r->depth : 0;
	double P = r->cores, below, leaf;

	for (uint32_t l = 0; l < c; l++) {
		t.top += (per_level / nodes + r->own_per_call) * ceil(nodes / P);
		work += per_level + r->own_per_call * nodes;
		nodes *= k;
	}
	below = r->cost_per_entry - work;
	if (below < 0)
		below = 0;
	leaf = below / nodes;
	t.below = below / P;
	t.imbalance = leaf * (P - 1) / (2 * P);
	if (t.below + t.imbalance < leaf)
		t.imbalance = leaf - t.below;
	t.overhead = (nodes - 1) * sc / P + c * dl;
	t.total = t.top + t.below + t.imbalance + t.overhead;
	return t;
}

/* The share of an entry's work the busiest thread runs under libgomp with
 * cut-off c on P cores when the inline call takes share i of each split
 * (see "The split" above): max(i^m, (1 - i^m) / (P - 1)). */
double dpf_split_share(double i, uint32_t c, uint32_t P)
{
	double m_pow = 1;       /* i^m */
	uint32_t m = 0;

	if (P < 2 || c < 1)
		return 1;
	while (m < c) {
		double taken = 1 - m_pow;       /* S_1 .. S_m: their time, shared by P-1 */

		if (m >= P - 1 && !(taken / (P - 1) < m_pow * i))
			break;
		m_pow *= i;
		m++;
	}
	return fmax(m_pow, (1 - m_pow) / (P - 1));
}

/* Fill r's depth, levels, cut-off and why for a clique of `total` cost, of
 * which `own` its own code, in the basis unit (r's counts, type and
 * branching set). Returns 0 or -1 (out of memory). */
static int level_model(struct dpf_feedback *fb, struct dpf_recursion *r, double total,
		       double own, double split, const char *split_why)
{
	char why[768];
	double cpe, need, u = fb->ns_per_unit;
	uint32_t k = r->branching, n_all;

	r->spawn_overhead = u > 0 ? (fb->opt.ov.spawn_cost + fb->opt.ov.spawn_delay +
				     fb->opt.ov.barrier_cost) / u : INFINITY;
	need = DPF_CUTOFF_FACTOR * r->spawn_overhead;
	if (r->entry_calls == 0) {
		snprintf(why, sizeof(why), "no calls enter the clique from outside: no cost per "
			 "level, no cut-off");
		goto done;
	}
	cpe = ((double)r->entry_calls + (double)r->internal_calls) / (double)r->entry_calls;
	r->cost_per_entry = total / (double)r->entry_calls;
	r->per_call = r->cost_per_entry / cpe;
	r->own_per_call = own / ((double)r->entry_calls + (double)r->internal_calls);
	r->combine_cost = total > own ? (total - own) / (double)r->entry_calls : 0;
	r->cores = fb->opt.max_tasks;
	if (k == 0) {
		r->depth = cpe;     /* linear: one level per call (a guess) */
		snprintf(why, sizeof(why), "%s: no level model, so no cut-off",
			 r->type == DPA_REC_MUTUAL ? "mutual recursion" :
			 r->from_progrep ? "a recursive call in a loop (an unknown number of "
			 "calls per activation)" : "three or more recursive call sites");
		goto done;
	}
	r->depth = k == 1 ? cpe : log(cpe * (double)(k - 1) + 1.0) / log((double)k);
	n_all = (uint32_t)fmin(ceil(r->depth - 1e-9), 4e9);
	if (n_all < 1)
		n_all = 1;
	r->n_levels = n_all < 64 ? n_all : 64;
	if (!(r->level_cost = dpf_alloc(fb, r->n_levels * sizeof(double))))
		return -1;
	for (uint32_t l = 0; l < r->n_levels; l++)
		r->level_cost[l] = level_cost(r->per_call, r->depth, k, l);
	if (u <= 0) {
		snprintf(why, sizeof(why), "no time scale (ns per unit unknown): no cut-off");
		goto done;
	}
	if (n_all < 2) {
		snprintf(why, sizeof(why), "no recursive call below the entry (depth %.2f): "
			 "nothing to spawn", r->depth);
		goto done;
	}
	if (k == 1) {
		if (r->per_call >= need) {
			r->cutoff_depth = n_all - 1;
			snprintf(why, sizeof(why), "spawn the recursive call at every level (1 to "
				 "%u): it runs beside its caller's own work, %.0f ns a call, at "
				 "least %g x the task overheads (%.0f ns)", r->cutoff_depth,
				 r->per_call * u, DPF_CUTOFF_FACTOR, r->spawn_overhead * u);
		} else {
			snprintf(why, sizeof(why), "never worth spawning: in single recursion a "
				 "spawned call runs beside its caller's own work only, %.0f ns a "
				 "call, less than %g x the task overheads (%.0f ns)",
				 r->per_call * u, DPF_CUTOFF_FACTOR, r->spawn_overhead * u);
		}
		goto done;
	}
	if (r->cores < 2) {
		snprintf(why, sizeof(why), "one core (max_tasks %u): nothing runs in parallel",
			 r->cores);
		goto done;
	}
	{
		double sc = (fb->opt.ov.spawn_cost + fb->opt.ov.barrier_cost) / u;
		double dl = fb->opt.ov.spawn_delay / u;
		uint32_t last = n_all - 1 < DPF_MAX_CUTOFF ? n_all - 1 : DPF_MAX_CUTOFF;
		struct dc_time best = { 0 }, t;
		uint32_t bc = 0;
		char lv[32];

		bool use_split = k == 2 && split > 0;
		double split_part = 0;

		struct dc_time all[DPF_MAX_CUTOFF + 1];

		for (uint32_t c = 1; c <= last; c++) {
			t = dc_time(r, k, c, sc, dl);
			if (use_split) {
				double s = r->cost_per_entry *
					   dpf_split_share(split, c, r->cores) + t.overhead;

				if (s > t.total) {
					t.imbalance += s - t.total;
					t.total = s;
				}
			}
			all[c] = t;
			if (!bc || t.total < best.total) {
				best = t;
				bc = c;
			}
		}
		/* the deepest cut-off within DPF_CUTOFF_SLACK of the best: the
		 * model takes every split alike, real splits vary from node to
		 * node (a knapsack's "take" branch dies early), and more, smaller
		 * tasks even them out at a cost the slack bounds */
		uint32_t least_c = bc;
		double least = best.total;

		for (uint32_t c = last; c > bc; c--)
			if (all[c].total <= least * (1 + DPF_CUTOFF_SLACK) &&
			    r->cost_per_entry / pow(k, c) >= DPF_LEAF_FACTOR * r->spawn_overhead) {
				best = all[c];
				bc = c;
				break;
			}
		if (use_split)
			split_part = dpf_split_share(split, bc, r->cores);
		if (!(best.total < r->cost_per_entry)) {
			snprintf(why, sizeof(why), "never worth spawning: on %u cores an entry's "
				 "least parallel time (cut-off %u) is %.0f ns, not less than its "
				 "sequential %.0f ns; %s", r->cores, bc, best.total * u,
				 r->cost_per_entry * u, split_why);
			goto done;
		}
		r->cutoff_depth = bc;
		r->par_cost = best.total;
		snprintf(lv, sizeof(lv), bc == 1 ? "level 1 only" : "levels 1 to %u", bc);
		char there[160] = "least there";

		if (bc != least_c)
			snprintf(there, sizeof(there), "within 1%% of the least (%.0f ns at cut-off %u) "
				 "there, the deepest such: more, smaller tasks even out splits that vary",
				 least * u, least_c);
		snprintf(why, sizeof(why), "spawn the recursive calls at %s (%.0f task%s): on "
			 "%u cores an entry takes %s, %.0f ns against %.0f ns "
			 "sequentially (x%.3f): top levels %.0f, the rest shared %.0f, uneven "
			 "end %.0f, task overheads %.0f ns; %s", lv, pow(k, bc) - 1,
			 pow(k, bc) - 1 == 1 ? "" : "s", r->cores, there,
			 best.total * u, r->cost_per_entry * u, r->cost_per_entry / best.total,
			 best.top * u, best.below * u, best.imbalance * u, best.overhead * u,
			 split_why);
		if (use_split) {
			size_t n = strlen(why);

			snprintf(why + n, sizeof(why) - n, " (the busiest thread runs %.3f of "
				 "the work at this cut-off)", split_part);
		}
	}
done:
	return (r->why = dpf_strdup(fb, why)) ? 0 : -1;
}

double dpf_loop_branching(const struct dpa_deep *d, uint32_t clique, uint64_t entry_calls,
			  uint64_t internal_calls, double *height)
{
	const struct dpa_profile *p = d->p;
	const uint32_t *mem;
	uint32_t nm;
	double inside = 0, ticks, n, h, lo = 1.0 + 1e-9, hi = 1e6;

	*height = 0;
	if (!p->has_inside || !entry_calls)
		return 0;
	mem = dpa_clique_members(&d->cl, clique, &nm);
	if (nm != 1)
		return 0;
	for (uint32_t i = 0; i < dpa_pd_out_n(&p->pd[mem[0]]); i++) {
		uint32_t x = dpa_out_csd(p, p->pd[mem[0]].out_first + i);

		if (p->csd[x].callee_pd == mem[0])
			inside += (double)dpa_csd_inside(p, x);
	}
	ticks = (double)dpa_deep_clique_total(d, clique, DPA_TICKS);
	if (inside < DPF_SPLIT_MIN || ticks < DPF_SPLIT_TICKS)
		return 0;
	h = inside / ticks;
	n = ((double)entry_calls + (double)internal_calls) / (double)entry_calls;
	if (h < 1 || n < 2)
		return 0;
	*height = h;
	/* (B^(h+1) - 1) / (B - 1) grows with B: bisect */
	for (int it = 0; it < 200; it++) {
		double b = sqrt(lo * hi), nodes = (pow(b, h + 1) - 1) / (b - 1);

		if (nodes < n)
			lo = b;
		else
			hi = b;
	}
	return sqrt(lo * hi);
}

/* Does css a come before css b in the source (line, column, then address)? */
static bool css_before(const struct dpa_profile *p, uint32_t a, uint32_t b)
{
	uint32_t xl = dpa_src_get(p, DPA_CSS_LINE, a), yl = dpa_src_get(p, DPA_CSS_LINE, b);
	uint32_t xc = dpa_src_get(p, DPA_CSS_COL, a), yc = dpa_src_get(p, DPA_CSS_COL, b);

	if (xl && yl && xl != yl)
		return xl < yl;
	if (xl == yl && xc != yc)
		return xc < yc;
	return dpa_css_offset(p, a) < dpa_css_offset(p, b);
}

/*
 * The split of the one-member clique of pd q (see "The split" above): the
 * first recursive site's share of the two sites' inside measure, in (0, 1);
 * -1 when the profile cannot say. why (n bytes) says which, for `why`.
 */
static double clique_split(const struct dpa_deep *d, uint32_t clique, uint32_t q, char *why,
			   size_t n)
{
	const struct dpa_profile *p = d->p;
	double ticks = (double)dpa_deep_clique_total(d, clique, DPA_TICKS);
	const struct dpa_pd *pd = &p->pd[q];
	uint32_t site[2] = { 0 }, n_site = 0;
	double in[2] = { 0 };

	if (!p->has_inside) {
		snprintf(why, n, "split not measured (no inside measure: an old profile or "
			 "ticks off): balanced halves assumed");
		return -1;
	}
	for (uint32_t i = 0; i < dpa_pd_out_n(pd); i++) {
		uint32_t x = dpa_out_csd(p, pd->out_first + i), j;

		if (p->csd[x].callee_pd != q)
			continue;
		for (j = 0; j < n_site && site[j] != p->csd[x].css; j++)
			;
		if (j == n_site) {
			if (n_site == 2) {
				snprintf(why, n, "no split: more than two recursive call sites");
				return -1;
			}
			site[n_site++] = p->csd[x].css;
		}
		in[j] += (double)dpa_csd_inside(p, x);
	}
	if (n_site != 2) {
		snprintf(why, n, "no split: not two recursive call sites");
		return -1;
	}
	if (in[0] + in[1] < DPF_SPLIT_MIN) {
		snprintf(why, n, "split not measured (%.0f activation-ticks on the two sites, "
			 "fewer than %.0f): balanced halves assumed", in[0] + in[1],
			 DPF_SPLIT_MIN);
		return -1;
	}
	/* each tick adds one per activation on the stack: a deep recursion
	 * reaches the activation-ticks above on a handful of ticks */
	if (ticks < DPF_SPLIT_TICKS) {
		snprintf(why, n, "split not measured (%.0f clock ticks in the recursion, fewer "
			 "than %.0f): balanced halves assumed", ticks, DPF_SPLIT_TICKS);
		return -1;
	}
	if (css_before(p, site[1], site[0])) {
		double t = in[0];

		in[0] = in[1];
		in[1] = t;
	}
	if (in[0] == 0 || in[1] == 0) {
		snprintf(why, n, "no split: one recursive site was never on the stack at a "
			 "tick: balanced halves assumed");
		return -1;
	}
	snprintf(why, n, "measured split %.3f : %.3f (first call, inline : later call, "
		 "spawned; %.0f activation-ticks), with libgomp's scheduling",
		 in[0] / (in[0] + in[1]), in[1] / (in[0] + in[1]), in[0] + in[1]);
	return in[0] / (in[0] + in[1]);
}

/*
 * A divide-and-conquer clique entered at every level of another one (a
 * mergesort's merge, called once by each activation of the sort): its
 * entries are as unequal as the levels they are made at, the top one the
 * biggest, and the mean entry (mostly from the bottom levels) says
 * nothing about where spawning pays. When its level model finds no
 * cut-off and at least 90% of its entry calls come from one clique S with
 * a level model of k >= 2 calls per activation, its E entries are taken
 * one per activation of S's top L = log_k(E (k - 1) + 1) levels, each
 * level's entries sharing an equal part of the clique's cost (T(n) = k
 * T(n/k) + O(n): merging is linear at every level): the top entry costs
 * total / L and makes internal / L of its recursive calls; the level model
 * is rerun on it. Where it finds a cut-off, r keeps it (nested_in = S,
 * nested_levels = L): on P cores the entries at S's levels with fewer than
 * P of them run alone, the top one first. Returns 0, or -1 out of memory.
 */
static int nested_model(struct dpf_feedback *fb, const struct dpa_deep *d,
			const struct dpf_recursion *all, uint32_t n, struct dpf_recursion *r)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_cliques *cl = &d->cl;
	const struct dpf_recursion *s = NULL;
	uint64_t from_s = 0, entries = 0;
	uint32_t top = 0;
	double levels, total, own;
	struct dpf_recursion t;
	char why[256];

	if (r->branching < 2 || r->cutoff_depth || r->entry_calls < 2 || r->members != 1 ||
	    r->cores < 2 || fb->ns_per_unit <= 0)
		return 0;
	/* the clique most of its entries come from */
	for (uint32_t x = 1; x <= p->n_csd; x++) {
		const struct dpa_csd *c = &p->csd[x];
		uint32_t from;

		if (!c->callee_pd || !c->caller_pd || dpa_clique_of(cl, c->callee_pd) != r->clique)
			continue;
		from = dpa_clique_of(cl, c->caller_pd);
		if (from == r->clique)
			continue;
		entries += dpa_own(p, x, DPA_CALLS);
		if (!top)
			top = from;
		if (from == top)
			from_s += dpa_own(p, x, DPA_CALLS);
	}
	if (!top || (double)from_s < 0.9 * (double)entries)
		return 0;
	for (uint32_t i = 0; i < n && !s; i++)
		if (all[i].clique == top && all[i].branching >= 2 && all[i].n_levels >= 2)
			s = &all[i];
	if (!s)
		return 0;
	levels = log((double)r->entry_calls * (double)(s->branching - 1) + 1) / log((double)s->branching);
	if (levels < 2)
		return 0;
	total = r->cost_per_entry * (double)r->entry_calls;
	own = r->own_per_call * ((double)r->entry_calls + (double)r->internal_calls);
	t = *r;
	t.entry_calls = 1;
	t.internal_calls = (uint64_t)llround((double)r->internal_calls / levels);
	t.cutoff_depth = 0;
	t.n_levels = 0;
	t.level_cost = NULL;
	snprintf(why, sizeof(why), "entered at every level of %s's recursion (%.1f levels): "
		 "the top entry's model", s->at.fn ? s->at.fn : "another", levels);
	if (level_model(fb, &t, total / levels, own / levels, -1, why) < 0)
		return -1;
	if (!t.cutoff_depth)
		return 0;
	t.entry_calls = r->entry_calls;
	t.internal_calls = r->internal_calls;
	t.nested_in = s->clique;
	t.nested_levels = levels;
	*r = t;
	return 0;
}

/* Order: the clique's total cost descending, then clique id. */
static int rec_order(const void *pa, const void *pb)
{
	const struct dpf_recursion *x = pa, *y = pb;
	double tx = x->cost_per_entry * (x->nested_in ? x->nested_levels : (double)x->entry_calls);
	double ty = y->cost_per_entry * (y->nested_in ? y->nested_levels : (double)y->entry_calls);

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return x->clique < y->clique ? -1 : x->clique > y->clique;
}

/* fb->rec: one entry per recursive clique of d, typed (by the progrep where
 * it can say), with its level model and cut-off, ranked by total cost;
 * arrays and strings in fb's arena. Returns 0, or -1 out of memory. */
int dpf_recursion_patterns(struct dpf_feedback *fb, const struct dpa_deep *d,
			   const struct dpa_progreps *pr, struct dpa_error *err)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_cliques *cl = &d->cl;
	enum dpa_measure m = fb->basis == DPF_TICKS ? DPA_TICKS : DPA_CSCS;
	uint32_t n = 0, i = 0;

	fb->n_rec = 0;
	fb->rec = NULL;
	for (uint32_t c = 1; c <= cl->n; c++)
		if (dpa_clique_recursive(cl, p, c))
			n++;
	if (!n)
		return 0;
	if (!(fb->rec = dpf_alloc(fb, (size_t)n * sizeof(*fb->rec))))
		goto oom;
	for (uint32_t c = 1; c <= cl->n; c++) {
		struct dpf_recursion *r = &fb->rec[i];
		struct dpa_recursion rc;
		const uint32_t *mem;
		uint32_t nm;

		if (!dpa_clique_recursive(cl, p, c))
			continue;
		i++;
		mem = dpa_clique_members(cl, c, &nm);
		dpa_recursion_of(d, c, m, &rc);
		r->clique = c;
		r->members = nm;
		r->entry_calls = rc.entry_calls;
		r->internal_calls = rc.internal_calls;
		r->rec_sites = rc.rec_sites;
		r->type = rc.type;
		if (nm == 1 && type_from_progrep(d, pr, mem[0], &r->type, &r->branching) == 0)
			r->from_progrep = true;
		else if (r->type == DPA_REC_SIMPLE)
			r->branching = 1;
		else if (r->type == DPA_REC_DIVIDE)
			r->branching = 2;
		char split_why[256];
		double split = nm == 1 && r->branching == 2 ?
			       clique_split(d, c, mem[0], split_why, sizeof(split_why)) : -1;

		if (split < 0 && (nm != 1 || r->branching != 2))
			snprintf(split_why, sizeof(split_why), "no split: not two calls per "
				 "activation");
		if (dpf_place_ps(fb, p, pr, p->pd[mem[0]].ps, &r->at) < 0 ||
		    level_model(fb, r, (double)dpa_deep_clique_total(d, c, m),
				(double)dpa_deep_clique_own(d, c, m), split, split_why) < 0)
			goto oom;
	}
	for (uint32_t j = 0; j < n; j++)
		if (nested_model(fb, d, fb->rec, n, &fb->rec[j]) < 0)
			goto oom;
	qsort(fb->rec, n, sizeof(*fb->rec), rec_order);
	fb->n_rec = n;
	return 0;
oom:
	fb->n_rec = 0;
	return dpa_fail(err, p, "out of memory finding recursion patterns");
}
