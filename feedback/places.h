/*
 * places.h — the places the feedback model keys by (places.c): a procedure
 * or a call site of a profile as a struct dpf_place. Private to the
 * feedback library. Part of deepprof's feedback library. MIT licence.
 */
#ifndef DPF_PLACES_H
#define DPF_PLACES_H

#include "feedback.h"
#include "profile.h"
#include "progrep.h"

/* The place of procedure ps / call site css of profile *p, strings copied
 * into fb's arena; pr (may be NULL) adds the site id and checksum. Returns
 * 0, or -1 out of memory. */
int dpf_place_ps(struct dpf_feedback *fb, const struct dpa_profile *p,
		 const struct dpa_progreps *pr, uint32_t ps, struct dpf_place *at);
int dpf_place_css(struct dpf_feedback *fb, const struct dpa_profile *p,
		  const struct dpa_progreps *pr, uint32_t css, struct dpf_place *at);

/* The loaded progrep of module `module` (1-based) of pr's profile, or NULL. */
const struct dpa_progrep *dpf_progrep_of(const struct dpa_progreps *pr, uint32_t module);

#endif
