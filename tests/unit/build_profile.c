/*
 * build_profile.c — hand-made profiles for unit tests (build_profile.h).
 * Part of deepprof's tests. MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "build_profile.h"

void dpt_build_profile(struct dpa_profile *p, uint32_t n_pd, const uint32_t *pd_ps,
		       const char *const *names, uint32_t n_ps, uint32_t n_thread,
		       const uint32_t *roots, const struct dpt_arc *arcs, uint32_t n_arcs,
		       uint64_t ticks_outside, uint64_t allocs_outside)
{
	uint32_t *cur = calloc(n_pd + 2, sizeof(*cur));

	CU_ASSERT_FATAL(cur != NULL);
	memset(p, 0, sizeof(*p));
	p->path = "test.data";
	p->hdr.program = "/bin/test";
	p->hdr.clock = "calls";
	p->n_ps = n_ps;
	p->n_pd = n_pd;
	p->n_csd = n_arcs;
	p->n_thread = n_thread;
	for (uint32_t v = 1; v <= n_pd; v++)
		if (pd_ps[v] > p->n_ps)
			p->n_ps = pd_ps[v];
	for (uint32_t i = 0; i < n_arcs; i++)
		if (arcs[i].css > p->n_css)
			p->n_css = arcs[i].css;
	p->ps = calloc(p->n_ps + 1, sizeof(*p->ps));
	p->css = calloc(p->n_css + 1, sizeof(*p->css));
	p->pd = calloc(n_pd + 1, sizeof(*p->pd));
	p->thread = calloc(n_thread + 1, sizeof(*p->thread));
	p->out_csd = calloc(n_arcs + 1, sizeof(uint32_t));
	p->in_csd = calloc(n_arcs + 1, sizeof(uint32_t));
	CU_ASSERT_FATAL(p->ps && p->css && p->pd && p->thread && p->out_csd && p->in_csd);
	CU_ASSERT_FATAL(dpa_csd_reserve(p, n_arcs) == 0);
	if (names)
		for (uint32_t i = 1; i <= p->n_ps; i++)
			p->ps[i].name = names[i - 1];
	for (uint32_t v = 1; v <= n_pd; v++)
		p->pd[v].ps = pd_ps[v];
	for (uint32_t t = 1; t <= n_thread; t++) {
		p->thread[t].tid = 100 + t;
		p->thread[t].root_pd = roots[t - 1];
		p->pd[roots[t - 1]].thread = t;
	}
	for (uint32_t i = 0; i < n_arcs; i++) {
		const struct dpt_arc *a = &arcs[i];
		struct dpa_csd *c = &p->csd[i + 1];

		c->css = a->css;
		c->caller_pd = a->caller;
		c->callee_pd = a->callee;
		dpa_csd_set(p, i + 1, DPA_CALLS, a->calls);
		dpa_csd_set(p, i + 1, DPA_EXITS, a->calls - a->nonlocal);
		dpa_csd_set(p, i + 1, DPA_NONLOCAL, a->nonlocal);
		dpa_csd_set(p, i + 1, DPA_CSCS, a->cscs);
		dpa_csd_set(p, i + 1, DPA_TICKS, a->ticks);
		dpa_csd_set(p, i + 1, DPA_ALLOCS, a->allocs);
		dpa_csd_set(p, i + 1, DPA_BYTES, a->bytes);
		p->css[a->css].caller_ps = pd_ps[a->caller];
		if (!p->pd[a->callee].thread)
			p->pd[a->callee].thread = p->pd[a->caller].thread;
		p->pd[a->caller].out_n++;
		p->pd[a->callee].in_n++;
		p->hdr.calls += a->calls;
		p->hdr.cscs += a->cscs;
		p->hdr.ticks += a->ticks;
		p->hdr.allocs += a->allocs;
		p->hdr.bytes += a->bytes;
	}
	dpa_csd_pack(p);        /* the columns as the reader leaves them */
	p->hdr.ticks += ticks_outside;
	p->hdr.ticks_outside = ticks_outside;
	p->hdr.allocs += allocs_outside;
	p->hdr.allocs_outside = allocs_outside;
	/* out_csd grouped by caller, in_csd by callee, each in arc order */
	for (uint32_t v = 1, o = 0, in = 0; v <= n_pd; v++) {
		p->pd[v].out_first = o;
		p->pd[v].in_first = in;
		o += p->pd[v].out_n;
		in += p->pd[v].in_n;
	}
	for (uint32_t i = 0; i < n_arcs; i++)
		p->out_csd[p->pd[arcs[i].caller].out_first + cur[arcs[i].caller]++] = i + 1;
	memset(cur, 0, (n_pd + 2) * sizeof(*cur));
	for (uint32_t i = 0; i < n_arcs; i++)
		p->in_csd[p->pd[arcs[i].callee].in_first + cur[arcs[i].callee]++] = i + 1;
	free(cur);
}

void dpt_free_profile(struct dpa_profile *p)
{
	free(p->ps);
	free(p->css);
	free(p->pd);
	dpa_csd_release(p);
	free(p->thread);
	free(p->out_csd);
	free(p->in_csd);
	memset(p, 0, sizeof(*p));
}
