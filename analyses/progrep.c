/*
 * progrep.c — read and validate the program representation the deepprof
 * GCC plugin leaves in .deepprof.progrep (schemas/progrep.md), check the
 * function checksums against the sources, and map a profile's ps and css to
 * their records. Part of deepprof's analyses library. MIT licence.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <jansson.h>

#include "progrep.h"
#include "strtab.h"

#define SECTION ".deepprof.progrep"
#define CSS_SIZE 48             /* sizeof(struct dp_css_static), plugin-abi.md */
#define PS_SIZE 32              /* sizeof(struct dp_ps_static) */
#define CSS_INDEX_AT 36
#define CSS_TUID_AT 40
#define MAX_DEPTH 200           /* nesting of bodies we follow */
#define VERSION_MIN 1           /* the oldest record version read (1: no use/store items) */

/* ---- private types ---- */

struct chunk {
	struct chunk *next;
	size_t used, size;
	_Alignas(16) char data[];
};

/* Where the record of a partial function (dpa_pr_fn.partial) is: its text
 * (the section's while it is mapped, then a copy in the arena) and line. */
struct deferred {
	const char *text;
	size_t len;
	unsigned line;
};

/* What a dpa_progrep owns besides its arrays' headers: the arena and strings. */
struct pool {
	struct chunk *chunks;
	struct dpa_strtab *strs;
	struct dpa_pr_tu **by_id;   /* the TUs sorted by id, once all are read; NULL before */
	uint64_t steps;             /* work done reading: dpa_progrep_steps() */
	struct deferred *deferred;  /* read lazily: per function, [n_fn]; else NULL */
	char *failed;               /* the first failure of dpa_progrep_fn_load(), or NULL
				     * (also when there was no memory to copy it) */
	uint32_t n_failed;          /* dpa_progrep_fn_load()'s failures */
};

/* A hash table from 64-bit keys to pointers (open addressing, linear
 * probing): the TUs by id while a section is read, the source files by
 * their interned name while checksums are checked. */
struct map {
	uint64_t *key;
	void **val;             /* NULL: an empty slot */
	size_t n, cap;          /* cap: 0 or a power of 2 */
};

/* A source file read for checksums (one read per file per progrep), with
 * where each of its lines starts, so that a function's checksum hashes its
 * own lines only instead of scanning the file from the top every time. */
struct srcfile {
	struct srcfile *next;
	char *text;             /* NULL: unreadable */
	size_t len;
	size_t n_nl;            /* newlines in text */
	size_t *line_at;        /* [n_nl + 1]: where line k + 1 starts (line_at[0] = 0) */
};

/* Parsing state: where we are, for the error line. */
struct parse {
	struct dpa_progrep *pr;
	struct pool *pool;
	const char *path;
	unsigned line;
	size_t text_len;
	struct dpa_error *err;
	uint32_t cap_tu, cap_fn;
	struct dpa_pr_tu *cur_tu;   /* TU of the record being parsed */
	struct dpa_pr_fn *cur_fn;
	uint32_t version;           /* "progrep" of the record being parsed */
	struct map tus;             /* the TUs read so far, by id */
	bool lazy;                  /* fn records: the head only, when it can be split off */
	bool head;                  /* the value being read is a fn record's head only */
	char *hbuf;                 /* lazy: a head's text (head_of()) */
	size_t hcap;
	const char *rec;            /* the record being read, its text */
	size_t rec_len;
};

/* ---- private prototypes ---- */

static void *pool_alloc(struct pool *pl, size_t n);
static int perr(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int parse_body(struct parse *ps, json_t *j, struct dpa_pr_body *b, int depth,
		      const char *what);

/* ================================================================
 * Memory
 * ================================================================ */

static struct pool *pool_new(void)
{
	struct pool *pl = calloc(1, sizeof(*pl));

	if (!pl)
		return NULL;
	pl->strs = dpa_strtab_new();
	if (!pl->strs) {
		free(pl);
		return NULL;
	}
	return pl;
}

static void pool_free(struct pool *pl)
{
	struct chunk *c, *n;

	if (!pl)
		return;
	for (c = pl->chunks; c; c = n) {
		n = c->next;
		free(c);
	}
	dpa_strtab_free(pl->strs);
	free(pl->deferred);
	free(pl->failed);
	free(pl);
}

/* Zeroed memory that lives until pool_free(), or NULL when out of memory. */
static void *pool_alloc(struct pool *pl, size_t n)
{
	struct chunk *c = pl->chunks;
	void *r;

	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	if (!c || c->size - c->used < n) {
		size_t sz = n > 32768 ? n : 65536;

		c = malloc(sizeof(*c) + sz);
		if (!c)
			return NULL;
		c->size = sz;
		c->used = 0;
		if (n > 32768 && pl->chunks) {
			/* a big block goes behind the current one, which stays open */
			c->next = pl->chunks->next;
			pl->chunks->next = c;
		} else {
			c->next = pl->chunks;
			pl->chunks = c;
		}
	}
	r = c->data + c->used;
	c->used += n;
	memset(r, 0, n);
	return r;
}

/* ================================================================
 * jansson's memory while a record is read
 * ================================================================ */

/*
 * A record's JSON tree lives only while the record is read, so its nodes
 * are carved from this thread's scratch chunks and dropped all at once
 * afterwards (json_decref is not called), instead of being malloc'ed and
 * freed one by one: a 7 MB section makes millions of them, and malloc and
 * free took a fifth of `deepprof feedback`'s time. jansson's allocator is
 * process-wide: with no scratch on the calling thread (outside a record,
 * any other thread) it is malloc and free, and a free of memory not in this
 * thread's chunks is free's.
 *
 * scratch_top is this thread's chunk being filled (NULL: no record being
 * read); its older chunks follow it through next, and scratch_spare keeps
 * the chunks of the records before, reused.
 */
#define SCRATCH_CHUNK (1024 * 1024)

static __thread struct chunk *scratch_top, *scratch_spare;

static void *scratch_malloc(size_t n)
{
	struct chunk *c = scratch_top;
	void *r;

	if (!c)
		return malloc(n);
	n = (n + 15) & ~(size_t)15;
	if (c->size - c->used < n) {
		if (scratch_spare && scratch_spare->size >= n) {
			c = scratch_spare;
			scratch_spare = c->next;
		} else {
			size_t sz = n > SCRATCH_CHUNK ? n : SCRATCH_CHUNK;

			if (!(c = malloc(sizeof(*c) + sz)))
				return NULL;
			c->size = sz;
		}
		c->used = 0;
		c->next = scratch_top;
		scratch_top = c;
	}
	r = c->data + c->used;
	c->used += n;
	return r;
}

static void scratch_free(void *ptr)
{
	for (struct chunk *c = scratch_top; c; c = c->next)
		if ((char *)ptr >= c->data && (char *)ptr < c->data + c->size)
			return;         /* dropped with the record */
	free(ptr);
}

static void scratch_install(void)
{
	json_set_alloc_funcs(scratch_malloc, scratch_free);
}

/* From here until scratch_end(), jansson allocates from this thread's
 * scratch. Returns 0, or -1 out of memory. */
static int scratch_begin(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct chunk *c = scratch_spare;

	pthread_once(&once, scratch_install);
	if (c) {
		scratch_spare = c->next;
	} else {
		if (!(c = malloc(sizeof(*c) + SCRATCH_CHUNK)))
			return -1;
		c->size = SCRATCH_CHUNK;
	}
	c->used = 0;
	c->next = NULL;
	scratch_top = c;
	return 0;
}

/* Drop every JSON value made since scratch_begin(); the chunks are kept for
 * the next record. */
static void scratch_end(void)
{
	while (scratch_top) {
		struct chunk *c = scratch_top;

		scratch_top = c->next;
		c->next = scratch_spare;
		scratch_spare = c;
	}
}

/* Give the kept chunks back (once a section is read). */
static void scratch_release(void)
{
	scratch_end();
	while (scratch_spare) {
		struct chunk *c = scratch_spare;

		scratch_spare = c->next;
		free(c);
	}
}

/* ================================================================
 * Hash table
 * ================================================================ */

static size_t map_slot(const struct map *m, uint64_t key, uint64_t *steps)
{
	uint64_t h = key;       /* splitmix64's finaliser: every key bit moves the slot */
	size_t j;

	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	h ^= h >> 31;
	for (j = (size_t)h & (m->cap - 1); m->val[j] && m->key[j] != key; j = (j + 1) & (m->cap - 1))
		(*steps)++;
	(*steps)++;
	return j;
}

/* The value of key, or NULL. steps counts the slots looked at. */
static void *map_get(const struct map *m, uint64_t key, uint64_t *steps)
{
	return m->cap ? m->val[map_slot(m, key, steps)] : NULL;
}

/* Set key's value (val not NULL); -1 when out of memory. */
static int map_put(struct map *m, uint64_t key, void *val, uint64_t *steps)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap) {
		struct map g = { .cap = m->cap ? m->cap * 2 : 16 };

		g.key = malloc(g.cap * sizeof(*g.key));
		g.val = calloc(g.cap, sizeof(*g.val));
		if (!g.key || !g.val) {
			free(g.key);
			free(g.val);
			return -1;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->val[i]) {
				j = map_slot(&g, m->key[i], steps);
				g.key[j] = m->key[i];
				g.val[j] = m->val[i];
			}
		g.n = m->n;
		free(m->key);
		free(m->val);
		*m = g;
	}
	j = map_slot(m, key, steps);
	if (!m->val[j])
		m->n++;
	m->key[j] = key;
	m->val[j] = val;
	return 0;
}

