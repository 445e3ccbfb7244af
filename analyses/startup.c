/*
 * startup.c — from a read profile to the "deep" structure: cliques, then
 * total (own + descendants) costs bottom-up over the cliques, then the
 * per-procedure and per-call-site totals in one walk down the clique tree.
 * Part of deepprof's analyses library. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "startup.h"

/* --- private prototypes ------------------------------------------------ */

static uint64_t csd_total_slot(const struct dpa_deep *d, uint32_t x, enum dpa_measure m, int s);
static void csd_totals(const struct dpa_deep *d, uint32_t x, uint64_t *t);
static int clique_done(void *ctx, const struct dpa_cliques *cl, uint32_t k);
static int clique_done_fold(void *ctx, const struct dpa_cliques *cl, uint32_t k);
static void clique_enter(void *ctx, uint32_t x);
static inline int add_sums(struct dpa_deep *d, int which, uint32_t i, const uint64_t *v);
static int static_totals(struct dpa_deep *d, struct dpa_error *err);
static void mark(const struct dpa_deep *d, uint32_t c, uint32_t *active_ps,
		 uint32_t *active_css, int delta);

/* ===================================================================== */

/* Csd x's own cost in slot s: its rep measure's, read from the column
 * that holds it without dpa_own()'s dispatch on the column kind
 * (slot_width and slot_v, set by assign_slots()). */
static inline uint64_t slot_own(const struct dpa_deep *d, uint32_t x, uint32_t s)
{
	switch (d->slot_width[s]) {
	case 1: return ((const uint8_t *)d->slot_v[s])[x];
	case 2: return ((const uint16_t *)d->slot_v[s])[x];
	case 4: return ((const uint32_t *)d->slot_v[s])[x];
	case 8: return ((const uint64_t *)d->slot_v[s])[x];
	}
	return dpa_own(d->p, x, d->rep[s]);
}

/* ===================================================================== */
/* { ==== 64-bit values in 32 bits, the few wide ones aside ==== */

/*
 * lo[i] < WIDE is the value itself; WIDE | j means big[j]. Values only grow
 * (sums) or are set once (clique totals), so an entry, once wide, stays in
 * big[]: no search, no hash, O(1) both ways.
 */
#define WIDE 0x80000000u
#define CHECK_ZERO 0x80     /* check[i]: the measure must be 0, not equal its slot's rep */

static uint64_t wide_get(const struct dpa_deep_wide *a, uint32_t i)
{
	uint32_t v = a->lo[i];

	return v & WIDE ? a->big[v & ~WIDE] : v;
}

/* a[i] += v (on a zeroed entry: a[i] = v). Returns 0 or -1 (out of memory). */
static int wide_add(struct dpa_deep_wide *a, uint32_t i, uint64_t v)
{
	uint64_t t;

	if (a->lo[i] & WIDE) {
		a->big[a->lo[i] & ~WIDE] += v;
		return 0;
	}
	t = (uint64_t)a->lo[i] + v;
	if (t < WIDE && t >= v) {
		a->lo[i] = (uint32_t)t;
		return 0;
	}
	if (a->n_big == a->cap_big) {
		uint32_t ncap = a->cap_big ? a->cap_big * 2 : 64;
		uint64_t *nb;

		if (ncap <= a->cap_big || ncap > WIDE)
			return -1;
		nb = realloc(a->big, (size_t)ncap * sizeof(*nb));
		if (!nb)
			return -1;
		a->big = nb;
		a->cap_big = ncap;
	}
	a->big[a->n_big] = t;
	a->lo[i] = WIDE | a->n_big++;
	return 0;
}

/* a[i] = v on an entry never written: lo[i] is written without being read
 * first (a fresh calloc'ed page is then faulted in once, not twice). */
static int wide_set(struct dpa_deep_wide *a, uint32_t i, uint64_t v)
{
	if (v < WIDE) {
		a->lo[i] = (uint32_t)v;
		return 0;
	}
	a->lo[i] = 0;
	return wide_add(a, i, v);
}

static void wide_release(struct dpa_deep_wide *a)
{
	free(a->lo);
	free(a->big);
	memset(a, 0, sizeof(*a));
}

/* ns arrays over ids 0..n, all 0. Returns them or NULL (out of memory). */
static struct dpa_deep_wide *wides_new(struct dpa_deep *d, uint32_t ns, uint32_t n)
{
	struct dpa_deep_wide *a = calloc(ns ? ns : 1, sizeof(*a));

	if (!a)
		return NULL;
	for (uint32_t s = 0; s < ns; s++) {
		a[s].lo = dpa_calloc_huge((size_t)n + 1, sizeof(uint32_t));
		if (!a[s].lo) {
			for (uint32_t t = 0; t < s; t++)
				wide_release(&a[t]);
			free(a);
			return NULL;
		}
	}
	d->bytes += ns * (sizeof(*a) + ((size_t)n + 1) * sizeof(uint32_t));
	return a;
}

static void wides_free(struct dpa_deep_wide *a, uint32_t ns)
{
	if (!a)
		return;
	for (uint32_t s = 0; s < ns; s++)
		wide_release(&a[s]);
	free(a);
}

static size_t wides_big_bytes(const struct dpa_deep_wide *a, uint32_t ns)
{
	size_t b = 0;

	for (uint32_t s = 0; a && s < ns; s++)
		b += (size_t)a[s].cap_big * sizeof(uint64_t);
	return b;
}

/*
 * ps and css sums are stored only for a ps with two or more pds, a css with
 * two or more csds (ps_ref / css_ref say REF_MULTI | their index in the sum
 * arrays); one with a single pd (csd) holds that pd's (csd's) id, and its
 * costs are that pd's (csd's): its only pd (csd) cannot lie below another
 * of its own on a chain of primary entries, so it is always outermost.
 * 0: no pd (csd) at all, every cost 0.
 */
#define REF_MULTI 0x80000000u

/* The index of ref's stored sums, or 0 when it has none (one pd or csd, or none). */
static inline uint32_t multi_index(uint32_t ref)
{
	return ref & REF_MULTI ? ref & ~REF_MULTI : 0;
}

/*
 * ps_ref (css_ref) NULL: every pd's id is its ps's plus ps_off (every csd's
 * its css's plus css_off), so no ps has two pds (no css two csds), and the
 * ref of a ps is found, not stored (4 bytes per ps and css less: a profile
 * of a procedure per context, whose ps and pd records come in step).
 */
static inline uint32_t ps_ref_of(const struct dpa_deep *d, uint32_t ps)
{
	int64_t v = (int64_t)ps + d->ps_off;

	if (d->ps_ref)
		return d->ps_ref[ps];
	return v >= 1 && v <= d->p->n_pd && d->p->pd[v].ps == ps ? (uint32_t)v : 0;
}

static inline uint32_t css_ref_of(const struct dpa_deep *d, uint32_t css)
{
	int64_t v = (int64_t)css + d->css_off;

	if (d->css_ref)
		return d->css_ref[css];
	return v >= 1 && v <= d->p->n_csd && d->p->csd[v].css == css ? (uint32_t)v : 0;
}

/* The index of ps's (css's) stored sums, or 0 when it has none. */
static inline uint32_t ps_multi(const struct dpa_deep *d, uint32_t ps)
{
	return d->ps_ref ? multi_index(d->ps_ref[ps]) : 0;
}

static inline uint32_t css_multi(const struct dpa_deep *d, uint32_t css)
{
	return d->css_ref ? multi_index(d->css_ref[css]) : 0;
}

/*
 * Clique totals. Most cliques of a big profile are leaves: a pd that calls
 * nothing (or only itself). Their total is their own cost, found in O(their
 * in csds), so only the others are stored: bit k of `stored` (k the
 * completion index; id = n - k once the search is over) says clique k has
 * a total in tier[s] at index stored_rank[k / 64] + the set bits of its
 * word below k. A link of a chain (one member calling out of its clique
 * through one csd, into the clique completed just before it) is not stored
 * either unless CHAIN_MAX - 1 links below it are not: its total is its own
 * cost plus that csd's total, found the same way, so at most CHAIN_MAX
 * levels down (a profile of one long path stores a quarter of its totals).
 */
#define LEAF_MAX_IN 16          /* a leaf with more in csds is stored anyway */
#define CHAIN_MAX 4

