/*
 * pages_int.h — what the files of the pages module share (pages.c: loading,
 * URLs, the page shell, the report pages, answering; pages_modules.c:
 * modules and contour exclusion; pages_diff.c: the diff). Private to them;
 * the API is pages.h. Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_PAGES_INT_H
#define DPA_PAGES_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include <jansson.h>

#include "diff.h"
#include "pages.h"
#include "startup.h"

#define HTML "text/html; charset=utf-8"
#define JSON "application/json"
#define MAX_EXCLUDE 16

/* One profile read and prepared, replaced whole on reload. */
struct side {
	char *path;
	struct stat st;         /* the file when it was read */
	struct dpa_profile p;
	struct dpa_deep d;
	char **spec;            /* [n_ps + 1]: the name a URL gives ps by, made on first use */
	uint32_t *name_count;   /* [n_ps + 1]: how many procedures share ps's name */
	/* the procedures by name: names[ps] its display name (made once: an
	 * unresolved one is formatted on each dpa_ps_name()), slot[] an
	 * open-addressing table of the first ps of each name (cap a power of
	 * 2), name_next[ps] the next ps with the same name (0: none) */
	const char **names;
	uint32_t *slot, *name_next;
	size_t cap;
	/* the diff of `path` (OLD) and the other file (NEW), when there is one */
	struct dpa_profile dnew;
	struct dpa_diff diff;
	uint32_t *old_pd, *old_ps;      /* merged pd (ps) -> OLD's, 0: only in NEW */
	bool has_diff;
	char diff_err[512];     /* why there is no diff, when another file was given */
	/* contour exclusion: the profile with the last exclude= asked for
	 * applied (excluded_side), and that set's text */
	struct side *excl;
	char *excl_key;
};

/* The pages object (pages.h). */
struct dp_pages {
	pthread_mutex_t mu;     /* held while answering and while swapping sides */
	pthread_mutex_t reload; /* one reload at a time */
	char *file, *other;
	struct side *s;
	char *base, *suffix;    /* links: base + path + "?" + query + suffix */
	char **suffix_keys;     /* keys of suffix, accepted and ignored */
	uint32_t n_suffix_keys;
};

/* A request's query (prefs_parse in pages.c). */
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

/* One answer being written: the side it shows, its query, the body. */
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
/* One preference changed in a link (dpa_pg_link): -1 keeps the page's. */
struct over {
	int sort;               /* -1 keep */
	int total;              /* -1 keep, 0 self, 1 total */
	int per_call;           /* -1 keep */
	int json;               /* -1 keep (never carried: only when 1) */
	bool keep_limit;
};

/* A module (source file or object) and its procedures' own costs. */
struct modrow {
	const char *name;       /* basename */
	bool object;            /* an object file (else a source file) */
	uint32_t procs;
	uint64_t calls, own;
};

/* ---- loading (pages.c) ---- */

/* file (and other, for a diff) read and prepared; NULL with err set. */
struct side *dpa_pg_side_load(const char *file, const char *other, char *err, size_t errlen);
/* Free *s and what it owns; NULL does nothing. */
void dpa_pg_side_free(struct side *s);

/* ---- writing a page (pages.c) ---- */

/* "calls", "cscs", ...: a measure as URLs and pages name it. */
const char *dpa_pg_measure_key(enum dpa_measure m);
/* <a href="BASE PATH?QUERY">text</a> onto w->f; o (may be NULL) changes a
 * preference, extra ("k=v", encoded; may be NULL) comes first. */
void dpa_pg_link(struct page *w, const char *path, const char *extra, const struct over *o,
		 const char *text);
/* The name a URL gives ps by (cached in s; NULL out of memory). */
const char *dpa_pg_ps_spec(struct side *s, uint32_t ps);
/* "ctx=PATH" (encoded) naming pd, malloc'd; NULL out of memory. */
char *dpa_pg_ctx_query(struct side *s, uint32_t pd);
/* The head, navigation and preference links (self_path: this page, for
 * the preference links; NULL: none), then the title. */
void dpa_pg_page_begin(struct page *w, const char *title, const char *self_path,
		       const char *self_extra);
/* The footer and the sorting script. */
void dpa_pg_page_end(struct page *w);
/* Replace what was written with an error page (or JSON error) of status;
 * returns status (500 when no stream could be had). */
int dpa_pg_fail(struct page *w, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* doc (consumed; NULL: out of memory) as the whole answer. Returns 0, or
 * the status of a failure page. */
int dpa_pg_put_json(struct page *w, json_t *doc);

/* ---- modules and contour exclusion (pages_modules.c) ---- */

/* The modules with called procedures, by own cost of m, largest first;
 * *out malloc'd. Returns 0 or -1 out of memory. */
int dpa_pg_modules_of(const struct side *s, enum dpa_measure m, struct modrow **out, uint32_t *n);
int dpa_pg_page_modules(struct page *w);
int dpa_pg_page_module(struct page *w, const char *name);
/* w->s with w->q.exclude's modules below a contour (kept in w->s for the
 * next page with the same set); NULL with why and *status set. */
struct side *dpa_pg_excluded_side(struct page *w, char *why, size_t n, int *status);

/* ---- the diff (pages_diff.c) ---- */

int dpa_pg_page_diff(struct page *w);

#endif
