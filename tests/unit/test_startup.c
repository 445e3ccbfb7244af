/*
 * test_startup.c — cliques and total (inherited) costs on hand-built
 * profiles small enough to check by hand, plus deep ones for stack safety.
 * Part of deepprof's tests. MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "unit.h"
#include "build_profile.h"
#include "startup.h"

/* ===================================================================== */
/* { ==== building a profile from a list of arcs ==== */

#define arc dpt_arc
#define free_profile dpt_free_profile

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define BUILD(p, pd_ps, roots, arcs, to, ao)                                          \
	dpt_build_profile(p, NELEM(pd_ps) - 1, pd_ps, NULL, 0, NELEM(roots), roots, arcs,     \
			  NELEM(arcs), to, ao)

/*
 * The invariants every consistent profile satisfies, for every measure:
 * each thread's total is the sum of its csds' own costs and, over all
 * threads, the header's totals; each clique's total is its members' totals;
 * an entry csd of a single-entry clique has the clique's total; an internal
 * csd's total is its own; the shares of a multi-entry clique add up to its
 * total; csd total = own + callee pd's desc when the callee is alone in a
 * non-recursive clique with this one entry.
 */
static void check_invariants(const struct dpa_deep *d)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_cliques *cl = &d->cl;

	for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++) {
		uint64_t all = 0, hdr = 0;

		for (uint32_t t = 1; t <= p->n_thread; t++) {
			uint64_t sum = 0;

			for (uint32_t x = 1; x <= p->n_csd; x++)
				if (dpa_pd_thread(p, p->csd[x].caller_pd) == t)
					sum += dpa_own(p, x, m);
			CU_ASSERT_EQUAL(dpa_deep_thread_total(d, t, m), sum);
			all += dpa_deep_thread_total(d, t, m);
			/* the same, summed over the root pd's out csds */
			{
				const struct dpa_pd *r = &p->pd[p->thread[t].root_pd];
				uint64_t rsum = 0;

				for (uint32_t j = 0; j < dpa_pd_out_n(r); j++)
					rsum += dpa_deep_csd_total(d, dpa_out_csd(p, r->out_first + j), m);
				CU_ASSERT_EQUAL(rsum, sum);
			}
		}
		switch (m) {
		case DPA_CALLS: hdr = p->hdr.calls; break;
		case DPA_CSCS: hdr = p->hdr.cscs; break;
		case DPA_TICKS: hdr = p->hdr.ticks - p->hdr.ticks_outside; break;
		case DPA_ALLOCS: hdr = p->hdr.allocs - p->hdr.allocs_outside; break;
		case DPA_BYTES: hdr = p->hdr.bytes - p->hdr.bytes_outside; break;
		default: hdr = all; break;
		}
		CU_ASSERT_EQUAL(all, hdr);

		for (uint32_t c = 1; c <= cl->n; c++) {
			uint32_t nm, ne;
			const uint32_t *mem = dpa_clique_members(cl, c, &nm);
			const uint32_t *es = dpa_clique_entries(cl, c, &ne);
			uint64_t sum = 0, own = 0, esum = 0;

			for (uint32_t i = 0; i < nm; i++) {
				sum += dpa_deep_pd_total(d, mem[i], m);
				own += dpa_deep_pd_own(d, mem[i], m);
				CU_ASSERT_EQUAL(dpa_clique_of(cl, mem[i]), c);
			}
			CU_ASSERT_EQUAL(dpa_deep_clique_total(d, c, m), sum);
			CU_ASSERT_EQUAL(dpa_deep_clique_own(d, c, m), own);
			for (uint32_t i = 0; i < ne; i++)
				esum += dpa_deep_csd_total(d, es[i], m);
			if (ne)
				CU_ASSERT_EQUAL(esum, sum);
			if (ne == 1 && !dpa_clique_recursive(cl, p, c)) {
				uint32_t q = p->csd[es[0]].callee_pd;

				CU_ASSERT_EQUAL(dpa_deep_csd_total(d, es[0], m),
						dpa_own(p, es[0], m) + dpa_deep_pd_desc(d, q, m));
			}
		}
		for (uint32_t x = 1; x <= p->n_csd; x++) {
			if (dpa_csd_internal(cl, p, x))
				CU_ASSERT_EQUAL(dpa_deep_csd_total(d, x, m), dpa_own(p, x, m));
			CU_ASSERT(dpa_deep_csd_total(d, x, m) >= dpa_own(p, x, m));
			CU_ASSERT_EQUAL(dpa_deep_csd_desc(d, x, m),
					dpa_deep_csd_total(d, x, m) - dpa_own(p, x, m));
		}
		/* callers' parents come before their children */
		for (uint32_t x = 1; x <= p->n_csd; x++)
			CU_ASSERT(dpa_clique_of(cl, p->csd[x].caller_pd) <=
				  dpa_clique_of(cl, p->csd[x].callee_pd));
	}
}

/*
 * Set up *d over *p, asserting success and the invariants, and that the
 * general walk gives the same ps and css costs as the one taken.
 */
static int deep(struct dpa_deep *d, struct dpa_profile *p)
{
	struct dpa_error err = { "" };
	struct dpa_deep g;
	int r = dpa_deep_init(d, p, &err);

	CU_ASSERT_EQUAL_FATAL(r, 0);
	CU_ASSERT_STRING_EQUAL(err.msg, "");
	check_invariants(d);
	CU_ASSERT_EQUAL_FATAL(dpa_deep_init_measures(&g, p, DPA_ALL_MEASURES |
						     DPA_DEEP_GENERAL_WALK, &err), 0);
	CU_ASSERT_TRUE(g.tree_walk);
	/* all measures at once: the same as one at a time, stored (g) or
	 * derived from a ps's only pd (d) */
	for (uint32_t i = 0; i <= p->n_ps; i++) {
		uint64_t own[DPA_NMEASURES], total[DPA_NMEASURES];

		uint32_t npd = 0;

		for (uint32_t v = 1; v <= p->n_pd; v++)
			npd += p->pd[v].ps == i;
		CU_ASSERT_EQUAL(dpa_deep_ps_npd(d, i), npd);
		CU_ASSERT_EQUAL(dpa_deep_ps_npd(&g, i), npd);
		dpa_deep_ps_costs(d, i, own, total);
		for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++) {
			CU_ASSERT_EQUAL(own[m], dpa_deep_ps_own(d, i, m));
			CU_ASSERT_EQUAL(total[m], dpa_deep_ps_total(d, i, m));
		}
		dpa_deep_ps_costs(&g, i, own, total);
		for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++) {
			CU_ASSERT_EQUAL(own[m], dpa_deep_ps_own(d, i, m));
			CU_ASSERT_EQUAL(total[m], dpa_deep_ps_total(d, i, m));
		}
	}
	for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++) {
		for (uint32_t i = 0; i <= p->n_ps; i++) {
			CU_ASSERT_EQUAL(dpa_deep_ps_own(&g, i, m), dpa_deep_ps_own(d, i, m));
			CU_ASSERT_EQUAL(dpa_deep_ps_total(&g, i, m), dpa_deep_ps_total(d, i, m));
		}
		for (uint32_t i = 0; i <= p->n_css; i++) {
			CU_ASSERT_EQUAL(dpa_deep_css_own(&g, i, m), dpa_deep_css_own(d, i, m));
			CU_ASSERT_EQUAL(dpa_deep_css_total(&g, i, m), dpa_deep_css_total(d, i, m));
		}
	}
	/* clique and csd totals: stored for every clique (g) or derived for
	 * the leaves (d) */
	for (enum dpa_measure m = 0; m < DPA_NMEASURES; m++) {
		for (uint32_t c = 1; c <= d->cl.n; c++)
			CU_ASSERT_EQUAL(dpa_deep_clique_total(&g, c, m), dpa_deep_clique_total(d, c, m));
		for (uint32_t x = 1; x <= p->n_csd; x++)
			CU_ASSERT_EQUAL(dpa_deep_csd_total(&g, x, m), dpa_deep_csd_total(d, x, m));
	}
	CU_ASSERT_EQUAL(g.n_stored, g.cl.n);
	dpa_deep_release(&g);
	return r;
}