/* The set bits of w (inline: without -mpopcnt the builtin is a libgcc call). */
static inline uint32_t popcount64(uint64_t w)
{
	w -= (w >> 1) & 0x5555555555555555ull;
	w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((w * 0x0101010101010101ull) >> 56);
}

/* True when the clique with completion index k is a chain's link whose
 * total is not stored (see CHAIN_MAX). */
static inline bool is_link(const struct dpa_deep *d, uint32_t k)
{
	return d->link[k >> 6] >> (k & 63) & 1;
}

/* The clique with completion index k (during the search; id n - k after
 * it) has the members cl.member[*lo .. *hi). */
static inline void members_of_k(const struct dpa_deep *d, uint32_t k, uint32_t *lo, uint32_t *hi)
{
	if (d->walking) {
		*lo = dpa_clique_walk_first(&d->cl, k);
		*hi = dpa_clique_walk_first(&d->cl, k + 1);
	} else {
		*lo = dpa_clique_first(&d->cl, d->cl.n - k);
		*hi = dpa_clique_first(&d->cl, d->cl.n - k + 1);
	}
}

/* The total of the clique with completion index k in slot s (>= 0). */
static uint64_t tier_get(const struct dpa_deep *d, uint32_t k, int s)
{
	uint64_t w = d->stored[k >> 6], bit = 1ull << (k & 63);
	const struct dpa_profile *p = d->p;
	uint32_t sum_first, sum_end;
	uint64_t sum = 0;
	bool link;

	if (w & bit)
		return wide_get(&d->tier[s], d->stored_rank[k >> 6] + popcount64(w & (bit - 1)));
	link = is_link(d, k);
	members_of_k(d, k, &sum_first, &sum_end);
	for (uint32_t i = sum_first; i < sum_end; i++) {
		uint32_t v = d->cl.member[i];
		const struct dpa_pd *q = &p->pd[v];

		for (uint32_t j = 0; j < dpa_pd_in_n(q); j++)
			sum += dpa_own(p, dpa_in_csd(p, q->in_first + j), d->rep[s]);
		/* a chain's link: the csd leaving it */
		for (uint32_t j = 0; link && j < dpa_pd_out_n(q); j++) {
			uint32_t x = dpa_out_csd(p, q->out_first + j);

			if (d->cl.pd_clique[p->csd[x].callee_pd] != d->cl.pd_clique[v])
				sum += csd_total_slot(d, x, d->rep[s], s);
		}
	}
	return sum;
}

/* t[s] = tier_get(d, k, s) for every slot, in one pass over a leaf's csds. */
static void tier_get_all(const struct dpa_deep *d, uint32_t k, uint64_t *t)
{
	uint64_t w = d->stored[k >> 6], bit = 1ull << (k & 63);
	const struct dpa_profile *p = d->p;
	const uint32_t ns = d->n_slots;
	uint32_t lo, hi;
	bool link;

	if (w & bit) {
		uint32_t i = d->stored_rank[k >> 6] + popcount64(w & (bit - 1));

		for (uint32_t s = 0; s < ns; s++)
			t[s] = wide_get(&d->tier[s], i);
		return;
	}
	for (uint32_t s = 0; s < ns; s++)
		t[s] = 0;
	link = is_link(d, k);
	members_of_k(d, k, &lo, &hi);
	for (uint32_t i = lo; i < hi; i++) {
		uint32_t v = d->cl.member[i];
		const struct dpa_pd *q = &p->pd[v];

		for (uint32_t j = 0; j < dpa_pd_in_n(q); j++) {
			uint32_t x = dpa_in_csd(p, q->in_first + j);

			for (uint32_t s = 0; s < ns; s++)
				t[s] += slot_own(d, x, s);
		}
		/* a chain's link: the csd leaving it */
		for (uint32_t j = 0; link && j < dpa_pd_out_n(q); j++) {
			uint32_t x = dpa_out_csd(p, q->out_first + j);
			uint64_t u[DPA_NMEASURES];

			if (d->cl.pd_clique[p->csd[x].callee_pd] == d->cl.pd_clique[v])
				continue;
			csd_totals(d, x, u);
			for (uint32_t s = 0; s < ns; s++)
				t[s] += u[s];
		}
	}
}

/* t[s] for every slot: the total of clique id c (search over). */
static inline void clique_totals(const struct dpa_deep *d, uint32_t c, uint64_t *t)
{
	tier_get_all(d, d->cl.n - c, t);
}

/* The total of clique id c (search over) in slot s. */
static inline uint64_t clique_total_slot(const struct dpa_deep *d, uint32_t c, int s)
{
	return tier_get(d, d->cl.n - c, s);
}

/* The total of pd v for measure m, stored in slot s (>= 0): the clique's
 * when v is alone in it, else own + the totals of its calls out of it. */
static uint64_t pd_total_slot(const struct dpa_deep *d, uint32_t v, enum dpa_measure m, int s)
{
	uint32_t c = d->cl.pd_clique[v];

	if (dpa_clique_size(&d->cl, c) == 1)
		return clique_total_slot(d, c, s);
	return dpa_deep_pd_own(d, v, m) + dpa_deep_pd_desc(d, v, m);
}

uint64_t dpa_deep_ps_own(const struct dpa_deep *d, uint32_t ps, enum dpa_measure m)
{
	uint32_t r;

	if (d->slot[m] < 0)
		return 0;
	r = ps_ref_of(d, ps);
	if (r & REF_MULTI)
		return wide_get(&d->ps_own[d->slot[m]], r & ~REF_MULTI);
	return r ? dpa_deep_pd_own(d, r, m) : 0;
}

uint64_t dpa_deep_ps_total(const struct dpa_deep *d, uint32_t ps, enum dpa_measure m)
{
	uint32_t r;

	if (d->slot[m] < 0)
		return 0;
	r = ps_ref_of(d, ps);
	if (r & REF_MULTI)
		return wide_get(&d->ps_total[d->slot[m]], r & ~REF_MULTI);
	return r ? pd_total_slot(d, r, m, d->slot[m]) : 0;
}

uint32_t dpa_deep_ps_rank(const struct dpa_deep *d, uint32_t ps, enum dpa_measure m, bool total,
			  uint64_t *v)
{
	uint32_t r = ps_ref_of(d, ps);
	int s = d->slot[m];

	*v = 0;
	if (r & REF_MULTI) {
		if (s >= 0)
			*v = wide_get(total ? &d->ps_total[s] : &d->ps_own[s], r & ~REF_MULTI);
		return d->ps_npd[r & ~REF_MULTI];
	}
	if (!r || s < 0)
		return r != 0;
	if (total) {
		*v = pd_total_slot(d, r, m, s);
	} else {
		const struct dpa_pd *q = &d->p->pd[r];

		/* its one pd's own cost: slot s holds m's values */
		for (uint32_t j = 0; j < dpa_pd_in_n(q); j++)
			*v += slot_own(d, dpa_in_csd(d->p, q->in_first + j), (uint32_t)s);
	}
	return 1;
}

uint32_t dpa_deep_ps_npd(const struct dpa_deep *d, uint32_t ps)
{
	uint32_t r = ps_ref_of(d, ps);

	return r & REF_MULTI ? d->ps_npd[r & ~REF_MULTI] : r != 0;
}

void dpa_deep_ps_costs(const struct dpa_deep *d, uint32_t ps, uint64_t own[DPA_NMEASURES],
		       uint64_t total[DPA_NMEASURES])
{
	const struct dpa_profile *p = d->p;
	uint64_t o[DPA_NMEASURES] = { 0 }, t[DPA_NMEASURES] = { 0 };   /* o by measure, t by slot */
	uint32_t r = ps_ref_of(d, ps);

	if (r & REF_MULTI) {
		for (uint32_t s = 0; s < d->n_slots; s++) {
			o[d->rep[s]] = wide_get(&d->ps_own[s], r & ~REF_MULTI);
			t[s] = wide_get(&d->ps_total[s], r & ~REF_MULTI);
		}
		for (int m = 0; m < DPA_NMEASURES; m++)
			o[m] = d->slot[m] < 0 ? 0 : o[d->rep[d->slot[m]]];
	} else if (r) {
		const struct dpa_pd *q = &p->pd[r];
		uint32_t c = d->cl.pd_clique[r];

		for (uint32_t j = 0; j < dpa_pd_in_n(q); j++) {
			uint32_t x = dpa_in_csd(p, q->in_first + j);

			for (int m = 0; m < DPA_NMEASURES; m++)
				o[m] += dpa_own(p, x, m);
		}
		if (dpa_clique_size(&d->cl, c) == 1) {
			clique_totals(d, c, t);
		} else {
			for (uint32_t s = 0; s < d->n_slots; s++)
				t[s] = o[d->rep[s]];
			for (uint32_t j = 0; j < dpa_pd_out_n(q); j++) {
				uint32_t x = dpa_out_csd(p, q->out_first + j);
				uint64_t tx[DPA_NMEASURES];

				if (d->cl.pd_clique[p->csd[x].callee_pd] == c)
					continue;
				csd_totals(d, x, tx);
				for (uint32_t s = 0; s < d->n_slots; s++)
					t[s] += tx[s];
			}
		}
	}
	for (int m = 0; m < DPA_NMEASURES; m++) {
		own[m] = d->slot[m] < 0 ? 0 : o[m];
		total[m] = d->slot[m] < 0 ? 0 : t[d->slot[m]];
	}
}