static void map_free(struct map *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

static void *pool_array(struct parse *ps, size_t n, size_t size)
{
	void *r;

	if (n && size > SIZE_MAX / n)
		return perr(ps, "out of memory"), NULL;
	r = pool_alloc(ps->pool, n * size);
	if (!r)
		perr(ps, "out of memory");
	return r;
}

/* ================================================================
 * Errors and JSON field access
 * ================================================================ */

static int perr(struct parse *ps, const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(ps->err->msg, sizeof(ps->err->msg), "%s: " SECTION " line %u: %s", ps->path,
		 ps->line, buf);
	return -1;
}

static int set_err(struct dpa_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_err(struct dpa_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static const char *intern(struct parse *ps, const char *s)
{
	const char *r = dpa_strtab_intern(ps->pool->strs, s, strlen(s));

	if (!r)
		perr(ps, "out of memory");
	return r;
}

/* A uint32 value (what: the field's name, for the message). */
static int want_u32(struct parse *ps, json_t *v, const char *what, uint32_t *out)
{
	json_int_t x;

	if (!json_is_integer(v))
		return perr(ps, "%s: %s", what, v ? "not an integer" : "missing");
	x = json_integer_value(v);
	if (x < 0 || x > (json_int_t)UINT32_MAX)
		return perr(ps, "%s: %lld out of range", what, (long long)x);
	*out = (uint32_t)x;
	return 0;
}

static int get_u32(struct parse *ps, json_t *o, const char *key, uint32_t *out)
{
	return want_u32(ps, json_object_get(o, key), key, out);
}

static int get_str(struct parse *ps, json_t *o, const char *key, const char **out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		return perr(ps, "%s: %s", key, v ? "not a string" : "missing");
	*out = intern(ps, json_string_value(v));
	return *out ? 0 : -1;
}

/* A string or null (*out NULL). */
static int get_str_or_null(struct parse *ps, json_t *o, const char *key, const char **out)
{
	json_t *v = json_object_get(o, key);

	if (json_is_null(v)) {
		*out = NULL;
		return 0;
	}
	return get_str(ps, o, key, out);
}

static int get_bool(struct parse *ps, json_t *o, const char *key, bool *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_boolean(v))
		return perr(ps, "%s: %s", key, v ? "not a boolean" : "missing");
	*out = json_is_true(v);
	return 0;
}

static int get_array(struct parse *ps, json_t *o, const char *key, json_t **out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_array(v))
		return perr(ps, "%s: %s", key, v ? "not an array" : "missing");
	*out = v;
	return 0;
}

/* "true" if present and true; absent is false; anything else is an error. */
static int get_flag(struct parse *ps, json_t *o, const char *key, bool *out)
{
	json_t *v = json_object_get(o, key);

	*out = false;
	if (!v)
		return 0;
	if (!json_is_true(v))
		return perr(ps, "%s: must be true when present", key);
	*out = true;
	return 0;
}

static int parse_tuid(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 16; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9')
			v = v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint64_t)(c - 'a' + 10);
		else
			return -1;
	}
	if (s[16])
		return -1;
	*out = v;
	return 0;
}

/* ================================================================
 * Record parsing
 * ================================================================ */

/* A site a record refers to must be a site of the current TU. */
static int check_site(struct parse *ps, uint32_t site, const char *what)
{
	if (site >= ps->cur_tu->n_css)
		return perr(ps, "%s: site %u out of range (TU %016llx has %u)", what, site,
			    (unsigned long long)ps->cur_tu->id, ps->cur_tu->n_css);
	return 0;
}

/* {"local"|"param"|"global": name}; returns 1 if o is not such an object. */
static int parse_named(struct parse *ps, json_t *o, struct dpa_pr_ref *r, const char *what)
{
	static const struct { const char *key; uint8_t kind; } keys[] = {
		{ "param", DPA_PR_PARAM }, { "local", DPA_PR_LOCAL }, { "global", DPA_PR_GLOBAL },
	};

	if (!json_is_object(o) || json_object_size(o) != 1)
		return 1;
	for (size_t k = 0; k < 3; k++) {
		json_t *v = json_object_get(o, keys[k].key);

		if (!v)
			continue;
		if (!json_is_string(v))
			return perr(ps, "%s: %s: not a string", what, keys[k].key);
		r->kind = keys[k].kind;
		r->name = intern(ps, json_string_value(v));
		return r->name ? 0 : -1;
	}
	return 1;
}

/* A SOURCE of schemas/progrep.md. */
static int parse_source(struct parse *ps, json_t *o, struct dpa_pr_ref *r, const char *what)
{
	json_t *v;
	int rc = parse_named(ps, o, r, what);

	if (rc <= 0)
		return rc;
	if (!json_is_object(o) || json_object_size(o) != 1)
		return perr(ps, "%s: not a source object", what);
	if ((v = json_object_get(o, "call"))) {
		r->kind = DPA_PR_CALL;
		if (json_is_null(v))
			return 0;
		r->has_site = true;
		if (want_u32(ps, v, what, &r->site) < 0)
			return -1;
		return check_site(ps, r->site, what);
	}
	if ((v = json_object_get(o, "addr_of"))) {
		struct dpa_pr_ref in = { 0 };

		rc = parse_named(ps, v, &in, what);
		if (rc < 0)
			return -1;
		if (rc > 0)
			return perr(ps, "%s: addr_of: not a {local|param|global: name}", what);
		r->kind = DPA_PR_ADDR_OF;
		r->var = in.kind;
		r->name = in.name;
		return 0;
	}
	if ((v = json_object_get(o, "function"))) {
		if (!json_is_string(v))
			return perr(ps, "%s: function: not a string", what);
		r->kind = DPA_PR_FUNCTION;
		r->name = intern(ps, json_string_value(v));
		return r->name ? 0 : -1;
	}
	if ((v = json_object_get(o, "const"))) {
		if (json_is_true(v))
			r->kind = DPA_PR_CONST;
		else if (json_is_string(v) && !strcmp(json_string_value(v), "string"))
			r->kind = DPA_PR_STRING;
		else
			return perr(ps, "%s: const: neither true nor \"string\"", what);
		return 0;
	}
	if ((v = json_object_get(o, "memory"))) {
		if (!json_is_true(v))
			return perr(ps, "%s: memory: not true", what);
		r->kind = DPA_PR_MEMORY;
		return 0;
	}
	return perr(ps, "%s: unknown source", what);
}

/* A TARGET of schemas/progrep.md. */
static int parse_target(struct parse *ps, json_t *o, struct dpa_pr_ref *r, const char *what)
{
	static const struct { const char *s; uint8_t kind; } words[] = {
		{ "string", DPA_PR_STRING }, { "function", DPA_PR_FUNCTION },
		{ "null", DPA_PR_NULL }, { "unknown", DPA_PR_UNKNOWN },
	};
	json_t *v;
	int rc;

	if (json_is_string(o)) {
		for (size_t k = 0; k < 4; k++)
			if (!strcmp(json_string_value(o), words[k].s)) {
				r->kind = words[k].kind;
				return 0;
			}
		return perr(ps, "%s: unknown target \"%s\"", what, json_string_value(o));
	}
	rc = parse_named(ps, o, r, what);
	if (rc <= 0)
		return rc;
	if (!json_is_object(o) || json_object_size(o) != 1)
		return perr(ps, "%s: not a target", what);
	if ((v = json_object_get(o, "via_param"))) {
		if (!json_is_string(v))
			return perr(ps, "%s: via_param: not a string", what);
		r->kind = DPA_PR_VIA_PARAM;
		r->name = intern(ps, json_string_value(v));
		return r->name ? 0 : -1;
	}
	if ((v = json_object_get(o, "heap"))) {
		r->kind = DPA_PR_HEAP;
		r->has_site = true;
		if (want_u32(ps, v, what, &r->site) < 0)
			return -1;
		return check_site(ps, r->site, what);
	}
	return perr(ps, "%s: unknown target", what);
}

typedef int (*ref_parser)(struct parse *, json_t *, struct dpa_pr_ref *, const char *);

static int parse_refs(struct parse *ps, json_t *a, ref_parser fn, uint32_t *n,
		      struct dpa_pr_ref **out, const char *what)
{
	size_t i;

	if (!json_is_array(a))
		return perr(ps, "%s: %s", what, a ? "not an array" : "missing");
	*n = (uint32_t)json_array_size(a);
	*out = pool_array(ps, *n, sizeof(**out));
	if (!*out)
		return -1;
	for (i = 0; i < *n; i++)
		if (fn(ps, json_array_get(a, i), &(*out)[i], what) < 0)
			return -1;
	return 0;
}

/* A call site of the function being parsed must be one of its own sites. */
static int check_own_site(struct parse *ps, uint32_t site, const char *what)
{
	struct dpa_pr_fn *f = ps->cur_fn;

	if (site < f->first_site || site - f->first_site >= f->n_sites)
		return perr(ps, "%s: site %u is not one of %s's sites (%u..%u)", what, site, f->name,
			    f->first_site, f->first_site + f->n_sites - 1);
	return 0;
}

