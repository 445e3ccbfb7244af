/*
 * test_export.c — the exports (analyses/export.h) on generated profiles of
 * every shape and on hand-built ones with recursion, several entries into a
 * clique and a procedure nested in itself: folded weights add up to the
 * totals, callgrind's inclusive costs add up to the ps totals, speedscope's
 * samples are the folded stacks. Part of deepprof's tests. MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "export.h"
#include "gen.h"
#include "unit.h"
#include "build_profile.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ===================================================================== */
/* { ==== helpers ==== */

/* Run an exporter into a malloc'd string (NULL on failure). */
static char *run_export(int fmt, const struct dpa_deep *d, enum dpa_xmeasure m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct dpa_error err = { { 0 } };
	int r;

	if (!f)
		return NULL;
	r = fmt == 0 ? dpa_export_folded(f, d, m, &err)
		: fmt == 1 ? dpa_export_callgrind(f, d, m, &err)
		: dpa_export_speedscope(f, d, m, &err);
	fclose(f);
	if (r < 0) {
		fprintf(stderr, "export failed: %s\n", err.msg);
		free(buf);
		return NULL;
	}
	return buf;
}

/* The profile's total of export measure m, from the header. */
static uint64_t header_total(const struct dpa_profile *p, enum dpa_xmeasure m)
{
	const struct dpa_header *h = &p->hdr;

	switch (m) {
	case DPA_XM_CALLS: return h->calls;
	case DPA_XM_CSCS: return h->cscs;
	case DPA_XM_TICKS: return h->ticks - h->ticks_outside;
	case DPA_XM_TIME: return (h->ticks - h->ticks_outside) * dpa_export_ns_per_tick(p);
	case DPA_XM_ALLOCS: return h->allocs - h->allocs_outside;
	case DPA_XM_BYTES: return h->bytes - h->bytes_outside;
	default: return 0;
	}
}

/* ps total of export measure m */
static uint64_t ps_total(const struct dpa_deep *d, uint32_t ps, enum dpa_xmeasure m)
{
	uint64_t v = dpa_deep_ps_total(d, ps, dpa_xmeasure_base(m));

	return m == DPA_XM_TIME ? v * dpa_export_ns_per_tick(d->p) : v;
}

static uint32_t ps_by_name(const struct dpa_profile *p, const char *name)
{
	for (uint32_t i = 1; i <= p->n_ps; i++)
		if (!strcmp(dpa_ps_name(p, i), name))
			return i;
	return 0;
}

/* The ps of a (possibly compressed) fn=/cfn= value: "(id) name" defines id
 * (ids are ps ids here), "(id)" refers back, a plain name is looked up. */
static uint32_t compressed(const struct dpa_profile *p, const char **names, const char *v)
{
	char *end;
	unsigned long id;

	if (v[0] != '(')
		return ps_by_name(p, v);
	id = strtoul(v + 1, &end, 10);
	if (*end != ')' || id == 0 || id > p->n_ps)
		return 0;
	if (end[1] == ' ') {
		names[id] = dpa_ps_name(p, (uint32_t)id);
		CU_ASSERT_STRING_EQUAL(end + 2, names[id]);
	}
	CU_ASSERT_PTR_NOT_NULL(names[id]);
	return names[id] ? ps_by_name(p, names[id]) : 0;
}

/*
 * Check a folded document: every line "f1;...;fn W" with nonempty frames
 * and W > 0, no stack twice, weights adding up to `total`. Returns the
 * largest number of frames on a line (-1 on a grammar error).
 */
static int check_folded(const char *doc, uint64_t total)
{
	uint64_t sum = 0;
	int maxdepth = 0, lines = 0;
	char *copy = strdup(doc), *save = NULL, **seen = NULL;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' '), *end;
		unsigned long long w;
		int depth = 1;

		if (!sp || sp == line || !sp[1])
			goto bad;
		w = strtoull(sp + 1, &end, 10);
		if (*end || w == 0)
			goto bad;
		*sp = 0;
		if (line[0] == ';' || sp[-1] == ';' || strstr(line, ";;"))
			goto bad;
		for (char *c = line; *c; c++)
			depth += *c == ';';
		for (int i = 0; i < lines; i++)
			if (!strcmp(seen[i], line))
				goto bad;
		seen = realloc(seen, (lines + 1) * sizeof(*seen));
		seen[lines++] = line;
		sum += w;
		if (depth > maxdepth)
			maxdepth = depth;
	}
	free(seen);
	free(copy);
	CU_ASSERT_EQUAL(sum, total);
	return sum == total ? maxdepth : -1;
