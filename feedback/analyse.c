/*
 * analyse.c — dpf_feedback_analyse(): one profile's feedback, the analyses
 * run in order (hot and cold code, recursion patterns, then candidates and
 * their variable-use timings in the context they share). The top of the
 * library's analyses: no other file of the library calls this one.
 * Part of deepprof's feedback library. MIT licence.
 */
#include <math.h>
#include <string.h>

#include "autopar.h"
#include "context.h"
#include "hotcold.h"
#include "recursion_patterns.h"

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
	if (rc < 0 || dpa_progreps_check(pr, err) < 0)
		goto fail;
	return 0;
oom:
	dpa_fail(err, p, "out of memory analysing for feedback");
fail:
	dpf_feedback_release(fb);
	return -1;
}