uint64_t dpa_deep_css_own(const struct dpa_deep *d, uint32_t css, enum dpa_measure m)
{
	uint32_t r;

	if (d->slot[m] < 0)
		return 0;
	r = css_ref_of(d, css);
	if (r & REF_MULTI)
		return wide_get(&d->css_own[d->slot[m]], r & ~REF_MULTI);
	return r ? dpa_own(d->p, r, m) : 0;
}

uint64_t dpa_deep_css_total(const struct dpa_deep *d, uint32_t css, enum dpa_measure m)
{
	uint32_t r;

	if (d->slot[m] < 0)
		return 0;
	r = css_ref_of(d, css);
	if (r & REF_MULTI)
		return wide_get(&d->css_total[d->slot[m]], r & ~REF_MULTI);
	return r ? csd_total_slot(d, r, m, d->slot[m]) : 0;
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
	return d->multi_w[i] ? dpa_own(d->p, x, DPA_CALLS) : 1;
}

static uint64_t entry_wsum(const struct dpa_deep *d, uint32_t i)
{
	return d->multi_w[i] ? d->multi_w[i] : d->cl.multi[i].n;
}

/* The total of csd x for measure m, stored in slot s (>= 0). */
static uint64_t csd_total_slot(const struct dpa_deep *d, uint32_t x, enum dpa_measure m, int s)
{
	const struct dpa_profile *p = d->p;
	uint32_t key = d->cl.pd_clique[p->csd[x].callee_pd], cc;
	uint32_t e, i;

	if (d->cl.pd_clique[p->csd[x].caller_pd] == key)
		return dpa_own(p, x, m);
	cc = d->walking ? DPA_CLIQUE_KEY(0) - key : key;
	e = d->cl.entry[cc];
	if (!(e & DPA_CLIQUE_MULTI))                   /* x is its only entry */
		return tier_get(d, d->walking ? cc : d->cl.n - cc, s);
	i = e & ~DPA_CLIQUE_MULTI;
	if (x == d->cl.multi[i].primary)
		return dpa_own(p, x, m) + d->multi_prim[(size_t)i * d->n_slots + s];
	return dpa_own(p, x, m) + share(d->multi_rest[(size_t)i * d->n_slots + s],
				      entry_weight(d, i, x), entry_wsum(d, i));
}

/* t[s] = csd_total_slot(d, x, d->rep[s], s) for every slot. */
static void csd_totals(const struct dpa_deep *d, uint32_t x, uint64_t *t)
{
	const struct dpa_profile *p = d->p;
	uint32_t key = d->cl.pd_clique[p->csd[x].callee_pd], cc, e;

	if (d->cl.pd_clique[p->csd[x].caller_pd] != key) {
		uint32_t k, callee = p->csd[x].callee_pd;

		cc = d->walking ? DPA_CLIQUE_KEY(0) - key : key;
		e = d->cl.entry[cc];
		if (!(e & DPA_CLIQUE_MULTI)) {
			k = d->walking ? cc : d->cl.n - cc;
			/* the commonest leaf, called by x alone: its total is x's own */
			if (!(d->stored[k >> 6] & (1ull << (k & 63))) && !d->cl.first &&
			    dpa_pd_in_n(&p->pd[callee]) == 1 && !is_link(d, k)) {
				const uint32_t ns = d->n_slots;

				for (uint32_t s = 0; s < ns; s++)
					t[s] = slot_own(d, x, s);
				return;
			}
			tier_get_all(d, k, t);
			return;
		}
	}
	for (uint32_t s = 0; s < d->n_slots; s++)
		t[s] = csd_total_slot(d, x, d->rep[s], s);
}

uint64_t dpa_deep_csd_total(const struct dpa_deep *d, uint32_t csd, enum dpa_measure m)
{
	return d->slot[m] < 0 ? 0 : csd_total_slot(d, csd, m, d->slot[m]);
}

uint64_t dpa_deep_csd_desc(const struct dpa_deep *d, uint32_t csd, enum dpa_measure m)
{
	return d->slot[m] < 0 ? 0 : csd_total_slot(d, csd, m, d->slot[m]) - dpa_own(d->p, csd, m);
}

uint64_t dpa_deep_pd_own(const struct dpa_deep *d, uint32_t pd, enum dpa_measure m)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_pd *q = &p->pd[pd];
	uint64_t sum = 0;

	for (uint32_t j = 0; j < dpa_pd_in_n(q); j++)
		sum += dpa_own(p, dpa_in_csd(p, q->in_first + j), m);
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
	for (uint32_t j = 0; j < dpa_pd_out_n(q); j++) {
		uint32_t x = dpa_out_csd(p, q->out_first + j);

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
	return d->slot[m] < 0 ? 0 : clique_total_slot(d, c, d->slot[m]);
}

uint64_t dpa_deep_thread_total(const struct dpa_deep *d, uint32_t thread, enum dpa_measure m)
{
	return dpa_deep_pd_total(d, d->p->thread[thread].root_pd, m);
}

/* Space for multi-entry clique i's shares. Returns 0 or -1 (out of memory). */
static int grow_multi(struct dpa_deep *d, uint32_t i)
{
	uint32_t ncap;
	uint64_t *a;

	if (i < d->cap_multi)
		return 0;
	ncap = d->cap_multi ? d->cap_multi * 2 : 16;
	if (!(a = realloc(d->multi_w, (size_t)ncap * sizeof(*a))))
		return -1;
	d->multi_w = a;
	if (!(a = realloc(d->multi_rest, (size_t)ncap * (d->n_slots + 1) * sizeof(*a))))
		return -1;
	d->multi_rest = a;
	if (!(a = realloc(d->multi_prim, (size_t)ncap * (d->n_slots + 1) * sizeof(*a))))
		return -1;
	d->multi_prim = a;
	d->cap_multi = ncap;
	return 0;
}

/* The walk's sums (see add_sum): of ps own costs, ps totals, css own, css totals. */
enum { SUM_PS_OWN, SUM_PS_TOTAL, SUM_CSS_OWN, SUM_CSS_TOTAL };

/* Count (delta +1) or stop counting (-1) csd x on the current chain of
 * entries: its caller's ps and its css, by their sum indexes (0 for those
 * without sums, counted too and never looked at). */
static inline void mark_csd(struct dpa_deep *d, uint32_t x, int delta)
{
	const struct dpa_profile *p = d->p;
	uint32_t ps = p->pd[p->csd[x].caller_pd].ps, s = p->csd[x].css;

	d->active_ps[ps <= p->n_ps ? ps_multi(d, ps) : 0] += (uint32_t)delta;
	d->active_css[s <= p->n_css ? css_multi(d, s) : 0] += (uint32_t)delta;
}

/*
 * Called by the clique search as it first reaches a pd, through csd x: while
 * d->fold holds, x is the entry of the clique it will be (checked when that
 * completes), so it goes on the chain that clique_done() sums along.
 */
static void clique_enter(void *ctx, uint32_t x)
{
	struct dpa_deep *d = ((void **)ctx)[0];

	if (d->fold)
		mark_csd(d, x, +1);
}

/*
 * Called by the clique search as clique k completes (callees' cliques first):
 * its total is its members' in csds' own costs plus the totals of the csds
 * leaving it, whose callees' cliques are complete. A multi-entry clique
 * then gets its shares. A cost that does not fit 64 bits is an error (a
 * corrupt or adversarial file), not a silent wrap.
 */