/* } ==== */

/* ===================================================================== */

/*
 * root(1) → main(2) → a(3) → b(4), ps = pd. Hand-computed totals:
 *   csd3 a→b: own = total (calls 6, cscs 6, ticks 1)
 *   csd2 main→a: calls 3+6 = 9, cscs 10+6 = 16, ticks 4+1 = 5, allocs 2, bytes 50
 *   csd1 root→main: calls 10, cscs 21, ticks 7, allocs 3, bytes 150
 */
static void test_chain(void)
{
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 4 };
	static const uint32_t roots[] = { 1 };
	static const struct arc arcs[] = {
		{ 1, 2, 1, .calls = 1, .cscs = 5, .ticks = 2, .allocs = 1, .bytes = 100 },
		{ 2, 3, 2, .calls = 3, .cscs = 10, .ticks = 4, .allocs = 2, .bytes = 50 },
		{ 3, 4, 3, .calls = 6, .cscs = 6, .ticks = 1 },
	};
	struct dpa_profile p;
	struct dpa_deep d;

	BUILD(&p, pd_ps, roots, arcs, 5, 0);
	deep(&d, &p);
	CU_ASSERT_EQUAL(d.cl.n, 4);
	/* no recursion: a member each, so no first[] is kept */
	CU_ASSERT_PTR_NULL(d.cl.first);
	for (uint32_t v = 1; v <= 5; v++)
		CU_ASSERT_EQUAL(dpa_clique_first(&d.cl, v), v - 1);
	for (uint32_t v = 1; v <= 4; v++) {
		uint32_t n;

		CU_ASSERT_EQUAL(dpa_clique_members(&d.cl, v, &n)[0], v);
		CU_ASSERT_EQUAL(n, 1);
		CU_ASSERT_EQUAL(dpa_clique_of(&d.cl, v), v);
		CU_ASSERT_FALSE(dpa_clique_recursive(&d.cl, &p, v));
		CU_ASSERT_EQUAL(dpa_clique_parent(&d.cl, &p, v), v - 1);
		CU_ASSERT_EQUAL(dpa_clique_primary_entry(&d.cl, v), v - 1);
	}
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 3, DPA_CALLS), 6);
	CU_ASSERT_EQUAL(dpa_deep_csd_desc(&d, 3, DPA_CALLS), 0);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 2, DPA_CALLS), 9);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 2, DPA_CSCS), 16);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 2, DPA_TICKS), 5);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 2, DPA_ALLOCS), 2);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 2, DPA_BYTES), 50);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 1, DPA_CALLS), 10);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 1, DPA_EXITS), 10);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 1, DPA_NONLOCAL), 0);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 1, DPA_CSCS), 21);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 1, DPA_TICKS), 7);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 1, DPA_ALLOCS), 3);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 1, DPA_BYTES), 150);
	CU_ASSERT_EQUAL(dpa_deep_csd_desc(&d, 1, DPA_CSCS), 16);
	/* pds: own is the in csd's, desc the out csds' totals */
	CU_ASSERT_EQUAL(dpa_deep_pd_own(&d, 3, DPA_CSCS), 10);
	CU_ASSERT_EQUAL(dpa_deep_pd_desc(&d, 3, DPA_CSCS), 6);
	CU_ASSERT_EQUAL(dpa_deep_pd_total(&d, 3, DPA_CSCS), 16);
	CU_ASSERT_EQUAL(dpa_deep_pd_own(&d, 1, DPA_CSCS), 0);
	CU_ASSERT_EQUAL(dpa_deep_pd_total(&d, 1, DPA_CSCS), 21);
	CU_ASSERT_EQUAL(dpa_deep_clique_total(&d, 1, DPA_TICKS), 7);
	CU_ASSERT_EQUAL(dpa_deep_clique_own(&d, 2, DPA_TICKS), 2);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 1, DPA_TICKS), 7);
	CU_ASSERT_EQUAL(p.hdr.ticks, 12);   /* 7 inside + 5 outside */
	/* ps and css: no recursion, so the pd's and csd's values */
	CU_ASSERT_EQUAL(dpa_deep_ps_own(&d, 3, DPA_CSCS), 10);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 3, DPA_CSCS), 16);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 1, DPA_CSCS), 21);
	CU_ASSERT_EQUAL(dpa_deep_css_own(&d, 2, DPA_CSCS), 10);
	CU_ASSERT_EQUAL(dpa_deep_css_total(&d, 2, DPA_CSCS), 16);
	CU_ASSERT(d.bytes > 0);
	CU_ASSERT_FALSE(d.tree_walk);
	/* exits equal calls on every csd: one slot; nonlocal exits all 0: none */
	CU_ASSERT_EQUAL(d.n_slots, 5);
	CU_ASSERT_EQUAL(d.slot[DPA_EXITS], d.slot[DPA_CALLS]);
	CU_ASSERT_EQUAL(d.slot[DPA_NONLOCAL], DPA_SLOT_ZERO);
	CU_ASSERT_TRUE(dpa_deep_stored(&d, DPA_NONLOCAL));
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 3, DPA_EXITS), 9);
	CU_ASSERT_EQUAL(dpa_deep_css_own(&d, 2, DPA_EXITS), 3);
	dpa_deep_release(&d);
	dpa_deep_release(&d);   /* releasing twice is harmless */
	free_profile(&p);
}

