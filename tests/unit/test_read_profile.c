/*
 * test_read_profile.c — dpa_profile_read() on generated Deep.data files:
 * exact counts, ids, call lists (CSR) and threads for every shape; every
 * invariant violation rejected with its message; truncation at every byte.
 * Part of deepprof's tests. MIT licence.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <msgpack.h>

#include "gen.h"
#include "build_profile.h"
#include "profile.h"
#include "unit.h"
#include "write_profile.h"

/* ---- helpers ---- */

/* Generate into the scratch dir; returns the path (static buffer). */
static const char *gen(const char *name, enum dpg_shape shape, uint64_t csds, uint32_t threads,
		       enum dpg_corrupt corrupt, struct dpg_stats *st)
{
	static char path[4096 + 256];
	struct dpg_opts o = { .shape = shape, .csds = csds, .threads = threads, .seed = 7,
			      .corrupt = corrupt };
	char err[512];

	snprintf(path, sizeof(path), "%s", dpa_test_path(name));
	if (dpg_write_file(&o, path, st, err, sizeof(err)) < 0) {
		fprintf(stderr, "dpg_write_file: %s\n", err);
		CU_FAIL_FATAL("cannot generate a test file");
	}
	return path;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n + 1);
	if (buf && fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

static void spill(const char *path, const char *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(fwrite(buf, 1, len, f) == len);
	fclose(f);
}

/* Offsets where each top-level MessagePack object starts, plus the file size
 * as the last entry; returns how many objects. */
static size_t object_offsets(const char *buf, size_t len, size_t *offs, size_t max)
{
	msgpack_unpacked u;
	size_t off = 0, n = 0;

	msgpack_unpacked_init(&u);
	while (n < max - 1 && off < len) {
		offs[n++] = off;
		if (msgpack_unpack_next(&u, buf, len, &off) != MSGPACK_UNPACK_SUCCESS)
			break;
	}
	offs[n] = off;
	msgpack_unpacked_destroy(&u);
	return n;
}

/* Read `path` expecting failure with exactly "<path>: <msg>". */
static void expect_error(const char *path, const char *msg)
{
	struct dpa_profile p;
	struct dpa_error err;
	char want[1024];

	snprintf(want, sizeof(want), "%s: %s", path, msg);
	CU_ASSERT_EQUAL(dpa_profile_read(&p, path, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	if (strcmp(err.msg, want))
		fprintf(stderr, "\n  got:  %s\n  want: %s\n", err.msg, want);
	/* on failure nothing is left to release */
	CU_ASSERT_PTR_NULL(p.csd);
	CU_ASSERT_PTR_NULL(p.strings);
}

/* Read `path` expecting failure with a message starting "<path>: <prefix>". */
static void expect_error_prefix(const char *path, const char *prefix)
{
	struct dpa_profile p;
	struct dpa_error err;
	char want[1024];

	snprintf(want, sizeof(want), "%s: %s", path, prefix);
	CU_ASSERT_EQUAL(dpa_profile_read(&p, path, &err), -1);
	CU_ASSERT(strncmp(err.msg, want, strlen(want)) == 0);
	if (strncmp(err.msg, want, strlen(want)))
		fprintf(stderr, "\n  got:  %s\n  want: %s...\n", err.msg, want);
	CU_ASSERT(strchr(err.msg, '\n') == NULL);
}

static int read_ok(struct dpa_profile *p, const char *path)
{
	struct dpa_error err;
	int rc = dpa_profile_read(p, path, &err);

	if (rc < 0)
		fprintf(stderr, "\n  unexpected: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return rc;
}

/* ---- valid files ---- */

static void test_chain_exact(void)
{
	struct dpa_profile p;
	struct dpg_stats st;
	const char *path = gen("chain.dp", DPG_CHAIN, 5, 1, DPG_OK, &st);

	read_ok(&p, path);
	CU_ASSERT_EQUAL(p.n_module, 1);
	CU_ASSERT_EQUAL(p.n_ps, 6);
	CU_ASSERT_EQUAL(p.n_css, 5);
	CU_ASSERT_EQUAL(p.n_pd, 6);
	CU_ASSERT_EQUAL(p.n_csd, 5);
	CU_ASSERT_EQUAL(p.n_thread, 1);
	CU_ASSERT_STRING_EQUAL(p.path, path);
	/* header */
	CU_ASSERT_EQUAL(p.hdr.version, 1);
	CU_ASSERT_EQUAL(p.hdr.min_version, 1);
	CU_ASSERT_EQUAL(p.hdr.pid, 4242);
	CU_ASSERT_EQUAL(p.hdr.ppid, 4241);
	CU_ASSERT_EQUAL(p.hdr.argc, 2);
	CU_ASSERT_STRING_EQUAL(p.hdr.argv[1], "--generated");
	CU_ASSERT_STRING_EQUAL(p.hdr.clock, "calls");
	CU_ASSERT(p.hdr.final);
	CU_ASSERT_DOUBLE_EQUAL(p.hdr.ns_per_tick, 4000000.0, 1e-9);
	CU_ASSERT_EQUAL(p.hdr.calls, st.calls);
	/* the module and ps 1 */
	CU_ASSERT_STRING_EQUAL(p.module[1].path, "/nonexistent/dp-gen-program");
	CU_ASSERT_EQUAL(p.module[1].base, 0x555555554000ull);
	CU_ASSERT_EQUAL(p.module[1].size, 0x10000);
	CU_ASSERT_PTR_NULL(p.module[1].build_id);
	CU_ASSERT_STRING_EQUAL(dpa_src_str(&p, DPA_PS_NAME, 1), "<root>");
	CU_ASSERT_EQUAL(p.ps[1].module, 0);
	CU_ASSERT_EQUAL(dpa_ps_offset(&p, 3), 0x1030);
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_PS_NAME, 3), 0);
	CU_ASSERT_EQUAL(p.css[1].kind, DPA_CSS_DYNAMIC);
	CU_ASSERT_EQUAL(p.css[2].kind, DPA_CSS_NORMAL);
	CU_ASSERT_EQUAL(p.css[2].caller_ps, 2);
	CU_ASSERT_EQUAL(p.css[2].callee_ps, 3);
	CU_ASSERT_EQUAL(dpa_css_offset(&p, 2), 0x8010);
	/* chain: csd i goes from pd i to pd i+1; pd i is a pd of ps i */
	for (uint32_t i = 1; i <= 5; i++) {
		CU_ASSERT_EQUAL(p.csd[i].css, i);
		CU_ASSERT_EQUAL(p.csd[i].caller_pd, i);
		CU_ASSERT_EQUAL(p.csd[i].callee_pd, i + 1);
		CU_ASSERT_EQUAL(dpa_own(&p, i, DPA_EXITS), dpa_own(&p, i, DPA_CALLS));
		CU_ASSERT_EQUAL(dpa_own(&p, i, DPA_CSCS), dpa_own(&p, i, DPA_CALLS));
		CU_ASSERT_EQUAL(dpa_own(&p, i, DPA_NONLOCAL), 0);
	}
	CU_ASSERT_EQUAL(dpa_own(&p, 1, DPA_CALLS), 1);  /* root -> main */
	for (uint32_t i = 1; i <= 6; i++) {
		CU_ASSERT_EQUAL(p.pd[i].ps, i);
		CU_ASSERT_EQUAL(dpa_pd_thread(&p, i), 1);
		CU_ASSERT_EQUAL(dpa_pd_out_n(&p.pd[i]), i < 6);
		CU_ASSERT_EQUAL(dpa_pd_in_n(&p.pd[i]), i > 1);
		if (i < 6)
			CU_ASSERT_EQUAL(dpa_out_csd(&p, p.pd[i].out_first), i);
		if (i > 1)
			CU_ASSERT_EQUAL(dpa_in_csd(&p, p.pd[i].in_first), i - 1);
	}
	/* csd ids already follow caller and callee order: neither list is stored */
	CU_ASSERT_PTR_NULL(p.out_perm);
	CU_ASSERT_PTR_NULL(p.in_perm);
	/* the sentinel after pd 6 ends both lists at the 5 csds; pd 0 has none */
	CU_ASSERT_EQUAL(p.pd[7].out_first, 5);
	CU_ASSERT_EQUAL(p.pd[7].in_first, 5);
	CU_ASSERT_EQUAL(dpa_pd_out_n(&p.pd[0]), 0);
	CU_ASSERT_EQUAL(dpa_pd_in_n(&p.pd[0]), 0);
	CU_ASSERT_EQUAL(p.thread[1].root_pd, 1);
	CU_ASSERT_EQUAL(p.thread[1].tid, 4242);
	CU_ASSERT_FALSE(p.thread[1].exited);
	dpa_profile_release(&p);
	CU_ASSERT_PTR_NULL(p.csd);
	CU_ASSERT_EQUAL(p.n_csd, 0);
	dpa_profile_release(&p);        /* a zeroed profile: nothing happens */
}

static void test_measure_totals(void)
{
	struct dpa_profile p;
	struct dpg_stats st;
	uint64_t sum[DPA_NMEASURES] = { 0 };

	read_ok(&p, gen("totals.dp", DPG_TREE, 1000, 3, DPG_OK, &st));
	for (uint32_t i = 1; i <= p.n_csd; i++)
		for (int m = 0; m < DPA_NMEASURES; m++)
			sum[m] += dpa_own(&p, i, m);
	CU_ASSERT_EQUAL(sum[DPA_CALLS], st.calls);
	CU_ASSERT_EQUAL(sum[DPA_CSCS], st.cscs);
	CU_ASSERT_EQUAL(sum[DPA_TICKS], st.ticks);
	CU_ASSERT_EQUAL(sum[DPA_ALLOCS], st.allocs);
	CU_ASSERT_EQUAL(sum[DPA_BYTES], st.bytes);
	CU_ASSERT_EQUAL(p.hdr.calls, st.calls);
	CU_ASSERT_EQUAL(p.hdr.cscs, st.cscs);
	CU_ASSERT_EQUAL(p.hdr.allocs, st.allocs + 2);
	dpa_profile_release(&p);
}

static void test_tree_csr(void)
{
	struct dpa_profile p;
	static const uint32_t main_out[] = { 2, 3, 4, 5 };
	static const uint32_t pd3_out[] = { 6, 7, 8, 9 };

	read_ok(&p, gen("tree.dp", DPG_TREE, 10, 1, DPG_OK, NULL));
	CU_ASSERT_EQUAL(p.n_pd, 11);
	CU_ASSERT_EQUAL(p.n_ps, 11);    /* 2 + min(9, 16) */
	CU_ASSERT_EQUAL(p.n_css, 41);   /* 1 + 4 * 10 */
	/* main (pd 2) calls pds 3..6 through csds 2..5; pd 3 calls 7..10 */
	CU_ASSERT_EQUAL_FATAL(dpa_pd_out_n(&p.pd[2]), 4);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(dpa_out_csd(&p, p.pd[2].out_first + i), main_out[i]);
		CU_ASSERT_EQUAL(p.csd[main_out[i]].callee_pd, 3 + i);
	}
	CU_ASSERT_EQUAL_FATAL(dpa_pd_out_n(&p.pd[3]), 4);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(dpa_out_csd(&p, p.pd[3].out_first + i), pd3_out[i]);
	CU_ASSERT_EQUAL(dpa_pd_out_n(&p.pd[4]), 1);      /* pd 4 calls pd 11 */
	CU_ASSERT_EQUAL(dpa_out_csd(&p, p.pd[4].out_first), 10);
	CU_ASSERT_EQUAL(dpa_pd_in_n(&p.pd[11]), 1);
	CU_ASSERT_EQUAL(dpa_in_csd(&p, p.pd[11].in_first), 10);
	CU_ASSERT_EQUAL(dpa_pd_out_n(&p.pd[11]), 0);
	/* every csd appears once in each list */
	{
		uint32_t seen_out = 0, seen_in = 0;

		for (uint32_t i = 1; i <= p.n_pd; i++) {
			for (uint32_t k = 0; k < dpa_pd_out_n(&p.pd[i]); k++)
				CU_ASSERT_EQUAL(p.csd[dpa_out_csd(&p, p.pd[i].out_first + k)].caller_pd, i);
			for (uint32_t k = 0; k < dpa_pd_in_n(&p.pd[i]); k++)
				CU_ASSERT_EQUAL(p.csd[dpa_in_csd(&p, p.pd[i].in_first + k)].callee_pd, i);
			seen_out += dpa_pd_out_n(&p.pd[i]);
			seen_in += dpa_pd_in_n(&p.pd[i]);
		}
		CU_ASSERT_EQUAL(seen_out, 10);
		CU_ASSERT_EQUAL(seen_in, 10);
	}
	/* the css of a tree edge: caller ps of main is 2, slot 0..3 */
	CU_ASSERT_EQUAL(p.csd[2].css, 2);
	CU_ASSERT_EQUAL(p.css[2].caller_ps, 2);
	CU_ASSERT_EQUAL(p.css[2].callee_ps, 3);
	dpa_profile_release(&p);
}

static void test_recursive_and_mutual(void)
{
	struct dpa_profile p;

	/* recursive, 6 csds: root->main, main->r1, r1->r1, main->r2, r2->r2, main->r3 */
	read_ok(&p, gen("rec.dp", DPG_RECURSIVE, 6, 1, DPG_OK, NULL));
	CU_ASSERT_EQUAL(p.n_ps, 5);
	CU_ASSERT_EQUAL(p.n_css, 7);
	CU_ASSERT_EQUAL(p.n_pd, 5);
	CU_ASSERT_EQUAL(p.n_csd, 6);
	CU_ASSERT_EQUAL(p.csd[3].caller_pd, 3);
	CU_ASSERT_EQUAL(p.csd[3].callee_pd, 3);
	CU_ASSERT_EQUAL(dpa_pd_in_n(&p.pd[3]), 2);       /* from main and from itself */
	CU_ASSERT_EQUAL(dpa_pd_out_n(&p.pd[3]), 1);
	CU_ASSERT_EQUAL(dpa_pd_out_n(&p.pd[2]), 3);
	CU_ASSERT_EQUAL(dpa_pd_in_n(&p.pd[5]), 1);
	CU_ASSERT_EQUAL(dpa_pd_out_n(&p.pd[5]), 0);
	/* callers 1 2 3 2 4 2 are out of order, callees 2 3 3 4 4 5 in order:
	 * only the out list is stored */
	CU_ASSERT_PTR_NOT_NULL_FATAL(p.out_perm);
	CU_ASSERT_PTR_NULL(p.in_perm);
	{
		static const uint32_t by_caller[] = { 1, 2, 4, 6, 3, 5 };

		for (uint32_t i = 0; i < 6; i++)
			CU_ASSERT_EQUAL(dpa_out_csd(&p, i), by_caller[i]);
		for (uint32_t i = 0; i < 6; i++)
			CU_ASSERT_EQUAL(dpa_in_csd(&p, i), i + 1);
	}
	dpa_profile_release(&p);

	/* mutual, 7 csds: root->main, main->a1->b1->a1, main->a2->b2->a2 */
	read_ok(&p, gen("mut.dp", DPG_MUTUAL, 7, 1, DPG_OK, NULL));
	CU_ASSERT_EQUAL(p.n_ps, 6);
	CU_ASSERT_EQUAL(p.n_css, 7);
	CU_ASSERT_EQUAL(p.n_pd, 6);
	CU_ASSERT_EQUAL(p.csd[4].caller_pd, 4); /* b1 -> a1 */
	CU_ASSERT_EQUAL(p.csd[4].callee_pd, 3);
	CU_ASSERT_EQUAL(dpa_pd_in_n(&p.pd[3]), 2);
	CU_ASSERT_EQUAL(dpa_in_csd(&p, p.pd[3].in_first), 2);
	CU_ASSERT_EQUAL(dpa_in_csd(&p, p.pd[3].in_first + 1), 4);
	CU_ASSERT_PTR_NOT_NULL(p.in_perm);     /* csd 4 calls back to pd 3 */
	dpa_profile_release(&p);

	/* wide, 5 csds: main calls 4 procedures through one indirect site */
	read_ok(&p, gen("wide.dp", DPG_WIDE, 5, 1, DPG_OK, NULL));
	CU_ASSERT_EQUAL(p.n_css, 2);
	CU_ASSERT_EQUAL(p.css[2].kind, DPA_CSS_INDIRECT);
	CU_ASSERT_EQUAL(p.css[2].callee_ps, 0);
	CU_ASSERT_EQUAL(dpa_pd_out_n(&p.pd[2]), 4);
	for (uint32_t i = 2; i <= 5; i++)
		CU_ASSERT_EQUAL(p.csd[i].css, 2);
	dpa_profile_release(&p);
}

static void test_threads(void)
{
	struct dpa_profile p;

	/* 10 csds over 4 threads: 3, 3, 2, 2 csds -> 4, 4, 3, 3 pds */
	read_ok(&p, gen("threads.dp", DPG_THREADS, 10, 0, DPG_OK, NULL));
	CU_ASSERT_EQUAL_FATAL(p.n_thread, 4);
	CU_ASSERT_EQUAL(p.n_pd, 14);
	CU_ASSERT_EQUAL(p.thread[1].root_pd, 1);
	CU_ASSERT_EQUAL(p.thread[2].root_pd, 5);
	CU_ASSERT_EQUAL(p.thread[3].root_pd, 9);
	CU_ASSERT_EQUAL(p.thread[4].root_pd, 12);
	CU_ASSERT_TRUE(p.thread[2].exited);
	for (uint32_t i = 1; i <= 14; i++) {
		uint32_t want = i <= 4 ? 1 : i <= 8 ? 2 : i <= 11 ? 3 : 4;

		CU_ASSERT_EQUAL(dpa_pd_thread(&p, i), want);
	}
	/* each thread's pds are one range, in thread order: no column */
	CU_ASSERT_PTR_NULL(p.pd_thread);
	CU_ASSERT_EQUAL(p.thread[1].first_pd, 1);
	CU_ASSERT_EQUAL(p.thread[2].first_pd, 5);
	CU_ASSERT_EQUAL(p.thread[3].first_pd, 9);
	CU_ASSERT_EQUAL(p.thread[4].first_pd, 12);
	CU_ASSERT_EQUAL(dpa_pd_thread(&p, 0), 0);
	CU_ASSERT_EQUAL(p.pd[5].ps, 1);
	CU_ASSERT_EQUAL(p.csd[4].caller_pd, 5); /* thread 2's root -> main */
	CU_ASSERT_EQUAL(p.csd[4].callee_pd, 6);
	dpa_profile_release(&p);

	/* more threads than csds: 1, 1, 0 csds; the last thread has only its root */
	read_ok(&p, gen("threads2.dp", DPG_TREE, 2, 3, DPG_OK, NULL));
	CU_ASSERT_EQUAL(p.n_thread, 3);
	CU_ASSERT_EQUAL(p.n_pd, 5);
	CU_ASSERT_EQUAL(p.n_csd, 2);
	CU_ASSERT_EQUAL(p.thread[3].root_pd, 5);
	CU_ASSERT_EQUAL(dpa_pd_thread(&p, 5), 3);
	CU_ASSERT_EQUAL(dpa_pd_out_n(&p.pd[5]), 0);
	dpa_profile_release(&p);
}

/* Write a hand-made profile (dpt_build_profile) and read it back. */
static void built_read(struct dpa_profile *q, const char *name, uint32_t n_pd,
		       const uint32_t *pd_ps, uint32_t n_thread, const uint32_t *roots,
		       const struct dpt_arc *arcs, uint32_t n_arcs)
{
	static const char *const names[] = { "<root>", "main", "f" };
	struct dpa_profile b;
	struct dpa_error err;
	const char *path = dpa_test_path(name);

	dpt_build_profile(&b, n_pd, pd_ps, names, 3, n_thread, roots, arcs, n_arcs, 0, 0);
	CU_ASSERT_EQUAL_FATAL(dpa_profile_write(&b, path, &err), 0);
	dpt_free_profile(&b);
	read_ok(q, path);
}

/* Threads whose pds are not laid out the common way: the reader falls back
 * from its no-memory check to the walks, and still gets every thread. */
static void test_threads_layout(void)
{
	struct dpa_profile p;

	{
		/* thread 1: pds 1-3, pd 2 called only from pd 3 (a larger
		 * id); thread 2: pds 4-5. Ranges still: no column. */
		static const uint32_t pd_ps[] = { 0, 1, 3, 2, 1, 2 }, roots[] = { 1, 4 };
		static const struct dpt_arc arcs[] = {
			{ .caller = 1, .callee = 3, .css = 1, .calls = 1, .cscs = 1 },
			{ .caller = 3, .callee = 2, .css = 2, .calls = 5, .cscs = 5 },
			{ .caller = 4, .callee = 5, .css = 3, .calls = 1, .cscs = 1 },
		};

		built_read(&p, "layout1.dp", 5, pd_ps, 2, roots, arcs, 3);
		for (uint32_t i = 1; i <= 5; i++)
			CU_ASSERT_EQUAL(dpa_pd_thread(&p, i), i <= 3 ? 1 : 2);
		CU_ASSERT_PTR_NULL(p.pd_thread);
		CU_ASSERT_EQUAL(p.thread[2].first_pd, 4);
		dpa_profile_release(&p);
	}
	{
		/* thread 1's root is pd 3 (pds 3-4), thread 2's pd 1 (1-2):
		 * the column is kept */
		static const uint32_t pd_ps[] = { 0, 1, 2, 1, 2 }, roots[] = { 3, 1 };
		static const struct dpt_arc arcs[] = {
			{ .caller = 1, .callee = 2, .css = 1, .calls = 2, .cscs = 2 },
			{ .caller = 3, .callee = 4, .css = 2, .calls = 3, .cscs = 3 },
		};

		built_read(&p, "layout2.dp", 4, pd_ps, 2, roots, arcs, 2);
		CU_ASSERT_PTR_NOT_NULL(p.pd_thread);
		for (uint32_t i = 1; i <= 4; i++)
			CU_ASSERT_EQUAL(dpa_pd_thread(&p, i), i <= 2 ? 2 : 1);
		dpa_profile_release(&p);
	}
}

/* Offsets of 2^32 or more keep all their bits through a write and a read
 * (their high halves are a column of their own, profile.h), and the
 * others stay as they were. */
static void test_wide_offsets(void)
{
	static const char *const names[] = { "<root>", "main", "f" };
	static const uint32_t pd_ps[] = { 0, 1, 2, 3 }, roots[] = { 1 };
	static const struct dpt_arc arcs[] = {
		{ .caller = 1, .callee = 2, .css = 1, .calls = 1, .cscs = 1 },
		{ .caller = 2, .callee = 3, .css = 2, .calls = 2, .cscs = 2 },
	};
	const char *path = dpa_test_path("wide-offsets.dp");
	struct dpa_profile b, p;
	struct dpa_error err;

	dpt_build_profile(&b, 3, pd_ps, names, 3, 1, roots, arcs, 2, 0, 0);
	CU_ASSERT_FATAL(dpa_ps_set_offset(&b, 2, 0x1040) == 0);
	CU_ASSERT_FATAL(dpa_ps_set_offset(&b, 3, 0x7f0012345678ull) == 0);
	CU_ASSERT_FATAL(dpa_css_set_offset(&b, 1, 0xffffffffull) == 0);
	CU_ASSERT_FATAL(dpa_css_set_offset(&b, 2, UINT64_MAX) == 0);
	CU_ASSERT_EQUAL_FATAL(dpa_profile_write(&b, path, &err), 0);
	dpt_free_profile(&b);
	read_ok(&p, path);
	CU_ASSERT_EQUAL(dpa_ps_offset(&p, 1), 0);
	CU_ASSERT_EQUAL(dpa_ps_offset(&p, 2), 0x1040);
	CU_ASSERT_EQUAL(dpa_ps_offset(&p, 3), 0x7f0012345678ull);
	CU_ASSERT_EQUAL(dpa_css_offset(&p, 1), 0xffffffffull);
	CU_ASSERT_EQUAL(dpa_css_offset(&p, 2), UINT64_MAX);
	dpa_profile_release(&p);
}

static void test_large(void)
{
	struct dpa_profile p;
	struct dpg_stats st;

	read_ok(&p, gen("large.dp", DPG_TREE, 300000, 2, DPG_OK, &st));
	CU_ASSERT_EQUAL(p.n_csd, 300000);
	CU_ASSERT_EQUAL(p.n_pd, 300002);
	CU_ASSERT_EQUAL(p.n_csd, st.n_csd);
	CU_ASSERT(st.file_size > 2 * 1024 * 1024);     /* spans several read chunks */
	CU_ASSERT_EQUAL(dpa_pd_thread(&p, 300002), 2);
	CU_ASSERT_EQUAL(dpa_pd_thread(&p, 150001), 1);
	dpa_profile_release(&p);
}

/* Read `path` through a FIFO that a child process copies it into: the
 * streamed path, which has no file size and so no END counts ahead. */
static void read_fifo(struct dpa_profile *p, const char *path)
{
	char fifo[4096 + 256];
	int status;
	pid_t pid;

	snprintf(fifo, sizeof(fifo), "%s", dpa_test_path("hint.fifo"));
	unlink(fifo);
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		char buf[65536];
		int in = open(path, O_RDONLY), out = open(fifo, O_WRONLY);
		ssize_t n;

		while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				_exit(1);
		_exit(in >= 0 && out >= 0 ? 0 : 1);
	}
	read_ok(p, fifo);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	unlink(fifo);
}

