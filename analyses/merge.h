/*
 * merge.h — combine profiles of runs of the same program into one, context
 * by context, and give each profile a canonical text form for comparisons.
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_MERGE_H
#define DPA_MERGE_H

#include "profile.h"

/*
 * How contexts are matched (the contract tests and `deepprof diff` rely on):
 *
 *  - A procedure (ps) is identified by its name (and file, when known) if the
 *    file names it, else by (module path, offset); synthetic procedures by
 *    name. A call site (css) by its caller ps, its static callee ps, its kind
 *    and its address: the offset inside the caller function when the caller
 *    is named, else (module path, offset).
 *  - A context (pd) is identified by the path of (call site, callee ps) steps
 *    that leads to it from its thread's root. The roots of matched threads are
 *    the same context, and whenever two contexts are the same, the contexts
 *    they reach through the same (call site, callee ps) are the same too: the
 *    smallest equivalence with these properties (a congruence closure) is
 *    computed, so recursion folded in one input and not in another still
 *    gives one finite, folded graph.
 *  - Threads: thread 1 of each input (the main thread) are matched together;
 *    the others by their start routines (the procedures their root calls)
 *    and, among threads with the same start routines, by position (id order).
 *
 * The output is canonical: ps, css, modules and threads are ordered by their
 * keys, pds by a breadth-first walk from the thread roots with call sites in
 * key order, csds by (caller pd, call site, callee ps). So merge(A, B) and
 * merge(B, A) are the same profile, id for id, and so are merge(A, merge(B,
 * C)) and merge(merge(A, B), C).
 *
 * Header: totals are summed (calls, cscs, cpu_ns, ticks, ticks_outside,
 * allocs, bytes, *_outside, wall_ns, lost); start_ns is the earliest;
 * final is true only if every input was final; timer_hz and mem_bytes are
 * the largest; argv is the (element-wise) least of the inputs' argvs;
 * pid, ppid and fork_of are 0 when more than one profile was merged;
 * ns_per_tick is recomputed as cpu_ns / ticks (1e9 / timer_hz without
 * ticks, 0 with the timer off). A single input keeps its own values.
 * Threads: tid is the least, the costs are summed, exited only if all were.
 * Modules, by path: base is the least, size the largest, build id kept only
 * if every input had the same one.
 */

struct dpa_merge_options {
	/* Merge profiles of different programs (program path or main module
	 * build id differ). Contexts then match only where procedure names are
	 * in the files (plugin builds) or addresses happen to agree. Profiles
	 * with different clocks are refused even then. */
	bool force;
};

/*
 * A merge result: the merged profile, and where each input's records went
 * (`deepprof diff` uses the maps to compare two sides of one graph).
 * Maps are indexed [input][input id] and give the output id (0 for id 0).
 */
struct dpa_merged {
	struct dpa_profile prof;    /* out_perm/in_perm and the pds' threads are filled */
	uint32_t n_in;
	uint32_t **ps_map;
	uint32_t **pd_map;
	uint32_t **csd_map;
	uint32_t **thread_map;
	/* For each output pd: the pd it was first reached from in the canonical
	 * breadth-first walk and the csd that reaches it (0 for thread roots),
	 * so a context's shortest path from its root can be printed. */
	uint32_t *bfs_parent_csd;
};

/*
 * Merge in[0 .. n-1] (n >= 1) into *out (uninitialised by the caller). The
 * inputs are only read, and may be released after the call. Returns 0, or
 * -1 with one line in *err: different programs naming both files (unless
 * opt->force), different clocks, inconsistent input graphs. On failure *out
 * holds nothing to release. `opt` may be NULL.
 */
int dpa_merge(struct dpa_merged *out, const struct dpa_profile *const *in, uint32_t n,
	      const struct dpa_merge_options *opt, struct dpa_error *err);

/* Free everything *m owns (including m->prof; do not call
 * dpa_profile_release on it); *m is then zeroed. NULL or zeroed: nothing. */
void dpa_merged_release(struct dpa_merged *m);

/*
 * A canonical text form of *p: the profile is first normalised by merging it
 * alone (so ids no longer matter), then every header field, module, ps, css,
 * pd, csd and thread is printed one per line with its key. Two profiles
 * describe the same contexts and counts iff their canonical texts are equal.
 * Returns a malloc'd string the caller frees, or NULL with *err set.
 */
char *dpa_profile_canon(const struct dpa_profile *p, struct dpa_error *err);

/* Same, of an already merged profile (no renormalisation). */
char *dpa_merged_canon(const struct dpa_merged *m, struct dpa_error *err);

/* A display name for ps `ps` of `p`: its name, else "0x<offset> in <module
 * file name>", else "<ps N>". Writes into buf (size n) and returns buf. */
const char *dpa_merge_ps_label(const struct dpa_profile *p, uint32_t ps, char *buf, size_t n);

#endif
