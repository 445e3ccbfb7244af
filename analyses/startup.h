/*
 * startup.h — the "deep" structure: a profile with its cliques and the
 * inherited (own + descendants) costs of every csd, pd, clique, ps and css,
 * computed once after reading (Mercury's startup.m).
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_STARTUP_H
#define DPA_STARTUP_H

#include "profile.h"
#include "cliques.h"

/*
 * Words. A node's *own* cost is what was measured while its code ran; its
 * *desc* (descendants') cost is what its callees cost; its *total* is own +
 * desc. The "inherited cost" is the total. All are exact integers.
 *
 *  csd   own: the file's measures. An internal csd (caller and callee in the
 *        same clique) has total = own: costs never flow along a call inside a
 *        clique. An entry csd x (callee in another clique D) has total =
 *        D's total when x is D's only entry; when D has several entries,
 *        own(x) + a share of D's total minus all its entries' own costs, in
 *        proportion to calls (equal shares if no entry made a call),
 *        rounded down, the primary entry taking the rounding remainder so
 *        the shares add up exactly.
 *  pd    own: the sum of its in csds' own costs (the procedure's body in
 *        this context). desc: the sum of the totals of its out csds into
 *        other cliques. So for a pd q in its own non-recursive clique
 *        entered by x alone, total(x) = own(x) + desc(q) = total(q).
 *  clique own: sum of its members' own; desc: sum of its members' desc;
 *        total = own + desc = the sum of its members' totals.
 *  thread total: its root pd's total = the own costs of all its csds.
 *  ps    own: sum over its pds. total: sum of the totals of its *outermost*
 *        pds. Walk up from a pd's clique by primary entries (the clique's
 *        primary entry csd, then the primary entry of that csd's caller's
 *        clique, ...): the chain of calls that led to it. A pd of procedure
 *        P is left out when one of those csds is called from a pd of P: its
 *        cost is then already inside that pd's total, and counting it again
 *        would count recursion twice. Pds of P in the same clique are all
 *        counted: their totals do not overlap. (Mercury: the outermost
 *        activation's contribution only.)
 *  css   own: sum over its csds. total: sum of the totals of its csds,
 *        leaving out a csd when a csd of the same css is on its caller's
 *        chain (the same rule, for call sites).
 *
 * With a consistent profile: each thread's total equals the sum of the own
 * costs of its csds, and over all threads the header's calls, cscs,
 * ticks - ticks_outside, allocs - allocs_outside, bytes - bytes_outside.
 *
 * Memory: totals are stored per clique (4 bytes per stored measure; values
 * of 2^31 or more take 8 bytes more) except for leaves (no call out of the
 * clique, at most 16 in csds), whose total is their own cost, found on
 * demand; own and total per ps with several
 * pds and per css with several csds (8 bytes per stored measure, and 8 more
 * per wide value), and 4 bytes per ps and css to find them; csd and pd
 * totals, and the costs of a ps with one pd (a css with one csd), are
 * derived on demand in O(degree). Measures equal on every csd share storage
 * (cscs and calls with clock "calls"; exits and calls without non-local
 * exits), measures 0 on every csd take none. With the cliques' 16 bytes per
 * pd (12 when no clique has two members), each stored measure costs at most 4 bytes per pd: a 10^7-csd tree
 * profile (4 distinct measures, three contexts in four leaves) takes about
 * 20 bytes per csd; one with a procedure per csd 4 more per ps and css. A
 * caller short of memory may store fewer measures (dpa_deep_init_measures):
 * csd, pd and clique own costs stay available for all, totals and ps/css
 * costs only for those stored.
 */
/*
 * 64-bit values kept in 32 bits: lo[i] is the value, or (top bit set) the
 * index of the value in big[]. Per clique (totals) and per ps and css (sums).
 */
struct dpa_deep_wide {
	uint32_t *lo;           /* [n+1] */
	uint64_t *big;
	uint32_t n_big, cap_big;
};

