/*
 * test_report.c — unit tests of the report pipeline: text units, name
 * lookup and close matches, recursion types, report structures on generated
 * profiles of known shape, display and both renderers.
 * Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "display.h"
#include "gen.h"
#include "names.h"
#include "recursion.h"
#include "report.h"
#include "unit.h"

static void test_units(void)
{
	char b[64];

	dpa_fmt_count(b, sizeof(b), 0);        CU_ASSERT_STRING_EQUAL(b, "0");
	dpa_fmt_count(b, sizeof(b), 9999);     CU_ASSERT_STRING_EQUAL(b, "9999");
	dpa_fmt_count(b, sizeof(b), 12345);    CU_ASSERT_STRING_EQUAL(b, "12.3k");
	dpa_fmt_count(b, sizeof(b), 123456);   CU_ASSERT_STRING_EQUAL(b, "123k");
	dpa_fmt_count(b, sizeof(b), 1234567);  CU_ASSERT_STRING_EQUAL(b, "1.23M");
	dpa_fmt_count(b, sizeof(b), 999999);   CU_ASSERT_STRING_EQUAL(b, "1.00M");
	dpa_fmt_count(b, sizeof(b), 1.5);      CU_ASSERT_STRING_EQUAL(b, "1.50");
	dpa_fmt_count(b, sizeof(b), 1518.25);  CU_ASSERT_STRING_EQUAL(b, "1518.2");
	dpa_fmt_count(b, sizeof(b), 1e19);     CU_ASSERT_STRING_EQUAL(b, "10.0E");
	dpa_fmt_bytes(b, sizeof(b), 999);      CU_ASSERT_STRING_EQUAL(b, "999 B");
	dpa_fmt_bytes(b, sizeof(b), 1000);     CU_ASSERT_STRING_EQUAL(b, "1.00 kB");
	dpa_fmt_bytes(b, sizeof(b), 4500000);  CU_ASSERT_STRING_EQUAL(b, "4.50 MB");
	dpa_fmt_bytes(b, sizeof(b), 45e9);     CU_ASSERT_STRING_EQUAL(b, "45.0 GB");
	dpa_fmt_time(b, sizeof(b), 0);         CU_ASSERT_STRING_EQUAL(b, "0");
	dpa_fmt_time(b, sizeof(b), 12);        CU_ASSERT_STRING_EQUAL(b, "12 ns");
	dpa_fmt_time(b, sizeof(b), 999.6);     CU_ASSERT_STRING_EQUAL(b, "1.00 us");
	dpa_fmt_time(b, sizeof(b), 1230000);   CU_ASSERT_STRING_EQUAL(b, "1.23 ms");
	dpa_fmt_time(b, sizeof(b), 456e6);     CU_ASSERT_STRING_EQUAL(b, "456 ms");
	dpa_fmt_time(b, sizeof(b), 4.5e9);     CU_ASSERT_STRING_EQUAL(b, "4.50 s");
	dpa_fmt_time(b, sizeof(b), 3600e9);    CU_ASSERT_STRING_EQUAL(b, "3600 s");
}

static void test_distance(void)
{
	CU_ASSERT_EQUAL(dpa_names_distance("fib", "fib", 2), 0);
	CU_ASSERT_EQUAL(dpa_names_distance("fib", "fbi", 2), 2);
	CU_ASSERT_EQUAL(dpa_names_distance("kitten", "sitting", 5), 3);
	CU_ASSERT_EQUAL(dpa_names_distance("kitten", "sitting", 2), 3);   /* max + 1 */
	CU_ASSERT_EQUAL(dpa_names_distance("", "abc", 5), 3);
	CU_ASSERT_EQUAL(dpa_names_distance("a", "abcdefgh", 2), 3);
}

static void test_parse(void)
{
	CU_ASSERT_EQUAL(dpa_report_kind_parse("recursion"), DPA_REPORT_RECURSION);
	CU_ASSERT_EQUAL(dpa_report_kind_parse("Top"), -1);
	CU_ASSERT_EQUAL(dpa_report_group_parse("file"), DPA_GROUP_FILE);
	CU_ASSERT_EQUAL(dpa_report_group_parse(""), -1);
	CU_ASSERT_EQUAL(dpa_report_measure_parse("time"), DPA_TICKS);
	CU_ASSERT_EQUAL(dpa_report_measure_parse("bytes"), DPA_BYTES);
	CU_ASSERT_EQUAL(dpa_report_measure_parse("exits"), -1);
	CU_ASSERT_STRING_EQUAL(dpa_rec_type_name(DPA_REC_DIVIDE), "divide_and_conquer");
}

