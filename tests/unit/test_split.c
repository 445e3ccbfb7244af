/*
 * test_split.c — the split of recursions: libgomp's busiest-thread share
 * (dpf_split_share), the divide-and-conquer model with a given split,
 * and the reader's checks of the header keys inside_samples and inside.
 * Part of deepprof's tests. MIT licence.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>

#include <msgpack.h>

#include "build_profile.h"
#include "gen.h"
#include "profile.h"
#include "recursion_patterns.h"
#include "unit.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ================================================================
 * The busiest thread's share (recursion_patterns.c, "The split")
 * ================================================================ */

/*
 * On 2 cores the other thread takes S_1 (1 - i); it takes S_2 too when it
 * is free (at 1 - i) before the spawner reaches S_2 (at i^2); the spawner
 * runs i^m. Hand-derived:
 *   i = 0.5: 1 - 0.5 < 0.25 is false, m = 1: max(0.5, 0.5) = 0.5;
 *   i = 0.7: 0.3 < 0.49, m = 2; 0.51 < 0.343 false: max(0.49, 0.51) = 0.51,
 *     but with cut-off 1 only S_1 exists: 0.7;
 *   i = 0.3 (the larger call spawned): 0.7 < 0.09 false: max(0.3, 0.7);
 *   i = φ - 1 = 0.618...: 1 - i = i^2 exactly, not less: 0.618 at every c;
 *   4 cores, i = 0.5, c = 3: the 3 others take S_1..S_3 at once, m = 3,
 *     max(0.125, 0.875 / 3) = 0.2916...; with c = 1 one task only: 0.5;
 *   one core: 1.
 */
