/*
 * test_var_use.c — feedback/var_use.c through dpf_feedback_analyse(): when
 * a costly call consumes its arguments and produces its results, on a
 * hand-made profile and program representation: a read in one arm of a
 * branch weighted by how often that arm ran, an argument passed on to a
 * callee (its own timing), and the pessimistic answers where a callee's
 * uses are not known. Part of deepprof's tests. MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "build_profile.h"
#include "progrep_text.h"
#include "feedback.h"

#define EPS 1e-6

/* ================================================================
 * The program
 * ================================================================ */

/*
 * main calls h(1, &w1) and h(2, &w2) (css 2, 3), 5 times each: h runs 10
 * times. h(x, y): A(y) (css 4: 10000 over its 10 calls, 1000 per
 * activation of h); if (...) { B(); read x } (css 5: B ran 4 times, 8000:
 * 2000 when it runs, so that arm ran 4 times in 10); a loop (h's own 22000:
 * 2200 per activation); read x. h costs 4000 a call.
 * x is first read after A (1000), then with probability 0.4 after B (2000
 * more), else after the loop (2200): 0.4 * 3000 + 0.6 * 3200 = 3120, 0.78.
 * y is passed to A, which never reads *q but stores it at its end: y is
 * consumed and produced when A ends, at 1000 (0.25).
 */
static const char *const names[] = { "<root>", "main", "h", "A", "B" };
static const uint32_t pd_ps[] = { 0, 1, 2, 3, 3, 4, 4, 5, 5 };
static const struct dpt_arc arcs[] = {
	{ 1, 2, 1, .calls = 1, .cscs = 10 },
	{ 2, 3, 2, .calls = 5, .cscs = 11000 },
	{ 2, 4, 3, .calls = 5, .cscs = 11000 },
	{ 3, 5, 4, .calls = 5, .cscs = 5000 },
	{ 4, 6, 4, .calls = 5, .cscs = 5000 },
	{ 3, 7, 5, .calls = 2, .cscs = 4000 },
	{ 4, 8, 5, .calls = 2, .cscs = 4000 },
};
static const uint32_t ps_fn[] = { 0, 0, 1, 2, 3, 4 };
static const uint32_t css_site[] = { 0, 0, 1, 2, 3, 4 };
#define MAIN_H TU(4, 4) \
	FN(0, "main", 0, 2, "", "[{'call':0},{'call':1}]", \
	   CALL(0, "h", "memory", "{'from':[{'const':true}]},{'from':[{'addr_of':{'local':'w1'}}]," \
		"'points_to':[{'local':'w1'}]}", "null") "," \
	   CALL(1, "h", "memory", "{'from':[{'const':true}]},{'from':[{'addr_of':{'local':'w2'}}]," \
		"'points_to':[{'local':'w2'}]}", "null")) \
	FN(1, "h", 2, 2, INT("x") "," PTR("y"), "[{'call':2},{'branch':{'kind':'if','line':4," \
	   "'arms':[[{'call':3},{'use':'x'}],[]]}}," LOOP ",{'use':'x'}]", \
	   CALL(2, "A", "memory", "{'from':[{'param':'y'}],'points_to':[{'via_param':'y'}]}", "null") "," \
	   CALL(3, "B", "const", "", "null")) \
	FN(3, "B", 4, 0, "", "[]", "")