/* Every record, call list and thread of a equals b's. */
static void assert_same_profile(const struct dpa_profile *a, const struct dpa_profile *b)
{
	CU_ASSERT_EQUAL_FATAL(a->n_module, b->n_module);
	CU_ASSERT_EQUAL_FATAL(a->n_ps, b->n_ps);
	CU_ASSERT_EQUAL_FATAL(a->n_css, b->n_css);
	CU_ASSERT_EQUAL_FATAL(a->n_pd, b->n_pd);
	CU_ASSERT_EQUAL_FATAL(a->n_csd, b->n_csd);
	CU_ASSERT_EQUAL_FATAL(a->n_thread, b->n_thread);
	CU_ASSERT_EQUAL(a->file_crc32, b->file_crc32);
	CU_ASSERT(!memcmp(a->ps, b->ps, (a->n_ps + 1) * sizeof(*a->ps)));
	CU_ASSERT(!memcmp(a->css, b->css, (a->n_css + 1) * sizeof(*a->css)));
	CU_ASSERT(!memcmp(a->pd, b->pd, (a->n_pd + 2) * sizeof(*a->pd)));
	CU_ASSERT(!memcmp(a->csd, b->csd, (a->n_csd + 1) * sizeof(*a->csd)));
	for (int m = 0; m < DPA_NMEASURES; m++) {
		uint32_t differ = 0;

		CU_ASSERT_EQUAL(a->col[m].kind, b->col[m].kind);
		for (uint32_t i = 0; i <= a->n_csd; i++)
			differ += dpa_own(a, i, (enum dpa_measure)m) != dpa_own(b, i, (enum dpa_measure)m);
		CU_ASSERT_EQUAL(differ, 0);
	}
	for (uint32_t i = 0; i < a->n_csd; i++) {
		CU_ASSERT_EQUAL(dpa_out_csd(a, i), dpa_out_csd(b, i));
		CU_ASSERT_EQUAL(dpa_in_csd(a, i), dpa_in_csd(b, i));
	}
	for (uint32_t q = 1; q <= a->n_pd; q++)
		CU_ASSERT_EQUAL(dpa_pd_thread(a, q), dpa_pd_thread(b, q));
	for (uint32_t t = 1; t <= a->n_thread; t++) {
		CU_ASSERT_EQUAL(a->thread[t].tid, b->thread[t].tid);
		CU_ASSERT_EQUAL(a->thread[t].root_pd, b->thread[t].root_pd);
		CU_ASSERT_EQUAL(a->thread[t].cpu_ns, b->thread[t].cpu_ns);
	}
}

