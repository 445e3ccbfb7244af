/*
 * recursion.h — the recursion type of a clique (Mercury's recursion types:
 * not recursive, simple, mutual, divide-and-conquer, other) and what its
 * calls say about its depth and cost per recursion level.
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_RECURSION_H
#define DPA_RECURSION_H

#include "startup.h"

/*
 * The types. From call counts alone (dpa_recursion_of, the report): by the
 * number of recursive call sites, as commented. With a program
 * representation (dpf_recursion_patterns(), feedback/recursion_patterns.c):
 * from the body's paths — two or more recursive calls that can run in one
 * activation make divide-and-conquer, recursive calls in separate arms of a
 * branch single recursion, a recursive call in a loop "other".
 */
enum dpa_rec_type {
	DPA_REC_NONE,           /* not recursive */
	DPA_REC_SIMPLE,         /* one member, one call site back into itself */
	DPA_REC_MUTUAL,         /* two or more members */
	DPA_REC_DIVIDE,         /* one member, two call sites back into itself */
	DPA_REC_OTHER,          /* one member, three or more such call sites */
	DPA_REC_NTYPES
};

/*
 * What a profile can say exactly about a clique's recursion (it stores no
 * depths). Entry calls E: calls into the clique from outside; internal
 * calls I: calls along csds inside it; activations E + I.
 *   calls_per_entry = (E + I) / E
 *   depth: estimated levels per entry: linear recursion (simple, mutual,
 *     other) descends one level per internal call, so depth =
 *     calls_per_entry (exact when each activation makes at most one
 *     recursive call); divide-and-conquer: a balanced binary call tree of
 *     E + I activations per entry, depth = log2(calls_per_entry + 1).
 *   own_per_call = own cost of the clique / (E + I), for the measure asked
 *   per_level = own cost / (E * depth): the cost of one level of one entry
 *     (for linear recursion, the same as own_per_call).
 * Non-recursive cliques have depth 1 and per_level = own / E.
 * With E = 0 (a thread's root clique) the ratios are 0.
 */
struct dpa_recursion {
	uint8_t type;           /* enum dpa_rec_type */
	uint32_t members;       /* pds in the clique */
	uint32_t rec_sites;     /* distinct css of internal csds */
	uint64_t entry_calls, internal_calls;
	double calls_per_entry, depth, own_per_call, per_level;
};

/* Classify clique c and measure its recursion for measure m (the clique's
 * own cost of m). O(members' degree). */
void dpa_recursion_of(const struct dpa_deep *d, uint32_t c, enum dpa_measure m,
		      struct dpa_recursion *out);

const char *dpa_rec_type_name(enum dpa_rec_type t); /* "none", "simple", "mutual", "divide_and_conquer", "other" */

#endif
