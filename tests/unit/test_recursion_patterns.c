/*
 * test_recursion_patterns.c — feedback/recursion_patterns.c: recursion
 * types from counts and from the progrep's body paths, the cost of a call
 * per level, and the parallel cut-off depth, on hand-built profiles.
 * Part of deepprof's tests. MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "build_profile.h"
#include "recursion_patterns.h"

/* These profiles have no split measure (no inside keys): the balanced
 * model stands, and the cut-off's why says so (recursion_patterns.c, "The
 * split"). */
#define NO_SPLIT "split not measured (no inside measure: an old profile or ticks off): " \
	"balanced halves assumed"

/* ================================================================
 * Building a profile
 * ================================================================ */

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define BUILD(t, names, n_css, css_caller, pd_ps, arcs) \
	dpt_deep_build(t, NELEM(names) - 1, names, n_css, css_caller, NELEM(pd_ps) - 1, pd_ps, arcs, NELEM(arcs))

/* A feedback ready for dpf_recursion_patterns: overheads spawn 60 + delay 30 +
 * barrier 10 = 100 ns; ns_per_unit u. */
static void fb_init(struct dpf_feedback *fb, double u)
{
	memset(fb, 0, sizeof(*fb));
	dpf_options_default(&fb->opt);
	fb->basis = DPF_CSCS;
	fb->ns_per_unit = u;
	fb->opt.ov.spawn_cost = 60;
	fb->opt.ov.spawn_delay = 30;
	fb->opt.ov.barrier_cost = 10;
	fb->opt.max_tasks = 2;
}

/* The entry of fb whose place is function fn (exactly one). */
static const struct dpf_recursion *rec_of(const struct dpf_feedback *fb, const char *fn)
{
	const struct dpf_recursion *r = NULL;

	for (uint32_t i = 0; i < fb->n_rec; i++)
		if (fb->rec[i].at.fn && !strcmp(fb->rec[i].at.fn, fn)) {
			CU_ASSERT_PTR_NULL(r);
			r = &fb->rec[i];
		}
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	return r;
}

/* Run dpf_recursion_patterns on t with progreps s (may be NULL) at u ns/CSC. */
static void run(struct dpf_feedback *fb, const struct dpt_deep *t, const struct dpa_progreps *s,
		double u)
{
	struct dpa_error err = { { 0 } };

	fb_init(fb, u);
	CU_ASSERT_EQUAL_FATAL(dpf_recursion_patterns(fb, &t->d, s, &err), 0);
}

#define TU "{'progrep':1,'record':'tu','tu':'00000000000000ab','file':'t.c','n_ps':1,'n_css':3,'abi':2}\n"
#define FN(body, unplaced) \
	"{'progrep':1,'record':'fn','tu':'00000000000000ab','ps':0,'fn':'fib'," \
	"'file':'/nonexistent/t.c','line':30,'end_line':40,'checksum':'0000000000000f1b','public':true," \
	"'first_site':0,'n_sites':3,'backedges':0,'params':[],'body':" body "," \
	"'unplaced':" unplaced ",'calls':[" CALL(0) "," CALL(1) "," CALL(2) "]}\n"
#define CALL(s) "{'site':" #s ",'id':'00000000000000ab:" #s "','callee':'fib'," \
	"'kind':'normal','line':3" #s ",'col':3,'effects':'memory','args':[],'result':null}"

/*
 * Parse progrep text q (' for ") into module 1 of *s for profile *p: ps
 * fib_ps is its function "fib" (TU ps 0), css css0 + i its site i.
 */
static void load_pr(struct dpa_progreps *s, const struct dpa_profile *p, const char *q,
		    uint32_t fib_ps, uint32_t css0, uint32_t n_sites)
{
	uint32_t *ps_fn = calloc(p->n_ps + 1, sizeof(*ps_fn));
	uint32_t *css_site = calloc(p->n_css + 1, sizeof(*css_site));

	CU_ASSERT_FATAL(ps_fn && css_site);
	ps_fn[fib_ps] = 1;
	for (uint32_t i = 0; i < n_sites; i++)
		css_site[css0 + i] = i + 1;
	dpt_progreps_parse(s, p, q, ps_fn, css_site);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->ps[fib_ps].fn);
	free(ps_fn);
	free(css_site);
}

