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
#include "pages.h"
#include "report.h"

#define HTML "text/html; charset=utf-8"
#define JSON "application/json"

/* ================================================================
 * The loaded profiles
 * ================================================================ */

/* One profile read and prepared, replaced whole on reload. */
struct side {
	char *path;
	struct stat st;         /* the file when it was read */
	struct dpa_profile p;
	struct dpa_deep d;
	char **spec;            /* [n_ps + 1]: the name a URL gives ps by, made on first use */
	uint32_t *name_count;   /* [n_ps + 1]: how many procedures share ps's name */
	/* the diff of `path` (OLD) and the other file (NEW), when there is one */
	struct dpa_profile dold, dnew;
	struct dpa_diff diff;
	bool has_diff;
	char diff_err[512];     /* why there is no diff, when another file was given */
};

struct dp_pages {
	pthread_mutex_t mu;     /* held while answering and while swapping sides */
	pthread_mutex_t reload; /* one reload at a time */
	char *file, *other;
	struct side *s;
	char *base, *suffix;    /* links: base + path + "?" + query + suffix */
	char **suffix_keys;     /* keys of suffix, accepted and ignored */
	uint32_t n_suffix_keys;
};

static void side_free(struct side *s)
{
	if (!s)
		return;
	if (s->spec) {
		for (uint32_t i = 0; i <= s->p.n_ps; i++)
			free(s->spec[i]);
		free(s->spec);
	}
	free(s->name_count);
	if (s->has_diff) {
		dpa_diff_release(&s->diff);
		dpa_profile_release(&s->dold);
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

/* name_count[ps] for every ps, by one hash table of names: O(n_ps). Also
 * interns every unresolved name now, so that answering never writes to
 * the profile's string table. */
static int count_names(struct side *s)
{
	const struct dpa_profile *p = &s->p;
	size_t cap = 16;
	uint32_t *slot, *first, *count;

	while (cap < 2 * (size_t)p->n_ps + 2)
		cap *= 2;
	slot = calloc(cap, sizeof(*slot));
	first = calloc((size_t)p->n_ps + 1, sizeof(*first));
	count = calloc((size_t)p->n_ps + 1, sizeof(*count));
	s->name_count = calloc((size_t)p->n_ps + 1, sizeof(uint32_t));
	if (!slot || !first || !count || !s->name_count) {
		free(slot);
		free(first);
		free(count);
		return -1;
	}
	for (uint32_t k = 1; k <= p->n_ps; k++) {
		const char *n = dpa_ps_name(p, k);
		size_t i = hash_str(n) & (cap - 1);

		while (slot[i] && strcmp(dpa_ps_name(p, slot[i]), n))
			i = (i + 1) & (cap - 1);
		if (!slot[i])
			slot[i] = k;
		first[k] = slot[i];
		count[slot[i]]++;
	}
	for (uint32_t k = 1; k <= p->n_ps; k++)
		s->name_count[k] = count[first[k]];
	free(slot);
	free(first);
	free(count);
	for (uint32_t c = 1; c <= p->n_css; c++)
		if (!dpa_src_get(p, DPA_CSS_FILE, c) && !dpa_src_get(p, DPA_CSS_IN_FN, c))
			(void)dpa_addr_name(p, p->css[c].module, p->css[c].offset);
	return 0;
}

static int fill_stat(const char *path, struct stat *st, char *err, size_t errlen)
{
	if (stat(path, st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The diff of s (OLD) and other (NEW), read apart from s's own profile (as
 * `deepprof diff` reads them). A failure is kept in diff_err, not fatal. */
static void load_diff(struct side *s, const char *other)
{
	struct dpa_error e = { { 0 } };

	if (dpa_profile_read(&s->dold, s->path, &e) < 0) {
		snprintf(s->diff_err, sizeof(s->diff_err), "%s", e.msg);
		return;
	}
	if (dpa_profile_read(&s->dnew, other, &e) < 0) {
		snprintf(s->diff_err, sizeof(s->diff_err), "%s", e.msg);
		dpa_profile_release(&s->dold);
		return;
	}
	dpa_profile_symbolize(&s->dold);
	dpa_profile_symbolize(&s->dnew);
	if (dpa_diff_init(&s->diff, &s->dold, &s->dnew, false, &e) < 0) {
		snprintf(s->diff_err, sizeof(s->diff_err), "%s", e.msg);
		dpa_profile_release(&s->dold);
		dpa_profile_release(&s->dnew);
		return;
	}
	s->has_diff = true;
}

static struct side *side_load(const char *file, const char *other, char *err, size_t errlen)
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
		side_free(s);
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
	if (!(pg->s = side_load(file, other, err, errlen))) {
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
	if (!(s = side_load(pg->file, pg->other, err, errlen))) {
		pthread_mutex_unlock(&pg->reload);
		return -1;
	}
	pthread_mutex_lock(&pg->mu);
	old = pg->s;
	pg->s = s;
	pthread_mutex_unlock(&pg->mu);
	side_free(old);
	pthread_mutex_unlock(&pg->reload);
	return 1;
}

void dp_pages_close(struct dp_pages *pg)
{
	if (!pg)
		return;
	side_free(pg->s);
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

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

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
			int hi = i + 2 < n ? hexval(s[i + 1]) : -1, lo = i + 2 < n ? hexval(s[i + 2]) : -1;

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

#define MAX_EXCLUDE 16

struct prefs {
	bool json;
	enum dpa_measure sort;
	bool total, total_set, per_call;
	long limit;             /* -1: the default (20 in HTML, all in JSON) */
	int by;                 /* -1: default */
	uint32_t page;          /* 1.. */
	double pct;             /* root/P; -1 default */
	char *ctx;              /* clique?ctx= (decoded) */
	char *name;             /* module/NAME etc. */
	char *exclude[MAX_EXCLUDE];
	uint32_t n_exclude;
	char *exclude_raw;
};

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
			for (char *t = strtok(v, ","); t; t = strtok(NULL, ",")) {
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

struct page {
	struct dp_pages *pg;
	struct side *s;
	struct prefs q;
	FILE *f;
	char *body;
	size_t len;
	int status;
	const char *ctype;
};

static const char *measure_key(enum dpa_measure m)
{
	static const char *const k[DPA_NMEASURES] = {
		"calls", "exits", "nonlocal", "cscs", "ticks", "allocs", "bytes" };

	return k[m];
}

/* The query carrying the preferences that differ from the defaults (and
 * the extra "k=v" pairs given, already encoded), then the base's suffix;
 * written with its leading '?' when not empty. over_*: change one pref. */
struct over {
	int sort;               /* -1 keep */
	int total;              /* -1 keep, 0 self, 1 total */
	int per_call;           /* -1 keep */
	int json;               /* -1 keep (never carried: only when 1) */
	bool keep_limit;
};

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
		fprintf(f, "sort=%s", measure_key(sort));
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
static void link(struct page *w, const char *path, const char *extra, const struct over *o,
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
static const char *ps_spec(struct side *s, uint32_t ps)
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
static char *ctx_query(struct side *s, uint32_t pd)
{
	char *path, *out = NULL;
	size_t n = 0;
	FILE *f;

	if (dpa_ctx_path(&s->d, pd, &path) < 0)
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
		const char *spec = id <= s->p.n_ps ? ps_spec(s, (uint32_t)id) : NULL;
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
		extra = ctx_query(s, clique_pd(s, (uint32_t)id));
		if (extra)
			u = url_str(w, "/clique", extra, NULL);
		break;
	case DPA_LINK_PD:
		if (!id || id > s->p.n_pd)
			return false;
		extra = ctx_query(s, (uint32_t)id);
		if (extra)
			u = url_str(w, "/clique", extra, NULL);
		break;
	case DPA_LINK_CSS:
		if (!id || id > s->p.n_css)
			return false;
		snprintf(path, sizeof(path), "/site/%" PRIu64, id);
		u = url_str(w, path, NULL, NULL);
		break;
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
static void page_begin(struct page *w, const char *title, const char *self_path,
		       const char *self_extra)
{
	FILE *f = w->f;
	static const enum dpa_measure ms[] = { DPA_CALLS, DPA_CSCS, DPA_TICKS, DPA_ALLOCS, DPA_BYTES };

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	dpa_html_escape(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<nav>", style);
	link(w, "/", NULL, NULL, "Summary");
	link(w, "/top", NULL, NULL, "Top procedures");
	link(w, "/flame", NULL, NULL, "Flame graph");
	link(w, "/root", NULL, NULL, "Root");
	link(w, "/recursion", NULL, NULL, "Recursion");
	link(w, "/modules", NULL, NULL, "Modules");
	if (w->s->has_diff)
		link(w, "/diff", NULL, NULL, "Diff");
	fputs("</nav>\n", f);
	if (self_path) {
		fputs("<div class=\"prefs\">sort by: ", f);
		for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
			struct over o = { .sort = ms[i], .total = -1, .per_call = -1, .json = -1, .keep_limit = true };

			if (ms[i] == w->q.sort) {
				fprintf(f, "<b>%s</b>", measure_key(ms[i]));
				continue;
			}
			link(w, self_path, self_extra, &o, measure_key(ms[i]));
		}
		fputs(" &nbsp; rank by: ", f);
		for (int t = 0; t < 2; t++) {
			struct over o = { .sort = -1, .total = t, .per_call = -1, .json = -1, .keep_limit = true };

			if (w->q.total == t)
				fprintf(f, "<b>%s</b>", t ? "total" : "self");
			else
				link(w, self_path, self_extra, &o, t ? "total" : "self");
		}
		fputs(" &nbsp; ", f);
		{
			struct over o = { .sort = -1, .total = -1, .per_call = !w->q.per_call, .json = -1,
					  .keep_limit = true };

			link(w, self_path, self_extra, &o, w->q.per_call ? "totals, not per call" : "per call");
		}
		fputs(" &nbsp; ", f);
		{
			struct over o = { .sort = -1, .total = -1, .per_call = -1, .json = 1, .keep_limit = true };

			link(w, self_path, self_extra, &o, "JSON");
		}
		fputs("</div>\n", f);
	}
	fputs("<h1>", f);
	dpa_html_escape(f, title);
	fputs("</h1>\n", f);
}

static void page_end(struct page *w)
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
static int fail(struct page *w, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct page *w, int status, const char *fmt, ...)
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
	page_begin(w, status == 404 ? "Not found" : status == 400 ? "Bad request" : "Error", NULL, NULL);
	fputs("<p class=\"err\">", w->f);
	dpa_html_escape(w->f, msg);
	fputs("</p>\n<p>", w->f);
	link(w, "/", NULL, NULL, "Back to the summary");
	fputs("</p>\n", w->f);
	page_end(w);
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

		return fail(w, strstr(e.msg, "out of memory") ? 500 : missing ? 404 : 400, "%s", e.msg);
	}
	if (adjust)
		adjust(w, &r);
	if (dpa_report_display(&dp, &r, &e) < 0) {
		dpa_report_release(&r);
		return fail(w, 500, "%s", e.msg);
	}
	if (w->q.json) {
		w->ctype = JSON;
		if (dpa_render_json(&dp, w->f) < 0) {
			dpa_display_release(&dp);
			dpa_report_release(&r);
			return fail(w, 500, "out of memory writing JSON");
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
	page_begin(w, "Profile summary", "/", NULL);
	if ((rc = report(w, &o, 2, NULL)))
		return rc;
	fputs("<h2>Flame graph</h2>\n", w->f);
	if (dpa_flame_svg(w->f, &w->s->d, w->q.sort, href, w, 1200, 0.2) < 0)
		return fail(w, 500, "out of memory drawing the flame graph");
	o = opts(w, DPA_REPORT_TOP);
	if (!w->q.total_set)
		o.total = true;
	fprintf(w->f, "<h2>Top procedures by %s %s</h2>\n", o.total ? "total" : "self",
		measure_key(o.sort));
	if ((rc = report(w, &o, 3, NULL)))
		return rc;
	page_end(w);
	return 0;
}

static int page_report(struct page *w, const struct dpa_report_opts *o, const char *title,
		       const char *self_path)
{
	int rc;

	if (w->q.json)
		return report(w, o, 2, NULL);
	page_begin(w, title, self_path, NULL);
	if ((rc = report(w, o, 2, NULL)))
		return rc;
	page_end(w);
	return 0;
}

/* The costs per call of a procedure's contexts, when they differ much:
 * "where a procedure's cost per call differs between callers". */
static void spread(struct page *w, const char *spec)
{
	struct dpa_report_opts o = opts(w, DPA_REPORT_PROC);
	struct dpa_report r;
	struct dpa_error e;
	const struct dpa_report_section *c;
	double lo = -1, hi = -1;
	uint32_t ilo = 0, ihi = 0;
	enum dpa_measure m = w->q.sort == DPA_CALLS ? DPA_CSCS : w->q.sort;

	o.name = spec;
	o.limit = 0;
	o.per_call = false;
	if (dpa_report_init(&r, &w->s->d, &o, &e) < 0)
		return;
	c = &r.sec[0];
	for (uint32_t i = 0; i < c->n; i++) {
		const struct dpa_report_row *x = &c->row[i];
		double v;

		if (!x->calls)
			continue;
		v = (double)x->c.total[m] / (double)x->calls;
		if (lo < 0 || v < lo) {
			lo = v;
			ilo = i;
		}
		if (hi < 0 || v > hi) {
			hi = v;
			ihi = i;
		}
	}
	fputs("<h2 id=\"spread\">Cost per call by context</h2>\n", w->f);
	if (c->n < 2 || lo < 0) {
		fputs("<p class=\"meta\">one context: nothing to compare.</p>\n", w->f);
	} else if (hi > 2 * lo && hi - lo >= 1) {
		char *a = dpa_ctx_suffix(&w->s->d, c->row[ihi].pd, c->row[ihi].count);
		char *b = dpa_ctx_suffix(&w->s->d, c->row[ilo].pd, c->row[ilo].count);

		fprintf(w->f, "<p class=\"note\" data-spread=\"%.6g\">The cost per call differs between its"
			" contexts: %.6g %s per call (total) from ", hi / (lo > 0 ? lo : 1), hi,
			measure_key(m));
		dpa_html_escape(w->f, a ? a : "?");
		fprintf(w->f, ", %.6g from ", lo);
		dpa_html_escape(w->f, b ? b : "?");
		fprintf(w->f, " (%.1fx): the callers give it different work.</p>\n",
			lo > 0 ? hi / lo : INFINITY);
		free(a);
		free(b);
	} else {
		fprintf(w->f, "<p class=\"meta\" data-spread=\"%.6g\">The cost per call is about the same"
			" in every context (%.6g to %.6g %s per call, total).</p>\n",
			lo > 0 ? hi / lo : 1.0, lo, hi, measure_key(m));
	}
	dpa_report_release(&r);
}

static int page_proc(struct page *w, const char *spec)
{
	struct dpa_report_opts o = opts(w, DPA_REPORT_PROC);
	char *title = NULL, *self = NULL, *cp = NULL;
	int rc;

	o.name = spec;
	if (w->q.json)
		return report(w, &o, 2, NULL);
	if (asprintf(&title, "Procedure %s", spec) < 0 || asprintf(&self, "/proc/%s", spec) < 0 ||
	    asprintf(&cp, "/callers/%s", spec) < 0) {
		free(title);
		free(self);
		return fail(w, 500, "out of memory");
	}
	page_begin(w, title, self, NULL);
	fputs("<p>", w->f);
	link(w, cp, NULL, NULL, "its callers by call site");
	fputs(" &middot; by ", w->f);
	link(w, cp, "by=proc", NULL, "procedure");
	fputs(" &middot; ", w->f);
	link(w, cp, "by=file", NULL, "file");
	fputs(" &middot; ", w->f);
	link(w, cp, "by=clique", NULL, "clique");
	fputs("</p>\n", w->f);
	rc = report(w, &o, 2, NULL);
	if (!rc) {
		spread(w, spec);
		page_end(w);
	}
	free(title);
	free(self);
	free(cp);
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

	o.name = spec;
	if (per)
		o.limit = per * w->q.page;
	if (w->q.json)
		return report(w, &o, 2, drop_pages);
	if (asprintf(&title, "Callers of %s", spec) < 0 || asprintf(&self, "/callers/%s", spec) < 0) {
		free(title);
		return fail(w, 500, "out of memory");
	}
	snprintf(extra, sizeof(extra), "by=%s%s", dpa_report_group_name(o.group),
		 w->q.page > 1 ? "" : "");
	page_begin(w, title, self, extra);
	fputs("<p>group by: ", w->f);
	for (int g = 0; g < DPA_GROUP_N; g++) {
		char e[32];

		snprintf(e, sizeof(e), "by=%s", dpa_report_group_name(g));
		if (g == (int)o.group)
			fprintf(w->f, "<b>%s</b> ", dpa_report_group_name(g));
		else
			link(w, self, e, NULL, dpa_report_group_name(g));
		fputc(' ', w->f);
	}
	fputs(" &middot; ", w->f);
	{
		char *pp;

		if (asprintf(&pp, "/proc/%s", spec) >= 0) {
			link(w, pp, NULL, NULL, "the procedure");
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
			link(w, self, extra, &ov, "previous");
			fputc(' ', w->f);
		}
		snprintf(extra, sizeof(extra), "by=%s&page=%u", dpa_report_group_name(o.group),
			 w->q.page + 1);
		link(w, self, extra, &ov, "next");
		fputs("</p>\n", w->f);
	}
	if (!rc)
		page_end(w);
	free(title);
	free(self);
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
		return fail(w, 400, "/clique needs ctx=PATH (a calling context: NAME@CALLSITE/...)");
	pd = dpa_ctx_resolve(&s->d, w->q.ctx, &e);
	if (!pd)
		return fail(w, 404, "%s", e.msg);
	o.id = dpa_clique_of(&s->d.cl, pd);
	if (w->q.json)
		return report(w, &o, 2, NULL);
	snprintf(title, sizeof(title), "Clique %u", o.id);
	{
		char *extra = ctx_query(s, pd);

		page_begin(w, title, "/clique", extra);
		free(extra);
	}
	/* the context's whole path, each step a link to its own context */
	for (uint32_t x = pd, c; (c = dpa_ctx_parent(&s->d, x)) != 0 && n < 100000; x = s->p.csd[c].caller_pd) {
		if (n == cap) {
			uint32_t *v = realloc(chain, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!v) {
				free(chain);
				return fail(w, 500, "out of memory");
			}
			chain = v;
		}
		chain[n++] = c;
	}
	fprintf(w->f, "<h2>Context: %s, its path from the root (%u calls)</h2>\n<ol class=\"path\">\n",
		dpa_ps_name(&s->p, s->p.pd[pd].ps), n);
	for (uint32_t i = n; i-- > 0;) {
		const struct dpa_csd *c = &s->p.csd[chain[i]];
		char *extra = ctx_query(s, c->callee_pd), *pp = NULL;
		uint32_t line = dpa_src_get(&s->p, DPA_CSS_LINE, c->css);
		char at[48];

		fputs("<li>", w->f);
		link(w, "/clique", extra, NULL, dpa_ps_name(&s->p, s->p.pd[c->callee_pd].ps));
		if (line)
			snprintf(at, sizeof(at), " (line %u, ", line);
		else
			snprintf(at, sizeof(at), " (");
		fputs(" <span class=\"meta\">called from ", w->f);
		dpa_html_escape(w->f, dpa_ps_name(&s->p, s->p.pd[c->caller_pd].ps));
		dpa_html_escape(w->f, at);
		snprintf(at, sizeof(at), "/site/%u", c->css);
		link(w, at, NULL, NULL, "call site");
		fputs(") &middot; ", w->f);
		if (asprintf(&pp, "/proc/%s", ps_spec(s, s->p.pd[c->callee_pd].ps)) >= 0) {
			link(w, pp, NULL, NULL, "all its contexts");
			free(pp);
		}
		fputs("</span></li>\n", w->f);
		free(extra);
	}
	fputs("</ol>\n", w->f);
	free(chain);
	rc = report(w, &o, 2, NULL);
	if (!rc)
		page_end(w);
	return rc;
}

static int page_site(struct page *w, const char *id)
{
	struct dpa_report_opts o = opts(w, DPA_REPORT_SITE);
	char *end, title[64], self[64];
	unsigned long v;

	errno = 0;
	v = strtoul(id, &end, 10);
	if (!*id || *end || errno || v > UINT32_MAX || id[0] < '0' || id[0] > '9')
		return fail(w, 400, "/site/%.100s: want a call site id (a number)", id);
	o.id = (uint32_t)v;
	snprintf(title, sizeof(title), "Call site %lu", v);
	snprintf(self, sizeof(self), "/site/%lu", v);
	return page_report(w, &o, title, self);
}

static int page_flame(struct page *w)
{
	if (w->q.json)
		return fail(w, 400, "the flame graph has no JSON twin: use `deepprof export` (folded stacks)");
	page_begin(w, "Flame graph (cliques as single frames)", "/flame", NULL);
	fputs("<p class=\"meta\">Width: total cost of each calling context, recursion folded into its "
	      "clique; click a frame for its clique's page.</p>\n", w->f);
	if (dpa_flame_svg(w->f, &w->s->d, w->q.sort, href, w, 1200, 0.05) < 0)
		return fail(w, 500, "out of memory drawing the flame graph");
	page_end(w);
	return 0;
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
	return fail(w, 404, "no page %.200s (pages: /, /top, /proc/NAME, /callers/NAME, /clique?ctx=PATH,"
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
		rc = fail(&w, 400, "bad path '%.200s': want one from /", path ? path : "");
	} else if (prefs_parse(pg, query, &w.q, why, sizeof(why)) < 0) {
		bool json = query && strstr(query, "format=json");

		w.q.json = json;
		rc = fail(&w, 400, "bad query: %s", why);
	} else {
		rc = route(&w, path);
	}
	pthread_mutex_unlock(&pg->mu);
	prefs_free(&w.q);
	if (fclose(w.f) != 0 || !w.body) {
		free(w.body);
		return 500;
	}
	*body = w.body;
	*len = w.len;
	*ctype = w.ctype;
	return rc ? rc : w.status;
}

int dp_pages_each(struct dp_pages *pg, int (*fn)(void *ctx, const char *path, const char *query),
		  void *ctx)
{
	(void)pg;
	return fn(ctx, "/", "");
}