/* A generated profile read and started up. */
struct fixture {
	struct dpg_stats st;
	struct dpa_profile p;
	struct dpa_deep d;
};

static int load(struct fixture *f, enum dpg_shape shape, uint64_t csds)
{
	struct dpg_opts o = { .shape = shape, .csds = csds, .seed = 5 };
	struct dpa_error err = { "" };
	char gerr[512];
	const char *path = dpa_test_path("report.data");

	if (dpg_write_file(&o, path, &f->st, gerr, sizeof(gerr)) < 0)
		return -1;
	if (dpa_profile_read(&f->p, path, &err) < 0)
		return -1;
	/* dp-gen leaves names to debug information its module does not have:
	 * name them as gen.h does, main (ps 2) and f1, f2, ... */
	for (uint32_t k = 2; k <= f->p.n_ps && k < 2 + 64; k++) {
		static char names[64][8];

		if (k == 2)
			snprintf(names[k - 2], sizeof(names[0]), "main");
		else
			snprintf(names[k - 2], sizeof(names[0]), "f%u", k - 2);
		CU_ASSERT_FATAL(dpa_src_set(&f->p, DPA_PS_NAME, k, dpa_str_id(&f->p, names[k - 2])) == 0);
	}
	if (dpa_deep_init(&f->d, &f->p, &err) < 0) {
		dpa_profile_release(&f->p);
		return -1;
	}
	return 0;
}

static void unload(struct fixture *f)
{
	dpa_deep_release(&f->d);
	dpa_profile_release(&f->p);
}