/* ================================================================
 * Three cliques: divide-and-conquer, single, mutual
 * ================================================================ */

/*
 * main (pd 2) calls
 *   fib (pd 3) once (css 2, 10 CSCs); fib calls itself through css 3 and
 *     css 4, 7 calls of 10 CSCs each: a balanced binary tree of 15
 *     activations, 4 levels, 150 CSCs, 10 per activation;
 *   walk (pd 4) once (css 5, 1 CSC); walk calls itself through css 6 (99
 *     calls, 99 CSCs) and visit (pd 5) 100 times (css 7, 400 CSCs): a
 *     list of 100, 500 CSCs, 5 per level;
 *   a (pd 6) once (css 8, 1 CSC); a calls b (pd 7) 5 times (css 9, 5
 *     CSCs), b calls a 4 times (css 10, 4 CSCs) and leaf (pd 8) 5 times
 *     (css 11, 20 CSCs): mutual, 10 activations, 30 CSCs.
 */
static const char *const names3[] = { NULL, "<root>", "main", "fib", "walk", "visit", "a", "b",
				      "leaf" };
static const uint32_t pd_ps3[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
static const struct dpt_arc arcs3[] = {
	{ 1, 2, 1, 1, 1, 0, 0, 0, 0 },
	{ 2, 3, 2, 1, 10, 0, 0, 0, 0 },
	{ 3, 3, 3, 7, 70, 0, 0, 0, 0 },
	{ 3, 3, 4, 7, 70, 0, 0, 0, 0 },
	{ 2, 4, 5, 1, 1, 0, 0, 0, 0 },
	{ 4, 4, 6, 99, 99, 0, 0, 0, 0 },
	{ 4, 5, 7, 100, 400, 0, 0, 0, 0 },
	{ 2, 6, 8, 1, 1, 0, 0, 0, 0 },
	{ 6, 7, 9, 5, 5, 0, 0, 0, 0 },
	{ 7, 6, 10, 4, 4, 0, 0, 0, 0 },
	{ 7, 8, 11, 5, 20, 0, 0, 0, 0 },
};

static void check_fib_divide(const struct dpf_recursion *r)
{
	CU_ASSERT_EQUAL(r->type, DPA_REC_DIVIDE);
	CU_ASSERT_EQUAL(r->branching, 2);
	CU_ASSERT_EQUAL(r->members, 1);
	CU_ASSERT_EQUAL(r->rec_sites, 2);
	CU_ASSERT_EQUAL(r->entry_calls, 1);
	CU_ASSERT_EQUAL(r->internal_calls, 14);
	CU_ASSERT_DOUBLE_EQUAL(r->depth, 4, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->cost_per_entry, 150, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->per_call, 10, 1e-9);
	CU_ASSERT_EQUAL_FATAL(r->n_levels, 4);
	/* 10 * (2^(4-L) - 1) */
	CU_ASSERT_DOUBLE_EQUAL(r->level_cost[0], 150, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->level_cost[1], 70, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->level_cost[2], 30, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->level_cost[3], 10, 1e-9);
}

static void test_three_cliques(void)
{
	struct dpt_deep t;
	struct dpf_feedback fb;
	const struct dpf_recursion *r;

	BUILD(&t, names3, 11, NULL, pd_ps3, arcs3);
	/* 100 ns/CSC: the overheads are 1 CSC, a spawn needs 10 */
	run(&fb, &t, NULL, 100);
	CU_ASSERT_EQUAL_FATAL(fb.n_rec, 3);
	/* by total cost: walk 500, fib 150, a+b 30 */
	CU_ASSERT_STRING_EQUAL(fb.rec[0].at.fn, "walk");
	CU_ASSERT_STRING_EQUAL(fb.rec[1].at.fn, "fib");
	CU_ASSERT_STRING_EQUAL(fb.rec[2].at.fn, "a");

	r = rec_of(&fb, "fib");
	check_fib_divide(r);
	CU_ASSERT_FALSE(r->from_progrep);
	CU_ASSERT_EQUAL(r->at.line, 30);
	CU_ASSERT_STRING_EQUAL(r->at.file, "t.c");
	CU_ASSERT_EQUAL(r->clique, dpa_clique_of(&t.d.cl, 3));
	CU_ASSERT_DOUBLE_EQUAL(r->spawn_overhead, 1, 1e-9);
	/* the divide-and-conquer model on 2 cores: own 10 a call, no callees;
	 * spawn + barrier 0.7 CSC, delay 0.3. T(c) = the top levels' own code
	 * (10 a call, ceil(2^L / 2) calls a core) + the rest / 2 + an uneven
	 * end (a quarter leaf) + (2^c - 1) * 0.7 / 2 + 0.3 c: c = 1: 10 + 70
	 * + 17.5 + 0.65 = 98.15; c = 2: 20 + 60 + 7.5 + 1.65 = 89.15; c = 3:
	 * 40 + 40 + 2.5 + 3.35 = 85.85, the least */
	CU_ASSERT_DOUBLE_EQUAL(r->own_per_call, 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->combine_cost, 0, 1e-9);
	CU_ASSERT_EQUAL(r->cores, 2);
	CU_ASSERT_EQUAL(r->cutoff_depth, 3);
	CU_ASSERT_DOUBLE_EQUAL(r->par_cost, 85.85, 1e-9);
	CU_ASSERT_STRING_EQUAL(r->why, "spawn the recursive calls at levels 1 to 3 (7 tasks): on 2 "
			       "cores an entry takes least there, 8585 ns against 15000 ns "
			       "sequentially (x1.747): top levels 4000, the rest shared 4000, "
			       "uneven end 250, task overheads 335 ns; " NO_SPLIT);

	r = rec_of(&fb, "walk");
	CU_ASSERT_EQUAL(r->type, DPA_REC_SIMPLE);
	CU_ASSERT_FALSE(r->from_progrep);
	CU_ASSERT_EQUAL(r->branching, 1);
	CU_ASSERT_EQUAL(r->rec_sites, 1);
	CU_ASSERT_EQUAL(r->entry_calls, 1);
	CU_ASSERT_EQUAL(r->internal_calls, 99);
	CU_ASSERT_DOUBLE_EQUAL(r->depth, 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->cost_per_entry, 500, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->per_call, 5, 1e-9);
	/* (100 - L) * 5, the first 64 levels */
	CU_ASSERT_EQUAL_FATAL(r->n_levels, 64);
	CU_ASSERT_DOUBLE_EQUAL(r->level_cost[0], 500, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->level_cost[1], 495, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->level_cost[63], 185, 1e-9);
	/* a list step's own work, 5 CSCs = 500 ns, is under 10 x 100 ns */
	CU_ASSERT_EQUAL(r->cutoff_depth, 0);
	CU_ASSERT_STRING_EQUAL(r->why, "never worth spawning: in single recursion a spawned call "
			       "runs beside its caller's own work only, 500 ns a call, less than "
			       "10 x the task overheads (100 ns)");

	r = rec_of(&fb, "a");
	CU_ASSERT_EQUAL(r->type, DPA_REC_MUTUAL);
	CU_ASSERT_FALSE(r->from_progrep);
	CU_ASSERT_EQUAL(r->members, 2);
	CU_ASSERT_EQUAL(r->entry_calls, 1);
	CU_ASSERT_EQUAL(r->internal_calls, 9);
	CU_ASSERT_EQUAL(r->branching, 0);
	CU_ASSERT_DOUBLE_EQUAL(r->depth, 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->cost_per_entry, 30, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->per_call, 3, 1e-9);
	CU_ASSERT_EQUAL(r->n_levels, 0);
	CU_ASSERT_PTR_NULL(r->level_cost);
	CU_ASSERT_EQUAL(r->cutoff_depth, 0);
	CU_ASSERT_STRING_EQUAL(r->why, "mutual recursion: no level model, so no cut-off");
	dpf_feedback_release(&fb);

	/* 20 ns/CSC: spawn + barrier 3.5, delay 1.5: c = 1: 97.5 + 1.75 +
	 * 1.5 = 100.75; c = 2: 87.5 + 5.25 + 3 = 95.75, the least; c = 3:
	 * 82.5 + 12.25 + 4.5 = 99.25 */
	run(&fb, &t, NULL, 20);
	r = rec_of(&fb, "fib");
	CU_ASSERT_DOUBLE_EQUAL(r->spawn_overhead, 5, 1e-9);
	CU_ASSERT_EQUAL(r->cutoff_depth, 2);
	CU_ASSERT_DOUBLE_EQUAL(r->par_cost, 95.75, 1e-9);
	CU_ASSERT_STRING_EQUAL(r->why, "spawn the recursive calls at levels 1 to 2 (3 tasks): on 2 "
			       "cores an entry takes least there, 1915 ns against 3000 ns "
			       "sequentially (x1.567): top levels 400, the rest shared 1200, "
			       "uneven end 150, task overheads 165 ns; " NO_SPLIT);
	dpf_feedback_release(&fb);

	/* 8 ns/CSC: spawn + barrier 8.75, delay 3.75: c = 1: 97.5 + 4.375 +
	 * 3.75 = 105.625, the least; c = 2: 87.5 + 13.125 + 7.5 = 108.125 */
	run(&fb, &t, NULL, 8);
	r = rec_of(&fb, "fib");
	CU_ASSERT_EQUAL(r->cutoff_depth, 1);
	CU_ASSERT_DOUBLE_EQUAL(r->par_cost, 105.625, 1e-9);
	CU_ASSERT_STRING_EQUAL(r->why, "spawn the recursive calls at level 1 only (1 task): on 2 "
			       "cores an entry takes least there, 845 ns against 1200 ns "
			       "sequentially (x1.420): top levels 80, the rest shared 560, "
			       "uneven end 140, task overheads 65 ns; " NO_SPLIT);
	dpf_feedback_release(&fb);

	/* 1.2 ns/CSC: spawn + barrier 58.33, delay 25: c = 1 costs 97.5 +
	 * 29.17 + 25 = 151.67 CSCs (182 ns), more than the 150 sequential */
	run(&fb, &t, NULL, 1.2);
	r = rec_of(&fb, "fib");
	CU_ASSERT_EQUAL(r->cutoff_depth, 0);
	CU_ASSERT_DOUBLE_EQUAL(r->par_cost, 0, 1e-9);
	CU_ASSERT_STRING_EQUAL(r->why, "never worth spawning: on 2 cores an entry's least parallel "
			       "time (cut-off 1) is 182 ns, not less than its sequential 180 ns; " NO_SPLIT);
	dpf_feedback_release(&fb);

	/* one core: nothing in parallel */
	fb_init(&fb, 100);
	fb.opt.max_tasks = 1;
	{
		struct dpa_error err = { { 0 } };

		CU_ASSERT_EQUAL_FATAL(dpf_recursion_patterns(&fb, &t.d, NULL, &err), 0);
	}
	r = rec_of(&fb, "fib");
	CU_ASSERT_EQUAL(r->cutoff_depth, 0);
	CU_ASSERT_STRING_EQUAL(r->why, "one core (max_tasks 1): nothing runs in parallel");
	dpf_feedback_release(&fb);

	/* 200 ns/CSC: a spawn needs 5 CSCs, walk's 5 per step: every level
	 * of the list (1 to 99) */
	run(&fb, &t, NULL, 200);
	r = rec_of(&fb, "walk");
	CU_ASSERT_EQUAL(r->cutoff_depth, 99);
	CU_ASSERT_STRING_EQUAL(r->why, "spawn the recursive call at every level (1 to 99): it runs "
			       "beside its caller's own work, 1000 ns a call, at least 10 x the "
			       "task overheads (100 ns)");
	dpf_feedback_release(&fb);

	/* no time scale: levels, but no cut-off */
	run(&fb, &t, NULL, 0);
	r = rec_of(&fb, "fib");
	CU_ASSERT_EQUAL(r->n_levels, 4);
	CU_ASSERT_EQUAL(r->cutoff_depth, 0);
	CU_ASSERT_STRING_EQUAL(r->why, "no time scale (ns per unit unknown): no cut-off");
	dpf_feedback_release(&fb);
	dpt_deep_free(&t);
}

/* ================================================================
 * The progrep decides: same path, different arms, a loop, unplaced
 * ================================================================ */

static void test_progrep_types(void)
{
	struct dpt_deep t;
	struct dpf_feedback fb;
	struct dpa_progreps s;
	const struct dpf_recursion *r;

	BUILD(&t, names3, 11, NULL, pd_ps3, arcs3);

	/* both recursive calls in the else arm: one path, divide-and-conquer */
	load_pr(&s, &t.p, TU FN("[{'branch':{'kind':'if','line':31,'arms':[[{'call':2}],"
				"[{'call':0},{'call':1}]]}}]", "[]"), 3, 3, 2);
	run(&fb, &t, &s, 100);
	r = rec_of(&fb, "fib");
	check_fib_divide(r);
	CU_ASSERT_TRUE(r->from_progrep);
	CU_ASSERT_EQUAL(r->at.checksum, 0xf1b);
	CU_ASSERT_EQUAL(r->cutoff_depth, 3);
	/* the others have no progrep: from the counts */
	CU_ASSERT_FALSE(rec_of(&fb, "walk")->from_progrep);
	dpf_feedback_release(&fb);
	dpa_progreps_release(&s);

	/* one in each arm: one recursive call per activation, single
	 * recursion of depth 15 activations, 10 each */
	load_pr(&s, &t.p, TU FN("[{'branch':{'kind':'if','line':31,'arms':[[{'call':0}],"
				"[{'call':1}]]}},{'call':2}]", "[]"), 3, 3, 2);
	run(&fb, &t, &s, 100);
	r = rec_of(&fb, "fib");
	CU_ASSERT_EQUAL(r->type, DPA_REC_SIMPLE);
	CU_ASSERT_TRUE(r->from_progrep);
	CU_ASSERT_EQUAL(r->branching, 1);
	CU_ASSERT_EQUAL(r->rec_sites, 2);
	CU_ASSERT_DOUBLE_EQUAL(r->depth, 15, 1e-9);
	CU_ASSERT_EQUAL_FATAL(r->n_levels, 15);
	CU_ASSERT_DOUBLE_EQUAL(r->level_cost[0], 150, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->level_cost[1], 140, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->level_cost[14], 10, 1e-9);
	/* own work 10 CSCs >= 10 x 1: every level, 1 to 14 */
	CU_ASSERT_EQUAL(r->cutoff_depth, 14);
	dpf_feedback_release(&fb);
	/* at 50 ns/CSC a spawn needs 20 CSCs of overlap: never */
	run(&fb, &t, &s, 50);
	CU_ASSERT_EQUAL(rec_of(&fb, "fib")->cutoff_depth, 0);
	dpf_feedback_release(&fb);
	dpa_progreps_release(&s);

	/* a recursive call in a loop: other, no level model */
	load_pr(&s, &t.p, TU FN("[{'loop':{'line':31,'body':[{'call':0}]}},{'call':1}]", "[]"),
		3, 3, 2);
	run(&fb, &t, &s, 100);
	r = rec_of(&fb, "fib");
	CU_ASSERT_EQUAL(r->type, DPA_REC_OTHER);
	CU_ASSERT_TRUE(r->from_progrep);
	CU_ASSERT_EQUAL(r->branching, 0);
	CU_ASSERT_EQUAL(r->n_levels, 0);
	CU_ASSERT_EQUAL(r->cutoff_depth, 0);
	CU_ASSERT_DOUBLE_EQUAL(r->depth, 15, 1e-9);
	CU_ASSERT_STRING_EQUAL(r->why, "a recursive call in a loop (an unknown number of calls per "
			       "activation): no level model, so no cut-off");
	dpf_feedback_release(&fb);
	dpa_progreps_release(&s);

	/* site 1 not placed in the body: the counts decide (two sites) */
	load_pr(&s, &t.p, TU FN("[{'branch':{'kind':'if','line':31,'arms':[[{'call':0}],"
				"[{'call':2}]]}}]", "[1]"), 3, 3, 2);
	run(&fb, &t, &s, 100);
	r = rec_of(&fb, "fib");
	check_fib_divide(r);
	CU_ASSERT_FALSE(r->from_progrep);
	CU_ASSERT_EQUAL(r->at.checksum, 0xf1b);
	dpf_feedback_release(&fb);
	dpa_progreps_release(&s);
	dpt_deep_free(&t);
}

/* ================================================================
 * Three-way divide-and-conquer
 * ================================================================ */

/*
 * main calls tri (css 2, 10 CSCs), tri calls itself through css 3, 4, 5,
 * 4 calls of 10 CSCs each: 13 activations = 1 + 3 + 9, 3 levels of a
 * ternary tree, 10 per activation. Counts alone: three sites, other.
 */
static void test_three_way(void)
{
	static const char *const names[] = { NULL, "<root>", "main", "tri" };
	static const uint32_t pd_ps[] = { 0, 1, 2, 3 };
	static const struct dpt_arc arcs[] = {
		{ 1, 2, 1, 1, 1, 0, 0, 0, 0 },
		{ 2, 3, 2, 1, 10, 0, 0, 0, 0 },
		{ 3, 3, 3, 4, 40, 0, 0, 0, 0 },
		{ 3, 3, 4, 4, 40, 0, 0, 0, 0 },
		{ 3, 3, 5, 4, 40, 0, 0, 0, 0 },
	};
	struct dpt_deep t;
	struct dpf_feedback fb;
	struct dpa_progreps s;
	const struct dpf_recursion *r;

	BUILD(&t, names, 5, NULL, pd_ps, arcs);
	run(&fb, &t, NULL, 100);
	CU_ASSERT_EQUAL_FATAL(fb.n_rec, 1);
	r = &fb.rec[0];
	CU_ASSERT_EQUAL(r->type, DPA_REC_OTHER);
	CU_ASSERT_FALSE(r->from_progrep);
	CU_ASSERT_EQUAL(r->rec_sites, 3);
	CU_ASSERT_EQUAL(r->n_levels, 0);
	CU_ASSERT_STRING_EQUAL(r->why, "three or more recursive call sites: no level model, so "
			       "no cut-off");
	dpf_feedback_release(&fb);

	/* all three on one path: 3-way divide-and-conquer */
	load_pr(&s, &t.p, TU FN("[{'call':0},{'call':1},{'call':2}]", "[]"), 3, 3, 3);
	run(&fb, &t, &s, 100);
	r = &fb.rec[0];
	CU_ASSERT_STRING_EQUAL(r->at.fn, "tri");
	CU_ASSERT_EQUAL(r->type, DPA_REC_DIVIDE);
	CU_ASSERT_TRUE(r->from_progrep);
	CU_ASSERT_EQUAL(r->branching, 3);
	CU_ASSERT_DOUBLE_EQUAL(r->depth, 3, 1e-9);
	CU_ASSERT_EQUAL_FATAL(r->n_levels, 3);
	/* 10 * (3^(3-L) - 1) / 2 */
	CU_ASSERT_DOUBLE_EQUAL(r->level_cost[0], 130, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->level_cost[1], 40, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->level_cost[2], 10, 1e-9);
	CU_ASSERT_EQUAL(r->cutoff_depth, 2);
	dpf_feedback_release(&fb);
	dpa_progreps_release(&s);
	dpt_deep_free(&t);
}

/* A profile with no recursion has no patterns. */
static void test_none(void)
{
	static const char *const names[] = { NULL, "<root>", "main", "f" };
	static const uint32_t pd_ps[] = { 0, 1, 2, 3 };
	static const struct dpt_arc arcs[] = { { 1, 2, 1, 1, 1, 0, 0, 0, 0 }, { 2, 3, 2, 5, 50, 0, 0, 0, 0 } };
	struct dpt_deep t;
	struct dpf_feedback fb;

	BUILD(&t, names, 2, NULL, pd_ps, arcs);
	run(&fb, &t, NULL, 100);
	CU_ASSERT_EQUAL(fb.n_rec, 0);
	CU_ASSERT_PTR_NULL(fb.rec);
	dpf_feedback_release(&fb);
	dpt_deep_free(&t);
}

/*
 * A mergesort of 8: main (pd 2) calls ms (pd 3) once (css 2, 2 CSCs); ms
 * calls itself through css 3 and css 4 (7 calls each, 2 CSCs a call: 15
 * activations, 4 levels) and merge (pd 4, css 5) at its 7 inner
 * activations, 8 + 4 + 4 + 2 + 2 + 2 + 2 = 24 CSCs. On 2 cores at 100
 * ns/CSC (spawn + barrier 0.7, delay 0.3): own o = 2, combine M = 24, M/D =
 * 6 a level. c = 1: top (6 + 2) = 8, rest 46: 23 + 5.75 (a quarter leaf) +
 * 0.65 = 37.4; c = 2: top 8 + (3 + 2) = 13, rest 36: 18 + 2.25 + 1.65 =
 * 34.9, the least; c = 3: top 13 + (1.5 + 2) * 2 = 20, rest 22: 11 + 0.6875
 * + 3.35 = 35.0375, within 1% of the least (34.9 * 1.01 = 35.249) but its
 * leaves cost 54 / 8 = 6.75 CSCs, under 1000 task overheads (1 CSC): the
 * cut-off stays 2.
 */
static void test_combine(void)
{
	static const char *const names[] = { NULL, "<root>", "main", "ms", "merge" };
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 4 };
	static const struct dpt_arc arcs[] = {
		{ 1, 2, 1, 1, 1, 0, 0, 0, 0 },
		{ 2, 3, 2, 1, 2, 0, 0, 0, 0 },
		{ 3, 3, 3, 7, 14, 0, 0, 0, 0 },
		{ 3, 3, 4, 7, 14, 0, 0, 0, 0 },
		{ 3, 4, 5, 7, 24, 0, 0, 0, 0 },
	};
	struct dpt_deep t;
	struct dpf_feedback fb;
	const struct dpf_recursion *r;

	BUILD(&t, names, 5, NULL, pd_ps, arcs);
	run(&fb, &t, NULL, 100);
	r = rec_of(&fb, "ms");
	CU_ASSERT_EQUAL(r->type, DPA_REC_DIVIDE);
	CU_ASSERT_DOUBLE_EQUAL(r->cost_per_entry, 54, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->depth, 4, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->own_per_call, 2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->combine_cost, 24, 1e-9);
	CU_ASSERT_EQUAL(r->cutoff_depth, 2);
	CU_ASSERT_DOUBLE_EQUAL(r->par_cost, 34.9, 1e-9);
	CU_ASSERT_STRING_EQUAL(r->why, "spawn the recursive calls at levels 1 to 2 (3 tasks): on 2 "
			       "cores an entry takes least there, 3490 ns against 5400 ns "
			       "sequentially (x1.547): top levels 1300, the rest shared 1800, "
			       "uneven end 225, task overheads 165 ns; " NO_SPLIT);
	dpf_feedback_release(&fb);
	dpt_deep_free(&t);
}

DPA_TEST_SUITE(recursion_patterns, DPA_TEST(test_three_cliques), DPA_TEST(test_progrep_types),
	       DPA_TEST(test_three_way), DPA_TEST(test_none), DPA_TEST(test_combine));