bad:
	free(seen);
	free(copy);
	CU_FAIL("folded line with a bad grammar");
	return -1;
}

/*
 * Parse a callgrind document of ours and check it against *d: summary and
 * totals equal the profile's totals and the sum of the self costs; each
 * function's self cost is its ps own cost; the calls on each arc are the
 * sum of the calls of the csds between the two procedures; the costs of
 * the calls into a procedure add up to its ps total (for one nothing calls:
 * self + calls out), for every event.
 */
static void check_callgrind(const struct dpa_deep *d, const char *doc)
{
	const struct dpa_profile *p = d->p;
	uint32_t n = p->n_ps, cur = 0, callee = 0;
	int ev[DPA_XM_N], nev = 0, pending = 0;
	uint64_t (*self)[DPA_XM_N] = calloc(n + 1, sizeof(*self));
	uint64_t (*in)[DPA_XM_N] = calloc(n + 1, sizeof(*in));
	uint64_t (*outc)[DPA_XM_N] = calloc(n + 1, sizeof(*outc));
	uint64_t *calls = calloc((size_t)(n + 1) * (n + 1), sizeof(*calls));
	uint64_t *want = calloc((size_t)(n + 1) * (n + 1), sizeof(*want));
	uint8_t *called = calloc(n + 1, 1), *seen = calloc(n + 1, 1);
	uint64_t summary[DPA_XM_N] = { 0 }, totals[DPA_XM_N] = { 0 }, selfsum[DPA_XM_N] = { 0 };
	char *copy = strdup(doc), *save = NULL;
	int nsum = 0, ntot = 0;
	const char **names = calloc(n + 1, sizeof(*names));   /* fn compression ids */

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t v[DPA_XM_N + 1];
		int k = 0;
		char *s = line, *e;

		if (!strncmp(line, "events:", 7)) {
			char *tok, *sv = NULL;

			for (tok = strtok_r(line + 7, " ", &sv); tok; tok = strtok_r(NULL, " ", &sv))
				ev[nev++] = dpa_xmeasure_parse(tok);
			continue;
		}
		if (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7)) {
			uint64_t *t = line[0] == 's' ? summary : totals;

			s = strchr(line, ':') + 1;
			for (int i = 0; i < nev; i++)
				t[ev[i]] = strtoull(s, &s, 10);
			*(line[0] == 's' ? &nsum : &ntot) += 1;
			continue;
		}
		if (!strncmp(line, "fn=", 3)) {
			cur = compressed(p, names, line + 3);
			CU_ASSERT(cur != 0);
			CU_ASSERT(!seen[cur]);
			seen[cur] = 1;
			continue;
		}
		if (!strncmp(line, "cfn=", 4)) {
			callee = compressed(p, names, line + 4);
			CU_ASSERT(callee != 0);
			continue;
		}
		if (!strncmp(line, "calls=", 6)) {
			calls[(size_t)cur * (n + 1) + callee] += strtoull(line + 6, NULL, 10);
			pending = 1;
			continue;
		}
		if (line[0] < '0' || line[0] > '9')
			continue;
		while (k <= nev) {
			v[k++] = strtoull(s, &e, 10);
			if (e == s)
				break;
			s = e;
		}
		CU_ASSERT_EQUAL(k, nev + 1);
		for (int i = 0; i < nev; i++) {
			if (pending) {
				in[callee][ev[i]] += v[i + 1];
				outc[cur][ev[i]] += v[i + 1];
				called[callee] = 1;
			} else {
				self[cur][ev[i]] += v[i + 1];
				selfsum[ev[i]] += v[i + 1];
			}
		}
		pending = 0;
	}
	CU_ASSERT_EQUAL(nev, DPA_XM_N);
	CU_ASSERT_EQUAL(nsum, 1);
	CU_ASSERT_EQUAL(ntot, 1);
	for (uint32_t x = 1; x <= p->n_csd; x++)
		want[(size_t)p->pd[p->csd[x].caller_pd].ps * (n + 1) + p->pd[p->csd[x].callee_pd].ps]
			+= dpa_own(p, x, DPA_CALLS);
	CU_ASSERT(memcmp(calls, want, (size_t)(n + 1) * (n + 1) * sizeof(*calls)) == 0);
	for (int m = 0; m < DPA_XM_N; m++) {
		CU_ASSERT_EQUAL(summary[m], header_total(p, m));
		CU_ASSERT_EQUAL(totals[m], header_total(p, m));
		CU_ASSERT_EQUAL(selfsum[m], header_total(p, m));
		for (uint32_t ps = 1; ps <= n; ps++) {
			uint64_t own = dpa_deep_ps_own(d, ps, dpa_xmeasure_base(m));

			if (m == DPA_XM_TIME)
				own *= dpa_export_ns_per_tick(p);
			CU_ASSERT_EQUAL(self[ps][m], own);
			if (called[ps]) {
				CU_ASSERT_EQUAL(in[ps][m], ps_total(d, ps, m));
			} else if (seen[ps]) {
				CU_ASSERT_EQUAL(self[ps][m] + outc[ps][m], ps_total(d, ps, m));
			}
		}
	}
	free(self);
	free(in);
	free(outc);
	free(calls);
	free(want);
	free(called);
	free(seen);
	free(copy);
	free(names);
}

