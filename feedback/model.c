/*
 * model.c — the feedback model's life cycle: default options, the arena
 * that owns a feedback's arrays and strings, names, finding a candidate,
 * release. The bottom of the library: it calls no other file of it.
 * Part of deepprof's feedback library. MIT licence.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feedback.h"

/* ================================================================
 * Options
 * ================================================================ */

void dpf_options_default(struct dpf_options *o)
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
	o->list_share = 0.01;
}

/* ================================================================
 * The arena
 * ================================================================ */

struct fb_block {
	struct fb_block *next;
	size_t used, cap;
	_Alignas(max_align_t) unsigned char mem[];
};

void *dpf_alloc(struct dpf_feedback *fb, size_t size)
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

const char *dpf_strdup(struct dpf_feedback *fb, const char *s)
{
	size_t n;
	char *c;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	c = dpf_alloc(fb, n);
	if (c)
		memcpy(c, s, n);
	return c;
}

void dpf_feedback_release(struct dpf_feedback *fb)
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

const char *dpf_basis_name(enum dpf_basis b)
{
	return b == DPF_CSCS ? "cscs" : b == DPF_TICKS ? "ticks" : "?";
}

const char *dpf_temp_name(enum dpf_temp t)
{
	static const char *const n[] = { "hot", "rare", "never" };

	return (unsigned)t < 3 ? n[t] : "?";
}

const char *dpf_hot_kind_name(enum dpf_hot_kind k)
{
	return k == DPF_PROC ? "proc" : k == DPF_SITE ? "site" : "?";
}

const char *dpf_use_name(enum dpf_use u)
{
	return u == DPF_PRODUCED ? "produced" : u == DPF_CONSUMED ? "consumed" : "?";
}

const char *dpf_safety_name(enum dpf_safety s)
{
	return s == DPF_SAFE ? "safe" : s == DPF_UNKNOWN_MEMORY ? "unknown_memory" :
	       s == DPF_CHECKED ? "checked" : s == DPF_CONFLICT ? "conflict" : "?";
}

const char *dpf_verdict_name(enum dpf_verdict v)
{
	static const char *const n[] = { "accepted", "too_cheap", "no_speedup", "dependent",
					 "unsafe" };

	return (unsigned)v < DPF_NVERDICTS ? n[v] : "?";
}

/* ================================================================
 * Looking up
 * ================================================================ */

const struct dpf_candidate *dpf_feedback_candidate(const struct dpf_feedback *fb, uint32_t id)
{
	for (uint32_t i = 0; i < fb->n_cand; i++)
		if (fb->cand[i].id == id)
			return &fb->cand[i];
	return NULL;
}