static inline __attribute__((always_inline)) int
clique_done_body(void *ctx, const struct dpa_cliques *cl, uint32_t k, bool fold)
{
	struct dpa_deep *d = ((void **)ctx)[0];
	struct dpa_error *err = ((void **)ctx)[1];
	const struct dpa_profile *p = d->p;
	const uint32_t key = DPA_CLIQUE_KEY(k), ns = d->n_slots;
	uint64_t acc[DPA_NMEASURES] = { 0 }, t[DPA_NMEASURES];      /* by slot */
	bool overflow = false, store;
	uint64_t n_in = 0;
	uint32_t entry = fold ? cl->entry[k] : 0, pi = 0;
	uint32_t n_leave = 0, out_n = 0, child = UINT32_MAX, len = 0;
	int r = 0;

	fold = fold && d->fold;

	if ((k & 63) == 0)
		d->stored_rank[k >> 6] = d->n_stored;
	if (fold) {
		/* the sums stay right while the search enters each clique by its
		 * one entry, as walk_preorder() would (a root: by none) */
		fold = dpa_clique_walk_first(cl, k + 1) - dpa_clique_walk_first(cl, k) == 1 &&
		       !(entry & DPA_CLIQUE_MULTI) &&
		       cl->walk_parent == (entry ? p->csd[entry].caller_pd : 0);
		d->fold = fold;
	}
	for (uint32_t mi = dpa_clique_walk_first(cl, k); mi < dpa_clique_walk_first(cl, k + 1); mi++) {
		const struct dpa_pd *q = &p->pd[cl->member[mi]];

		if (fold)
			pi = q->ps <= p->n_ps ? ps_multi(d, q->ps) : 0;
		n_in += dpa_pd_in_n(q);
		for (uint32_t j = 0; j < dpa_pd_in_n(q); j++) {
			uint32_t e = dpa_in_csd(p, q->in_first + j);
			uint64_t o[DPA_NMEASURES];

			for (uint32_t s = 0; s < ns; s++) {
				o[s] = slot_own(d, e, s);
				overflow |= __builtin_add_overflow(acc[s], o[s], &acc[s]);
			}
			if (fold) {
				/* add_single_in()'s sums of own costs */
				uint32_t cs = p->csd[e].css, ci = cs <= p->n_css ? css_multi(d, cs) : 0;

				if (pi)
					r |= add_sums(d, SUM_PS_OWN, pi, o);
				if (ci)
					r |= add_sums(d, SUM_CSS_OWN, ci, o);
				if (ci && e != entry && d->active_css[ci] == 0)
					r |= add_sums(d, SUM_CSS_TOTAL, ci, o);
			}
			for (uint32_t i = 0; i < d->n_check; i++) {
				uint32_t m = d->check[i] & ~CHECK_ZERO;
				uint64_t want = d->check[i] & CHECK_ZERO ? 0 : dpa_own(p, e, d->rep[d->slot[m]]);

				if (dpa_own(p, e, m) != want) {
					d->slots_wrong = true;
					return -1;      /* startup begins again */
				}
			}
		}
		out_n = dpa_pd_out_n(q);
		for (uint32_t j = 0; j < dpa_pd_out_n(q); j++) {
			uint32_t x = dpa_out_csd(p, q->out_first + j);
			uint32_t ck = cl->pd_clique[p->csd[x].callee_pd];
			const uint64_t *u = t;

			if (ck == key)
				continue;
			n_leave++;
			child = DPA_CLIQUE_KEY(0) - ck;
			if (child == d->last_k && cl->entry[child] == x)
				u = d->last_acc;        /* x's total: the clique just done */
			else
				csd_totals(d, x, t);
			for (uint32_t s = 0; s < ns; s++)
				overflow |= __builtin_add_overflow(acc[s], u[s], &acc[s]);
		}
	}
	if (overflow)
		return dpa_fail(err, p, "costs overflow 64 bits");
	/* a leaf's total is its own cost, a short chain's link's its own cost
	 * plus its callee's total, found again on demand (the general walk,
	 * for tests, stores every total so that the two can be compared) */
	if (d->general_walk || n_in > LEAF_MAX_IN) {
		store = true;
	} else if (n_leave == 0) {
		store = false;
	} else {
		store = !(n_leave == 1 && out_n <= LEAF_MAX_IN && child == d->last_k &&
			  d->last_len + 1 < CHAIN_MAX &&
			  dpa_clique_walk_first(cl, k + 1) - dpa_clique_walk_first(cl, k) == 1 &&
			  !(cl->entry[k] & DPA_CLIQUE_MULTI));
		len = d->last_len + 1;
	}
	if (store) {
		len = 0;
		d->stored[k >> 6] |= 1ull << (k & 63);
		for (uint32_t s = 0; s < ns; s++)
			if (wide_set(&d->tier[s], d->n_stored, acc[s]))
				return dpa_fail(err, p, "out of memory computing clique totals");
		d->n_stored++;
	}
	if (len)
		d->link[k >> 6] |= 1ull << (k & 63);
	d->last_k = k;
	d->last_len = len;
	memcpy(d->last_acc, acc, sizeof(d->last_acc));
	if (fold) {
		/* and of totals: the clique's is the pd's; its entry's css
		 * counts when the chain above has no other csd of it */
		uint32_t cs = entry ? p->csd[entry].css : 0;
		uint32_t ci = entry && cs <= p->n_css ? css_multi(d, cs) : 0;

		if (ci && d->active_css[ci] == 1)
			r |= add_sums(d, SUM_CSS_TOTAL, ci, acc);
		if (pi && d->active_ps[pi] == 0)
			r |= add_sums(d, SUM_PS_TOTAL, pi, acc);
		if (entry)
			mark_csd(d, entry, -1);
		if (r)
			return dpa_fail(err, p, "out of memory computing procedure totals");
	}

	if (cl->entry[k] & DPA_CLIQUE_MULTI) {
		uint32_t i = cl->entry[k] & ~DPA_CLIQUE_MULTI, n;
		const uint32_t *es = cl->multi_csd + cl->multi[i].first;
		uint64_t w = 0;

		n = cl->multi[i].n;
		if (grow_multi(d, i))
			return dpa_fail(err, p, "out of memory computing clique totals");
		for (uint32_t j = 0; j < n; j++)
			if (__builtin_add_overflow(w, dpa_own(p, es[j], DPA_CALLS), &w))
				return dpa_fail(err, p, "costs overflow 64 bits");
		d->multi_w[i] = w;
		for (uint32_t s = 0; s < ns; s++) {
			uint64_t rest = acc[s], prim;

			/* the entries' own costs are part of acc: never underflows */
			for (uint32_t j = 0; j < n; j++)
				rest -= dpa_own(p, es[j], d->rep[s]);
			prim = rest;
			for (uint32_t j = 0; j < n; j++)
				if (es[j] != cl->multi[i].primary)
					prim -= share(rest, entry_weight(d, i, es[j]),
						      entry_wsum(d, i));
			d->multi_rest[(size_t)i * ns + s] = rest;
			d->multi_prim[(size_t)i * ns + s] = prim;
		}
	}
	return 0;
}

/* clique_done_body() without the fold's work (the compiler drops it) and with it. */
static int clique_done(void *ctx, const struct dpa_cliques *cl, uint32_t k)
{
	return clique_done_body(ctx, cl, k, false);
}

static int clique_done_fold(void *ctx, const struct dpa_cliques *cl, uint32_t k)
{
	return clique_done_body(ctx, cl, k, true);
}

/*
 * The search is over: the stored clique totals keep their places (they are
 * found by completion index, k = n - id); give back what is not used.
 */
