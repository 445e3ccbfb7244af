/*
 * test_csd_columns.c — the csd measure columns (analyses/csd_columns.c):
 * widths chosen from the data, zero and derived measures stored in no
 * bytes, values unchanged by widening, packing and later sets, and the same
 * through a write and a read of a Deep.data file; and the large arrays'
 * request for transparent huge pages (dpa_huge).
 * Part of deepprof's tests. MIT licence.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "gen.h"
#include "profile.h"
#include "unit.h"
#include "write_profile.h"

/* exported by test_merge.c: a small profile builder */
struct tmb;
struct tmb *tmb_new(const char *path, const char *arg);
void tmb_free(struct tmb *b);
struct dpa_profile *tmb_prof(struct tmb *b);
uint32_t tmb_thread(struct tmb *b, uint64_t tid);
uint32_t tmb_call(struct tmb *b, uint32_t caller, uint64_t site, uint64_t callee_off,
		  uint32_t callee, uint64_t calls);
void tmb_finish(struct tmb *b);

#define N 1000

/* A deterministic value stream (xorshift). */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Every measure of csds 0..n equals want[csd][m] (csd 0: all zero). */
static void expect_values(const struct dpa_profile *p, uint32_t n, uint64_t (*want)[DPA_NMEASURES])
{
	uint32_t bad = 0;

	for (uint32_t x = 0; x <= n; x++)
		for (int m = 0; m < DPA_NMEASURES; m++)
			if (dpa_own(p, x, m) != (x ? want[x][m] : 0))
				bad++;
	CU_ASSERT_EQUAL(bad, 0);
}

static void test_widen(void)
{
	struct dpa_profile p;

	memset(&p, 0, sizeof(p));
	CU_ASSERT_FATAL(dpa_csd_reserve(&p, 100) == 0);
	CU_ASSERT(p.csd_cap >= 101);
	CU_ASSERT_EQUAL(p.col[DPA_CALLS].kind, DPA_COL_ZERO);
	CU_ASSERT_EQUAL(dpa_csd_set(&p, 5, DPA_CALLS, 0), 0);
	CU_ASSERT_EQUAL(p.col[DPA_CALLS].kind, DPA_COL_ZERO);      /* 0 needs no column */
	CU_ASSERT_EQUAL(dpa_csd_set(&p, 5, DPA_CALLS, 200), 0);
	CU_ASSERT_EQUAL(p.col[DPA_CALLS].kind, DPA_COL_U8);
	CU_ASSERT_EQUAL(dpa_csd_set(&p, 6, DPA_CALLS, 256), 0);
	CU_ASSERT_EQUAL(p.col[DPA_CALLS].kind, DPA_COL_U16);
	CU_ASSERT_EQUAL(dpa_csd_set(&p, 7, DPA_CALLS, 70000), 0);
	CU_ASSERT_EQUAL(p.col[DPA_CALLS].kind, DPA_COL_U32);
	CU_ASSERT_EQUAL(dpa_csd_set(&p, 100, DPA_CALLS, (uint64_t)1 << 40), 0);
	CU_ASSERT_EQUAL(p.col[DPA_CALLS].kind, DPA_COL_U64);
	CU_ASSERT_EQUAL(dpa_own(&p, 5, DPA_CALLS), 200);
	CU_ASSERT_EQUAL(dpa_own(&p, 6, DPA_CALLS), 256);
	CU_ASSERT_EQUAL(dpa_own(&p, 7, DPA_CALLS), 70000);
	CU_ASSERT_EQUAL(dpa_own(&p, 100, DPA_CALLS), (uint64_t)1 << 40);
	CU_ASSERT_EQUAL(dpa_own(&p, 99, DPA_CALLS), 0);
	CU_ASSERT_EQUAL(dpa_own(&p, 5, DPA_TICKS), 0);
	/* growing keeps the values and zeroes the new csds */
	CU_ASSERT_FATAL(dpa_csd_reserve(&p, 5000) == 0);
	CU_ASSERT_EQUAL(dpa_own(&p, 7, DPA_CALLS), 70000);
	CU_ASSERT_EQUAL(dpa_own(&p, 4999, DPA_CALLS), 0);
	CU_ASSERT_EQUAL(dpa_csd_add(&p, 7, DPA_CALLS, 5), 0);
	CU_ASSERT_EQUAL(dpa_own(&p, 7, DPA_CALLS), 70005);
	/* packing narrows to what the values need */
	p.n_csd = 99;
	dpa_csd_pack(&p);
	CU_ASSERT_EQUAL(p.csd_cap, 100);
	CU_ASSERT_EQUAL(p.col[DPA_CALLS].kind, DPA_COL_U32);
	CU_ASSERT_EQUAL(dpa_own(&p, 7, DPA_CALLS), 70005);
	CU_ASSERT_EQUAL(dpa_csd_bytes(&p), 100 * (12 + 4));
	dpa_csd_release(&p);
	CU_ASSERT_PTR_NULL(p.csd);
	CU_ASSERT_EQUAL(p.csd_cap, 0);
}