/* {"use": name} or {"store": name}: name must be a named parameter of the
 * function being parsed (and, for a store, a pointer one); sets it->name
 * (interned) and it->param, its index in the function's params. */
static int parse_param_item(struct parse *ps, json_t *v, struct dpa_pr_item *it, const char *what)
{
	const struct dpa_pr_fn *f = ps->cur_fn;
	const char *name;

	if (!json_is_string(v))
		return perr(ps, "body %s: not a string", what);
	name = json_string_value(v);
	for (uint32_t i = 0; i < f->n_params; i++) {
		if (!f->params[i].name || strcmp(f->params[i].name, name))
			continue;
		if (it->kind == DPA_PR_ITEM_STORE && !f->params[i].pointer)
			return perr(ps, "body store: parameter \"%s\" of %s is not a pointer", name,
				    f->name);
		it->param = i;
		it->name = f->params[i].name;
		return 0;
	}
	return perr(ps, "body %s: \"%s\" is not a parameter of %s", what, name, f->name);
}

/* Parse one body item into *it. Returns 0, 1 for an item of a kind this
 * reader does not know (skipped: schemas/progrep.md, Versioning), or -1. */
static int parse_item(struct parse *ps, json_t *o, struct dpa_pr_item *it, int depth)
{
	json_t *v;

	if (!json_is_object(o) || json_object_size(o) != 1)
		return perr(ps, "body: an item is not a one-key object");
	if ((v = json_object_get(o, "use"))) {
		it->kind = DPA_PR_ITEM_USE;
		return parse_param_item(ps, v, it, "use");
	}
	if ((v = json_object_get(o, "store"))) {
		it->kind = DPA_PR_ITEM_STORE;
		return parse_param_item(ps, v, it, "store");
	}
	if ((v = json_object_get(o, "call"))) {
		it->kind = DPA_PR_ITEM_CALL;
		if (want_u32(ps, v, "body call", &it->site) < 0)
			return -1;
		return check_own_site(ps, it->site, "body call");
	}
	if ((v = json_object_get(o, "branch"))) {
		json_t *arms = NULL, *k;
		const char *kind;

		it->kind = DPA_PR_ITEM_BRANCH;
		if (!json_is_object(v))
			return perr(ps, "branch: not an object");
		k = json_object_get(v, "kind");
		kind = json_is_string(k) ? json_string_value(k) : "";
		if (!strcmp(kind, "switch"))
			it->is_switch = true;
		else if (strcmp(kind, "if"))
			return perr(ps, "branch: kind: neither \"if\" nor \"switch\"");
		if (get_u32(ps, v, "line", &it->line) < 0 || get_array(ps, v, "arms", &arms) < 0)
			return -1;
		it->n_arms = (uint32_t)json_array_size(arms);
		if (it->n_arms < 2)
			return perr(ps, "branch: fewer than 2 arms");
		it->arms = pool_array(ps, it->n_arms, sizeof(*it->arms));
		if (!it->arms)
			return -1;
		for (uint32_t a = 0; a < it->n_arms; a++)
			if (parse_body(ps, json_array_get(arms, a), &it->arms[a], depth + 1,
				       "branch arm") < 0)
				return -1;
		return 0;
	}
	if ((v = json_object_get(o, "loop"))) {
		it->kind = DPA_PR_ITEM_LOOP;
		if (!json_is_object(v))
			return perr(ps, "loop: not an object");
		if (get_u32(ps, v, "line", &it->line) < 0)
			return -1;
		return parse_body(ps, json_object_get(v, "body"), &it->body, depth + 1, "loop body");
	}
	return 1;
}

/* Parse the array j into *b, leaving out items of unknown kinds (b->n
 * counts the items kept). */
static int parse_body(struct parse *ps, json_t *j, struct dpa_pr_body *b, int depth,
		      const char *what)
{
	uint32_t n;

	if (depth > MAX_DEPTH)
		return perr(ps, "%s: nested deeper than %d", what, MAX_DEPTH);
	if (!json_is_array(j))
		return perr(ps, "%s: %s", what, j ? "not an array" : "missing");
	n = (uint32_t)json_array_size(j);
	b->n = 0;
	b->items = pool_array(ps, n, sizeof(*b->items));
	if (!b->items)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		int rc = parse_item(ps, json_array_get(j, i), &b->items[b->n], depth);

		if (rc < 0)
			return -1;
		if (rc == 0)
			b->n++;
		else    /* skipped: the slot is reused, and must be clean again */
			memset(&b->items[b->n], 0, sizeof(b->items[b->n]));
	}
	return 0;
}

static int parse_call(struct parse *ps, json_t *o, struct dpa_pr_call *c, uint32_t expect)
{
	struct dpa_pr_tu *tu = ps->cur_tu;
	const char *id, *kind, *eff;
	json_t *args = NULL, *v;
	char want[48];

	if (!json_is_object(o))
		return perr(ps, "calls: an element is not an object");
	if (get_u32(ps, o, "site", &c->site) < 0)
		return -1;
	if (c->site != expect)
		return perr(ps, "calls: site %u where site %u was expected", c->site, expect);
	if (get_str(ps, o, "id", &id) < 0)
		return -1;
	snprintf(want, sizeof(want), "%016llx:%u", (unsigned long long)tu->id, c->site);
	if (strcmp(id, want))
		return perr(ps, "site %u: id \"%s\" is not \"%s\"", c->site, id, want);
	bool lost = false;
	if (get_str_or_null(ps, o, "callee", &c->callee) < 0 || get_str(ps, o, "kind", &kind) < 0 ||
	    get_u32(ps, o, "line", &c->line) < 0 || get_u32(ps, o, "col", &c->col) < 0 ||
	    get_flag(ps, o, "lost", &lost) < 0)
		return -1;
	/* a lost call (schemas/progrep.md): GCC moved its statement out of
	 * the function (an OpenMP region's body): nothing more is known */
	if (lost)
		eff = "memory";
	else if (get_str(ps, o, "effects", &eff) < 0 || get_flag(ps, o, "tail", &c->tail) < 0 ||
		 get_flag(ps, o, "noreturn", &c->noreturn) < 0)
		return -1;
	if (!strcmp(kind, "normal"))
		c->kind = DPA_CSS_NORMAL;
	else if (!strcmp(kind, "indirect"))
		c->kind = DPA_CSS_INDIRECT;
	else if (!strcmp(kind, "external"))
		c->kind = DPA_CSS_EXTERNAL;
	else
		return perr(ps, "site %u: unknown kind \"%s\"", c->site, kind);
	if (!strcmp(eff, "const"))
		c->effects = DPA_PR_EFF_CONST;
	else if (!strcmp(eff, "pure"))
		c->effects = DPA_PR_EFF_PURE;
	else if (!strcmp(eff, "memory"))
		c->effects = DPA_PR_EFF_MEMORY;
	else
		return perr(ps, "site %u: unknown effects \"%s\"", c->site, eff);
	if (lost) {
		c->result.kind = DPA_PR_NONE;
		return 0;       /* no arguments, no result known */
	}
	if ((v = json_object_get(o, "target_from")) &&
	    parse_refs(ps, v, parse_source, &c->n_target_from, &c->target_from, "target_from") < 0)
		return -1;
	if (get_array(ps, o, "args", &args) < 0)
		return -1;
	c->n_args = (uint32_t)json_array_size(args);
	c->args = pool_array(ps, c->n_args, sizeof(*c->args));
	if (!c->args)
		return -1;
	for (uint32_t a = 0; a < c->n_args; a++) {
		json_t *ao = json_array_get(args, a), *pt;
		struct dpa_pr_arg *arg = &c->args[a];

		if (!json_is_object(ao))
			return perr(ps, "site %u: argument %u is not an object", c->site, a);
		if (parse_refs(ps, json_object_get(ao, "from"), parse_source, &arg->n_from,
			       &arg->from, "from") < 0)
			return -1;
		if ((pt = json_object_get(ao, "points_to"))) {
			arg->has_points_to = true;
			if (parse_refs(ps, pt, parse_target, &arg->n_points_to, &arg->points_to,
				       "points_to") < 0)
				return -1;
		}
	}
	v = json_object_get(o, "result");
	if (!v)
		return perr(ps, "site %u: result: missing", c->site);
	if (json_is_null(v)) {
		c->result.kind = DPA_PR_NONE;
	} else if (json_is_string(v) && !strcmp(json_string_value(v), "temp")) {
		c->result.kind = DPA_PR_TEMP;
	} else {
		int rc = parse_named(ps, v, &c->result, "result");

		if (rc < 0)
			return -1;
		if (rc > 0)
			return perr(ps, "site %u: result: not null, \"temp\" or a named variable",
				    c->site);
	}
	return 0;
}

