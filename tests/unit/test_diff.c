/*
 * test_diff.c — dpa_diff_*(): hand-built OLD and NEW profiles (built with
 * test_merge.c's builder, written and read back so they are exactly what
 * the reader gives) with known per-procedure and per-context changes,
 * statuses, inherited costs, order, JSON and refusals.
 * Part of deepprof's tests. MIT licence.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "diff.h"
#include "write_profile.h"

/* the builder, in test_merge.c */
struct tmb;
struct tmb *tmb_new(const char *path, const char *arg);
void tmb_free(struct tmb *b);
struct dpa_profile *tmb_prof(struct tmb *b);
uint32_t tmb_thread(struct tmb *b, uint64_t tid);
uint32_t tmb_call(struct tmb *b, uint32_t caller, uint64_t site, uint64_t callee_off,
		  uint32_t callee, uint64_t calls);
void tmb_finish(struct tmb *b);

enum { MAIN = 0x1100, F = 0x1200, G = 0x1300, H = 0x1400 };
#define ROOTSITE 0x27000

static char dir[] = "/tmp/dpa-diff-XXXXXX";
static char old_path[128], new_path[128];

/* OLD: main -> f (2) -> g (4); main -> g (3).
 * NEW: main -> f (5) -> g (1); main -> h (1). */
static int made;

/* Called by each test (the builder asserts, so it cannot run in a CUnit
 * suite init): writes the two files once. */
static int make_files(void)
{
	struct tmb *a, *b;
	struct dpa_error err;
	uint32_t r, mn, f;
	int ret = 0;

	if (made)
		return 0;
	if (!mkdtemp(dir))
		return -1;
	made = 1;
	snprintf(old_path, sizeof(old_path), "%s/old.data", dir);
	snprintf(new_path, sizeof(new_path), "%s/new.data", dir);
	a = tmb_new("old", "1");
	r = tmb_thread(a, 1);
	mn = tmb_call(a, r, ROOTSITE, MAIN, 0, 1);
	f = tmb_call(a, mn, MAIN + 0x10, F, 0, 2);
	tmb_call(a, f, F + 0x8, G, 0, 4);
	tmb_call(a, mn, MAIN + 0x20, G, 0, 3);
	tmb_finish(a);
	b = tmb_new("new", "2");
	r = tmb_thread(b, 1);
	mn = tmb_call(b, r, ROOTSITE, MAIN, 0, 1);
	f = tmb_call(b, mn, MAIN + 0x10, F, 0, 5);
	tmb_call(b, f, F + 0x8, G, 0, 1);
	tmb_call(b, mn, MAIN + 0x30, H, 0, 1);
	tmb_finish(b);
	tmb_prof(b)->hdr.ns_per_tick = 2e6;
	if (dpa_profile_write(tmb_prof(a), old_path, &err) < 0 ||
	    dpa_profile_write(tmb_prof(b), new_path, &err) < 0)
		ret = -1;
	tmb_free(a);
	tmb_free(b);
	return ret;
}

static int diff_cleanup(void)
{
	if (!made)
		return 0;
	unlink(old_path);
	unlink(new_path);
	rmdir(dir);
	return 0;
}

static const struct dpa_diff_row *proc_at(const struct dpa_diff *d, uint64_t off)
{
	for (uint32_t r = 0; r < d->n_procs; r++)
		if (dpa_ps_offset(&d->m.prof, d->procs[r].id) == off)
			return &d->procs[r];
	return NULL;
}

static const struct dpa_diff_row *ctx_named(const struct dpa_diff *d, const char *name)
{
	for (uint32_t r = 0; r < d->n_ctx; r++) {
		char *s = dpa_diff_context_name(d, d->ctx[r].id);
		int same = s && !strcmp(s, name);
		free(s);
		if (same)
			return &d->ctx[r];
	}
	return NULL;
}

static void read_both(struct dpa_profile *o, struct dpa_profile *n)
{
	struct dpa_error err;

	CU_ASSERT_EQUAL_FATAL(make_files(), 0);
	CU_ASSERT_EQUAL_FATAL(dpa_profile_read(o, old_path, &err), 0);
	CU_ASSERT_EQUAL_FATAL(dpa_profile_read(n, new_path, &err), 0);
}