static void test_names_find(void)
{
	struct fixture f;
	struct dpa_error err = { "" };
	uint32_t *v, n;

	CU_ASSERT_EQUAL_FATAL(load(&f, DPG_TREE, 40), 0);
	CU_ASSERT_EQUAL(dpa_names_find(&f.p, "f1", &v, &n, &err), 0);
	CU_ASSERT_EQUAL(n, 1);
	if (n == 1)
		CU_ASSERT_STRING_EQUAL(dpa_src_str(&f.p, DPA_PS_NAME, v[0]), "f1");
	free(v);
	CU_ASSERT_EQUAL(dpa_names_find(&f.p, "f17", &v, &n, &err), -1);
	CU_ASSERT_PTR_NULL(v);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "report.data: no procedure named 'f17' (did you mean: f1, f7, f10, f11, f12?)"));
	CU_ASSERT_EQUAL(dpa_names_find(&f.p, "zzzzzzzz", &v, &n, &err), -1);
	CU_ASSERT_PTR_NULL(strstr(err.msg, "did you mean"));
	CU_ASSERT_EQUAL(dpa_names_find(&f.p, "x.c:f1", &v, &n, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no procedure 'f1' in file 'x.c'"));
	CU_ASSERT_EQUAL(dpa_names_find(&f.p, "f1:", &v, &n, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bad procedure name 'f1:'"));
	/* names with colons: bare, after a file, and not found */
	CU_ASSERT_FATAL(dpa_src_set(&f.p, DPA_PS_NAME, 3, dpa_str_id(&f.p, "ns::f")) == 0);
	CU_ASSERT_FATAL(dpa_src_set(&f.p, DPA_PS_FILE, 3, dpa_str_id(&f.p, "src/a.c")) == 0);
	for (int i = 0; i < 3; i++) {
		const char *spec = (const char *[]){ "ns::f", "a.c:ns::f", "src/a.c:ns::f" }[i];

		CU_ASSERT_EQUAL(dpa_names_find(&f.p, spec, &v, &n, &err), 0);
		CU_ASSERT_EQUAL(n, 1);
		if (n == 1)
			CU_ASSERT_EQUAL(v[0], 3);
		free(v);
	}
	CU_ASSERT_EQUAL(dpa_names_find(&f.p, "b.c:ns::f", &v, &n, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no procedure 'ns::f' in file 'b.c'"));
	CU_ASSERT_EQUAL(dpa_names_find(&f.p, "ns::g", &v, &n, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no procedure named 'ns::g' (did you mean: ns::f?)"));
	unload(&f);
}

static void test_recursion_types(void)
{
	struct fixture f;
	uint32_t by[DPA_REC_NTYPES] = { 0 };

	/* recursive, 9 csds: G = 4 groups main -> r_g -> r_g */
	CU_ASSERT_EQUAL_FATAL(load(&f, DPG_RECURSIVE, 9), 0);
	for (uint32_t c = 2; c <= f.d.cl.n; c++) {
		struct dpa_recursion r;

		dpa_recursion_of(&f.d, c, DPA_CALLS, &r);
		by[r.type]++;
		if (r.type == DPA_REC_SIMPLE) {
			uint32_t n;
			const uint32_t *m = dpa_clique_members(&f.d.cl, c, &n);
			const struct dpa_pd *q = &f.p.pd[m[0]];
			uint64_t in = 0;

			for (uint32_t i = 0; i < dpa_pd_in_n(q); i++)
				in += dpa_own(&f.p, dpa_in_csd(&f.p, q->in_first + i), DPA_CALLS);
			CU_ASSERT_EQUAL(r.entry_calls + r.internal_calls, in);
			CU_ASSERT_DOUBLE_EQUAL(r.depth, (double)in / (double)r.entry_calls, 1e-9);
			CU_ASSERT_DOUBLE_EQUAL(r.own_per_call, 1.0, 1e-12);   /* calls per call */
			CU_ASSERT_EQUAL(r.rec_sites, 1);
		}
	}
	CU_ASSERT_EQUAL(by[DPA_REC_NONE], 1);
	CU_ASSERT_EQUAL(by[DPA_REC_SIMPLE], 4);
	CU_ASSERT_EQUAL(by[DPA_REC_MUTUAL] + by[DPA_REC_DIVIDE] + by[DPA_REC_OTHER], 0);
	unload(&f);

	/* mutual, 10 csds: G = 3 groups main -> a_g -> b_g -> a_g */
	memset(by, 0, sizeof(by));
	CU_ASSERT_EQUAL_FATAL(load(&f, DPG_MUTUAL, 10), 0);
	for (uint32_t c = 2; c <= f.d.cl.n; c++) {
		struct dpa_recursion r;

		dpa_recursion_of(&f.d, c, DPA_CSCS, &r);
		by[r.type]++;
		if (r.type == DPA_REC_MUTUAL)
			CU_ASSERT_EQUAL(r.members, 2);
	}
	CU_ASSERT_EQUAL(by[DPA_REC_MUTUAL], 3);
	CU_ASSERT_EQUAL(by[DPA_REC_NONE], 1);
	unload(&f);
}

static void test_report_top(void)
{
	struct fixture f;
	struct dpa_report r;
	struct dpa_error err = { "" };
	struct dpa_report_opts o = { .kind = DPA_REPORT_TOP, .sort = DPA_CALLS, .total = true,
				     .limit = 3 };

	CU_ASSERT_EQUAL_FATAL(load(&f, DPG_CHAIN, 30), 0);
	CU_ASSERT_EQUAL_FATAL(dpa_report_init(&r, &f.d, &o, &err), 0);
	CU_ASSERT_EQUAL(r.program[DPA_CALLS], f.st.calls);
	CU_ASSERT_EQUAL(r.program[DPA_BYTES], f.st.bytes);
	CU_ASSERT_EQUAL(r.n_sec, 1);
	CU_ASSERT_EQUAL(r.sec[0].n, 3);
	CU_ASSERT_EQUAL(r.sec[0].n_before_limit, 30);     /* main, f1 .. f29 */
	/* in a chain the totals fall along it: main, f1, f2 */
	CU_ASSERT_STRING_EQUAL(dpa_src_str(&f.p, DPA_PS_NAME, r.sec[0].row[0].ps), "main");
	CU_ASSERT_EQUAL(r.sec[0].row[0].c.total[DPA_CALLS], f.st.calls);
	CU_ASSERT_STRING_EQUAL(dpa_src_str(&f.p, DPA_PS_NAME, r.sec[0].row[1].ps), "f1");
	CU_ASSERT_EQUAL(r.sec[0].row[1].c.total[DPA_CALLS], f.st.calls - 1);

	/* display and renderers */
	struct dpa_display dp;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	json_t *doc;
	json_error_t je;

	CU_ASSERT_EQUAL_FATAL(dpa_report_display(&dp, &r, &err), 0);
	CU_ASSERT_EQUAL(dp.ntab, 1);
	CU_ASSERT_EQUAL(dp.tab[0].nrows, 3);
	CU_ASSERT_EQUAL(dp.tab[0].total_rows, 30);
	m = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(dpa_render_text(&dp, m), 0);
	fclose(m);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "Top procedures by self+descendants calls\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "Procedures (3 of 30 shown)\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "time = timer ticks x 4.00 ms per tick\n"));
	free(buf);
	m = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(dpa_render_json(&dp, m), 0);
	fclose(m);
	doc = json_loads(buf, 0, &je);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(doc, "report")), "top");
	CU_ASSERT_EQUAL(json_array_size(json_object_get(doc, "procedures")), 3);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_array_get(json_object_get(doc,
			"procedures"), 0), "total_calls")), (json_int_t)f.st.calls);
	json_decref(doc);
	free(buf);
	dpa_display_release(&dp);
	dpa_report_release(&r);
	dpa_report_release(&r);         /* released twice: a no-op */
	unload(&f);
}

