/*
 * pages.c — the profile browser (pages.h): a request's path and query to a
 * report, its display, and an HTML page (or its JSON twin), with links that
 * name things by stable keys. Used by `deepprof serve`, deepprof-cgi and
 * `deepprof test-pages`. Part of deepprof's analyses library. MIT licence.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "ctxpath.h"
#include "diff.h"
#include "display.h"
#include "flame.h"
#include "names.h"
#include "merge.h"
#include "pages.h"
#include "pages_int.h"
#include "report.h"
#include "utf8.h"


struct page;
static void recursion_by_depth(struct page *w, uint32_t c);
/* Links name contexts by at most this many calls (a suffix, "~/...", when
 * the path is longer): URLs stay below about 4 kB. */
#define CTX_STEPS 40

/* ================================================================
 * The loaded profiles
 * ================================================================ */



void dpa_pg_side_free(struct side *s)
{
	if (!s)
		return;
	if (s->spec) {
		for (uint32_t i = 0; i <= s->p.n_ps; i++)
			free(s->spec[i]);
		free(s->spec);
	}
	free(s->name_count);
	free(s->names);
	free(s->slot);
	free(s->name_next);
	dpa_pg_side_free(s->excl);
	free(s->excl_key);
	free(s->old_pd);
	free(s->old_ps);
	if (s->has_diff) {
		dpa_diff_release(&s->diff);
		dpa_profile_release(&s->dnew);
	}
	dpa_deep_release(&s->d);
	dpa_profile_release(&s->p);
	free(s->path);
	free(s);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The name index (names, slot, name_next) and name_count, by one hash
 * table of names: O(n_ps). */
static int count_names(struct side *s)
{
	const struct dpa_profile *p = &s->p;
	size_t cap = 16;
	uint32_t *last;

	while (cap < 2 * (size_t)p->n_ps + 2)
		cap *= 2;
	s->cap = cap;
	s->slot = calloc(cap, sizeof(*s->slot));
	s->names = calloc((size_t)p->n_ps + 1, sizeof(*s->names));
	s->name_next = calloc((size_t)p->n_ps + 1, sizeof(uint32_t));
	s->name_count = calloc((size_t)p->n_ps + 1, sizeof(uint32_t));
	last = calloc((size_t)p->n_ps + 1, sizeof(*last));
	if (!s->slot || !s->names || !s->name_next || !s->name_count || !last) {
		free(last);
		return -1;
	}
	for (uint32_t k = 1; k <= p->n_ps; k++)
		s->names[k] = dpa_ps_name(p, k);
	for (uint32_t k = 1; k <= p->n_ps; k++) {
		const char *n = s->names[k];
		size_t i = hash_str(n) & (cap - 1);

		while (s->slot[i] && strcmp(s->names[s->slot[i]], n))
			i = (i + 1) & (cap - 1);
		if (!s->slot[i]) {
			s->slot[i] = k;
		} else {
			s->name_next[last[s->slot[i]]] = k;
		}
		last[s->slot[i]] = k;
		s->name_count[s->slot[i]]++;
	}
	for (uint32_t k = 1; k <= p->n_ps; k++)
		if (s->name_count[k])           /* the first of its name: pass its count on */
			for (uint32_t j = s->name_next[k]; j; j = s->name_next[j])
				s->name_count[j] = s->name_count[k];
	free(last);
	return 0;
}

/* The first procedure named exactly name (then name_next[] the others), 0
 * when none. */
static uint32_t by_name(const struct side *s, const char *name)
{
	for (size_t i = hash_str(name) & (s->cap - 1); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (!strcmp(s->names[s->slot[i]], name))
			return s->slot[i];
	return 0;
}

/* The procedures spec names, as dpa_names_find() finds them (the same
 * answer, errors included), but from the index when spec is the name of
 * exactly one procedure. *out malloc'd. */
static int find_procs(const struct side *s, const char *spec, uint32_t **out, uint32_t *n,
		      struct dpa_error *e)
{
	uint32_t k = strchr(spec, ':') ? 0 : by_name(s, spec);

	if (k && !s->name_next[k]) {
		if (!(*out = malloc(sizeof(**out))))
			return dpa_fail(e, &s->p, "out of memory");
		**out = k;
		*n = 1;
		return 0;
	}
	return dpa_names_find(&s->p, spec, out, n, e);
}

static int fill_stat(const char *path, struct stat *st, char *err, size_t errlen)
{
	if (stat(path, st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The diff of s's profile (OLD, read once for both) and other (NEW). A
 * failure is kept in diff_err, not fatal. */
static void load_diff(struct side *s, const char *other)
{
	struct dpa_error e = { { 0 } };

	if (dpa_profile_read(&s->dnew, other, &e) < 0) {
		snprintf(s->diff_err, sizeof(s->diff_err), "%s", e.msg);
		return;
	}
	dpa_profile_symbolize(&s->dnew);
	/* both borrowed for the call only, and not changed */
	if (dpa_diff_init(&s->diff, &s->p, &s->dnew, false, &e) < 0) {
		snprintf(s->diff_err, sizeof(s->diff_err), "%s", e.msg);
		dpa_profile_release(&s->dnew);
		return;
	}
	s->has_diff = true;
	/* where OLD's contexts and procedures went, backwards: a diff row
	 * links to OLD's page (this side's profile is OLD's file) */
	s->old_pd = calloc((size_t)s->diff.m.prof.n_pd + 1, sizeof(uint32_t));
	s->old_ps = calloc((size_t)s->diff.m.prof.n_ps + 1, sizeof(uint32_t));
	if (s->old_pd && s->old_ps) {
		for (uint32_t k = s->p.n_pd; k >= 1; k--)
			s->old_pd[s->diff.m.pd_map[0][k]] = k;
		for (uint32_t k = s->p.n_ps; k >= 1; k--)
			s->old_ps[s->diff.m.ps_map[0][k]] = k;
	}
}

struct side *dpa_pg_side_load(const char *file, const char *other, char *err, size_t errlen)
{
	struct side *s = calloc(1, sizeof(*s));
	struct dpa_error e = { { 0 } };

	if (!s || !(s->path = strdup(file))) {
		snprintf(err, errlen, "%s: out of memory", file);
		free(s);
		return NULL;
	}
	if (fill_stat(file, &s->st, err, errlen) < 0) {
		free(s->path);
		free(s);
		return NULL;
	}
	if (dpa_profile_read(&s->p, file, &e) < 0) {
		snprintf(err, errlen, "%s", e.msg);
		free(s->path);
		free(s);
		return NULL;
	}
	dpa_profile_symbolize(&s->p);
	if (dpa_deep_init(&s->d, &s->p, &e) < 0) {
		snprintf(err, errlen, "%s", e.msg);
		dpa_profile_release(&s->p);
		free(s->path);
		free(s);
		return NULL;
	}
	s->spec = calloc((size_t)s->p.n_ps + 1, sizeof(char *));
	if (!s->spec || count_names(s) < 0) {
		snprintf(err, errlen, "%s: out of memory", file);
		dpa_pg_side_free(s);
		return NULL;
	}
	if (other)
		load_diff(s, other);
	return s;
}

struct dp_pages *dp_pages_open(const char *file, const char *other, char *err, size_t errlen)
{
	struct dp_pages *pg = calloc(1, sizeof(*pg));

	if (!pg) {
		snprintf(err, errlen, "%s: out of memory", file);
		return NULL;
	}
	pthread_mutex_init(&pg->mu, NULL);
	pthread_mutex_init(&pg->reload, NULL);
	if (!(pg->file = strdup(file)) || (other && !(pg->other = strdup(other)))) {
		snprintf(err, errlen, "%s: out of memory", file);
		dp_pages_close(pg);
		return NULL;
	}
	if (other) {
		struct stat st;

		if (fill_stat(other, &st, err, errlen) < 0) {
			dp_pages_close(pg);
			return NULL;
		}
	}
	if (!(pg->s = dpa_pg_side_load(file, other, err, errlen))) {
		dp_pages_close(pg);
		return NULL;
	}
	if (other && !pg->s->has_diff) {
		snprintf(err, errlen, "%s", pg->s->diff_err);
		dp_pages_close(pg);
		return NULL;
	}
	return pg;
}

static bool changed(const struct stat *a, const struct stat *b)
{
	return a->st_size != b->st_size || a->st_ino != b->st_ino || a->st_dev != b->st_dev ||
	       a->st_mtim.tv_sec != b->st_mtim.tv_sec || a->st_mtim.tv_nsec != b->st_mtim.tv_nsec;
}

int dp_pages_reload_if_changed(struct dp_pages *pg, char *err, size_t errlen)
{
	struct stat st;
	struct side *s, *old;
	bool again;

	pthread_mutex_lock(&pg->reload);
	if (fill_stat(pg->file, &st, err, errlen) < 0) {
		pthread_mutex_unlock(&pg->reload);
		return -1;
	}
	pthread_mutex_lock(&pg->mu);
	again = changed(&st, &pg->s->st);
	pthread_mutex_unlock(&pg->mu);
	if (!again) {
		pthread_mutex_unlock(&pg->reload);
		return 0;
	}
	/* read outside the answering lock: pages go on meanwhile */
	if (!(s = dpa_pg_side_load(pg->file, pg->other, err, errlen))) {
		pthread_mutex_unlock(&pg->reload);
		return -1;
	}
	pthread_mutex_lock(&pg->mu);
	old = pg->s;
	pg->s = s;
	pthread_mutex_unlock(&pg->mu);
	dpa_pg_side_free(old);
	pthread_mutex_unlock(&pg->reload);
	return 1;
}

void dp_pages_close(struct dp_pages *pg)
{
	if (!pg)
		return;
	dpa_pg_side_free(pg->s);
	free(pg->file);
	free(pg->other);
	free(pg->base);
	free(pg->suffix);
	for (uint32_t i = 0; i < pg->n_suffix_keys; i++)
		free(pg->suffix_keys[i]);
	free(pg->suffix_keys);
	pthread_mutex_destroy(&pg->mu);
	pthread_mutex_destroy(&pg->reload);
	free(pg);
}

/* ================================================================
 * URLs
 * ================================================================ */


/* s[0..n) URL-decoded ('+' is a space) into a malloc'd string; NULL when
 * out of memory or a '%' is not followed by two hex digits (*bad set). */
static char *url_decode(const char *s, size_t n, bool *bad)
{
	char *o = malloc(n + 1);
	size_t k = 0;

	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%') {
			int hi = i + 2 < n ? dpa_hex_digit(s[i + 1]) : -1, lo = i + 2 < n ? dpa_hex_digit(s[i + 2]) : -1;

			if (hi < 0 || lo < 0) {
				*bad = true;
				free(o);
				return NULL;
			}
			o[k++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			o[k++] = s[i] == '+' ? ' ' : s[i];
		}
	}
	o[k] = 0;
	return o;
}

/* s URL-encoded onto f: keep is the set of characters beside A-Z a-z 0-9
 * and "-._~" that stay as they are. */
static void url_encode(FILE *f, const char *s, const char *keep)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
		    strchr("-._~", *c) || (*c && strchr(keep, *c)))
			fputc(*c, f);
		else
			fprintf(f, "%%%02X", *c);
	}
}

int dp_pages_set_base(struct dp_pages *pg, const char *base, const char *suffix)
{
	free(pg->base);
	free(pg->suffix);
	pg->base = pg->suffix = NULL;
	if ((base && !(pg->base = strdup(base))) || (suffix && !(pg->suffix = strdup(suffix))))
		return -1;
	/* the suffix's keys */
	for (const char *q = suffix; q && *q;) {
		const char *amp = strchr(q, '&'), *eq;
		size_t len = amp ? (size_t)(amp - q) : strlen(q);
		char **v;

		eq = memchr(q, '=', len);
		v = realloc(pg->suffix_keys, (pg->n_suffix_keys + 1) * sizeof(*v));
		if (!v)
			return -1;
		pg->suffix_keys = v;
		if (!(v[pg->n_suffix_keys] = strndup(q, eq ? (size_t)(eq - q) : len)))
			return -1;
		pg->n_suffix_keys++;
		q = amp ? amp + 1 : q + len;
	}
	return 0;
}

/* ================================================================
 * Preferences (the query)
 * ================================================================ */



static void prefs_free(struct prefs *q)
{
	free(q->ctx);
	free(q->name);
	free(q->exclude_raw);
	for (uint32_t i = 0; i < q->n_exclude; i++)
		free(q->exclude[i]);
}

/* Parse query into *q. Returns 0, or -1 with why[n]. */
static int prefs_parse(const struct dp_pages *pg, const char *query, struct prefs *q,
		       char *why, size_t n)
{
	memset(q, 0, sizeof(*q));
	q->sort = DPA_CSCS;
	q->limit = -1;
	q->by = -1;
	q->page = 1;
	q->pct = -1;
	for (const char *s = query ? query : ""; *s;) {
		const char *amp = strchr(s, '&'), *eq;
		size_t len = amp ? (size_t)(amp - s) : strlen(s);
		bool bad = false;
		char *k, *v;
		char *end;

		eq = memchr(s, '=', len);
		k = url_decode(s, eq ? (size_t)(eq - s) : len, &bad);
		v = eq ? url_decode(eq + 1, len - (size_t)(eq + 1 - s), &bad) : strdup("");
		s = amp ? amp + 1 : s + len;
		if (!k || !v) {
			snprintf(why, n, bad ? "bad %%-escape in the query" : "out of memory");
			free(k);
			free(v);
			return -1;
		}
		if (!*k && !*v) {
			/* an empty pair ("a=1&&b=2") */
		} else if (!strcmp(k, "format")) {
			if (strcmp(v, "json") && strcmp(v, "html")) {
				snprintf(why, n, "format '%.100s': want json or html", v);
				goto bad;
			}
			q->json = !strcmp(v, "json");
		} else if (!strcmp(k, "sort")) {
			int m = dpa_report_measure_parse(v);

			if (m < 0) {
				snprintf(why, n, "sort '%.100s': want calls, cscs, ticks, allocs or bytes", v);
				goto bad;
			}
			q->sort = m;
		} else if (!strcmp(k, "mode")) {
			if (strcmp(v, "self") && strcmp(v, "total")) {
				snprintf(why, n, "mode '%.100s': want self or total", v);
				goto bad;
			}
			q->total = !strcmp(v, "total");
			q->total_set = true;
		} else if (!strcmp(k, "percall")) {
			if (strcmp(v, "0") && strcmp(v, "1")) {
				snprintf(why, n, "percall '%.100s': want 0 or 1", v);
				goto bad;
			}
			q->per_call = !strcmp(v, "1");
		} else if (!strcmp(k, "limit") || !strcmp(k, "page")) {
			unsigned long l;

			errno = 0;
			l = strtoul(v, &end, 10);
			if (!*v || *end || errno || l > 100000000ul || v[0] == '-' ||
			    (!strcmp(k, "page") && l == 0)) {
				snprintf(why, n, "%s '%.100s': want a number%s", k, v,
					 !strcmp(k, "page") ? " from 1" : "");
				goto bad;
			}
			if (!strcmp(k, "limit"))
				q->limit = (long)l;
			else
				q->page = (uint32_t)l;
		} else if (!strcmp(k, "by")) {
			int g = dpa_report_group_parse(v);

			if (g < 0) {
				snprintf(why, n, "by '%.100s': want site, proc, file or clique", v);
				goto bad;
			}
			q->by = g;
		} else if (!strcmp(k, "pct")) {
			double d = strtod(v, &end);

			if (!*v || *end || !(d >= 0 && d <= 100)) {
				snprintf(why, n, "pct '%.100s': want a percentage 0..100", v);
				goto bad;
			}
			q->pct = d;
		} else if (!strcmp(k, "ctx")) {
			free(q->ctx);
			q->ctx = v;
			v = NULL;
		} else if (!strcmp(k, "exclude")) {
			free(q->exclude_raw);
			q->exclude_raw = strdup(v);
			char *save = NULL;

			for (char *t = strtok_r(v, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				if (q->n_exclude == MAX_EXCLUDE) {
					snprintf(why, n, "exclude: at most %d modules", MAX_EXCLUDE);
					goto bad;
				}
				if (!(q->exclude[q->n_exclude++] = strdup(t))) {
					snprintf(why, n, "out of memory");
					goto bad;
				}
			}
		} else {
			bool known = false;

			for (uint32_t i = 0; i < pg->n_suffix_keys; i++)
				if (!strcmp(k, pg->suffix_keys[i]))
					known = true;
			if (!known) {
				snprintf(why, n, "unknown query key '%.100s' (format, sort, mode, percall, limit,"
					 " by, page, pct, ctx, exclude)", k);
				goto bad;
			}
		}
		free(k);
		free(v);
		continue;
bad:
		free(k);
		free(v);
		return -1;
	}
	return 0;
}

/* ================================================================
 * Pages being written
 * ================================================================ */


const char *dpa_pg_measure_key(enum dpa_measure m)
{
	static const char *const k[DPA_NMEASURES] = {
		"calls", "exits", "nonlocal", "cscs", "ticks", "allocs", "bytes" };

	return k[m];
}


/* The query carrying the preferences that differ from the defaults (and
 * the extra "k=v" pairs given, already encoded), then the base's suffix;
 * written with its leading '?' when not empty. over_*: change one pref. */
static void put_query(struct page *w, FILE *f, const struct over *o, const char *extra)
{
	const struct prefs *q = &w->q;
	int sort = o && o->sort >= 0 ? o->sort : (int)q->sort;
	int total = o && o->total >= 0 ? o->total : q->total_set ? q->total : -1;
	int pc = o && o->per_call >= 0 ? o->per_call : q->per_call;
	char sep = '?';

#define SEP() (fputc(sep, f), sep = '&')
	if (extra && *extra) {
		SEP();
		fputs(extra, f);
	}
	if (sort != DPA_CSCS) {
		SEP();
		fprintf(f, "sort=%s", dpa_pg_measure_key(sort));
	}
	if (total >= 0) {
		SEP();
		fprintf(f, "mode=%s", total ? "total" : "self");
	}
	if (pc) {
		SEP();
		fputs("percall=1", f);
	}
	if (q->limit >= 0 && (!o || o->keep_limit)) {
		SEP();
		fprintf(f, "limit=%ld", q->limit);
	}
	if (q->exclude_raw && *q->exclude_raw) {
		SEP();
		fputs("exclude=", f);
		url_encode(f, q->exclude_raw, ",");
	}
	if (o && o->json == 1) {
		SEP();
		fputs("format=json", f);
	}
	if (w->pg->suffix && *w->pg->suffix) {
		SEP();
		fputs(w->pg->suffix, f);
	}
#undef SEP
}

/* A link's URL onto f: base + path (encoded, '/' and ':' kept) + query. */
static void put_url(struct page *w, FILE *f, const char *path, const char *extra,
		    const struct over *o)
{
	if (w->pg->base)
		fputs(w->pg->base, f);
	url_encode(f, path, "/:@!$'()*,;=");
	put_query(w, f, o, extra);
}

/* The same into a malloc'd string (NULL: out of memory). */
static char *url_str(struct page *w, const char *path, const char *extra, const struct over *o)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		return NULL;
	put_url(w, f, path, extra, o);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* <a href="URL">text</a> */
void dpa_pg_link(struct page *w, const char *path, const char *extra, const struct over *o,
		 const char *text)
{
	char *u = url_str(w, path, extra, o);

	fputs("<a href=\"", w->f);
	dpa_html_escape(w->f, u ? u : "");
	fputs("\">", w->f);
	dpa_html_escape(w->f, text);
	fputs("</a>", w->f);
	free(u);
}

/* The name a URL gives ps by: the bare name when no other procedure has
 * it, else file.c:name, else path:name (what `deepprof report proc`
 * takes back). Cached in s->spec; NULL when out of memory. */
const char *dpa_pg_ps_spec(struct side *s, uint32_t ps)
{
	const struct dpa_profile *p = &s->p;
	const char *name;

	if (!ps || ps > p->n_ps)
		return NULL;
	if (s->spec[ps])
		return s->spec[ps];
	name = dpa_ps_name(p, ps);
	if (s->name_count[ps] <= 1) {
		s->spec[ps] = strdup(name);
		return s->spec[ps];
	}
	for (int i = 0; i < 2 && dpa_src_get(p, DPA_PS_FILE, ps); i++) {
		const char *file = dpa_src_str(p, DPA_PS_FILE, ps);
		char *spec;
		uint32_t *group = NULL, ng = 0;
		struct dpa_error e;

		if (asprintf(&spec, "%s:%s", i ? file : dpa_basename(file), name) < 0)
			return NULL;
		if (dpa_names_find(p, spec, &group, &ng, &e) == 0 && ng == 1 && group[0] == ps) {
			free(group);
			s->spec[ps] = spec;
			return spec;
		}
		free(group);
		free(spec);
	}
	s->spec[ps] = strdup(name);     /* the best there is: names its group */
	return s->spec[ps];
}

/* The context path of pd as a query value: "ctx=..." encoded, malloc'd. */
char *dpa_pg_ctx_query(struct side *s, uint32_t pd)
{
	char *path, *out = NULL;
	size_t n = 0;
	FILE *f;

	if (dpa_ctx_key(&s->d, pd, CTX_STEPS, &path) < 0)
		return NULL;
	f = open_memstream(&out, &n);
	if (!f) {
		free(path);
		return NULL;
	}
	fputs("ctx=", f);
	url_encode(f, path, "/:@");
	free(path);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* The pd a clique's page is named after: its primary entry's callee, or
 * its first member (a thread's root). */
static uint32_t clique_pd(const struct side *s, uint32_t c)
{
	uint32_t e = dpa_clique_primary_entry(&s->d.cl, c), n;

	if (e)
		return s->p.csd[e].callee_pd;
	return dpa_clique_members(&s->d.cl, c, &n)[0];
}

/* render_html's link hook: stable URLs for procedures, cliques, call sites
 * and contexts. */
static bool href(void *ctx, const struct dpa_display *dp, const struct dpa_table *t, uint32_t row,
		 int kind, uint64_t id, char *buf, size_t n)
{
	struct page *w = ctx;
	struct side *s = w->s;
	char *u = NULL, *extra = NULL, path[64];

	(void)dp;
	(void)t;
	(void)row;
	switch (kind) {
	case DPA_LINK_PS: {
		const char *spec = id <= s->p.n_ps ? dpa_pg_ps_spec(s, (uint32_t)id) : NULL;
		char *pp;

		if (!spec || id == 1)
			return false;
		if (asprintf(&pp, "/proc/%s", spec) < 0)
			return false;
		u = url_str(w, pp, NULL, NULL);
		free(pp);
		break;
	}
	case DPA_LINK_CLIQUE:
		if (!id || id > s->d.cl.n)
			return false;
		extra = dpa_pg_ctx_query(s, clique_pd(s, (uint32_t)id));
		if (extra)
			u = url_str(w, "/clique", extra, NULL);
		break;
	case DPA_LINK_PD:
		if (!id || id > s->p.n_pd)
			return false;
		extra = dpa_pg_ctx_query(s, (uint32_t)id);
		if (extra)
			u = url_str(w, "/clique", extra, NULL);
		break;
	case DPA_LINK_CSS:
		if (!id || id > s->p.n_css)
			return false;
	{
		char loc[48], *pp;

		dpa_ctx_css_loc(&s->p, (uint32_t)id, loc, sizeof(loc));
		if (asprintf(&pp, "/site/%s@%s", dpa_ps_name(&s->p, s->p.css[id].caller_ps), loc) < 0)
			return false;
		u = url_str(w, pp, NULL, NULL);
		free(pp);
		(void)path;
		break;
	}
	default:
		return false;
	}
	free(extra);
	if (!u || strlen(u) >= n) {
		free(u);
		return false;
	}
	memcpy(buf, u, strlen(u) + 1);
	free(u);
	return true;
}

static const char style[] =
	"body{font-family:sans-serif;margin:1em 2em;color:#222;background:#fff}\n"
	"h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.5em}h3{font-size:1em}\n"
	"nav{margin-bottom:.6em;padding:.3em 0;border-bottom:1px solid #ccd}nav a{margin-right:1em}\n"
	".prefs{font-size:.85em;color:#555;margin-bottom:1em}.prefs a{margin-right:.6em}\n"
	".prefs b{margin-right:.6em}\n"
	".meta{color:#555;font-size:.9em}.note{background:#ffd;padding:.3em .6em;border:1px solid #ec9}\n"
	".err{background:#fee;padding:.5em 1em;border:1px solid #d99}\n"
	"table{border-collapse:collapse;font-size:.9em;margin:.3em 0}\n"
	"th,td{padding:.15em .5em;border-bottom:1px solid #ddd;vertical-align:top}\n"
	"thead th{background:#eef;position:sticky;top:0}\n"
	"th[data-sort]{cursor:pointer}th.sorted-asc::after{content:' \\25B2'}th.sorted-desc::after{content:' \\25BC'}\n"
	"th.n,td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"th.l,td.l{text-align:left}\n"
	"table.kv th{text-align:left;font-weight:normal;color:#555}\n"
	"tbody tr:hover{background:#f6f6ff}\n"
	"a{color:#04a;text-decoration:none}a:hover{text-decoration:underline}\n"
	".none{color:#777}ol.path li{margin:.1em 0}\n"
	"svg.flame text{font-size:11px;font-family:sans-serif;pointer-events:none}\n"
	"svg.flame rect{stroke:#fff;stroke-width:.5}svg.flame a:hover rect{stroke:#000}\n"
	"pre.src{font-size:.85em;line-height:1.3}pre.src .hot{background:#fdd}\n";

/* Sorting a list by a click on its heading: by data-v (numbers) where the
 * cells have it, else by text; a second click reverses. */
static const char script[] =
	"<script>\n"
	"document.querySelectorAll('th[data-sort]').forEach(function(th){\n"
	" th.addEventListener('click',function(){\n"
	"  var tr=th.parentNode,tab=tr.closest('table'),body=tab.tBodies[0];\n"
	"  var i=Array.prototype.indexOf.call(tr.children,th);\n"
	"  var desc=!th.classList.contains('sorted-desc');\n"
	"  tr.querySelectorAll('th').forEach(function(h){h.classList.remove('sorted-asc','sorted-desc')});\n"
	"  th.classList.add(desc?'sorted-desc':'sorted-asc');\n"
	"  var rows=Array.prototype.slice.call(body.rows);\n"
	"  function key(r){var c=r.cells[i];if(!c)return '';var v=c.getAttribute('data-v');\n"
	"   if(v!==null&&v!==''&&!isNaN(+v))return +v;if(v==='true')return 1;if(v==='false')return 0;\n"
	"   return c.textContent;}\n"
	"  rows.sort(function(a,b){var x=key(a),y=key(b);var c=(typeof x==='number'&&typeof y==='number')?x-y:\n"
	"   String(x).localeCompare(String(y));return desc?-c:c;});\n"
	"  rows.forEach(function(r){body.appendChild(r)});\n"
	" });\n"
	"});\n"
	"</script>\n";

/* The head, the navigation and the preference links. */
void dpa_pg_page_begin(struct page *w, const char *title, const char *self_path,
		       const char *self_extra)
{
	FILE *f = w->f;
	static const enum dpa_measure ms[] = { DPA_CALLS, DPA_CSCS, DPA_TICKS, DPA_ALLOCS, DPA_BYTES };

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<link rel=\"icon\" href=\"data:,\">\n<title>", f);
	dpa_html_escape(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<nav>", style);
	dpa_pg_link(w, "/", NULL, NULL, "Summary");
	dpa_pg_link(w, "/top", NULL, NULL, "Top procedures");
	dpa_pg_link(w, "/flame", NULL, NULL, "Flame graph");
	dpa_pg_link(w, "/root", NULL, NULL, "Root");
	dpa_pg_link(w, "/recursion", NULL, NULL, "Recursion");
	dpa_pg_link(w, "/modules", NULL, NULL, "Modules");
	if (w->s->has_diff)
		dpa_pg_link(w, "/diff", NULL, NULL, "Diff");
	fputs("</nav>\n", f);
	if (self_path) {
		fputs("<div class=\"prefs\">sort by: ", f);
		for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
			struct over o = { .sort = ms[i], .total = -1, .per_call = -1, .json = -1, .keep_limit = true };

			if (ms[i] == w->q.sort) {
				fprintf(f, "<b>%s</b>", dpa_pg_measure_key(ms[i]));
				continue;
			}
			dpa_pg_link(w, self_path, self_extra, &o, dpa_pg_measure_key(ms[i]));
		}
		fputs(" &nbsp; rank by: ", f);
		for (int t = 0; t < 2; t++) {
			struct over o = { .sort = -1, .total = t, .per_call = -1, .json = -1, .keep_limit = true };

			if (w->q.total == t)
				fprintf(f, "<b>%s</b>", t ? "total" : "self");
			else
				dpa_pg_link(w, self_path, self_extra, &o, t ? "total" : "self");
		}
		fputs(" &nbsp; ", f);
		{
			struct over o = { .sort = -1, .total = -1, .per_call = !w->q.per_call, .json = -1,
					  .keep_limit = true };

			dpa_pg_link(w, self_path, self_extra, &o, w->q.per_call ? "totals, not per call" : "per call");
		}
		fputs(" &nbsp; ", f);
		{
			struct over o = { .sort = -1, .total = -1, .per_call = -1, .json = 1, .keep_limit = true };

			dpa_pg_link(w, self_path, self_extra, &o, "JSON");
		}
		fputs("</div>\n", f);
	}
	fputs("<h1>", f);
	dpa_html_escape(f, title);
	fputs("</h1>\n", f);
}

void dpa_pg_page_end(struct page *w)
{
	fputs("<p class=\"meta\">profile: ", w->f);
	dpa_html_escape(w->f, w->s->path);
	fputs(" &nbsp; program: ", w->f);
	dpa_html_escape(w->f, w->s->p.hdr.program ? w->s->p.hdr.program : "?");
	fputs(" &mdash; deepprof</p>\n", w->f);
	fputs(script, w->f);
	fputs("</body>\n</html>\n", w->f);
}

/* An error page (or a JSON error object) with status. */
int dpa_pg_fail(struct page *w, int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* drop what was written so far */
	fclose(w->f);
	free(w->body);
	w->body = NULL;
	w->len = 0;
	if (!(w->f = open_memstream(&w->body, &w->len)))
		return 500;
	w->status = status;
	if (w->q.json) {
		json_t *o = json_pack("{s:i, s:s}", "status", status, "error", msg);
		char *s = o ? json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;

		fprintf(w->f, "%s\n", s ? s : "{}");
		free(s);
		json_decref(o);
		w->ctype = JSON;
		return status;
	}
	w->ctype = HTML;
	dpa_pg_page_begin(w, status == 404 ? "Not found" : status == 400 ? "Bad request" : "Error", NULL, NULL);
	fputs("<p class=\"err\">", w->f);
	dpa_html_escape(w->f, msg);
	fputs("</p>\n<p>", w->f);
	dpa_pg_link(w, "/", NULL, NULL, "Back to the summary");
	fputs("</p>\n", w->f);
	dpa_pg_page_end(w);
	return status;
}

/* The report options the preferences ask for (the defaults of `deepprof
 * report`: 20 rows in HTML, all in JSON). */
static struct dpa_report_opts opts(const struct page *w, enum dpa_report_kind k)
{
	struct dpa_report_opts o = { .kind = k, .sort = w->q.sort, .total = w->q.total,
				     .per_call = w->q.per_call };

	o.limit = w->q.limit >= 0 ? (uint32_t)w->q.limit : w->q.json ? 0 : 20;
	if (w->q.by >= 0)
		o.group = w->q.by;
	return o;
}

static struct dpa_html_site site_of(struct page *w)
{
	struct dpa_html_site site = { .p = &w->s->p, .href = href, .href_ctx = w, .sortable = true };

	return site;
}

/* Build report o, then either print its JSON (the whole answer) or its
 * tables at heading level h. Returns 0, or the status of a failure page. */
static int report(struct page *w, const struct dpa_report_opts *o, int h,
		  void (*adjust)(struct page *, struct dpa_report *))
{
	struct dpa_report r;
	struct dpa_display dp;
	struct dpa_error e = { { 0 } };
	struct dpa_html_site site = site_of(w);

	if (dpa_report_init(&r, &w->s->d, o, &e) < 0) {
		bool missing = strstr(e.msg, "no procedure") || strstr(e.msg, "unknown") ||
			       strstr(e.msg, "no clique") || strstr(e.msg, "no call site") ||
			       strstr(e.msg, "not found") || strstr(e.msg, "ambiguous");

		return dpa_pg_fail(w, strstr(e.msg, "out of memory") ? 500 : missing ? 404 : 400, "%s", e.msg);
	}
	if (adjust)
		adjust(w, &r);
	if (dpa_report_display(&dp, &r, &e) < 0) {
		dpa_report_release(&r);
		return dpa_pg_fail(w, 500, "%s", e.msg);
	}
	if (w->q.json) {
		w->ctype = JSON;
		if (dpa_render_json(&dp, w->f) < 0) {
			dpa_display_release(&dp);
			dpa_report_release(&r);
			return dpa_pg_fail(w, 500, "out of memory writing JSON");
		}
	} else {
		dpa_render_html_tables(&dp, &site, w->f, h);
	}
	dpa_display_release(&dp);
	dpa_report_release(&r);
	return 0;
}

/* ================================================================
 * The pages
 * ================================================================ */

static int page_index(struct page *w)
{
	struct dpa_report_opts o = opts(w, DPA_REPORT_SUMMARY);
	int rc;

	if (w->q.json)
		return report(w, &o, 2, NULL);
	dpa_pg_page_begin(w, "Profile summary", "/", NULL);
	if ((rc = report(w, &o, 2, NULL)))
		return rc;
	fputs("<h2>Flame graph</h2>\n", w->f);
	if (dpa_flame_svg(w->f, &w->s->d, w->q.sort, href, w, 1200, 0.2) < 0)
		return dpa_pg_fail(w, 500, "out of memory drawing the flame graph");
	o = opts(w, DPA_REPORT_TOP);
	if (!w->q.total_set)
		o.total = true;
	fprintf(w->f, "<h2>Top procedures by %s %s</h2>\n", o.total ? "total" : "self",
		dpa_pg_measure_key(o.sort));
	if ((rc = report(w, &o, 3, NULL)))
		return rc;
	dpa_pg_page_end(w);
	return 0;
}

static int page_report(struct page *w, const struct dpa_report_opts *o, const char *title,
		       const char *self_path)
{
	int rc;

	if (w->q.json)
		return report(w, o, 2, NULL);
	dpa_pg_page_begin(w, title, self_path, NULL);
	if ((rc = report(w, o, 2, NULL)))
		return rc;
	dpa_pg_page_end(w);
	return 0;
}

/* The costs per call of a procedure's contexts, when they differ much:
 * "where a procedure's cost per call differs between callers". Every
 * context's total per call, without building a second report. */
static void spread(struct page *w, const uint32_t *procs, uint32_t np)
{
	struct side *s = w->s;
	const struct dpa_profile *p = &s->p;
	enum dpa_measure m = w->q.sort == DPA_CALLS ? DPA_CSCS : w->q.sort;
	uint32_t lo_pd = 0, hi_pd = 0, n = 0, pair[2], depth[2];
	double lo = -1, hi = -1;
	bool *mark;

	mark = calloc((size_t)p->n_ps + 1, sizeof(bool));
	if (!mark)
		return;
	for (uint32_t i = 0; i < np; i++)
		mark[procs[i]] = true;
	for (uint32_t k = 1; k <= p->n_pd; k++) {
		uint64_t calls;
		double v;

		if (!mark[p->pd[k].ps] || !(calls = dpa_deep_pd_own(&s->d, k, DPA_CALLS)))
			continue;
		n++;
		v = (double)dpa_deep_pd_total(&s->d, k, m) / (double)calls;
		if (lo < 0 || v < lo) {
			lo = v;
			lo_pd = k;
		}
		if (hi < 0 || v > hi) {
			hi = v;
			hi_pd = k;
		}
	}
	free(mark);
	fputs("<h2 id=\"spread\">Cost per call by context</h2>\n", w->f);
	if (n < 2) {
		fputs("<p class=\"meta\">one context: nothing to compare.</p>\n", w->f);
		return;
	}
	if (hi > 2 * lo && hi - lo >= 1) {
		char *a, *b, *qa = dpa_pg_ctx_query(s, hi_pd), *qb = dpa_pg_ctx_query(s, lo_pd);

		/* the call sites that tell these two apart */
		pair[0] = hi_pd;
		pair[1] = lo_pd;
		if (dpa_ctx_distinguish(&s->d, pair, 2, depth) < 0)
			depth[0] = depth[1] = 3;
		a = dpa_ctx_suffix(&s->d, hi_pd, depth[0]);
		b = dpa_ctx_suffix(&s->d, lo_pd, depth[1]);
		fprintf(w->f, "<p class=\"note\" id=\"spread-note\" data-spread=\"%.6g\">The cost per call"
			" differs between its contexts: %.6g %s per call (total) in ", lo > 0 ? hi / lo : hi,
			hi, dpa_pg_measure_key(m));
		dpa_pg_link(w, "/clique", qa, NULL, a ? a : "?");
		fprintf(w->f, ", %.6g in ", lo);
		dpa_pg_link(w, "/clique", qb, NULL, b ? b : "?");
		if (lo > 0)
			fprintf(w->f, " (%.1fx): its callers give it different work.</p>\n", hi / lo);
		else
			fputs(": its callers give it different work.</p>\n", w->f);
		free(a);
		free(b);
		free(qa);
		free(qb);
	} else {
		fprintf(w->f, "<p class=\"meta\" id=\"spread-note\" data-spread=\"%.6g\">The cost per call"
			" is about the same in all %u contexts (%.6g to %.6g %s per call, total).</p>\n",
			lo > 0 ? hi / lo : 1.0, n, lo, hi, dpa_pg_measure_key(m));
	}
}

/* ---- source annotated with costs ---- */

struct lcost {
	uint32_t line;
	uint64_t calls, total;
};

static int by_line(const void *a, const void *b)
{
	const struct lcost *x = a, *y = b;

	return x->line < y->line ? -1 : x->line > y->line;
}

/* The source of procedure ps (when its file can be read), each line with
 * the calls and total cost of the call sites on it: of context pd, or of
 * all ps's contexts when pd is 0. */
static void source_view(struct page *w, uint32_t ps, uint32_t pd)
{
	struct side *s = w->s;
	const struct dpa_profile *p = &s->p;
	const char *file = dpa_src_str(p, DPA_PS_FILE, ps);
	uint32_t first = dpa_src_get(p, DPA_PS_LINE, ps), n = 0, cap = 0, hot = 0;
	struct lcost *v = NULL;
	uint64_t hot_v = 0;
	FILE *src;
	char line[4096];

	fputs("<h2 id=\"source\">Source", w->f);
	if (pd) {
		char *suf = dpa_ctx_suffix(&s->d, pd, 3);

		fputs(", with the costs of the context ", w->f);
		dpa_html_escape(w->f, suf ? suf : "?");
		free(suf);
	} else {
		fputs(", with the costs of all its contexts", w->f);
	}
	fputs("</h2>\n", w->f);
	if (!file || !first || !(src = fopen(file, "r"))) {
		fputs("<p class=\"meta\">No source: ", w->f);
		dpa_html_escape(w->f, file ? file : "the profile names no file for it");
		fputs(file ? " cannot be read here.</p>\n" : ".</p>\n", w->f);
		return;
	}
	for (uint32_t k = pd ? pd : 1; k <= (pd ? pd : p->n_pd); k++) {
		const struct dpa_pd *q = &p->pd[k];

		if (p->pd[k].ps != ps)
			continue;
		for (uint32_t j = 0; j < dpa_pd_out_n(q); j++) {
			uint32_t x = dpa_out_csd(p, q->out_first + j), ln = dpa_src_get(p, DPA_CSS_LINE, p->csd[x].css);
			uint32_t i;

			if (!ln)
				continue;
			for (i = 0; i < n && v[i].line != ln; i++)
				;
			if (i == n) {
				if (n == cap) {
					struct lcost *y = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));

					if (!y) {
						free(v);
						fclose(src);
						return;
					}
					v = y;
				}
				v[n++] = (struct lcost){ .line = ln };
			}
			v[i].calls += dpa_own(p, x, DPA_CALLS);
			/* a call inside a clique carries no inherited cost */
			v[i].total += dpa_deep_csd_total(&s->d, x, w->q.sort);
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), by_line);
	for (uint32_t i = 0; i < n; i++)
		if (v[i].total > hot_v) {
			hot_v = v[i].total;
			hot = v[i].line;
		}
	fprintf(w->f, "<p class=\"meta\">%s, from line %u; each call site's calls and total %s.</p>\n"
		"<pre class=\"src\">", dpa_basename(file), first, dpa_pg_measure_key(w->q.sort));
	{
		uint32_t no = 0, k = 0, depth = 0;
		bool opened = false;

		while (fgets(line, sizeof(line), src)) {
			size_t len = strlen(line);

			no++;
			if (len && line[len - 1] == '\n')
				line[--len] = 0;
			if (no + 1 < first)
				continue;       /* from the line before: the signature */
			while (k < n && v[k].line < no)
				k++;
			fprintf(w->f, "<span id=\"L%u\"%s>%5u ", no, no == hot ? " class=\"hot\"" : "", no);
			if (k < n && v[k].line == no)
				fprintf(w->f, "%10" PRIu64 " %12" PRIu64 "  ", v[k].calls, v[k].total);
			else
				fprintf(w->f, "%10s %12s  ", "", "");
			dpa_html_escape(w->f, line);
			fputs("</span>\n", w->f);
			for (const char *c = line; no >= first && *c; c++) {
				if (*c == '{') {
					depth++;
					opened = true;
				} else if (*c == '}' && depth) {
					depth--;
				}
			}
			if ((opened && !depth) || no >= first + 300)
				break;
		}
	}
	fputs("</pre>\n", w->f);
	fclose(src);
	free(v);
}

static int page_proc(struct page *w, const char *spec)
{
	struct dpa_report_opts o = opts(w, DPA_REPORT_PROC);
	char *title = NULL, *self = NULL, *cp = NULL;
	uint32_t *procs = NULL, np = 0, ps, pd = 0;
	struct dpa_error e = { { 0 } };
	int rc;

	if (find_procs(w->s, spec, &procs, &np, &e) < 0)
		return dpa_pg_fail(w, strstr(e.msg, "out of memory") ? 500 : 404, "%s", e.msg);
	o.name = spec;
	o.procs = procs;
	o.n_procs = np;
	if (w->q.json) {
		rc = report(w, &o, 2, NULL);
		free(procs);
		return rc;
	}
	/* the procedure (its first, when the name picks several) and the
	 * context ctx= picks for the source view */
	ps = procs[0];
	if (w->q.ctx) {
		pd = dpa_ctx_resolve(&w->s->d, w->q.ctx, &e);
		if (!pd || w->s->p.pd[pd].ps != ps) {
			free(procs);
			return pd ? dpa_pg_fail(w, 400, "context %.200s is not one of %.100s's", w->q.ctx, spec)
				  : dpa_pg_fail(w, 404, "%s", e.msg);
		}
	}
	if (asprintf(&title, "Procedure %s", spec) < 0 || asprintf(&self, "/proc/%s", spec) < 0 ||
	    asprintf(&cp, "/callers/%s", spec) < 0) {
		free(title);
		free(self);
		free(procs);
		return dpa_pg_fail(w, 500, "out of memory");
	}
	dpa_pg_page_begin(w, title, self, NULL);
	fputs("<p>", w->f);
	dpa_pg_link(w, cp, NULL, NULL, "its callers by call site");
	fputs(" &middot; by ", w->f);
	dpa_pg_link(w, cp, "by=proc", NULL, "procedure");
	fputs(" &middot; ", w->f);
	dpa_pg_link(w, cp, "by=file", NULL, "file");
	fputs(" &middot; ", w->f);
	dpa_pg_link(w, cp, "by=clique", NULL, "clique");
	fputs("</p>\n", w->f);
	rc = report(w, &o, 2, NULL);
	if (!rc) {
		spread(w, procs, np);
		source_view(w, ps, pd);
		dpa_pg_page_end(w);
	}
	free(title);
	free(self);
	free(cp);
	free(procs);
	return rc;
}

/* callers: a page of rows (page N of limit each) */
static void drop_pages(struct page *w, struct dpa_report *r)
{
	struct dpa_report_section *s = &r->sec[0];
	uint32_t per = w->q.limit >= 0 ? (uint32_t)w->q.limit : w->q.json ? 0 : 20;
	uint32_t skip = per ? (w->q.page - 1) * per : 0;

	if (!per || skip == 0)
		return;
	if (skip >= s->n) {
		s->n = 0;
		return;
	}
	memmove(s->row, s->row + skip, (s->n - skip) * sizeof(s->row[0]));
	s->n -= skip;
}

static int page_callers(struct page *w, const char *spec)
{
	struct dpa_report_opts o = opts(w, DPA_REPORT_CALLERS);
	uint32_t per = o.limit;
	char *title = NULL, *self = NULL, extra[64];
	int rc;

	uint32_t *procs = NULL, np = 0;
	struct dpa_error e = { { 0 } };

	if (find_procs(w->s, spec, &procs, &np, &e) < 0)
		return dpa_pg_fail(w, strstr(e.msg, "out of memory") ? 500 : 404, "%s", e.msg);
	o.name = spec;
	o.procs = procs;
	o.n_procs = np;
	if (per)
		o.limit = per * w->q.page;
	if (w->q.json) {
		rc = report(w, &o, 2, drop_pages);
		free(procs);
		return rc;
	}
	if (asprintf(&title, "Callers of %s", spec) < 0 || asprintf(&self, "/callers/%s", spec) < 0) {
		free(title);
		free(procs);
		return dpa_pg_fail(w, 500, "out of memory");
	}
	snprintf(extra, sizeof(extra), "by=%s", dpa_report_group_name(o.group));
	dpa_pg_page_begin(w, title, self, extra);
	fputs("<p>group by: ", w->f);
	for (int g = 0; g < DPA_GROUP_N; g++) {
		char e[32];

		snprintf(e, sizeof(e), "by=%s", dpa_report_group_name(g));
		if (g == (int)o.group)
			fprintf(w->f, "<b>%s</b> ", dpa_report_group_name(g));
		else
			dpa_pg_link(w, self, e, NULL, dpa_report_group_name(g));
		fputc(' ', w->f);
	}
	fputs(" &middot; ", w->f);
	{
		char *pp;

		if (asprintf(&pp, "/proc/%s", spec) >= 0) {
			dpa_pg_link(w, pp, NULL, NULL, "the procedure");
			free(pp);
		}
	}
	fputs("</p>\n", w->f);
	rc = report(w, &o, 2, drop_pages);
	if (!rc && per) {
		struct over ov = { .sort = -1, .total = -1, .per_call = -1, .json = -1, .keep_limit = true };

		fprintf(w->f, "<p class=\"pages\">page %u: ", w->q.page);
		if (w->q.page > 1) {
			snprintf(extra, sizeof(extra), "by=%s&page=%u", dpa_report_group_name(o.group),
				 w->q.page - 1);
			dpa_pg_link(w, self, extra, &ov, "previous");
			fputc(' ', w->f);
		}
		snprintf(extra, sizeof(extra), "by=%s&page=%u", dpa_report_group_name(o.group),
			 w->q.page + 1);
		dpa_pg_link(w, self, extra, &ov, "next");
		fputs("</p>\n", w->f);
	}
	if (!rc)
		dpa_pg_page_end(w);
	free(title);
	free(self);
	free(procs);
	return rc;
}

/* clique?ctx=PATH: the clique of the context PATH names, after that
 * context's whole path. */
static int page_clique(struct page *w)
{
	struct side *s = w->s;
	struct dpa_report_opts o = opts(w, DPA_REPORT_CLIQUE);
	struct dpa_error e = { { 0 } };
	uint32_t pd, *chain = NULL, n = 0, cap = 0;
	char title[64];
	int rc;

	if (!w->q.ctx)
		return dpa_pg_fail(w, 400, "/clique needs ctx=PATH (a calling context: NAME@CALLSITE/...)");
	pd = dpa_ctx_resolve(&s->d, w->q.ctx, &e);
	if (!pd)
		return dpa_pg_fail(w, 404, "%s", e.msg);
	o.id = dpa_clique_of(&s->d.cl, pd);
	if (w->q.json)
		return report(w, &o, 2, NULL);
	snprintf(title, sizeof(title), "Clique %u", o.id);
	{
		char *extra = dpa_pg_ctx_query(s, pd);

		dpa_pg_page_begin(w, title, "/clique", extra);
		free(extra);
	}
	/* the context's whole path, each step a link to its own context */
	for (uint32_t x = pd, c; (c = dpa_ctx_parent(&s->d, x)) != 0 && n < 100000; x = s->p.csd[c].caller_pd) {
		if (n == cap) {
			uint32_t *v = realloc(chain, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!v) {
				free(chain);
				return dpa_pg_fail(w, 500, "out of memory");
			}
			chain = v;
		}
		chain[n++] = c;
	}
	fprintf(w->f, "<h2>Context: %s, its path from the root (%u calls)</h2>\n<ol class=\"path\">\n",
		dpa_ps_name(&s->p, s->p.pd[pd].ps), n);
	for (uint32_t i = n; i-- > 0;) {
		const struct dpa_csd *c;
		char *extra, *pp = NULL;

		/* a path 10^5 calls deep: its first 10 and last 100 calls */
		if (n > 110 && i == n - 11) {
			fprintf(w->f, "<li class=\"meta\">&hellip; %u calls &hellip;</li>\n", n - 110);
			i = 100;
		}
		c = &s->p.csd[chain[i]];
		extra = dpa_pg_ctx_query(s, c->callee_pd);
		uint32_t line = dpa_src_get(&s->p, DPA_CSS_LINE, c->css);
		char at[48];

		fputs("<li>", w->f);
		dpa_pg_link(w, "/clique", extra, NULL, dpa_ps_name(&s->p, s->p.pd[c->callee_pd].ps));
		if (line)
			snprintf(at, sizeof(at), " (line %u, ", line);
		else
			snprintf(at, sizeof(at), " (");
		fputs(" <span class=\"meta\">called from ", w->f);
		dpa_html_escape(w->f, dpa_ps_name(&s->p, s->p.pd[c->caller_pd].ps));
		dpa_html_escape(w->f, at);
		{
			char loc[48], *sp;

			dpa_ctx_css_loc(&s->p, c->css, loc, sizeof(loc));
			if (asprintf(&sp, "/site/%s@%s", dpa_ps_name(&s->p, s->p.pd[c->caller_pd].ps), loc) >= 0) {
				dpa_pg_link(w, sp, NULL, NULL, "call site");
				free(sp);
			}
		}
		fputs(") &middot; ", w->f);
		if (asprintf(&pp, "/proc/%s", dpa_pg_ps_spec(s, s->p.pd[c->callee_pd].ps)) >= 0) {
			dpa_pg_link(w, pp, NULL, NULL, "all its contexts");
			fputs(" &middot; ", w->f);
			dpa_pg_link(w, pp, extra, NULL, "its source in this context");
			free(pp);
		}
		fputs("</span></li>\n", w->f);
		free(extra);
	}
	fputs("</ol>\n", w->f);
	free(chain);
	rc = report(w, &o, 2, NULL);
	if (!rc) {
		recursion_by_depth(w, o.id);
		dpa_pg_page_end(w);
	}
	return rc;
}

/* The css a /site/ key names: a number (its id) or CALLER@LOC (the calling
 * procedure's name and the call's line:col, ctxpath.h); 0 when none. */
static uint32_t site_of_key(const struct side *s, const char *key)
{
	const struct dpa_profile *p = &s->p;
	const char *at = strrchr(key, '@');
	char *end;

	if (key[0] >= '0' && key[0] <= '9' && !at) {
		unsigned long v;

		errno = 0;
		v = strtoul(key, &end, 10);
		return !*end && !errno && v >= 1 && v <= p->n_css ? (uint32_t)v : 0;
	}
	if (!at || at == key || !at[1])
		return 0;
	for (uint32_t c = 1; c <= p->n_css; c++) {
		const char *n = dpa_ps_name(p, p->css[c].caller_ps);

		if (strlen(n) == (size_t)(at - key) && !memcmp(n, key, (size_t)(at - key)) &&
		    dpa_ctx_css_matches(p, c, at + 1, strlen(at + 1)))
			return c;
	}
	return 0;
}

static int page_site(struct page *w, const char *key)
{
	struct dpa_report_opts o = opts(w, DPA_REPORT_SITE);
	char title[64], *self;
	int rc;

	o.id = site_of_key(w->s, key);
	if (!o.id)
		return dpa_pg_fail(w, 404, "no call site %.200s (a site is CALLER@LINE:COL, or its id 1..%u)", key,
			    w->s->p.n_css);
	snprintf(title, sizeof(title), "Call site %u", o.id);
	if (asprintf(&self, "/site/%s", key) < 0)
		return dpa_pg_fail(w, 500, "out of memory");
	rc = page_report(w, &o, title, self);
	free(self);
	return rc;
}

/* A JSON document into the page: consumed. */
int dpa_pg_put_json(struct page *w, json_t *doc)
{
	char *t = doc ? json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;

	json_decref(doc);
	if (!t)
		return dpa_pg_fail(w, 500, "out of memory writing JSON");
	fprintf(w->f, "%s\n", t);
	free(t);
	w->ctype = JSON;
	return 0;
}

static int page_flame(struct page *w)
{
	if (w->q.json)
		return dpa_pg_put_json(w, dpa_flame_json(&w->s->d, w->q.sort, 0.05));
	dpa_pg_page_begin(w, "Flame graph (cliques as single frames)", "/flame", NULL);
	fputs("<p class=\"meta\">Width: total cost of each calling context, recursion folded into its "
	      "clique; click a frame for its clique's page.</p>\n", w->f);
	if (dpa_flame_svg(w->f, &w->s->d, w->q.sort, href, w, 1200, 0.05) < 0)
		return dpa_pg_fail(w, 500, "out of memory drawing the flame graph");
	dpa_pg_page_end(w);
	return 0;
}

/* ---- root/P: dominant call sites from the root ---- */

/* The child clique of c with the largest total of m, 0 when none; its total
 * in *v. */
static uint32_t dominant_child(const struct dpa_deep *d, uint32_t c, enum dpa_measure m, uint64_t *v)
{
	const struct dpa_profile *p = d->p;
	uint32_t nm, best = 0;
	const uint32_t *mem = dpa_clique_members(&d->cl, c, &nm);

	*v = 0;
	for (uint32_t k = 0; k < nm; k++) {
		const struct dpa_pd *q = &p->pd[mem[k]];

		for (uint32_t j = 0; j < dpa_pd_out_n(q); j++) {
			uint32_t x = dpa_out_csd(p, q->out_first + j);
			uint64_t t;

			if (dpa_csd_internal(&d->cl, p, x))
				continue;
			t = dpa_deep_csd_total(d, x, m);
			if (!best || t > *v) {
				best = dpa_clique_of(&d->cl, p->csd[x].callee_pd);
				*v = t;
			}
		}
	}
	return best;
}

static int page_root(struct page *w)
{
	struct side *s = w->s;
	const struct dpa_deep *d = &s->d;
	double pct = w->q.pct >= 0 ? w->q.pct : 50.0;
	uint64_t all = 0, v;
	uint32_t c, steps = 0, chain[256];
	struct dpa_report_opts o = opts(w, DPA_REPORT_CLIQUE);
	char title[128], extra[48];
	int rc;

	for (uint32_t t = 1; t <= s->p.n_thread; t++)
		all += dpa_deep_thread_total(d, t, w->q.sort);
	if (!s->p.n_thread)
		return dpa_pg_fail(w, 404, "the profile has no thread");
	c = dpa_clique_of(&d->cl, s->p.thread[1].root_pd);
	chain[steps++] = c;
	/* down while the busiest child still holds more than pct% */
	for (uint32_t k; (k = dominant_child(d, c, w->q.sort, &v)) != 0 && steps < 256;) {
		if (!all || 100.0 * (double)v / (double)all <= pct)
			break;
		c = k;
		chain[steps++] = c;
	}
	o.id = c;
	if (w->q.json)
		return report(w, &o, 2, NULL);
	snprintf(title, sizeof(title), "Root: dominant calls down to %g%% of the %s", pct,
		 dpa_pg_measure_key(w->q.sort));
	snprintf(extra, sizeof(extra), "pct=%g", pct);
	dpa_pg_page_begin(w, title, "/root", extra);
	fputs("<p>Each step is the busiest call out of the clique above; the walk stops where no call"
	      " holds more than that share (", w->f);
	for (int i = 0; i < 4; i++) {
		static const double ps[] = { 90, 50, 20, 5 };
		char e[32];

		snprintf(e, sizeof(e), "pct=%g", ps[i]);
		dpa_pg_link(w, "/root", e, NULL, e + 4);
		fputs("% ", w->f);
	}
	fputs(").</p>\n<ol class=\"path\" id=\"root-chain\">\n", w->f);
	for (uint32_t i = 0; i < steps; i++) {
		uint64_t t = dpa_deep_clique_total(d, chain[i], w->q.sort);
		char *ex = dpa_pg_ctx_query(s, clique_pd(s, chain[i]));

		fputs("<li>", w->f);
		dpa_pg_link(w, "/clique", ex, NULL, i ? dpa_ps_name(&s->p, s->p.pd[clique_pd(s, chain[i])].ps)
					   : "<root>");
		fprintf(w->f, " <span class=\"meta\">%.1f%%</span></li>\n",
			all ? 100.0 * (double)t / (double)all : 0.0);
		free(ex);
	}
	fputs("</ol>\n", w->f);
	rc = report(w, &o, 2, NULL);
	if (!rc)
		dpa_pg_page_end(w);
	return rc;
}

/* ---- a recursive clique's cost by depth ---- */

static void recursion_by_depth(struct page *w, uint32_t c)
{
	struct dpa_recursion rec;
	uint32_t levels;

	dpa_recursion_of(&w->s->d, c, w->q.sort, &rec);
	if (rec.type == DPA_REC_NONE)
		return;
	fprintf(w->f, "<h2 id=\"by-depth\">Recursion by depth (%s, estimated)</h2>\n<p class=\"meta\">"
		"%" PRIu64 " entries, %" PRIu64 " recursive calls: %.2f calls per entry, about %.1f levels"
		" deep; each level costs %.6g %s of its own, so the cost left below level k is (depth &minus;"
		" k) &times; that. (A profile keeps no depths: these follow from the counts.)</p>\n",
		dpa_rec_type_name(rec.type), rec.entry_calls, rec.internal_calls, rec.calls_per_entry,
		rec.depth, rec.per_level, dpa_pg_measure_key(w->q.sort));
	levels = rec.depth > 20 ? 20 : (uint32_t)ceil(rec.depth);
	fputs("<table id=\"depth\"><thead><tr><th class=\"n\">level</th><th class=\"n\">own cost per"
	      " entry</th><th class=\"n\">cost from this level down, per entry</th></tr></thead><tbody>\n",
	      w->f);
	for (uint32_t k = 1; k <= levels; k++) {
		double below = (rec.depth - (double)(k - 1)) * rec.per_level;

		fprintf(w->f, "<tr><td class=\"n\">%u</td><td class=\"n\" data-v=\"%.6g\">%.6g</td>"
			"<td class=\"n\" data-v=\"%.6g\">%.6g</td></tr>\n", k, rec.per_level, rec.per_level,
			below > 0 ? below : 0, below > 0 ? below : 0);
	}
	fputs("</tbody></table>\n", w->f);
}

/* ================================================================
 * Answering
 * ================================================================ */

static int route(struct page *w, const char *path)
{
	if (!strcmp(path, "/") || !strcmp(path, "/index.html") || !strcmp(path, "/summary"))
		return page_index(w);
	if (!strcmp(path, "/top")) {
		struct dpa_report_opts o = opts(w, DPA_REPORT_TOP);

		return page_report(w, &o, "Top procedures", "/top");
	}
	if (!strcmp(path, "/recursion")) {
		struct dpa_report_opts o = opts(w, DPA_REPORT_RECURSION);

		return page_report(w, &o, "Recursion", "/recursion");
	}
	if (!strncmp(path, "/proc/", 6) && path[6])
		return page_proc(w, path + 6);
	if (!strncmp(path, "/callers/", 9) && path[9])
		return page_callers(w, path + 9);
	if (!strcmp(path, "/clique"))
		return page_clique(w);
	if (!strncmp(path, "/site/", 6))
		return page_site(w, path + 6);
	if (!strcmp(path, "/flame"))
		return page_flame(w);
	if (!strcmp(path, "/root"))
		return page_root(w);
	if (!strcmp(path, "/modules"))
		return dpa_pg_page_modules(w);
	if (!strncmp(path, "/module/", 8) && path[8])
		return dpa_pg_page_module(w, path + 8);
	if (!strcmp(path, "/diff"))
		return dpa_pg_page_diff(w);
	return dpa_pg_fail(w, 404, "no page %.200s (pages: /, /top, /proc/NAME, /callers/NAME, /clique?ctx=PATH,"
		    " /site/ID, /recursion, /flame, /root, /modules, /diff)", path);
}

int dp_pages_answer(struct dp_pages *pg, const char *path, const char *query, char **body,
		    size_t *len, const char **ctype)
{
	struct page w = { .pg = pg, .status = 200, .ctype = HTML };
	char why[512];
	int rc;

	*body = NULL;
	*len = 0;
	*ctype = HTML;
	w.f = open_memstream(&w.body, &w.len);
	if (!w.f)
		return 500;
	pthread_mutex_lock(&pg->mu);
	w.s = pg->s;
	if (!path || path[0] != '/') {
		rc = dpa_pg_fail(&w, 400, "bad path '%.200s': want one from /", path ? path : "");
	} else if (prefs_parse(pg, query, &w.q, why, sizeof(why)) < 0) {
		bool json = query && strstr(query, "format=json");

		w.q.json = json;
		rc = dpa_pg_fail(&w, 400, "bad query: %s", why);
	} else if (w.q.n_exclude && !(w.s = dpa_pg_excluded_side(&w, why, sizeof(why), &rc))) {
		w.s = pg->s;
		rc = dpa_pg_fail(&w, rc, "%s", why);
	} else {
		rc = route(&w, path);
	}
	pthread_mutex_unlock(&pg->mu);
	prefs_free(&w.q);
	if (!w.f) {             /* dpa_pg_fail() could not open a new stream */
		free(w.body);
		return 500;
	}
	if (fclose(w.f) != 0 || !w.body) {
		free(w.body);
		return 500;
	}
	*body = w.body;
	*len = w.len;
	*ctype = w.ctype;
	return rc ? rc : w.status;
}

/* The pages to visit, as "path\0query" strings. */
struct list {
	char **v;
	uint32_t n, cap;
	bool failed;
};

static void add(struct list *l, const char *path, const char *query)
{
	char *s;
	size_t a = strlen(path), b = strlen(query);

	if (l->failed)
		return;
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? 2 * l->cap : 256;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->failed = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	if (!(s = malloc(a + b + 2))) {
		l->failed = true;
		return;
	}
	memcpy(s, path, a + 1);
	memcpy(s + a + 1, query, b + 1);
	l->v[l->n++] = s;
}

/* Every page of s (under the lock: specs are cached). */
static void list_pages(struct dp_pages *pg, struct list *l)
{
	struct side *s = pg->s;
	static const char *const sorts[] = { "calls", "cscs", "ticks", "allocs", "bytes" };
	struct page w = { .pg = pg, .s = s };
	char q[128];
	struct modrow *mods;
	uint32_t nmods;

	add(l, "/", "");
	for (int i = 0; i < 5; i++)
		for (int t = 0; t < 2; t++)
			for (int pc = 0; pc < 2; pc++) {
				snprintf(q, sizeof(q), "sort=%s&mode=%s%s", sorts[i], t ? "total" : "self",
					 pc ? "&percall=1" : "");
				add(l, "/top", q);
			}
	add(l, "/top", "limit=0");
	add(l, "/recursion", "");
	add(l, "/flame", "");
	add(l, "/flame", "sort=calls");
	add(l, "/root", "");
	add(l, "/root", "pct=5");
	add(l, "/modules", "");
	if (s->has_diff) {
		add(l, "/diff", "");
		add(l, "/diff", "sort=calls&limit=5");
	}
	if (dpa_pg_modules_of(s, DPA_CSCS, &mods, &nmods) == 0) {
		for (uint32_t i = 0; i < nmods; i++) {
			char *pp;

			if (asprintf(&pp, "/module/%s", mods[i].name) >= 0) {
				add(l, pp, "");
				free(pp);
			}
			if (i < 4 && asprintf(&pp, "exclude=%s", mods[i].name) >= 0) {
				add(l, "/top", pp);
				add(l, "/", pp);
				free(pp);
			}
		}
		free(mods);
	} else {
		l->failed = true;
	}
	for (uint32_t ps = 2; ps <= s->p.n_ps; ps++) {
		const char *spec;
		char *pp;

		if (!dpa_deep_ps_npd(&s->d, ps) || !(spec = dpa_pg_ps_spec(s, ps)))
			continue;
		if (asprintf(&pp, "/proc/%s", spec) >= 0) {
			add(l, pp, "");
			free(pp);
		}
		if (asprintf(&pp, "/callers/%s", spec) >= 0) {
			for (int g = 0; g < DPA_GROUP_N; g++) {
				snprintf(q, sizeof(q), "by=%s", dpa_report_group_name(g));
				add(l, pp, q);
			}
			add(l, pp, "limit=1&page=2");
			free(pp);
		}
	}
	for (uint32_t c = 1; c <= s->d.cl.n; c++) {
		uint32_t pd = clique_pd(s, c);
		char *cq = dpa_pg_ctx_query(s, pd), *pp;

		if (cq) {
			add(l, "/clique", cq);
			if (s->p.pd[pd].ps != 1 && asprintf(&pp, "/proc/%s", dpa_pg_ps_spec(s, s->p.pd[pd].ps)) >= 0) {
				add(l, pp, cq);         /* its source in this context */
				free(pp);
			}
		}
		free(cq);
	}
	for (uint32_t c = 1; c <= s->p.n_css; c++) {
		char loc[48], *sp;

		snprintf(q, sizeof(q), "/site/%u", c);
		add(l, q, "");
		dpa_ctx_css_loc(&s->p, c, loc, sizeof(loc));
		if (asprintf(&sp, "/site/%s@%s", dpa_ps_name(&s->p, s->p.css[c].caller_ps), loc) >= 0) {
			add(l, sp, "");
			free(sp);
		}
	}
	(void)w;
}

int dp_pages_each(struct dp_pages *pg, int (*fn)(void *ctx, const char *path, const char *query),
		  void *ctx)
{
	struct list l = { 0 };
	int rc = 0;

	pthread_mutex_lock(&pg->mu);
	list_pages(pg, &l);
	pthread_mutex_unlock(&pg->mu);
	for (uint32_t i = 0; i < l.n && !rc && !l.failed; i++)
		rc = fn(ctx, l.v[i], l.v[i] + strlen(l.v[i]) + 1);
	if (!rc && l.failed)
		rc = -1;
	for (uint32_t i = 0; i < l.n; i++)
		free(l.v[i]);
	free(l.v);
	return rc;
}