static void renumber_totals(struct dpa_deep *d)
{
	size_t nw = ((size_t)d->cl.n >> 6) + 1;
	void *a;

	for (uint32_t s = 0; s < d->n_slots; s++) {
		struct dpa_deep_wide *t = &d->tier[s];

		if ((a = realloc(t->lo, ((size_t)d->n_stored + 1) * sizeof(uint32_t))))
			t->lo = a;
		d->bytes += ((size_t)d->n_stored + 1) * sizeof(uint32_t) +
			    (size_t)t->cap_big * sizeof(uint64_t);
	}
	if ((a = realloc(d->stored, nw * sizeof(*d->stored))))
		d->stored = a;
	if ((a = realloc(d->link, nw * sizeof(*d->link))))
		d->link = a;
	if ((a = realloc(d->stored_rank, nw * sizeof(*d->stored_rank))))
		d->stored_rank = a;
	d->bytes += nw * (2 * sizeof(*d->stored) + sizeof(*d->stored_rank));
	d->bytes += (size_t)d->cap_multi * (1 + 2 * (d->n_slots + 1)) * sizeof(uint64_t);
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

/*
 * The walk's sums: straight into the ps and css arrays of 32-bit values,
 * or, when they are few enough (sum[] set), into 64-bit ones, [index *
 * n_slots + slot], added at the end (a tree profile's 10^7 contexts of a few
 * procedures: an add each, not a wide_add).
 */
#define DENSE_SUM_MAX (1u << 20)        /* 64-bit sums used up to this many per array */

static int add_sum_wide(struct dpa_deep *d, int which, uint32_t s, uint32_t i, uint64_t v)
{
	struct dpa_deep_wide *w[4] = { d->ps_own, d->ps_total, d->css_own, d->css_total };

	return wide_add(&w[which][s], i, v);
}

static inline int add_sum(struct dpa_deep *d, int which, uint32_t s, uint32_t i, uint64_t v)
{
	if (d->sum[which]) {
		d->sum[which][(size_t)i * d->n_slots + s] += v;
		return 0;
	}
	return add_sum_wide(d, which, s, i, v);
}

/* add_sum() of v[s] for every slot s. */
static inline int add_sums(struct dpa_deep *d, int which, uint32_t i, const uint64_t *v)
{
	uint64_t *a = d->sum[which];
	const uint32_t ns = d->n_slots;
	int r = 0;

	if (a) {
		/* unrolled by hand: one jump into the adds instead of a
		 * loop's test per slot (millions of calls, ns fixed) */
		a += (size_t)i * ns;
		switch (ns) {
		case 7: a[6] += v[6]; __attribute__((fallthrough));
		case 6: a[5] += v[5]; __attribute__((fallthrough));
		case 5: a[4] += v[4]; __attribute__((fallthrough));
		case 4: a[3] += v[3]; __attribute__((fallthrough));
		case 3: a[2] += v[2]; __attribute__((fallthrough));
		case 2: a[1] += v[1]; __attribute__((fallthrough));
		case 1: a[0] += v[0]; __attribute__((fallthrough));
		default: break;
		}
		return 0;
	}
	for (uint32_t s = 0; s < ns; s++)
		r |= add_sum_wide(d, which, s, i, v[s]);
	return r;
}

/* Make the 64-bit sums when they fit DENSE_SUM_MAX (else leave sum[] NULL).
 * Returns 0 or -1 (out of memory). */
static int dense_sums_new(struct dpa_deep *d)
{
	size_t nps = ((size_t)d->n_ps_multi + 1) * d->n_slots;
	size_t ncss = ((size_t)d->n_css_multi + 1) * d->n_slots;

	/* the general walk (tests) adds straight into the arrays, so that
	 * tests compare both ways of summing */
	if (!d->n_slots || nps > DENSE_SUM_MAX || ncss > DENSE_SUM_MAX || d->general_walk)
		return 0;
	for (int i = 0; i < 4; i++)
		if (!(d->sum[i] = dpa_calloc_huge(i < 2 ? nps : ncss, sizeof(uint64_t))))
			return -1;
	return 0;
}

/* Move the 64-bit sums into the ps and css arrays and free them. Returns 0 or -1. */
static int dense_sums_done(struct dpa_deep *d)
{
	struct dpa_deep_wide *w[4] = { d->ps_own, d->ps_total, d->css_own, d->css_total };
	uint32_t n[4] = { d->n_ps_multi, d->n_ps_multi, d->n_css_multi, d->n_css_multi };
	int r = 0;

	for (int i = 0; i < 4; i++) {
		if (!d->sum[i])
			continue;
		for (uint32_t k = 0; k <= n[i]; k++)
			for (uint32_t s = 0; s < d->n_slots; s++)
				r |= wide_add(&w[i][s], k, d->sum[i][(size_t)k * d->n_slots + s]);
	}
	return r;
}

static void dense_sums_free(struct dpa_deep *d)
{
	for (int i = 0; i < 4; i++) {
		free(d->sum[i]);
		d->sum[i] = NULL;
	}
}

/* Own costs (all measures) and totals (stored measures, by slot) of pd v. */
static void pd_costs(const struct dpa_deep *d, uint32_t v, uint64_t *own, uint64_t *total)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_pd *q = &p->pd[v];
	uint32_t c = d->cl.pd_clique[v];

	memset(own, 0, DPA_NMEASURES * sizeof(*own));
	for (uint32_t j = 0; j < dpa_pd_in_n(q); j++) {
		uint32_t e = dpa_in_csd(p, q->in_first + j);

		for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++)
			own[m] += dpa_own(p, e, m);
	}
	if (dpa_clique_size(&d->cl, c) == 1) {
		/* alone in its clique: the clique's total is the pd's */
		clique_totals(d, c, total);
		return;
	}
	for (uint32_t s = 0; s < d->n_slots; s++)
		total[s] = own[d->rep[s]];
	for (uint32_t j = 0; j < dpa_pd_out_n(q); j++) {
		uint32_t x = dpa_out_csd(p, q->out_first + j);
		uint64_t t[DPA_NMEASURES];

		if (d->cl.pd_clique[p->csd[x].callee_pd] == c)
			continue;
		csd_totals(d, x, t);
		for (uint32_t s = 0; s < d->n_slots; s++)
			total[s] += t[s];
	}
}

/* Add clique c's pds and out csds to the ps and css sums. Returns 0 or -1. */
/* The totals (by slot) of pd v. */
static void pd_totals(const struct dpa_deep *d, uint32_t v, uint64_t *total)
{
	uint32_t c = d->cl.pd_clique[v];
	uint64_t own[DPA_NMEASURES];

	if (dpa_clique_size(&d->cl, c) == 1) {
		clique_totals(d, c, total);
		return;
	}
	pd_costs(d, v, own, total);
}

static int add_clique(struct dpa_deep *d, uint32_t c, const uint32_t *active_ps,
		      const uint32_t *active_css)
{
	int r = 0;

	const struct dpa_profile *p = d->p;
	uint32_t nm, ns = d->n_slots;
	const uint32_t *mem = dpa_clique_members(&d->cl, c, &nm);

	for (uint32_t i = 0; i < nm; i++) {
		uint32_t v = mem[i], ps = p->pd[v].ps, pi;
		const struct dpa_pd *q = &p->pd[v];

		if (ps <= p->n_ps && (pi = ps_multi(d, ps))) {
			uint64_t own[DPA_NMEASURES], total[DPA_NMEASURES];

			pd_costs(d, v, own, total);
			for (uint32_t s = 0; s < ns; s++) {
				r |= add_sum(d, SUM_PS_OWN, s, pi, own[d->rep[s]]);
				if (active_ps[pi] == 0)
					r |= add_sum(d, SUM_PS_TOTAL, s, pi, total[s]);
			}
		}
		for (uint32_t j = 0; j < dpa_pd_out_n(q); j++) {
			uint32_t x = dpa_out_csd(p, q->out_first + j), s = p->csd[x].css, ci;

			if (s > p->n_css || !(ci = css_multi(d, s)))
				continue;
			for (uint32_t t = 0; t < ns; t++) {
				r |= add_sum(d, SUM_CSS_OWN, t, ci, slot_own(d, x, t));
				if (active_css[ci] == 0)
					r |= add_sum(d, SUM_CSS_TOTAL, t, ci,
						     csd_total_slot(d, x, d->rep[t], t));
			}
		}
	}
	return r;
}

/*
 * add_clique_in() for clique c of one member, pd v (most cliques): one pass
 * over v's in csds gives the sums of own costs and, for a leaf calling
 * nothing, the clique's total too, which is the sum of those same own costs;
 * and v's total is the clique's, looked up once for both its ps and its
 * entry's css.
 */