static void test_report_errors(void)
{
	struct fixture f;
	struct dpa_report r;
	struct dpa_error err = { "" };
	struct dpa_report_opts o = { .kind = DPA_REPORT_CLIQUE, .sort = DPA_CSCS, .id = 0 };

	CU_ASSERT_EQUAL_FATAL(load(&f, DPG_TREE, 20), 0);
	CU_ASSERT_EQUAL(dpa_report_init(&r, &f.d, &o, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "report.data: no clique 0 (cliques are 1..21)"));
	o.id = f.d.cl.n;
	CU_ASSERT_EQUAL(dpa_report_init(&r, &f.d, &o, &err), 0);
	dpa_report_release(&r);
	o.kind = DPA_REPORT_SITE;
	o.id = f.p.n_css + 1;
	CU_ASSERT_EQUAL(dpa_report_init(&r, &f.d, &o, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no call site"));
	o.kind = DPA_REPORT_PROC;
	o.name = "mian";
	CU_ASSERT_EQUAL(dpa_report_init(&r, &f.d, &o, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no procedure named 'mian' (did you mean: main?)"));
	unload(&f);
}

/* The clique report of a chain: ancestors are every procedure above. */
static void test_report_clique_chain(void)
{
	struct fixture f;
	struct dpa_report r;
	struct dpa_error err = { "" };
	struct dpa_report_opts o = { .kind = DPA_REPORT_CLIQUE, .sort = DPA_CALLS };

	CU_ASSERT_EQUAL_FATAL(load(&f, DPG_CHAIN, 10), 0);
	o.id = f.d.cl.n;        /* the deepest: f9, below main, f1 .. f8 */
	CU_ASSERT_EQUAL_FATAL(dpa_report_init(&r, &f.d, &o, &err), 0);
	CU_ASSERT_EQUAL(r.sec[0].n, 9);         /* ancestors: f8 .. f1, main */
	CU_ASSERT_STRING_EQUAL(dpa_src_str(&f.p, DPA_PS_NAME, r.sec[0].row[0].ps), "f8");
	CU_ASSERT_STRING_EQUAL(dpa_src_str(&f.p, DPA_PS_NAME, r.sec[0].row[8].ps), "main");
	CU_ASSERT_EQUAL(r.sec[1].n, 1);         /* members */
	CU_ASSERT_EQUAL(r.sec[2].n, 0);         /* no call sites */
	CU_ASSERT_EQUAL(r.sec[3].n, 0);         /* no children */
	dpa_report_release(&r);
	unload(&f);
}

DPA_TEST_SUITE(report, DPA_TEST(test_units), DPA_TEST(test_distance), DPA_TEST(test_parse),
	       DPA_TEST(test_names_find), DPA_TEST(test_recursion_types),
	       DPA_TEST(test_report_top), DPA_TEST(test_report_errors),
	       DPA_TEST(test_report_clique_chain));
