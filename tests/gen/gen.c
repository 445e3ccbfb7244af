/*
 * gen.c — the synthetic Deep.data writer behind dp-gen and the unit tests:
 * shapes are formulas over node indexes (nothing per node is kept), records
 * are packed with msgpack-c into a buffer flushed in 1 MiB chunks, with the
 * crc32 of everything before END. Part of deepprof's tests. MIT licence.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>
#include <libdeflate.h>

#include "gen.h"

/* ---- output: a buffer that keeps the running crc32 ---- */

struct out {
	FILE *f;
	char *buf;
	size_t len, cap;
	uint32_t crc;
	uint64_t total;
	bool failed;
};

static void out_flush(struct out *o)
{
	if (!o->len)
		return;
	o->crc = libdeflate_crc32(o->crc, o->buf, o->len);
	if (fwrite(o->buf, 1, o->len, o->f) != o->len)
		o->failed = true;
	o->total += o->len;
	o->len = 0;
}

static int out_write(void *data, const char *buf, size_t len)
{
	struct out *o = data;

	if (o->len + len > o->cap) {
		out_flush(o);
		if (len > o->cap) {
			o->crc = libdeflate_crc32(o->crc, buf, len);
			if (fwrite(buf, 1, len, o->f) != len)
				o->failed = true;
			o->total += len;
			return 0;
		}
	}
	memcpy(o->buf + o->len, buf, len);
	o->len += len;
	return 0;
}

/* ---- shapes ---- */

#define TREE_PROCS 16
#define TREE_FANOUT 4

struct gen {
	const struct dpg_opts *o;
	enum dpg_shape shape;
	uint32_t threads;
	uint64_t maxm;          /* csds of the largest thread */
	uint32_t n_ps, n_css;
	msgpack_packer pk;
	struct out out;
	uint64_t rng;
	struct dpg_stats st;
};