/*
 * A function called from two contexts: h (ps 5) under f and under g, each
 * with its own pd, both calling k (ps 6) through the same site (css 6).
 *   root1 → main2 → f3 → h5 → k7
 *                 → g4 → h6 → k8
 * ps h: own calls 4+1 = 5, total (4+8) + (1+2) = 15; cscs own 4+7 = 11,
 * total (4+16) + (7+4) = 31. css 6: own = total = calls 10, cscs 20.
 */
static void test_diamond(void)
{
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 4, 5, 5, 6, 6 };
	static const uint32_t roots[] = { 1 };
	static const struct arc arcs[] = {
		{ 1, 2, 1, .calls = 1, .cscs = 1 },
		{ 2, 3, 2, .calls = 2, .cscs = 2 },
		{ 2, 4, 3, .calls = 1, .cscs = 1 },
		{ 3, 5, 4, .calls = 4, .cscs = 4, .ticks = 3 },
		{ 4, 6, 5, .calls = 1, .cscs = 7, .ticks = 1 },
		{ 5, 7, 6, .calls = 8, .cscs = 16 },
		{ 6, 8, 6, .calls = 2, .cscs = 4 },
	};
	struct dpa_profile p;
	struct dpa_deep d;

	BUILD(&p, pd_ps, roots, arcs, 0, 0);
	deep(&d, &p);
	CU_ASSERT_EQUAL(d.cl.n, 8);
	CU_ASSERT_EQUAL(d.cl.n_multi, 0);
	CU_ASSERT_EQUAL(dpa_deep_ps_own(&d, 5, DPA_CALLS), 5);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 5, DPA_CALLS), 15);
	CU_ASSERT_EQUAL(dpa_deep_ps_own(&d, 5, DPA_CSCS), 11);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 5, DPA_CSCS), 31);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 5, DPA_TICKS), 4);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 6, DPA_CALLS), 10);
	CU_ASSERT_EQUAL(dpa_deep_css_own(&d, 6, DPA_CALLS), 10);
	CU_ASSERT_EQUAL(dpa_deep_css_total(&d, 6, DPA_CSCS), 20);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 2, DPA_CSCS), 2 + 4 + 16);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 3, DPA_CSCS), 1 + 7 + 4);
	CU_ASSERT_EQUAL(dpa_deep_pd_total(&d, 2, DPA_CSCS), 1 + 22 + 12);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 1, DPA_CSCS), 35);
	dpa_deep_release(&d);
	free_profile(&p);
}

/*
 * Direct recursion folded into one pd: fact (pd 3) calls itself 9 times
 * (csd 3, internal) and mul (pd 4) 10 times.
 * Clique {3}: own calls 1+9 = 10, total 10 + 10 = 20; main→fact total 20.
 * ps fact: own 10, total 20. css 3 (the recursive site): total = own = 9.
 */
static void test_direct_recursion(void)
{
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 4 };
	static const uint32_t roots[] = { 1 };
	static const struct arc arcs[] = {
		{ 1, 2, 1, .calls = 1, .cscs = 1 },
		{ 2, 3, 2, .calls = 1, .cscs = 1 },
		{ 3, 3, 3, .calls = 9, .cscs = 9, .ticks = 2 },
		{ 3, 4, 4, .calls = 10, .cscs = 10, .ticks = 1 },
	};
	struct dpa_profile p;
	struct dpa_deep d;

	BUILD(&p, pd_ps, roots, arcs, 0, 0);
	deep(&d, &p);
	CU_ASSERT_EQUAL(d.cl.n, 4);
	CU_ASSERT_TRUE(dpa_clique_recursive(&d.cl, &p, 3));
	CU_ASSERT_FALSE(dpa_clique_recursive(&d.cl, &p, 4));
	CU_ASSERT_TRUE(dpa_csd_internal(&d.cl, &p, 3));
	CU_ASSERT_FALSE(dpa_csd_internal(&d.cl, &p, 2));
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 3, DPA_CALLS), 9);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 3, DPA_TICKS), 2);
	CU_ASSERT_EQUAL(dpa_deep_clique_own(&d, 3, DPA_CALLS), 10);
	CU_ASSERT_EQUAL(dpa_deep_clique_total(&d, 3, DPA_CALLS), 20);
	CU_ASSERT_EQUAL(dpa_deep_clique_total(&d, 3, DPA_TICKS), 3);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 2, DPA_CALLS), 20);
	CU_ASSERT_EQUAL(dpa_deep_csd_desc(&d, 2, DPA_CALLS), 19);
	CU_ASSERT_EQUAL(dpa_deep_pd_own(&d, 3, DPA_CALLS), 10);
	CU_ASSERT_EQUAL(dpa_deep_pd_desc(&d, 3, DPA_CALLS), 10);
	CU_ASSERT_EQUAL(dpa_deep_ps_own(&d, 3, DPA_CALLS), 10);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 3, DPA_CALLS), 20);
	CU_ASSERT_EQUAL(dpa_deep_css_total(&d, 3, DPA_CALLS), 9);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 1, DPA_CALLS), 21);
	dpa_deep_release(&d);
	free_profile(&p);
}

/*
 * Mutual recursion: even (pd 3) ⇄ odd (pd 4), odd → leaf5, even → leaf6.
 * The search goes root, main, even, odd, leaf5 (finished first), leaf6, so
 * the topological ids are root 1, main 2, {even, odd} 3, leaf6 4, leaf5 5.
 * Clique 3: own calls 1+4+5 = 10, total 10 + 2 + 1 = 13, ticks 3 + 1 = 4.
 * pd even: own 5, desc 1, total 6; pd odd: own 5, desc 2, total 7.
 */