static int parse_tu(struct parse *ps, json_t *o, uint64_t id)
{
	struct dpa_progrep *pr = ps->pr;
	struct dpa_pr_tu *tu;

	if (map_get(&ps->tus, id, &ps->pool->steps))
		return perr(ps, "a second tu record for TU %016llx", (unsigned long long)id);
	if (pr->n_tu == ps->cap_tu)
		return perr(ps, "more records than lines");  /* cannot happen: cap = lines */
	tu = &pr->tu[pr->n_tu];
	tu->id = id;
	if (get_str(ps, o, "file", &tu->file) < 0 || get_u32(ps, o, "n_ps", &tu->n_ps) < 0 ||
	    get_u32(ps, o, "n_css", &tu->n_css) < 0 || get_u32(ps, o, "abi", &tu->abi) < 0)
		return -1;
	/* Every ps and site has a record of several bytes in this section, so a
	 * larger table is corrupt (and must not make us allocate gigabytes). */
	if (tu->n_ps > ps->text_len || tu->n_css > ps->text_len)
		return perr(ps, "TU %016llx: n_ps %u, n_css %u: more than the section can describe",
			    (unsigned long long)id, tu->n_ps, tu->n_css);
	tu->fn_of_ps = pool_array(ps, tu->n_ps, sizeof(*tu->fn_of_ps));
	tu->call_of_site = pool_array(ps, tu->n_css, sizeof(*tu->call_of_site));
	if (!tu->fn_of_ps || !tu->call_of_site)
		return -1;
	if (map_put(&ps->tus, id, tu, &ps->pool->steps) < 0)
		return perr(ps, "out of memory");
	pr->n_tu++;
	return 0;
}

/* The head of a fn record (every key but params, body, unplaced and
 * calls) into f, checked against its TU. whole: o is the whole record, whose
 * params, unplaced and calls must be arrays (checked here, in the order a
 * record's errors have always been reported in). */
static int parse_fn_head(struct parse *ps, json_t *o, bool whole, struct dpa_pr_tu *tu,
			 uint64_t id, struct dpa_pr_fn *f)
{
	json_t *a;
	const char *sum;

	f->version = ps->version;
	f->tu = (uint32_t)(tu - ps->pr->tu);
	ps->cur_tu = tu;
	ps->cur_fn = f;
	if (get_u32(ps, o, "ps", &f->ps) < 0 || get_str(ps, o, "fn", &f->name) < 0 ||
	    get_str(ps, o, "file", &f->file) < 0 || get_u32(ps, o, "line", &f->line) < 0 ||
	    get_u32(ps, o, "end_line", &f->end_line) < 0 || get_str(ps, o, "checksum", &sum) < 0 ||
	    get_bool(ps, o, "public", &f->public_) < 0 ||
	    get_u32(ps, o, "first_site", &f->first_site) < 0 ||
	    get_u32(ps, o, "n_sites", &f->n_sites) < 0 ||
	    get_u32(ps, o, "backedges", &f->backedges) < 0 ||
	    (whole && (get_array(ps, o, "params", &a) < 0 || get_array(ps, o, "unplaced", &a) < 0 ||
		       get_array(ps, o, "calls", &a) < 0)))
		return -1;
	if (parse_tuid(sum, &f->checksum) < 0)
		return perr(ps, "%s: checksum \"%s\" is not 16 hex digits", f->name, sum);
	if (f->ps >= tu->n_ps)
		return perr(ps, "%s: ps %u out of range (TU %016llx has %u)", f->name, f->ps,
			    (unsigned long long)id, tu->n_ps);
	if (tu->fn_of_ps[f->ps])
		return perr(ps, "%s: a second record for ps %u of TU %016llx", f->name, f->ps,
			    (unsigned long long)id);
	if (f->first_site > tu->n_css || f->n_sites > tu->n_css - f->first_site)
		return perr(ps, "%s: sites %u..+%u out of range (TU %016llx has %u)", f->name,
			    f->first_site, f->n_sites, (unsigned long long)id, tu->n_css);
	if (f->end_line < f->line)
		return perr(ps, "%s: end_line %u before line %u", f->name, f->end_line, f->line);
	return 0;
}

/* The rest of fn record o (index fi, its head read into f): params, body,
 * unplaced and calls. f->calls is allocated here, or was by a lazy read
 * (its sites then already belong to f: the check that no other function
 * has them was made then). */
static int parse_fn_rest(struct parse *ps, json_t *o, uint32_t fi, struct dpa_pr_fn *f)
{
	struct dpa_pr_tu *tu = ps->cur_tu;
	json_t *params = NULL, *unplaced = NULL, *calls = NULL;
	bool registered = f->calls != NULL;
	uint32_t i;

	if (get_array(ps, o, "params", &params) < 0 || get_array(ps, o, "unplaced", &unplaced) < 0 ||
	    get_array(ps, o, "calls", &calls) < 0)
		return -1;
	f->n_params = (uint32_t)json_array_size(params);
	f->params = pool_array(ps, f->n_params, sizeof(*f->params));
	if (!f->params)
		return -1;
	for (i = 0; i < f->n_params; i++) {
		json_t *po = json_array_get(params, i);

		if (!json_is_object(po))
			return perr(ps, "%s: parameter %u is not an object", f->name, i);
		if (get_str_or_null(ps, po, "name", &f->params[i].name) < 0 ||
		    get_str(ps, po, "type", &f->params[i].type) < 0 ||
		    get_bool(ps, po, "pointer", &f->params[i].pointer) < 0)
			return -1;
	}
	if (parse_body(ps, json_object_get(o, "body"), &f->body, 0, "body") < 0)
		return -1;
	f->n_unplaced = (uint32_t)json_array_size(unplaced);
	f->unplaced = pool_array(ps, f->n_unplaced, sizeof(*f->unplaced));
	if (!f->unplaced)
		return -1;
	for (i = 0; i < f->n_unplaced; i++)
		if (want_u32(ps, json_array_get(unplaced, i), "unplaced", &f->unplaced[i]) < 0 ||
		    check_own_site(ps, f->unplaced[i], "unplaced") < 0)
			return -1;
	if (json_array_size(calls) != f->n_sites)
		return perr(ps, "%s: %zu call records for %u sites", f->name, json_array_size(calls),
			    f->n_sites);
	if (!registered && !(f->calls = pool_array(ps, f->n_sites, sizeof(*f->calls))))
		return -1;
	for (i = 0; i < f->n_sites; i++) {
		struct dpa_pr_call *c = &f->calls[i];

		c->fn = fi;
		if (parse_call(ps, json_array_get(calls, i), c, f->first_site + i) < 0)
			return -1;
		if (!registered && tu->call_of_site[c->site])
			return perr(ps, "%s: site %u already belongs to another function", f->name,
				    c->site);
	}
	return 0;
}

/* Make f, just read, the record of its ps and sites. */
static void register_fn(struct dpa_pr_tu *tu, struct dpa_pr_fn *f)
{
	for (uint32_t i = 0; i < f->n_sites; i++)
		tu->call_of_site[f->calls[i].site] = &f->calls[i];
	tu->fn_of_ps[f->ps] = f;
}

static int parse_fn(struct parse *ps, json_t *o, uint64_t id)
{
	struct dpa_progrep *pr = ps->pr;
	struct dpa_pr_tu *tu = map_get(&ps->tus, id, &ps->pool->steps);
	struct dpa_pr_fn *f;
	bool head;

	if (!tu)
		return perr(ps, "fn record of TU %016llx before its tu record", (unsigned long long)id);
	if (pr->n_fn == ps->cap_fn)
		return perr(ps, "more records than lines");
	f = &pr->fn[pr->n_fn];
	head = ps->head;
	if (parse_fn_head(ps, o, !head, tu, id, f) < 0)
		return -1;
	if (head) {
		/* o is the head only (head_of()): the calls get their
		 * sites now, the rest when dpa_progrep_fn_load() asks */
		struct deferred *d = &ps->pool->deferred[pr->n_fn];

		f->calls = pool_array(ps, f->n_sites, sizeof(*f->calls));
		if (!f->calls)
			return -1;
		for (uint32_t i = 0; i < f->n_sites; i++) {
			f->calls[i].site = f->first_site + i;
			f->calls[i].fn = pr->n_fn;
			if (tu->call_of_site[f->calls[i].site])
				return perr(ps, "%s: site %u already belongs to another function",
					    f->name, f->calls[i].site);
		}
		f->partial = true;
		d->text = ps->rec;
		d->len = ps->rec_len;
		d->line = ps->line;
	} else if (parse_fn_rest(ps, o, pr->n_fn, f) < 0) {
		return -1;
	}
	register_fn(tu, f);
	pr->n_fn++;
	return 0;
}

/* ================================================================
 * Reading a fn record's head only
 * ================================================================ */

/*
 * A lazy read (dpa_progreps_load_used()) parses only the head of most fn
 * records at first: every key but the four big ones (params, body,
 * unplaced, calls), which are most of the section. head_of() finds the
 * record's top-level members without parsing their values (it only skips
 * strings and balanced brackets) and writes all but the big ones as one
 * small JSON object, which jansson then reads as usual. Anything
 * unexpected (not an object, a key with an escape, a missing or repeated
 * big key, another record kind, bytes after the object) makes the record
 * read whole, as a full read does, so that its error, if any, is the same.
 */
#define BIG_KEYS 4
static const char *const big_keys[BIG_KEYS] = { "params", "body", "unplaced", "calls" };