static uint64_t m_of(const struct gen *g, uint32_t t)
{
	return g->o->csds / g->threads + (t < g->o->csds % g->threads);
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* pds of one thread with m csds */
static uint64_t n_pd_of(const struct gen *g, uint64_t m)
{
	switch (g->shape) {
	case DPG_RECURSIVE:
		return m ? 2 + ceil_div(m - 1, 2) : 1;
	case DPG_MUTUAL:
		return m ? 2 + 2 * ceil_div(m - 1, 3) : 1;
	default:
		return m + 1;
	}
}

static void static_counts(struct gen *g)
{
	uint64_t m = g->maxm, gr;

	switch (g->shape) {
	case DPG_CHAIN:
		g->n_ps = m + 1;
		g->n_css = m;
		break;
	case DPG_TREE:
	case DPG_THREADS:
		g->n_ps = 2 + (m - 1 < TREE_PROCS ? m - 1 : TREE_PROCS);
		g->n_css = 1 + TREE_FANOUT * (g->n_ps - 1);
		break;
	case DPG_WIDE:
		g->n_ps = m + 1;
		g->n_css = 2;
		break;
	case DPG_RECURSIVE:
		gr = ceil_div(m - 1, 2);
		g->n_ps = 2 + gr;
		g->n_css = 1 + 2 * gr;
		break;
	case DPG_MUTUAL:
		gr = ceil_div(m - 1, 3);
		g->n_ps = 2 + 2 * gr;
		g->n_css = 1 + 3 * gr;
		break;
	}
}

/* ps of local pd i (0 = the thread's root) */
static uint32_t pd_ps(const struct gen *g, uint64_t i)
{
	if (i == 0)
		return 1;
	if (i == 1)
		return 2;
	switch (g->shape) {
	case DPG_TREE:
	case DPG_THREADS:
		return 3 + (i - 2) % TREE_PROCS;
	default:
		return i + 1;   /* chain, wide, recursive (r_g = pd 1+g), mutual */
	}
}

/* css k: caller ps, callee ps (0 unknown), kind */
static void css_info(const struct gen *g, uint32_t k, uint32_t *caller, uint32_t *callee, int *kind)
{
	*kind = 1;
	if (k == 1) {
		*caller = 1;
		*callee = 2;
		*kind = 0;      /* root -> main: learned at run time */
		return;
	}
	switch (g->shape) {
	case DPG_CHAIN:
		*caller = k;
		*callee = k + 1;
		break;
	case DPG_TREE:
	case DPG_THREADS: {
		uint32_t q = 2 + (k - 2) / TREE_FANOUT, slot = (k - 2) % TREE_FANOUT;

		*caller = q;
		*callee = q == 2 ? 3 + slot : 3 + (TREE_FANOUT * (q - 2) + slot) % TREE_PROCS;
		if (*callee > g->n_ps)
			*callee = 0;
		break;
	}
	case DPG_WIDE:
		*caller = 2;
		*callee = 0;
		*kind = 2;
		break;
	case DPG_RECURSIVE: {
		uint32_t gr = (k - 2) / 2;      /* group 0.. */

		*caller = (k - 2) % 2 ? 3 + gr : 2;
		*callee = 3 + gr;
		break;
	}
	case DPG_MUTUAL: {
		uint32_t gr = (k - 2) / 3, a = 3 + 2 * gr, b = a + 1;

		switch ((k - 2) % 3) {
		case 0: *caller = 2; *callee = a; break;
		case 1: *caller = a; *callee = b; break;
		default: *caller = b; *callee = a; break;
		}
		break;
	}
	}
}

/* local csd j of a thread: css, caller and callee local pds */
static void csd_info(const struct gen *g, uint64_t j, uint32_t *css, uint64_t *caller, uint64_t *callee)
{
	if (j == 0) {
		*css = 1;
		*caller = 0;
		*callee = 1;
		return;
	}
	switch (g->shape) {
	case DPG_CHAIN:
		*css = j + 1;
		*caller = j;
		*callee = j + 1;
		break;
	case DPG_TREE:
	case DPG_THREADS: {
		uint64_t i = j + 1, p = (i - 2) / TREE_FANOUT + 1, slot = (i - 2) % TREE_FANOUT;

		*css = 2 + (pd_ps(g, p) - 2) * TREE_FANOUT + slot;
		*caller = p;
		*callee = i;
		break;
	}
	case DPG_WIDE:
		*css = 2;
		*caller = 1;
		*callee = j + 1;
		break;
	case DPG_RECURSIVE: {
		uint64_t gr = (j - 1) / 2;

		*css = 2 + 2 * gr + (j - 1) % 2;
		*caller = (j - 1) % 2 ? 2 + gr : 1;
		*callee = 2 + gr;
		break;
	}
	case DPG_MUTUAL: {
		uint64_t gr = (j - 1) / 3, a = 2 + 2 * gr, b = a + 1;

		*css = 2 + 3 * gr + (j - 1) % 3;
		switch ((j - 1) % 3) {
		case 0: *caller = 1; *callee = a; break;
		case 1: *caller = a; *callee = b; break;
		default: *caller = b; *callee = a; break;
		}
		break;
	}
	}
}

/* ---- records ---- */

static uint64_t rnd(struct gen *g)
{
	/* splitmix64: cheap, good enough, the same on every machine */
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void pack_str(msgpack_packer *pk, const char *s)
{
	size_t n = strlen(s);

	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s, n);
}

static void pack_kv_u(msgpack_packer *pk, const char *k, uint64_t v)
{
	pack_str(pk, k);
	msgpack_pack_uint64(pk, v);
}

static void write_header(struct gen *g, const char *module)
{
	msgpack_packer *pk = &g->pk;
	enum dpg_corrupt c = g->o->corrupt;
	int nkeys = 26;

	if (c == DPG_NOT_MAP) {
		msgpack_pack_array(pk, 2);
		pack_str(pk, "magic");
		pack_str(pk, "deepprof");
		return;
	}
	if (c == DPG_MISSING_KEY)
		nkeys--;
	msgpack_pack_map(pk, nkeys);
	pack_str(pk, "magic");
	pack_str(pk, c == DPG_MAGIC ? "deepproff" : "deepprof");
	pack_kv_u(pk, "version", c == DPG_VERSION ? 7 : 1);
	pack_kv_u(pk, "min_version", c == DPG_VERSION ? 7 : c == DPG_MINVERSION ? 3 : 1);
	pack_str(pk, "program");
	pack_str(pk, module);
	pack_str(pk, "argv");
	msgpack_pack_array(pk, 2);
	pack_str(pk, module);
	pack_str(pk, "--generated");
	if (c == DPG_KEY_TYPE) {
		pack_str(pk, "pid");
		pack_str(pk, "4242");
	} else if (c != DPG_MISSING_KEY) {
		pack_kv_u(pk, "pid", 4242);
	}
	pack_kv_u(pk, "ppid", 4241);
	pack_kv_u(pk, "fork_of", 0);
	pack_str(pk, "final");
	msgpack_pack_true(pk);
	pack_kv_u(pk, "start_ns", 1763683200000000000ull);
	pack_kv_u(pk, "wall_ns", 1500000000ull);
	pack_str(pk, "clock");
	pack_str(pk, c == DPG_CLOCK ? "ticks" : "calls");
	pack_kv_u(pk, "timer_hz", 1000);
	pack_kv_u(pk, "cpu_ns", g->st.ticks * 4000000ull);
	pack_kv_u(pk, "ticks", g->st.ticks + 3);
	pack_kv_u(pk, "ticks_outside", 3);
	pack_str(pk, "ns_per_tick");
	msgpack_pack_double(pk, 4000000.0);
	pack_kv_u(pk, "calls", g->st.calls);
	pack_kv_u(pk, "cscs", g->st.cscs);
	pack_kv_u(pk, "allocs", g->st.allocs + 2);
	pack_kv_u(pk, "bytes", g->st.bytes + 64);
	pack_kv_u(pk, "allocs_outside", 2);
	pack_kv_u(pk, "bytes_outside", 64);
	pack_kv_u(pk, "mem_bytes", 1 << 20);
	pack_kv_u(pk, "lost", 0);
	pack_str(pk, "generator");      /* an extra key: readers ignore it */
	pack_str(pk, "dp-gen");
}

static void write_ps(struct gen *g, uint32_t id)
{
	msgpack_packer *pk = &g->pk;

	msgpack_pack_array(pk, 7);
	msgpack_pack_uint32(pk, 2);
	msgpack_pack_uint32(pk, id);
	if (id == 1) {
		msgpack_pack_uint32(pk, g->o->corrupt == DPG_PS1 ? 1 : 0);
		msgpack_pack_uint64(pk, 0);
		pack_str(pk, "<root>");
		msgpack_pack_nil(pk);
	} else {
		msgpack_pack_uint32(pk, 1);
		msgpack_pack_uint64(pk, 0x1000 + 16 * (uint64_t)id);
		msgpack_pack_nil(pk);
		msgpack_pack_nil(pk);
	}
	msgpack_pack_uint32(pk, 0);
}

/* One thread's csd measures, in the order they are written: the rng is
 * consumed the same way when counting totals and when writing. */
static void measures(struct gen *g, uint64_t j, uint64_t m[7])
{
	uint64_t r = rnd(g);

	m[0] = j == 0 ? 1 : 1 + r % 1000;
	m[1] = m[0];
	m[2] = 0;
	m[3] = m[0];
	m[4] = (r >> 10) % 8;
	m[5] = (r >> 13) % 4;
	m[6] = m[5] * (16 + (r >> 16) % 64);
}

static int generate(struct gen *g, const char *module)
{
	msgpack_packer *pk = &g->pk;
	enum dpg_corrupt c = g->o->corrupt;
	uint64_t n_pd = 0, extra_pd = 0, m[7], csd_id = 0;
	uint32_t n_thread = g->threads, n_module = 1;

	for (uint32_t t = 0; t < g->threads; t++)
		n_pd += n_pd_of(g, m_of(g, t));
	if (n_pd + 2 >= UINT32_MAX || g->o->csds + 2 >= UINT32_MAX) {
		errno = ERANGE;
		return -1;
	}

	/* totals for the header: a first pass over the measures */
	g->rng = g->o->seed;
	for (uint32_t t = 0; t < g->threads; t++)
		for (uint64_t j = 0; j < m_of(g, t); j++) {
			measures(g, j, m);
			g->st.calls += m[0];
			g->st.cscs += m[3];
			g->st.ticks += m[4];
			g->st.allocs += m[5];
			g->st.bytes += m[6];
		}

	write_header(g, module);

	/* MODULE */
	msgpack_pack_array(pk, 6);
	msgpack_pack_uint32(pk, 1);
	msgpack_pack_uint32(pk, 1);
	pack_str(pk, module);
	msgpack_pack_uint64(pk, 0x555555554000ull);
	msgpack_pack_uint64(pk, 0x10000);
	msgpack_pack_nil(pk);

	/* PS */
	for (uint32_t id = 1; id <= g->n_ps; id++)
		write_ps(g, id);

	/* CSS */
	for (uint32_t k = 1; k <= g->n_css; k++) {
		uint32_t caller = 0, callee = 0;
		int kind = 0;

		css_info(g, k, &caller, &callee, &kind);
		msgpack_pack_array(pk, 10);
		msgpack_pack_uint32(pk, 3);
		msgpack_pack_uint32(pk, k);
		msgpack_pack_uint32(pk, caller);
		msgpack_pack_uint32(pk, 1);
		msgpack_pack_uint64(pk, 0x8000 + 8 * (uint64_t)k);
		msgpack_pack_uint32(pk, c == DPG_CSS_KIND && k == 1 ? 9 : kind);
		msgpack_pack_uint32(pk, callee);
		msgpack_pack_nil(pk);
		msgpack_pack_uint32(pk, 0);
		msgpack_pack_uint32(pk, c == DPG_CSS_COL && k == 1 ? 1u << 29 : 0);
	}
	if (c == DPG_ORDER) {
		/* a second MODULE after the call sites */
		msgpack_pack_array(pk, 6);
		msgpack_pack_uint32(pk, 1);
		msgpack_pack_uint32(pk, 2);
		pack_str(pk, "/nonexistent/libextra.so");
		msgpack_pack_uint64(pk, 0x7f0000000000ull);
		msgpack_pack_uint64(pk, 0x1000);
		msgpack_pack_nil(pk);
		n_module = 2;
	}

	if (c == DPG_KIND) {
		msgpack_pack_array(pk, 3);
		msgpack_pack_uint32(pk, 4);
		msgpack_pack_uint32(pk, 1);
		msgpack_pack_uint32(pk, 1);
	}

	/* PD */
	uint64_t id = 0;
	for (uint32_t t = 0; t < g->threads; t++) {
		uint64_t np = n_pd_of(g, m_of(g, t));

		for (uint64_t i = 0; i < np; i++) {
			id++;
			msgpack_pack_array(pk, c == DPG_LEN && id == 2 ? 4 : 3);
			msgpack_pack_uint32(pk, 5);
			msgpack_pack_uint64(pk, id);
			msgpack_pack_uint32(pk, pd_ps(g, i));
			if (c == DPG_LEN && id == 2)
				msgpack_pack_uint32(pk, 0);
		}
	}
	if (c == DPG_UNREACHABLE) {
		id++;
		extra_pd = id;
		msgpack_pack_array(pk, 3);
		msgpack_pack_uint32(pk, 5);
		msgpack_pack_uint64(pk, id);
		msgpack_pack_uint32(pk, g->n_ps >= 2 ? 2 : 1);
	}

	/* CSD */
	g->rng = g->o->seed;
	uint64_t base = 1;
	for (uint32_t t = 0; t < g->threads; t++) {
		uint64_t mt = m_of(g, t);

		for (uint64_t j = 0; j < mt; j++) {
			uint32_t css = 0;
			uint64_t caller = 0, callee = 0;

			csd_info(g, j, &css, &caller, &callee);
			measures(g, j, m);
			csd_id++;
			msgpack_pack_array(pk, 12);
			msgpack_pack_uint32(pk, 6);
			msgpack_pack_uint64(pk, c == DPG_ID && csd_id >= 2 ? csd_id + 1 : csd_id);
			msgpack_pack_uint32(pk, css);
			msgpack_pack_uint64(pk, base + caller);
			msgpack_pack_uint64(pk, c == DPG_REF && csd_id == 1 ? n_pd + extra_pd + 5 : base + callee);
			for (int i = 0; i < 7; i++)
				msgpack_pack_uint64(pk, m[i]);
		}
		base += n_pd_of(g, mt);
	}
	if (c == DPG_SHARED) {
		/* the last thread's root calls thread 1's main */
		uint64_t last_root = n_pd - n_pd_of(g, m_of(g, g->threads - 1)) + 1;

		csd_id++;
		msgpack_pack_array(pk, 12);
		msgpack_pack_uint32(pk, 6);
		msgpack_pack_uint64(pk, csd_id);
		msgpack_pack_uint32(pk, 1);
		msgpack_pack_uint64(pk, last_root);
		msgpack_pack_uint64(pk, 2);
		for (int i = 0; i < 7; i++)
			msgpack_pack_uint64(pk, 1);
	}

	/* THREAD */
	base = 1;
	for (uint32_t t = 0; t < g->threads; t++) {
		msgpack_pack_array(pk, 10);
		msgpack_pack_uint32(pk, 7);
		msgpack_pack_uint32(pk, t + 1);
		msgpack_pack_uint64(pk, 4242 + t);
		msgpack_pack_uint64(pk, c == DPG_ROOT && t == 0 ? base + 1 : base);
		msgpack_pack_uint64(pk, 1000000 * (uint64_t)(t + 1));
		msgpack_pack_uint64(pk, t + 1);
		msgpack_pack_uint64(pk, t == 0 ? 3 : 0);
		msgpack_pack_uint64(pk, t == 0 ? 2 : 0);
		msgpack_pack_uint64(pk, t == 0 ? 64 : 0);
		if (t == 0)
			msgpack_pack_false(pk);
		else
			msgpack_pack_true(pk);
		base += n_pd_of(g, m_of(g, t));
	}

	g->st.n_module = n_module;
	g->st.n_ps = g->n_ps;
	g->st.n_css = g->n_css;
	g->st.n_pd = n_pd + (extra_pd ? 1 : 0);
	g->st.n_csd = csd_id;
	g->st.n_thread = n_thread;

	/* END */
	if (c != DPG_NO_END) {
		out_flush(&g->out);
		msgpack_pack_array(pk, 8);
		msgpack_pack_uint32(pk, 9);
		msgpack_pack_uint32(pk, g->st.n_module);
		msgpack_pack_uint32(pk, g->st.n_ps);
		msgpack_pack_uint32(pk, g->st.n_css);
		msgpack_pack_uint32(pk, g->st.n_pd);
		msgpack_pack_uint64(pk, c == DPG_COUNT ? g->st.n_csd + 1 : g->st.n_csd);
		msgpack_pack_uint32(pk, g->st.n_thread);
		msgpack_pack_uint32(pk, c == DPG_CRC ? g->out.crc ^ 1 : g->out.crc);
	}
	if (c == DPG_TRAILING)
		out_write(&g->out, "\xc0\xc0\xc0", 3);
	out_flush(&g->out);
	return g->out.failed ? -1 : 0;
}

/* ---- names ---- */

static const char *const shape_names[] = { "chain", "tree", "wide", "recursive", "mutual", "threads" };

static const char *const corrupt_names[DPG_NCORRUPT] = {
	"none", "magic", "version", "min-version", "missing-key", "key-type", "not-map",
	"ref", "order", "id", "kind", "len", "css-kind", "root", "unreachable", "shared",
	"crc", "count", "no-end", "trailing", "css-col", "ps1", "clock",
};

int dpg_parse_shape(const char *s)
{
	for (size_t i = 0; i < sizeof(shape_names) / sizeof(shape_names[0]); i++)
		if (!strcmp(s, shape_names[i]))
			return i;
	return -1;
}

int dpg_parse_corrupt(const char *s)
{
	for (int i = 0; i < DPG_NCORRUPT; i++)
		if (!strcmp(s, corrupt_names[i]))
			return i;
	return -1;
}

const char *dpg_corrupt_name(enum dpg_corrupt c)
{
	return (unsigned)c < DPG_NCORRUPT ? corrupt_names[c] : "?";
}

int dpg_write_file(const struct dpg_opts *o, const char *path, struct dpg_stats *st,
		   char *err, size_t errlen)
{
	struct gen g;
	const char *module = o->module ? o->module : "/nonexistent/dp-gen-program";
	int rc;

	memset(&g, 0, sizeof(g));
	g.o = o;
	g.shape = o->shape;
	g.threads = o->threads ? o->threads : o->shape == DPG_THREADS ? 4 : 1;
	if (o->csds < 1) {
		snprintf(err, errlen, "csds must be at least 1");
		return -1;
	}
	if (o->corrupt == DPG_SHARED && g.threads < 2) {
		snprintf(err, errlen, "--corrupt=shared needs at least 2 threads");
		return -1;
	}
	g.maxm = m_of(&g, 0);
	static_counts(&g);
	g.out.f = fopen(path, "wb");
	if (!g.out.f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	g.out.cap = 1 << 20;
	g.out.buf = malloc(g.out.cap);
	if (!g.out.buf) {
		fclose(g.out.f);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	g.out.crc = 0;
	msgpack_packer_init(&g.pk, &g.out, out_write);
	rc = generate(&g, module);
	free(g.out.buf);
	if (fclose(g.out.f) != 0)
		rc = -1;
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", path, errno ? strerror(errno) : "write error");
		return -1;
	}
	g.st.file_size = g.out.total;
	if (st)
		*st = g.st;
	return 0;
}
