/*
 * ctxpath.h — calling contexts named by the call sites that lead to them
 * (stable across runs, unlike pd ids), and each context of a procedure told
 * apart from its others by the shortest suffix of that path.
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_CTXPATH_H
#define DPA_CTXPATH_H

#include "startup.h"

/*
 * The csd a context is named through (its "parent"), 0 for a thread's root.
 * A pd entered from another clique: its busiest entry (most calls, then the
 * lowest csd id); else a call from a pd of its clique with a smaller id
 * (the activation that made it), busiest first; else its clique's primary
 * entry. Following parents always ends at a thread root. O(in degree).
 */
uint32_t dpa_ctx_parent(const struct dpa_deep *d, uint32_t pd);

/* A call site's place in a path step: "LINE:COL", "LINE", or "cssID"
 * when the profile has no line for it. */
void dpa_ctx_css_loc(const struct dpa_profile *p, uint32_t css, char *buf, size_t n);
/* Does loc[0..len) (as dpa_ctx_css_loc writes it; a LINE alone matches any
 * column) name css? */
bool dpa_ctx_css_matches(const struct dpa_profile *p, uint32_t css, const char *loc, size_t len);

/*
 * pd's path: each call from the thread's root as CALLEE@LOC (the callee's
 * name, '%', '/' and '@' in it as %25, %2F, %40; LOC the call site's line
 * and column, which stay when a run calls things in another order, unlike
 * ids), joined by '/', after "tN/" for thread N > 1:
 * "main@58:16/work@12:3/f@30:5". Malloc'd into *out. Returns 0, or -1
 * out of memory.
 */
int dpa_ctx_path(const struct dpa_deep *d, uint32_t pd, char **out);

/* The same cut to its last max calls when it is longer, after "~/" (a
 * context 10^5 calls deep would make a 2 MB URL): "~/f@3:1/f@3:1/g@9:2". */
int dpa_ctx_key(const struct dpa_deep *d, uint32_t pd, uint32_t max, char **out);

/* The pd a path names, or 0 with err saying which step matched nothing. A
 * "~/" path names the first context (in pd order) whose path ends with
 * those calls. */
uint32_t dpa_ctx_resolve(const struct dpa_deep *d, const char *path, struct dpa_error *err);

/*
 * For each of pds[0..n) (contexts of one procedure, or any set), depth[i] =
 * the number of call sites, nearest first, that tell pds[i]'s path apart
 * from every other's (1: its own call site does); the whole path's length
 * when none does (contexts on different threads: same path). Returns 0, or
 * -1 out of memory.
 */
int dpa_ctx_distinguish(const struct dpa_deep *d, const uint32_t *pds, uint32_t n,
			uint32_t *depth);

/*
 * The last k call sites of pd's path, for people: "main:12 > f:30"
 * (caller, and the call's line, else "#css"), "… " before it when the
 * path is longer, "[thread N] " first for other threads than the first.
 * Malloc'd; NULL when out of memory.
 */
char *dpa_ctx_suffix(const struct dpa_deep *d, uint32_t pd, uint32_t k);

#endif