static size_t skip_ws(const char *s, size_t i, size_t len)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* The end of the string opening at s[i] ('"'), or 0 if it does not end. */
static size_t skip_string(const char *s, size_t i, size_t len)
{
	for (i++; i < len; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return 0;
}

/* The end of the value starting at s[i], or 0: strings and brackets are
 * skipped, not checked (a bracket of the other kind closes too). */
static size_t skip_value(const char *s, size_t i, size_t len)
{
	size_t depth = 0;

	if (i >= len)
		return 0;
	if (s[i] == '"')
		return skip_string(s, i, len);
	if (s[i] != '[' && s[i] != '{') {
		size_t st = i;

		while (i < len && !strchr(",}] \t\r\n", s[i]))
			i++;
		return i > st ? i : 0;
	}
	while (i < len) {
		char c = s[i];

		if (c == '"') {
			if (!(i = skip_string(s, i, len)))
				return 0;
			continue;
		}
		if (c == '[' || c == '{')
			depth++;
		else if ((c == ']' || c == '}') && --depth == 0)
			return i + 1;
		i++;
	}
	return 0;
}

/* Write the head of fn record s[0..len) into *buf (grown as needed): "{",
 * its members but the big ones, "}". Returns its length, or 0 when the
 * record must be read whole. */
static size_t head_of(const char *s, size_t len, char **buf, size_t *cap)
{
	size_t i = skip_ws(s, 0, len), n = 0;
	int seen[BIG_KEYS] = { 0 };
	bool is_fn = false, first = true;

	if (i >= len || s[i] != '{')
		return 0;
	if (*cap < len + 2) {
		char *nb = realloc(*buf, len + 2);

		if (!nb)
			return 0;
		*buf = nb;
		*cap = len + 2;
	}
	(*buf)[n++] = '{';
	for (i = skip_ws(s, i + 1, len);;) {
		size_t k0 = i, k1, v0, v1;
		int big = -1;

		if (i >= len || s[i] != '"' || !(k1 = skip_string(s, i, len)))
			return 0;
		if (memchr(s + k0, '\\', k1 - k0))
			return 0;
		i = skip_ws(s, k1, len);
		if (i >= len || s[i] != ':')
			return 0;
		v0 = skip_ws(s, i + 1, len);
		if (!(v1 = skip_value(s, v0, len)))
			return 0;
		for (int b = 0; b < BIG_KEYS; b++)
			if (k1 - k0 - 2 == strlen(big_keys[b]) &&
			    !memcmp(s + k0 + 1, big_keys[b], k1 - k0 - 2))
				big = b;
		if (big >= 0) {
			if (seen[big]++)
				return 0;
		} else {
			if (k1 - k0 == 8 && !memcmp(s + k0, "\"record\"", 8))
				is_fn = v1 - v0 == 4 && !memcmp(s + v0, "\"fn\"", 4);
			if (!first)
				(*buf)[n++] = ',';
			memcpy(*buf + n, s + k0, v1 - k0);
			n += v1 - k0;
			first = false;
		}
		i = skip_ws(s, v1, len);
		if (i < len && s[i] == ',') {
			i = skip_ws(s, i + 1, len);
			continue;
		}
		if (i < len && s[i] == '}')
			break;
		return 0;
	}
	if (skip_ws(s, i + 1, len) != len || !is_fn)
		return 0;
	for (int b = 0; b < BIG_KEYS; b++)
		if (!seen[b])
			return 0;
	(*buf)[n++] = '}';
	return n;
}

/* ================================================================
 * Records
 * ================================================================ */

/* One record's JSON value o: read it into ps->pr. Only reads o. */
static int convert_record(struct parse *ps, json_t *o)
{
	json_t *v;
	const char *rec, *tus;
	uint32_t version;
	uint64_t id;

	if (!json_is_object(o))
		return perr(ps, "not a JSON object");
	v = json_object_get(o, "progrep");
	if (want_u32(ps, v, "progrep", &version) < 0)
		return -1;
	if (version < VERSION_MIN || version > DPA_PROGREP_VERSION)
		return perr(ps, "progrep version %u, this reader reads %d to %d", version,
			    VERSION_MIN, DPA_PROGREP_VERSION);
	if (get_str(ps, o, "record", &rec) < 0 || get_str(ps, o, "tu", &tus) < 0)
		return -1;
	if (parse_tuid(tus, &id) < 0)
		return perr(ps, "tu \"%s\" is not 16 lower-case hex digits", tus);
	ps->version = version;
	if (!strcmp(rec, "tu"))
		return parse_tu(ps, o, id);
	if (!strcmp(rec, "fn"))
		return parse_fn(ps, o, id);
	return perr(ps, "unknown record \"%s\"", rec);
}

/* One record, its JSON read into this thread's scratch (dropped on return:
 * nothing parsed keeps a pointer into it, strings are interned). A lazy
 * read takes a fn record's head only when it can (head_of()); the
 * record's text then stays where it is until the function is loaded. */
static int parse_record(struct parse *ps, const char *s, size_t len)
{
	json_error_t jerr;
	json_t *o = NULL;
	size_t hlen;
	int rc;

	if (scratch_begin() < 0)
		return perr(ps, "out of memory");
	ps->head = false;
	ps->rec = s;
	ps->rec_len = len;
	if (ps->lazy && (hlen = head_of(s, len, &ps->hbuf, &ps->hcap)) &&
	    (o = json_loadb(ps->hbuf, hlen, JSON_REJECT_DUPLICATES, &jerr)))
		ps->head = true;
	if (!o)
		o = json_loadb(s, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		scratch_end();
		return perr(ps, "not JSON: %s (column %d)", jerr.text, jerr.column);
	}
	rc = convert_record(ps, o);
	ps->head = false;
	scratch_end();          /* o and everything in it */
	return rc;
}

/* ================================================================
 * Checksums
 * ================================================================ */

#define FNV64_BASIS 14695981039346656037ULL

static uint64_t fnv64(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* Scans text from its start: check_sums() uses lines_sum() instead. */
uint64_t dpa_progrep_checksum(const char *text, size_t len, uint32_t from, uint32_t to)
{
	uint64_t h = FNV64_BASIS;
	uint32_t line = 1;

	for (size_t i = 0; i < len && line <= to; i++) {
		if (line >= from)
			h = fnv64(h, text + i, 1);
		if (text[i] == '\n')
			line++;
	}
	return h;
}

/* Index where each line of s->text starts; -1 (line_at NULL) when out of
 * memory. steps counts the lines. */
static int index_lines(struct srcfile *s, uint64_t *steps)
{
	const char *p = s->text, *end = s->text + s->len, *nl;
	size_t k = 0;

	s->n_nl = 0;
	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		s->n_nl++;
		p = nl + 1;
	}
	*steps += s->n_nl + 1;
	s->line_at = malloc((s->n_nl + 1) * sizeof(*s->line_at));
	if (!s->line_at)
		return -1;
	s->line_at[k++] = 0;
	for (p = s->text; (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1)
		s->line_at[k++] = (size_t)(nl + 1 - s->text);
	return 0;
}

/* dpa_progrep_checksum(s->text, s->len, from, to) in time proportional to
 * the lines hashed: lines from..to are the bytes from the start of line
 * `from` to the start of line to + 1 (or the end of the text). steps
 * counts the lines hashed (and every line scanned without an index). */
static uint64_t lines_sum(const struct srcfile *s, uint32_t from, uint32_t to, uint64_t *steps)
{
	size_t n_lines = s->n_nl + 1;   /* the last one may be empty */
	size_t first = from ? from : 1, last = to < n_lines ? to : n_lines, end;

	if (!s->line_at) {
		*steps += last;
		return dpa_progrep_checksum(s->text, s->len, from, to);
	}
	if (first > last)
		return FNV64_BASIS;
	*steps += last - first + 1;
	end = to <= s->n_nl ? s->line_at[to] : s->len;
	return fnv64(FNV64_BASIS, s->text + s->line_at[first - 1], end - s->line_at[first - 1]);
}

static char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, *nb;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		if (got == 0)
			break;
		n += got;
	}
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* The compilation directories of an executable's or library's DWARF, for
 * relative source names (an object file's DWARF is unrelocated: skipped).
 * Returns the number found (at most max), each a malloc'd string. */
static int comp_dirs(Elf *elf, char **out, int max)
{
	GElf_Ehdr eh;
	Dwarf *dw;
	Dwarf_Off off = 0, next;
	size_t hsize;
	int n = 0;

	if (!gelf_getehdr(elf, &eh) || eh.e_type == ET_REL)
		return 0;
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw)
		return 0;
	while (n < max && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die die;
		Dwarf_Attribute at;
		const char *d;

		if (dwarf_offdie(dw, off + hsize, &die) &&
		    (d = dwarf_formstring(dwarf_attr(&die, DW_AT_comp_dir, &at)))) {
			int k;

			for (k = 0; k < n && strcmp(out[k], d); k++)
				;
			if (k == n && (out[n] = strdup(d)))
				n++;
		}
		off = next;
	}
	dwarf_end(dw);
	return n;
}

/* The source file called `file` (a string of pr's table: equal names are
 * the same pointer, the key of `files`), read on its first use; NULL when
 * out of memory. */
static struct srcfile *source_for(struct dpa_progrep *pr, struct map *files, struct srcfile **all,
				  const char *file, char **dirs, int n_dirs)
{
	struct pool *pl = pr->pool;
	const char *elf_path = pr->path;
	struct srcfile *s;
	char buf[4096];
	int k;

	s = map_get(files, (uint64_t)(uintptr_t)file, &pl->steps);
	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (file[0] == '/') {
		s->text = read_whole(file, &s->len);
	} else {
		for (k = 0; k < n_dirs && !s->text; k++) {
			snprintf(buf, sizeof(buf), "%s/%s", dirs[k], file);
			s->text = read_whole(buf, &s->len);
		}
		if (!s->text) {
			const char *slash = strrchr(elf_path, '/');

			if (slash) {
				snprintf(buf, sizeof(buf), "%.*s/%s", (int)(slash - elf_path),
					 elf_path, file);
				s->text = read_whole(buf, &s->len);
			}
		}
		if (!s->text)
			s->text = read_whole(file, &s->len);
	}
	if (s->text)
		index_lines(s, &pl->steps);     /* out of memory: lines_sum() scans instead */
	s->next = *all;
	*all = s;
	map_put(files, (uint64_t)(uintptr_t)file, s, &pl->steps);  /* out of memory: read again next time */
	return s;
}

static void check_sums(struct dpa_progrep *pr, Elf *elf)
{
	struct pool *pl = pr->pool;
	struct srcfile *all = NULL, *s, *n;
	struct map files = { 0 };
	char *dirs[16];
	int n_dirs = -1;

	for (uint32_t i = 0; i < pr->n_fn; i++) {
		struct dpa_pr_fn *f = &pr->fn[i];

		if (f->checksum == 0) {
			f->sum_state = DPA_PR_SUM_UNKNOWN;
		} else {
			if (n_dirs < 0 && f->file[0] != '/')   /* first relative name */
				n_dirs = elf ? comp_dirs(elf, dirs, 16) : 0;
			s = source_for(pr, &files, &all, f->file, dirs, n_dirs < 0 ? 0 : n_dirs);
			if (!s || !s->text) {
				f->sum_state = DPA_PR_SUM_NO_SOURCE;
			} else {
				f->source_sum = lines_sum(s, f->line, f->end_line, &pl->steps);
				f->sum_state = f->source_sum == f->checksum ? DPA_PR_SUM_OK :
					       DPA_PR_SUM_STALE;
			}
		}
		pr->n_sum[f->sum_state]++;
	}
	map_free(&files);
	for (s = all; s; s = n) {
		n = s->next;
		free(s->text);
		free(s->line_at);
		free(s);
	}
	for (int k = 0; k < n_dirs; k++)
		free(dirs[k]);
}

/* ================================================================
 * One file
 * ================================================================ */

static int tu_order(const void *a, const void *b)
{
	uint64_t x = (*(struct dpa_pr_tu *const *)a)->id, y = (*(struct dpa_pr_tu *const *)b)->id;

	return x < y ? -1 : x > y;
}

/* The records of text[0..len), one a line. */
static int parse_lines(struct parse *ps, const char *text, size_t len)
{
	ps->line = 1;
	for (size_t i = 0; i < len;) {
		const char *nl;

		if (text[i] == '\0') {          /* alignment padding between objects */
			i++;
			continue;
		}
		if (text[i] == '\n') {          /* an empty line */
			ps->line++;
			i++;
			continue;
		}
		nl = memchr(text + i, '\n', len - i);
		if (!nl)
			return perr(ps, "truncated: the last record has no newline");
		ps->pool->steps++;
		if (parse_record(ps, text + i, (size_t)(nl - (text + i))) < 0)
			return -1;
		ps->line++;
		i = (size_t)(nl - text) + 1;
	}
	return 0;
}

/* Read the section text[0..len) of the file `path` into *pr. lazy: most fn
 * records' heads only (their text must then stay until keep_deferred()). */
static int parse_text(struct dpa_progrep *pr, const char *path, const char *text, size_t len,
		      Elf *elf, bool lazy, struct dpa_error *err)
{
	struct parse ps = { 0 };
	size_t i = 0, lines = 0;
	int rc;

	memset(pr, 0, sizeof(*pr));
	pr->path = strdup(path);
	pr->pool = pool_new();
	if (!pr->path || !pr->pool)
		return set_err(err, "%s: out of memory", path);
	ps.pr = pr;
	ps.pool = pr->pool;
	ps.path = path;
	ps.err = err;
	ps.text_len = len;
	ps.lazy = lazy;
	for (const char *nl; i < len && (nl = memchr(text + i, '\n', len - i)); i = (size_t)(nl - text) + 1)
		lines++;
	ps.cap_tu = ps.cap_fn = (uint32_t)(lines < UINT32_MAX ? lines : UINT32_MAX);
	pr->tu = pool_array(&ps, ps.cap_tu, sizeof(*pr->tu));
	pr->fn = pool_array(&ps, ps.cap_fn, sizeof(*pr->fn));
	if (!pr->tu || !pr->fn)
		return -1;
	if (lazy && !(ps.pool->deferred = calloc(ps.cap_fn ? ps.cap_fn : 1, sizeof(*ps.pool->deferred))))
		return perr(&ps, "out of memory");
	rc = parse_lines(&ps, text, len);
	scratch_release();
	free(ps.hbuf);
	map_free(&ps.tus);
	if (rc < 0)
		return -1;
	ps.pool->by_id = pool_array(&ps, pr->n_tu, sizeof(*ps.pool->by_id));
	if (!ps.pool->by_id)
		return -1;
	for (i = 0; i < pr->n_tu; i++)
		ps.pool->by_id[i] = &pr->tu[i];
	qsort(ps.pool->by_id, pr->n_tu, sizeof(*ps.pool->by_id), tu_order);
	check_sums(pr, elf);
	return 0;
}

int dpa_progrep_parse(struct dpa_progrep *pr, const char *path, const char *text, size_t len,
		      struct dpa_error *err)
{
	return parse_text(pr, path, text, len, NULL, false, err);
}

/* ================================================================
 * Functions read lazily
 * ================================================================ */

/* Read the rest of partial function f of pr; -1 with *err set. Leaves
 * jansson's scratch chunks to the caller's scratch_release(). */
static int fn_load(struct dpa_progrep *pr, struct dpa_pr_fn *f, struct dpa_error *err)
{
	struct pool *pl = pr->pool;
	uint32_t fi = (uint32_t)(f - pr->fn);
	struct deferred *d = &pl->deferred[fi];
	struct parse ps = { .pr = pr, .pool = pl, .path = pr->path, .line = d->line,
			    .err = err, .cur_tu = &pr->tu[f->tu], .cur_fn = f,
			    .version = f->version };
	json_error_t jerr;
	json_t *o;
	int rc;

	if (scratch_begin() < 0)
		return perr(&ps, "out of memory");
	o = json_loadb(d->text, d->len, JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		scratch_end();
		return perr(&ps, "not JSON: %s (column %d)", jerr.text, jerr.column);
	}
	rc = parse_fn_rest(&ps, o, fi, f);
	scratch_end();
	if (rc == 0)
		f->partial = false;
	return rc;
}

int dpa_progrep_fn_load(const struct dpa_progrep *pr, struct dpa_pr_fn *f)
{
	struct pool *pl = pr->pool;
	struct dpa_error err;
	int rc;

	if (!f->partial)
		return 0;
	rc = fn_load((struct dpa_progrep *)pr, f, &err);    /* logically const: fills in f */
	scratch_release();
	if (rc < 0 && !pl->n_failed++)
		pl->failed = strdup(err.msg);
	return rc;
}

/* The texts of the functions still partial, copied into the arena: the
 * section they point into is about to go. -1 out of memory. */
static int keep_deferred(struct dpa_progrep *pr)
{
	struct pool *pl = pr->pool;

	for (uint32_t i = 0; pl && pl->deferred && i < pr->n_fn; i++) {
		struct deferred *d = &pl->deferred[i];
		char *t;

		if (!pr->fn[i].partial)
			continue;
		if (!(t = pool_alloc(pl, d->len ? d->len : 1)))
			return -1;
		memcpy(t, d->text, d->len);
		d->text = t;
	}
	return 0;
}

/* An open ELF file. */
struct elf_file {
	int fd;
	Elf *elf;
	off_t size;
};

static void elf_close(struct elf_file *ef)
{
	if (ef->elf)
		elf_end(ef->elf);
	if (ef->fd >= 0)
		close(ef->fd);
	ef->elf = NULL;
	ef->fd = -1;
}

static int elf_open(struct elf_file *ef, const char *path, struct dpa_error *err)
{
	struct stat st;
	unsigned char magic[4];

	ef->elf = NULL;
	ef->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0)
		return set_err(err, "%s: %s", path, strerror(errno));
	if (fstat(ef->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		elf_close(ef);
		return set_err(err, "%s: not a regular file", path);
	}
	ef->size = st.st_size;
	if (pread(ef->fd, magic, 4, 0) != 4 || memcmp(magic, ELFMAG, 4)) {
		elf_close(ef);
		return set_err(err, "%s: not an ELF file", path);
	}
	elf_version(EV_CURRENT);
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF) {
		elf_close(ef);
		return set_err(err, "%s: not an ELF file", path);
	}
	return 0;
}