/* Fill csds 1..N like a final "calls"-clock profile; nonlocal on every
 * 7th csd when `nonlocal`. */
static void fill(struct dpa_profile *p, uint64_t (*want)[DPA_NMEASURES], bool nonlocal)
{
	uint64_t s = 88172645463325252ull;

	memset(p, 0, sizeof(*p));
	CU_ASSERT_FATAL(dpa_csd_reserve(p, N) == 0);
	for (uint32_t x = 1; x <= N; x++) {
		uint64_t *v = want[x], r = next(&s);

		v[DPA_CALLS] = 1 + r % 1000;
		v[DPA_NONLOCAL] = nonlocal && x % 7 == 0 ? r % 3 : 0;
		v[DPA_EXITS] = v[DPA_CALLS] - v[DPA_NONLOCAL];
		v[DPA_CSCS] = v[DPA_CALLS];
		v[DPA_TICKS] = (r >> 10) % 8;
		v[DPA_ALLOCS] = 0;
		v[DPA_BYTES] = x == N ? (uint64_t)1 << 33 : (r >> 16) % 100;
		for (int m = 0; m < DPA_NMEASURES; m++)
			CU_ASSERT_EQUAL(dpa_csd_set(p, x, m, v[m]), 0);
	}
	p->n_csd = N;
}

static void test_pack(void)
{
	static uint64_t want[N + 1][DPA_NMEASURES];
	struct dpa_profile p;

	fill(&p, want, false);
	expect_values(&p, N, want);
	dpa_csd_pack(&p);
	CU_ASSERT_EQUAL(p.col[DPA_CALLS].kind, DPA_COL_U16);
	CU_ASSERT_EQUAL(p.col[DPA_EXITS].kind, DPA_COL_SAME);
	CU_ASSERT_EQUAL(p.col[DPA_EXITS].a, DPA_CALLS);
	CU_ASSERT_EQUAL(p.col[DPA_NONLOCAL].kind, DPA_COL_ZERO);
	CU_ASSERT_EQUAL(p.col[DPA_CSCS].kind, DPA_COL_SAME);
	CU_ASSERT_EQUAL(p.col[DPA_CSCS].a, DPA_CALLS);
	CU_ASSERT_EQUAL(p.col[DPA_TICKS].kind, DPA_COL_U8);
	CU_ASSERT_EQUAL(p.col[DPA_ALLOCS].kind, DPA_COL_ZERO);
	CU_ASSERT_EQUAL(p.col[DPA_BYTES].kind, DPA_COL_U64);
	CU_ASSERT_PTR_NULL(p.col[DPA_CSCS].v);
	CU_ASSERT_EQUAL(dpa_csd_bytes(&p), (N + 1) * (12 + 2 + 1 + 8));
	expect_values(&p, N, want);

	/* a set that breaks a relation stores the measure; what was derived
	 * from the changed one keeps its values */
	CU_ASSERT_EQUAL(dpa_csd_set(&p, 3, DPA_CSCS, want[3][DPA_CALLS] + 1), 0);
	want[3][DPA_CSCS]++;
	CU_ASSERT_EQUAL(p.col[DPA_CSCS].kind, DPA_COL_U16);
	CU_ASSERT_EQUAL(p.col[DPA_EXITS].kind, DPA_COL_SAME);
	expect_values(&p, N, want);
	CU_ASSERT_EQUAL(dpa_csd_set(&p, 4, DPA_CALLS, 100000), 0);
	want[4][DPA_CALLS] = 100000;
	CU_ASSERT_EQUAL(p.col[DPA_CALLS].kind, DPA_COL_U32);
	CU_ASSERT_EQUAL(p.col[DPA_EXITS].kind, DPA_COL_U16);        /* stored before the change */
	CU_ASSERT_EQUAL(dpa_csd_set(&p, 9, DPA_ALLOCS, 2), 0);
	want[9][DPA_ALLOCS] = 2;
	CU_ASSERT_EQUAL(p.col[DPA_ALLOCS].kind, DPA_COL_U8);
	expect_values(&p, N, want);
	/* packing again finds nothing shared but keeps every value */
	dpa_csd_pack(&p);
	CU_ASSERT_EQUAL(p.col[DPA_CALLS].kind, DPA_COL_U32);
	CU_ASSERT_EQUAL(p.col[DPA_CSCS].kind, DPA_COL_U16);
	CU_ASSERT_EQUAL(p.col[DPA_EXITS].kind, DPA_COL_U16);
	expect_values(&p, N, want);
	dpa_csd_release(&p);
}

