/*
 * test_autopar.c — feedback/autopar.c through dpf_feedback_analyse():
 * parallelism candidates on hand-made profiles and program representations
 * whose answers are computed by hand (independent pair, overlapping and
 * non-overlapping dependent pairs, a write conflict, a cheap pair, no
 * progrep, per-context). Part of deepprof's tests. MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "build_profile.h"
#include "progrep_text.h"
#include "feedback.h"

#define EPS 1e-6

/* ================================================================
 * Two independent calls
 * ================================================================ */

/*
 * main calls f (declared const) twice, a = f(1); b = f(2); then g(a + b).
 * f costs 100000 and 60000, g 5, main's own 10: the program 160015.
 * The region {f, f, g}: two costly calls, g after them. Best partition
 * {f}{f}: task 0 starts after one spawn (100), ends 100100; task 1 starts
 * at 1000, ends 61000; + barrier 50 + g 5 = 100155. Sequential 160005.
 * Without overheads 100005: the overheads 150. Program: 160015 /
 * (160015 - (160005 - 100155)) = 160015 / 100165.
 * f reads x between its two loops, each half of f's own 160000 / 2 calls:
 * consumed at 0.5. Return values at the end.
 */
static const char *const names_a[] = { "<root>", "main", "f", "g" };
static const uint32_t pd_ps_a[] = { 0, 1, 2, 3, 3, 4 };
static const struct dpt_arc arcs_a[] = {
	{ 1, 2, 1, .calls = 1, .cscs = 10 },
	{ 2, 3, 2, .calls = 1, .cscs = 100000 },
	{ 2, 4, 3, .calls = 1, .cscs = 60000 },
	{ 2, 5, 4, .calls = 1, .cscs = 5 },
};
static const uint32_t ps_fn_a[] = { 0, 0, 1, 2, 3 };
static const uint32_t css_site_a[] = { 0, 0, 1, 2, 3 };
#define PR_A TU(3, 3) \
	FN(0, "main", 0, 3, "", "[{'call':0},{'call':1},{'call':2}]", \
	   CALL(0, "f", "const", "{'from':[{'const':true}]}", "{'local':'a'}") "," \
	   CALL(1, "f", "const", "{'from':[{'const':true}]}", "{'local':'b'}") "," \
	   CALL(2, "g", "memory", "{'from':[{'local':'a'},{'call':0},{'local':'b'},{'call':1}]}", \
		"null")) \
	FN(1, "f", 3, 0, INT("x"), "[" LOOP ",{'use':'x'}," LOOP "]", "") \
	FN(2, "g", 3, 0, INT("s"), "[{'use':'s'}]", "")

static void check_pair(const struct dpf_feedback *fb, bool with_pr)
{
	const struct dpf_candidate *c;

	CU_ASSERT_EQUAL(fb->program_cost, 160015);
	CU_ASSERT_EQUAL_FATAL(fb->n_cand, 1);
	c = &fb->cand[0];
	CU_ASSERT_EQUAL(c->id, 1);
	CU_ASSERT_STRING_EQUAL(c->proc.fn, "main");
	CU_ASSERT_PTR_NULL(c->context);
	CU_ASSERT_EQUAL(c->executions, 1);
	CU_ASSERT_EQUAL_FATAL(c->n_calls, 2);
	CU_ASSERT_STRING_EQUAL(c->calls[0].callee, "f");
	CU_ASSERT_STRING_EQUAL(c->calls[1].callee, "f");
	CU_ASSERT_EQUAL(c->calls[0].at.line, 102);
	CU_ASSERT_EQUAL(c->calls[1].at.line, 103);
	CU_ASSERT_DOUBLE_EQUAL(c->calls[0].cost, 100000, EPS);
	CU_ASSERT_DOUBLE_EQUAL(c->calls[1].cost, 60000, EPS);
	CU_ASSERT_EQUAL(c->calls[0].task, 0);
	CU_ASSERT_EQUAL(c->calls[1].task, 1);
	CU_ASSERT_EQUAL(c->n_tasks, 2);
	CU_ASSERT_EQUAL(c->n_deps, 0);
	CU_ASSERT_DOUBLE_EQUAL(c->seq_time, 160005, EPS);
	CU_ASSERT_DOUBLE_EQUAL(c->par_time, 100155, EPS);
	CU_ASSERT_DOUBLE_EQUAL(c->overhead, 150, EPS);
	CU_ASSERT_DOUBLE_EQUAL(c->speedup, 160005.0 / 100155, EPS);
	CU_ASSERT_DOUBLE_EQUAL(c->program_speedup, 160015.0 / 100165, EPS);
	CU_ASSERT_EQUAL(c->verdict, DPF_ACCEPTED);
	CU_ASSERT_EQUAL(c->partitions_tried, 1);
	CU_ASSERT_TRUE(c->search_complete);
	CU_ASSERT_EQUAL(c->safety, with_pr ? DPF_SAFE : DPF_UNKNOWN_MEMORY);
	CU_ASSERT_EQUAL(c->calls[0].at.has_site, with_pr);
	if (with_pr)
		CU_ASSERT_EQUAL(c->calls[1].at.site, 1);
}