/* The section called `name`, or NULL. */
static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* Read the progrep of an open file: 0, 1 no section, -1 error. lazy: see
 * parse_text(); the file must stay open until keep_deferred(). */
static int read_open(struct dpa_progrep *pr, const char *path, struct elf_file *ef, bool lazy,
		     struct dpa_error *err)
{
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;

	memset(pr, 0, sizeof(*pr));
	if (elf_getshdrnum(ef->elf, &(size_t){ 0 }) < 0)
		return set_err(err, "%s: corrupt ELF file: %s", path, elf_errmsg(-1));
	scn = find_section(ef->elf, SECTION, &sh);
	if (!scn) {
		pr->path = strdup(path);
		return pr->path ? 1 : set_err(err, "%s: out of memory", path);
	}
	if (sh.sh_type == SHT_NOBITS || sh.sh_offset > (uint64_t)ef->size ||
	    sh.sh_size > (uint64_t)ef->size - sh.sh_offset)
		return set_err(err, "%s: " SECTION " truncated: %llu bytes at %llu, file has %lld",
			       path, (unsigned long long)sh.sh_size,
			       (unsigned long long)sh.sh_offset, (long long)ef->size);
	if (sh.sh_flags & SHF_COMPRESSED) {
		if (elf_compress(scn, 0, 0) < 0)
			return set_err(err, "%s: " SECTION ": cannot decompress: %s", path,
				       elf_errmsg(-1));
	}
	d = elf_getdata(scn, NULL);
	if (!d && sh.sh_size)
		return set_err(err, "%s: " SECTION ": cannot read: %s", path, elf_errmsg(-1));
	return parse_text(pr, path, d ? d->d_buf : "", d ? d->d_size : 0, ef->elf, lazy, err);
}