static void test_mutual_recursion(void)
{
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 4, 5, 5 };
	static const uint32_t roots[] = { 1 };
	static const struct arc arcs[] = {
		{ 1, 2, 1, .calls = 1, .cscs = 1 },
		{ 2, 3, 2, .calls = 1, .cscs = 1 },
		{ 3, 4, 3, .calls = 5, .cscs = 5 },
		{ 4, 3, 4, .calls = 4, .cscs = 4 },
		{ 4, 5, 5, .calls = 2, .cscs = 2, .ticks = 3 },
		{ 3, 6, 6, .calls = 1, .cscs = 1, .ticks = 1 },
	};
	static const uint32_t want_clique[] = { 0, 1, 2, 3, 3, 5, 4 };
	struct dpa_profile p;
	struct dpa_deep d;
	uint32_t n, buf[4];
	const uint32_t *mem;

	BUILD(&p, pd_ps, roots, arcs, 0, 0);
	deep(&d, &p);
	CU_ASSERT_EQUAL(d.cl.n, 5);
	for (uint32_t v = 1; v <= 6; v++)
		CU_ASSERT_EQUAL(dpa_clique_of(&d.cl, v), want_clique[v]);
	mem = dpa_clique_members(&d.cl, 3, &n);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(mem[0], 3);
	CU_ASSERT_EQUAL(mem[1], 4);
	/* first[] is kept: cliques 4 and 5 start after clique 3's two members */
	CU_ASSERT_PTR_NOT_NULL(d.cl.first);
	CU_ASSERT_EQUAL(dpa_clique_first(&d.cl, 4), 4);
	CU_ASSERT_EQUAL(dpa_clique_first(&d.cl, 6), 6);
	CU_ASSERT_EQUAL(dpa_clique_size(&d.cl, 3), 2);
	CU_ASSERT_EQUAL(dpa_clique_size(&d.cl, 4), 1);
	CU_ASSERT_TRUE(dpa_clique_recursive(&d.cl, &p, 3));
	CU_ASSERT_EQUAL(dpa_clique_primary_entry(&d.cl, 3), 2);
	CU_ASSERT_EQUAL(dpa_clique_parent(&d.cl, &p, 3), 2);
	CU_ASSERT_EQUAL(dpa_clique_parents(&d.cl, &p, 3, buf, 4), 1);
	CU_ASSERT_EQUAL(buf[0], 2);
	CU_ASSERT_EQUAL(dpa_clique_parent(&d.cl, &p, 5), 3);
	CU_ASSERT_EQUAL(dpa_clique_parents(&d.cl, &p, 1, buf, 4), 0);
	CU_ASSERT_TRUE(dpa_csd_internal(&d.cl, &p, 3));
	CU_ASSERT_TRUE(dpa_csd_internal(&d.cl, &p, 4));
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 4, DPA_CALLS), 4);
	CU_ASSERT_EQUAL(dpa_deep_clique_own(&d, 3, DPA_CALLS), 10);
	CU_ASSERT_EQUAL(dpa_deep_clique_total(&d, 3, DPA_CALLS), 13);
	CU_ASSERT_EQUAL(dpa_deep_clique_total(&d, 3, DPA_TICKS), 4);
	CU_ASSERT_EQUAL(dpa_deep_pd_own(&d, 3, DPA_CALLS), 5);
	CU_ASSERT_EQUAL(dpa_deep_pd_desc(&d, 3, DPA_CALLS), 1);
	CU_ASSERT_EQUAL(dpa_deep_pd_total(&d, 4, DPA_CALLS), 7);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 2, DPA_CALLS), 13);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 3, DPA_CALLS), 6);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 4, DPA_CALLS), 7);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 5, DPA_TICKS), 4);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 1, DPA_CALLS), 14);
	dpa_deep_release(&d);
	free_profile(&p);
}

/*
 * The same recursion (p ⇄ q) entered from two contexts: main → p, and
 * main → r → p: two cliques of the same procedures, neither inside the other.
 *   {p3, q4}: calls 1 + 3 + 2 = 6;  {p6, q7}: 2 + 4 + 3 = 9;  r: 1 + 9 = 10
 * ps p: own (1+2) + (2+3) = 8 = total (both pds outermost); ps q: 3 + 4 = 7.
 * css 4 (p's call of q) and css 5: internal, so total = own = 7 and 5.
 */
static void test_recursion_two_contexts(void)
{
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 4, 5, 3, 4 };
	static const uint32_t roots[] = { 1 };
	static const struct arc arcs[] = {
		{ 1, 2, 1, .calls = 1, .cscs = 1 },
		{ 2, 3, 2, .calls = 1, .cscs = 1 },
		{ 3, 4, 4, .calls = 3, .cscs = 3 },
		{ 4, 3, 5, .calls = 2, .cscs = 2 },
		{ 2, 5, 3, .calls = 1, .cscs = 1 },
		{ 5, 6, 6, .calls = 2, .cscs = 2 },
		{ 6, 7, 4, .calls = 4, .cscs = 4 },
		{ 7, 6, 5, .calls = 3, .cscs = 3 },
	};
	struct dpa_profile p;
	struct dpa_deep d;
	uint32_t c1, c2;

	BUILD(&p, pd_ps, roots, arcs, 0, 0);
	deep(&d, &p);
	CU_ASSERT_EQUAL(d.cl.n, 5);
	c1 = dpa_clique_of(&d.cl, 3);
	c2 = dpa_clique_of(&d.cl, 6);
	CU_ASSERT_NOT_EQUAL(c1, c2);
	CU_ASSERT_EQUAL(dpa_clique_of(&d.cl, 4), c1);
	CU_ASSERT_EQUAL(dpa_clique_of(&d.cl, 7), c2);
	CU_ASSERT_EQUAL(dpa_clique_parent(&d.cl, &p, c1), 2);
	CU_ASSERT_EQUAL(dpa_clique_parent(&d.cl, &p, c2), dpa_clique_of(&d.cl, 5));
	CU_ASSERT_EQUAL(dpa_deep_clique_total(&d, c1, DPA_CALLS), 6);
	CU_ASSERT_EQUAL(dpa_deep_clique_total(&d, c2, DPA_CALLS), 9);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 5, DPA_CALLS), 10);
	CU_ASSERT_EQUAL(dpa_deep_ps_own(&d, 3, DPA_CALLS), 8);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 3, DPA_CALLS), 8);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 4, DPA_CALLS), 7);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 5, DPA_CALLS), 10);
	CU_ASSERT_EQUAL(dpa_deep_css_own(&d, 4, DPA_CALLS), 7);
	CU_ASSERT_EQUAL(dpa_deep_css_total(&d, 4, DPA_CALLS), 7);
	CU_ASSERT_EQUAL(dpa_deep_css_total(&d, 5, DPA_CALLS), 5);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 1, DPA_CALLS), 17);
	dpa_deep_release(&d);
	free_profile(&p);
}

/*
 * A procedure nested in itself across cliques (p3 → x4 → p5, a second pd of
 * p below the first, as a profile can hold when a call site's csd keeps the
 * callee pd it got first): the inner pd's cost is already in the outer's
 * total, so ps p's total counts only the outer one. Likewise css 3 (p's call
 * of x) is used at p3 → x4 and, nested, at p5 → x7.
 *   p3 total cscs: 1 + 2 + 2 + 3 + 1 = 9;  p5 total: 2 + 3 + 1 = 6
 * ps p: own 1 + 2 = 3, total 9 (not 15). css 3: own 2 + 1 = 3, total 2+2+3+1 = 8.
 */