/* Run the analysis on program text pr and check h's timings of x. */
static void run(struct dpt_fx *x, struct dpf_feedback *fb, const char *pr)
{
	struct dpf_options o = dpt_fb_options();

	o.call_threshold = 1000;	/* low enough for this file's small profiles */
	o.proc_threshold = 1000;

	dpt_fx_setup(x, names, pd_ps, DPT_NELEM(pd_ps) - 1, arcs, DPT_NELEM(arcs), pr, ps_fn, css_site);
	dpt_fb_analyse(fb, x, &o);
	CU_ASSERT_EQUAL_FATAL(fb->n_cand, 1);
	CU_ASSERT_STRING_EQUAL(fb->cand[0].proc.fn, "main");
	CU_ASSERT_EQUAL_FATAL(fb->n_var_use, 6);
	for (uint32_t i = 0; i < 6; i += 3) {
		const struct dpf_var_use *v = &fb->var_use[i];

		CU_ASSERT_EQUAL(v->at.line, 102 + i / 3);
		CU_ASSERT_STRING_EQUAL(v->callee, "h");
		CU_ASSERT_DOUBLE_EQUAL(v->call_cost, 4000, EPS);
		CU_ASSERT_EQUAL(v->arg, 0);
		CU_ASSERT_STRING_EQUAL(v->var, "x");
		CU_ASSERT_EQUAL(v->use, DPF_CONSUMED);
		CU_ASSERT_DOUBLE_EQUAL(v->fraction, 0.78, EPS);
		CU_ASSERT_DOUBLE_EQUAL(v->time, 3120, EPS);
		CU_ASSERT_TRUE(v->known);
		CU_ASSERT_EQUAL(v[1].arg, 1);
		CU_ASSERT_STRING_EQUAL(v[1].var, "y");
		CU_ASSERT_EQUAL(v[1].use, DPF_CONSUMED);
		CU_ASSERT_EQUAL(v[2].arg, 1);
		CU_ASSERT_EQUAL(v[2].use, DPF_PRODUCED);
	}
}

/* A known: y consumed and produced at 1000. */
static void test_branch_and_callee(void)
{
	static const char pr[] = MAIN_H
		FN(2, "A", 4, 0, PTR("q"), "[" LOOP ",{'store':'q'}]", "");
	struct dpt_fx x;
	struct dpf_feedback fb;

	run(&x, &fb, pr);
	for (uint32_t i = 0; i < fb.n_var_use; i += 3) {
		const struct dpf_var_use *v = &fb.var_use[i];

		CU_ASSERT_DOUBLE_EQUAL(v[1].fraction, 0.25, EPS);
		CU_ASSERT_DOUBLE_EQUAL(v[1].time, 1000, EPS);
		CU_ASSERT_TRUE(v[1].known);
		CU_ASSERT_DOUBLE_EQUAL(v[2].fraction, 0.25, EPS);
		CU_ASSERT_DOUBLE_EQUAL(v[2].time, 1000, EPS);
		CU_ASSERT_TRUE(v[2].known);
	}
	dpf_feedback_release(&fb);
	dpt_fx_teardown(&x);
}

/* A's record has no use or store items (an older plugin): y is assumed
 * consumed when A starts (0) and produced when A ends (1000), not known. */
static void test_callee_without_items(void)
{
	static const char pr[] = MAIN_H
		FN1(2, "A", 4, 0, PTR("q"), "[" LOOP "]", "");
	struct dpt_fx x;
	struct dpf_feedback fb;

	run(&x, &fb, pr);
	for (uint32_t i = 0; i < fb.n_var_use; i += 3) {
		const struct dpf_var_use *v = &fb.var_use[i];

		CU_ASSERT_DOUBLE_EQUAL(v[1].fraction, 0, EPS);
		CU_ASSERT_FALSE(v[1].known);
		CU_ASSERT_STRING_EQUAL(v[1].why, "passed to a callee whose use is not known: assumed "
				       "consumed when that call starts");
		CU_ASSERT_DOUBLE_EQUAL(v[2].fraction, 0.25, EPS);
		CU_ASSERT_FALSE(v[2].known);
	}
	dpf_feedback_release(&fb);
	dpt_fx_teardown(&x);
}

/* No record for A at all: the same pessimistic times. */
static void test_callee_without_record(void)
{
	static const char pr[] = MAIN_H;
	struct dpt_fx x;
	struct dpf_feedback fb;

	run(&x, &fb, pr);
	CU_ASSERT_DOUBLE_EQUAL(fb.var_use[1].fraction, 0, EPS);
	CU_ASSERT_FALSE(fb.var_use[1].known);
	CU_ASSERT_DOUBLE_EQUAL(fb.var_use[2].time, 1000, EPS);
	CU_ASSERT_FALSE(fb.var_use[2].known);
	dpf_feedback_release(&fb);
	dpt_fx_teardown(&x);
}