static int add_single_in(struct dpa_deep *d, uint32_t c, uint32_t v, uint32_t ce,
			 const uint32_t *active_ps, const uint32_t *active_css)
{
	const struct dpa_profile *p = d->p;
	const uint32_t ns = d->n_slots, e = d->cl.entry[c], k = d->cl.n - c;
	const struct dpa_pd *q = &p->pd[v];
	uint32_t ps = q->ps, pi, ci;
	uint64_t own[DPA_NMEASURES] = { 0 }, total[DPA_NMEASURES];
	int r = 0;

	pi = ps <= p->n_ps ? ps_multi(d, ps) : 0;
	for (uint32_t j = 0; j < dpa_pd_in_n(q); j++) {
		uint32_t x = dpa_in_csd(p, q->in_first + j), s = p->csd[x].css;

		uint64_t o[DPA_NMEASURES];

		ci = s <= p->n_css ? css_multi(d, s) : 0;
		for (uint32_t t = 0; t < ns; t++) {
			o[t] = slot_own(d, x, t);
			own[t] += o[t];
		}
		if (pi)
			r |= add_sums(d, SUM_PS_OWN, pi, o);
		if (ci)
			r |= add_sums(d, SUM_CSS_OWN, ci, o);
		/* internal: its total is its own */
		if (ci && x != e && active_css[ci] == 0)
			r |= add_sums(d, SUM_CSS_TOTAL, ci, o);
	}
	if (!ce && !(pi && active_ps[pi] == 0))
		return r;
	if ((d->stored[k >> 6] & (1ull << (k & 63))) || is_link(d, k))
		clique_totals(d, c, total);     /* stored, or a chain's link */
	else
		memcpy(total, own, sizeof(total));      /* a leaf: tier_get()'s sum */
	if (ce)
		r |= add_sums(d, SUM_CSS_TOTAL, ce, total);
	if (pi && active_ps[pi] == 0)
		r |= add_sums(d, SUM_PS_TOTAL, pi, total);
	return r;
}

/*
 * The same for a profile whose cliques all have at most one entry, seen from
 * the callee side, so that each csd is looked at once, as an in csd: c's
 * entry counts for its css unless that css is on the chain above c (ce, the
 * index of its sums, or 0 when it does not count: the caller decides before
 * it marks c), c's internal csds unless it is on c's chain. Call it with
 * c's entry marked.
 */
static int add_clique_in(struct dpa_deep *d, uint32_t c, uint32_t ce, const uint32_t *active_ps,
			 const uint32_t *active_css)
{
	const struct dpa_profile *p = d->p;
	uint32_t nm, ns = d->n_slots, e = d->cl.entry[c], ci;
	const uint32_t *mem = dpa_clique_members(&d->cl, c, &nm);
	uint64_t total[DPA_NMEASURES];
	int r = 0;

	if (nm == 1)
		return add_single_in(d, c, mem[0], ce, active_ps, active_css);
	if (ce) {
		clique_totals(d, c, total);
		for (uint32_t s = 0; s < ns; s++)
			r |= add_sum(d, SUM_CSS_TOTAL, s, ce, total[s]);
	}
	for (uint32_t i = 0; i < nm; i++) {
		uint32_t v = mem[i], ps = p->pd[v].ps;
		const struct dpa_pd *q = &p->pd[v];
		uint32_t pi = ps <= p->n_ps ? ps_multi(d, ps) : 0;

		for (uint32_t j = 0; j < dpa_pd_in_n(q); j++) {
			uint32_t x = dpa_in_csd(p, q->in_first + j), s = p->csd[x].css;

			ci = s <= p->n_css ? css_multi(d, s) : 0;
			if (!pi && !ci)
				continue;
			for (uint32_t t = 0; t < ns; t++) {
				uint64_t o = slot_own(d, x, t);

				if (pi)
					r |= add_sum(d, SUM_PS_OWN, t, pi, o);
				if (ci)
					r |= add_sum(d, SUM_CSS_OWN, t, ci, o);
				/* internal: its total is its own */
				if (ci && x != e && active_css[ci] == 0)
					r |= add_sum(d, SUM_CSS_TOTAL, t, ci, o);
			}
		}
		if (pi && active_ps[pi] == 0) {
			pd_totals(d, v, total);
			for (uint32_t t = 0; t < ns; t++)
				r |= add_sum(d, SUM_PS_TOTAL, t, pi, total[t]);
		}
	}
	return r;
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
	/* a ps or css without stored sums is never looked up here */
	if (ps <= p->n_ps && (ps = ps_multi(d, ps)))
		active_ps[ps] += delta;
	if (s <= p->n_css && (s = css_multi(d, s)))
		active_css[s] += delta;
}

/*
 * The walk in id order, for profiles where no clique has several entries.
 * Ids are the reverse of the order in which the search completed the
 * cliques, which is then a preorder of the tree of parents (the search
 * entered each clique by its only entry): the chain of entries above a
 * clique is a stack. Returns 0, 1 if the ids turn out not to be a preorder
 * after all (the caller starts again with walk_tree), -1 out of memory.
 */
static int walk_preorder(struct dpa_deep *d, uint32_t *active_ps, uint32_t *active_css)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_cliques *cl = &d->cl;
	/* the chain of cliques above: each with the indexes (0: none) of its
	 * entry's caller ps and css, counted in active_ps and active_css (the
	 * unused entry 0 too, which is never looked at) */
	struct chain { uint32_t c, ps, css; } *st = NULL;
	uint32_t nst = 0, capst = 0;
	int ret = 0;

	for (uint32_t c = 1; c <= cl->n; c++) {
		uint32_t e = cl->entry[c], pc = 0, pi = 0, ci = 0, ce;

		if (e) {        /* its only entry (no clique has several) */
			const struct dpa_csd *x = &p->csd[e];
			uint32_t ps = p->pd[x->caller_pd].ps;

			pc = cl->pd_clique[x->caller_pd];
			pi = ps <= p->n_ps ? ps_multi(d, ps) : 0;
			ci = x->css <= p->n_css ? css_multi(d, x->css) : 0;
		}
		while (nst && st[nst - 1].c != pc) {
			nst--;
			active_ps[st[nst].ps]--;
			active_css[st[nst].css]--;
		}
		if (pc && !nst) {
			ret = 1;
			break;
		}
		if (nst == capst) {
			struct chain *ns;

			capst = capst ? capst * 2 : 256;
			ns = realloc(st, (size_t)capst * sizeof(*st));
			if (!ns) {
				ret = -1;
				break;
			}
			st = ns;
		}
		st[nst++] = (struct chain){ .c = c, .ps = pi, .css = ci };
		ce = ci && active_css[ci] == 0 ? ci : 0;
		active_ps[pi]++;
		active_css[ci]++;
		if (add_clique_in(d, c, ce, active_ps, active_css)) {
			ret = -1;
			break;
		}
	}
	free(st);
	return ret;
}

/* The general walk: depth first down the tree of primary parents, built by
 * a counting sort of the cliques by parent. Returns 0 or -1 (out of memory). */
static int walk_tree(struct dpa_deep *d, uint32_t *active_ps, uint32_t *active_css)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_cliques *cl = &d->cl;
	uint32_t n = cl->n;
	uint32_t *cfirst, *child, *par;
	struct walk *st = NULL;
	uint32_t nst = 0, capst = 0;
	int ret = -1;

	cfirst = dpa_calloc_huge((size_t)n + 2, sizeof(*cfirst));
	child = dpa_malloc_huge(((size_t)n + 1) * sizeof(*child));
	par = dpa_malloc_huge(((size_t)n + 1) * sizeof(*par));
	if (!cfirst || !child || !par)
		goto out;
	for (uint32_t c = 1; c <= n; c++) {
		par[c] = dpa_clique_parent(cl, p, c);
		cfirst[par[c] + 1]++;                           /* parent 0: the roots */
	}
	for (uint32_t c = 1; c <= n + 1; c++)
		cfirst[c] += cfirst[c - 1];
	for (uint32_t c = 1; c <= n; c++)
		child[cfirst[par[c]]++] = c;
	for (uint32_t c = n + 1; c >= 1; c--)
		cfirst[c] = cfirst[c - 1];
	cfirst[0] = 0;
	/* children of c: child[cfirst[c] .. cfirst[c+1]); of "0": the roots */

	capst = 64;
	st = malloc(capst * sizeof(*st));
	if (!st)
		goto out;
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
		if (add_clique(d, k, active_ps, active_css))
			goto out;
		if (nst == capst) {
			struct walk *ns;

			if (capst > UINT32_MAX / 2)
				goto out;
			ns = realloc(st, (size_t)capst * 2 * sizeof(*st));
			if (!ns)
				goto out;
			st = ns;
			capst *= 2;
		}
		st[nst++] = (struct walk){ .c = k, .next = cfirst[k] };
	}
	ret = 0;
out:
	free(par);
	free(cfirst);
	free(child);
	free(st);
	return ret;
}