static void test_independent_pair(void)
{
	struct dpt_fx x;
	struct dpf_feedback fb;
	struct dpf_options o = dpt_fb_options();
	const struct dpf_var_use *v;

	dpt_fx_setup(&x, names_a, pd_ps_a, DPT_NELEM(pd_ps_a) - 1, arcs_a, DPT_NELEM(arcs_a), PR_A,
	      ps_fn_a, css_site_a);
	dpt_fb_analyse(&fb, &x, &o);
	check_pair(&fb, true);
	CU_ASSERT_EQUAL_FATAL(fb.n_var_use, 4);
	v = fb.var_use;
	CU_ASSERT_EQUAL(v[0].arg, -1);
	CU_ASSERT_STRING_EQUAL(v[0].var, "return");
	CU_ASSERT_EQUAL(v[0].use, DPF_PRODUCED);
	CU_ASSERT_DOUBLE_EQUAL(v[0].time, 100000, EPS);
	CU_ASSERT_EQUAL(v[1].arg, 0);
	CU_ASSERT_STRING_EQUAL(v[1].var, "x");
	CU_ASSERT_EQUAL(v[1].use, DPF_CONSUMED);
	CU_ASSERT_DOUBLE_EQUAL(v[1].fraction, 0.5, EPS);
	CU_ASSERT_DOUBLE_EQUAL(v[1].time, 50000, EPS);
	CU_ASSERT_TRUE(v[1].known);
	CU_ASSERT_EQUAL(v[1].at.line, 102);
	CU_ASSERT_STRING_EQUAL(v[1].callee, "f");
	CU_ASSERT_DOUBLE_EQUAL(v[2].time, 60000, EPS);
	CU_ASSERT_DOUBLE_EQUAL(v[3].time, 30000, EPS);
	CU_ASSERT_DOUBLE_EQUAL(v[3].call_cost, 60000, EPS);
	dpf_feedback_release(&fb);

	/* a budget of 0 partitions: nothing tried, no split */
	o.search_budget = 0;
	dpt_fb_analyse(&fb, &x, &o);
	CU_ASSERT_EQUAL_FATAL(fb.n_cand, 1);
	CU_ASSERT_EQUAL(fb.cand[0].partitions_tried, 0);
	CU_ASSERT_FALSE(fb.cand[0].search_complete);
	CU_ASSERT_EQUAL(fb.cand[0].verdict, DPF_NO_SPEEDUP);
	dpf_feedback_release(&fb);

	/* calls under the call threshold: too cheap */
	o = dpt_fb_options();
	o.call_threshold = 70000;
	dpt_fb_analyse(&fb, &x, &o);
	CU_ASSERT_EQUAL_FATAL(fb.n_cand, 1);
	CU_ASSERT_EQUAL(fb.cand[0].verdict, DPF_TOO_CHEAP);
	CU_ASSERT_EQUAL(fb.n_var_use, 0);
	dpf_feedback_release(&fb);
	dpt_fx_teardown(&x);
}

/* The same profile without a program representation: one region of main's
 * call sites in source order, the same estimate, memory unknown. */
static void test_no_progrep(void)
{
	struct dpt_fx x;
	struct dpf_feedback fb;
	struct dpf_options o = dpt_fb_options();

	dpt_fx_setup(&x, names_a, pd_ps_a, DPT_NELEM(pd_ps_a) - 1, arcs_a, DPT_NELEM(arcs_a), NULL,
	      NULL, NULL);
	dpt_fb_analyse(&fb, &x, &o);
	check_pair(&fb, false);
	CU_ASSERT_EQUAL(fb.n_var_use, 0);
	dpf_feedback_release(&fb);
	dpt_fx_teardown(&x);
}