static void test_diff_rows(void)
{
	struct dpa_profile o, n;
	struct dpa_diff d;
	struct dpa_error err = { { 0 } };
	const struct dpa_diff_row *r;

	read_both(&o, &n);
	CU_ASSERT_EQUAL_FATAL(dpa_diff_init(&d, &o, &n, false, &err), 0);
	dpa_profile_release(&o);    /* the diff keeps what it needs */
	dpa_profile_release(&n);
	CU_ASSERT_EQUAL(d.n_procs, 4);
	CU_ASSERT_EQUAL(d.n_ctx, 5);
	CU_ASSERT_EQUAL(d.old_sum[DPA_DIFF_CALLS], 10);
	CU_ASSERT_EQUAL(d.new_sum[DPA_DIFF_CALLS], 8);
	CU_ASSERT_EQUAL(d.old_sum[DPA_DIFF_TICKS], 0 + 1 + 2 + 1);
	CU_ASSERT_EQUAL(d.old_sum[DPA_DIFF_TIME], 4000000);
	CU_ASSERT_EQUAL(d.new_sum[DPA_DIFF_TIME], 2 * 2000000);
	CU_ASSERT_STRING_EQUAL(d.old_path, old_path);

	r = proc_at(&d, MAIN);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(r->status, DPA_DIFF_SAME);
	CU_ASSERT_TRUE(d.inherited);
	CU_ASSERT_EQUAL(r->old_total[DPA_DIFF_CALLS], 10);
	CU_ASSERT_EQUAL(r->new_total[DPA_DIFF_CALLS], 8);
	r = proc_at(&d, F);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(r->status, DPA_DIFF_CHANGED);
	CU_ASSERT_EQUAL(r->old[DPA_DIFF_CALLS], 2);
	CU_ASSERT_EQUAL(r->new_[DPA_DIFF_CALLS], 5);
	CU_ASSERT_EQUAL(r->old[DPA_DIFF_TIME], 1000000);        /* 1 tick x 1 ms */
	CU_ASSERT_EQUAL(r->new_[DPA_DIFF_TIME], 4000000);       /* 2 ticks x 2 ms */
	CU_ASSERT_EQUAL(r->old[DPA_DIFF_BYTES], 16);
	CU_ASSERT_EQUAL(r->new_[DPA_DIFF_BYTES], 16);
	CU_ASSERT_EQUAL(r->old_total[DPA_DIFF_CALLS], 6);
	CU_ASSERT_EQUAL(r->new_total[DPA_DIFF_CALLS], 6);
	r = proc_at(&d, G);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(r->status, DPA_DIFF_CHANGED);
	CU_ASSERT_EQUAL(r->old[DPA_DIFF_CALLS], 7);
	CU_ASSERT_EQUAL(r->new_[DPA_DIFF_CALLS], 1);
	CU_ASSERT_EQUAL(dpa_diff_delta(r->old[DPA_DIFF_CALLS], r->new_[DPA_DIFF_CALLS]), -6);
	CU_ASSERT_DOUBLE_EQUAL(dpa_diff_relative(r->old[DPA_DIFF_CALLS], r->new_[DPA_DIFF_CALLS]),
			       -6.0 / 7, 1e-12);
	r = proc_at(&d, H);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(r->status, DPA_DIFF_NEW);
	CU_ASSERT_EQUAL(r->new_[DPA_DIFF_CALLS], 1);
	CU_ASSERT_TRUE(isnan(dpa_diff_relative(r->old[DPA_DIFF_CALLS], r->new_[DPA_DIFF_CALLS])));

	/* contexts: g under f and g under main stay apart */
	r = ctx_named(&d, "0x1100 in prog > 0x1200 in prog > 0x1300 in prog");
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(r->status, DPA_DIFF_CHANGED);
	CU_ASSERT_EQUAL(r->old[DPA_DIFF_CALLS], 4);
	CU_ASSERT_EQUAL(r->new_[DPA_DIFF_CALLS], 1);
	r = ctx_named(&d, "0x1100 in prog > 0x1300 in prog");
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(r->status, DPA_DIFF_GONE);
	CU_ASSERT_EQUAL(r->old[DPA_DIFF_CALLS], 3);
	CU_ASSERT_EQUAL(r->new_[DPA_DIFF_CALLS], 0);
	r = ctx_named(&d, "0x1100 in prog > 0x1400 in prog");
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(r->status, DPA_DIFF_NEW);
	r = ctx_named(&d, "0x1100 in prog");
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(r->status, DPA_DIFF_SAME);

	/* order by |delta calls|: g (6), f (3), h (1), main (0) */
	dpa_diff_sort(&d, DPA_DIFF_CALLS);
	CU_ASSERT_EQUAL(dpa_ps_offset(&d.m.prof, d.procs[0].id), G);
	CU_ASSERT_EQUAL(dpa_ps_offset(&d.m.prof, d.procs[1].id), F);
	CU_ASSERT_EQUAL(dpa_ps_offset(&d.m.prof, d.procs[2].id), H);
	CU_ASSERT_EQUAL(dpa_ps_offset(&d.m.prof, d.procs[3].id), MAIN);
	/* contexts: main>f>g (3), main>f (3, new 5 > 1), main>g (3, new 0) ... */
	{
		char *s0 = dpa_diff_context_name(&d, d.ctx[0].id);
		char *s2 = dpa_diff_context_name(&d, d.ctx[2].id);
		CU_ASSERT_STRING_EQUAL(s0, "0x1100 in prog > 0x1200 in prog");
		CU_ASSERT_STRING_EQUAL(s2, "0x1100 in prog > 0x1300 in prog");
		free(s0);
		free(s2);
	}
	dpa_diff_release(&d);
	dpa_diff_release(&d);       /* released twice: nothing */
}

