/*
 * context.c — the context the feedback analyses of one profile share
 * (struct dpf_ctx): the maps from progrep call sites to the profile's css
 * and from progrep functions to its ps, and the callee of a call record.
 * Part of deepprof's feedback library. MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include "context.h"

/* Set up *c for fb over *d and *pr (may be NULL): the site -> css and
 * fn -> ps maps. Returns 0, or -1 (out of memory) with *err set. */
int dpf_ctx_init(struct dpf_ctx *c, struct dpf_feedback *fb, const struct dpa_deep *d,
		 const struct dpa_progreps *pr, struct dpa_error *err)
{
	const struct dpa_profile *p = d->p;
	size_t slots = 0;

	memset(c, 0, sizeof(*c));
	c->fb = fb;
	c->d = d;
	c->p = p;
	c->err = err;
	c->pr = pr && pr->mod && pr->ps && pr->css && pr->n_loaded ? pr : NULL;
	c->css_csd = calloc((size_t)p->n_css + 1, sizeof(*c->css_csd));
	if (!c->css_csd)
		goto oom;
	for (uint32_t i = 1; i <= p->n_csd; i++) {
		uint32_t s = p->csd[i].css;

		if (s && s <= p->n_css && !c->css_csd[s])
			c->css_csd[s] = i;
	}
	if (!c->pr)
		return 0;
	pr = c->pr;
	c->fn_base = calloc((size_t)p->n_module + 1, sizeof(*c->fn_base));
	c->fn_ps = calloc((size_t)p->n_module + 1, sizeof(*c->fn_ps));
	if (!c->fn_base || !c->fn_ps)
		goto oom;
	for (uint32_t m = 1; m <= p->n_module; m++) {
		const struct dpa_progrep *r = &pr->mod[m].pr;

		if (pr->mod[m].state != DPA_PR_LOADED || !r->n_fn)
			continue;
		c->fn_base[m] = malloc(r->n_fn * sizeof(uint32_t));
		c->fn_ps[m] = calloc(r->n_fn, sizeof(uint32_t));
		if (!c->fn_base[m] || !c->fn_ps[m])
			goto oom;
		for (uint32_t i = 0; i < r->n_fn; i++) {
			c->fn_base[m][i] = (uint32_t)slots;
			slots += r->fn[i].n_sites;
		}
	}
	c->site_css = calloc(slots + 1, sizeof(*c->site_css));
	if (!c->site_css)
		goto oom;
	for (uint32_t i = 1; i <= p->n_ps; i++) {
		const struct dpa_pr_ps_map *mp = &pr->ps[i];

		if (mp->module && mp->module <= p->n_module && mp->fn && c->fn_ps[mp->module]) {
			size_t k = (size_t)(mp->fn - pr->mod[mp->module].pr.fn);

			if (k < pr->mod[mp->module].pr.n_fn && !c->fn_ps[mp->module][k])
				c->fn_ps[mp->module][k] = i;
		}
	}
	for (uint32_t s = 1; s <= p->n_css; s++) {
		const struct dpa_pr_css_map *mp = &pr->css[s];
		const struct dpa_progrep *r;
		const struct dpa_pr_fn *fn;
		size_t local;

		if (!mp->module || mp->module > p->n_module || !mp->call || !c->fn_base[mp->module])
			continue;
		r = &pr->mod[mp->module].pr;
		if (mp->call->fn >= r->n_fn)
			continue;
		fn = &r->fn[mp->call->fn];
		local = (size_t)(mp->call - fn->calls);
		if (local >= fn->n_sites)
			continue;
		if (!c->site_css[c->fn_base[mp->module][mp->call->fn] + local])
			c->site_css[c->fn_base[mp->module][mp->call->fn] + local] = s;
	}
	return 0;
oom:
	dpf_ctx_release(c);
	return dpa_fail(err, p, "out of memory preparing the feedback analyses");
}

/* Free what *c owns (not the feedback). */
void dpf_ctx_release(struct dpf_ctx *c)
{
	if (c->fn_base)
		for (uint32_t m = 0; m <= c->p->n_module; m++) {
			free(c->fn_base[m]);
			free(c->fn_ps[m]);
		}
	free(c->fn_base);
	free(c->fn_ps);
	free(c->site_css);
	free(c->css_csd);
	free(c->vu);
	free(c->vu_css);
	c->fn_base = c->fn_ps = NULL;
	c->site_css = c->css_csd = c->vu_css = NULL;
	c->vu = NULL;
}

/* Index of f's record in its module's progrep. */
static uint32_t fn_index(const struct dpf_ctx *c, const struct dpf_fn *f)
{
	return (uint32_t)(f->fn - c->pr->mod[f->mod].pr.fn);
}

uint32_t dpf_site_css(const struct dpf_ctx *c, const struct dpf_fn *f, uint32_t local)
{
	if (!c->pr || !f->fn || local >= f->fn->n_sites || !c->fn_base[f->mod])
		return 0;
	return c->site_css[c->fn_base[f->mod][fn_index(c, f)] + local];
}

struct dpf_fn dpf_fn_of_ps(const struct dpf_ctx *c, uint32_t ps)
{
	struct dpf_fn f = { 0, NULL, ps };

	if (c->pr && ps && ps <= c->p->n_ps && c->pr->ps[ps].module && c->pr->ps[ps].fn) {
		f.mod = c->pr->ps[ps].module;
		f.fn = c->pr->ps[ps].fn;
	}
	return f;
}

struct dpf_fn dpf_callee(const struct dpf_ctx *c, const struct dpf_fn *f, const struct dpa_pr_call *call)
{
	struct dpf_fn g = { 0, NULL, 0 };
	uint32_t css, ps = 0;

	if (!c->pr || !f->fn)
		return g;
	css = dpf_site_css(c, f, (uint32_t)(call - f->fn->calls));
	if (css) {
		ps = c->p->css[css].callee_ps;
		if (!ps && c->css_csd[css])
			ps = c->p->pd[c->p->csd[c->css_csd[css]].callee_pd].ps;
		if (ps) {
			g = dpf_fn_of_ps(c, ps);
			if (g.fn)
				return g;
		}
	}
	if (call->callee && c->fn_ps[f->mod]) {
		const struct dpa_progrep *r = &c->pr->mod[f->mod].pr;

		for (uint32_t i = 0; i < r->n_fn; i++)
			if (r->fn[i].name && !strcmp(r->fn[i].name, call->callee)) {
				/* a function the profile never ran may be partial
				 * (dpa_progreps_load_used()); a failure to read
				 * it is the analysis' (dpa_progreps_check()) */
				if (dpa_progrep_fn_load(r, &r->fn[i]) < 0)
					break;
				g.mod = f->mod;
				g.fn = &r->fn[i];
				g.ps = c->fn_ps[f->mod][i];
				return g;
			}
	}
	g.ps = ps;
	return g;
}
