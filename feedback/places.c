/*
 * places.c — how the feedback model keys what it says so that a compiler
 * finds the place again (struct dpf_place): a procedure's or a call site's
 * function, file, line, column, static call-site id and progrep checksum.
 * Part of deepprof's feedback library. MIT licence.
 */
#include <string.h>

#include "places.h"

const struct dpa_progrep *dpf_progrep_of(const struct dpa_progreps *pr, uint32_t module)
{
	if (!pr || !pr->mod || !pr->p || module == 0 || module > pr->p->n_module ||
	    pr->mod[module].state != DPA_PR_LOADED)
		return NULL;
	return &pr->mod[module].pr;
}

/* Procedure ps's place (feedback.h): the profile's name, file and line;
 * with its progrep record, the checksum, and file and line where the
 * profile has none. */
int dpf_place_ps(struct dpf_feedback *fb, const struct dpa_profile *p,
		 const struct dpa_progreps *pr, uint32_t ps, struct dpf_place *at)
{
	const struct dpa_pr_fn *f = NULL;
	const char *file;

	memset(at, 0, sizeof(*at));
	if (ps == 0 || ps > p->n_ps)
		return 0;
	if (pr && pr->ps && pr->p == p && pr->ps[ps].module)
		f = pr->ps[ps].fn;
	if (!(at->fn = dpf_strdup(fb, dpa_ps_name(p, ps))))
		return -1;
	file = dpa_src_get(p, DPA_PS_FILE, ps) ? dpa_src_str(p, DPA_PS_FILE, ps) : f ? f->file : NULL;
	if (file && !(at->file = dpf_strdup(fb, file)))
		return -1;
	at->line = dpa_src_get(p, DPA_PS_LINE, ps) ? dpa_src_get(p, DPA_PS_LINE, ps) : f ? f->line : 0;
	if (f)
		at->checksum = f->checksum;
	return 0;
}

/* Call site css's place (feedback.h): its caller's name, the site's file,
 * line and column; with a progrep, its "<tu>:<site>" id and the caller's
 * checksum. */
int dpf_place_css(struct dpf_feedback *fb, const struct dpa_profile *p,
		  const struct dpa_progreps *pr, uint32_t css, struct dpf_place *at)
{
	const struct dpa_css *s;
	const char *fn;

	memset(at, 0, sizeof(*at));
	if (css == 0 || css > p->n_css)
		return 0;
	s = &p->css[css];
	fn = s->caller_ps ? dpa_ps_name(p, s->caller_ps) : dpa_src_str(p, DPA_CSS_IN_FN, css);
	if (fn && !(at->fn = dpf_strdup(fb, fn)))
		return -1;
	if (dpa_src_get(p, DPA_CSS_FILE, css) &&
	    !(at->file = dpf_strdup(fb, dpa_src_str(p, DPA_CSS_FILE, css))))
		return -1;
	at->line = dpa_src_get(p, DPA_CSS_LINE, css);
	at->col = dpa_src_get(p, DPA_CSS_COL, css);
	if (!pr || !pr->css || pr->p != p)
		return 0;
	if (pr->css[css].module) {
		const struct dpa_pr_css_map *m = &pr->css[css];
		const struct dpa_progrep *r = dpf_progrep_of(pr, m->module);

		at->has_site = true;
		at->tu_id = m->tu_id;
		at->site = m->site;
		if (m->call && r && m->call->fn < r->n_fn)
			at->checksum = r->fn[m->call->fn].checksum;
		if (m->call && !at->line) {
			at->line = m->call->line;
			at->col = m->call->col;
		}
	}
	if (!at->checksum && s->caller_ps && pr->ps && pr->ps[s->caller_ps].fn)
		at->checksum = pr->ps[s->caller_ps].fn->checksum;
	return 0;
}
