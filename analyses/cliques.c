/*
 * cliques.c — strongly connected components of the pd graph (Pearce's
 * space-efficient variant of Tarjan's algorithm, with an explicit stack),
 * then each clique's members and entry csds.
 * Part of deepprof's analyses library. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliques.h"

/* --- private prototypes ------------------------------------------------ */

static inline int find_sccs(struct dpa_cliques *cl, const struct dpa_profile *p,
			    dpa_clique_done_fn done, dpa_clique_enter_fn enter, void *ctx,
			    struct dpa_error *err) __attribute__((always_inline));
static int add_entries(struct dpa_cliques *cl, const struct dpa_profile *p, uint32_t k,
		       uint32_t *capm, uint32_t *capmc);
static void finish(struct dpa_cliques *cl);

/* ===================================================================== */

/* A growable array of `size`-byte elements; returns 0 or -1 (out of memory). */
static int grow(void **a, uint32_t *cap, uint32_t need, size_t size)
{
	uint64_t ncap;
	void *na;

	if (need <= *cap)
		return 0;
	ncap = *cap ? (uint64_t)*cap * 2 : 256;
	while (ncap < need)
		ncap *= 2;
	if (ncap > UINT32_MAX)
		ncap = UINT32_MAX;
	if (ncap < need)
		return -1;
	na = realloc(*a, ncap * size);
	if (!na)
		return -1;
	*a = na;
	*cap = (uint32_t)ncap;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* ===================================================================== */
/* { ==== strongly connected components ==== */

/*
 * The depth-first search's frames and Pearce's component stack live in the
 * unused ends of the result arrays, so the search needs no memory of its own
 * (at 10^7 pds on one path, 120 MB less). Every visited pd is in exactly one
 * of: a frame (nfs of them), the component stack (nss) or a complete clique
 * (mpos members), so nfs + nss + mpos <= n, while complete cliques number
 * k <= mpos. Frame i (0 = the bottom) keeps its pd in member[n - i] and the
 * position of its next out csd in entry[n + 1 - i]; component stack entry j
 * is first[n + 1 - j]. Members fill member[0 .. mpos), cliques write entry[k]
 * and first[k + 1] (k < mpos): neither reaches the other end. first[] is
 * made only when a pd first goes on the component stack: until then every
 * clique has one member (first[k] is k), and a profile without recursion
 * through two procedures never needs it (40 MB less memory touched at 10^7
 * pds). The top bit of
 * a frame's position is Pearce's "root" flag (v is the root of its
 * component unless some edge leads to an earlier index); a pd has fewer
 * than 2^31 out csds since csd ids are below 2^31.
 */
#define NOT_ROOT 0x80000000u
#define FRAME_V(i) cl->member[n - (i)]
#define FRAME_POS(i) cl->entry[n + 1 - (i)]
#define COMP(j) cl->first[n + 1 - (j)]

static inline int find_sccs(struct dpa_cliques *cl, const struct dpa_profile *p,
			    dpa_clique_done_fn done, dpa_clique_enter_fn enter, void *ctx,
			    struct dpa_error *err)
{
	const uint32_t n = p->n_pd;
	uint32_t *rindex, index = 1, k = 0, mpos = 0;
	uint32_t nfs = 0, nss = 0;
	uint32_t capm = 0, capmc = 0;
	uint32_t start_i = 0;   /* which start point comes next: roots, then all pds */

	/* zeroed by hand: the search reads each entry before it writes it,
	 * which on calloc's fresh pages would fault each page twice */
	rindex = cl->pd_clique = dpa_malloc_huge(((size_t)n + 1) * sizeof(uint32_t));
	if (rindex)
		memset(rindex, 0, ((size_t)n + 1) * sizeof(uint32_t));
	cl->member = dpa_malloc_huge(((size_t)n + 1) * sizeof(uint32_t));
	/* at most n cliques: entry (and first, when made) sized for that,
	 * shrunk by finish() */
	cl->entry = dpa_malloc_huge(((size_t)n + 2) * sizeof(uint32_t));
	if (!rindex || !cl->member || !cl->entry)
		goto oom;
	cl->n_pd = n;

	for (;;) {
		uint32_t s = 0;

		/* Next start: thread roots last-to-first (so thread 1's
		 * cliques finish last and get the smallest ids), then any pd
		 * no root reached, highest id first. */
		while (start_i < p->n_thread + n && !s) {
			uint32_t cand;

			if (start_i < p->n_thread)
				cand = p->thread[p->n_thread - start_i].root_pd;
			else
				cand = n - (start_i - p->n_thread);
			start_i++;
			if (cand >= 1 && cand <= n && rindex[cand] == 0)
				s = cand;
		}
		if (!s)
			break;

		rindex[s] = index++;
		FRAME_V(0) = s;
		FRAME_POS(0) = 0;
		nfs = 1;
		while (nfs) {
			uint32_t v = FRAME_V(nfs - 1), fpos = FRAME_POS(nfs - 1);
			uint32_t pos = fpos & ~NOT_ROOT, key;
			const struct dpa_pd *pd = &p->pd[v];

			if (pos < dpa_pd_out_n(pd)) {
				uint32_t x = dpa_out_csd(p, pd->out_first + pos);
				uint32_t w = p->csd[x].callee_pd;

				if (rindex[w] == 0) {
					/* descend; the edge is looked at
					 * again (below) when w is done */
					if (enter)
						enter(ctx, x);
					rindex[w] = index++;
					FRAME_V(nfs) = w;
					FRAME_POS(nfs) = 0;
					nfs++;
					continue;
				}
				if (rindex[w] < rindex[v]) {
					rindex[v] = rindex[w];
					fpos |= NOT_ROOT;
				}
				FRAME_POS(nfs - 1) = fpos + 1;
				continue;
			}
			nfs--;
			if (fpos & NOT_ROOT) {
				if (!cl->first) {
					/* the k cliques so far have one member each */
					cl->first = dpa_malloc_huge(((size_t)n + 2) * sizeof(uint32_t));
					if (!cl->first)
						goto oom;
					for (uint32_t i = 0; i <= k; i++)
						cl->first[i] = i;
				}
				COMP(nss) = v;
				nss++;
				continue;
			}
			/* v is the root of a component: it and the pds above
			 * it on the component stack */
			key = DPA_CLIQUE_KEY(k);
			if (enter)
				cl->walk_parent = nfs ? FRAME_V(nfs - 1) : 0;
			index--;
			cl->member[mpos++] = v;
			while (nss && rindex[v] <= rindex[COMP(nss - 1)]) {
				uint32_t w = COMP(nss - 1);

				nss--;
				rindex[w] = key;
				cl->member[mpos++] = w;
				index--;
			}
			rindex[v] = key;
			if (mpos - dpa_clique_walk_first(cl, k) > 1)
				qsort(cl->member + cl->first[k], mpos - cl->first[k],
				      sizeof(uint32_t), cmp_u32);
			if (cl->first)
				cl->first[k + 1] = mpos;
			if (add_entries(cl, p, k, &capm, &capmc))
				goto oom;
			cl->n = ++k;
			if (done && done(ctx, cl, k - 1))
				return -1;
		}
	}
	cl->bytes += (size_t)capmc * sizeof(uint32_t) + (size_t)capm * sizeof(*cl->multi);
	finish(cl);
	return 0;
oom:
	return dpa_fail(err, p, "out of memory finding cliques of %u pds", n);
}

/*
 * The entry csds of the just completed clique k: in csds of its members
 * whose caller has another key (callers may be live or unvisited: their
 * rindex is then an index or 0, never k's key). A single entry is kept in
 * entry[k]; more go to multi[] and multi_csd[].
 */
static int add_entries(struct dpa_cliques *cl, const struct dpa_profile *p, uint32_t k,
		       uint32_t *capm, uint32_t *capmc)
{
	const uint32_t key = DPA_CLIQUE_KEY(k);
	uint32_t start = cl->n_multi ? cl->multi[cl->n_multi - 1].first +
					   cl->multi[cl->n_multi - 1].n : 0;
	uint32_t nmc = start, single = 0, primary = 0;

	for (uint32_t i = dpa_clique_walk_first(cl, k); i < dpa_clique_walk_first(cl, k + 1); i++) {
		const struct dpa_pd *pd = &p->pd[cl->member[i]];

		for (uint32_t j = 0; j < dpa_pd_in_n(pd); j++) {
			uint32_t e = dpa_in_csd(p, pd->in_first + j);

			if (cl->pd_clique[p->csd[e].caller_pd] == key)
				continue;
			if (!single) {
				single = e;
				continue;
			}
			if (nmc == start) {
				if (grow((void **)&cl->multi_csd, capmc, nmc + 1, sizeof(uint32_t)))
					return -1;
				cl->multi_csd[nmc++] = single;
			}
			if (grow((void **)&cl->multi_csd, capmc, nmc + 1, sizeof(uint32_t)))
				return -1;
			cl->multi_csd[nmc++] = e;
		}
	}
	if (nmc == start) {
		cl->entry[k] = single;  /* 0 for a root */
		return 0;
	}
	qsort(cl->multi_csd + start, nmc - start, sizeof(uint32_t), cmp_u32);
	for (uint32_t i = start; i < nmc; i++) {
		uint32_t e = cl->multi_csd[i];

		/* ascending ids: strictly more calls wins, so ties keep the lowest */
		if (!primary || dpa_own(p, e, DPA_CALLS) > dpa_own(p, primary, DPA_CALLS))
			primary = e;
	}
	if (grow((void **)&cl->multi, capm, cl->n_multi + 1, sizeof(*cl->multi)))
		return -1;
	cl->multi[cl->n_multi] = (struct dpa_clique_multi){
		.clique = k, .first = start, .n = nmc - start, .primary = primary };
	cl->entry[k] = DPA_CLIQUE_MULTI | cl->n_multi;
	cl->n_multi++;
	return 0;
}

static void reverse_u32(uint32_t *a, uint32_t n)
{
	for (uint32_t i = 0, j = n; i + 1 < j; i++, j--) {
		uint32_t t = a[i];

		a[i] = a[j - 1];
		a[j - 1] = t;
	}
}

/*
 * From completion order to ids: clique k becomes id n - k. pd_clique keys
 * become ids; the member array is reversed (each block is then sorted
 * again) and first[] rebuilt (or, never made, left out: one member each,
 * first[c] is c - 1, see dpa_clique_first); entry[] is reversed; the
 * arrays shrink to n.
 */
static void finish(struct dpa_cliques *cl)
{
	const uint32_t n = cl->n, shift = DPA_CLIQUE_KEY(0) - n;    /* id = key - shift */
	void *a;

	for (uint32_t v = 1; v <= cl->n_pd; v++)
		cl->pd_clique[v] -= shift;
	/* member: block k was [first[k], first[k+1]); reversed, it ends at
	 * n_pd - first[k], so id i = n - k starts at n_pd - first[n - i + 1] */
	reverse_u32(cl->member, cl->n_pd);
	if (cl->first) {
		reverse_u32(cl->first, n + 1);
		for (uint32_t i = n + 1; i >= 1; i--)
			cl->first[i] = cl->n_pd - cl->first[i - 1];
		cl->first[0] = 0;
		for (uint32_t i = 1; i <= n; i++)
			if (cl->first[i + 1] - cl->first[i] > 1)
				reverse_u32(cl->member + cl->first[i],
					    cl->first[i + 1] - cl->first[i]);
	}
	reverse_u32(cl->entry, n);
	memmove(cl->entry + 1, cl->entry, (size_t)n * sizeof(uint32_t));
	cl->entry[0] = 0;
	for (uint32_t i = 0; i < cl->n_multi; i++)
		cl->multi[i].clique = n - cl->multi[i].clique;
	if (n == cl->n_pd) {
		/* one member each: first[c] is c - 1 (dpa_clique_first) */
		free(cl->first);
		cl->first = NULL;
	} else if (cl->first && (a = realloc(cl->first, ((size_t)n + 2) * sizeof(uint32_t)))) {
		cl->first = a;
	}
	if ((a = realloc(cl->entry, ((size_t)n + 1) * sizeof(uint32_t))))
		cl->entry = a;
	cl->bytes += ((size_t)cl->n_pd + 1) * 2 * sizeof(uint32_t) +
		     ((size_t)(cl->first ? n + 2 : 0) + n + 1) * sizeof(uint32_t);
}

/* } ==== */

int dpa_cliques_init_walk(struct dpa_cliques *cl, const struct dpa_profile *p,
			  dpa_clique_done_fn done, dpa_clique_enter_fn enter, void *ctx,
			  struct dpa_error *err)
{
	memset(cl, 0, sizeof(*cl));
	/* ids, keys and the NOT_ROOT / DPA_CLIQUE_MULTI bits need n < 2^31 */
	if (p->n_pd >= 0x7fffffffu || p->n_csd >= 0x7fffffffu)
		return dpa_fail(err, p, "too many nodes for clique analysis (%u pds, %u csds)",
			    p->n_pd, p->n_csd);
	/* two copies of the search (find_sccs is inlined): without a hook
	 * its tests cost nothing */
	if (enter ? find_sccs(cl, p, done, enter, ctx, err) :
		    find_sccs(cl, p, done, NULL, ctx, err)) {
		dpa_cliques_release(cl);
		return -1;
	}
	return 0;
}

int dpa_cliques_init(struct dpa_cliques *cl, const struct dpa_profile *p,
		     struct dpa_error *err)
{
	return dpa_cliques_init_walk(cl, p, NULL, NULL, NULL, err);
}

void dpa_cliques_release(struct dpa_cliques *cl)
{
	if (!cl)
		return;
	free(cl->pd_clique);
	free(cl->first);
	free(cl->member);
	free(cl->entry);
	free(cl->multi);
	free(cl->multi_csd);
	memset(cl, 0, sizeof(*cl));
}

/* ===================================================================== */

const uint32_t *dpa_clique_entries(const struct dpa_cliques *cl, uint32_t c, uint32_t *n)
{
	uint32_t e = cl->entry[c];

	if (!e) {
		*n = 0;
		return NULL;
	}
	if (!(e & DPA_CLIQUE_MULTI)) {
		*n = 1;
		return &cl->entry[c];
	}
	*n = cl->multi[e & ~DPA_CLIQUE_MULTI].n;
	return cl->multi_csd + cl->multi[e & ~DPA_CLIQUE_MULTI].first;
}

uint32_t dpa_clique_primary_entry(const struct dpa_cliques *cl, uint32_t c)
{
	uint32_t e = cl->entry[c];

	if (e & DPA_CLIQUE_MULTI)
		return cl->multi[e & ~DPA_CLIQUE_MULTI].primary;
	return e;
}

uint32_t dpa_clique_parent(const struct dpa_cliques *cl, const struct dpa_profile *p,
			   uint32_t c)
{
	uint32_t e = dpa_clique_primary_entry(cl, c);

	return e ? cl->pd_clique[p->csd[e].caller_pd] : 0;
}

uint32_t dpa_clique_parents(const struct dpa_cliques *cl, const struct dpa_profile *p,
			    uint32_t c, uint32_t *buf, uint32_t cap)
{
	uint32_t n, count = 0;
	const uint32_t *es = dpa_clique_entries(cl, c, &n);

	/* Parents come out ascending and distinct: each pass takes the
	 * smallest parent above the previous one. Entries are few (usually
	 * one), so the quadratic worst case does not matter in practice. */
	for (uint32_t last = 0;;) {
		uint32_t best = 0;

		for (uint32_t i = 0; i < n; i++) {
			uint32_t pc = cl->pd_clique[p->csd[es[i]].caller_pd];

			if (pc > last && (!best || pc < best))
				best = pc;
		}
		if (!best)
			break;
		if (count < cap)
			buf[count] = best;
		count++;
		last = best;
	}
	return count;
}

bool dpa_clique_recursive(const struct dpa_cliques *cl, const struct dpa_profile *p,
			  uint32_t c)
{
	uint32_t nm;
	const uint32_t *mem = dpa_clique_members(cl, c, &nm);

	if (nm > 1)
		return true;
	for (uint32_t j = 0; j < dpa_pd_out_n(&p->pd[mem[0]]); j++)
		if (p->csd[dpa_out_csd(p, p->pd[mem[0]].out_first + j)].callee_pd == mem[0])
			return true;
	return false;
}
