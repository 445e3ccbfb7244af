/*
 * hotcold.h — hot and cold code (hotcold.c), the first analysis analyse.c
 * runs. Private to the feedback library. Part of deepprof's feedback
 * library. MIT licence.
 */
#ifndef DPF_HOTCOLD_H
#define DPF_HOTCOLD_H

#include "feedback.h"
#include "progrep.h"
#include "startup.h"

/* Fill fb->hot from *d (startup done) and its progreps *pr (may be NULL);
 * fb's basis, ns_per_unit and options already set. Returns 0, or -1 with
 * *err set (out of memory). */
int dpf_hotcold(struct dpf_feedback *fb, const struct dpa_deep *d,
		const struct dpa_progreps *pr, struct dpa_error *err);

#endif