static void test_diff_json(void)
{
	struct dpa_profile o, n;
	struct dpa_diff d;
	struct dpa_error err = { { 0 } };
	json_t *doc, *p0, *c;

	read_both(&o, &n);
	CU_ASSERT_EQUAL_FATAL(dpa_diff_init(&d, &o, &n, false, &err), 0);
	dpa_diff_sort(&d, DPA_DIFF_CALLS);
	doc = dpa_diff_json(&d, DPA_DIFF_CALLS, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(doc, "format")), "deepprof-diff");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(doc, "version")), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(doc, "sort")), "calls");
	CU_ASSERT_EQUAL(json_array_size(json_object_get(doc, "procedures")), 2);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(doc, "contexts")), 2);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(doc, "n_procedures")), 4);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(doc, "n_contexts")), 5);
	p0 = json_array_get(json_object_get(doc, "procedures"), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p0, "name")), "0x1300 in prog");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p0, "status")), "changed");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(p0, "delta"), "calls")), -6);
	CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(json_object_get(p0, "relative"), "calls")),
			       -6.0 / 7, 1e-12);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(p0, "old_inherited"), "calls")), 7);
	c = json_array_get(json_object_get(doc, "contexts"), 0);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(c, "path")), 2);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(c, "thread")), 1);
	json_decref(doc);
	/* unlimited: every row; a new procedure's relative change is null */
	doc = dpa_diff_json(&d, DPA_DIFF_CALLS, 0);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(doc, "procedures")), 4);
	p0 = json_array_get(json_object_get(doc, "procedures"), 2);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p0, "status")), "new");
	CU_ASSERT_TRUE(json_is_null(json_object_get(json_object_get(p0, "relative"), "calls")));
	json_decref(doc);
	dpa_diff_release(&d);
	dpa_profile_release(&o);
	dpa_profile_release(&n);
}

static void test_diff_names_and_refusals(void)
{
	struct dpa_profile o, n;
	struct dpa_diff d;
	struct dpa_error err = { { 0 } };
	char *prog;

	CU_ASSERT_EQUAL(dpa_diff_measure_parse("time"), DPA_DIFF_TIME);
	CU_ASSERT_EQUAL(dpa_diff_measure_parse("time_ns"), DPA_DIFF_TIME);
	CU_ASSERT_EQUAL(dpa_diff_measure_parse("bytes"), DPA_DIFF_BYTES);
	CU_ASSERT_EQUAL(dpa_diff_measure_parse("speed"), -1);
	CU_ASSERT_STRING_EQUAL(dpa_diff_status_name(DPA_DIFF_GONE), "gone");
	CU_ASSERT_EQUAL(dpa_diff_delta(0, UINT64_MAX), INT64_MAX);
	CU_ASSERT_EQUAL(dpa_diff_delta(UINT64_MAX, 0), -INT64_MAX);

	read_both(&o, &n);
	prog = n.hdr.program;
	n.hdr.program = (char *)"/bin/other";
	CU_ASSERT_EQUAL(dpa_diff_init(&d, &o, &n, false, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, old_path));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, new_path));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "different programs"));
	CU_ASSERT_EQUAL(dpa_diff_init(&d, &o, &n, true, &err), 0);
	CU_ASSERT_STRING_EQUAL(d.program[1], "/bin/other");
	dpa_diff_release(&d);
	n.hdr.program = prog;
	/* a profile against itself: everything the same */
	CU_ASSERT_EQUAL_FATAL(dpa_diff_init(&d, &o, &o, false, &err), 0);
	for (uint32_t r = 0; r < d.n_procs; r++)
		CU_ASSERT_EQUAL(d.procs[r].status, DPA_DIFF_SAME);
	for (uint32_t r = 0; r < d.n_ctx; r++)
		CU_ASSERT_EQUAL(d.ctx[r].status, DPA_DIFF_SAME);
	CU_ASSERT_EQUAL(d.n_ctx, 4);
	dpa_diff_release(&d);
	dpa_profile_release(&o);
	dpa_profile_release(&n);
}

DPA_TEST_SUITE_FIXTURE(diff, NULL, diff_cleanup,
	DPA_TEST(test_diff_rows),
	DPA_TEST(test_diff_json),
	DPA_TEST(test_diff_names_and_refusals));