/* ps_npd[i]: how many pds the ps with stored sums i has. Returns 0 or -1. */
static int count_pds(struct dpa_deep *d)
{
	const struct dpa_profile *p = d->p;

	d->ps_npd = dpa_calloc_huge((size_t)d->n_ps_multi + 1, sizeof(uint32_t));
	if (!d->ps_npd)
		return -1;
	d->bytes += ((size_t)d->n_ps_multi + 1) * sizeof(uint32_t);
	for (uint32_t v = 1; v <= p->n_pd && d->n_ps_multi; v++) {
		uint32_t ps = p->pd[v].ps;

		if (ps <= p->n_ps && (d->ps_ref[ps] & REF_MULTI))
			d->ps_npd[d->ps_ref[ps] & ~REF_MULTI]++;
	}
	return 0;
}

/*
 * Which ps and css get stored sums (see REF_MULTI): ps_ref[ps] becomes its
 * only pd, or REF_MULTI | 1, 2, ... in ps id order for a ps with several;
 * css_ref likewise from the csds; either stays NULL when its ids are in
 * step (ps_off, css_off: see ps_ref_of). The general walk, for tests,
 * stores every ps and css (index = id) so that its sums check the derived
 * ones. Returns 0 or -1 (out of memory).
 */
static int make_refs(struct dpa_deep *d)
{
	const struct dpa_profile *p = d->p;
	bool ps_affine = !d->general_walk, css_affine = !d->general_walk;
	uint32_t n;

	/* every pd's id its ps's plus one offset (csd, css): nothing stored */
	d->ps_off = p->n_pd ? (int64_t)1 - p->pd[1].ps : 0;
	for (uint32_t v = 1; v <= p->n_pd && ps_affine; v++)
		ps_affine = p->pd[v].ps <= p->n_ps && (int64_t)v - p->pd[v].ps == d->ps_off;
	d->css_off = p->n_csd ? (int64_t)1 - p->csd[1].css : 0;
	for (uint32_t x = 1; x <= p->n_csd && css_affine; x++)
		css_affine = p->csd[x].css <= p->n_css && (int64_t)x - p->csd[x].css == d->css_off;
	/* zeroed by hand: read before written below, calloc's fresh pages
	 * would each be faulted in twice */
	if (!ps_affine) {
		if (!(d->ps_ref = dpa_malloc_huge(((size_t)p->n_ps + 1) * sizeof(uint32_t))))
			return -1;
		memset(d->ps_ref, 0, ((size_t)p->n_ps + 1) * sizeof(uint32_t));
		d->bytes += ((size_t)p->n_ps + 1) * sizeof(uint32_t);
	}
	if (!css_affine) {
		if (!(d->css_ref = dpa_malloc_huge(((size_t)p->n_css + 1) * sizeof(uint32_t))))
			return -1;
		memset(d->css_ref, 0, ((size_t)p->n_css + 1) * sizeof(uint32_t));
		d->bytes += ((size_t)p->n_css + 1) * sizeof(uint32_t);
	}
	if (d->general_walk) {
		for (uint32_t i = 0; i <= p->n_ps; i++)
			d->ps_ref[i] = REF_MULTI | (i + 1);
		for (uint32_t i = 0; i <= p->n_css; i++)
			d->css_ref[i] = REF_MULTI | (i + 1);
		d->n_ps_multi = p->n_ps + 1;
		d->n_css_multi = p->n_css + 1;
		return count_pds(d);
	}
	/* ids below 2^31 (the clique search checked it): no clash with REF_MULTI */
	for (uint32_t v = 1; v <= p->n_pd && d->ps_ref; v++) {
		uint32_t ps = p->pd[v].ps;

		if (ps > p->n_ps)
			continue;
		if (!d->ps_ref[ps])
			d->ps_ref[ps] = v;
		else if (!(d->ps_ref[ps] & REF_MULTI))
			d->ps_ref[ps] = REF_MULTI;      /* numbered below */
	}
	for (uint32_t x = 1; x <= p->n_csd && d->css_ref; x++) {
		uint32_t s = p->csd[x].css;

		if (s > p->n_css)
			continue;
		if (!d->css_ref[s])
			d->css_ref[s] = x;
		else if (!(d->css_ref[s] & REF_MULTI))
			d->css_ref[s] = REF_MULTI;
	}
	n = 0;
	for (uint32_t i = 0; i <= p->n_ps && d->ps_ref; i++)
		if (d->ps_ref[i] & REF_MULTI)
			d->ps_ref[i] = REF_MULTI | ++n;
	d->n_ps_multi = n;
	n = 0;
	for (uint32_t i = 0; i <= p->n_css && d->css_ref; i++)
		if (d->css_ref[i] & REF_MULTI)
			d->css_ref[i] = REF_MULTI | ++n;
	d->n_css_multi = n;
	return count_pds(d);
}

/* (Re)make the four ps/css sum arrays, all 0. Returns 0 or -1. */
static int new_sums(struct dpa_deep *d)
{
	uint32_t ns = d->n_slots;

	wides_free(d->ps_own, ns);
	wides_free(d->ps_total, ns);
	wides_free(d->css_own, ns);
	wides_free(d->css_total, ns);
	d->ps_own = wides_new(d, ns, d->n_ps_multi);
	d->ps_total = wides_new(d, ns, d->n_ps_multi);
	d->css_own = wides_new(d, ns, d->n_css_multi);
	d->css_total = wides_new(d, ns, d->n_css_multi);
	return d->ps_own && d->ps_total && d->css_own && d->css_total ? 0 : -1;
}

/*
 * Before the clique search: which ps and css get sums, and room for them
 * and the walk's counts. d->fold is set when the search itself can make
 * the sums (clique_done; static_totals() walks again if it could not).
 * Returns 0 or -1 (out of memory).
 */
static int walk_prepare(struct dpa_deep *d)
{
	if (make_refs(d))
		return -1;
	d->active_ps = dpa_calloc_huge((size_t)d->n_ps_multi + 1, sizeof(*d->active_ps));
	d->active_css = dpa_calloc_huge((size_t)d->n_css_multi + 1, sizeof(*d->active_css));
	if (!d->active_ps || !d->active_css || new_sums(d) || dense_sums_new(d))
		return -1;
	/* nothing to sum (every ps and css derived) unless there are
	 * multi-entry cliques, which fold does not take anyway */
	d->fold = (d->n_ps_multi || d->n_css_multi) && !d->general_walk;
	return 0;
}

/* Zero the walk's counts and sums for another walk. Returns 0 or -1. */
static int walk_reset(struct dpa_deep *d)
{
	memset(d->active_ps, 0, ((size_t)d->n_ps_multi + 1) * sizeof(*d->active_ps));
	memset(d->active_css, 0, ((size_t)d->n_css_multi + 1) * sizeof(*d->active_css));
	dense_sums_free(d);
	return new_sums(d) || dense_sums_new(d) ? -1 : 0;
}

static int static_totals(struct dpa_deep *d, struct dpa_error *err)
{
	const struct dpa_profile *p = d->p;
	int r = 1;

	if (d->fold) {
		r = 0;          /* the search made the sums */
	} else if (!d->n_ps_multi && !d->n_css_multi && !d->cl.n_multi && !d->general_walk) {
		r = 0;          /* every ps and css is derived: nothing to walk */
	} else {
		if (d->n_ps_multi || d->n_css_multi) {
			/* a fold given up: its sums go (and count once in bytes) */
			d->bytes -= 2 * d->n_slots * (sizeof(struct dpa_deep_wide) +
						      ((size_t)d->n_ps_multi + 1) * sizeof(uint32_t)) +
				    2 * d->n_slots * (sizeof(struct dpa_deep_wide) +
						      ((size_t)d->n_css_multi + 1) * sizeof(uint32_t));
			if (walk_reset(d))
				r = -1;
		}
		if (r > 0 && !d->cl.n_multi && !d->general_walk)
			r = walk_preorder(d, d->active_ps, d->active_css);
	}
	if (r > 0) {
		/* not a preorder: start again with the general walk */
		d->tree_walk = true;
		r = walk_reset(d) ? -1 : walk_tree(d, d->active_ps, d->active_css);
	}
	if (!r)
		r = dense_sums_done(d);
	dense_sums_free(d);
	free(d->active_ps);
	free(d->active_css);
	d->active_ps = d->active_css = NULL;
	if (r)
		return dpa_fail(err, p, "out of memory computing procedure totals");
	d->bytes += wides_big_bytes(d->ps_own, d->n_slots) + wides_big_bytes(d->ps_total, d->n_slots) +
		    wides_big_bytes(d->css_own, d->n_slots) + wides_big_bytes(d->css_total, d->n_slots);
	return 0;
}