int dpa_progrep_read(struct dpa_progrep *pr, const char *path, struct dpa_error *err)
{
	struct elf_file ef;
	int rc;

	memset(pr, 0, sizeof(*pr));
	if (elf_open(&ef, path, err) < 0)
		return -1;
	rc = read_open(pr, path, &ef, false, err);
	elf_close(&ef);
	return rc;
}

void dpa_progrep_release(struct dpa_progrep *pr)
{
	if (!pr)
		return;
	free(pr->path);
	pool_free(pr->pool);
	memset(pr, 0, sizeof(*pr));
}

uint64_t dpa_progrep_steps(const struct dpa_progrep *pr)
{
	return pr->pool ? ((const struct pool *)pr->pool)->steps : 0;
}

struct dpa_pr_tu *dpa_progrep_tu(const struct dpa_progrep *pr, uint64_t tu_id)
{
	struct pool *pl = pr->pool;

	if (pl && pl->by_id) {          /* binary search once the file is read */
		uint32_t a = 0, b = pr->n_tu;

		while (a < b) {
			uint32_t m = a + (b - a) / 2;

			if (pl->by_id[m]->id < tu_id)
				a = m + 1;
			else
				b = m;
		}
		return a < pr->n_tu && pl->by_id[a]->id == tu_id ? pl->by_id[a] : NULL;
	}
	for (uint32_t i = 0; i < pr->n_tu; i++)     /* a file whose reading failed */
		if (pr->tu[i].id == tu_id)
			return &pr->tu[i];
	return NULL;
}

struct dpa_pr_fn *dpa_progrep_fn(const struct dpa_progrep *pr, uint64_t tu_id, uint32_t ps)
{
	struct dpa_pr_tu *tu = dpa_progrep_tu(pr, tu_id);

	return tu && ps < tu->n_ps ? tu->fn_of_ps[ps] : NULL;
}

struct dpa_pr_call *dpa_progrep_site(const struct dpa_progrep *pr, uint64_t tu_id, uint32_t site)
{
	struct dpa_pr_tu *tu = dpa_progrep_tu(pr, tu_id);

	return tu && site < tu->n_css ? tu->call_of_site[site] : NULL;
}

const char *dpa_pr_effects_name(enum dpa_pr_effects e)
{
	static const char *const names[] = { "const", "pure", "memory" };

	return (unsigned)e < 3 ? names[e] : "?";
}

const char *dpa_pr_sum_name(enum dpa_pr_sum_state s)
{
	static const char *const names[] = { "ok", "stale", "no-source", "unknown" };

	return (unsigned)s < DPA_PR_SUM_NSTATES ? names[s] : "?";
}

const char *dpa_pr_ref_name(enum dpa_pr_ref_kind k)
{
	static const char *const names[] = {
		"none", "temp", "param", "local", "global", "call", "addr_of", "function",
		"const", "string", "memory", "via_param", "heap", "null", "unknown",
	};

	return (unsigned)k < DPA_PR_NREFS ? names[k] : "?";
}

const char *dpa_pr_module_state_name(enum dpa_pr_module_state st)
{
	static const char *const names[] = {
		"loaded", "no progrep", "unreadable", "build id mismatch", "synthetic",
	};

	return (unsigned)st <= DPA_PR_SYNTHETIC ? names[st] : "?";
}

/* ================================================================
 * A profile's modules
 * ================================================================ */

/* Address ranges of the plugin's tables in a module file. */
struct range {
	uint64_t lo, hi;
};

struct tables {
	struct range *css, *ps;
	size_t n_css, n_ps;
};

static void tables_free(struct tables *t)
{
	free(t->css);
	free(t->ps);
}

static int add_range(struct range **r, size_t *n, uint64_t lo, uint64_t hi)
{
	struct range *nr = realloc(*r, (*n + 1) * sizeof(**r));

	if (!nr)
		return -1;
	nr[*n].lo = lo;
	nr[*n].hi = hi;
	*r = nr;
	(*n)++;
	return 0;
}

static bool is_table(const char *name, const char *base)
{
	size_t n = strlen(base);

	return !strncmp(name, base, n) && (name[n] == '\0' || name[n] == '.');
}

/* The __deepprof_css and __deepprof_ps symbols of the file's .symtab. */
static int find_tables(Elf *elf, struct tables *t)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t n, i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = d->d_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || strncmp(name, "__deepprof_", 11))
				continue;
			if (is_table(name, "__deepprof_css") &&
			    add_range(&t->css, &t->n_css, sym.st_value, sym.st_value + sym.st_size) < 0)
				return -1;
			if (is_table(name, "__deepprof_ps") &&
			    add_range(&t->ps, &t->n_ps, sym.st_value, sym.st_value + sym.st_size) < 0)
				return -1;
		}
	}
	return 0;
}

/* The range of r holding [a, a+size), its start in *lo; false if none. */
static bool in_ranges(const struct range *r, size_t n, uint64_t a, uint64_t size, uint64_t *lo)
{
	for (size_t i = 0; i < n; i++)
		if (a >= r[i].lo && a < r[i].hi && r[i].hi - a >= size) {
			*lo = r[i].lo;
			return true;
		}
	return false;
}

/* Copy `n` bytes of the file's image at virtual address `a` from an
 * allocated, non-executable section with contents; -1 if there is none. */
static int read_at(Elf *elf, uint64_t a, void *out, size_t n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    (sh.sh_flags & SHF_EXECINSTR) || sh.sh_type == SHT_NOBITS)
			continue;
		if (a < sh.sh_addr || a - sh.sh_addr >= sh.sh_size || sh.sh_size - (a - sh.sh_addr) < n)
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || d->d_size < sh.sh_size)
			return -1;
		memcpy(out, (const char *)d->d_buf + (a - sh.sh_addr), n);
		return 0;
	}
	return -1;
}

static uint64_t load_le(const unsigned char *b, int n, bool big)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)b[big ? n - 1 - i : i] << (8 * i);
	return v;
}

/* Does the file's NT_GNU_BUILD_ID equal `hex`? -1: the file has none. */
static int build_id_equal(Elf *elf, const char *hex)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		while (off < d->d_size && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			const unsigned char *b = (const unsigned char *)d->d_buf + doff;
			char c[3];

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + noff, "GNU", 4))
				continue;
			if (strlen(hex) != 2 * (size_t)nh.n_descsz)
				return 0;
			for (size_t i = 0; i < nh.n_descsz; i++) {
				snprintf(c, sizeof(c), "%02x", b[i]);
				if (c[0] != hex[2 * i] || c[1] != hex[2 * i + 1])
					return 0;
			}
			return 1;
		}
	}
	return -1;
}

/* Map the css of module m whose offsets are plugin table records. */
static void map_css(struct dpa_progreps *s, uint32_t m, Elf *elf, const struct tables *t)
{
	const struct dpa_profile *p = s->p;
	const struct dpa_progrep *pr = &s->mod[m].pr;
	GElf_Ehdr eh;
	bool big;

	if (!gelf_getehdr(elf, &eh))
		return;
	big = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	for (uint32_t c = 1; c <= p->n_css; c++) {
		const struct dpa_css *css = &p->css[c];
		unsigned char rec[CSS_SIZE];
		uint64_t lo, tu_id;
		uint32_t site;
		struct dpa_pr_tu *tu;
		const uint64_t off = dpa_css_offset(p, c);

		if (css->module != m)
			continue;
		/* With a symbol table, the offset must be a record of a table;
		 * without one (stripped of local symbols), the data there must
		 * name a TU and site of this module's progrep. */
		if (t->n_css && (!in_ranges(t->css, t->n_css, off, CSS_SIZE, &lo) ||
				 (off - lo) % CSS_SIZE))
			continue;
		if (read_at(elf, off, rec, sizeof(rec)) < 0)
			continue;
		site = (uint32_t)load_le(rec + CSS_INDEX_AT, 4, big);
		tu_id = load_le(rec + CSS_TUID_AT, 8, big);
		tu = dpa_progrep_tu(pr, tu_id);
		if (!tu || site >= tu->n_css)
			continue;
		s->css[c].module = m;
		s->css[c].tu_id = tu_id;
		s->css[c].site = site;
		s->css[c].call = tu->call_of_site[site];
		s->n_css_mapped++;
	}
}

static int by_name(const void *a, const void *b)
{
	const struct dpa_pr_fn *x = *(const struct dpa_pr_fn *const *)a;
	const struct dpa_pr_fn *y = *(const struct dpa_pr_fn *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x < y ? -1 : x > y);
}

