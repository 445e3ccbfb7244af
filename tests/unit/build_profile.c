/*
 * build_profile.c — hand-made profiles for unit tests (build_profile.h).
 * Part of deepprof's tests. MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "build_profile.h"
#include "strtab.h"

void dpt_build_profile(struct dpa_profile *p, uint32_t n_pd, const uint32_t *pd_ps,
		       const char *const *names, uint32_t n_ps, uint32_t n_thread,
		       const uint32_t *roots, const struct dpt_arc *arcs, uint32_t n_arcs,
		       uint64_t ticks_outside, uint64_t allocs_outside)
{
	uint32_t *cur = calloc(2 * ((size_t)n_pd + 2), sizeof(*cur));

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
	p->pd = calloc(n_pd + 2, sizeof(*p->pd));     /* + the sentinel */
	p->thread = calloc(n_thread + 1, sizeof(*p->thread));
	p->out_perm = calloc(n_arcs + 1, sizeof(uint32_t));
	p->in_perm = calloc(n_arcs + 1, sizeof(uint32_t));
	p->pd_thread = calloc(n_pd + 1, sizeof(uint32_t));
	CU_ASSERT_FATAL(p->ps && p->css && p->pd && p->thread && p->out_perm && p->in_perm &&
			p->pd_thread);
	CU_ASSERT_FATAL(dpa_csd_reserve(p, n_arcs) == 0);
	if (names)
		for (uint32_t i = 1; i <= p->n_ps; i++)
			CU_ASSERT_FATAL(dpa_src_set(p, DPA_PS_NAME, i, dpa_str_id(p, names[i - 1])) == 0);
	for (uint32_t v = 1; v <= n_pd; v++)
		p->pd[v].ps = pd_ps[v];
	for (uint32_t t = 1; t <= n_thread; t++) {
		p->thread[t].tid = 100 + t;
		p->thread[t].root_pd = roots[t - 1];
		p->pd_thread[roots[t - 1]] = t;
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
		if (!p->pd_thread[a->callee])
			p->pd_thread[a->callee] = p->pd_thread[a->caller];
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
	/* out_perm grouped by caller, in_perm by callee, each in arc order */
	for (uint32_t i = 0; i < n_arcs; i++) {
		cur[arcs[i].caller]++;
		cur[n_pd + 2 + arcs[i].callee]++;
	}
	for (uint32_t v = 1, o = 0, in = 0; v <= n_pd + 1; v++) {
		p->pd[v].out_first = o;
		p->pd[v].in_first = in;
		o += v <= n_pd ? cur[v] : 0;
		in += v <= n_pd ? cur[n_pd + 2 + v] : 0;
	}
	memset(cur, 0, 2 * (n_pd + 2) * sizeof(*cur));
	for (uint32_t i = 0; i < n_arcs; i++)
		p->out_perm[p->pd[arcs[i].caller].out_first + cur[arcs[i].caller]++] = i + 1;
	memset(cur, 0, (n_pd + 2) * sizeof(*cur));
	for (uint32_t i = 0; i < n_arcs; i++)
		p->in_perm[p->pd[arcs[i].callee].in_first + cur[arcs[i].callee]++] = i + 1;
	free(cur);
	dpa_profile_compact(p); /* as the reader leaves them */
}

void dpt_free_profile(struct dpa_profile *p)
{
	free(p->ps);
	free(p->css);
	free(p->pd);
	dpa_csd_release(p);
	free(p->thread);
	free(p->out_perm);
	free(p->in_perm);
	free(p->pd_thread);
	dpa_src_release(p);
	dpa_strtab_free(p->strings);
	memset(p, 0, sizeof(*p));
}

void dpt_place_profile(struct dpa_profile *p, struct dpa_module mod[2], uint32_t n_css,
		       const uint32_t *css_caller)
{
	if (n_css > p->n_css) {
		struct dpa_css *c = realloc(p->css, (n_css + 1) * sizeof(*c));

		CU_ASSERT_FATAL(c != NULL);
		memset(c + p->n_css + 1, 0, (n_css - p->n_css) * sizeof(*c));
		p->css = c;
		p->n_css = n_css;
	}
	memset(mod, 0, 2 * sizeof(*mod));
	mod[1].path = "t";
	p->n_module = 1;
	p->module = mod;
	for (uint32_t v = 2; v <= p->n_ps; v++) {
		p->ps[v].module = 1;
		CU_ASSERT_FATAL(dpa_src_set(p, DPA_PS_FILE, v, dpa_str_id(p, "t.c")) == 0);
		CU_ASSERT_FATAL(dpa_src_set(p, DPA_PS_LINE, v, 10 * v) == 0);
	}
	for (uint32_t s = 1; s <= p->n_css; s++) {
		p->css[s].module = 1;
		p->css[s].kind = DPA_CSS_NORMAL;
		CU_ASSERT_FATAL(dpa_src_set(p, DPA_CSS_FILE, s, dpa_str_id(p, "t.c")) == 0);
		CU_ASSERT_FATAL(dpa_src_set(p, DPA_CSS_LINE, s, 100 + s) == 0);
		CU_ASSERT_FATAL(dpa_src_set(p, DPA_CSS_COL, s, 3) == 0);
		if (!p->css[s].caller_ps && css_caller)
			p->css[s].caller_ps = css_caller[s];
	}
}