/* } ==== */

/* ===================================================================== */

/*
 * Storage slots: a measure equal to an earlier one on every csd (cscs and
 * calls with the "calls" clock, exits and calls with no non-local exit)
 * shares its slot, and so all its totals; a measure that is 0 on every csd
 * needs none (DPA_SLOT_ZERO). Reading every csd first would cost a pass over
 * the largest array, so the first try looks at a sample of about 64k csds
 * (`sample`), and clique_done() checks the guess on every csd as it goes;
 * if it was wrong, startup begins again with a full scan (stopping as soon
 * as every pair differs and every measure was nonzero somewhere).
 */
/* True when the profile's columns make measures i and m equal on every csd. */
static bool same_column(const struct dpa_profile *p, int i, int m)
{
	const struct dpa_col *a = &p->col[i], *b = &p->col[m];

	if (a->kind == DPA_COL_ZERO && b->kind == DPA_COL_ZERO)
		return true;
	if (b->kind == DPA_COL_SAME && (b->a == i || (a->kind == DPA_COL_SAME && a->a == b->a)))
		return true;
	/* exits = calls - nonlocal_exits with nonlocal_exits 0 on every csd */
	if (b->kind == DPA_COL_DIFF && b->a == i && p->col[b->b].kind == DPA_COL_ZERO)
		return true;
	if (a->kind == DPA_COL_DIFF && a->a == m && p->col[a->b].kind == DPA_COL_ZERO)
		return true;
	return a->kind == DPA_COL_SAME && a->a == m;
}

static void assign_slots(struct dpa_deep *d, bool sample)
{
	const struct dpa_profile *p = d->p;
	bool eq[DPA_NMEASURES][DPA_NMEASURES], zero[DPA_NMEASURES];
	unsigned open = 0;      /* pairs still equal + measures still zero */

	for (int i = 0; i < DPA_NMEASURES; i++) {
		zero[i] = true;
		open++;
		for (int j = i + 1; j < DPA_NMEASURES; j++) {
			eq[i][j] = true;
			open++;
		}
	}
	uint32_t step = sample && p->n_csd > 65536 ? p->n_csd / 65536 : 1;

	for (uint32_t x = 1; x <= p->n_csd && open; x += step) {
		uint64_t v[DPA_NMEASURES];

		for (int m = 0; m < DPA_NMEASURES; m++)
			v[m] = dpa_own(p, x, m);

		for (int i = 0; i < DPA_NMEASURES; i++) {
			if (zero[i] && v[i]) {
				zero[i] = false;
				open--;
			}
			for (int j = i + 1; j < DPA_NMEASURES; j++)
				if (eq[i][j] && v[i] != v[j]) {
					eq[i][j] = false;
					open--;
				}
		}
	}
	d->n_slots = 0;
	for (int m = 0; m < DPA_NMEASURES; m++) {
		d->slot[m] = -1;
		if (!(d->measures & (1u << m)))
			continue;
		if (zero[m]) {
			d->slot[m] = DPA_SLOT_ZERO;
			continue;
		}
		for (int i = 0; i < m; i++)
			if (d->slot[i] >= 0 && eq[i][m]) {
				d->slot[m] = d->slot[i];
				break;
			}
		if (d->slot[m] < 0) {
			d->rep[d->n_slots] = (uint8_t)m;
			d->slot[m] = (int8_t)d->n_slots++;
		}
	}
	/* each slot's column, when one stored column holds its rep measure */
	for (uint32_t s = 0; s < d->n_slots; s++) {
		const struct dpa_col *c = &p->col[d->rep[s]];
		static const uint8_t width[] = {
			[DPA_COL_U8] = 1, [DPA_COL_U16] = 2, [DPA_COL_U32] = 4, [DPA_COL_U64] = 8
		};

		if (c->kind == DPA_COL_SAME)
			c = &p->col[c->a];
		d->slot_width[s] = c->kind <= DPA_COL_U64 ? width[c->kind] : 0;
		d->slot_v[s] = c->v;
	}
	/* what clique_done() must check on every csd: not what the profile's
	 * columns already guarantee (a ZERO column, a SAME one) */
	d->n_check = 0;
	for (int m = 0; m < DPA_NMEASURES; m++) {
		if (d->slot[m] == DPA_SLOT_ZERO) {
			if (p->col[m].kind != DPA_COL_ZERO)
				d->check[d->n_check++] = (uint8_t)(m | CHECK_ZERO);
		} else if (d->slot[m] >= 0 && d->rep[d->slot[m]] != m) {
			if (!same_column(p, d->rep[d->slot[m]], m))
				d->check[d->n_check++] = (uint8_t)m;
		}
	}
}

/* One try at startup with slots from a sample (precise: from every csd).
 * Returns 0, or -1 (d->slots_wrong: the sample misled, try again). */
static int startup(struct dpa_deep *d, bool precise, struct dpa_error *err)
{
	const struct dpa_profile *p = d->p;
	void *ctx[2] = { d, err };

	assign_slots(d, !precise);
	/* per-clique totals: room for as many cliques as pds until the search
	 * knows how many there are */
	d->tier = calloc(d->n_slots ? d->n_slots : 1, sizeof(*d->tier));
	if (!d->tier)
		return dpa_fail(err, p, "out of memory computing inherited costs");
	d->bytes += d->n_slots * sizeof(*d->tier);
	d->stored = calloc(((size_t)p->n_pd >> 6) + 1, sizeof(*d->stored));
	d->link = calloc(((size_t)p->n_pd >> 6) + 1, sizeof(*d->link));
	d->stored_rank = calloc(((size_t)p->n_pd >> 6) + 1, sizeof(*d->stored_rank));
	if (!d->stored || !d->stored_rank || !d->link)
		return dpa_fail(err, p, "out of memory computing inherited costs");
	for (uint32_t s = 0; s < d->n_slots; s++) {
		d->tier[s].lo = dpa_calloc_huge((size_t)p->n_pd + 1, sizeof(uint32_t));
		if (!d->tier[s].lo)
			return dpa_fail(err, p, "out of memory computing inherited costs");
	}
	if (walk_prepare(d))
		return dpa_fail(err, p, "out of memory computing procedure totals");
	d->walking = true;
	d->last_k = UINT32_MAX;
	if (dpa_cliques_init_walk(&d->cl, p, d->fold ? clique_done_fold : clique_done,
				  d->fold ? clique_enter : NULL, ctx, err))
		return -1;
	d->walking = false;
	renumber_totals(d);
	if (static_totals(d, err))
		return -1;
	d->bytes += d->cl.bytes;
	return 0;
}

int dpa_deep_init_measures(struct dpa_deep *d, struct dpa_profile *p, unsigned mask,
			   struct dpa_error *err)
{
	for (int precise = 0; precise < 2; precise++) {
		memset(d, 0, sizeof(*d));
		d->p = p;
		d->measures = mask & DPA_ALL_MEASURES;
		d->general_walk = mask & DPA_DEEP_GENERAL_WALK;
		if (!startup(d, precise, err))
			return 0;
		if (!d->slots_wrong || precise) {
			dpa_deep_release(d);
			return -1;
		}
		dpa_deep_release(d);
	}
	return -1;      /* not reached */
}

int dpa_deep_init(struct dpa_deep *d, struct dpa_profile *p, struct dpa_error *err)
{
	return dpa_deep_init_measures(d, p, DPA_ALL_MEASURES, err);
}

void dpa_deep_release(struct dpa_deep *d)
{
	if (!d)
		return;
	wides_free(d->tier, d->n_slots);
	free(d->stored);
	free(d->link);
	free(d->stored_rank);
	free(d->multi_w);
	free(d->multi_rest);
	free(d->multi_prim);
	wides_free(d->ps_own, d->n_slots);
	wides_free(d->ps_total, d->n_slots);
	wides_free(d->css_own, d->n_slots);
	wides_free(d->css_total, d->n_slots);
	free(d->ps_ref);
	free(d->css_ref);
	free(d->ps_npd);
	free(d->active_ps);
	free(d->active_css);
	dense_sums_free(d);
	dpa_cliques_release(&d->cl);
	memset(d, 0, sizeof(*d));
}
