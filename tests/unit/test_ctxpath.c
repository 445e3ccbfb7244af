/*
 * test_ctxpath.c — analyses/ctxpath.c: a context's path of calls (which
 * names it by lines, resolves back to it, and by its last calls after
 * "~/"), and a procedure's contexts told apart by the shortest suffix of
 * their paths, on a hand-built profile whose paths are known.
 * Part of deepprof's tests. MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "build_profile.h"
#include "ctxpath.h"

/*
 * main -> small -> leaf        (pd 2 -> 3 -> 4; css 2, 3)
 * main -> wrap -> small -> leaf (pd 2 -> 5 -> 6 -> 7; css 4, 5, 3)
 * main -> big -> leaf          (pd 2 -> 8 -> 9; css 6, 7)
 * main -> fib -> fib           (pd 2 -> 10, 10 -> 10; css 8, 9): a clique
 * Places: css s at t.c line 100 + s, column 3.
 */
static const char *const names[] = { NULL, "<root>", "main", "small", "leaf", "wrap", "big",
				     "fib" };
static const uint32_t pd_ps[] = { 0, 1, 2, 3, 4, 5, 3, 4, 6, 4, 7 };
static const uint32_t css_caller[] = { 0, 1, 2, 3, 2, 5, 2, 6, 2, 7 };
static const struct dpt_arc arcs[] = {
	{ 1, 2, 1, 1, 1, 0, 0, 0, 0 },
	{ 2, 3, 2, 1, 1, 0, 0, 0, 0 },
	{ 3, 4, 3, 1, 1, 0, 0, 0, 0 },
	{ 2, 5, 4, 1, 1, 0, 0, 0, 0 },
	{ 5, 6, 5, 1, 1, 0, 0, 0, 0 },
	{ 6, 7, 3, 1, 1, 0, 0, 0, 0 },
	{ 2, 8, 6, 2, 2, 0, 0, 0, 0 },
	{ 8, 9, 7, 2, 200, 0, 0, 0, 0 },
	{ 2, 10, 8, 1, 1, 0, 0, 0, 0 },
	{ 10, 10, 9, 9, 9, 0, 0, 0, 0 },
};

static void build(struct dpt_deep *t)
{
	dpt_deep_build(t, DPT_NELEM(names) - 1, names, DPT_NELEM(css_caller) - 1, css_caller,
		       DPT_NELEM(pd_ps) - 1, pd_ps, arcs, DPT_NELEM(arcs));
}

static void test_paths(void)
{
	struct dpt_deep t;
	struct dpa_error err = { { 0 } };
	char *s = NULL;

	build(&t);
	CU_ASSERT_EQUAL_FATAL(dpa_ctx_path(&t.d, 7, &s), 0);
	CU_ASSERT_STRING_EQUAL(s, "main@101:3/wrap@104:3/small@105:3/leaf@103:3");
	free(s);
	/* every context resolves back to itself; the root to the root */
	for (uint32_t pd = 1; pd <= t.p.n_pd; pd++) {
		CU_ASSERT_EQUAL_FATAL(dpa_ctx_path(&t.d, pd, &s), 0);
		CU_ASSERT_EQUAL(dpa_ctx_resolve(&t.d, s, &err), pd);
		free(s);
	}
	/* the recursive fib is named through its call from main */
	CU_ASSERT_EQUAL(dpa_ctx_parent(&t.d, 10), 9);
	/* a line alone matches any column; a step that is not there fails */
	CU_ASSERT_EQUAL(dpa_ctx_resolve(&t.d, "main@101/big@106", &err), 8);
	CU_ASSERT_EQUAL(dpa_ctx_resolve(&t.d, "main@101/big@107:3", &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "main makes no call to big at 107:3"));
	CU_ASSERT_EQUAL(dpa_ctx_resolve(&t.d, "main@101/nonsense", &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "is not NAME@LINE:COL"));
	CU_ASSERT_EQUAL(dpa_ctx_resolve(&t.d, "t2/main@101", &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no thread 2"));
	/* the last calls only: "~/" and the first context ending so */
	CU_ASSERT_EQUAL_FATAL(dpa_ctx_key(&t.d, 7, 2, &s), 0);
	CU_ASSERT_STRING_EQUAL(s, "~/small@105:3/leaf@103:3");
	CU_ASSERT_EQUAL(dpa_ctx_resolve(&t.d, s, &err), 7);
	free(s);
	CU_ASSERT_EQUAL(dpa_ctx_resolve(&t.d, "~/leaf@103:3", &err), 4);
	CU_ASSERT_EQUAL(dpa_ctx_resolve(&t.d, "~/big@106:3/leaf@103:3", &err), 0);
	dpt_deep_free(&t);
}

static void test_distinguish(void)
{
	struct dpt_deep t;
	const uint32_t leaf[] = { 4, 7, 9 }, one[] = { 4 };
	uint32_t depth[3];
	char *s;

	build(&t);
	CU_ASSERT_EQUAL_FATAL(dpa_ctx_distinguish(&t.d, leaf, 3, depth), 0);
	/* small -> leaf is shared by two: one more call tells them apart */
	CU_ASSERT_EQUAL(depth[0], 2);
	CU_ASSERT_EQUAL(depth[1], 2);
	CU_ASSERT_EQUAL(depth[2], 1);
	CU_ASSERT_EQUAL_FATAL(dpa_ctx_distinguish(&t.d, one, 1, depth), 0);
	CU_ASSERT_EQUAL(depth[0], 1);
	s = dpa_ctx_suffix(&t.d, 7, 2);
	CU_ASSERT_STRING_EQUAL(s, "\xe2\x80\xa6 wrap:105:3 > small:103:3");
	free(s);
	/* the whole path: no ellipsis, the root's call left out */
	s = dpa_ctx_suffix(&t.d, 4, 2);
	CU_ASSERT_STRING_EQUAL(s, "main:102:3 > small:103:3");
	free(s);
	s = dpa_ctx_suffix(&t.d, 9, 1);
	CU_ASSERT_STRING_EQUAL(s, "\xe2\x80\xa6 big:107:3");
	free(s);
	dpt_deep_free(&t);
}

DPA_TEST_SUITE(ctxpath, DPA_TEST(test_paths), DPA_TEST(test_distinguish));
