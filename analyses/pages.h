/*
 * pages.h — the profile browser's pages (`deepprof serve`, deepprof-cgi,
 * `deepprof test-pages`): one request in, one HTTP answer out. Pages come
 * from the report → display → render pipeline of `deepprof report`.
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DP_PAGES_H
#define DP_PAGES_H

#include <stddef.h>

/*
 * URLs. Every page is PATH?QUERY. Things are named by stable keys, never by
 * node ids that change from run to run, so a URL still works after a new
 * run of the program has replaced the file:
 *
 *   /                         summary, top procedures, flame graph
 *   /top                      procedures ranked (sort, mode, percall, limit)
 *   /proc/SPEC                one procedure in all its contexts, each told
 *                             apart by the shortest suffix of its call path;
 *                             SPEC as `deepprof report proc` takes it
 *                             (name or file.c:name)
 *                             (?ctx=PATH: its source with that context's costs)
 *   /callers/SPEC             its callers (by=site|proc|file|clique, page=N)
 *   /clique?ctx=PATH          the context PATH names: its whole path, then
 *                             its clique (a clique's link names its entry)
 *   /site/CALLER@LINE:COL     one call site: its caller's name and place (or
 *                             its id, /site/7, which may change between runs)
 *   /recursion                recursive cliques
 *   /root?pct=P               root/P: dominant call sites from the root down
 *                             until a clique is at most P% of the cost
 *   /flame                    flame graph (cliques as single frames)
 *   /diff                     with a second profile: the diff by context
 *   /modules, /module/NAME    the program's modules
 *
 * PATH (a calling context) is its calls from the thread's root, each
 * "CALLEE@LINE:COL" (the callee's name, '%', '/' and '@' in it as %25, %2F,
 * %40; where the call is in its caller: "cssID" when the profile has no
 * line), joined by '/', after "tN/" for threads other than the first:
 * "main@58:16/work@12:3/fib@7:10" (ctxpath.h); a context more than 40 calls
 * deep is named by its last 40 after "~/" (the first context whose path
 * ends so). Lines stay the same when a new run calls things in another
 * order, which ids do not. The whole query value is URL-encoded once more.
 *
 * Query keys (all optional): format=json (the page's JSON twin, byte for
 * byte what `deepprof report --json` prints for the same report: / is the
 * summary, /clique and /root the clique report, /diff what `deepprof diff
 * --json` prints; /flame, /modules and /module/NAME, which no report has,
 * give documents of their own: flame.h, and {"version": 1, "report":
 * "modules"|"module", "sort", "modules"|"procedures": [...]}), sort=calls|
 * cscs|ticks|allocs|bytes, mode=self|total, percall=1, limit=N (default 20
 * in HTML, all in JSON), by=..., page=N, pct=P, exclude=MOD,MOD (contour
 * exclusion). A key or value it does not know: status 400 and a page that
 * says which.
 *
 * Links inside pages are BASE + PATH + "?" + query, the query carrying the
 * preferences that differ from the defaults and then SUFFIX (each optional;
 * dp_pages_set_base). By default BASE and SUFFIX are empty: links are
 * absolute paths from the server's root ("/proc/main?sort=calls").
 */

struct dp_pages;   /* one loaded profile (and optionally a second, for diff) */

/* Read file (and other, NULL: none) and prepare them. Returns the pages, or
 * NULL with a one-line message naming the file in err[errlen]. */
struct dp_pages *dp_pages_open(const char *file, const char *other, char *err, size_t errlen);

/* Read the file(s) again if they changed on disk (size, mtime or inode).
 * Returns 1 reloaded, 0 same, -1 error (err set; the old profile is kept). */
int dp_pages_reload_if_changed(struct dp_pages *pg, char *err, size_t errlen);

/* Links: base is prepended to every page path ("/cgi-bin/deepprof-cgi"),
 * suffix appended to every query ("file=%2Fdata%2FDeep.data", already
 * URL-encoded; its keys are then also accepted, and ignored, in queries).
 * Either may be NULL (empty). Copies both. Returns 0, or -1 out of memory.
 * Call before answering (not thread-safe with dp_pages_answer). */
int dp_pages_set_base(struct dp_pages *pg, const char *base, const char *suffix);

/*
 * Answer one request. path: e.g. "/", "/proc/main" (already URL-decoded, as
 * web servers give it); query: the raw part after '?' (URL-encoded), may
 * be NULL or "". Returns the HTTP status (200, 400, 404, 500); *body is
 * malloc'd (the caller frees it, also for errors, whose body is a page
 * saying what is wrong), *len its length, *ctype a static string
 * ("text/html; charset=utf-8", "application/json"). Thread-safe: calls may
 * run concurrently (and with dp_pages_reload_if_changed).
 */
int dp_pages_answer(struct dp_pages *pg, const char *path, const char *query, char **body,
		    size_t *len, const char **ctype);

/* Every page of the profile (mdprof_test): fn(ctx, path, query) for each
 * page's path and query, summary first. Stops at and returns fn's first
 * nonzero value; 0 when all were visited, -1 when out of memory. */
int dp_pages_each(struct dp_pages *pg, int (*fn)(void *ctx, const char *path, const char *query),
		  void *ctx);

/* Free everything; NULL does nothing. */
void dp_pages_close(struct dp_pages *pg);

#endif
