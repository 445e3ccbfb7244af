/*
 * cliques.h — the cliques of a profile: the strongly connected components of
 * its pd graph (an edge per csd, caller_pd → callee_pd), found without
 * recursion, with each clique's members, entry csds and parents.
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_CLIQUES_H
#define DPA_CLIQUES_H

#include "profile.h"

/*
 * A clique whose entry csds number two or more (the rare case: with recursion
 * folding every call into a clique from outside is the csd that created its
 * pd, so a clique normally has exactly one entry). Kept aside, in descending
 * clique order (the order the search completes them).
 */
struct dpa_clique_multi {
	uint32_t clique;
	uint32_t first, n;      /* entry csds: multi_csd[first .. first+n) */
	uint32_t primary;       /* the entry with the most calls (lowest id on ties) */
};

/* entry[c] with this bit set holds an index into multi[], not a csd id. */
#define DPA_CLIQUE_MULTI 0x80000000u

/*
 * Cliques are numbered densely from 1 in topological order: a clique's id is
 * smaller than the ids of every clique it calls. Thread 1's root clique is
 * clique 1 and each thread's cliques come after those of the thread before
 * (in a profile where every pd hangs from a thread root, as the reader
 * checks; pds no root reaches get ids before thread 1's). The members of a
 * clique are in pd id order.
 *
 * An entry csd of clique c is a csd whose callee is in c and whose caller is
 * not. A clique's parents are the cliques of its entry csds' callers; its
 * primary parent is that of its primary entry (the entry with the most calls,
 * the lowest csd id on ties). Root cliques (a thread's root pd) have none.
 *
 * Invariants: pd_clique[pd] in 1..n for every pd 1..n_pd (pd_clique[0] == 0);
 * dpa_clique_first(cl, 1) == 0, dpa_clique_first(cl, n+1) == n_pd, and
 * dpa_clique_first(cl, c) < dpa_clique_first(cl, c+1).
 */
struct dpa_cliques {
	uint32_t n;             /* cliques 1..n */
	uint32_t n_pd;
	uint32_t *pd_clique;    /* [n_pd+1] */
	/* [n+2]: members of c are member[first[c] .. first[c+1]), read with
	 * dpa_clique_first(); NULL when every clique has one member (n ==
	 * n_pd: a profile without recursion), so first[c] would be c - 1 */
	uint32_t *first;
	uint32_t *member;       /* [n_pd] */
	uint32_t *entry;        /* [n+1]: 0 (none), the single entry csd, or DPA_CLIQUE_MULTI|i */
	struct dpa_clique_multi *multi;
	uint32_t n_multi;
	uint32_t *multi_csd;
	size_t bytes;           /* memory held by the arrays above */
	/* during a done() call (dpa_cliques_init_walk): the pd from which the
	 * search first reached the clique's first-visited member, 0 when the
	 * search started there */
	uint32_t walk_parent;
};

/*
 * Find the cliques of *p (which must stay alive and unchanged while *cl is
 * used; *cl keeps no pointer to it). Linear in pds + csds; no recursion, so
 * a graph of any depth is safe. No extra memory while running (the search's
 * stacks live in the result arrays' unused ends). Returns 0, or -1 with *err set (profile too
 * large, out of memory); on failure *cl holds nothing to release.
 */
int dpa_cliques_init(struct dpa_cliques *cl, const struct dpa_profile *p,
		     struct dpa_error *err);

/*
 * A hook for computations that go bottom-up over the cliques (startup's
 * totals), run while each clique is fresh in the cache. done(ctx, cl, k) is
 * called as the k-th clique (k = 0, 1, ...) is complete: every clique it
 * calls is complete before it. During the call cliques are known by this
 * completion index k, not yet by their final id:
 *   - a pd of a complete clique k has pd_clique[pd] == DPA_CLIQUE_KEY(k);
 *     other pds have smaller values (so a csd is internal iff both ends
 *     have the same value, for any complete end);
 *   - the members of k are member[first[k] .. first[k+1]), its entries are
 *     entry[k] (multi[i].clique == k for a multi-entry clique).
 * A nonzero return from done stops the search: dpa_cliques_init_walk then
 * returns -1 (done must have set *err). When it returns 0 the ids are final
 * and clique k has become id n - k.
 */