static void test_nested_procedure(void)
{
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 4, 3, 5, 4 };
	static const uint32_t roots[] = { 1 };
	static const struct arc arcs[] = {
		{ 1, 2, 1, .calls = 1, .cscs = 1 },
		{ 2, 3, 2, .calls = 1, .cscs = 1 },
		{ 3, 4, 3, .calls = 2, .cscs = 2 },
		{ 4, 5, 4, .calls = 2, .cscs = 2 },
		{ 5, 6, 5, .calls = 3, .cscs = 3 },
		{ 5, 7, 3, .calls = 1, .cscs = 1 },
	};
	struct dpa_profile p;
	struct dpa_deep d;

	BUILD(&p, pd_ps, roots, arcs, 0, 0);
	deep(&d, &p);
	CU_ASSERT_EQUAL(dpa_deep_pd_total(&d, 3, DPA_CSCS), 9);
	CU_ASSERT_EQUAL(dpa_deep_pd_total(&d, 5, DPA_CSCS), 6);
	CU_ASSERT_EQUAL(dpa_deep_ps_own(&d, 3, DPA_CSCS), 3);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 3, DPA_CSCS), 9);
	CU_ASSERT_EQUAL(dpa_deep_ps_own(&d, 4, DPA_CSCS), 3);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 4, DPA_CSCS), 8);
	CU_ASSERT_EQUAL(dpa_deep_css_own(&d, 3, DPA_CSCS), 3);
	CU_ASSERT_EQUAL(dpa_deep_css_total(&d, 3, DPA_CSCS), 8);
	CU_ASSERT_EQUAL(dpa_deep_css_total(&d, 4, DPA_CSCS), 6);
	dpa_deep_release(&d);
	free_profile(&p);
}

/*
 * Two threads, each with its own graph; f (ps 3) runs in both.
 *   thread 1: root1 → main2 → f3      thread 2: root4 → start5 → f6
 * Thread 1's cliques are 1..3, thread 2's 4..6. 3 ticks and 2 allocations
 * happened outside instrumented code: the header counts them, no csd does.
 */
static void test_two_threads(void)
{
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 1, 4, 3 };
	static const uint32_t roots[] = { 1, 4 };
	static const struct arc arcs[] = {
		{ 1, 2, 1, .calls = 1, .cscs = 4, .allocs = 1, .bytes = 8 },
		{ 2, 3, 2, .calls = 2, .cscs = 2, .ticks = 1 },
		{ 4, 5, 3, .calls = 1, .cscs = 3, .nonlocal = 1 },
		{ 5, 6, 4, .calls = 5, .cscs = 5, .ticks = 2, .allocs = 5, .bytes = 80 },
	};
	struct dpa_profile p;
	struct dpa_deep d;

	BUILD(&p, pd_ps, roots, arcs, 3, 2);
	deep(&d, &p);
	CU_ASSERT_EQUAL(d.cl.n, 6);
	for (uint32_t v = 1; v <= 6; v++)
		CU_ASSERT_EQUAL(dpa_clique_of(&d.cl, v), v);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 1, DPA_CALLS), 3);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 1, DPA_CSCS), 6);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 2, DPA_CALLS), 6);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 2, DPA_CSCS), 8);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 2, DPA_NONLOCAL), 1);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 2, DPA_EXITS), 5);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 2, DPA_ALLOCS), 5);
	/* a non-local exit: exits differ from calls and take their own slot */
	CU_ASSERT_NOT_EQUAL(d.slot[DPA_EXITS], d.slot[DPA_CALLS]);
	CU_ASSERT(d.slot[DPA_NONLOCAL] >= 0);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 1, DPA_EXITS), 8);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 1, DPA_NONLOCAL), 1);
	CU_ASSERT_EQUAL(p.hdr.allocs, 8);
	CU_ASSERT_EQUAL(p.hdr.ticks, 6);
	CU_ASSERT_EQUAL(dpa_deep_ps_own(&d, 3, DPA_CALLS), 7);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 3, DPA_CALLS), 7);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 3, DPA_TICKS), 3);
	/* the root procedure's total: both threads */
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 1, DPA_CALLS), 9);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 1, DPA_CSCS), 14);
	dpa_deep_release(&d);
	free_profile(&p);
}

/*
 * A clique with two parents (not produced by recursion folding, but a file
 * may hold it): c5 is called from a3 and from b4. Its total is shared out
 * by calls (3 : 1), rounding down, the primary entry (a→c, more calls)
 * taking the remainder:
 *   calls: total 3+1+8 = 12, rest 12-4 = 8: a→c 3 + 6 = 9, b→c 1 + 2 = 3
 *   cscs:  total 3+1+7 = 11, rest 7: b→c 1 + floor(7/4) = 2, a→c 3 + 6 = 9
 */
static void test_two_parents(void)
{
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 4, 5, 6 };
	static const uint32_t roots[] = { 1 };
	static const struct arc arcs[] = {
		{ 1, 2, 1, .calls = 1, .cscs = 1 },
		{ 2, 3, 2, .calls = 1, .cscs = 1 },
		{ 2, 4, 3, .calls = 1, .cscs = 1 },
		{ 3, 5, 4, .calls = 3, .cscs = 3 },
		{ 4, 5, 5, .calls = 1, .cscs = 1 },
		{ 5, 6, 6, .calls = 8, .cscs = 7 },
	};
	struct dpa_profile p;
	struct dpa_deep d;
	uint32_t c, n, buf[4];
	const uint32_t *es;

	BUILD(&p, pd_ps, roots, arcs, 0, 0);
	deep(&d, &p);
	c = dpa_clique_of(&d.cl, 5);
	CU_ASSERT_EQUAL(d.cl.n_multi, 1);
	es = dpa_clique_entries(&d.cl, c, &n);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(es[0], 4);
	CU_ASSERT_EQUAL(es[1], 5);
	CU_ASSERT_EQUAL(dpa_clique_primary_entry(&d.cl, c), 4);
	CU_ASSERT_EQUAL(dpa_clique_parent(&d.cl, &p, c), dpa_clique_of(&d.cl, 3));
	CU_ASSERT_EQUAL_FATAL(dpa_clique_parents(&d.cl, &p, c, buf, 4), 2);
	CU_ASSERT_EQUAL(buf[0], dpa_clique_of(&d.cl, 3) < dpa_clique_of(&d.cl, 4) ?
			dpa_clique_of(&d.cl, 3) : dpa_clique_of(&d.cl, 4));
	CU_ASSERT_NOT_EQUAL(buf[0], buf[1]);
	CU_ASSERT_EQUAL(dpa_clique_parents(&d.cl, &p, c, buf, 1), 2);
	CU_ASSERT_EQUAL(dpa_deep_clique_total(&d, c, DPA_CALLS), 12);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 4, DPA_CALLS), 9);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 5, DPA_CALLS), 3);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 4, DPA_CSCS), 9);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 5, DPA_CSCS), 2);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 5, DPA_TICKS), 0);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 1, DPA_CALLS), 15);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 1, DPA_CSCS), 14);
	/* ps c: its one pd's total; css 4 and 5: their csds' shares */
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 5, DPA_CSCS), 11);
	CU_ASSERT_EQUAL(dpa_deep_css_total(&d, 4, DPA_CSCS), 9);
	CU_ASSERT_EQUAL(dpa_deep_css_total(&d, 5, DPA_CSCS), 2);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 3, DPA_CSCS), 1 + 9);
	CU_ASSERT_TRUE(d.tree_walk);    /* several entries: the general walk */
	dpa_deep_release(&d);
	free_profile(&p);
}