struct dpa_deep {
	struct dpa_profile *p;  /* not owned: must outlive *d, unchanged */
	struct dpa_cliques cl;
	unsigned measures;      /* bit (1u << m) set: totals of measure m are stored */
	/* m's index in the arrays below; -1: not stored; DPA_SLOT_ZERO: 0 on
	 * every csd, so all its costs are 0. Measures equal on every csd share
	 * a slot; rep[s] is the first measure using slot s. */
	int8_t slot[DPA_NMEASURES];
	uint8_t rep[DPA_NMEASURES];
	uint8_t n_slots;
	/* private: slot s's values are slot_v[s], slot_width[s] bytes each
	 * (1, 2, 4, 8), when one stored column holds them (0: derived) */
	uint8_t slot_width[DPA_NMEASURES];
	const void *slot_v[DPA_NMEASURES];
	/* private: measures that share a slot or have none, checked on every
	 * csd during the search since slots are first guessed from a sample */
	uint8_t check[DPA_NMEASURES], n_check;
	bool slots_wrong;
	struct dpa_deep_wide *tier;     /* [n_slots]: the stored clique totals */
	/* private: which cliques have a stored total (bit k: completion index
	 * k = n - id; a leaf's is derived), and where (startup.c, tier_get) */
	uint64_t *stored;
	uint32_t *stored_rank;
	uint64_t *link;         /* private: bit k: clique k is a chain's link, not stored */
	uint32_t n_stored;
	/* per multi-entry clique i (cl.multi[i]): total calls of its entries
	 * (0: equal shares), and per slot the rest to share and the primary's share */
	uint64_t *multi_w;      /* [n_multi] */
	uint32_t cap_multi;
	bool walking;           /* private: set while the cliques are being found */
	/* private, during the search: the clique completed last (UINT32_MAX:
	 * none yet), its total by slot, and how many links of a chain
	 * without stored totals it heads (0: stored, or a leaf) */
	uint32_t last_k, last_len;
	uint64_t last_acc[DPA_NMEASURES];
	bool tree_walk;         /* private, for tests: ps/css totals took the general walk */
	bool general_walk;      /* private: DPA_DEEP_GENERAL_WALK was asked for */
	uint64_t *multi_rest;   /* [n_multi * n_slots] */
	uint64_t *multi_prim;   /* [n_multi * n_slots] */
	/* private: ps_ref[ps] (css_ref[css]) is 0 for a ps (css) with no pd
	 * (csd), its only pd (csd), or REF_MULTI | i when it has several: only
	 * those have sums below, at index i (1 .. n_ps_multi, n_css_multi) */
	uint32_t *ps_ref, *css_ref;
	/* private: ps_ref (css_ref) NULL: every pd's id is its ps's plus
	 * ps_off (every csd's its css's plus css_off), nothing stored */
	int64_t ps_off, css_off;
	uint32_t n_ps_multi, n_css_multi;
	uint32_t *ps_npd;       /* private: [n_ps_multi + 1], pds per such ps */
	uint64_t *sum[4];       /* private: the walk's 64-bit sums, when few */
	/* private: the walk's counts of primary entries on the current chain
	 * by caller ps and css index ([n_ps_multi + 1], [n_css_multi + 1]),
	 * while ps and css totals are being summed */
	uint32_t *active_ps, *active_css;
	/* private: the ps and css sums are being made by the clique search
	 * itself (every clique so far had one member and one entry at most,
	 * through which the search entered it); false once that fails */
	bool fold;
	struct dpa_deep_wide *ps_own, *ps_total;        /* [n_slots], by ps_ref index */
	struct dpa_deep_wide *css_own, *css_total;      /* [n_slots], by css_ref index */
	size_t bytes;           /* memory *d holds, cliques included */
};

#define DPA_ALL_MEASURES ((1u << DPA_NMEASURES) - 1)
#define DPA_SLOT_ZERO (-2)