/*
 * Check a speedscope document: one sampled profile per thread, weights
 * adding up to endValue and, over the threads, to the total; frame indices
 * in range; and (when `folded` is the same profile's folded export and
 * there is one thread) the samples are exactly the folded lines.
 */
static void check_speedscope(const struct dpa_profile *p, const char *doc,
			     enum dpa_xmeasure m, const char *folded)
{
	json_error_t je;
	json_t *root = json_loads(doc, 0, &je), *frames, *profiles, *pr;
	uint64_t sum = 0;
	size_t i, nf;
	char *text = NULL;
	size_t tlen = 0;
	FILE *tf = open_memstream(&text, &tlen);

	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(root, "$schema")),
			       "https://www.speedscope.app/file-format-schema.json");
	frames = json_object_get(json_object_get(root, "shared"), "frames");
	profiles = json_object_get(root, "profiles");
	CU_ASSERT_FATAL(json_is_array(frames) && json_is_array(profiles));
	nf = json_array_size(frames);
	CU_ASSERT_EQUAL(json_array_size(profiles), p->n_thread);
	json_array_foreach(profiles, i, pr) {
		json_t *samples = json_object_get(pr, "samples");
		json_t *weights = json_object_get(pr, "weights");
		uint64_t psum = 0;
		size_t j;
		json_t *w;

		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(pr, "type")), "sampled");
		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(pr, "unit")),
				       m == DPA_XM_TIME ? "nanoseconds"
				       : m == DPA_XM_BYTES ? "bytes" : "none");
		CU_ASSERT_EQUAL(json_array_size(samples), json_array_size(weights));
		json_array_foreach(weights, j, w) {
			json_t *st = json_array_get(samples, j), *fr;
			size_t k;

			CU_ASSERT(json_integer_value(w) > 0);
			psum += (uint64_t)json_integer_value(w);
			json_array_foreach(st, k, fr) {
				json_int_t f = json_integer_value(fr);

				CU_ASSERT(json_is_integer(fr) && f >= 0 && (size_t)f < nf);
				if (f >= 0 && (size_t)f < nf)
					fprintf(tf, "%s%s", k ? ";" : "", json_string_value(
							json_object_get(json_array_get(frames, f), "name")));
			}
			fprintf(tf, " %lld\n", (long long)json_integer_value(w));
		}
		CU_ASSERT_EQUAL(psum, (uint64_t)json_integer_value(json_object_get(pr, "endValue")));
		sum += psum;
	}
	fclose(tf);
	CU_ASSERT_EQUAL(sum, header_total(p, m));
	if (folded && p->n_thread == 1) {
		CU_ASSERT_STRING_EQUAL(text, folded);
	}
	free(text);
	json_decref(root);
}

/* Every check, every measure, on one profile. */
static void check_all(struct dpa_profile *p, int want_depth)
{
	struct dpa_deep d;
	struct dpa_error err = { { 0 } };

	CU_ASSERT_EQUAL_FATAL(dpa_deep_init(&d, p, &err), 0);
	for (int m = 0; m < DPA_XM_N; m++) {
		char *f = run_export(0, &d, m), *c = run_export(1, &d, m), *s = run_export(2, &d, m);
		int depth;

		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		depth = check_folded(f, header_total(p, m));
		if (want_depth && m == DPA_XM_CALLS) {
			CU_ASSERT_EQUAL(depth, want_depth);
		}
		check_callgrind(&d, c);
		check_speedscope(p, s, m, f);
		free(f);
		free(c);
		free(s);
	}
	dpa_deep_release(&d);
}

