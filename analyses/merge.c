/*
 * merge.c — merge profiles of runs of one program context by context: keys
 * for the static records, a congruence closure over the pds of all inputs,
 * and a canonical (breadth-first, key-ordered) numbering of the result.
 * Part of deepprof's analyses library. MIT licence.
 */
#include "merge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

/* ================================================================
 * Private types and prototypes
 * ================================================================ */

/* Interned strings: id 1 .. n, in first-seen order. */
struct strtab {
	char **str;             /* str[1 .. n], owned */
	uint32_t n, cap;
	uint32_t *slot;         /* open addressing: 0 empty, else an id */
	uint32_t nslot;         /* a power of two */
};

/* Interned fixed-size keys: id 1 .. n, in first-seen order. */
struct tkey { uint64_t a, b, c; };
struct ttab {
	struct tkey *key;       /* key[1 .. n] */
	uint32_t n, cap;
	uint32_t *slot;         /* open addressing: 0 empty, else an id */
	uint32_t nslot;         /* a power of two */
};

/* A map from three non-zero-first u32s to a u32. */
struct tent { uint32_t a, b, c, v; };
struct tmap {
	struct tent *e;
	size_t cap;             /* a power of two; e[i].a == 0: empty */
};

/* One input csd, in global terms. */
struct edge {
	uint32_t caller, callee;    /* global pd index */
	uint32_t css, ps;           /* css key gid, callee ps key gid */
	uint32_t in, id;            /* input number and csd id there */
};

/* Everything a merge needs while it runs. */
struct merger {
	const struct dpa_profile *const *in;
	uint32_t n;
	bool force;
	struct dpa_error *err;

	struct strtab mods, names, thrs;  /* module paths, ps names, thread keys */
	struct ttab pss, csss;            /* ps and css keys (see ps_key, css_key) */
	uint32_t **mod_gid, **ps_gid, **css_gid, **thr_gid;
	uint32_t *mod_out, *ps_out, *css_out, *thr_out;  /* gid -> output id */
	uint32_t *mod_ord, *ps_ord, *css_ord, *thr_ord;  /* output id -> gid */

	uint32_t *base;         /* global pd index of input i's pd 0 */
	uint32_t npd;           /* global pd indexes are 1 .. npd */
	uint32_t *parent;       /* union-find */
	uint32_t *pd_ps;        /* global pd -> ps gid */
	struct edge *edge;
	size_t nedge;
};

static int merr(struct dpa_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static char *xfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xstrdup(const char *s);
static void *xcalloc(size_t n, size_t size);

/* ================================================================
 * Small utilities
 * ================================================================ */

static int merr(struct dpa_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

static char *xfmt(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

/* *out becomes the id in o's strings of string `id` of p (0 stays 0).
 * Returns 0, or -1 when out of memory. */
static int copy_str(struct dpa_profile *o, const struct dpa_profile *p, uint32_t id, uint32_t *out)
{
	const char *s = dpa_str(p, id);

	*out = dpa_str_id(o, s);
	return s && !*out ? -1 : 0;
}

/* Source field f (a string id) of o's record oid becomes a copy of p's
 * record k's; returns 0, or -1 when out of memory. */
static int copy_src_str(struct dpa_profile *o, uint32_t oid, const struct dpa_profile *p, uint32_t k,
			enum dpa_src f)
{
	uint32_t id;

	if (copy_str(o, p, dpa_src_get(p, f, k), &id) < 0)
		return -1;
	return dpa_src_set(o, f, oid, id);
}

/* Source field f (a number) of o's record oid becomes the larger of its
 * value and v; returns 0, or -1 when out of memory. */
static int max_src(struct dpa_profile *o, uint32_t oid, enum dpa_src f, uint32_t v)
{
	return v > dpa_src_get(o, f, oid) ? dpa_src_set(o, f, oid, v) : 0;
}

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void *xcalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size ? size : 1);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ULL;
	}
	/* FNV's low bits are weak for keys that differ only at the end. */
	h ^= h >> 32;
	h *= 0xD6E8FEB86659FD93ULL;
	return h ^ (h >> 32);
}

static uint64_t hash3(uint32_t a, uint32_t b, uint32_t c)
{
	uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ULL;

	h ^= ((uint64_t)b << 32 | c) + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
	h *= 0xBF58476D1CE4E5B9ULL;
	return h ^ (h >> 31);
}

