/*
 * recursion_patterns.h — the feedback model's recursion patterns
 * (recursion_patterns.c): each recursive clique's type, cost per level and
 * parallel cut-off. Private to the feedback library. Part of deepprof's
 * feedback library. MIT licence.
 */
#ifndef DPF_RECURSION_PATTERNS_H
#define DPF_RECURSION_PATTERNS_H

#include "feedback.h"
#include "progrep.h"
#include "recursion.h"
#include "startup.h"

/* Fill fb->rec from *d (startup done) and its progreps *pr (may be NULL):
 * one entry per recursive clique, typed (by the progrep where it can say),
 * with its level model and cut-off, ranked by total cost; fb's basis,
 * ns_per_unit and options already set. Returns 0, or -1 with *err set (out
 * of memory). */
int dpf_recursion_patterns(struct dpf_feedback *fb, const struct dpa_deep *d,
			   const struct dpa_progreps *pr, struct dpa_error *err);

/* The divide-and-conquer model's unbalanced split (recursion_patterns.c,
 * "The split"): the share of one entry's work that the busiest thread runs
 * under libgomp with cut-off c on P cores, when the call made inline takes
 * share i of every split (0.5: balanced; fib about 0.618). In
 * [0.5/(P-1).., 1]. */
double dpf_split_share(double i, uint32_t c, uint32_t P);

/*
 * The branching of one-member clique `clique` (a recursive call in a loop,
 * with no level model): the profile folds the levels, but its inside
 * measure (schemas/deep-data.md) gives the mean recursion depth H at the
 * clock ticks (activation-ticks over ticks in the clique: the sampled
 * activations sit mostly at the bottom levels), and a B-ary tree of height
 * H with N = (entry + internal calls) / entry calls activations has
 * (B^(H+1) - 1) / (B - 1) = N. Returns B, or 0 when the profile cannot say
 * (no inside measure, fewer than DPF_SPLIT_MIN activation-ticks or 20
 * ticks, H under 1). *height gets H.
 */
double dpf_loop_branching(const struct dpa_deep *d, uint32_t clique, uint64_t entry_calls,
			  uint64_t internal_calls, double *height);

#endif