/*
 * The same with the calls swapped: b→c (3 calls) is now the primary entry
 * but the search enters c from a, so ids are not a preorder of the tree of
 * primary parents and the ps/css totals take the general walk.
 *   calls: rest 8: a→c 1 + 2 = 3, b→c 3 + 6 = 9
 *   cscs:  rest 7: a→c 1 + floor(7/4) = 2, b→c 3 + 6 = 9
 */
static void test_two_parents_other_primary(void)
{
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 4, 5, 6 };
	static const uint32_t roots[] = { 1 };
	static const struct arc arcs[] = {
		{ 1, 2, 1, .calls = 1, .cscs = 1 },
		{ 2, 3, 2, .calls = 1, .cscs = 1 },
		{ 2, 4, 3, .calls = 1, .cscs = 1 },
		{ 3, 5, 4, .calls = 1, .cscs = 1 },
		{ 4, 5, 5, .calls = 3, .cscs = 3 },
		{ 5, 6, 6, .calls = 8, .cscs = 7 },
	};
	struct dpa_profile p;
	struct dpa_deep d;
	uint32_t c;

	BUILD(&p, pd_ps, roots, arcs, 0, 0);
	deep(&d, &p);
	c = dpa_clique_of(&d.cl, 5);
	CU_ASSERT_TRUE(d.tree_walk);
	CU_ASSERT_EQUAL(dpa_clique_primary_entry(&d.cl, c), 5);
	CU_ASSERT_EQUAL(dpa_clique_parent(&d.cl, &p, c), dpa_clique_of(&d.cl, 4));
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 4, DPA_CALLS), 3);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 5, DPA_CALLS), 9);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 4, DPA_CSCS), 2);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 5, DPA_CSCS), 9);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 5, DPA_CSCS), 11);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 3, DPA_CSCS), 3);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 4, DPA_CSCS), 10);
	CU_ASSERT_EQUAL(dpa_deep_css_total(&d, 4, DPA_CSCS), 2);
	CU_ASSERT_EQUAL(dpa_deep_css_total(&d, 5, DPA_CSCS), 9);
	CU_ASSERT_EQUAL(dpa_deep_ps_own(&d, 5, DPA_CSCS), 4);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 1, DPA_CSCS), 14);
	dpa_deep_release(&d);
	free_profile(&p);
}

/* Storing only some measures: csd/pd/clique own costs for all, totals and
 * ps/css costs for those only. */
static void test_measure_mask(void)
{
	static const uint32_t pd_ps[] = { 0, 1, 2, 3 };
	static const uint32_t roots[] = { 1 };
	static const struct arc arcs[] = {
		{ 1, 2, 1, .calls = 1, .cscs = 5, .ticks = 2 },
		{ 2, 3, 2, .calls = 3, .cscs = 10, .ticks = 4 },
	};
	struct dpa_profile p;
	struct dpa_deep d;
	struct dpa_error err = { "" };

	BUILD(&p, pd_ps, roots, arcs, 0, 0);
	CU_ASSERT_EQUAL_FATAL(dpa_deep_init_measures(&d, &p, 1u << DPA_TICKS, &err), 0);
	CU_ASSERT_TRUE(dpa_deep_stored(&d, DPA_TICKS));
	CU_ASSERT_FALSE(dpa_deep_stored(&d, DPA_CSCS));
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 1, DPA_TICKS), 6);
	CU_ASSERT_EQUAL(dpa_deep_pd_total(&d, 2, DPA_TICKS), 6);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 2, DPA_TICKS), 6);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 1, DPA_CSCS), 0);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 2, DPA_CSCS), 0);
	CU_ASSERT_EQUAL(dpa_deep_ps_own(&d, 2, DPA_CSCS), 0);    /* not stored */
	CU_ASSERT_EQUAL(dpa_deep_ps_own(&d, 2, DPA_TICKS), 2);
	CU_ASSERT_EQUAL(dpa_deep_clique_own(&d, 2, DPA_CSCS), 5);
	CU_ASSERT_EQUAL(dpa_deep_pd_own(&d, 3, DPA_CSCS), 10);
	{
		uint64_t own[DPA_NMEASURES], total[DPA_NMEASURES];

		/* ps 2 (main): own ticks 2, total 2 + 4; cscs not stored */
		dpa_deep_ps_costs(&d, 2, own, total);
		CU_ASSERT_EQUAL(own[DPA_TICKS], 2);
		CU_ASSERT_EQUAL(total[DPA_TICKS], 6);
		CU_ASSERT_EQUAL(own[DPA_CSCS], 0);
		CU_ASSERT_EQUAL(total[DPA_CSCS], 0);
		CU_ASSERT_EQUAL(own[DPA_CALLS], 0);
	}
	dpa_deep_release(&d);

	/* no measure at all: cliques only */
	CU_ASSERT_EQUAL_FATAL(dpa_deep_init_measures(&d, &p, 0, &err), 0);
	CU_ASSERT_EQUAL(d.n_slots, 0);
	CU_ASSERT_EQUAL(d.cl.n, 3);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 1, DPA_CALLS), 0);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 2, DPA_CALLS), 0);
	CU_ASSERT_EQUAL(dpa_deep_clique_own(&d, 3, DPA_CALLS), 3);
	dpa_deep_release(&d);

	/* only a measure that is 0 everywhere: stored, no slot */
	CU_ASSERT_EQUAL_FATAL(dpa_deep_init_measures(&d, &p, 1u << DPA_ALLOCS, &err), 0);
	CU_ASSERT_EQUAL(d.n_slots, 0);
	CU_ASSERT_TRUE(dpa_deep_stored(&d, DPA_ALLOCS));
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 1, DPA_ALLOCS), 0);
	dpa_deep_release(&d);
	free_profile(&p);
}