/*
 * Find the cliques of *p and compute every total, for all measures. *p is
 * borrowed: it must outlive *d and not change. Returns 0, or -1 with *err set
 * (out of memory, a cost that overflows 64 bits); on failure *d holds nothing
 * to release. Linear time; no recursion.
 */
int dpa_deep_init(struct dpa_deep *d, struct dpa_profile *p, struct dpa_error *err);

/* The same, storing totals only for the measures in `mask` (bits 1u << m).
 * DPA_DEEP_GENERAL_WALK in mask (for tests) computes the ps and css totals
 * by the general walk even where the fast one applies, and stores what is
 * otherwise derived on demand (every clique total, the costs of every ps
 * and css), so that tests can compare the two. */
#define DPA_DEEP_GENERAL_WALK 0x80000000u
int dpa_deep_init_measures(struct dpa_deep *d, struct dpa_profile *p, unsigned mask,
			   struct dpa_error *err);

/* Free what *d owns (not the profile); *d is then zeroed. Zeroed: no-op. */
void dpa_deep_release(struct dpa_deep *d);

static inline bool dpa_deep_stored(const struct dpa_deep *d, enum dpa_measure m)
{
	return d->slot[m] != -1;
}

/*
 * Accessors. Ids must be in range. Totals and descs of a measure that is not
 * stored are 0, and so are its ps and css own costs. Costs: csd, clique
 * total O(1) (a leaf's: O(its in csds), at most 16); pd O(degree); clique
 * own O(its members' in degrees).
 */
uint64_t dpa_deep_csd_total(const struct dpa_deep *d, uint32_t csd, enum dpa_measure m);
uint64_t dpa_deep_csd_desc(const struct dpa_deep *d, uint32_t csd, enum dpa_measure m);

uint64_t dpa_deep_pd_own(const struct dpa_deep *d, uint32_t pd, enum dpa_measure m);
uint64_t dpa_deep_pd_desc(const struct dpa_deep *d, uint32_t pd, enum dpa_measure m);
uint64_t dpa_deep_pd_total(const struct dpa_deep *d, uint32_t pd, enum dpa_measure m);

uint64_t dpa_deep_clique_own(const struct dpa_deep *d, uint32_t c, enum dpa_measure m);
uint64_t dpa_deep_clique_total(const struct dpa_deep *d, uint32_t c, enum dpa_measure m);

uint64_t dpa_deep_thread_total(const struct dpa_deep *d, uint32_t thread, enum dpa_measure m);

/* ps and css costs: O(1) for a ps with several pds (a css with several
 * csds); otherwise its one pd's (csd's) costs, O(that pd's degree). */
uint64_t dpa_deep_ps_own(const struct dpa_deep *d, uint32_t ps, enum dpa_measure m);
uint64_t dpa_deep_ps_total(const struct dpa_deep *d, uint32_t ps, enum dpa_measure m);
uint64_t dpa_deep_css_own(const struct dpa_deep *d, uint32_t css, enum dpa_measure m);

/* The number of pds (calling contexts) of ps. O(1). */
uint32_t dpa_deep_ps_npd(const struct dpa_deep *d, uint32_t ps);

/* dpa_deep_ps_npd(d, ps), with *v = dpa_deep_ps_own(d, ps, m) (total:
 * dpa_deep_ps_total) from the same look-up of ps: for a report that ranks
 * millions of procedures by one measure. */
uint32_t dpa_deep_ps_rank(const struct dpa_deep *d, uint32_t ps, enum dpa_measure m, bool total,
			  uint64_t *v);

/* own[m] = dpa_deep_ps_own(d, ps, m) and total[m] = dpa_deep_ps_total(d,
 * ps, m) for every measure, in one pass (a report over millions of
 * procedures). */
void dpa_deep_ps_costs(const struct dpa_deep *d, uint32_t ps, uint64_t own[DPA_NMEASURES],
		       uint64_t total[DPA_NMEASURES]);
uint64_t dpa_deep_css_total(const struct dpa_deep *d, uint32_t css, enum dpa_measure m);

#endif
