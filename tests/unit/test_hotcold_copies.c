/*
 * test_hotcold_copies.c — feedback/hotcold.c: a never entry that a compiler
 * would take for code that ran is left out. The use build finds an entry by
 * function name, file base name and (a site) line and column, not by
 * translation unit, so the copies of a static inline function of a header
 * share one key: the "never" of a copy no run reached must not reach the
 * copies that ran (bench --pgo found gawk's DEREF predicting its call of
 * r_unref not taken in eval.c's interpreter, from builtin.c's copy).
 * Part of deepprof's tests. MIT licence.
 */
#include <string.h>

#include "unit.h"
#include "build_profile.h"
#include "hotcold.h"

/* Check entry h: kind, temp (never), function and line. */
static void check_never(const struct dpf_hot *h, int kind, const char *fn, uint32_t line)
{
	CU_ASSERT_EQUAL(h->kind, kind);
	CU_ASSERT_EQUAL(h->temp, DPF_NEVER);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h->at.fn);
	CU_ASSERT_STRING_EQUAL(h->at.fn, fn);
	CU_ASSERT_EQUAL(h->at.line, line);
	CU_ASSERT_EQUAL(h->calls, 0);
}

/* Nothing hot, nothing rare: only the never entries are listed. */
static void analyse(struct dpf_feedback *fb, struct dpt_deep *t)
{
	struct dpa_error err = { { 0 } };

	memset(fb, 0, sizeof(*fb));
	dpf_options_default(&fb->opt);
	fb->basis = DPF_CSCS;
	fb->ns_per_unit = 1.0;
	fb->opt.hot_threshold = 1e12;
	fb->opt.rare_calls = 0;
	CU_ASSERT_EQUAL_FATAL(dpf_hotcold(fb, &t->d, NULL, &err), 0);
}

/*
 * ps 3 and ps 4 are two copies of "inl" (a static inline function of one
 * header, in two units); main calls copy 3 ten times (css 2), which calls
 * leaf ten times (css 3, t.c:103:3). Copy 4 never runs; its call of leaf
 * (css 4) has css 3's line and column. Copy 3's second call (css 5, line
 * 105) and main's css 6 (line 106) never run; nor does "lone" (ps 6), the
 * only function of its name.
 *   without the rule: never = inl (ps 4), lone, css 4, css 5, css 6
 *   with it: ps 4 and css 4 are left out (their keys ran); the rest stay
 */
static void test_copies_of_inline(void)
{
	static const char *const names[] = { NULL, "<root>", "main", "inl", "inl", "leaf", "lone" };
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 5 };
	static const uint32_t css_caller[] = { 0, 1, 2, 3, 4, 3, 2 };
	static const struct dpt_arc arcs[] = {
		{ 1, 2, 1, 1, 1, 0, 0, 0, 0 },
		{ 2, 3, 2, 10, 10, 0, 0, 0, 0 },
		{ 3, 4, 3, 10, 10, 0, 0, 0, 0 },
	};
	struct dpt_deep t;
	struct dpf_feedback fb;

	dpt_deep_build(&t, DPT_NELEM(names) - 1, names, 6, css_caller, DPT_NELEM(pd_ps) - 1, pd_ps,
		       arcs, DPT_NELEM(arcs));
	/* copy 4: the header's line, a path with the same base name; its
	 * site at css 3's line (column 3 for both) */
	CU_ASSERT_FATAL(dpa_src_set(&t.p, DPA_PS_LINE, 4, 30) == 0);
	CU_ASSERT_FATAL(dpa_src_set(&t.p, DPA_PS_FILE, 4, dpa_str_id(&t.p, "/src/t.c")) == 0);
	CU_ASSERT_FATAL(dpa_src_set(&t.p, DPA_CSS_LINE, 4, 103) == 0);
	analyse(&fb, &t);
	CU_ASSERT_EQUAL_FATAL(fb.n_hot, 3);
	check_never(&fb.hot[0], DPF_PROC, "lone", 60);
	check_never(&fb.hot[1], DPF_SITE, "inl", 105);
	check_never(&fb.hot[2], DPF_SITE, "main", 106);
	dpf_feedback_release(&fb);

	/* copy 4's call one column off: a place of its own, listed */
	CU_ASSERT_FATAL(dpa_src_set(&t.p, DPA_CSS_COL, 4, 4) == 0);
	analyse(&fb, &t);
	CU_ASSERT_EQUAL_FATAL(fb.n_hot, 4);
	check_never(&fb.hot[0], DPF_PROC, "lone", 60);
	check_never(&fb.hot[1], DPF_SITE, "inl", 103);
	CU_ASSERT_EQUAL(fb.hot[1].at.col, 4);
	dpf_feedback_release(&fb);

	/* in another file, ps 4 is another function: listed, and its site
	 * (matched in that file) with it */
	CU_ASSERT_FATAL(dpa_src_set(&t.p, DPA_PS_FILE, 4, dpa_str_id(&t.p, "u.c")) == 0);
	CU_ASSERT_FATAL(dpa_src_set(&t.p, DPA_CSS_FILE, 4, dpa_str_id(&t.p, "u.c")) == 0);
	CU_ASSERT_FATAL(dpa_src_set(&t.p, DPA_CSS_COL, 4, 3) == 0);
	analyse(&fb, &t);
	CU_ASSERT_EQUAL_FATAL(fb.n_hot, 5);
	check_never(&fb.hot[0], DPF_PROC, "inl", 30);
	CU_ASSERT_STRING_EQUAL(fb.hot[0].at.file, "u.c");
	check_never(&fb.hot[1], DPF_PROC, "lone", 60);
	check_never(&fb.hot[2], DPF_SITE, "inl", 103);
	CU_ASSERT_STRING_EQUAL(fb.hot[2].at.file, "u.c");
	dpf_feedback_release(&fb);
	dpt_deep_free(&t);
}

DPA_TEST_SUITE(hotcold_copies, DPA_TEST(test_copies_of_inline));