static void strtab_free(struct strtab *t)
{
	uint32_t i;

	for (i = 1; i <= t->n; i++)
		free(t->str[i]);
	free(t->str);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

static int strtab_grow(struct strtab *t)
{
	uint32_t ns = t->nslot ? t->nslot * 2 : 64, i;
	uint32_t *slot = calloc(ns, sizeof(*slot));

	if (!slot)
		return -1;
	for (i = 1; i <= t->n; i++) {
		uint32_t j = (uint32_t)hash_str(t->str[i]) & (ns - 1);
		while (slot[j])
			j = (j + 1) & (ns - 1);
		slot[j] = i;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = ns;
	return 0;
}

/* The id of `s`, adding it if new. Takes ownership of s (frees it if it was
 * already there). Returns 0 when out of memory (s is freed). */
static uint32_t strtab_intern(struct strtab *t, char *s)
{
	uint32_t j;

	if (!s)
		return 0;
	if ((t->n + 1) * 2 > t->nslot && strtab_grow(t) < 0) {
		free(s);
		return 0;
	}
	j = (uint32_t)hash_str(s) & (t->nslot - 1);
	while (t->slot[j]) {
		if (!strcmp(t->str[t->slot[j]], s)) {
			free(s);
			return t->slot[j];
		}
		j = (j + 1) & (t->nslot - 1);
	}
	if (t->n + 2 > t->cap) {
		uint32_t nc = t->cap ? t->cap * 2 : 64;
		char **ns = realloc(t->str, nc * sizeof(*ns));
		if (!ns) {
			free(s);
			return 0;
		}
		t->str = ns;
		t->cap = nc;
	}
	t->str[++t->n] = s;
	t->slot[j] = t->n;
	return t->n;
}

static uint64_t hash_key(const struct tkey *k)
{
	uint64_t h = k->a * 0x9E3779B97F4A7C15ULL;

	h = (h ^ (h >> 29) ^ k->b) * 0xBF58476D1CE4E5B9ULL;
	h = (h ^ (h >> 31) ^ k->c) * 0x94D049BB133111EBULL;
	return h ^ (h >> 32);
}

static void ttab_free(struct ttab *t)
{
	free(t->key);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* The id of *k, adding it if new; 0 when out of memory. */
static uint32_t ttab_intern(struct ttab *t, const struct tkey *k)
{
	uint32_t j, i;

	if ((t->n + 1) * 2 > t->nslot) {
		uint32_t ns = t->nslot ? t->nslot * 2 : 64;
		uint32_t *slot = calloc(ns, sizeof(*slot));
		if (!slot)
			return 0;
		for (i = 1; i <= t->n; i++) {
			j = (uint32_t)hash_key(&t->key[i]) & (ns - 1);
			while (slot[j])
				j = (j + 1) & (ns - 1);
			slot[j] = i;
		}
		free(t->slot);
		t->slot = slot;
		t->nslot = ns;
	}
	j = (uint32_t)hash_key(k) & (t->nslot - 1);
	while (t->slot[j]) {
		const struct tkey *x = &t->key[t->slot[j]];
		if (x->a == k->a && x->b == k->b && x->c == k->c)
			return t->slot[j];
		j = (j + 1) & (t->nslot - 1);
	}
	if (t->n + 2 > t->cap) {
		uint32_t nc = t->cap ? t->cap * 2 : 64;
		struct tkey *nk = realloc(t->key, nc * sizeof(*nk));
		if (!nk)
			return 0;
		t->key = nk;
		t->cap = nc;
	}
	t->key[++t->n] = *k;
	t->slot[j] = t->n;
	return t->n;
}

static int tmap_init(struct tmap *m, size_t n)
{
	size_t cap = 64;

	while (cap < 2 * n)
		cap *= 2;
	m->e = calloc(cap, sizeof(*m->e));
	m->cap = cap;
	return m->e ? 0 : -1;
}

static void tmap_clear(struct tmap *m)
{
	memset(m->e, 0, m->cap * sizeof(*m->e));
}

/* The entry for (a, b, c), a != 0; a fresh one has v == 0. The map never
 * holds more entries than the n it was sized for. */
static struct tent *tmap_get(struct tmap *m, uint32_t a, uint32_t b, uint32_t c)
{
	size_t j = hash3(a, b, c) & (m->cap - 1);

	while (m->e[j].a) {
		if (m->e[j].a == a && m->e[j].b == b && m->e[j].c == c)
			return &m->e[j];
		j = (j + 1) & (m->cap - 1);
	}
	m->e[j].a = a;
	m->e[j].b = b;
	m->e[j].c = c;
	m->e[j].v = 0;
	return &m->e[j];
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
	uint32_t r = x;

	while (parent[r] != r)
		r = parent[r];
	while (parent[x] != r) {
		uint32_t nx = parent[x];
		parent[x] = r;
		x = nx;
	}
	return r;
}

/* Union by smaller index: deterministic, and keeps roots stable enough. */
static int uf_union(uint32_t *parent, uint32_t a, uint32_t b)
{
	a = uf_find(parent, a);
	b = uf_find(parent, b);
	if (a == b)
		return 0;
	if (a < b)
		parent[b] = a;
	else
		parent[a] = b;
	return 1;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "?";
}

/* ================================================================
 * Keys
 * ================================================================ */

static const char *mod_path(const struct dpa_profile *p, uint32_t m)
{
	if (m == 0 || m > p->n_module || !p->module[m].path)
		return "";
	return p->module[m].path;
}

/* Kinds of ps keys, in their canonical order. */
enum { PS_BY_ADDR, PS_BY_NAME, PS_SYNTHETIC };

/* The key of ps `s` of input i (see merge.h): (PS_BY_ADDR, module gid,
 * offset), (PS_BY_NAME, names id of "name\x1ffile", 0) or (PS_SYNTHETIC,
 * names id of the name, 0). Returns 0 when out of memory. */
static int ps_key(struct merger *mg, uint32_t i, uint32_t s, struct tkey *k)
{
	const struct dpa_profile *p = mg->in[i];
	const struct dpa_ps *ps = &p->ps[s];
	char *name;

	k->c = 0;
	if (ps->module == 0 || dpa_src_get(p, DPA_PS_NAME, s)) {
		k->a = ps->module ? PS_BY_NAME : PS_SYNTHETIC;
		name = ps->module ? xfmt("%s\x1f%s", dpa_src_str(p, DPA_PS_NAME, s),
					 dpa_src_get(p, DPA_PS_FILE, s) ? dpa_src_str(p, DPA_PS_FILE, s) : "")
				  : xstrdup(dpa_src_get(p, DPA_PS_NAME, s) ? dpa_src_str(p, DPA_PS_NAME, s) : "");
		k->b = strtab_intern(&mg->names, name);
		return k->b != 0;
	}
	k->a = PS_BY_ADDR;
	k->b = mg->mod_gid[i][ps->module];
	k->c = dpa_ps_offset(p, s);
	return 1;
}

/* The key of css `c` of input i, given its ps gids: (caller gid | callee gid
 * << 32, module gid | kind << 32 | relative << 40, offset), where a site in
 * a named caller is its offset inside the caller (module gid 0, relative 1). */
static void css_key(struct merger *mg, uint32_t i, uint32_t c, struct tkey *k)
{
	const struct dpa_profile *p = mg->in[i];
	const struct dpa_css *cs = &p->css[c];
	const struct dpa_ps *caller = &p->ps[cs->caller_ps];
	const uint32_t *gid = mg->ps_gid[i];

	const uint64_t off = dpa_css_offset(p, c), caller_off = dpa_ps_offset(p, cs->caller_ps);

	k->a = gid[cs->caller_ps] | (uint64_t)(cs->callee_ps ? gid[cs->callee_ps] : 0) << 32;
	if (dpa_src_get(p, DPA_PS_NAME, cs->caller_ps) && caller->module && cs->module == caller->module &&
	    off >= caller_off) {
		k->b = (uint64_t)cs->kind << 32 | 1ULL << 40;
		k->c = off - caller_off;
	} else {
		k->b = (cs->module ? mg->mod_gid[i][cs->module] : 0) | (uint64_t)cs->kind << 32;
		k->c = off;
	}
}

static const struct dpa_module *main_module(const struct dpa_profile *p)
{
	uint32_t m;

	for (m = 1; m <= p->n_module; m++)
		if (p->module[m].path && p->hdr.program &&
		    !strcmp(p->module[m].path, p->hdr.program))
			return &p->module[m];
	return p->n_module ? &p->module[1] : NULL;
}

/* ================================================================
 * Canonical orders of the static records
 * ================================================================ */

struct gid_order {
	const struct strtab *tab;
	const char *first;      /* a key that sorts before all others, or NULL */
};

static int cmp_gid(const void *a, const void *b, void *arg)
{
	const struct gid_order *o = arg;
	const char *x = o->tab->str[*(const uint32_t *)a];
	const char *y = o->tab->str[*(const uint32_t *)b];

	if (o->first) {
		int fx = !strcmp(x, o->first), fy = !strcmp(y, o->first);
		if (fx != fy)
			return fy - fx;
	}
	return strcmp(x, y);
}

/* Fill ord (output id -> gid) and out (gid -> output id) for table t,
 * ordered by key with `first` (may be NULL) before the rest. */
static int order_tab(const struct strtab *t, const char *first, uint32_t **ord, uint32_t **out)
{
	struct gid_order o = { t, first };
	uint32_t i;

	*ord = xcalloc(t->n + 1, sizeof(uint32_t));
	*out = xcalloc(t->n + 1, sizeof(uint32_t));
	if (!*ord || !*out)
		return -1;
	for (i = 1; i <= t->n; i++)
		(*ord)[i] = i;
	qsort_r(*ord + 1, t->n, sizeof(uint32_t), cmp_gid, &o);
	for (i = 1; i <= t->n; i++)
		(*out)[(*ord)[i]] = i;
	return 0;
}

static int cmp3(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* ps gids: <root> first, then by kind, then by module path and offset or
 * by name. Independent of the inputs' order. */
static int cmp_ps(const void *a, const void *b, void *arg)
{
	const struct merger *mg = arg;
	uint32_t ga = *(const uint32_t *)a, gb = *(const uint32_t *)b;
	const struct tkey *x = &mg->pss.key[ga], *y = &mg->pss.key[gb];
	uint32_t root = mg->ps_gid[0][1];
	int c;

	if ((ga == root) != (gb == root))
		return ga == root ? -1 : 1;
	if (x->a != y->a)
		return cmp3(x->a, y->a);
	if (x->a != PS_BY_ADDR)
		return strcmp(mg->names.str[x->b], mg->names.str[y->b]);
	if (x->b != y->b && (c = strcmp(mg->mods.str[x->b], mg->mods.str[y->b])))
		return c;
	return cmp3(x->c, y->c);
}

/* css gids: by caller, relative or not, module, offset, kind, callee, with
 * ps and modules in their output order. */
static int cmp_css(const void *a, const void *b, void *arg)
{
	const struct merger *mg = arg;
	const struct tkey *x = &mg->csss.key[*(const uint32_t *)a];
	const struct tkey *y = &mg->csss.key[*(const uint32_t *)b];
	uint32_t mx = (uint32_t)x->b, my = (uint32_t)y->b;
	uint32_t cx = (uint32_t)(x->a >> 32), cy = (uint32_t)(y->a >> 32);

	if ((uint32_t)x->a != (uint32_t)y->a)
		return cmp3(mg->ps_out[(uint32_t)x->a], mg->ps_out[(uint32_t)y->a]);
	if ((x->b >> 40) != (y->b >> 40))
		return cmp3(x->b >> 40, y->b >> 40);
	if (mx != my)
		return cmp3(mx ? mg->mod_out[mx] : 0, my ? mg->mod_out[my] : 0);
	if (x->c != y->c)
		return cmp3(x->c, y->c);
	if ((uint8_t)(x->b >> 32) != (uint8_t)(y->b >> 32))
		return cmp3((uint8_t)(x->b >> 32), (uint8_t)(y->b >> 32));
	return cmp3(cx ? mg->ps_out[cx] : 0, cy ? mg->ps_out[cy] : 0);
}

/* Fill ord (output id -> gid) and out (gid -> output id) for n gids ordered
 * by cmp. */
static int order_keys(uint32_t n, int (*cmp)(const void *, const void *, void *), void *arg,
		      uint32_t **ord, uint32_t **out)
{
	uint32_t i;

	*ord = xcalloc(n + 1, sizeof(uint32_t));
	*out = xcalloc(n + 1, sizeof(uint32_t));
	if (!*ord || !*out)
		return -1;
	for (i = 1; i <= n; i++)
		(*ord)[i] = i;
	qsort_r(*ord + 1, n, sizeof(uint32_t), cmp, arg);
	for (i = 1; i <= n; i++)
		(*out)[(*ord)[i]] = i;
	return 0;
}

/* ================================================================
 * Building the keys of all inputs
 * ================================================================ */

static int check_same_program(struct merger *mg)
{
	const struct dpa_profile *a = mg->in[0];
	uint32_t i;

	for (i = 1; i < mg->n; i++) {
		const struct dpa_profile *b = mg->in[i];
		const char *ca = a->hdr.clock ? a->hdr.clock : "";
		const char *cb = b->hdr.clock ? b->hdr.clock : "";
		const struct dpa_module *ma = main_module(a), *mb = main_module(b);

		if (strcmp(ca, cb))
			return merr(mg->err, "%s, %s: different clocks (\"%s\" vs \"%s\"): cannot merge",
				    a->path ? a->path : "?", b->path ? b->path : "?", ca, cb);
		if (mg->force)
			continue;
		if (strcmp(a->hdr.program ? a->hdr.program : "", b->hdr.program ? b->hdr.program : ""))
			return merr(mg->err, "%s, %s: different programs (%s vs %s)",
				    a->path ? a->path : "?", b->path ? b->path : "?",
				    a->hdr.program ? a->hdr.program : "?",
				    b->hdr.program ? b->hdr.program : "?");
		if (ma && mb && ma->build_id && mb->build_id && strcmp(ma->build_id, mb->build_id))
			return merr(mg->err, "%s, %s: different builds of %s (build id %s vs %s)",
				    a->path ? a->path : "?", b->path ? b->path : "?",
				    a->hdr.program ? a->hdr.program : "?", ma->build_id, mb->build_id);
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * The keys of input i's threads into mg->thr_gid[i]: "" for thread 1 (the
 * main thread), else its start routines' keys (the procedures its root
 * calls), sorted, and its position among the input's threads with the same
 * start routines. Linear in the input's csds and threads.
 */
static int thread_keys(struct merger *mg, uint32_t i)
{
	const struct dpa_profile *p = mg->in[i];
	uint32_t *root_thread = xcalloc(p->n_pd + 1, sizeof(uint32_t));
	uint32_t *first = xcalloc(p->n_thread + 2, sizeof(uint32_t));
	uint32_t *nsig = NULL, t, c, k;
	uint32_t *names = NULL;
	struct strtab sigs = { 0 };
	int ret = -1;

	if (!root_thread || !first)
		goto out;
	for (t = 1; t <= p->n_thread; t++)
		root_thread[p->thread[t].root_pd] = t;
	/* names[first[t] .. first[t+1]) are thread t's start routines */
	for (c = 1; c <= p->n_csd; c++)
		if ((t = root_thread[p->csd[c].caller_pd]))
			first[t + 1]++;
	for (t = 1; t <= p->n_thread; t++)
		first[t + 1] += first[t];
	names = xcalloc(first[p->n_thread + 1] + 1, sizeof(*names));
	nsig = xcalloc(p->n_thread + 1, sizeof(uint32_t));
	if (!names || !nsig)
		goto out;
	for (c = 1; c <= p->n_csd; c++)
		if ((t = root_thread[p->csd[c].caller_pd]))
			names[first[t]++] = mg->ps_out[mg->ps_gid[i][p->pd[p->csd[c].callee_pd].ps]];
	for (t = p->n_thread; t >= 1; t--)      /* shift back: first[t] is the start again */
		first[t + 1] = first[t];
	first[1] = 0;
	for (t = 1; t <= p->n_thread; t++) {
		uint32_t n = first[t + 1] - first[t], sg;
		uint32_t *nm = names + first[t];
		size_t len = 1;
		char *sig, *key;

		if (t == 1) {
			if (!(mg->thr_gid[i][t] = strtab_intern(&mg->thrs, xstrdup(""))))
				goto out;
			continue;
		}
		qsort(nm, n, sizeof(*nm), cmp_u32);
		len += 11 * (size_t)n;
		sig = malloc(len);
		if (!sig)
			goto out;
		len = 0;
		sig[0] = 0;
		for (k = 0; k < n; k++)
			if (!k || nm[k] != nm[k - 1])
				len += (size_t)sprintf(sig + len, "%010u,", nm[k]);
		if (!(sg = strtab_intern(&sigs, sig)))
			goto out;
		key = xfmt("%s\x1c%010u", sigs.str[sg], nsig[sg]++);
		if (!(mg->thr_gid[i][t] = strtab_intern(&mg->thrs, key)))
			goto out;
	}
	ret = 0;
out:
	strtab_free(&sigs);
	free(root_thread);
	free(first);
	free(names);
	free(nsig);
	return ret;
}

static int build_keys(struct merger *mg)
{
	uint32_t i, k;

	mg->mod_gid = xcalloc(mg->n, sizeof(uint32_t *));
	mg->ps_gid = xcalloc(mg->n, sizeof(uint32_t *));
	mg->css_gid = xcalloc(mg->n, sizeof(uint32_t *));
	mg->thr_gid = xcalloc(mg->n, sizeof(uint32_t *));
	if (!mg->mod_gid || !mg->ps_gid || !mg->css_gid || !mg->thr_gid)
		goto oom;
	for (i = 0; i < mg->n; i++) {
		const struct dpa_profile *p = mg->in[i];

		mg->mod_gid[i] = xcalloc(p->n_module + 1, sizeof(uint32_t));
		mg->ps_gid[i] = xcalloc(p->n_ps + 1, sizeof(uint32_t));
		mg->css_gid[i] = xcalloc(p->n_css + 1, sizeof(uint32_t));
		mg->thr_gid[i] = xcalloc(p->n_thread + 1, sizeof(uint32_t));
		if (!mg->mod_gid[i] || !mg->ps_gid[i] || !mg->css_gid[i] || !mg->thr_gid[i])
			goto oom;
		for (k = 1; k <= p->n_module; k++)
			if (!(mg->mod_gid[i][k] = strtab_intern(&mg->mods, xstrdup(mod_path(p, k)))))
				goto oom;
		for (k = 1; k <= p->n_ps; k++) {
			struct tkey key;
			if (!ps_key(mg, i, k, &key) ||
			    !(mg->ps_gid[i][k] = ttab_intern(&mg->pss, &key)))
				goto oom;
		}
		for (k = 1; k <= p->n_css; k++) {
			struct tkey key;
			css_key(mg, i, k, &key);
			if (!(mg->css_gid[i][k] = ttab_intern(&mg->csss, &key)))
				goto oom;
		}
	}
	/* Orders: the program's module first, <root> first among ps; css and
	 * thread keys use the ps order. */
	if (order_tab(&mg->mods, mg->in[0]->hdr.program, &mg->mod_ord, &mg->mod_out) < 0 ||
	    order_keys(mg->pss.n, cmp_ps, mg, &mg->ps_ord, &mg->ps_out) < 0 ||
	    order_keys(mg->csss.n, cmp_css, mg, &mg->css_ord, &mg->css_out) < 0)
		goto oom;
	for (i = 0; i < mg->n; i++)
		if (thread_keys(mg, i) < 0)
			goto oom;
	if (order_tab(&mg->thrs, NULL, &mg->thr_ord, &mg->thr_out) < 0)
		goto oom;
	return 0;
oom:
	return merr(mg->err, "%s: out of memory while merging", mg->in[0]->path ? mg->in[0]->path : "?");
}

/* ================================================================
 * The congruence closure over all inputs' pds
 * ================================================================ */

static int check_input(const struct dpa_profile *p, struct dpa_error *err)
{
	uint32_t k;
	const char *f = p->path ? p->path : "?";

	if (p->n_ps < 1 || p->ps[1].module != 0)
		return merr(err, "%s: ps 1 is not the synthetic <root>", f);
	for (k = 1; k <= p->n_css; k++)
		if (!p->css[k].caller_ps || p->css[k].caller_ps > p->n_ps ||
		    p->css[k].callee_ps > p->n_ps || p->css[k].module > p->n_module)
			return merr(err, "%s: css %u refers to a record that does not exist", f, k);
	for (k = 1; k <= p->n_ps; k++)
		if (p->ps[k].module > p->n_module)
			return merr(err, "%s: ps %u refers to a module that does not exist", f, k);
	for (k = 1; k <= p->n_pd; k++)
		if (!p->pd[k].ps || p->pd[k].ps > p->n_ps)
			return merr(err, "%s: pd %u refers to a ps that does not exist", f, k);
	for (k = 1; k <= p->n_csd; k++) {
		const struct dpa_csd *d = &p->csd[k];
		if (!d->css || d->css > p->n_css || !d->caller_pd || d->caller_pd > p->n_pd ||
		    !d->callee_pd || d->callee_pd > p->n_pd)
			return merr(err, "%s: csd %u refers to a record that does not exist", f, k);
	}
	for (k = 1; k <= p->n_thread; k++) {
		uint32_t r = p->thread[k].root_pd;
		if (!r || r > p->n_pd || p->pd[r].ps != 1)
			return merr(err, "%s: thread %u: root_pd is not a pd of <root>", f, k);
	}
	return 0;
}

static int close_pds(struct merger *mg)
{
	struct tmap map;
	uint32_t i, k, g;
	size_t e;
	int changed;

	mg->base = xcalloc(mg->n + 1, sizeof(uint32_t));
	if (!mg->base)
		goto oom;
	for (i = 0; i < mg->n; i++) {
		mg->base[i + 1] = mg->base[i] + mg->in[i]->n_pd;
		mg->nedge += mg->in[i]->n_csd;
	}
	mg->npd = mg->base[mg->n];
	mg->parent = xcalloc(mg->npd + 1, sizeof(uint32_t));
	mg->pd_ps = xcalloc(mg->npd + 1, sizeof(uint32_t));
	mg->edge = xcalloc(mg->nedge, sizeof(struct edge));
	if (!mg->parent || !mg->pd_ps || !mg->edge)
		goto oom;
	for (g = 0; g <= mg->npd; g++)
		mg->parent[g] = g;
	e = 0;
	for (i = 0; i < mg->n; i++) {
		const struct dpa_profile *p = mg->in[i];
		for (k = 1; k <= p->n_pd; k++)
			mg->pd_ps[mg->base[i] + k] = mg->ps_gid[i][p->pd[k].ps];
		for (k = 1; k <= p->n_csd; k++, e++) {
			const struct dpa_csd *d = &p->csd[k];
			mg->edge[e].caller = mg->base[i] + d->caller_pd;
			mg->edge[e].callee = mg->base[i] + d->callee_pd;
			mg->edge[e].css = mg->css_gid[i][d->css];
			mg->edge[e].ps = mg->ps_gid[i][p->pd[d->callee_pd].ps];
			mg->edge[e].in = i;
			mg->edge[e].id = k;
		}
	}
	/* Matched threads share one root context. */
	{
		uint32_t *first = xcalloc(mg->thrs.n + 1, sizeof(uint32_t));
		if (!first)
			goto oom;
		for (i = 0; i < mg->n; i++)
			for (k = 1; k <= mg->in[i]->n_thread; k++) {
				uint32_t t = mg->thr_gid[i][k];
				uint32_t r = mg->base[i] + mg->in[i]->thread[k].root_pd;
				if (first[t])
					uf_union(mg->parent, first[t], r);
				else
					first[t] = r;
			}
		free(first);
	}
	/* Same context, same (css, callee ps) => same callee context. Repeat
	 * until a pass unites nothing (each changing pass unites at least two
	 * classes, so this ends). */
	if (tmap_init(&map, mg->nedge) < 0)
		goto oom;
	do {
		changed = 0;
		tmap_clear(&map);
		for (e = 0; e < mg->nedge; e++) {
			struct edge *ed = &mg->edge[e];
			struct tent *t = tmap_get(&map, uf_find(mg->parent, ed->caller), ed->css, ed->ps);
			if (!t->v)
				t->v = ed->callee;
			else if (uf_union(mg->parent, t->v, ed->callee))
				changed = 1;
		}
	} while (changed);
	free(map.e);
	return 0;
oom:
	return merr(mg->err, "%s: out of memory while merging", mg->in[0]->path ? mg->in[0]->path : "?");
}

/* ================================================================
 * The output: canonical numbering and summing
 * ================================================================ */

/* Edges by (caller class, css output id, callee ps output id). */
static int cmp_edge(const void *a, const void *b, void *arg)
{
	const struct merger *cmp_mg = arg;
	const struct edge *x = a, *y = b;
	uint32_t cx = cmp_mg->parent[x->caller], cy = cmp_mg->parent[y->caller];

	if (cx != cy)
		return cx < cy ? -1 : 1;
	if (x->css != y->css)
		return cmp_mg->css_out[x->css] < cmp_mg->css_out[y->css] ? -1 : 1;
	if (x->ps != y->ps)
		return cmp_mg->ps_out[x->ps] < cmp_mg->ps_out[y->ps] ? -1 : 1;
	if (x->in != y->in)
		return x->in < y->in ? -1 : 1;
	return x->id < y->id ? -1 : (x->id > y->id);
}

static int alloc_maps(struct dpa_merged *out, struct merger *mg)
{
	uint32_t i;

	out->n_in = mg->n;
	out->ps_map = xcalloc(mg->n, sizeof(uint32_t *));
	out->pd_map = xcalloc(mg->n, sizeof(uint32_t *));
	out->csd_map = xcalloc(mg->n, sizeof(uint32_t *));
	out->thread_map = xcalloc(mg->n, sizeof(uint32_t *));
	if (!out->ps_map || !out->pd_map || !out->csd_map || !out->thread_map)
		return -1;
	for (i = 0; i < mg->n; i++) {
		const struct dpa_profile *p = mg->in[i];
		if (!(out->ps_map[i] = xcalloc(p->n_ps + 1, sizeof(uint32_t))) ||
		    !(out->pd_map[i] = xcalloc(p->n_pd + 1, sizeof(uint32_t))) ||
		    !(out->csd_map[i] = xcalloc(p->n_csd + 1, sizeof(uint32_t))) ||
		    !(out->thread_map[i] = xcalloc(p->n_thread + 1, sizeof(uint32_t))))
			return -1;
	}
	return 0;
}

static int cmp_argv(const struct dpa_header *a, const struct dpa_header *b)
{
	uint32_t k;

	for (k = 0; k < a->argc && k < b->argc; k++) {
		int c = strcmp(a->argv[k] ? a->argv[k] : "", b->argv[k] ? b->argv[k] : "");
		if (c)
			return c;
	}
	return (a->argc > b->argc) - (a->argc < b->argc);
}

static int build_header(struct dpa_merged *out, struct merger *mg)
{
	struct dpa_header *h = &out->prof.hdr;
	const struct dpa_header *least = &mg->in[0]->hdr;
	uint32_t i, k;

	*h = mg->in[0]->hdr;
	h->program = NULL;
	h->argv = NULL;
	h->clock = NULL;
	h->version = h->min_version = h->sampled ? 2 : 1;   /* all inputs have one clock */
	for (i = 1; i < mg->n; i++) {
		const struct dpa_header *x = &mg->in[i]->hdr;
		if (cmp_argv(x, least) < 0)
			least = x;
		h->record_flags |= x->record_flags;
		h->samples_truncated += x->samples_truncated;
		h->samples_failed += x->samples_failed;
		h->final = h->final && x->final;
		if (x->start_ns < h->start_ns)
			h->start_ns = x->start_ns;
		h->wall_ns += x->wall_ns;
		if (x->timer_hz > h->timer_hz)
			h->timer_hz = x->timer_hz;
		h->cpu_ns += x->cpu_ns;
		h->ticks += x->ticks;
		h->ticks_outside += x->ticks_outside;
		h->calls += x->calls;
		h->cscs += x->cscs;
		h->allocs += x->allocs;
		h->bytes += x->bytes;
		h->allocs_outside += x->allocs_outside;
		h->bytes_outside += x->bytes_outside;
		if (x->mem_bytes > h->mem_bytes)
			h->mem_bytes = x->mem_bytes;
		h->lost += x->lost;
	}
	if (mg->n > 1) {
		h->pid = h->ppid = h->fork_of = 0;
		if (h->ticks)
			h->ns_per_tick = (double)h->cpu_ns / (double)h->ticks;
		else if (h->timer_hz)
			h->ns_per_tick = 1e9 / (double)h->timer_hz;
		else
			h->ns_per_tick = 0;
	}
	h->program = xstrdup(mg->in[0]->hdr.program ? mg->in[0]->hdr.program : "");
	h->clock = xstrdup(mg->in[0]->hdr.clock ? mg->in[0]->hdr.clock : "calls");
	h->argc = least->argc;
	h->argv = xcalloc(least->argc + 1, sizeof(char *));
	if (!h->program || !h->clock || !h->argv)
		return -1;
	for (k = 0; k < least->argc; k++)
		if (!(h->argv[k] = xstrdup(least->argv[k] ? least->argv[k] : "")))
			return -1;
	return 0;
}

static int build_statics(struct dpa_merged *out, struct merger *mg)
{
	struct dpa_profile *o = &out->prof;
	uint32_t i, k;
	bool *seen_mod = NULL, *seen_ps = NULL, *seen_css = NULL, *bid_conflict = NULL;
	int ret = -1;

	o->n_module = mg->mods.n;
	if (o->n_module > DPA_MAX_MODULES) {     /* a css keeps 29 bits of module id */
		merr(mg->err, "merge: more than %u modules", DPA_MAX_MODULES);
		return -1;
	}
	o->n_ps = mg->pss.n;
	o->n_css = mg->csss.n;
	o->module = xcalloc(o->n_module + 1, sizeof(*o->module));
	o->ps = xcalloc(o->n_ps + 1, sizeof(*o->ps));
	o->css = xcalloc(o->n_css + 1, sizeof(*o->css));
	seen_mod = xcalloc(o->n_module + 1, sizeof(bool));
	bid_conflict = xcalloc(o->n_module + 1, sizeof(bool));
	seen_ps = xcalloc(o->n_ps + 1, sizeof(bool));
	seen_css = xcalloc(o->n_css + 1, sizeof(bool));
	if (!o->module || !o->ps || !o->css || !seen_mod || !seen_ps || !seen_css || !bid_conflict)
		goto out;
	for (i = 0; i < mg->n; i++) {
		const struct dpa_profile *p = mg->in[i];
		for (k = 1; k <= p->n_module; k++) {
			uint32_t id = mg->mod_out[mg->mod_gid[i][k]];
			struct dpa_module *m = &o->module[id];
			const struct dpa_module *x = &p->module[k];
			if (!seen_mod[id]) {
				seen_mod[id] = true;
				m->path = xstrdup(mod_path(p, k));
				m->base = x->base;
				m->size = x->size;
				if (!m->path)
					goto out;
				if (x->build_id && !(m->build_id = xstrdup(x->build_id)))
					goto out;
				bid_conflict[id] = !x->build_id;
				continue;
			}
			if (x->base < m->base)
				m->base = x->base;
			if (x->size > m->size)
				m->size = x->size;
			if (!x->build_id || !m->build_id || strcmp(x->build_id, m->build_id))
				bid_conflict[id] = true;
		}
		for (k = 1; k <= p->n_ps; k++) {
			uint32_t id = mg->ps_out[mg->ps_gid[i][k]];
			struct dpa_ps *s = &o->ps[id];
			const struct dpa_ps *x = &p->ps[k];
			if (!seen_ps[id]) {
				seen_ps[id] = true;
				s->module = x->module ? mg->mod_out[mg->mod_gid[i][x->module]] : 0;
				if (dpa_ps_set_offset(o, id, dpa_ps_offset(p, k)) < 0 ||
				    dpa_src_set(o, DPA_PS_LINE, id, dpa_src_get(p, DPA_PS_LINE, k)) < 0 ||
				    copy_src_str(o, id, p, k, DPA_PS_NAME) < 0 ||
				    copy_src_str(o, id, p, k, DPA_PS_FILE) < 0)
					goto out;
				continue;
			}
			if (dpa_ps_offset(p, k) < dpa_ps_offset(o, id) &&
			    dpa_ps_set_offset(o, id, dpa_ps_offset(p, k)) < 0)
				goto out;
			if (max_src(o, id, DPA_PS_LINE, dpa_src_get(p, DPA_PS_LINE, k)) < 0)
				goto out;
			if (!dpa_src_get(o, DPA_PS_FILE, id) && copy_src_str(o, id, p, k, DPA_PS_FILE) < 0)
				goto out;
		}
		for (k = 1; k <= p->n_css; k++) {
			uint32_t id = mg->css_out[mg->css_gid[i][k]];
			struct dpa_css *c = &o->css[id];
			const struct dpa_css *x = &p->css[k];
			if (!seen_css[id]) {
				seen_css[id] = true;
				c->caller_ps = mg->ps_out[mg->ps_gid[i][x->caller_ps]];
				c->module = x->module ? mg->mod_out[mg->mod_gid[i][x->module]] : 0;
				c->kind = x->kind;
				c->callee_ps = x->callee_ps ? mg->ps_out[mg->ps_gid[i][x->callee_ps]] : 0;
				if (dpa_css_set_offset(o, id, dpa_css_offset(p, k)) < 0 ||
				    dpa_src_set(o, DPA_CSS_LINE, id, dpa_src_get(p, DPA_CSS_LINE, k)) < 0 ||
				    dpa_src_set(o, DPA_CSS_COL, id, dpa_src_get(p, DPA_CSS_COL, k)) < 0 ||
				    copy_src_str(o, id, p, k, DPA_CSS_FILE) < 0 ||
				    copy_src_str(o, id, p, k, DPA_CSS_IN_FN) < 0)
					goto out;
				continue;
			}
			if (dpa_css_offset(p, k) < dpa_css_offset(o, id) &&
			    dpa_css_set_offset(o, id, dpa_css_offset(p, k)) < 0)
				goto out;
			if (max_src(o, id, DPA_CSS_LINE, dpa_src_get(p, DPA_CSS_LINE, k)) < 0 ||
			    max_src(o, id, DPA_CSS_COL, dpa_src_get(p, DPA_CSS_COL, k)) < 0)
				goto out;
			if (!dpa_src_get(o, DPA_CSS_FILE, id) && copy_src_str(o, id, p, k, DPA_CSS_FILE) < 0)
				goto out;
			if (!dpa_src_get(o, DPA_CSS_IN_FN, id) && copy_src_str(o, id, p, k, DPA_CSS_IN_FN) < 0)
				goto out;
		}
		for (k = 1; k <= p->n_ps; k++)
			out->ps_map[i][k] = mg->ps_out[mg->ps_gid[i][k]];
	}
	for (k = 1; k <= o->n_module; k++)
		if (bid_conflict[k]) {
			free(o->module[k].build_id);
			o->module[k].build_id = NULL;
		}
	dpa_src_trim(o);
	ret = 0;
out:
	free(seen_mod);
	free(seen_ps);
	free(seen_css);
	free(bid_conflict);
	return ret;
}

static int build_graph(struct dpa_merged *out, struct merger *mg)
{
	struct dpa_profile *o = &out->prof;
	uint32_t *canon = NULL, *queue = NULL, *first = NULL, *cnt = NULL, *thr_root = NULL;
	uint32_t i, k, t, head, tail, npd = 0, ncsd = 0, nclass = 0, g;
	size_t e;
	int ret = -1;

	/* Flatten union-find so the sort can read parent[] directly. */
	for (g = 1; g <= mg->npd; g++)
		uf_find(mg->parent, g);
	for (g = 1; g <= mg->npd; g++)
		mg->parent[g] = uf_find(mg->parent, g);
	for (g = 1; g <= mg->npd; g++)
		if (mg->parent[g] == g)
			nclass++;
	if (mg->nedge)
		qsort_r(mg->edge, mg->nedge, sizeof(*mg->edge), cmp_edge, mg);

	canon = xcalloc(mg->npd + 1, sizeof(uint32_t));
	queue = xcalloc(nclass + 1, sizeof(uint32_t));
	first = xcalloc(mg->npd + 1, sizeof(uint32_t));
	cnt = xcalloc(mg->npd + 1, sizeof(uint32_t));
	thr_root = xcalloc(mg->thrs.n + 1, sizeof(uint32_t));
	o->n_thread = mg->thrs.n;
	o->thread = xcalloc(o->n_thread + 1, sizeof(*o->thread));
	o->pd = xcalloc(nclass + 2, sizeof(*o->pd));    /* + the sentinel */
	if (dpa_csd_reserve(o, mg->nedge) < 0)
		o->csd = NULL;
	out->bfs_parent_csd = xcalloc(nclass + 1, sizeof(uint32_t));
	if (!canon || !queue || !first || !cnt || !thr_root || !o->thread || !o->pd || !o->csd ||
	    !out->bfs_parent_csd)
		goto oom;
	for (e = mg->nedge; e-- > 0;) {
		uint32_t c = mg->parent[mg->edge[e].caller];
		first[c] = (uint32_t)e;
		cnt[c]++;
	}
	/* Threads: the root class and the summed costs. */
	for (i = 0; i < mg->n; i++)
		for (k = 1; k <= mg->in[i]->n_thread; k++) {
			const struct dpa_thread *x = &mg->in[i]->thread[k];
			uint32_t id = mg->thr_out[mg->thr_gid[i][k]];
			struct dpa_thread *th = &o->thread[id];
			out->thread_map[i][k] = id;
			if (!thr_root[id]) {
				thr_root[id] = mg->parent[mg->base[i] + x->root_pd];
				*th = *x;
				continue;
			}
			if (x->tid < th->tid)
				th->tid = x->tid;
			th->cpu_ns += x->cpu_ns;
			th->ticks += x->ticks;
			th->ticks_outside += x->ticks_outside;
			th->allocs_outside += x->allocs_outside;
			th->bytes_outside += x->bytes_outside;
			th->exited = th->exited && x->exited;
		}
	/* Breadth first from each root, thread by thread; pds are numbered as
	 * they are found and csds as their caller is taken off the queue, so
	 * csds come out ordered by (caller pd, css, callee ps). */
	for (t = 1; t <= o->n_thread; t++) {
		uint32_t r = thr_root[t];
		if (canon[r]) {
			merr(mg->err, "%s: two threads share one root context", mg->in[0]->path ? mg->in[0]->path : "?");
			goto out;
		}
		canon[r] = ++npd;
		o->pd[npd].ps = mg->ps_out[mg->pd_ps[r]];
		o->thread[t].root_pd = npd;
		o->thread[t].first_pd = npd;    /* its pds are numbered from here on */
		head = tail = 0;
		queue[tail++] = r;
		while (head < tail) {
			uint32_t x = queue[head++];
			size_t a = first[x], end = first[x] + cnt[x];
			if (!cnt[x])
				continue;
			while (a < end) {
				size_t b = a;
				struct dpa_csd *d = &o->csd[++ncsd];
				uint32_t y = mg->parent[mg->edge[a].callee];
				while (b < end && mg->edge[b].css == mg->edge[a].css &&
				       mg->edge[b].ps == mg->edge[a].ps) {
					const struct edge *ed = &mg->edge[b];
					const struct dpa_profile *xp = mg->in[ed->in];
					int m;
					if (mg->parent[ed->callee] != y) {
						merr(mg->err, "merge: internal error: closure not reached");
						goto out;
					}
					for (m = 0; m < DPA_NMEASURES; m++)
						if (dpa_csd_add(o, ncsd, m, dpa_own(xp, ed->id, m)) < 0) {
							merr(mg->err, "%s: out of memory while merging", mg->in[0]->path ? mg->in[0]->path : "?");
							goto out;
						}
					out->csd_map[ed->in][ed->id] = ncsd;
					b++;
				}
				if (!canon[y]) {
					canon[y] = ++npd;
					o->pd[npd].ps = mg->ps_out[mg->pd_ps[y]];
					out->bfs_parent_csd[npd] = ncsd;
					queue[tail++] = y;
				}
				d->css = mg->css_out[mg->edge[a].css];
				d->caller_pd = canon[x];
				d->callee_pd = canon[y];
				a = b;
			}
		}
	}
	if (npd != nclass) {
		for (i = 0; i < mg->n; i++)
			for (k = 1; k <= mg->in[i]->n_pd; k++)
				if (!canon[mg->parent[mg->base[i] + k]]) {
					merr(mg->err, "%s: pd %u is not reachable from a thread's root",
					     mg->in[i]->path ? mg->in[i]->path : "?", k);
					goto out;
				}
	}
	o->n_pd = npd;
	o->n_csd = ncsd;
	dpa_csd_pack(o);
	for (i = 0; i < mg->n; i++)
		for (k = 1; k <= mg->in[i]->n_pd; k++)
			out->pd_map[i][k] = canon[mg->parent[mg->base[i] + k]];
	/* Index arrays: out_perm is the identity (csds are grouped by caller),
	 * so it is not stored; in_perm by counting sort on the callee. */
	o->out_perm = NULL;
	o->in_perm = xcalloc(ncsd + 1, sizeof(uint32_t));
	if (!o->in_perm)
		goto oom;
	/* pds are numbered in the order their csds were made, so the groups
	 * follow pd order, as struct dpa_pd needs */
	for (k = 1; k < ncsd; k++) {
		if (o->csd[k + 1].caller_pd < o->csd[k].caller_pd) {
			merr(mg->err, "merge: internal error: csds not grouped by caller");
			goto out;
		}
	}
	for (k = 1; k <= ncsd; k++) {
		o->pd[o->csd[k].caller_pd].out_first++;         /* counts, then ends */
		o->pd[o->csd[k].callee_pd].in_first++;
	}
	{
		uint32_t out_pos = 0, in_pos = 0;
		for (k = 1; k <= npd; k++) {
			out_pos += o->pd[k].out_first;
			o->pd[k].out_first = out_pos - o->pd[k].out_first;     /* start */
			in_pos += o->pd[k].in_first;
			o->pd[k].in_first = in_pos;                            /* end */
		}
		o->pd[npd + 1].out_first = o->pd[npd + 1].in_first = ncsd;
		for (k = ncsd; k >= 1; k--)
			o->in_perm[--o->pd[o->csd[k].callee_pd].in_first] = k;
	}
	dpa_profile_compact(o);        /* pd_thread is NULL: threads are ranges */
	ret = 0;
	goto out;
oom:
	merr(mg->err, "%s: out of memory while merging", mg->in[0]->path ? mg->in[0]->path : "?");
out:
	free(canon);
	free(queue);
	free(first);
	free(cnt);
	free(thr_root);
	return ret;
}

/*
 * A check build's findings (schemas/deep-data.md, check): regions with the
 * same function, file and calls are one; their executions add up, and so
 * do those of each conflict (by calls and kind: the first example kept)
 * and of each opaque call (by call and callee). Strings stay the inputs'.
 */
static bool same_region(const struct dpa_check_region *a, const struct dpa_check_region *b)
{
	if (a->n_calls != b->n_calls || a->loop != b->loop || strcmp(a->fn, b->fn) ||
	    strcmp(a->file, b->file))
		return false;
	for (uint32_t k = 0; k < a->n_calls; k++)
		if (a->calls[k].line != b->calls[k].line || a->calls[k].col != b->calls[k].col ||
		    strcmp(a->calls[k].callee, b->calls[k].callee))
			return false;
	return true;
}

static int example_cmp(const struct dpa_check_conflict *a, const struct dpa_check_conflict *b)
{
	int c = strcmp(a->loc_i, b->loc_i);

	if (!c)
		c = strcmp(a->loc_j, b->loc_j);
	if (!c)
		c = strcmp(a->var_i, b->var_i);
	if (!c)
		c = strcmp(a->var_j, b->var_j);
	if (!c && a->size != b->size)
		c = a->size < b->size ? -1 : 1;
	if (!c && a->addr != b->addr)
		c = a->addr < b->addr ? -1 : 1;
	return c;
}

static int region_cmp(const void *pa, const void *pb)
{
	const struct dpa_check_region *a = pa, *b = pb;
	int c = strcmp(a->fn, b->fn);

	if (!c)
		c = strcmp(a->file, b->file);
	for (uint32_t k = 0; !c && k < a->n_calls && k < b->n_calls; k++) {
		if (a->calls[k].line != b->calls[k].line)
			c = a->calls[k].line < b->calls[k].line ? -1 : 1;
		else if (a->calls[k].col != b->calls[k].col)
			c = a->calls[k].col < b->calls[k].col ? -1 : 1;
		else
			c = strcmp(a->calls[k].callee, b->calls[k].callee);
	}
	if (!c && a->n_calls != b->n_calls)
		c = a->n_calls < b->n_calls ? -1 : 1;
	if (!c && a->loop != b->loop)
		c = a->loop ? 1 : -1;
	return c;
}

static int conflict_cmp(const void *pa, const void *pb)
{
	const struct dpa_check_conflict *a = pa, *b = pb;

	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	if (a->j != b->j)
		return a->j < b->j ? -1 : 1;
	return strcmp(a->kind, b->kind);
}

static int opaque_cmp(const void *pa, const void *pb)
{
	const struct dpa_check_opaque *a = pa, *b = pb;

	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	return strcmp(a->callee, b->callee);
}

/* s interned in o's strings (the inputs may be released before o is
 * written); NULL when out of memory. */
static const char *own_str(struct dpa_profile *o, const char *s)
{
	uint32_t id = dpa_str_id(o, s);

	return id ? dpa_str(o, id) : NULL;
}

/* The strings of a conflict and of an opaque call, interned in o. */
static bool own_conflict(struct dpa_profile *o, struct dpa_check_conflict *c)
{
	return (c->kind = own_str(o, c->kind)) && (c->loc_i = own_str(o, c->loc_i)) &&
	       (c->loc_j = own_str(o, c->loc_j)) && (c->var_i = own_str(o, c->var_i)) &&
	       (c->var_j = own_str(o, c->var_j));
}

static bool own_opaque(struct dpa_profile *o, struct dpa_check_opaque *q)
{
	return (q->callee = own_str(o, q->callee)) && (q->loc = own_str(o, q->loc));
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static int merge_check(struct dpa_merged *out, struct merger *mg)
{
	struct dpa_profile *o = &out->prof;
	uint32_t total = 0;

	for (uint32_t i = 0; i < mg->n; i++)
		if (mg->in[i]->has_check) {
			o->has_check = true;
			o->check_lost = sat_add(o->check_lost, mg->in[i]->check_lost);
			total += mg->in[i]->n_check;
		}
	if (!total)
		return 0;
	if (!(o->check = xcalloc(total, sizeof(*o->check))))
		goto oom;
	for (uint32_t i = 0; i < mg->n; i++)
		for (uint32_t r = 0; r < mg->in[i]->n_check; r++) {
			const struct dpa_check_region *x = &mg->in[i]->check[r];
			struct dpa_check_region *g = NULL;

			for (uint32_t k = 0; k < o->n_check && !g; k++)
				if (same_region(&o->check[k], x))
					g = &o->check[k];
			if (!g) {
				g = &o->check[o->n_check++];
				g->n_calls = x->n_calls;
				g->loop = x->loop;
				if (!(g->fn = own_str(o, x->fn)) || !(g->file = own_str(o, x->file)) ||
				    !(g->calls = malloc(x->n_calls * sizeof(*g->calls))))
					goto oom;
				memcpy(g->calls, x->calls, x->n_calls * sizeof(*g->calls));
				for (uint32_t k = 0; k < g->n_calls; k++)
					if (!(g->calls[k].callee = own_str(o, x->calls[k].callee)))
						goto oom;
			}
			g->executions = sat_add(g->executions, x->executions);
			for (uint32_t c = 0; c < x->n_conflicts; c++) {
				const struct dpa_check_conflict *y = &x->conflicts[c];
				uint32_t k = 0;

				while (k < g->n_conflicts && (g->conflicts[k].i != y->i || g->conflicts[k].j != y->j ||
							      strcmp(g->conflicts[k].kind, y->kind)))
					k++;
				if (k == g->n_conflicts) {
					void *nv = realloc(g->conflicts, (k + 1) * sizeof(*g->conflicts));

					if (!nv)
						goto oom;
					g->conflicts = nv;
					g->conflicts[g->n_conflicts] = *y;
					if (!own_conflict(o, &g->conflicts[g->n_conflicts++]))
						goto oom;
				} else {
					uint64_t e = sat_add(g->conflicts[k].executions, y->executions);

					/* the example: the least, whatever the order of the runs */
					if (example_cmp(y, &g->conflicts[k]) < 0) {
						g->conflicts[k] = *y;
						if (!own_conflict(o, &g->conflicts[k]))
							goto oom;
					}
					g->conflicts[k].executions = e;
				}
			}
			for (uint32_t c = 0; c < x->n_opaque; c++) {
				const struct dpa_check_opaque *y = &x->opaque[c];
				uint32_t k = 0;

				while (k < g->n_opaque && (g->opaque[k].k != y->k || strcmp(g->opaque[k].callee, y->callee)))
					k++;
				if (k == g->n_opaque) {
					void *nv = realloc(g->opaque, (k + 1) * sizeof(*g->opaque));

					if (!nv)
						goto oom;
					g->opaque = nv;
					g->opaque[g->n_opaque] = *y;
					if (!own_opaque(o, &g->opaque[g->n_opaque++]))
						goto oom;
				} else {
					uint64_t e = sat_add(g->opaque[k].executions, y->executions);

					if (strcmp(y->loc, g->opaque[k].loc) < 0) {
						g->opaque[k] = *y;
						if (!own_opaque(o, &g->opaque[k]))
							goto oom;
					}
					g->opaque[k].executions = e;
				}
			}
		}
	/* a canonical order, as the records' (merge.h) */
	qsort(o->check, o->n_check, sizeof(*o->check), region_cmp);
	for (uint32_t k = 0; k < o->n_check; k++) {
		if (o->check[k].n_conflicts > 1)
			qsort(o->check[k].conflicts, o->check[k].n_conflicts, sizeof(*o->check[k].conflicts),
			      conflict_cmp);
		if (o->check[k].n_opaque > 1)
			qsort(o->check[k].opaque, o->check[k].n_opaque, sizeof(*o->check[k].opaque), opaque_cmp);
	}
	return 0;
oom:
	return merr(mg->err, "%s: out of memory while merging", mg->in[0]->path ? mg->in[0]->path : "?");
}

/*
 * The split of recursions (schemas/deep-data.md, inside): summed per output
 * csd, and the samples summed, when some input measured it. A csd that
 * called back into its own pd still does once merged (its caller and
 * callee contexts are one class), so the sums stay valid.
 */
static int merge_inside(struct dpa_merged *out, struct merger *mg)
{
	struct dpa_profile *o = &out->prof;
	uint64_t *sum = NULL;
	uint32_t i, k, n = 0;

	for (i = 0; i < mg->n; i++)
		if (mg->in[i]->has_inside) {
			o->has_inside = true;
			if (__builtin_add_overflow(o->inside_samples, mg->in[i]->inside_samples,
						   &o->inside_samples))
				return merr(mg->err, "%s: the merged inside_samples do not fit in 64 bits",
					    mg->in[i]->path ? mg->in[i]->path : "?");
		}
	if (!o->has_inside)
		return 0;
	if (!(sum = xcalloc((size_t)o->n_csd + 1, sizeof(*sum))))
		goto oom;
	for (i = 0; i < mg->n; i++)
		for (k = 0; k < mg->in[i]->n_inside; k++) {
			const struct dpa_inside *x = &mg->in[i]->inside[k];
			uint32_t c = out->csd_map[i][x->csd];

			if (__builtin_add_overflow(sum[c], x->inside, &sum[c])) {
				free(sum);
				return merr(mg->err, "%s: a merged inside value does not fit in 64 bits",
					    mg->in[i]->path ? mg->in[i]->path : "?");
			}
		}
	for (k = 1; k <= o->n_csd; k++)
		n += sum[k] != 0;
	if (n && !(o->inside = malloc((size_t)n * sizeof(*o->inside))))
		goto oom;
	for (k = 1; k <= o->n_csd; k++)
		if (sum[k])
			o->inside[o->n_inside++] = (struct dpa_inside){ k, sum[k] };
	free(sum);
	return 0;
oom:
	free(sum);
	return merr(mg->err, "%s: out of memory while merging", mg->in[0]->path ? mg->in[0]->path : "?");
}

/* Free a per-input table of n rows (each row may be NULL) and the table. */
static void free_rows(uint32_t **rows, uint32_t n)
{
	if (!rows)
		return;
	for (uint32_t i = 0; i < n; i++)
		free(rows[i]);
	free(rows);
}

static void merger_free(struct merger *mg)
{
	free_rows(mg->mod_gid, mg->n);
	free_rows(mg->ps_gid, mg->n);
	free_rows(mg->css_gid, mg->n);
	free_rows(mg->thr_gid, mg->n);
	strtab_free(&mg->mods);
	strtab_free(&mg->names);
	ttab_free(&mg->pss);
	ttab_free(&mg->csss);
	strtab_free(&mg->thrs);
	free(mg->mod_out);
	free(mg->ps_out);
	free(mg->css_out);
	free(mg->thr_out);
	free(mg->mod_ord);
	free(mg->ps_ord);
	free(mg->css_ord);
	free(mg->thr_ord);
	free(mg->base);
	free(mg->parent);
	free(mg->pd_ps);
	free(mg->edge);
}

/* ================================================================
 * Public entry points
 * ================================================================ */

int dpa_merge(struct dpa_merged *out, const struct dpa_profile *const *in, uint32_t n,
	      const struct dpa_merge_options *opt, struct dpa_error *err)
{
	struct merger mg = { 0 };
	uint32_t i;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (n < 1)
		return merr(err, "merge: no profiles to merge");
	for (i = 0; i < n; i++)
		if (check_input(in[i], err) < 0)
			return -1;
	mg.in = in;
	mg.n = n;
	mg.force = opt && opt->force;
	mg.err = err;
	if (check_same_program(&mg) < 0)
		return -1;
	if (build_keys(&mg) < 0 || close_pds(&mg) < 0)
		goto out;
	if (alloc_maps(out, &mg) < 0 || build_header(out, &mg) < 0) {
		merr(err, "%s: out of memory while merging", in[0]->path ? in[0]->path : "?");
		goto out;
	}
	if (build_statics(out, &mg) < 0) {
		merr(err, "%s: out of memory while merging", in[0]->path ? in[0]->path : "?");
		goto out;
	}
	if (build_graph(out, &mg) < 0 || merge_inside(out, &mg) < 0 || merge_check(out, &mg) < 0)
		goto out;
	out->prof.path = xstrdup(n == 1 && in[0]->path ? in[0]->path : "(merged)");
	ret = 0;
out:
	merger_free(&mg);
	if (ret < 0)
		dpa_merged_release(out);
	return ret;
}

void dpa_merged_release(struct dpa_merged *m)
{
	struct dpa_profile *o;
	uint32_t i;

	if (!m)
		return;
	o = &m->prof;
	free_rows(m->ps_map, m->n_in);
	free_rows(m->pd_map, m->n_in);
	free_rows(m->csd_map, m->n_in);
	free_rows(m->thread_map, m->n_in);
	free(m->bfs_parent_csd);
	free(o->path);
	free(o->hdr.program);
	free(o->hdr.clock);
	if (o->hdr.argv)
		for (i = 0; i < o->hdr.argc; i++)
			free(o->hdr.argv[i]);
	free(o->hdr.argv);
	if (o->module)
		for (i = 1; i <= o->n_module; i++) {
			free(o->module[i].path);
			free(o->module[i].build_id);
		}
	dpa_strtab_free(o->strings);     /* ps and css strings */
	free(o->module);
	free(o->ps);
	free(o->css);
	free(o->pd);
	dpa_csd_release(o);
	free(o->thread);
	free(o->out_perm);
	free(o->in_perm);
	free(o->pd_thread);
	free(o->inside);
	for (uint32_t i = 0; i < o->n_check; i++) {
		free(o->check[i].calls);
		free(o->check[i].conflicts);
		free(o->check[i].opaque);
	}
	free(o->check);
	dpa_src_release(o);
	memset(m, 0, sizeof(*m));
}

const char *dpa_merge_ps_label(const struct dpa_profile *p, uint32_t ps, char *buf, size_t n)
{
	const struct dpa_ps *s;

	if (!ps || ps > p->n_ps) {
		snprintf(buf, n, "<ps %u>", ps);
		return buf;
	}
	s = &p->ps[ps];
	if (dpa_src_get(p, DPA_PS_NAME, ps))
		snprintf(buf, n, "%s", dpa_src_str(p, DPA_PS_NAME, ps));
	else if (s->module && s->module <= p->n_module)
		snprintf(buf, n, "0x%llx in %s", (unsigned long long)dpa_ps_offset(p, ps),
			 base_name(p->module[s->module].path));
	else
		snprintf(buf, n, "<ps %u>", ps);
	return buf;
}

/* ================================================================
 * Canonical text
 * ================================================================ */

static void put_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("-", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

char *dpa_merged_canon(const struct dpa_merged *m, struct dpa_error *err)
{
	const struct dpa_profile *p = &m->prof;
	const struct dpa_header *h = &p->hdr;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uint32_t k;
	int j;

	if (!f) {
		merr(err, "canon: out of memory");
		return NULL;
	}
	fprintf(f, "header program=");
	put_str(f, h->program);
	fprintf(f, " argv=[");
	for (k = 0; k < h->argc; k++) {
		fputs(k ? " " : "", f);
		put_str(f, h->argv[k]);
	}
	fprintf(f, "] pid=%llu ppid=%llu fork_of=%llu final=%d start_ns=%llu wall_ns=%llu clock=",
		(unsigned long long)h->pid, (unsigned long long)h->ppid,
		(unsigned long long)h->fork_of, h->final, (unsigned long long)h->start_ns,
		(unsigned long long)h->wall_ns);
	put_str(f, h->clock);
	fprintf(f, " timer_hz=%llu cpu_ns=%llu ticks=%llu ticks_outside=%llu ns_per_tick=%.17g"
		" calls=%llu cscs=%llu allocs=%llu bytes=%llu allocs_outside=%llu bytes_outside=%llu"
		" mem_bytes=%llu lost=%llu\n",
		(unsigned long long)h->timer_hz, (unsigned long long)h->cpu_ns,
		(unsigned long long)h->ticks, (unsigned long long)h->ticks_outside, h->ns_per_tick,
		(unsigned long long)h->calls, (unsigned long long)h->cscs,
		(unsigned long long)h->allocs, (unsigned long long)h->bytes,
		(unsigned long long)h->allocs_outside, (unsigned long long)h->bytes_outside,
		(unsigned long long)h->mem_bytes, (unsigned long long)h->lost);
	for (k = 1; k <= p->n_module; k++) {
		fprintf(f, "module %u ", k);
		put_str(f, p->module[k].path);
		fprintf(f, " base=%llx size=%llx build_id=", (unsigned long long)p->module[k].base,
			(unsigned long long)p->module[k].size);
		put_str(f, p->module[k].build_id);
		fputc('\n', f);
	}
	for (k = 1; k <= p->n_ps; k++) {
		const struct dpa_ps *s = &p->ps[k];
		fprintf(f, "ps %u module=%u offset=%llx name=", k, s->module,
			(unsigned long long)dpa_ps_offset(p, k));
		put_str(f, dpa_src_str(p, DPA_PS_NAME, k));
		fprintf(f, " file=");
		put_str(f, dpa_src_str(p, DPA_PS_FILE, k));
		fprintf(f, " line=%u\n", dpa_src_get(p, DPA_PS_LINE, k));
	}
	for (k = 1; k <= p->n_css; k++) {
		const struct dpa_css *c = &p->css[k];
		fprintf(f, "css %u caller_ps=%u module=%u offset=%llx kind=%u callee_ps=%u file=", k,
			c->caller_ps, c->module, (unsigned long long)dpa_css_offset(p, k), c->kind, c->callee_ps);
		put_str(f, dpa_src_str(p, DPA_CSS_FILE, k));
		fprintf(f, " line=%u col=%u\n", dpa_src_get(p, DPA_CSS_LINE, k), dpa_src_get(p, DPA_CSS_COL, k));
	}
	for (k = 1; k <= p->n_pd; k++)
		fprintf(f, "pd %u ps=%u thread=%u\n", k, p->pd[k].ps, dpa_pd_thread(p, k));
	for (k = 1; k <= p->n_csd; k++) {
		const struct dpa_csd *d = &p->csd[k];
		fprintf(f, "csd %u css=%u %u->%u", k, d->css, d->caller_pd, d->callee_pd);
		for (j = 0; j < DPA_NMEASURES; j++)
			fprintf(f, " %llu", (unsigned long long)dpa_own(p, k, j));
		fputc('\n', f);
	}
	for (k = 1; k <= p->n_thread; k++) {
		const struct dpa_thread *t = &p->thread[k];
		fprintf(f, "thread %u tid=%llu root_pd=%u cpu_ns=%llu ticks=%llu ticks_outside=%llu"
			" allocs_outside=%llu bytes_outside=%llu exited=%d\n", k,
			(unsigned long long)t->tid, t->root_pd, (unsigned long long)t->cpu_ns,
			(unsigned long long)t->ticks, (unsigned long long)t->ticks_outside,
			(unsigned long long)t->allocs_outside, (unsigned long long)t->bytes_outside,
			t->exited);
	}
	if (fclose(f) != 0) {
		free(buf);
		merr(err, "canon: out of memory");
		return NULL;
	}
	return buf;
}

char *dpa_profile_canon(const struct dpa_profile *p, struct dpa_error *err)
{
	struct dpa_merged m;
	char *s;

	if (dpa_merge(&m, &p, 1, NULL, err) < 0)
		return NULL;
	s = dpa_merged_canon(&m, err);
	dpa_merged_release(&m);
	return s;
}