static void test_share(void)
{
	double phi1 = (sqrt(5.0) - 1) / 2;

	CU_ASSERT_DOUBLE_EQUAL(dpf_split_share(0.5, 1, 2), 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(dpf_split_share(0.5, 8, 2), 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(dpf_split_share(0.7, 4, 2), 0.51, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(dpf_split_share(0.7, 1, 2), 0.7, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(dpf_split_share(0.3, 4, 2), 0.7, 1e-12);
	for (uint32_t c = 1; c <= 16; c++)
		CU_ASSERT_DOUBLE_EQUAL(dpf_split_share(phi1, c, 2), phi1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(dpf_split_share(0.5, 3, 4), 0.875 / 3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(dpf_split_share(0.5, 1, 4), 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(dpf_split_share(0.7, 4, 1), 1, 1e-12);
}

/* ================================================================
 * The model with a split
 * ================================================================ */

/*
 * test_recursion_patterns.c's fib clique: main (pd 2) calls fib (pd 3) once
 * (css 2, 10 CSCs); fib calls itself through css 3 (t.c:103:3, the first)
 * and css 4 (t.c:104:3), 7 calls of 10 CSCs each: 15 activations, 150
 * CSCs an entry. At 100 ns a CSC with overheads spawn 60, delay 30, barrier
 * 10 ns on 2 cores its balanced T(c) is 98.15, 89.15, 85.85 for c = 1, 2,
 * 3 (overheads 0.65, 1.65, 3.35 of them): cut-off 3.
 */
static const char *const names[] = { NULL, "<root>", "main", "fib" };
static const uint32_t pd_ps[] = { 0, 1, 2, 3 };
static const struct dpt_arc arcs[] = {
	{ 1, 2, 1, 1, 1, 0, 0, 0, 0 },
	{ 2, 3, 2, 1, 10, 0, 0, 0, 0 },
	{ 3, 3, 3, 7, 70, 0, 0, 0, 0 },
	{ 3, 3, 4, 7, 70, 0, 0, 0, 0 },
};

/* The fib clique's recursion entry with csd 3 (css 3) measured a and csd 4
 * (css 4) b (0: left out); samples 0 with neither: no measure at all. The
 * recursion gets `ticks` clock ticks (on csd 3). */
static void model_ticks(struct dpf_feedback *fb, struct dpt_deep *t, uint64_t a, uint64_t b,
			bool measured, uint64_t ticks)
{
	struct dpa_error err = { { 0 } };
	struct dpt_arc arc[NELEM(arcs)];

	memcpy(arc, arcs, sizeof(arc));
	arc[2].ticks = ticks;
	dpt_deep_build(t, NELEM(names) - 1, names, 4, NULL, NELEM(pd_ps) - 1, pd_ps, arc,
		       NELEM(arc));
	if (measured) {
		t->p.has_inside = true;
		t->p.inside_samples = 100;
		t->p.inside = calloc(2, sizeof(*t->p.inside));
		CU_ASSERT_PTR_NOT_NULL_FATAL(t->p.inside);
		if (a)
			t->p.inside[t->p.n_inside++] = (struct dpa_inside){ 3, a };
		if (b)
			t->p.inside[t->p.n_inside++] = (struct dpa_inside){ 4, b };
	}
	memset(fb, 0, sizeof(*fb));
	dpf_options_default(&fb->opt);
	fb->basis = DPF_CSCS;
	fb->ns_per_unit = 100;
	fb->opt.ov.spawn_cost = 60;
	fb->opt.ov.spawn_delay = 30;
	fb->opt.ov.barrier_cost = 10;
	fb->opt.max_tasks = 2;
	CU_ASSERT_EQUAL_FATAL(dpf_recursion_patterns(fb, &t->d, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(fb->n_rec, 1);
	CU_ASSERT_EQUAL(fb->rec[0].type, DPA_REC_DIVIDE);
	CU_ASSERT_EQUAL(fb->rec[0].branching, 2);
}

/* model_ticks with 40 ticks: enough for the split to count. */
static void model(struct dpf_feedback *fb, struct dpt_deep *t, uint64_t a, uint64_t b,
		  bool measured)
{
	model_ticks(fb, t, a, b, measured, 40);
}

static void done(struct dpf_feedback *fb, struct dpt_deep *t)
{
	free(t->p.inside);
	t->p.inside = NULL;
	dpf_feedback_release(fb);
	dpt_deep_free(t);
}

/*
 * fib's split 618 : 382: i = 0.618, 1 - i = 0.382 is not below i^2 =
 * 0.381924, so the busiest thread runs 0.618 at every cut-off:
 * T_split(c) = 150 * 0.618 + overheads = 92.7 + 0.65, 1.65, 3.35. T(c) =
 * max(balanced, T_split): 98.15, 94.35, 96.05: cut-off 2, 94.35 (uneven
 * end 7.5 + 5.2 = 12.7), speedup 150 / 94.35 = 1.590 where the balanced
 * model said 1.747.
 */
static void test_fib_split(void)
{
	struct dpt_deep t;
	struct dpf_feedback fb;
	const struct dpf_recursion *r;

	model(&fb, &t, 618, 382, true);
	r = &fb.rec[0];
	CU_ASSERT_EQUAL(r->cutoff_depth, 2);
	CU_ASSERT_DOUBLE_EQUAL(r->par_cost, 94.35, 1e-9);
	CU_ASSERT_STRING_EQUAL(r->why, "spawn the recursive calls at levels 1 to 2 (3 tasks): on 2 "
			       "cores an entry takes least there, 9435 ns against 15000 ns "
			       "sequentially (x1.590): top levels 2000, the rest shared 6000, "
			       "uneven end 1270, task overheads 165 ns; measured split 0.618 : "
			       "0.382 (first call, inline : later call, spawned; 1000 "
			       "activation-ticks), with libgomp's scheduling (the busiest thread "
			       "runs 0.618 of the work at this cut-off)");
	done(&fb, &t);

	/* the same split with the larger call second (spawned): i = 0.382,
	 * 0.618 < 0.146 is false, max(0.382, 0.618): the same times */
	model(&fb, &t, 382, 618, true);
	r = &fb.rec[0];
	CU_ASSERT_EQUAL(r->cutoff_depth, 2);
	CU_ASSERT_DOUBLE_EQUAL(r->par_cost, 94.35, 1e-9);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->why, "measured split 0.382 : 0.618 "));
	done(&fb, &t);
}

/*
 * A balanced split (500 : 500, a mergesort's) leaves the balanced model:
 * T_split(c) = 75 + overheads is below every balanced T(c) (c = 3: 78.35
 * against 85.85).
 */
static void test_balanced_split(void)
{
	struct dpt_deep t;
	struct dpf_feedback fb;
	const struct dpf_recursion *r;

	model(&fb, &t, 500, 500, true);
	r = &fb.rec[0];
	CU_ASSERT_EQUAL(r->cutoff_depth, 3);
	CU_ASSERT_DOUBLE_EQUAL(r->par_cost, 85.85, 1e-9);
	CU_ASSERT_STRING_EQUAL(r->why, "spawn the recursive calls at levels 1 to 3 (7 tasks): on 2 "
			       "cores an entry takes least there, 8585 ns against 15000 ns "
			       "sequentially (x1.747): top levels 4000, the rest shared 4000, "
			       "uneven end 250, task overheads 335 ns; measured split 0.500 : "
			       "0.500 (first call, inline : later call, spawned; 1000 "
			       "activation-ticks), with libgomp's scheduling (the busiest thread "
			       "runs 0.500 of the work at this cut-off)");
	done(&fb, &t);
}

/* Without a usable measure the balanced model stands (cut-off 3, 85.85),
 * and why says which case it is. */
static void test_no_split(void)
{
	static const struct {
		uint64_t a, b;
		bool measured;
		uint64_t ticks;
		const char *why;
	} cases[] = {
		{ 0, 0, false, 40, "split not measured (no inside measure: an old profile or ticks "
		  "off): balanced halves assumed" },
		{ 30, 10, true, 40, "split not measured (40 activation-ticks on the two sites, fewer "
		  "than 50): balanced halves assumed" },
		{ 900, 0, true, 40, "no split: one recursive site was never on the stack at a tick: "
		  "balanced halves assumed" },
		{ 0, 0, true, 40, "split not measured (0 activation-ticks on the two sites, fewer "
		  "than 50): balanced halves assumed" },
		/* 1000 activation-ticks from 19 ticks: a deep recursion's handful */
		{ 618, 382, true, 19, "split not measured (19 clock ticks in the recursion, fewer "
		  "than 20): balanced halves assumed" },
	};

	for (size_t i = 0; i < NELEM(cases); i++) {
		struct dpt_deep t;
		struct dpf_feedback fb;
		const struct dpf_recursion *r;
		const char *tail;

		model_ticks(&fb, &t, cases[i].a, cases[i].b, cases[i].measured, cases[i].ticks);
		r = &fb.rec[0];
		CU_ASSERT_EQUAL(r->cutoff_depth, 3);
		CU_ASSERT_DOUBLE_EQUAL(r->par_cost, 85.85, 1e-9);
		tail = strstr(r->why, "task overheads 335 ns; ");
		CU_ASSERT_PTR_NOT_NULL_FATAL(tail);
		CU_ASSERT_STRING_EQUAL(tail + strlen("task overheads 335 ns; "), cases[i].why);
		done(&fb, &t);
	}
}

/* ================================================================
 * The reader's checks
 * ================================================================ */

/* The bytes of file path (malloc'ed) and their number; NULL if unreadable. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		*len = (size_t)n;
	fclose(f);
	return buf;
}

/* A pair to add to a header, as a msgpack value: NULL inside_samples or
 * inside leaves that key out; values are uints, -1 a nil, -2 a string. */
struct extra {
	const int64_t *samples;         /* one value */
	const int64_t *inside;          /* n_inside values, packed as an array */
	int n_inside;
	bool inside_is_map;
};

static void pack_val(msgpack_packer *pk, int64_t v)
{
	if (v == -1)
		msgpack_pack_nil(pk);
	else if (v == -2)
		msgpack_pack_str_with_body(pk, "x", 1);
	else
		msgpack_pack_uint64(pk, (uint64_t)v);
}

/*
 * Write to `out` a copy of the valid recursive-shape file `in` (threads 1,
 * 5 csds: csd 1 root -> main (pd 1 -> 2), csd 2 main -> r_1 (pd 2 -> 3),
 * csd 3 r_1 -> r_1 folded, csd 4 main -> r_2, csd 5 r_2 -> r_2) whose
 * header has the keys of e added, with END's crc32 recomputed.
 */
static void write_with(const char *in, const char *out, const struct extra *e)
{
	size_t len = 0, off = 0, hdr_end, end_start = 0, o;
	char *buf = slurp(in, &len);
	msgpack_unpacked u, last;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	const msgpack_object_map *m;

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	msgpack_unpacked_init(&u);
	CU_ASSERT_FATAL(msgpack_unpack_next(&u, buf, len, &off) == MSGPACK_UNPACK_SUCCESS);
	hdr_end = off;
	msgpack_unpacked_init(&last);
	for (o = off; o < len; ) {
		end_start = o;
		CU_ASSERT_FATAL(msgpack_unpack_next(&last, buf, len, &o) == MSGPACK_UNPACK_SUCCESS);
	}
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	m = &u.data.via.map;
	msgpack_pack_map(&pk, m->size + (e->samples != NULL) + (e->inside != NULL));
	for (uint32_t i = 0; i < m->size; i++) {
		msgpack_pack_object(&pk, m->ptr[i].key);
		msgpack_pack_object(&pk, m->ptr[i].val);
	}
	if (e->samples) {
		msgpack_pack_str_with_body(&pk, "inside_samples", 14);
		pack_val(&pk, *e->samples);
	}
	if (e->inside) {
		msgpack_pack_str_with_body(&pk, "inside", 6);
		if (e->inside_is_map) {
			msgpack_pack_map(&pk, 0);
		} else {
			msgpack_pack_array(&pk, (size_t)e->n_inside);
			for (int i = 0; i < e->n_inside; i++)
				pack_val(&pk, e->inside[i]);
		}
	}
	msgpack_sbuffer_write(&sb, buf + hdr_end, end_start - hdr_end);
	{
		const msgpack_object_array *a = &last.data.via.array;
		uint32_t crc = libdeflate_crc32(0, sb.data, sb.size);

		CU_ASSERT_EQUAL_FATAL(a->size, 8);
		msgpack_pack_array(&pk, 8);
		for (uint32_t i = 0; i < 7; i++)
			msgpack_pack_object(&pk, a->ptr[i]);
		msgpack_pack_uint64(&pk, crc);
	}
	{
		FILE *f = fopen(out, "wb");

		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		CU_ASSERT(fwrite(sb.data, 1, sb.size, f) == sb.size);
		fclose(f);
	}
	msgpack_sbuffer_destroy(&sb);
	msgpack_unpacked_destroy(&u);
	msgpack_unpacked_destroy(&last);
	free(buf);
}

/* The valid file write_with() starts from (its path, static). */
static const char *base_file(void)
{
	static char path[4096 + 256];
	struct dpg_opts o = { .shape = DPG_RECURSIVE, .csds = 5, .threads = 1, .seed = 7 };
	char err[512];

	snprintf(path, sizeof(path), "%s", dpa_test_path("split-base.dp"));
	if (dpg_write_file(&o, path, NULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "dpg_write_file: %s\n", err);
		CU_FAIL_FATAL("cannot generate a test file");
	}
	return path;
}

static void test_read_inside(void)
{
	static const int64_t s100 = 100, pairs[] = { 3, 1618, 5, 1000 };
	struct extra e = { &s100, pairs, 4, false };
	const char *out = dpa_test_path("split-ok.dp");
	struct dpa_profile p;
	struct dpa_error err;

	write_with(base_file(), out, &e);
	CU_ASSERT_EQUAL_FATAL(dpa_profile_read(&p, out, &err), 0);
	CU_ASSERT_TRUE(p.has_inside);
	CU_ASSERT_EQUAL(p.inside_samples, 100);
	CU_ASSERT_EQUAL(p.n_inside, 2);
	CU_ASSERT_EQUAL(p.n_csd, 5);
	CU_ASSERT_EQUAL(dpa_csd_inside(&p, 3), 1618);
	CU_ASSERT_EQUAL(dpa_csd_inside(&p, 5), 1000);
	CU_ASSERT_EQUAL(dpa_csd_inside(&p, 1), 0);
	CU_ASSERT_EQUAL(dpa_csd_inside(&p, 2), 0);
	CU_ASSERT_EQUAL(dpa_csd_inside(&p, 4), 0);
	dpa_profile_release(&p);

	/* an old file: neither key */
	CU_ASSERT_EQUAL_FATAL(dpa_profile_read(&p, base_file(), &err), 0);
	CU_ASSERT_FALSE(p.has_inside);
	CU_ASSERT_EQUAL(p.n_inside, 0);
	CU_ASSERT_EQUAL(dpa_csd_inside(&p, 3), 0);
	dpa_profile_release(&p);

	/* measured, nothing recursive seen: an empty array */
	e.n_inside = 0;
	write_with(base_file(), out, &e);
	CU_ASSERT_EQUAL_FATAL(dpa_profile_read(&p, out, &err), 0);
	CU_ASSERT_TRUE(p.has_inside);
	CU_ASSERT_EQUAL(p.n_inside, 0);
	dpa_profile_release(&p);
}

static void test_bad_inside(void)
{
	static const int64_t s100 = 100, s0 = 0, snil = -1;
	static const int64_t ok[] = { 3, 7 }, odd[] = { 3, 7, 5 }, id0[] = { 0, 7 },
		big[] = { 3, 7, 6, 1 }, zero[] = { 3, 0 }, desc[] = { 5, 1, 3, 2 },
		same[] = { 3, 1, 3, 2 }, str[] = { 3, -2 }, notrec[] = { 2, 7 };
	static const struct {
		struct extra e;
		const char *msg;
	} cases[] = {
		{ { NULL, ok, 2, false }, "'inside' without 'inside_samples'" },
		{ { &s100, NULL, 0, false }, "'inside_samples' without 'inside'" },
		{ { &snil, ok, 2, false }, "'inside_samples' is not an unsigned integer" },
		{ { &s100, ok, 0, true }, "'inside' is not an array of (csd, value) pairs" },
		{ { &s100, odd, 3, false }, "'inside' is not an array of (csd, value) pairs" },
		{ { &s100, id0, 2, false }, "'inside' pair 0 is not a csd id and an unsigned "
		  "integer" },
		{ { &s100, str, 2, false }, "'inside' pair 0 is not a csd id and an unsigned "
		  "integer" },
		{ { &s100, zero, 2, false }, "'inside' pair 0 (csd 3) has the value 0, which is "
		  "left out" },
		{ { &s100, desc, 4, false }, "'inside' csd ids are not ascending (csd 3 after "
		  "csd 5)" },
		{ { &s100, same, 4, false }, "'inside' csd ids are not ascending (csd 3 after "
		  "csd 3)" },
		{ { &s100, big, 4, false }, "'inside' names csd 6, but the file has 5" },
		{ { &s0, ok, 2, false }, "'inside' has values but 'inside_samples' is 0" },
		{ { &s100, notrec, 2, false }, "'inside' gives csd 2 a value, but it is not "
		  "recursive (pd 2 calls pd 3)" },
	};
	const char *out = dpa_test_path("split-bad.dp");

	for (size_t i = 0; i < NELEM(cases); i++) {
		struct dpa_profile p;
		struct dpa_error err;
		const char *got;

		write_with(base_file(), out, &cases[i].e);
		CU_ASSERT_EQUAL(dpa_profile_read(&p, out, &err), -1);
		/* "<path>: corrupt: ...<msg>": one line, naming the file */
		CU_ASSERT_EQUAL(strncmp(err.msg, out, strlen(out)), 0);
		CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
		got = strstr(err.msg, cases[i].msg);
		CU_ASSERT_PTR_NOT_NULL(got);
		if (got) {
			CU_ASSERT_STRING_EQUAL(got, cases[i].msg);
		} else {
			fprintf(stderr, "\n  case %zu got: %s\n", i, err.msg);
		}
	}
}

/* ================================================================
 * The branching of a recursive call in a loop (dpf_loop_branching)
 * ================================================================ */

/*
 * A 4-ary tree of height 4: main (pd 2) calls f (pd 3) once (css 2); f
 * calls itself 340 times in a loop (css 3): 341 activations = (4^5 - 1) /
 * 3. 40 clock ticks in the clique, and the self-recursive csd's inside
 * measure 160: the sampled activations were 4 deep on average, so H = 4
 * and B = 4 exactly. With 19 ticks, 49 activation-ticks or no measure at
 * all the profile cannot say (0).
 */
static void loop_tree(struct dpt_deep *t, uint64_t ticks, uint64_t inside, bool measured)
{
	static const char *const nm[] = { NULL, "<root>", "main", "f" };
	static const uint32_t ps[] = { 0, 1, 2, 3 };
	struct dpt_arc a[] = {
		{ 1, 2, 1, 1, 1, 0, 0, 0, 0 },
		{ 2, 3, 2, 1, 10, 0, 0, 0, 0 },
		{ 3, 3, 3, 340, 3400, ticks, 0, 0, 0 },
	};

	dpt_deep_build(t, NELEM(nm) - 1, nm, 3, NULL, NELEM(ps) - 1, ps, a, NELEM(a));
	if (measured) {
		t->p.has_inside = true;
		t->p.inside_samples = ticks;
		t->p.inside = calloc(1, sizeof(*t->p.inside));
		CU_ASSERT_PTR_NOT_NULL_FATAL(t->p.inside);
		t->p.inside[t->p.n_inside++] = (struct dpa_inside){ 3, inside };
	}
}

static void test_loop_branching(void)
{
	static const struct { uint64_t ticks, inside; bool measured; double b, h; } cases[] = {
		{ 40, 160, true, 4, 4 },        /* the tree */
		{ 40, 80, true, -1, 2 },        /* H = 2: B^2 + B + 1 = 341, checked below */
		{ 19, 76, true, 0, 0 },         /* too few ticks */
		{ 40, 49, true, 0, 0 },         /* too few activation-ticks */
		{ 40, 160, false, 0, 0 },       /* no measure */
	};

	for (size_t i = 0; i < NELEM(cases); i++) {
		struct dpt_deep t;
		double h = -1, b;
		uint32_t c;

		loop_tree(&t, cases[i].ticks, cases[i].inside, cases[i].measured);
		c = dpa_clique_of(&t.d.cl, 3);
		b = dpf_loop_branching(&t.d, c, 1, 340, &h);
		if (i == 1) {
			/* H = 2: B^2 + B + 1 = 341, B = (-1 + sqrt(1361)) / 2 */
			CU_ASSERT_DOUBLE_EQUAL(b, (-1 + sqrt(1361.0)) / 2, 1e-6);
			CU_ASSERT_DOUBLE_EQUAL(h, 2, 1e-12);
		} else {
			CU_ASSERT_DOUBLE_EQUAL(b, cases[i].b, 1e-6);
			CU_ASSERT_DOUBLE_EQUAL(h, cases[i].h, 1e-12);
		}
		free(t.p.inside);
		t.p.inside = NULL;
		dpt_deep_free(&t);
	}
}

DPA_TEST_SUITE(split, DPA_TEST(test_share), DPA_TEST(test_fib_split),
	       DPA_TEST(test_balanced_split), DPA_TEST(test_no_split), DPA_TEST(test_read_inside),
	       DPA_TEST(test_bad_inside), DPA_TEST(test_loop_branching));