#define DPA_CLIQUE_KEY(k) (UINT32_MAX - 1 - (k))
/* During the search: where the members of the clique with completion
 * index k start in member[] (k + 1 gives where they end). */
static inline uint32_t dpa_clique_walk_first(const struct dpa_cliques *cl, uint32_t k)
{
	return cl->first ? cl->first[k] : k;
}

typedef int (*dpa_clique_done_fn)(void *ctx, const struct dpa_cliques *cl, uint32_t k);
/*
 * enter(ctx, x), when not NULL, is called as the search first reaches csd
 * x's callee, through x (an edge of the search's tree), before anything
 * below it; each pd is reached so once, or is a start (a thread root, or a
 * pd no root reaches). With done, it lets a caller keep state along the
 * search's current path: in a profile whose cliques all have one member,
 * the tree edge into a clique is its entry exactly when cl->walk_parent is
 * that entry's caller.
 */
typedef void (*dpa_clique_enter_fn)(void *ctx, uint32_t x);
int dpa_cliques_init_walk(struct dpa_cliques *cl, const struct dpa_profile *p,
			  dpa_clique_done_fn done, dpa_clique_enter_fn enter, void *ctx,
			  struct dpa_error *err);

/* Free what *cl owns; *cl is then zeroed. Releasing a zeroed *cl does nothing. */
void dpa_cliques_release(struct dpa_cliques *cl);

static inline uint32_t dpa_clique_of(const struct dpa_cliques *cl, uint32_t pd)
{
	return cl->pd_clique[pd];
}

/* Where clique c's members start in member[] (c in 1 .. n + 1; n + 1 gives
 * n_pd, the end of the last). O(1). */
static inline uint32_t dpa_clique_first(const struct dpa_cliques *cl, uint32_t c)
{
	return cl->first ? cl->first[c] : c - 1;
}

/* The number of members of clique c (1 .. n). O(1). */
static inline uint32_t dpa_clique_size(const struct dpa_cliques *cl, uint32_t c)
{
	return cl->first ? cl->first[c + 1] - cl->first[c] : 1;
}

/* The members of clique c (pd ids, ascending); *n gets their number. */
static inline const uint32_t *dpa_clique_members(const struct dpa_cliques *cl,
						 uint32_t c, uint32_t *n)
{
	*n = dpa_clique_size(cl, c);
	return cl->member + dpa_clique_first(cl, c);
}

/* The entry csds of clique c (ascending); *n gets their number (0 for a root). */
const uint32_t *dpa_clique_entries(const struct dpa_cliques *cl, uint32_t c, uint32_t *n);

/* The primary entry csd of c, or 0 when c has none. */
uint32_t dpa_clique_primary_entry(const struct dpa_cliques *cl, uint32_t c);

/* True for a csd whose caller and callee are in the same clique: costs are
 * never propagated along it. */
static inline bool dpa_csd_internal(const struct dpa_cliques *cl,
				    const struct dpa_profile *p, uint32_t csd)
{
	return cl->pd_clique[p->csd[csd].caller_pd] == cl->pd_clique[p->csd[csd].callee_pd];
}

/* The primary parent clique of c, or 0 for a root clique. */
uint32_t dpa_clique_parent(const struct dpa_cliques *cl, const struct dpa_profile *p,
			   uint32_t c);

/*
 * All parent cliques of c, distinct and ascending: writes up to `cap` of
 * them to buf and returns how many there are (which may exceed cap).
 */
uint32_t dpa_clique_parents(const struct dpa_cliques *cl, const struct dpa_profile *p,
			    uint32_t c, uint32_t *buf, uint32_t cap);

/* True if c is recursive: two or more members, or a member calling itself. */
bool dpa_clique_recursive(const struct dpa_cliques *cl, const struct dpa_profile *p,
			  uint32_t c);

#endif