/* `path` with its END record replaced by one whose count number `which`
 * (0 modules .. 4 csd, 5 threads) is v; returns END's offset. */
static size_t rewrite_end(const char *path, int which, uint64_t v)
{
	size_t len, end = 0, off = 0;
	char *buf = slurp(path, &len);
	msgpack_unpacked u;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	FILE *f;

	CU_ASSERT_FATAL(buf != NULL && len > 80);
	msgpack_unpacked_init(&u);
	/* END is the array [9, ...] of 8 uints that ends the file */
	for (end = len - 80; end < len; end++) {
		off = end;
		if ((unsigned char)buf[end] == 0x98 && buf[end + 1] == 9 &&
		    msgpack_unpack_next(&u, buf, len, &off) == MSGPACK_UNPACK_SUCCESS && off == len)
			break;
	}
	CU_ASSERT_FATAL(end < len);
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 8);
	for (uint32_t i = 0; i < 8; i++)
		msgpack_pack_uint64(&pk, i == (uint32_t)which + 1 ? v : u.data.via.array.ptr[i].via.u64);
	f = fopen(path, "wb");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(fwrite(buf, 1, end, f) == end);
	CU_ASSERT(fwrite(sb.data, 1, sb.size, f) == sb.size);
	fclose(f);
	msgpack_sbuffer_destroy(&sb);
	msgpack_unpacked_destroy(&u);
	free(buf);
	return end;
}