static void gen_profile(struct dpa_profile *p, enum dpg_shape shape, uint64_t csds, uint32_t threads)
{
	struct dpg_opts o = { .shape = shape, .csds = csds, .threads = threads, .seed = 7 };
	char gerr[256];
	struct dpa_error err = { { 0 } };
	const char *path = dpa_test_path("export.data");

	CU_ASSERT_EQUAL_FATAL(dpg_write_file(&o, path, NULL, gerr, sizeof(gerr)), 0);
	CU_ASSERT_EQUAL_FATAL(dpa_profile_read(p, path, &err), 0);
	/* a measured tick length that is not a whole number of ns */
	p->hdr.ns_per_tick = 4000123.6;
}

/* } */
/* ===================================================================== */
/* { ==== generated profiles ==== */

static void test_shapes(void)
{
	/* deepest folded stack (calls measure): chain grows with size; tree
	 * 4-ary; recursive main;r;r; mutual main;a;b;a */
	static const struct { enum dpg_shape s; uint64_t csds; uint32_t threads; int depth; } t[] = {
		{ DPG_CHAIN, 60, 1, 60 },
		{ DPG_TREE, 300, 1, 0 },
		{ DPG_WIDE, 50, 1, 2 },
		{ DPG_RECURSIVE, 41, 1, 3 },
		{ DPG_MUTUAL, 61, 1, 4 },
		{ DPG_THREADS, 400, 4, 0 },
		{ DPG_MUTUAL, 90, 3, 4 },
	};

	for (size_t i = 0; i < NELEM(t); i++) {
		struct dpa_profile p;

		gen_profile(&p, t[i].s, t[i].csds, t[i].threads);
		check_all(&p, t[i].depth);
		dpa_profile_release(&p);
	}
}

/* The recursive shape's folded lines, exactly: group g is main -> r_g
 * (one call) then r_g -> r_g, folded under main;r_g;r_g. */