/* Totals of 2^31 and more are kept aside in 64 bits; above 2^64 they are an error. */
static void test_wide_values(void)
{
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 4 };
	static const uint32_t roots[] = { 1 };
	struct arc arcs[] = {
		{ 1, 2, 1, .calls = 1, .cscs = 3000000000u },
		{ 2, 3, 2, .calls = 1, .cscs = 3000000000u },
		{ 3, 4, 3, .calls = 1, .cscs = 5 },
	};
	struct dpa_profile p;
	struct dpa_deep d;
	struct dpa_error err = { "" };

	BUILD(&p, pd_ps, roots, arcs, 0, 0);
	deep(&d, &p);
	CU_ASSERT_EQUAL(dpa_deep_clique_total(&d, 1, DPA_CSCS), 6000000005ull);
	CU_ASSERT_EQUAL(dpa_deep_clique_total(&d, 2, DPA_CSCS), 6000000005ull);
	CU_ASSERT_EQUAL(dpa_deep_clique_total(&d, 3, DPA_CSCS), 3000000005ull);
	CU_ASSERT_EQUAL(dpa_deep_clique_total(&d, 4, DPA_CSCS), 5);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 2, DPA_CSCS), 3000000005ull);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 2, DPA_CSCS), 6000000005ull);
	dpa_deep_release(&d);
	free_profile(&p);

	/* 200 procedures over 2^32 each: the wide values' array grows */
	{
		uint32_t star_ps[204];
		struct arc star[202];

		for (uint32_t v = 0; v <= 203; v++)
			star_ps[v] = v;
		star[0] = (struct arc){ 1, 2, 1, .calls = 1, .cscs = 1 };
		for (uint32_t i = 1; i <= 200; i++)
			star[i] = (struct arc){ 2, 2 + i, 1 + i, .calls = i,
						.cscs = 5000000000ull + i };
		/* and one small one, which stays in 32 bits */
		star[201] = (struct arc){ 2, 203, 202, .calls = 1, .cscs = 7 };
		dpt_build_profile(&p, 203, star_ps, NULL, 0, 1, roots, star, 202, 0, 0);
		deep(&d, &p);
		for (uint32_t i = 1; i <= 200; i++) {
			CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 2 + i, DPA_CSCS), 5000000000ull + i);
			CU_ASSERT_EQUAL(dpa_deep_css_own(&d, 1 + i, DPA_CSCS), 5000000000ull + i);
			CU_ASSERT_EQUAL(dpa_deep_ps_own(&d, 2 + i, DPA_CALLS), i);
		}
		CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 203, DPA_CSCS), 7);
		CU_ASSERT_EQUAL(dpa_deep_css_total(&d, 202, DPA_CSCS), 7);
		CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 2, DPA_CSCS),
				1 + 200 * 5000000000ull + 200 * 201 / 2 + 7);
		/* each ps has one pd, so its costs are its pd's, not stored;
		 * the 201 leaves' totals are their own costs, not stored, nor
		 * is clique 1's, a chain's link (its one call out is into
		 * clique 2): only clique 2 is, wide */
		CU_ASSERT_EQUAL(d.n_ps_multi, 0);
		CU_ASSERT_EQUAL(d.n_css_multi, 0);
		CU_ASSERT_EQUAL(d.n_stored, 1);
		CU_ASSERT_EQUAL(d.tier[d.slot[DPA_CSCS]].n_big, 1);
		dpa_deep_release(&d);
		/* stored for all (the general walk): cliques 1, 2 and the
		 * 200 wide, clique 203 narrow, and ps likewise */
		CU_ASSERT_EQUAL_FATAL(dpa_deep_init_measures(&d, &p, DPA_ALL_MEASURES |
							     DPA_DEEP_GENERAL_WALK, &err), 0);
		CU_ASSERT_EQUAL(d.n_stored, 203);
		CU_ASSERT_EQUAL(d.tier[d.slot[DPA_CSCS]].n_big, 202);
		CU_ASSERT_EQUAL(d.tier[d.slot[DPA_CSCS]].cap_big, 256);
		CU_ASSERT_EQUAL(d.ps_total[d.slot[DPA_CSCS]].n_big, 202);
		CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 203, DPA_CSCS), 7);
		CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 202, DPA_CSCS), 5000000200ull);
		dpa_deep_release(&d);
		free_profile(&p);
	}

	arcs[0].cscs = arcs[1].cscs = UINT64_MAX / 2 + 1;
	BUILD(&p, pd_ps, roots, arcs, 0, 0);
	CU_ASSERT_EQUAL(dpa_deep_init(&d, &p, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "test.data: costs overflow 64 bits");
	dpa_deep_release(&d);   /* zeroed on failure: a no-op */
	free_profile(&p);
}

/* An empty profile: no pds, no cliques. */
static void test_empty(void)
{
	struct dpa_profile p;
	struct dpa_deep d;
	struct dpa_error err = { "" };

	memset(&p, 0, sizeof(p));
	p.pd = calloc(2, sizeof(*p.pd));      /* pd 0 and the sentinel */
	p.csd = calloc(1, sizeof(*p.csd));
	p.ps = calloc(1, sizeof(*p.ps));
	p.css = calloc(1, sizeof(*p.css));
	p.thread = calloc(1, sizeof(*p.thread));
	CU_ASSERT_EQUAL_FATAL(dpa_deep_init(&d, &p, &err), 0);
	CU_ASSERT_EQUAL(d.cl.n, 0);
	dpa_deep_release(&d);
	free_profile(&p);
}

/*
 * 10^6 pds in a chain (root → 2 → ... → N), then the same with the last
 * calling back to pd 2 (one clique of N-1 members): no recursion, so no
 * stack overflow, under ASan too. csd i (pd i → pd i+1) has total
 * calls N - i, cscs 2 (N - i).
 */