/*
 * A regular file's arrays are made at the sizes its END gives, read ahead
 * from the file's last bytes (peek_end): the profile is the one a stream
 * (no size known, arrays grown by doubling) gives; an END whose counts are
 * too small, too large or past what the file could hold is only a hint,
 * read safely to END's own error.
 */
static void test_end_hint(void)
{
	static const struct {
		int which;
		uint64_t v;
		const char *name;
	} lies[] = {
		{ 4, 1000, "csd" }, { 3, 1000, "pd" }, { 2, 3, "css" }, { 1, 2, "ps" },
		{ 4, 600000, "csd" }, { 3, 900000, "pd" }, { 5, 5, "threads" },
		{ 4, (uint64_t)1 << 31, "csd" }, { 3, UINT32_MAX, "pd" }, { 0, 3, "modules" },
	};
	struct dpa_profile a, b;
	struct dpg_stats st;
	const char *path = gen("hint.dp", DPG_TREE, 300000, 2, DPG_OK, &st);
	char msg[512], copy[4096 + 256];

	read_ok(&a, path);
	read_fifo(&b, path);
	assert_same_profile(&a, &b);
	dpa_profile_release(&a);
	dpa_profile_release(&b);
	path = gen("hint.dp", DPG_RECURSIVE, 100000, 1, DPG_OK, NULL);
	snprintf(copy, sizeof(copy), "%s", path);
	read_fifo(&b, copy);
	read_ok(&a, copy);
	assert_same_profile(&a, &b);
	dpa_profile_release(&b);
	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		const uint32_t have[6] = { a.n_module, a.n_ps, a.n_css, a.n_pd, a.n_csd, a.n_thread };
		size_t end;

		gen("hint.dp", DPG_RECURSIVE, 100000, 1, DPG_OK, NULL);
		end = rewrite_end(copy, lies[i].which, lies[i].v);

		snprintf(msg, sizeof(msg), "corrupt: record at byte %zu: END says %" PRIu64
			 " %s, the file has %u", end, lies[i].v, lies[i].name, have[lies[i].which]);
		expect_error(copy, msg);
	}
	dpa_profile_release(&a);
}