/* ================================================================
 * Dependent pairs
 * ================================================================ */

/*
 * main: prod(&v); c = cons(v). prod (90000) stores *out after the first of
 * its three loops (each 30000): produced at 1/3 (30000). cons (80000)
 * reads v after three of its four loops (each 20000): consumed at 3/4
 * (60000). {prod}{cons}: task 0 starts at 100, produces at 30100, the value
 * there at 30110 (+ signal), ends 90110. Task 1 starts at 1000, consumes at
 * 61000: + wait 20, ends 81020. + barrier: 90160. Sequential 170000, the
 * program 170010.
 */
static const char *const names_b[] = { "<root>", "main", "prod", "cons" };
static const uint32_t pd_ps_b[] = { 0, 1, 2, 3, 4 };
static const struct dpt_arc arcs_b[] = {
	{ 1, 2, 1, .calls = 1, .cscs = 10 },
	{ 2, 3, 2, .calls = 1, .cscs = 90000 },
	{ 2, 4, 3, .calls = 1, .cscs = 80000 },
};
static const uint32_t ps_fn_b[] = { 0, 0, 1, 2, 3 };
static const uint32_t css_site_b[] = { 0, 0, 1, 2 };
#define MAIN_B TU(3, 2) \
	FN(0, "main", 0, 2, "", "[{'call':0},{'call':1}]", \
	   CALL(0, "prod", "memory", "{'from':[{'addr_of':{'local':'v'}}],'points_to':[{'local':'v'}]}", \
		"null") "," \
	   CALL(1, "cons", "memory", "{'from':[{'local':'v'}]}", "{'local':'c'}"))

static void test_overlap(void)
{
	static const char pr[] = MAIN_B
		FN(1, "prod", 2, 0, PTR("out"), "[" LOOP ",{'store':'out'}," LOOP "," LOOP "]", "")
		FN(2, "cons", 2, 0, INT("v"), "[" LOOP "," LOOP "," LOOP ",{'use':'v'}," LOOP "]", "");
	struct dpt_fx x;
	struct dpf_feedback fb;
	struct dpf_options o = dpt_fb_options();
	const struct dpf_candidate *c;
	const struct dpf_var_use *v;

	dpt_fx_setup(&x, names_b, pd_ps_b, DPT_NELEM(pd_ps_b) - 1, arcs_b, DPT_NELEM(arcs_b), pr,
	      ps_fn_b, css_site_b);
	dpt_fb_analyse(&fb, &x, &o);
	CU_ASSERT_EQUAL_FATAL(fb.n_cand, 1);
	c = &fb.cand[0];
	CU_ASSERT_EQUAL_FATAL(c->n_deps, 1);
	CU_ASSERT_EQUAL(c->deps[0].from, 0);
	CU_ASSERT_EQUAL(c->deps[0].to, 1);
	CU_ASSERT_STRING_EQUAL(c->deps[0].var, "v");
	CU_ASSERT_DOUBLE_EQUAL(c->deps[0].produced, 1.0 / 3, EPS);
	CU_ASSERT_DOUBLE_EQUAL(c->deps[0].consumed, 0.75, EPS);
	CU_ASSERT_TRUE(c->deps[0].known);
	CU_ASSERT_EQUAL(c->n_tasks, 2);
	CU_ASSERT_DOUBLE_EQUAL(c->seq_time, 170000, EPS);
	CU_ASSERT_DOUBLE_EQUAL(c->par_time, 90160, EPS);
	CU_ASSERT_DOUBLE_EQUAL(c->overhead, 160, EPS);
	CU_ASSERT_DOUBLE_EQUAL(c->program_speedup, 170010.0 / 90170, EPS);
	CU_ASSERT_EQUAL(c->verdict, DPF_ACCEPTED);
	CU_ASSERT_EQUAL(c->safety, DPF_UNKNOWN_MEMORY);
	/* prod: out never read (consumed at the end), produced at 1/3; cons:
	 * its return value, v consumed at 3/4 */
	CU_ASSERT_EQUAL_FATAL(fb.n_var_use, 4);
	v = fb.var_use;
	CU_ASSERT_STRING_EQUAL(v[0].var, "out");
	CU_ASSERT_EQUAL(v[0].use, DPF_CONSUMED);
	CU_ASSERT_DOUBLE_EQUAL(v[0].fraction, 1, EPS);
	CU_ASSERT_STRING_EQUAL(v[0].why, "never read by the callee");
	CU_ASSERT_EQUAL(v[1].use, DPF_PRODUCED);
	CU_ASSERT_DOUBLE_EQUAL(v[1].time, 30000, EPS);
	CU_ASSERT_TRUE(v[1].known);
	CU_ASSERT_STRING_EQUAL(v[2].var, "return");
	CU_ASSERT_DOUBLE_EQUAL(v[2].time, 80000, EPS);
	CU_ASSERT_STRING_EQUAL(v[3].var, "v");
	CU_ASSERT_DOUBLE_EQUAL(v[3].time, 60000, EPS);
	dpf_feedback_release(&fb);
	dpt_fx_teardown(&x);
}