/* Map the ps of module m: by the sites it makes (a mapped css whose
 * caller it is), by (name, file, line), and by the ps table index when the
 * offset is a dp_ps_static record. Evidence that disagrees with the name (an
 * inlined function's sites under calls=surviving) is ignored; a tie between
 * candidates leaves the ps unmapped. */
static int map_ps(struct dpa_progreps *s, uint32_t m, const struct tables *t)
{
	const struct dpa_profile *p = s->p;
	struct dpa_progrep *pr = &s->mod[m].pr;
	uint32_t *ev = calloc((size_t)p->n_ps + 1, sizeof(*ev));   /* fn + 1; UINT32_MAX: several */
	struct dpa_pr_fn **sorted = malloc(((size_t)pr->n_fn + 1) * sizeof(*sorted));

	if (!ev || !sorted) {
		free(ev);
		free(sorted);
		return -1;
	}
	for (uint32_t f = 0; f < pr->n_fn; f++)
		sorted[f] = &pr->fn[f];
	qsort(sorted, pr->n_fn, sizeof(*sorted), by_name);
	for (uint32_t c = 1; c <= p->n_css; c++) {
		uint32_t caller = p->css[c].caller_ps, f;

		if (s->css[c].module != m || !s->css[c].call || caller == 0 || caller > p->n_ps)
			continue;
		f = s->css[c].call->fn + 1;
		ev[caller] = ev[caller] == 0 || ev[caller] == f ? f : UINT32_MAX;
	}
	for (uint32_t i = 1; i <= p->n_ps; i++) {
		const struct dpa_ps *ps = &p->ps[i];
		struct dpa_pr_fn *best = NULL, **cand, *only;
		int best_score = 0, ties = 0;
		uint32_t lo_i = 0, hi_i = 0, index = 0;
		uint64_t lo, off = dpa_ps_offset(p, i);
		bool in_table;

		if (ps->module != m)
			continue;
		in_table = in_ranges(t->ps, t->n_ps, off, PS_SIZE, &lo) && (off - lo) % PS_SIZE == 0;
		if (in_table)
			index = (uint32_t)((off - lo) / PS_SIZE);
		if (dpa_src_get(p, DPA_PS_NAME, i)) {         /* the functions of that name: sorted[lo_i .. hi_i) */
			uint32_t a = 0, b = pr->n_fn;

			while (a < b) {
				uint32_t mid = a + (b - a) / 2;

				if (strcmp(sorted[mid]->name, dpa_src_str(p, DPA_PS_NAME, i)) < 0)
					a = mid + 1;
				else
					b = mid;
			}
			lo_i = hi_i = a;
			while (hi_i < pr->n_fn && !strcmp(sorted[hi_i]->name, dpa_src_str(p, DPA_PS_NAME, i)))
				hi_i++;
			cand = sorted;
		} else if (ev[i] && ev[i] != UINT32_MAX) {
			only = &pr->fn[ev[i] - 1];
			cand = &only;
			hi_i = 1;
		} else {
			continue;
		}
		for (uint32_t k = lo_i; k < hi_i; k++) {
			struct dpa_pr_fn *fn = cand[k];
			uint32_t f = (uint32_t)(fn - pr->fn);
			int score = 1;

			if (in_table && fn->ps != index)
				continue;
			if (ev[i] == f + 1)
				score += 8;
			if (dpa_src_get(p, DPA_PS_FILE, i) && !strcmp(dpa_src_str(p, DPA_PS_FILE, i), fn->file))
				score += 2;
			if (dpa_src_get(p, DPA_PS_LINE, i) && dpa_src_get(p, DPA_PS_LINE, i) == fn->line)
				score += 1;
			if (score > best_score) {
				best = fn;
				best_score = score;
				ties = 0;
			} else if (score == best_score) {
				ties++;
			}
		}
		if (best && !ties) {
			s->ps[i].module = m;
			s->ps[i].fn = best;
			s->n_ps_mapped++;
		}
	}
	free(ev);
	free(sorted);
	return 0;
}

/* Lazily read module m (mapped): load every partial function a ps or a
 * css of the profile maps to, in section order (so the first bad record is
 * the one a full read would report first among them), then copy the texts
 * of the others out of the section. */
static int load_used(struct dpa_progreps *s, uint32_t m, struct dpa_error *err)
{
	const struct dpa_profile *p = s->p;
	struct dpa_progrep *pr = &s->mod[m].pr;
	uint8_t *used = calloc((size_t)pr->n_fn + 1, 1);
	int rc = 0;

	if (!used)
		return set_err(err, "%s: out of memory", pr->path);
	for (uint32_t i = 1; i <= p->n_ps; i++)
		if (s->ps[i].module == m && s->ps[i].fn)
			used[s->ps[i].fn - pr->fn] = 1;
	for (uint32_t c = 1; c <= p->n_css; c++)
		if (s->css[c].module == m && s->css[c].call && s->css[c].call->fn < pr->n_fn)
			used[s->css[c].call->fn] = 1;
	for (uint32_t f = 0; f < pr->n_fn && rc == 0; f++)
		if (used[f] && pr->fn[f].partial)
			rc = fn_load(pr, &pr->fn[f], err);
	scratch_release();
	free(used);
	/* even after a failure: a partial function's text stays valid */
	if (keep_deferred(pr) < 0 && rc == 0)
		rc = set_err(err, "%s: out of memory", pr->path);
	return rc;
}

static int load_module(struct dpa_progreps *s, uint32_t m, bool lazy, struct dpa_error *err)
{
	const struct dpa_module *mod = &s->p->module[m];
	struct dpa_pr_module *pm = &s->mod[m];
	struct tables t = { 0 };
	struct elf_file ef;
	struct dpa_error e;
	int rc;

	if (!mod->path || !mod->path[0]) {
		pm->state = DPA_PR_SYNTHETIC;
		return 0;
	}
	if (elf_open(&ef, mod->path, &e) < 0) {
		pm->state = DPA_PR_UNREADABLE;
		pm->msg = strdup(e.msg);
		s->n_unusable++;
		return 0;
	}
	if (mod->build_id && build_id_equal(ef.elf, mod->build_id) == 0) {
		pm->state = DPA_PR_MISMATCH;
		snprintf(e.msg, sizeof(e.msg), "%s: build id differs from the profile's (%s)",
			 mod->path, mod->build_id);
		pm->msg = strdup(e.msg);
		s->n_unusable++;
		elf_close(&ef);
		return 0;
	}
	rc = read_open(&pm->pr, mod->path, &ef, lazy, err);
	if (rc < 0) {
		elf_close(&ef);
		return -1;
	}
	if (rc == 1) {
		pm->state = DPA_PR_ABSENT;
		s->n_absent++;
		elf_close(&ef);
		return 0;
	}
	pm->state = DPA_PR_LOADED;
	s->n_loaded++;
	if (find_tables(ef.elf, &t) < 0) {
		tables_free(&t);
		elf_close(&ef);
		return set_err(err, "%s: out of memory", mod->path);
	}
	map_css(s, m, ef.elf, &t);
	rc = map_ps(s, m, &t);
	tables_free(&t);
	if (rc < 0) {
		elf_close(&ef);
		return set_err(err, "%s: out of memory", mod->path);
	}
	rc = lazy ? load_used(s, m, err) : 0;
	elf_close(&ef);
	return rc;
}

static int load_all(struct dpa_progreps *s, const struct dpa_profile *p, bool lazy,
		    struct dpa_error *err)
{
	memset(s, 0, sizeof(*s));
	s->p = p;
	s->mod = calloc((size_t)p->n_module + 1, sizeof(*s->mod));
	s->ps = calloc((size_t)p->n_ps + 1, sizeof(*s->ps));
	s->css = calloc((size_t)p->n_css + 1, sizeof(*s->css));
	if (!s->mod || !s->ps || !s->css)
		return set_err(err, "%s: out of memory", p->path ? p->path : "profile");
	for (uint32_t m = 1; m <= p->n_module; m++)
		if (load_module(s, m, lazy, err) < 0)
			return -1;
	return 0;
}

int dpa_progreps_load(struct dpa_progreps *s, const struct dpa_profile *p, struct dpa_error *err)
{
	return load_all(s, p, false, err);
}

int dpa_progreps_load_used(struct dpa_progreps *s, const struct dpa_profile *p,
			   struct dpa_error *err)
{
	return load_all(s, p, true, err);
}

int dpa_progreps_check(const struct dpa_progreps *s, struct dpa_error *err)
{
	if (!s || !s->mod || !s->p)
		return 0;
	for (uint32_t m = 1; m <= s->p->n_module; m++) {
		const struct pool *pl = s->mod[m].pr.pool;

		if (pl && pl->n_failed) {
			if (pl->failed)
				snprintf(err->msg, sizeof(err->msg), "%s", pl->failed);
			else
				set_err(err, "%s: out of memory", s->mod[m].pr.path);
			return -1;
		}
	}
	return 0;
}

void dpa_progreps_release(struct dpa_progreps *s)
{
	if (!s)
		return;
	if (s->mod && s->p)
		for (uint32_t m = 1; m <= s->p->n_module; m++) {
			free(s->mod[m].msg);
			dpa_progrep_release(&s->mod[m].pr);
		}
	free(s->mod);
	free(s->ps);
	free(s->css);
	memset(s, 0, sizeof(*s));
}