#define DEEP_N 1000000u
static void deep_chain(bool cycle)
{
	uint32_t *pd_ps = malloc((DEEP_N + 1) * sizeof(*pd_ps));
	struct arc *arcs = calloc(DEEP_N, sizeof(*arcs));
	uint32_t roots[] = { 1 }, n_arcs = DEEP_N - 1;
	struct dpa_profile p;
	struct dpa_deep d;
	struct dpa_error err = { "" };

	for (uint32_t v = 1; v <= DEEP_N; v++)
		pd_ps[v] = v;
	for (uint32_t i = 0; i < DEEP_N - 1; i++)
		arcs[i] = (struct arc){ i + 1, i + 2, i + 1, .calls = 1, .cscs = 2 };
	if (cycle)
		arcs[n_arcs++] = (struct arc){ DEEP_N, 2, DEEP_N, .calls = 1, .cscs = 2 };
	/* one non-local exit where the sample of csds for the slot guess does
	 * not look (csd 1001; it sees every 15th from 1): startup must notice
	 * and begin again with exits and nonlocal exits in their own slots */
	arcs[1000].nonlocal = 1;
	dpt_build_profile(&p, DEEP_N, pd_ps, NULL, 0, 1, roots, arcs, n_arcs, 0, 0);
	CU_ASSERT_EQUAL_FATAL(dpa_deep_init(&d, &p, &err), 0);
	if (!cycle) {
		CU_ASSERT_EQUAL(d.cl.n, DEEP_N);
		CU_ASSERT_EQUAL(dpa_clique_of(&d.cl, DEEP_N), DEEP_N);
		CU_ASSERT_EQUAL(dpa_clique_of(&d.cl, 12345), 12345);
		CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 1, DPA_CALLS), DEEP_N - 1);
		CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 500000, DPA_CSCS), 2 * (DEEP_N - 500000));
		CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 2, DPA_CALLS), DEEP_N - 1);
		/* a chain's links store one total in CHAIN_MAX (4): every other
		 * is found from the one below, all exact */
		CU_ASSERT(d.n_stored <= DEEP_N / 4 + 1);
		{
			uint32_t bad = 0;

			for (uint32_t i = 1; i < DEEP_N; i++)
				bad += dpa_deep_csd_total(&d, i, DPA_CSCS) != 2 * (uint64_t)(DEEP_N - i) ||
				       dpa_deep_clique_total(&d, i + 1, DPA_CALLS) != DEEP_N - i;
			CU_ASSERT_EQUAL(bad, 0);
		}
	} else {
		uint32_t n;

		CU_ASSERT_EQUAL(d.cl.n, 2);
		dpa_clique_members(&d.cl, 2, &n);
		CU_ASSERT_EQUAL(n, DEEP_N - 1);
		/* in csds of the clique: 1→2, the N-2 inside the chain, N→2 */
		CU_ASSERT_EQUAL(dpa_deep_clique_total(&d, 2, DPA_CALLS), DEEP_N);
		CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 1, DPA_CALLS), DEEP_N);
		CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 2, DPA_CALLS), 1);  /* internal */
		CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 2, DPA_CALLS), 2);   /* in: 1→2, N→2 */
	}
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 1, DPA_CSCS), p.hdr.cscs);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 1, DPA_NONLOCAL), 1);
	CU_ASSERT_EQUAL(dpa_deep_thread_total(&d, 1, DPA_EXITS), n_arcs - 1);
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 1001, DPA_NONLOCAL), 1);
	/* in the cycle, csd 1001 is internal: its total is its own 0 exits */
	CU_ASSERT_EQUAL(dpa_deep_csd_total(&d, 1001, DPA_EXITS), cycle ? 0 : DEEP_N - 1002);
	CU_ASSERT(d.slot[DPA_NONLOCAL] >= 0);
	CU_ASSERT_NOT_EQUAL(d.slot[DPA_EXITS], d.slot[DPA_CALLS]);
	dpa_deep_release(&d);
	free_profile(&p);
	free(arcs);
	free(pd_ps);
}

static void test_deep_chain(void)
{
	deep_chain(false);
}

static void test_deep_cycle(void)
{
	deep_chain(true);
}

/*
 * Through the real reader: files written by the generator (tests/gen), whose
 * shapes fix the clique structure, with every invariant checked against the
 * header's totals.
 */
static void generated(enum dpg_shape shape, uint64_t csds, uint32_t threads,
		      uint32_t want_cliques, uint32_t want_recursive, uint32_t want_members)
{
	struct dpg_opts o = { .shape = shape, .csds = csds, .threads = threads, .seed = 11 };
	struct dpg_stats st;
	struct dpa_profile p;
	struct dpa_deep d;
	struct dpa_error err = { "" };
	char gerr[512];
	const char *path = dpa_test_path("startup.data");
	uint32_t rec = 0, members = 0;

	CU_ASSERT_EQUAL_FATAL(dpg_write_file(&o, path, &st, gerr, sizeof(gerr)), 0);
	CU_ASSERT_EQUAL_FATAL(dpa_profile_read(&p, path, &err), 0);
	deep(&d, &p);
	CU_ASSERT_EQUAL(d.cl.n, want_cliques);
	CU_ASSERT_EQUAL(d.cl.n_multi, 0);
	CU_ASSERT_FALSE(d.tree_walk);
	for (uint32_t c = 1; c <= d.cl.n; c++) {
		uint32_t n;

		dpa_clique_members(&d.cl, c, &n);
		if (dpa_clique_recursive(&d.cl, &p, c)) {
			rec++;
			members += n;
		}
	}
	CU_ASSERT_EQUAL(rec, want_recursive);
	CU_ASSERT_EQUAL(members, want_members);
	/* thread 1's root clique is clique 1 */
	CU_ASSERT_EQUAL(dpa_clique_of(&d.cl, p.thread[1].root_pd), 1);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 1, DPA_CALLS), st.calls);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 1, DPA_CSCS), st.cscs);
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 1, DPA_ALLOCS), st.allocs);
	dpa_deep_release(&d);
	dpa_profile_release(&p);
}

static void test_generated(void)
{
	generated(DPG_CHAIN, 3000, 1, 3001, 0, 0);
	generated(DPG_TREE, 3000, 1, 3001, 0, 0);
	generated(DPG_WIDE, 3000, 1, 3001, 0, 0);
	/* G = ceil((M-1)/2) = 1500 groups main -> r_g -> r_g */
	generated(DPG_RECURSIVE, 3001, 1, 2 + 1500, 1500, 1500);
	/* G = ceil((M-1)/3) = 1000 groups main -> a_g -> b_g -> a_g */
	generated(DPG_MUTUAL, 3001, 1, 2 + 1000, 1000, 2000);
	/* 4 threads of 750 csds: 751 pds each */
	generated(DPG_THREADS, 3000, 4, 4 * 751, 0, 0);
}

DPA_TEST_SUITE(startup,
	       DPA_TEST(test_chain),
	       DPA_TEST(test_diamond),
	       DPA_TEST(test_direct_recursion),
	       DPA_TEST(test_mutual_recursion),
	       DPA_TEST(test_recursion_two_contexts),
	       DPA_TEST(test_nested_procedure),
	       DPA_TEST(test_two_threads),
	       DPA_TEST(test_two_parents),
	       DPA_TEST(test_two_parents_other_primary),
	       DPA_TEST(test_measure_mask),
	       DPA_TEST(test_wide_values),
	       DPA_TEST(test_empty),
	       DPA_TEST(test_generated),
	       DPA_TEST(test_deep_chain),
	       DPA_TEST(test_deep_cycle));
