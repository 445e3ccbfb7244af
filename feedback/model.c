/*
 * model.c — the feedback model's life cycle: default options, the arena
 * that owns a feedback's arrays and strings, names, release; and
 * dpf_feedback_analyse(), which runs the parts in order.
 * Part of deepprof's feedback library. MIT licence.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"

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
	return s == DPF_SAFE ? "safe" : s == DPF_UNKNOWN_MEMORY ? "unknown_memory" : "?";
}

const char *dpf_verdict_name(enum dpf_verdict v)
{
	static const char *const n[] = { "accepted", "too_cheap", "no_speedup", "dependent",
					 "unsafe" };

	return (unsigned)v < DPF_NVERDICTS ? n[v] : "?";
}

/* ================================================================
 * The analysis
 * ================================================================ */

int dpf_feedback_analyse(struct dpf_feedback *fb, const struct dpa_deep *d,
			 const struct dpa_progreps *pr, const struct dpf_options *o,
			 struct dpa_error *err)
{
	const struct dpa_profile *p = d->p;
	enum dpa_measure m;
	struct dpf_ctx c;
	struct dpf_input *in;
	double u;
	int rc;

	memset(fb, 0, sizeof(*fb));
	fb->version = DPF_FEEDBACK_VERSION;
	fb->opt = *o;
	if (o->basis >= DPF_NBASES)
		return dpa_fail(err, p, "unknown measure basis %d", o->basis);
	if (o->basis >= 0)
		fb->basis = (uint8_t)o->basis;
	else
		fb->basis = p->hdr.clock && !strcmp(p->hdr.clock, "calls+loops") ? DPF_CSCS
										 : DPF_TICKS;
	m = fb->basis == DPF_CSCS ? DPA_CSCS : DPA_TICKS;
	if (!dpa_deep_stored(d, m))
		return dpa_fail(err, p, "the %s totals were not computed", dpa_measure_name(m));
	for (uint32_t t = 1; t <= p->n_thread; t++)
		fb->program_cost += dpa_deep_thread_total(d, t, m);
	if (!fb->program_cost)
		return dpa_fail(err, p, "every %s count is zero: nothing to base estimates on%s",
				fb->basis == DPF_CSCS ? "CSC" : "clock tick",
				fb->basis == DPF_TICKS ? " (the run was too short for the timer)" : "");
	/* ns per basis unit: the uninstrumented program's time as the user
	 * stated it over the program's cost (the instrumented run is slower
	 * by the runtime's work at every call: about 10x for tiny calls);
	 * else the profile's CPU time over its CSCs, or the timer's period;
	 * 1 when the profile has neither */
	if (!(o->program_ns >= 0) || !isfinite(o->program_ns))
		return dpa_fail(err, p, "the program time must be a finite number of ns >= 0");
	if (o->program_ns > 0) {
		u = o->program_ns / (double)fb->program_cost;
		fb->ns_per_unit_source = "program time";
	} else if (fb->basis == DPF_CSCS) {
		u = p->hdr.cpu_ns ? (double)p->hdr.cpu_ns /
			(double)(p->hdr.cscs ? p->hdr.cscs : fb->program_cost) : 0;
		fb->ns_per_unit_source = "instrumented run";
	} else {
		u = p->hdr.ns_per_tick > 0 ? p->hdr.ns_per_tick
			: p->hdr.ticks && p->hdr.cpu_ns ? (double)p->hdr.cpu_ns / (double)p->hdr.ticks : 0;
		fb->ns_per_unit_source = "clock ticks";
	}
	if (!(isfinite(u) && u > 0)) {
		u = 1;
		fb->ns_per_unit_source = "none";
	}
	fb->ns_per_unit = u;

	fb->input = dpf_alloc(fb, sizeof(*fb->input));
	if (!fb->input)
		goto oom;
	fb->n_input = 1;
	in = &fb->input[0];
	in->path = dpf_strdup(fb, p->path);
	in->crc32 = p->file_crc32;
	in->program = fb->program = dpf_strdup(fb, p->hdr.program);
	if ((p->path && !in->path) || (p->hdr.program && !fb->program))
		goto oom;
	in->cscs = p->hdr.cscs;
	in->cpu_ns = p->hdr.cpu_ns;
	in->basis = fb->basis;
	in->has_progrep = pr && pr->n_loaded > 0;

	if (dpf_hotcold(fb, d, pr, err) < 0 || dpf_recursion_patterns(fb, d, pr, err) < 0)
		goto fail;
	if (dpf_ctx_init(&c, fb, d, pr, err) < 0)
		goto fail;
	c.m = m;
	c.call_thr = o->call_threshold / fb->ns_per_unit;
	c.proc_thr = o->proc_threshold / fb->ns_per_unit;
	c.list_thr = o->list_share * (double)fb->program_cost;
	c.ov = o->ov;
	c.ov.spawn_cost /= fb->ns_per_unit;
	c.ov.spawn_delay /= fb->ns_per_unit;
	c.ov.barrier_cost /= fb->ns_per_unit;
	c.ov.signal_cost /= fb->ns_per_unit;
	c.ov.wait_cost /= fb->ns_per_unit;
	c.ov.wakeup_delay /= fb->ns_per_unit;
	rc = dpf_autopar(&c);
	dpf_ctx_release(&c);
	if (rc < 0)
		goto fail;
	return 0;
oom:
	dpa_fail(err, p, "out of memory analysing for feedback");
fail:
	dpf_feedback_release(fb);
	return -1;
}