/* dpa_profile_compact keeps pd_thread unless every thread's pds are one
 * range of ids in thread order, and keeps a permutation unless it is the
 * identity. */
static void test_compact(void)
{
	static const uint32_t cases[][5] = {
		{ 0, 1, 1, 2, 2 },      /* ranges: dropped */
		{ 0, 1, 2, 1, 2 },      /* thread 1 twice: kept */
		{ 0, 2, 2, 1, 1 },      /* ranges, but thread 2 first: kept */
		{ 0, 1, 1, 1, 1 },      /* thread 2 has no pd (not a valid profile): kept */
	};
	struct dpa_thread th[3];

	for (int k = 0; k < 4; k++) {
		struct dpa_profile p;

		memset(&p, 0, sizeof(p));
		memset(th, 0, sizeof(th));
		p.n_pd = 4;
		p.n_thread = 2;
		p.thread = th;
		p.pd_thread = malloc(5 * sizeof(uint32_t));
		CU_ASSERT_FATAL(p.pd_thread != NULL);
		memcpy(p.pd_thread, cases[k], 5 * sizeof(uint32_t));
		dpa_profile_compact(&p);
		CU_ASSERT_EQUAL(p.pd_thread == NULL, k == 0);
		for (uint32_t i = 1; i <= 4; i++)
			CU_ASSERT_EQUAL(dpa_pd_thread(&p, i), cases[k][i]);
		if (k == 0) {
			CU_ASSERT_EQUAL(th[1].first_pd, 1);
			CU_ASSERT_EQUAL(th[2].first_pd, 3);
		}
		free(p.pd_thread);
	}
	{
		struct dpa_profile p;
		uint32_t *id = malloc(3 * sizeof(uint32_t)), *sw = malloc(3 * sizeof(uint32_t));

		CU_ASSERT_FATAL(id && sw);
		memset(&p, 0, sizeof(p));
		p.n_csd = 3;
		for (uint32_t i = 0; i < 3; i++)
			id[i] = i + 1;
		sw[0] = 1, sw[1] = 3, sw[2] = 2;
		p.out_perm = id;
		p.in_perm = sw;
		dpa_profile_compact(&p);
		CU_ASSERT_PTR_NULL(p.out_perm);
		CU_ASSERT_PTR_EQUAL(p.in_perm, sw);
		CU_ASSERT_EQUAL(dpa_out_csd(&p, 1), 2);
		CU_ASSERT_EQUAL(dpa_in_csd(&p, 1), 3);
		free(sw);
	}
}