/*
 * prod stores *out at its end, cons reads v at once: {prod}{cons} blocks
 * cons from 1000 to 90110 (+ wait 20 + wake-up 500): ends at 170630,
 * + barrier 170680 > 170000; without overheads exactly sequential.
 */
static void test_no_overlap(void)
{
	static const char pr[] = MAIN_B
		FN(1, "prod", 2, 0, PTR("out"), "[" LOOP ",{'store':'out'}]", "")
		FN(2, "cons", 2, 0, INT("v"), "[{'use':'v'}," LOOP "]", "");
	struct dpt_fx x;
	struct dpf_feedback fb;
	struct dpf_options o = dpt_fb_options();
	const struct dpf_candidate *c;

	dpt_fx_setup(&x, names_b, pd_ps_b, DPT_NELEM(pd_ps_b) - 1, arcs_b, DPT_NELEM(arcs_b), pr,
	      ps_fn_b, css_site_b);
	dpt_fb_analyse(&fb, &x, &o);
	CU_ASSERT_EQUAL_FATAL(fb.n_cand, 1);
	c = &fb.cand[0];
	CU_ASSERT_EQUAL_FATAL(c->n_deps, 1);
	CU_ASSERT_DOUBLE_EQUAL(c->deps[0].produced, 1, EPS);
	CU_ASSERT_DOUBLE_EQUAL(c->deps[0].consumed, 0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(c->par_time, 170680, EPS);
	CU_ASSERT_EQUAL(c->verdict, DPF_DEPENDENT);
	CU_ASSERT_TRUE(c->program_speedup < 1);
	dpf_feedback_release(&fb);
	dpt_fx_teardown(&x);
}

/* Both calls write the local v through a pointer: no future can order
 * them, no split is allowed: unsafe, one task. */
static void test_write_conflict(void)
{
	static const char pr[] = TU(3, 2)
		FN(0, "main", 0, 2, "", "[{'call':0},{'call':1}]",
		   CALL(0, "prod", "memory", "{'from':[{'addr_of':{'local':'v'}}],'points_to':[{'local':'v'}]}",
			"null") ","
		   CALL(1, "cons", "memory", "{'from':[{'addr_of':{'local':'v'}}],'points_to':[{'local':'v'}]}",
			"null"))
		FN(1, "prod", 2, 0, PTR("out"), "[" LOOP ",{'store':'out'}]", "")
		FN(2, "cons", 2, 0, PTR("q"), "[{'use':'q'}," LOOP ",{'store':'q'}]", "");
	struct dpt_fx x;
	struct dpf_feedback fb;
	struct dpf_options o = dpt_fb_options();
	const struct dpf_candidate *c;

	dpt_fx_setup(&x, names_b, pd_ps_b, DPT_NELEM(pd_ps_b) - 1, arcs_b, DPT_NELEM(arcs_b), pr,
	      ps_fn_b, css_site_b);
	dpt_fb_analyse(&fb, &x, &o);
	CU_ASSERT_EQUAL_FATAL(fb.n_cand, 1);
	c = &fb.cand[0];
	CU_ASSERT_EQUAL(c->verdict, DPF_UNSAFE);
	CU_ASSERT_EQUAL(c->n_tasks, 1);
	CU_ASSERT_EQUAL(c->partitions_tried, 0);
	CU_ASSERT_DOUBLE_EQUAL(c->par_time, 170000, EPS);
	CU_ASSERT_PTR_NOT_NULL(strstr(c->verdict_why, "touch v"));
	dpf_feedback_release(&fb);
	dpt_fx_teardown(&x);
}

/* ================================================================
 * Cheap calls, contexts
 * ================================================================ */

/*
 * A loop in main calls h twice per iteration, 100 iterations, 1000 CSCs a
 * call: each site is half the program (200010), so the region is listed,
 * too cheap. Per execution: 1000 + 1000; {h}{h}: 1100, 2000 -> 2050.
 */
static void test_too_cheap(void)
{
	static const char *const names[] = { "<root>", "main", "h" };
	static const uint32_t pd_ps[] = { 0, 1, 2, 3 };
	static const struct dpt_arc arcs[] = {
		{ 1, 2, 1, .calls = 1, .cscs = 10 },
		{ 2, 3, 2, .calls = 100, .cscs = 100000 },
		{ 2, 3, 3, .calls = 100, .cscs = 100000 },
	};
	static const uint32_t ps_fn[] = { 0, 0, 1, 2 };
	static const uint32_t css_site[] = { 0, 0, 1, 2 };
	static const char pr[] = TU(2, 2)
		FN(0, "main", 0, 2, "", "[{'loop':{'line':3,'body':[{'call':0},{'call':1}]}}]",
		   CALL(0, "h", "memory", "", "null") "," CALL(1, "h", "memory", "", "null"))
		FN(1, "h", 2, 0, "", "[]", "");
	struct dpt_fx x;
	struct dpf_feedback fb;
	struct dpf_options o = dpt_fb_options();
	const struct dpf_candidate *c;

	dpt_fx_setup(&x, names, pd_ps, DPT_NELEM(pd_ps) - 1, arcs, DPT_NELEM(arcs), pr, ps_fn, css_site);
	dpt_fb_analyse(&fb, &x, &o);
	CU_ASSERT_EQUAL_FATAL(fb.n_cand, 1);
	c = &fb.cand[0];
	CU_ASSERT_EQUAL(c->verdict, DPF_TOO_CHEAP);
	CU_ASSERT_STRING_EQUAL(c->verdict_why, "0 of its calls cost at least the call threshold "
			       "(20000 ns per call); two are needed");
	CU_ASSERT_EQUAL(c->executions, 100);
	CU_ASSERT_DOUBLE_EQUAL(c->calls[0].cost, 1000, EPS);
	CU_ASSERT_DOUBLE_EQUAL(c->seq_time, 2000, EPS);
	CU_ASSERT_DOUBLE_EQUAL(c->par_time, 2050, EPS);
	CU_ASSERT_EQUAL(fb.n_var_use, 0);
	dpf_feedback_release(&fb);

	/* listed only while each call is at least list_share of the program */
	o.list_share = 0.6;
	dpt_fb_analyse(&fb, &x, &o);
	CU_ASSERT_EQUAL(fb.n_cand, 0);
	dpf_feedback_release(&fb);
	dpt_fx_teardown(&x);
}

/*
 * main calls s twice (css 2, 3: pds 3, 4); s calls f twice (css 4, 5).
 * Context pd 3: f costs 30000 and 30000; pd 4: 100000 and 10000. Merged,
 * css 4 is 65000 a call and css 5 20000: both costly, a candidate in s
 * (executions 2) and one in main. Per context, pd 3's pair is a candidate
 * ("main > ", one execution); pd 4 has one costly call only.
 */
static void test_per_context(void)
{
	static const char *const names[] = { "<root>", "main", "s", "f" };
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 3, 4, 4, 4, 4 };
	static const struct dpt_arc arcs[] = {
		{ 1, 2, 1, .calls = 1, .cscs = 10 },
		{ 2, 3, 2, .calls = 1, .cscs = 1 },
		{ 2, 4, 3, .calls = 1, .cscs = 1 },
		{ 3, 5, 4, .calls = 1, .cscs = 30000 },
		{ 3, 6, 5, .calls = 1, .cscs = 30000 },
		{ 4, 7, 4, .calls = 1, .cscs = 100000 },
		{ 4, 8, 5, .calls = 1, .cscs = 10000 },
	};
	static const uint32_t ps_fn[] = { 0, 0, 1, 2, 3 };
	static const uint32_t css_site[] = { 0, 0, 1, 2, 3, 4 };
	static const char pr[] = TU(3, 5)
		FN(0, "main", 0, 2, "", "[{'call':0},{'call':1}]",
		   CALL(0, "s", "const", "", "null") "," CALL(1, "s", "const", "", "null"))
		FN(1, "s", 2, 2, "", "[{'call':2},{'call':3}]",
		   CALL(2, "f", "const", "", "null") "," CALL(3, "f", "const", "", "null"))
		FN(2, "f", 4, 0, "", "[]", "");
	struct dpt_fx x;
	struct dpf_feedback fb;
	struct dpf_options o = dpt_fb_options();
	uint32_t n_ctx = 0;

	dpt_fx_setup(&x, names, pd_ps, DPT_NELEM(pd_ps) - 1, arcs, DPT_NELEM(arcs), pr, ps_fn, css_site);
	dpt_fb_analyse(&fb, &x, &o);
	CU_ASSERT_EQUAL(fb.n_cand, 2);
	dpf_feedback_release(&fb);
	o.per_context = true;
	dpt_fb_analyse(&fb, &x, &o);
	CU_ASSERT_EQUAL_FATAL(fb.n_cand, 3);
	for (uint32_t i = 0; i < fb.n_cand; i++) {
		const struct dpf_candidate *c = &fb.cand[i];

		CU_ASSERT_EQUAL(c->id, i + 1);
		if (!c->context) {
			if (!strcmp(c->proc.fn, "s")) {
				CU_ASSERT_EQUAL(c->executions, 2);
				CU_ASSERT_DOUBLE_EQUAL(c->calls[0].cost, 65000, EPS);
				CU_ASSERT_DOUBLE_EQUAL(c->calls[1].cost, 20000, EPS);
			}
			continue;
		}
		n_ctx++;
		CU_ASSERT_STRING_EQUAL(c->context, "main > ");
		CU_ASSERT_STRING_EQUAL(c->proc.fn, "s");
		CU_ASSERT_EQUAL(c->executions, 1);
		CU_ASSERT_DOUBLE_EQUAL(c->calls[0].cost, 30000, EPS);
		CU_ASSERT_DOUBLE_EQUAL(c->calls[1].cost, 30000, EPS);
		CU_ASSERT_EQUAL(c->verdict, DPF_ACCEPTED);
		CU_ASSERT_EQUAL(c->safety, DPF_SAFE);
	}
	CU_ASSERT_EQUAL(n_ctx, 1);
	/* accepted first, by program speedup */
	for (uint32_t i = 1; i < fb.n_cand; i++)
		if (fb.cand[i - 1].verdict == fb.cand[i].verdict)
			CU_ASSERT(fb.cand[i - 1].program_speedup >= fb.cand[i].program_speedup);
	dpf_feedback_release(&fb);
	dpt_fx_teardown(&x);
}