static void test_diff(void)
{
	static uint64_t want[N + 1][DPA_NMEASURES];
	struct dpa_profile p;

	fill(&p, want, true);
	dpa_csd_pack(&p);
	CU_ASSERT_EQUAL(p.col[DPA_CALLS].kind, DPA_COL_U16);
	CU_ASSERT_EQUAL(p.col[DPA_NONLOCAL].kind, DPA_COL_U8);
	CU_ASSERT_EQUAL(p.col[DPA_EXITS].kind, DPA_COL_DIFF);
	CU_ASSERT_EQUAL(p.col[DPA_EXITS].a, DPA_CALLS);
	CU_ASSERT_EQUAL(p.col[DPA_EXITS].b, DPA_NONLOCAL);
	CU_ASSERT_EQUAL(p.col[DPA_CSCS].kind, DPA_COL_SAME);
	expect_values(&p, N, want);
	/* changing nonlocal_exits leaves exits as it was */
	CU_ASSERT_EQUAL(dpa_csd_set(&p, 14, DPA_NONLOCAL, want[14][DPA_NONLOCAL] + 1), 0);
	want[14][DPA_NONLOCAL]++;
	CU_ASSERT_EQUAL(p.col[DPA_EXITS].kind, DPA_COL_U16);
	expect_values(&p, N, want);
	dpa_csd_release(&p);
}

/*
 * dpa_csd_derive() + dpa_csd_append() (the reader's path): derived measures
 * take no memory while the csds follow them, even when the measure they
 * read widens; the first csd that does not makes that one measure stored,
 * with every value kept.
 */