/* ---- bad files ---- */

static void test_corruptions(void)
{
	static const struct {
		enum dpg_corrupt c;
		const char *msg;
	} cases[] = {
		{ DPG_MAGIC, "not a Deep.data file" },
		{ DPG_NOT_MAP, "not a Deep.data file" },
		{ DPG_VERSION, "format version 7 is newer than this deepprof (2)" },
		{ DPG_MINVERSION, "format version 3 is newer than this deepprof (2)" },
		{ DPG_MISSING_KEY, "corrupt header: no 'pid' key" },
		{ DPG_KEY_TYPE, "corrupt header: 'pid' is not an unsigned integer" },
		{ DPG_CLOCK, "corrupt header: 'clock' is \"ticks\", not \"calls\" or \"calls+loops\"" },
	};
	struct dpg_stats st;
	const char *path;
	char msg[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		path = gen("bad.dp", DPG_CHAIN, 5, 1, cases[i].c, NULL);
		expect_error(path, cases[i].msg);
	}
	path = gen("bad.dp", DPG_CHAIN, 5, 1, DPG_NO_END, &st);
	snprintf(msg, sizeof(msg), "truncated: no END record after %" PRIu64 " bytes", st.file_size);
	expect_error(path, msg);
}

/* Defects in records: the message names the record's byte offset, which the
 * test finds by decoding the file itself. */
