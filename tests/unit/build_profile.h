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
#include "progrep.h"
#include "startup.h"
#include "feedback.h"

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

/*
 * Give *p places, as the feedback tests expect them: one module "t" (mod[1],
 * the caller's array of 2), ps v >= 2 at t.c line 10 v, css s at t.c line
 * 100 + s, column 3, kind normal. n_css above p->n_css adds call sites no arc
 * uses, whose caller is css_caller[s] (css_caller may be NULL: 0).
 */
void dpt_place_profile(struct dpa_profile *p, struct dpa_module mod[2], uint32_t n_css,
		       const uint32_t *css_caller);

/*
 * Parse progrep text q (' stands for ") as the progrep of *p's module 1 into
 * *s, and map ps v to the TU 0xab's function ps_fn[v] - 1 and css c to its
 * site css_site[c] - 1 (0 or a NULL array: not mapped). Release *s with
 * dpa_progreps_release().
 */
void dpt_progreps_parse(struct dpa_progreps *s, const struct dpa_profile *p, const char *q,
			const uint32_t *ps_fn, const uint32_t *css_site);

/* A placed one-thread profile and its deep structure. */
struct dpt_deep {
	struct dpa_profile p;
	struct dpa_deep d;
	struct dpa_module mod[2];
};

/*
 * Build *t: n_ps procedures named names[1 ..] (names[0] unused; ps 1 is
 * "<root>"), places as dpt_place_profile() gives them with n_css and
 * css_caller, pds pd_ps[1 .. n_pd] with pd 1 the one thread's root, a csd
 * per arc; then startup. Free with dpt_deep_free().
 */
void dpt_deep_build(struct dpt_deep *t, uint32_t n_ps, const char *const *names, uint32_t n_css,
		    const uint32_t *css_caller, uint32_t n_pd, const uint32_t *pd_ps,
		    const struct dpt_arc *arcs, uint32_t n_arcs);
void dpt_deep_free(struct dpt_deep *t);

/* A placed one-thread profile (pd 1 the root), its deep structure and
 * optionally its progrep. */
struct dpt_fx {
	struct dpa_profile p;
	struct dpa_deep d;
	struct dpa_progreps s;
	struct dpa_module mod[2];
	bool has_pr;
};

/*
 * Build *x: dpt_build_profile() with names[ps - 1], dpt_place_profile() with
 * n_css and css_caller, clock "calls+loops" and 1 ns per CSC (cpu_ns =
 * cscs), startup; then, when q is not NULL, dpt_progreps_parse() into x->s.
 */
void dpt_fx_setup_sites(struct dpt_fx *x, const char *const *names, const uint32_t *pd_ps,
			uint32_t n_pd, const struct dpt_arc *arcs, uint32_t n_arcs, uint32_t n_css,
			const uint32_t *css_caller, const char *q, const uint32_t *ps_fn,
			const uint32_t *css_site);

/* The same with the call sites the arcs use. */
void dpt_fx_setup(struct dpt_fx *x, const char *const *names, const uint32_t *pd_ps,
		  uint32_t n_pd, const struct dpt_arc *arcs, uint32_t n_arcs, const char *q,
		  const uint32_t *ps_fn, const uint32_t *css_site);

/* Free everything dpt_fx_setup() made. */
void dpt_fx_teardown(struct dpt_fx *x);

/* Feedback options for hand-made profiles: defaults but the CSC basis, 2
 * tasks and small distinct overheads (ns = CSCs in struct dpt_fx). */
struct dpf_options dpt_fb_options(void);

/* dpf_feedback_analyse() on *x (with its progrep if it has one), asserting
 * success, ns per unit 1 and the CSC basis. */
void dpt_fb_analyse(struct dpf_feedback *fb, struct dpt_fx *x, const struct dpf_options *o);

#define DPT_NELEM(a) (sizeof(a) / sizeof((a)[0]))

#endif