static void test_derive(void)
{
	static uint64_t want[N + 1][DPA_NMEASURES];
	struct dpa_profile p;
	uint64_t s = 1234567;

	memset(&p, 0, sizeof(p));
	dpa_csd_derive(&p, DPA_CSCS, DPA_COL_SAME, DPA_CALLS, 0);
	dpa_csd_derive(&p, DPA_EXITS, DPA_COL_DIFF, DPA_CALLS, DPA_NONLOCAL);
	dpa_csd_derive(&p, DPA_TICKS, DPA_COL_SAME, DPA_TICKS, 0);     /* itself: refused */
	CU_ASSERT_EQUAL(p.col[DPA_CSCS].kind, DPA_COL_SAME);
	CU_ASSERT_EQUAL(p.col[DPA_EXITS].kind, DPA_COL_DIFF);
	CU_ASSERT_EQUAL(p.col[DPA_TICKS].kind, DPA_COL_ZERO);
	for (uint32_t x = 1; x <= N; x++) {
		uint64_t *v = want[x], r = next(&s);
		struct dpa_csd c = { .css = x, .caller_pd = 1, .callee_pd = x + 1 };

		v[DPA_CALLS] = x == 300 ? 70000 : 1 + r % 200;
		v[DPA_NONLOCAL] = x >= 700 && x % 5 == 0 ? 1 : 0;
		v[DPA_EXITS] = v[DPA_CALLS] - v[DPA_NONLOCAL] + (x == 800);
		v[DPA_CSCS] = v[DPA_CALLS] + (x == 500);
		v[DPA_TICKS] = r % 4;
		v[DPA_ALLOCS] = 0;
		v[DPA_BYTES] = x == 600 ? (uint64_t)1 << 40 : r % 300;
		/* csd 900 comes before 899: not the next id, the general path */
		if (x == 899)
			continue;
		CU_ASSERT_EQUAL_FATAL(dpa_csd_append(&p, x, &c, v), 0);
		if (x == 900)
			CU_ASSERT_EQUAL_FATAL(dpa_csd_append(&p, 899, &(struct dpa_csd){
				.css = 899, .caller_pd = 1, .callee_pd = 900 }, want[899]), 0);
		if (x == 499) {
			/* calls widened to 32 bits at 300: the derived kept */
			CU_ASSERT_EQUAL(p.col[DPA_CALLS].kind, DPA_COL_U32);
			CU_ASSERT_EQUAL(p.col[DPA_CSCS].kind, DPA_COL_SAME);
			CU_ASSERT_EQUAL(p.col[DPA_EXITS].kind, DPA_COL_DIFF);
			CU_ASSERT_PTR_NULL(p.col[DPA_CSCS].v);
			CU_ASSERT_PTR_NULL(p.col[DPA_EXITS].v);
		}
		if (x == 500)
			CU_ASSERT_EQUAL(p.col[DPA_CSCS].kind, DPA_COL_U32);
		if (x == 799) {
			CU_ASSERT_EQUAL(p.col[DPA_NONLOCAL].kind, DPA_COL_U8);
			CU_ASSERT_EQUAL(p.col[DPA_EXITS].kind, DPA_COL_DIFF);
		}
		if (x == 800)
			CU_ASSERT_EQUAL(p.col[DPA_EXITS].kind, DPA_COL_U32);
	}
	p.n_csd = N;
	expect_values(&p, N, want);
	CU_ASSERT_EQUAL(p.csd[899].callee_pd, 900);
	CU_ASSERT_EQUAL(p.csd[900].callee_pd, 901);
	/* too late once csds exist */
	dpa_csd_derive(&p, DPA_ALLOCS, DPA_COL_SAME, DPA_CALLS, 0);
	CU_ASSERT_EQUAL(p.col[DPA_ALLOCS].kind, DPA_COL_ZERO);
	dpa_csd_pack(&p);
	expect_values(&p, N, want);
	dpa_csd_release(&p);
}

/* Big values survive a write and a read; the reader packs. */
static void test_write_read(void)
{
	struct tmb *b = tmb_new("cols.dp", NULL);
	struct dpa_profile *p = tmb_prof(b), q;
	struct dpa_error err;
	const char *path = dpa_test_path("cols.dp");
	uint32_t root = tmb_thread(b, 1), main_pd, f;

	main_pd = tmb_call(b, root, 0x10, 0x1000, 0, 1);
	f = tmb_call(b, main_pd, 0x1010, 0x2000, 0, 3);
	tmb_call(b, f, 0x2010, 0x3000, 0, 5);
	CU_ASSERT_EQUAL(dpa_csd_set(p, 2, DPA_TICKS, UINT64_MAX), 0);
	CU_ASSERT_EQUAL(dpa_csd_set(p, 3, DPA_BYTES, (uint64_t)1 << 32), 0);
	tmb_finish(b);
	CU_ASSERT_EQUAL(p->n_csd, 3);
	CU_ASSERT_EQUAL_FATAL(dpa_profile_write(p, path, &err), 0);
	CU_ASSERT_EQUAL_FATAL(dpa_profile_read(&q, path, &err), 0);
	CU_ASSERT_EQUAL(q.n_csd, 3);
	for (uint32_t x = 0; x <= 3; x++)
		for (int m = 0; m < DPA_NMEASURES; m++)
			CU_ASSERT_EQUAL(dpa_own(&q, x, m), dpa_own(p, x, m));
	CU_ASSERT_EQUAL(dpa_own(&q, 2, DPA_TICKS), UINT64_MAX);
	CU_ASSERT_EQUAL(dpa_own(&q, 3, DPA_BYTES), (uint64_t)1 << 32);
	CU_ASSERT_EQUAL(dpa_own(&q, 3, DPA_CALLS), 5);
	CU_ASSERT_EQUAL(q.col[DPA_TICKS].kind, DPA_COL_U64);
	CU_ASSERT_EQUAL(q.col[DPA_BYTES].kind, DPA_COL_U64);
	CU_ASSERT_EQUAL(q.col[DPA_CALLS].kind, DPA_COL_U8);
	CU_ASSERT_EQUAL(q.col[DPA_CSCS].kind, DPA_COL_SAME);
	CU_ASSERT_EQUAL(q.csd_cap, 4);
	dpa_profile_release(&q);
	tmb_free(b);
}

