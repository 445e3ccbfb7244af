/*
 * test_hotcold.c — feedback/hotcold.c: hot, rarely and never executed
 * procedures and call sites on hand-built profiles whose costs are known,
 * mean against median, CSC and tick bases, and places from a progrep.
 * Part of deepprof's tests. MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "build_profile.h"
#include "hotcold.h"

/* ================================================================
 * Building a profile
 * ================================================================ */

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define BUILD(t, names, n_css, css_caller, pd_ps, arcs) \
	dpt_deep_build(t, NELEM(names) - 1, names, n_css, css_caller, NELEM(pd_ps) - 1, pd_ps, arcs, NELEM(arcs))

/* A feedback ready for the parts: options default but for these. */
static void fb_init(struct dpf_feedback *fb, enum dpf_basis basis, double ns_per_unit,
		    double hot_ns, uint64_t rare)
{
	memset(fb, 0, sizeof(*fb));
	dpf_options_default(&fb->opt);
	fb->basis = basis;
	fb->ns_per_unit = ns_per_unit;
	fb->opt.hot_threshold = hot_ns;
	fb->opt.rare_calls = rare;
}

/* Check entry h: kind, temp, id (its fn name for a PROC, its line 100 + css
 * for a SITE), calls and mean. */
static void check(const struct dpf_hot *h, int kind, int temp, const char *fn, uint32_t line,
		  uint64_t calls, double mean, double median)
{
	CU_ASSERT_EQUAL(h->kind, kind);
	CU_ASSERT_EQUAL(h->temp, temp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h->at.fn);
	CU_ASSERT_STRING_EQUAL(h->at.fn, fn);
	CU_ASSERT_EQUAL(h->at.line, line);
	CU_ASSERT_EQUAL(h->calls, calls);
	CU_ASSERT_DOUBLE_EQUAL(h->mean, mean, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(h->median, median, 1e-9);
}

/* ================================================================
 * CSCs: hot, rare, never; a procedure hot by its mean only
 * ================================================================ */

/*
 * main calls work from two sites (css 2: 9 calls of 10 CSCs; css 3: one
 * call of 10 own + 100 leaf calls of 9 = 910), once (css 5, one call of
 * 5); css 6 in main never ran; "unused" (ps 5) has no pd at all.
 *   main: 1 call, 1 + 90 + 910 + 5 = 1006
 *   work: 10 calls, mean 1000/10 = 100, median 10 (calls 5 and 6 cost 10)
 *   leaf: 100 calls of 9; once: 1 call of 5
 * Threshold 200 ns at 2 ns/CSC: 100 CSCs; rare: 1 call.
 */
static void test_cscs_lists(void)
{
	static const char *const names[] = { NULL, "<root>", "main", "work", "leaf", "unused",
					     "once" };
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 3, 4, 6 };
	static const uint32_t css_caller[] = { 0, 1, 2, 2, 3, 2, 2 };
	static const struct dpt_arc arcs[] = {
		{ 1, 2, 1, 1, 1, 0, 0, 0, 0 },
		{ 2, 3, 2, 9, 90, 0, 0, 0, 0 },
		{ 2, 4, 3, 1, 10, 0, 0, 0, 0 },
		{ 4, 5, 4, 100, 900, 0, 0, 0, 0 },
		{ 2, 6, 5, 1, 5, 0, 0, 0, 0 },
	};
	struct dpt_deep t;
	struct dpf_feedback fb;
	struct dpa_error err = { { 0 } };

	BUILD(&t, names, 6, css_caller, pd_ps, arcs);
	fb_init(&fb, DPF_CSCS, 2.0, 200, 1);
	CU_ASSERT_EQUAL_FATAL(dpf_hotcold(&fb, &t.d, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(fb.n_hot, 7);
	check(&fb.hot[0], DPF_PROC, DPF_HOT, "main", 20, 1, 1006, 1006);
	CU_ASSERT_DOUBLE_EQUAL(fb.hot[0].mean_cscs, 1006, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(fb.hot[0].mean_ns, 2012, 1e-9);
	CU_ASSERT_STRING_EQUAL(fb.hot[0].at.file, "t.c");
	CU_ASSERT_FALSE(fb.hot[0].at.has_site);
	CU_ASSERT_PTR_NULL(fb.hot[0].callee);
	/* the one call through css 3 costs work's own 10 and 100 leaf calls */
	check(&fb.hot[1], DPF_SITE, DPF_HOT, "main", 103, 1, 910, 910);
	CU_ASSERT_EQUAL(fb.hot[1].at.col, 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fb.hot[1].callee);
	CU_ASSERT_STRING_EQUAL(fb.hot[1].callee, "work");
	/* hot by its mean (100 >= 100) though its median is 10 */
	check(&fb.hot[2], DPF_PROC, DPF_HOT, "work", 30, 10, 100, 10);
	CU_ASSERT_EQUAL(fb.hot[2].outer_calls, 10);
	CU_ASSERT_DOUBLE_EQUAL(fb.hot[2].mean_ns, 200, 1e-9);
	/* rare: once (ps 6) before its site (css 5), both one call */
	check(&fb.hot[3], DPF_PROC, DPF_RARE, "once", 60, 1, 5, 5);
	check(&fb.hot[4], DPF_SITE, DPF_RARE, "main", 105, 1, 5, 5);
	/* never: unused (no pd), then the site that never ran */
	check(&fb.hot[5], DPF_PROC, DPF_NEVER, "unused", 50, 0, 0, 0);
	check(&fb.hot[6], DPF_SITE, DPF_NEVER, "main", 106, 0, 0, 0);
	CU_ASSERT_PTR_NULL(fb.hot[6].callee);
	dpf_feedback_release(&fb);

	/* a threshold one CSC higher: work is no longer hot (mean 100 < 100.5) */
	fb_init(&fb, DPF_CSCS, 2.0, 201, 1);
	CU_ASSERT_EQUAL_FATAL(dpf_hotcold(&fb, &t.d, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(fb.n_hot, 6);
	CU_ASSERT_STRING_EQUAL(fb.hot[2].at.fn, "once");
	CU_ASSERT_EQUAL(fb.hot[2].temp, DPF_RARE);
	dpf_feedback_release(&fb);

	/* rare_calls 0: "rare" is empty; nothing listed is rare */
	fb_init(&fb, DPF_CSCS, 2.0, 200, 0);
	CU_ASSERT_EQUAL_FATAL(dpf_hotcold(&fb, &t.d, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(fb.n_hot, 5);
	for (uint32_t i = 0; i < fb.n_hot; i++)
		CU_ASSERT_NOT_EQUAL(fb.hot[i].temp, DPF_RARE);
	dpf_feedback_release(&fb);

	/* no time scale: nothing is hot, the cold lists stay */
	fb_init(&fb, DPF_CSCS, 0, 200, 1);
	CU_ASSERT_EQUAL_FATAL(dpf_hotcold(&fb, &t.d, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(fb.n_hot, 6);   /* main, once, css 3, css 5 rare; 2 never */
	check(&fb.hot[0], DPF_PROC, DPF_RARE, "main", 20, 1, 1006, 1006);
	check(&fb.hot[1], DPF_PROC, DPF_RARE, "once", 60, 1, 5, 5);
	check(&fb.hot[2], DPF_SITE, DPF_RARE, "main", 103, 1, 910, 910);
	check(&fb.hot[3], DPF_SITE, DPF_RARE, "main", 105, 1, 5, 5);
	dpf_feedback_release(&fb);
	dpt_deep_free(&t);
}

/* ================================================================
 * Ticks: a procedure hot by its median only; an even median
 * ================================================================ */

/*
 * main calls f through css 2 (3 calls, 300 ticks, 30 CSCs) and css 3 (2
 * calls, 2 ticks, 2 CSCs), and g through css 4 (1 call, 10 ticks), css 5 (1
 * call, 20 ticks) and css 6 (2 calls, 2000 ticks); each in its own pd.
 *   f: 5 calls, mean 302/5 = 60.4 ticks, median the 3rd call: 100;
 *      in CSCs 32/5 = 6.4
 *   g: 4 calls, mean 2030/4 = 507.5, median (20 + 1000)/2 = 510
 *   main: 2332
 * 10 ns a tick, threshold 800 ns = 80 ticks; rare: at most 2 calls.
 */
static void test_ticks_median(void)
{
	static const char *const names[] = { NULL, "<root>", "main", "f", "g" };
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 3, 4, 4, 4 };
	static const struct dpt_arc arcs[] = {
		{ 1, 2, 1, 1, 1, 0, 0, 0, 0 },
		{ 2, 3, 2, 3, 30, 300, 0, 0, 0 },
		{ 2, 4, 3, 2, 2, 2, 0, 0, 0 },
		{ 2, 5, 4, 1, 1, 10, 0, 0, 0 },
		{ 2, 6, 5, 1, 1, 20, 0, 0, 0 },
		{ 2, 7, 6, 2, 2, 2000, 0, 0, 0 },
	};
	struct dpt_deep t;
	struct dpf_feedback fb;
	struct dpa_error err = { { 0 } };

	BUILD(&t, names, 6, NULL, pd_ps, arcs);
	fb_init(&fb, DPF_TICKS, 10.0, 800, 2);
	CU_ASSERT_EQUAL_FATAL(dpf_hotcold(&fb, &t.d, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(fb.n_hot, 8);
	check(&fb.hot[0], DPF_PROC, DPF_HOT, "main", 20, 1, 2332, 2332);
	check(&fb.hot[1], DPF_SITE, DPF_HOT, "main", 106, 2, 1000, 1000);
	check(&fb.hot[2], DPF_PROC, DPF_HOT, "g", 40, 4, 507.5, 510);
	CU_ASSERT_DOUBLE_EQUAL(fb.hot[2].mean_ns, 5075, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(fb.hot[2].mean_cscs, 1.0, 1e-9);
	check(&fb.hot[3], DPF_SITE, DPF_HOT, "main", 102, 3, 100, 100);
	/* hot by its median only: mean 60.4 < 80 <= 100 */
	check(&fb.hot[4], DPF_PROC, DPF_HOT, "f", 30, 5, 60.4, 100);
	CU_ASSERT_DOUBLE_EQUAL(fb.hot[4].mean_cscs, 6.4, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(fb.hot[4].mean_ns, 604, 1e-9);
	/* rare by calls, most first: css 3 (2), then css 4 and 5 (1 each) */
	check(&fb.hot[5], DPF_SITE, DPF_RARE, "main", 103, 2, 1, 1);
	check(&fb.hot[6], DPF_SITE, DPF_RARE, "main", 104, 1, 10, 10);
	check(&fb.hot[7], DPF_SITE, DPF_RARE, "main", 105, 1, 20, 20);
	dpf_feedback_release(&fb);

	/* in CSCs nothing costs 80 (10 ns/CSC): only main (1 + 30 + 2 + 1 +
	 * 1 + 2 = 37 CSCs, 1 call) and the sites of at most 2 calls are
	 * listed, as rare: 2 calls before 1, procedures before sites */
	fb_init(&fb, DPF_CSCS, 10.0, 800, 2);
	CU_ASSERT_EQUAL_FATAL(dpf_hotcold(&fb, &t.d, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(fb.n_hot, 5);
	check(&fb.hot[0], DPF_SITE, DPF_RARE, "main", 103, 2, 1, 1);
	check(&fb.hot[1], DPF_SITE, DPF_RARE, "main", 106, 2, 1, 1);
	check(&fb.hot[2], DPF_PROC, DPF_RARE, "main", 20, 1, 37, 37);
	check(&fb.hot[3], DPF_SITE, DPF_RARE, "main", 104, 1, 1, 1);
	check(&fb.hot[4], DPF_SITE, DPF_RARE, "main", 105, 1, 1, 1);
	dpf_feedback_release(&fb);
	dpt_deep_free(&t);
}

/* ================================================================
 * Recursion: a procedure costed over its outer calls; progrep places
 * ================================================================ */

#define TU "{'progrep':1,'record':'tu','tu':'00000000000000ab','file':'t.c','n_ps':3,'n_css':5,'abi':2}\n"
#define FN(ps, name, sum, first, n, body, calls) \
	"{'progrep':1,'record':'fn','tu':'00000000000000ab','ps':" #ps ",'fn':'" name "'," \
	"'file':'/nonexistent/t.c','line':1,'end_line':2,'checksum':'" sum "','public':true," \
	"'first_site':" #first ",'n_sites':" #n ",'backedges':0,'params':[],'body':" body "," \
	"'unplaced':[],'calls':[" calls "]}\n"
#define CALL(s, callee) "{'site':" #s ",'id':'00000000000000ab:" #s "','callee':'" callee "'," \
	"'kind':'normal','line':5" #s ",'col':3,'effects':'memory','args':[],'result':null}"

/* Parse progrep text q (' for ") into module 1 of *s for profile *p and
 * map ps_fn[v] (TU ps index + 1, 0: none) and css_site[c] (site + 1). */

/*
 * main calls fib once (css 2: 1 CSC); fib calls itself through css 3 and
 * css 4, 10 calls of 1 CSC each. fib: 21 calls, one of them from outside:
 * its mean is that call's total, 21; the recursive sites cost 1 a call.
 */
static void test_recursive_and_progrep(void)
{
	static const char *const names[] = { NULL, "<root>", "main", "fib" };
	static const uint32_t pd_ps[] = { 0, 1, 2, 3 };
	static const struct dpt_arc arcs[] = {
		{ 1, 2, 1, 1, 1, 0, 0, 0, 0 },
		{ 2, 3, 2, 1, 1, 0, 0, 0, 0 },
		{ 3, 3, 3, 10, 10, 0, 0, 0, 0 },
		{ 3, 3, 4, 10, 10, 0, 0, 0, 0 },
	};
	static const uint32_t ps_fn[] = { 0, 0, 1, 2 };
	static const uint32_t css_site[] = { 0, 0, 1, 3, 4 };
	struct dpt_deep t;
	struct dpf_feedback fb;
	struct dpa_progreps s;
	struct dpa_error err = { { 0 } };
	const struct dpf_hot *h;

	BUILD(&t, names, 4, NULL, pd_ps, arcs);
	fb_init(&fb, DPF_CSCS, 1.0, 20, 1);
	CU_ASSERT_EQUAL_FATAL(dpf_hotcold(&fb, &t.d, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(fb.n_hot, 3);
	check(&fb.hot[0], DPF_PROC, DPF_HOT, "main", 20, 1, 22, 22);
	check(&fb.hot[1], DPF_PROC, DPF_HOT, "fib", 30, 21, 21, 21);
	CU_ASSERT_EQUAL(fb.hot[1].outer_calls, 1);
	check(&fb.hot[2], DPF_SITE, DPF_HOT, "main", 102, 1, 21, 21);
	CU_ASSERT_FALSE(fb.hot[2].at.has_site);
	CU_ASSERT_EQUAL(fb.hot[2].at.checksum, 0);
	dpf_feedback_release(&fb);

	/* the same with a progrep: site ids and checksums; the callee of
	 * css 2 (not static) from the progrep's record. The progrep also has
	 * main's site 1 (calling cold) and a function cold (site 4), which
	 * the run never reached: never, from the progrep (cold's site not
	 * listed: its function never ran) */
	dpt_progreps_parse(&s, &t.p, TU FN(0, "main", "00000000000000c5", 0, 2, "[{'call':0},{'call':1}]",
				CALL(0, "fib") "," CALL(1, "cold"))
		FN(1, "fib", "0000000000000f1b", 2, 2, "[{'call':2},{'call':3}]",
		   CALL(2, "fib") "," CALL(3, "fib"))
		FN(2, "cold", "0000000000000c01", 4, 1, "[{'call':4}]", CALL(4, "fib")),
		ps_fn, css_site);
	fb_init(&fb, DPF_CSCS, 1.0, 20, 1);
	CU_ASSERT_EQUAL_FATAL(dpf_hotcold(&fb, &t.d, &s, &err), 0);
	CU_ASSERT_EQUAL_FATAL(fb.n_hot, 5);
	h = &fb.hot[3];
	CU_ASSERT_EQUAL(h->kind, DPF_PROC);
	CU_ASSERT_EQUAL(h->temp, DPF_NEVER);
	CU_ASSERT_STRING_EQUAL(h->at.fn, "cold");
	CU_ASSERT_STRING_EQUAL(h->at.file, "/nonexistent/t.c");
	CU_ASSERT_EQUAL(h->at.line, 1);
	CU_ASSERT_EQUAL(h->at.checksum, 0xc01);
	CU_ASSERT_FALSE(h->at.has_site);
	CU_ASSERT_EQUAL(h->calls, 0);
	h = &fb.hot[4];
	CU_ASSERT_EQUAL(h->kind, DPF_SITE);
	CU_ASSERT_EQUAL(h->temp, DPF_NEVER);
	CU_ASSERT_STRING_EQUAL(h->at.fn, "main");
	CU_ASSERT_EQUAL(h->at.line, 51);
	CU_ASSERT_EQUAL(h->at.col, 3);
	CU_ASSERT_TRUE(h->at.has_site);
	CU_ASSERT_EQUAL(h->at.tu_id, 0xab);
	CU_ASSERT_EQUAL(h->at.site, 1);
	CU_ASSERT_EQUAL(h->at.checksum, 0xc5);
	CU_ASSERT_STRING_EQUAL(h->callee, "cold");
	CU_ASSERT_EQUAL(fb.hot[0].at.checksum, 0xc5);
	CU_ASSERT_FALSE(fb.hot[0].at.has_site);
	CU_ASSERT_EQUAL(fb.hot[1].at.checksum, 0xf1b);
	CU_ASSERT_TRUE(fb.hot[2].at.has_site);
	CU_ASSERT_EQUAL(fb.hot[2].at.tu_id, 0xab);
	CU_ASSERT_EQUAL(fb.hot[2].at.site, 0);
	CU_ASSERT_EQUAL(fb.hot[2].at.checksum, 0xc5);
	CU_ASSERT_STRING_EQUAL(fb.hot[2].callee, "fib");
	dpf_feedback_release(&fb);

	/* a threshold above fib's 21: main alone is hot (22), and fib's one
	 * call from main is rare */
	fb_init(&fb, DPF_CSCS, 1.0, 21.5, 1);
	CU_ASSERT_EQUAL_FATAL(dpf_hotcold(&fb, &t.d, &s, &err), 0);
	CU_ASSERT_EQUAL_FATAL(fb.n_hot, 4);
	check(&fb.hot[0], DPF_PROC, DPF_HOT, "main", 20, 1, 22, 22);
	check(&fb.hot[1], DPF_SITE, DPF_RARE, "main", 102, 1, 21, 21);
	check(&fb.hot[2], DPF_PROC, DPF_NEVER, "cold", 1, 0, 0, 0);
	check(&fb.hot[3], DPF_SITE, DPF_NEVER, "main", 51, 0, 0, 0);
	dpf_feedback_release(&fb);

	/* a profile without fib's file and line, or css 2's: the progrep's */
	CU_ASSERT_FATAL(dpa_src_set(&t.p, DPA_PS_FILE, 3, 0) == 0);
	CU_ASSERT_FATAL(dpa_src_set(&t.p, DPA_PS_LINE, 3, 0) == 0);
	CU_ASSERT_FATAL(dpa_src_set(&t.p, DPA_CSS_LINE, 2, 0) == 0);
	CU_ASSERT_FATAL(dpa_src_set(&t.p, DPA_CSS_COL, 2, 0) == 0);
	fb_init(&fb, DPF_CSCS, 1.0, 20, 1);
	CU_ASSERT_EQUAL_FATAL(dpf_hotcold(&fb, &t.d, &s, &err), 0);
	CU_ASSERT_EQUAL_FATAL(fb.n_hot, 5);
	CU_ASSERT_STRING_EQUAL(fb.hot[1].at.fn, "fib");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fb.hot[1].at.file);
	CU_ASSERT_STRING_EQUAL(fb.hot[1].at.file, "/nonexistent/t.c");
	CU_ASSERT_EQUAL(fb.hot[1].at.line, 1);
	CU_ASSERT_EQUAL(fb.hot[2].at.line, 50);
	CU_ASSERT_EQUAL(fb.hot[2].at.col, 3);
	dpf_feedback_release(&fb);
	dpa_progreps_release(&s);
	dpt_deep_free(&t);
}

DPA_TEST_SUITE(hotcold, DPA_TEST(test_cscs_lists), DPA_TEST(test_ticks_median),
	       DPA_TEST(test_recursive_and_progrep));