static void test_recursion_lines(void)
{
	struct dpa_profile p;
	struct dpa_deep d;
	struct dpa_error err = { { 0 } };
	char *f, want[4096] = "", line[256];
	const char *mainname;

	gen_profile(&p, DPG_RECURSIVE, 5, 1);
	CU_ASSERT_EQUAL_FATAL(dpa_deep_init(&d, &p, &err), 0);
	f = run_export(0, &d, DPA_XM_CALLS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	/* csds: root->main, then per group main->r, r->r */
	mainname = dpa_ps_name(&p, p.pd[p.csd[1].callee_pd].ps);
	snprintf(want, sizeof(want), "%s %llu\n", mainname,
		 (unsigned long long)dpa_own(&p, 1, DPA_CALLS));
	/* groups sorted by name: ps 3 then 4 (addresses 0x1030 < 0x1040) */
	for (uint32_t x = 2; x <= p.n_csd; x += 2) {
		const char *r = dpa_ps_name(&p, p.pd[p.csd[x].callee_pd].ps);

		CU_ASSERT_EQUAL(p.csd[x + 1].caller_pd, p.csd[x + 1].callee_pd);
		snprintf(line, sizeof(line), "%s;%s %llu\n%s;%s;%s %llu\n", mainname, r,
			 (unsigned long long)dpa_own(&p, x, DPA_CALLS), mainname, r, r,
			 (unsigned long long)dpa_own(&p, x + 1, DPA_CALLS));
		strcat(want, line);
	}
	CU_ASSERT_STRING_EQUAL(f, want);
	free(f);
	dpa_deep_release(&d);
	dpa_profile_release(&p);
}

/* } */
/* ===================================================================== */
/* { ==== hand-built profiles ==== */

struct arc {
	uint32_t caller, callee, css;
	uint64_t calls, ticks, allocs;
};

/* A profile of pds (pd_ps[v]: pd v's ps, named names[ps-1]), thread roots
 * roots[], and a csd per arc (cscs = calls, 16 bytes per allocation, a
 * millisecond per tick). Freed by free_built(). */
static void build(struct dpa_profile *p, uint32_t n_pd, const uint32_t *pd_ps,
		  const char *const *names, uint32_t n_ps, uint32_t n_thread,
		  const uint32_t *roots, const struct arc *arcs, uint32_t n_arcs)
{
	struct dpt_arc *full = calloc(n_arcs ? n_arcs : 1, sizeof(*full));

	CU_ASSERT_FATAL(full != NULL);
	for (uint32_t i = 0; i < n_arcs; i++)
		full[i] = (struct dpt_arc){ .caller = arcs[i].caller, .callee = arcs[i].callee,
					    .css = arcs[i].css, .calls = arcs[i].calls,
					    .cscs = arcs[i].calls, .ticks = arcs[i].ticks,
					    .allocs = arcs[i].allocs, .bytes = 16 * arcs[i].allocs };
	dpt_build_profile(p, n_pd, pd_ps, names, n_ps, n_thread, roots, full, n_arcs, 0, 0);
	free(full);
	p->path = "built.data";
	p->hdr.program = "/bin/built";
	p->hdr.ns_per_tick = 1000000;
}

#define free_built dpt_free_profile

static const char *const names[] = { "<root>", "main", "a", "b", "c", "p", "q", "w;x" };

/* Mutual recursion a <-> b entered twice (main -> a and main -> b: a clique
 * with two entries), c called from both; p -> q -> p where the inner p is a
 * new context (not folded: left out of p's total); two threads. */
static void test_built(void)
{
	/* pds:       1 root  2 main 3 a  4 b  5 c(a) 6 c(b) 7 p  8 q  9 p'  10 root2 11 w;x 12 a */
	static const uint32_t pd_ps[] = { 0, 1, 2, 3, 4, 5, 5, 6, 7, 6, 1, 8, 3 };
	static const uint32_t roots[] = { 1, 10 };
	static const struct arc arcs[] = {
		{ 1, 2, 1, 1, 2, 1 },           /* root -> main */
		{ 2, 3, 2, 3, 5, 0 },           /* main -> a */
		{ 2, 4, 3, 2, 1, 2 },           /* main -> b */
		{ 3, 4, 4, 7, 3, 0 },           /* a -> b */
		{ 4, 3, 5, 6, 4, 1 },           /* b -> a */
		{ 3, 5, 6, 4, 9, 0 },           /* a -> c */
		{ 4, 6, 7, 5, 2, 3 },           /* b -> c */
		{ 2, 7, 8, 1, 1, 0 },           /* main -> p */
		{ 7, 8, 9, 2, 6, 1 },           /* p -> q */
		{ 8, 9, 10, 3, 7, 2 },          /* q -> p' */
		{ 10, 11, 11, 1, 3, 0 },        /* root2 -> w;x */
		{ 11, 12, 12, 5, 8, 1 },        /* w;x -> a (thread 2) */
	};
	struct dpa_profile p;
	struct dpa_deep d;
	struct dpa_error err = { { 0 } };
	char *f;

	build(&p, NELEM(pd_ps) - 1, pd_ps, names, NELEM(names), NELEM(roots), roots, arcs,
	      NELEM(arcs));
	check_all(&p, 0);
	CU_ASSERT_EQUAL_FATAL(dpa_deep_init(&d, &p, &err), 0);
	/* p's total leaves out p' (inside p's own): 1+2+3 calls, not 1+2+3+3 */
	CU_ASSERT_EQUAL(dpa_deep_ps_total(&d, 6, DPA_CALLS), 6);
	f = run_export(0, &d, DPA_XM_CALLS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	/* the clique {a, b}: primary entry main -> a (3 calls > 2), so b below
	 * a; main -> b is charged to main;b; names sorted bytewise; ';' in a
	 * name becomes ':'; the two threads' stacks merge */
	CU_ASSERT_STRING_EQUAL(f,
		"main 1\n"
		"main;a 3\n"
		"main;a;b 7\n"
		"main;a;b;a 6\n"
		"main;a;b;c 5\n"
		"main;a;c 4\n"
		"main;b 2\n"
		"main;p 1\n"
		"main;p;q 2\n"
		"main;p;q;p 3\n"
		"w:x 1\n"
		"w:x;a 5\n");
	free(f);
	f = run_export(1, &d, DPA_XM_TICKS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	/* into p: main -> p carries p's whole total (ticks 1+6+7), q -> p 0 */
	CU_ASSERT_PTR_NOT_NULL(strstr(f, "cfn=(2) main\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(f, "fn=(2)\n0 2 1 1 2000000 1 16\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(f, "cfn=(6) p\ncalls=1 0\n0 14 6 6 14000000 3 48\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(f, "cfn=(6)\ncalls=3 0\n0 0 0 0 0 0 0\n"));
	free(f);
	dpa_deep_release(&d);
	free_built(&p);
}

/* Measures by name; overflow of time is an error, not a wrong number. */
static void test_measures(void)
{
	uint64_t v;

	for (int m = 0; m < DPA_XM_N; m++)
		CU_ASSERT_EQUAL(dpa_xmeasure_parse(dpa_xmeasure_name(m)), m);
	CU_ASSERT_EQUAL(dpa_xmeasure_parse("exits"), -1);
	CU_ASSERT_EQUAL(dpa_xmeasure_parse("Calls"), -1);
	CU_ASSERT_EQUAL(dpa_xmeasure_parse(""), -1);
	CU_ASSERT_EQUAL(dpa_xmeasure_scale(DPA_XM_TIME, 3, 7, &v), 0);
	CU_ASSERT_EQUAL(v, 21);
	CU_ASSERT_EQUAL(dpa_xmeasure_scale(DPA_XM_CALLS, 3, 7, &v), 0);
	CU_ASSERT_EQUAL(v, 7);
	CU_ASSERT_EQUAL(dpa_xmeasure_scale(DPA_XM_TIME, 1ull << 40, 1ull << 30, &v), -1);
}

/* A profile whose time overflows 64 bits: the export fails with a message. */
static void test_time_overflow(void)
{
	static const uint32_t pd_ps[] = { 0, 1, 2 };
	static const uint32_t roots[] = { 1 };
	static const struct arc arcs[] = { { 1, 2, 1, 1, 1ull << 40, 0 } };
	struct dpa_profile p;
	struct dpa_deep d;
	struct dpa_error err = { { 0 } };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	build(&p, 2, pd_ps, names, 2, 1, roots, arcs, 1);
	p.hdr.ns_per_tick = 1e9;
	CU_ASSERT_EQUAL_FATAL(dpa_deep_init(&d, &p, &err), 0);
	f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(dpa_export_folded(f, &d, DPA_XM_TIME, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "built.data: export: "));
	CU_ASSERT_EQUAL(dpa_export_callgrind(f, &d, DPA_XM_CALLS, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "too large for 64 bits"));
	CU_ASSERT_EQUAL(dpa_export_folded(f, &d, DPA_XM_TICKS, &err), 0);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "main 1099511627776\n");
	free(buf);
	dpa_deep_release(&d);
	free_built(&p);
}

/* Procedures without a name (no symbols) are named by address ("0x1120"
 * for module 0) the first time an fn=/cfn= line names them. */
static void test_unnamed(void)
{
	static const uint32_t pd_ps[] = { 0, 1, 2, 3 };
	static const uint32_t roots[] = { 1 };
	static const struct arc arcs[] = { { 1, 2, 1, 1, 0, 0 }, { 2, 3, 2, 5, 0, 0 } };
	static const char *const unnamed[] = { "<root>", NULL, NULL };
	struct dpa_profile p;
	struct dpa_deep d;
	struct dpa_error err = { { 0 } };
	char *out;

	build(&p, 3, pd_ps, unnamed, 3, 1, roots, arcs, 2);
	dpa_ps_set_offset(&p, 2, 0x1120);
	dpa_ps_set_offset(&p, 3, 0x1130);
	CU_ASSERT_EQUAL_FATAL(dpa_deep_init(&d, &p, &err), 0);
	out = run_export(1, &d, DPA_XM_CALLS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\ncfn=(2) 0x1120\ncalls=1 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\ncfn=(3) 0x1130\ncalls=5 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nfn=(2)\n"));      /* named once, then by id */
	free(out);
	dpa_deep_release(&d);
	free_built(&p);
}

/* } */

DPA_TEST_SUITE(export,
	       DPA_TEST(test_measures),
	       DPA_TEST(test_shapes),
	       DPA_TEST(test_recursion_lines),
	       DPA_TEST(test_built),
	       DPA_TEST(test_time_overflow),
	       DPA_TEST(test_unnamed));