/* A dp-gen tree: calls 1..1000 (2 bytes), exits and cscs the same (none),
 * nonlocal none, ticks, allocs, bytes one byte each: 17 bytes a csd. */
static void test_read_gen(void)
{
	struct dpg_opts o = { .shape = DPG_TREE, .csds = 20000, .seed = 3 };
	struct dpg_stats st;
	struct dpa_profile p;
	struct dpa_error err;
	const char *path = dpa_test_path("cols-tree.dp");
	char msg[256];
	uint64_t calls = 0, bytes = 0;

	CU_ASSERT_EQUAL_FATAL(dpg_write_file(&o, path, &st, msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL_FATAL(dpa_profile_read(&p, path, &err), 0);
	CU_ASSERT_EQUAL(p.col[DPA_CALLS].kind, DPA_COL_U16);
	CU_ASSERT_EQUAL(p.col[DPA_EXITS].kind, DPA_COL_SAME);
	CU_ASSERT_EQUAL(p.col[DPA_NONLOCAL].kind, DPA_COL_ZERO);
	CU_ASSERT_EQUAL(p.col[DPA_CSCS].kind, DPA_COL_SAME);
	CU_ASSERT_EQUAL(p.col[DPA_TICKS].kind, DPA_COL_U8);
	CU_ASSERT_EQUAL(p.col[DPA_ALLOCS].kind, DPA_COL_U8);
	CU_ASSERT_EQUAL(p.col[DPA_BYTES].kind, DPA_COL_U8);
	CU_ASSERT_EQUAL(dpa_csd_bytes(&p), (size_t)(20000 + 1) * 17);
	for (uint32_t x = 1; x <= p.n_csd; x++) {
		calls += dpa_own(&p, x, DPA_CALLS);
		bytes += dpa_own(&p, x, DPA_BYTES);
	}
	CU_ASSERT_EQUAL(calls, st.calls);
	CU_ASSERT_EQUAL(bytes, st.bytes);
	dpa_profile_release(&p);
}

/* The VmFlags of the mapping holding address a (/proc/self/smaps), or "". */
static void vm_flags(const void *a, char *out, size_t n)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false;

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)a >= lo && (uintptr_t)a < hi;
		else if (in && !strncmp(line, "VmFlags:", 8)) {
			snprintf(out, n, "%s", line + 8);
			break;
		}
	}
	fclose(f);
}

/* Large arrays ask for transparent huge pages (dpa_huge), the whole
 * mapping flagged: a block grown by realloc stays one mapping, flagged,
 * and keeps its contents; a small one is left alone. */
static void test_huge(void)
{
	char flags[512];
	size_t big = (size_t)8 << 20;
	unsigned char *a, *b;

	const char *e = getenv("DEEPPROF_HUGEPAGES");

	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0 || (e && !strcmp(e, "0")))
		return;         /* a kernel without THP, or not asked: nothing to see */
	a = dpa_calloc_huge(big, 1);
	CU_ASSERT_FATAL(a != NULL);
	a[0] = 1;
	a[big - 1] = 2;
	vm_flags(a + big / 2, flags, sizeof(flags));
	CU_ASSERT_PTR_NOT_NULL(strstr(flags, " hg"));
	a = dpa_realloc_huge(a, 4 * big);
	CU_ASSERT_FATAL(a != NULL);
	CU_ASSERT(a[0] == 1 && a[big - 1] == 2);
	vm_flags(a + 3 * big, flags, sizeof(flags));
	CU_ASSERT_PTR_NOT_NULL(strstr(flags, " hg"));
	vm_flags(a, flags, sizeof(flags));
	CU_ASSERT_PTR_NOT_NULL(strstr(flags, " hg"));   /* the block's first page too: one mapping */
	b = dpa_malloc_huge(4096);
	CU_ASSERT_FATAL(b != NULL);
	vm_flags(b, flags, sizeof(flags));
	CU_ASSERT_PTR_NULL(strstr(flags, " hg"));
	free(b);
	free(a);
}

DPA_TEST_SUITE(csd_columns, DPA_TEST(test_widen), DPA_TEST(test_pack), DPA_TEST(test_diff),
	       DPA_TEST(test_derive), DPA_TEST(test_write_read), DPA_TEST(test_read_gen),
	       DPA_TEST(test_huge));
