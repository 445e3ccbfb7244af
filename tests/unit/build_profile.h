/*
 * build_profile.h — hand-made profiles for unit tests: pds, threads and a csd
 * per arc, laid out as the reader leaves a profile (out/in lists grouped by
 * pd in arc order, packed measure columns, header totals the sums).
 * Part of deepprof's tests. MIT licence.
 */
#ifndef DPT_BUILD_PROFILE_H
#define DPT_BUILD_PROFILE_H

#include <stdint.h>

#include "profile.h"

/* One csd: caller pd -> callee pd through call site css, with its own costs
 * (exits = calls - nonlocal). */
struct dpt_arc {
	uint32_t caller, callee, css;
	uint64_t calls, cscs, ticks, allocs, bytes, nonlocal;
};

/*
 * Fill *p with n_pd pds (pd_ps[v] is pd v's ps; pd_ps[0] unused), one thread
 * per entry of roots[] (tids 101, 102, ...), and a csd per arc (ids in arc
 * order). css ids are the arcs' (each css's caller ps taken from its arc's
 * caller pd). names (may be NULL): names[ps - 1] is ps's name; n_ps 0 means
 * the largest ps in pd_ps. The header's totals are the sums of the arcs,
 * plus ticks_outside and allocs_outside; path "test.data", program
 * "/bin/test", clock "calls". Everything is freed by dpt_free_profile().
 */
void dpt_build_profile(struct dpa_profile *p, uint32_t n_pd, const uint32_t *pd_ps,
		       const char *const *names, uint32_t n_ps, uint32_t n_thread,
		       const uint32_t *roots, const struct dpt_arc *arcs, uint32_t n_arcs,
		       uint64_t ticks_outside, uint64_t allocs_outside);

/* Free what dpt_build_profile() made; *p is then zeroed. */
void dpt_free_profile(struct dpa_profile *p);

#define DPT_NELEM(a) (sizeof(a) / sizeof((a)[0]))

#endif
