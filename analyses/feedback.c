/*
 * feedback.c — the feedback model's life cycle: default options, the arena
 * that owns a feedback's arrays and strings, names, release; and
 * dpa_feedback_analyse(), which runs the parts in order.
 * Part of deepprof's analyses library. MIT licence.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feedback.h"

/* ================================================================
 * Options
 * ================================================================ */

void dpa_fb_options_default(struct dpa_fb_options *o)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(o, 0, sizeof(*o));
	/* OpenMP task overheads of the order measured here (NOTES.md: about
	 * 1.6 us per pair of tasks); `deepprof calibrate` replaces them */
	o->ov.spawn_cost = 400;
	o->ov.spawn_delay = 1200;
	o->ov.barrier_cost = 200;
	o->ov.signal_cost = 100;
	o->ov.wait_cost = 100;
	o->ov.wakeup_delay = 5000;
	strcpy(o->ov.source, "defaults");
	o->basis = -1;
	o->call_threshold = 20e3;
	o->proc_threshold = 50e3;
	o->speedup_threshold = 1.01;
	o->max_tasks = ncpu > 0 ? (unsigned)ncpu : 2;
	o->search_budget = 1000;
	o->hot_threshold = 100e3;
	o->rare_calls = 1;
	o->per_context = false;
}

/* ================================================================
 * The arena
 * ================================================================ */

struct fb_block {
	struct fb_block *next;
	size_t used, cap;
	_Alignas(max_align_t) unsigned char mem[];
};

void *dpa_fb_alloc(struct dpa_feedback *fb, size_t size)
{
	struct fb_block *b = fb->pool;
	size_t need = (size + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1);
	void *m;

	if (!need)
		need = _Alignof(max_align_t);
	if (!b || b->cap - b->used < need) {
		size_t cap = need > 65536 ? need : 65536;
		struct fb_block *nb = malloc(sizeof(*nb) + cap);

		if (!nb)
			return NULL;
		nb->used = 0;
		nb->cap = cap;
		if (b && need > 65536) {
			/* a big block goes behind the current one, which stays
			 * open for small allocations */
			nb->next = b->next;
			b->next = nb;
			nb->used = need;
			memset(nb->mem, 0, need);
			return nb->mem;
		}
		nb->next = b;
		fb->pool = b = nb;
	}
	m = b->mem + b->used;
	b->used += need;
	memset(m, 0, need);
	return m;
}

const char *dpa_fb_strdup(struct dpa_feedback *fb, const char *s)
{
	size_t n;
	char *c;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	c = dpa_fb_alloc(fb, n);
	if (c)
		memcpy(c, s, n);
	return c;
}

void dpa_feedback_release(struct dpa_feedback *fb)
{
	struct fb_block *b = fb->pool;

	while (b) {
		struct fb_block *next = b->next;

		free(b);
		b = next;
	}
	memset(fb, 0, sizeof(*fb));
}

/* ================================================================
 * Names
 * ================================================================ */

const char *dpa_fb_basis_name(enum dpa_fb_basis b)
{
	return b == DPA_FB_CSCS ? "cscs" : b == DPA_FB_TICKS ? "ticks" : "?";
}

const char *dpa_fb_temp_name(enum dpa_fb_temp t)
{
	static const char *const n[] = { "hot", "rare", "never" };

	return (unsigned)t < 3 ? n[t] : "?";
}

const char *dpa_fb_hot_kind_name(enum dpa_fb_hot_kind k)
{
	return k == DPA_FB_PROC ? "proc" : k == DPA_FB_SITE ? "site" : "?";
}

const char *dpa_fb_use_name(enum dpa_fb_use u)
{
	return u == DPA_FB_PRODUCED ? "produced" : u == DPA_FB_CONSUMED ? "consumed" : "?";
}

const char *dpa_fb_safety_name(enum dpa_fb_safety s)
{
	return s == DPA_FB_SAFE ? "safe" : s == DPA_FB_UNKNOWN_MEMORY ? "unknown_memory" : "?";
}

const char *dpa_fb_verdict_name(enum dpa_fb_verdict v)
{
	static const char *const n[] = { "accepted", "too_cheap", "no_speedup", "dependent",
					 "unsafe" };

	return (unsigned)v < DPA_FB_NVERDICTS ? n[v] : "?";
}