void dpt_progreps_parse(struct dpa_progreps *s, const struct dpa_profile *p, const char *q,
			const uint32_t *ps_fn, const uint32_t *css_site)
{
	struct dpa_error err = { { 0 } };
	char *text = strdup(q);

	CU_ASSERT_FATAL(text != NULL);
	for (char *c = text; *c; c++)
		if (*c == '\'')
			*c = '"';
	memset(s, 0, sizeof(*s));
	s->p = p;
	s->mod = calloc(p->n_module + 1, sizeof(*s->mod));
	s->ps = calloc(p->n_ps + 1, sizeof(*s->ps));
	s->css = calloc(p->n_css + 1, sizeof(*s->css));
	CU_ASSERT_FATAL(s->mod && s->ps && s->css);
	CU_ASSERT_EQUAL(dpa_progrep_parse(&s->mod[1].pr, "t", text, strlen(text), &err), 0);
	CU_ASSERT_STRING_EQUAL(err.msg, "");
	free(text);
	s->mod[1].state = DPA_PR_LOADED;
	s->n_loaded = 1;
	for (uint32_t v = 1; ps_fn && v <= p->n_ps; v++)
		if (ps_fn[v])
			s->ps[v] = (struct dpa_pr_ps_map){ 1, dpa_progrep_fn(&s->mod[1].pr, 0xab,
									   ps_fn[v] - 1) };
	for (uint32_t c = 1; css_site && c <= p->n_css; c++)
		if (css_site[c])
			s->css[c] = (struct dpa_pr_css_map){ 1, 0xab, css_site[c] - 1,
				dpa_progrep_site(&s->mod[1].pr, 0xab, css_site[c] - 1) };
}

void dpt_fx_setup_sites(struct dpt_fx *x, const char *const *names, const uint32_t *pd_ps,
			uint32_t n_pd, const struct dpt_arc *arcs, uint32_t n_arcs, uint32_t n_css,
			const uint32_t *css_caller, const char *q, const uint32_t *ps_fn,
			const uint32_t *css_site)
{
	static const uint32_t roots[] = { 1 };
	struct dpa_profile *p = &x->p;
	struct dpa_error err = { { 0 } };

	memset(x, 0, sizeof(*x));
	dpt_build_profile(p, n_pd, pd_ps, names, 0, 1, roots, arcs, n_arcs, 0, 0);
	dpt_place_profile(p, x->mod, n_css, css_caller);
	p->hdr.clock = "calls+loops";
	p->hdr.cpu_ns = p->hdr.cscs;
	CU_ASSERT_EQUAL_FATAL(dpa_deep_init(&x->d, p, &err), 0);
	if (q) {
		dpt_progreps_parse(&x->s, p, q, ps_fn, css_site);
		x->has_pr = true;
	}
}

void dpt_fx_setup(struct dpt_fx *x, const char *const *names, const uint32_t *pd_ps,
		  uint32_t n_pd, const struct dpt_arc *arcs, uint32_t n_arcs, const char *q,
		  const uint32_t *ps_fn, const uint32_t *css_site)
{
	dpt_fx_setup_sites(x, names, pd_ps, n_pd, arcs, n_arcs, 0, NULL, q, ps_fn, css_site);
}

void dpt_fx_teardown(struct dpt_fx *x)
{
	if (x->has_pr)
		dpa_progreps_release(&x->s);
	dpa_deep_release(&x->d);
	dpt_free_profile(&x->p);
}

void dpt_deep_build(struct dpt_deep *t, uint32_t n_ps, const char *const *names, uint32_t n_css,
		    const uint32_t *css_caller, uint32_t n_pd, const uint32_t *pd_ps,
		    const struct dpt_arc *arcs, uint32_t n_arcs)
{
	static const uint32_t roots[] = { 1 };
	struct dpa_error err = { { 0 } };

	memset(t, 0, sizeof(*t));
	dpt_build_profile(&t->p, n_pd, pd_ps, names + 1, n_ps, 1, roots, arcs, n_arcs, 0, 0);
	dpt_place_profile(&t->p, t->mod, n_css, css_caller);
	CU_ASSERT_EQUAL_FATAL(dpa_deep_init(&t->d, &t->p, &err), 0);
}

void dpt_deep_free(struct dpt_deep *t)
{
	dpa_deep_release(&t->d);
	dpt_free_profile(&t->p);
}

struct dpf_options dpt_fb_options(void)
{
	struct dpf_options o;

	dpf_options_default(&o);
	o.basis = DPF_CSCS;
	o.max_tasks = 2;
	o.ov.spawn_cost = 100;
	o.ov.spawn_delay = 1000;
	o.ov.barrier_cost = 50;
	o.ov.signal_cost = 10;
	o.ov.wait_cost = 20;
	o.ov.wakeup_delay = 500;
	return o;
}

void dpt_fb_analyse(struct dpf_feedback *fb, struct dpt_fx *x, const struct dpf_options *o)
{
	struct dpa_error err = { { 0 } };

	CU_ASSERT_EQUAL_FATAL(dpf_feedback_analyse(fb, &x->d, x->has_pr ? &x->s : NULL, o, &err), 0);
	CU_ASSERT_STRING_EQUAL(err.msg, "");
	CU_ASSERT_DOUBLE_EQUAL(fb->ns_per_unit, 1, 1e-6);
	CU_ASSERT_EQUAL(fb->basis, DPF_CSCS);
}