static void test_record_defects(void)
{
	static const struct {
		enum dpg_corrupt c;
		int obj;                /* index of the object that is wrong; -1: END */
		const char *msg;
	} cases[] = {
		/* chain 5: objects 0 header, 1 module, 2-7 ps, 8-12 css, 13-18 pd,
		 * 19-23 csd, 24 thread, 25 END */
		{ DPG_REF, 19, "csd callee_pd refers to pd 11, but only 6 pd came before it" },
		{ DPG_ORDER, 13, "module record after a css record" },
		{ DPG_ID, 20, "csd id 3 out of sequence (expected 2)" },
		{ DPG_KIND, 13, "unknown record kind 4" },
		{ DPG_LEN, 14, "pd record has 4 elements, not 3" },
		{ DPG_CSS_KIND, 8, "css kind 9 is not one of 0..6" },
		{ DPG_CSS_COL, 8, "css col 536870912 is not below 2^29" },
		{ DPG_ROOT, 24, "thread 1's root_pd 2 is a pd of ps 2, not of ps 1 (<root>)" },
		{ DPG_PS1, 2, "ps 1 is not the synthetic <root> (module 0, name \"<root>\")" },
		{ DPG_COUNT, -1, "END says 6 csd, the file has 5" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = gen("rec.dp", DPG_CHAIN, 5, 1, cases[i].c, NULL);
		size_t len, offs[64], n;
		char *buf = slurp(path, &len);
		char msg[512];

		CU_ASSERT_FATAL(buf != NULL);
		n = object_offsets(buf, len, offs, 64);
		snprintf(msg, sizeof(msg), "corrupt: record at byte %zu: %s",
			 offs[cases[i].obj < 0 ? n - 1 : (size_t)cases[i].obj], cases[i].msg);
		expect_error(path, msg);
		free(buf);
	}
}

static void test_graph_defects(void)
{
	const char *path;

	path = gen("unreach.dp", DPG_CHAIN, 5, 1, DPG_UNREACHABLE, NULL);
	expect_error(path, "corrupt: pd 7 is not reachable from any thread's root");
	path = gen("shared.dp", DPG_CHAIN, 6, 2, DPG_SHARED, NULL);
	/* threads of 3 csds: pds 1-4 and 5-8; thread 2's root (5) calls pd 2 */
	expect_error(path, "corrupt: pd 2 is reachable from the roots of threads 1 and 2");
}

static void test_crc(void)
{
	const char *path = gen("crc.dp", DPG_CHAIN, 5, 1, DPG_CRC, NULL);
	size_t len, offs[64], n;
	char *buf = slurp(path, &len);
	struct dpa_profile p;
	struct dpa_error err;

	CU_ASSERT_FATAL(buf != NULL);
	n = object_offsets(buf, len, offs, 64);
	CU_ASSERT_EQUAL(n, 26);
	expect_error_prefix(path, "corrupt: record at byte");
	CU_ASSERT_EQUAL(dpa_profile_read(&p, path, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ": checksum mismatch: END says crc32 0x"));
	free(buf);

	/* a valid file with one value changed in place (exited false -> true):
	 * still well-formed, so only the checksum can tell */
	path = gen("crc2.dp", DPG_CHAIN, 5, 1, DPG_OK, NULL);
	buf = slurp(path, &len);
	CU_ASSERT_FATAL(buf != NULL);
	n = object_offsets(buf, len, offs, 64);
	CU_ASSERT_EQUAL_FATAL((unsigned char)buf[offs[n - 1] - 1], 0xc2);
	buf[offs[n - 1] - 1] = (char)0xc3;
	spill(path, buf, len);
	CU_ASSERT_EQUAL(dpa_profile_read(&p, path, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ": checksum mismatch: END says crc32 0x"));
	free(buf);
}

static void test_trailing(void)
{
	const char *path = gen("trail.dp", DPG_CHAIN, 5, 1, DPG_TRAILING, NULL);
	size_t len, offs[64];
	char *buf = slurp(path, &len);
	char msg[256];

	CU_ASSERT_FATAL(buf != NULL);
	object_offsets(buf, len, offs, 64);
	snprintf(msg, sizeof(msg), "corrupt: 3 bytes of data after the END record (at byte %zu)", offs[25]);
	expect_error(path, msg);
	free(buf);
}

static void test_no_file(void)
{
	const char *path = dpa_test_path("empty.dp");

	expect_error("/nonexistent/Deep.data", "cannot open: No such file or directory");
	spill(path, "", 0);
	expect_error(path, "empty file");
	expect_error(dpa_test_tmpdir(), "cannot read: Is a directory");
	spill(path, "hello, world\n", 13);
	expect_error(path, "not a Deep.data file");
	spill(path, "\x81\xa5magic\xa8" "deepprof", 16);  /* a header with only its magic */
	expect_error(path, "corrupt header: no 'version' key");
}

/* Containers that msgpack-c must never be given: nested too deep, or
 * claiming more elements than the file has bytes. */
static void test_hostile_containers(void)
{
	const char *path = gen("host.dp", DPG_CHAIN, 3, 1, DPG_OK, NULL);
	char bad[4096 + 256], msg[256];
	size_t len, offs[64], hl;
	char *buf = slurp(path, &len), *out;

	CU_ASSERT_FATAL(buf != NULL);
	object_offsets(buf, len, offs, 64);
	hl = offs[1];   /* the header's length */
	out = malloc(hl + 256);
	CU_ASSERT_FATAL(out != NULL);
	snprintf(bad, sizeof(bad), "%s", dpa_test_path("hostile.dp"));

	/* a record nesting 40 arrays */
	memcpy(out, buf, hl);
	out[hl] = (char)0x92;
	out[hl + 1] = 6;
	memset(out + hl + 2, 0x91, 40);
	out[hl + 42] = 1;
	spill(bad, out, hl + 43);
	snprintf(msg, sizeof(msg), "corrupt: record at byte %zu: nested more than 16 deep", hl);
	expect_error(bad, msg);

	/* a record element claiming 2^31 elements */
	memcpy(out + hl, "\x9c\x06\xdd\x7f\xff\xff\xff", 7);
	memset(out + hl + 7, 1, 20);
	spill(bad, out, hl + 27);
	snprintf(msg, sizeof(msg), "truncated: the file ends inside the record at byte %zu"
		 " (after %zu bytes); no END record", hl, hl + 27);
	expect_error(bad, msg);

	/* a record that is not an array, and one far too long */
	memcpy(out + hl, "\x81\x01\x02", 3);
	spill(bad, out, hl + 3);
	snprintf(msg, sizeof(msg), "corrupt: record at byte %zu: not a record (an array)", hl);
	expect_error(bad, msg);
	memcpy(out + hl, "\xdc\x01\x00", 3);
	memset(out + hl + 3, 1, 200);
	spill(bad, out, hl + 203);
	snprintf(msg, sizeof(msg), "corrupt: record at byte %zu: record with 256 elements", hl);
	expect_error(bad, msg);
	free(out);
	free(buf);
}

/* Cut a valid file at every byte: every prefix is rejected as truncated
 * (or empty), never read out of bounds (the sanitizer run checks that). */
static void test_truncation_everywhere(void)
{
	const char *path = gen("whole.dp", DPG_MUTUAL, 7, 2, DPG_OK, NULL);
	char cut[4096 + 256];
	size_t len, offs[128], n;
	char *buf = slurp(path, &len);

	CU_ASSERT_FATAL(buf != NULL);
	n = object_offsets(buf, len, offs, 128);
	snprintf(cut, sizeof(cut), "%s", dpa_test_path("cut.dp"));
	for (size_t at = 0; at < len; at++) {
		struct dpa_profile p;
		struct dpa_error err;
		bool boundary = false;

		spill(cut, buf, at);
		CU_ASSERT_EQUAL(dpa_profile_read(&p, cut, &err), -1);
		for (size_t k = 1; k < n; k++)
			boundary |= offs[k] == at;
		if (at == 0) {
			CU_ASSERT(strstr(err.msg, ": empty file") != NULL);
		} else if (boundary) {
			char want[128];

			snprintf(want, sizeof(want), ": truncated: no END record after %zu bytes", at);
			CU_ASSERT(strstr(err.msg, want) != NULL);
		} else {
			CU_ASSERT(strstr(err.msg, ": truncated: the file ends inside the") != NULL);
		}
	}
	free(buf);
}

/* Flip each byte of a small file in turn: always rejected, one line. */
static void test_flips(void)
{
	const char *path = gen("flip.dp", DPG_TREE, 6, 2, DPG_OK, NULL);
	char bad[4096 + 256];
	size_t len;
	char *buf = slurp(path, &len);
	unsigned accepted = 0;

	CU_ASSERT_FATAL(buf != NULL);
	snprintf(bad, sizeof(bad), "%s", dpa_test_path("flipped.dp"));
	for (size_t at = 0; at < len; at++) {
		static const unsigned char masks[] = { 0x01, 0x80, 0xff };

		for (size_t k = 0; k < sizeof(masks); k++) {
			struct dpa_profile p;
			struct dpa_error err;

			buf[at] ^= masks[k];
			spill(bad, buf, len);
			if (dpa_profile_read(&p, bad, &err) == 0) {
				accepted++;
				dpa_profile_release(&p);
			} else {
				CU_ASSERT(strncmp(err.msg, bad, strlen(bad)) == 0);
				CU_ASSERT(strchr(err.msg, '\n') == NULL);
			}
			buf[at] ^= masks[k];
		}
	}
	/* the crc covers every byte before END (the header's ignored extra key
	 * too); a changed END fails its own checks */
	CU_ASSERT_EQUAL(accepted, 0);
	free(buf);
}

DPA_TEST_SUITE(read_profile,
	       DPA_TEST(test_threads_layout),
	       DPA_TEST(test_chain_exact),
	       DPA_TEST(test_measure_totals),
	       DPA_TEST(test_tree_csr),
	       DPA_TEST(test_recursive_and_mutual),
	       DPA_TEST(test_threads),
	       DPA_TEST(test_wide_offsets),
	       DPA_TEST(test_large),
	       DPA_TEST(test_end_hint),
	       DPA_TEST(test_compact),
	       DPA_TEST(test_corruptions),
	       DPA_TEST(test_record_defects),
	       DPA_TEST(test_graph_defects),
	       DPA_TEST(test_crc),
	       DPA_TEST(test_trailing),
	       DPA_TEST(test_no_file),
	       DPA_TEST(test_hostile_containers),
	       DPA_TEST(test_truncation_everywhere),
	       DPA_TEST(test_flips));