/* A profile whose CSCs are all zero has nothing to base estimates on. */
static void test_zero_profile(void)
{
	static const char *const names[] = { "<root>", "main" };
	static const uint32_t pd_ps[] = { 0, 1, 2 };
	static const struct dpt_arc arcs[] = { { 1, 2, 1, .calls = 1, .cscs = 0 } };
	struct dpt_fx x;
	struct dpf_feedback fb;
	struct dpf_options o = dpt_fb_options();
	struct dpa_error err = { { 0 } };

	dpt_fx_setup(&x, names, pd_ps, DPT_NELEM(pd_ps) - 1, arcs, DPT_NELEM(arcs), NULL, NULL, NULL);
	CU_ASSERT_EQUAL(dpf_feedback_analyse(&fb, &x.d, NULL, &o, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "test.data: every CSC count is zero: nothing to base "
			       "estimates on");
	dpf_feedback_release(&fb);
	dpt_fx_teardown(&x);
}

DPA_TEST_SUITE(autopar, DPA_TEST(test_independent_pair), DPA_TEST(test_no_progrep),
	       DPA_TEST(test_overlap), DPA_TEST(test_no_overlap), DPA_TEST(test_write_conflict),
	       DPA_TEST(test_too_cheap), DPA_TEST(test_per_context), DPA_TEST(test_zero_profile));