/* h's own record without items: every argument pessimistic, x included. */
static void test_no_items(void)
{
	static const char pr[] = TU(4, 4)
		FN(0, "main", 0, 2, "", "[{'call':0},{'call':1}]",
		   CALL(0, "h", "memory", "{'from':[{'const':true}]},{'from':[{'const':true}]}", "null") ","
		   CALL(1, "h", "memory", "{'from':[{'const':true}]},{'from':[{'const':true}]}", "null"))
		FN1(1, "h", 2, 2, INT("x") "," INT("z"), "[{'call':2},{'call':3}," LOOP "]",
		    CALL(2, "A", "const", "", "null") "," CALL(3, "B", "const", "", "null"));
	struct dpt_fx x;
	struct dpf_feedback fb;
	struct dpf_options o = dpt_fb_options();

	o.call_threshold = 1000;	/* low enough for this file's small profiles */
	o.proc_threshold = 1000;

	dpt_fx_setup(&x, names, pd_ps, DPT_NELEM(pd_ps) - 1, arcs, DPT_NELEM(arcs), pr, ps_fn, css_site);
	dpt_fb_analyse(&fb, &x, &o);
	CU_ASSERT_EQUAL_FATAL(fb.n_var_use, 4);
	for (uint32_t i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(fb.var_use[i].use, DPF_CONSUMED);
		CU_ASSERT_DOUBLE_EQUAL(fb.var_use[i].time, 0, EPS);
		CU_ASSERT_FALSE(fb.var_use[i].known);
		CU_ASSERT_PTR_NOT_NULL(strstr(fb.var_use[i].why, "records no uses or stores"));
	}
	CU_ASSERT_STRING_EQUAL(fb.var_use[1].var, "z");
	dpf_feedback_release(&fb);
	dpt_fx_teardown(&x);
}

/* The same h from a plugin that records uses (version 2), reading neither
 * parameter: not a missing fact but a known one, so no pessimistic guess. */
static void test_never_read(void)
{
	static const char pr[] = TU(4, 4)
		FN(0, "main", 0, 2, "", "[{'call':0},{'call':1}]",
		   CALL(0, "h", "memory", "{'from':[{'const':true}]},{'from':[{'const':true}]}", "null") ","
		   CALL(1, "h", "memory", "{'from':[{'const':true}]},{'from':[{'const':true}]}", "null"))
		FN(1, "h", 2, 2, INT("x") "," INT("z"), "[{'call':2},{'call':3}," LOOP "]",
		   CALL(2, "A", "const", "", "null") "," CALL(3, "B", "const", "", "null"));
	struct dpt_fx x;
	struct dpf_feedback fb;
	struct dpf_options o = dpt_fb_options();

	o.call_threshold = 1000;	/* low enough for this file's small profiles */
	o.proc_threshold = 1000;

	dpt_fx_setup(&x, names, pd_ps, DPT_NELEM(pd_ps) - 1, arcs, DPT_NELEM(arcs), pr, ps_fn, css_site);
	dpt_fb_analyse(&fb, &x, &o);
	CU_ASSERT_EQUAL_FATAL(fb.n_var_use, 4);
	for (uint32_t i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(fb.var_use[i].use, DPF_CONSUMED);
		CU_ASSERT_DOUBLE_EQUAL(fb.var_use[i].time, 4000, EPS);  /* h's whole cost */
		CU_ASSERT_DOUBLE_EQUAL(fb.var_use[i].fraction, 1, EPS);
		CU_ASSERT_TRUE(fb.var_use[i].known);
		CU_ASSERT_STRING_EQUAL(fb.var_use[i].why, "never read by the callee");
	}
	dpf_feedback_release(&fb);
	dpt_fx_teardown(&x);
}

DPA_TEST_SUITE(var_use, DPA_TEST(test_branch_and_callee), DPA_TEST(test_callee_without_items),
	       DPA_TEST(test_callee_without_record), DPA_TEST(test_no_items),
	       DPA_TEST(test_never_read));
