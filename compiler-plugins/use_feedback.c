/*
 * use_feedback.c — the plugin's view of feedback files (use_feedback.h),
 * filled through the feedback library's one reader, dpf_feedback_read_file
 * (feedback/feedback_file.h): C, so that the plugin's C++ never includes
 * the library's headers. Part of deepprof's compiler plugins. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feedback_file.h"
#include "recursion.h"
#include "use_feedback.h"

struct priv {
	struct dpf_feedback fb;
	void *mem[4];
};

static void place(struct dpu_place *o, const struct dpf_place *p)
{
	o->fn = p->fn;
	o->file = p->file;
	o->line = p->line;
	o->col = p->col;
	o->has_site = p->has_site;
	o->tu = p->tu_id;
	o->site = p->site;
	o->checksum = p->checksum;
}

int dpu_read(struct dpu_feedback *out, const char *path, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	struct priv *v = calloc(1, sizeof *v);
	if (!v) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	struct dpa_error e = { { 0 } };
	if (dpf_feedback_read_file(&v->fb, path, &e) < 0) {
		snprintf(err, errlen, "%s", e.msg);
		dpf_feedback_release(&v->fb);
		free(v);
		return -1;
	}
	const struct dpf_feedback *fb = &v->fb;
	out->priv = v;
	out->path = path;
	out->program = fb->program;
	out->n_inputs = fb->n_input;
	out->basis = dpf_basis_name(fb->basis);
	struct dpu_hot *hot = calloc(fb->n_hot + 1, sizeof *hot);
	struct dpu_cand *cand = calloc(fb->n_cand + 1, sizeof *cand);
	struct dpu_rec *rec = calloc(fb->n_rec + 1, sizeof *rec);
	size_t n_calls = 0, n_deps = 0;
	for (uint32_t i = 0; i < fb->n_cand; i++) {
		n_calls += fb->cand[i].n_calls;
		n_deps += fb->cand[i].n_deps;
	}
	struct dpu_call *calls = calloc(n_calls + 1, sizeof *calls);
	struct dpu_dep *deps = calloc(n_deps + 1, sizeof *deps);
	v->mem[0] = hot;
	v->mem[1] = cand;
	v->mem[2] = calls;
	v->mem[3] = deps;
	if (!hot || !cand || !rec || !calls || !deps) {
		free(rec);
		dpu_release(out);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	for (uint32_t i = 0; i < fb->n_hot; i++) {
		const struct dpf_hot *h = &fb->hot[i];
		hot[i].proc = h->kind == DPF_PROC;
		hot[i].temp = h->temp == DPF_HOT ? DPU_HOT : h->temp == DPF_RARE ? DPU_RARE : DPU_NEVER;
		place(&hot[i].at, &h->at);
		hot[i].callee = h->callee;
		hot[i].calls = h->calls;
		hot[i].outer_calls = h->outer_calls;
		hot[i].mean = h->mean;
	}
	out->hot = hot;
	out->n_hot = fb->n_hot;
	for (uint32_t i = 0; i < fb->n_cand; i++) {
		const struct dpf_candidate *c = &fb->cand[i];
		struct dpu_cand *o = &cand[i];
		o->id = c->id;
		place(&o->proc, &c->proc);
		o->calls = calls;
		o->n_calls = c->n_calls;
		for (uint32_t j = 0; j < c->n_calls; j++) {
			place(&calls[j].at, &c->calls[j].at);
			calls[j].callee = c->calls[j].callee;
			calls[j].cost = c->calls[j].cost;
			calls[j].task = c->calls[j].task;
		}
		calls += c->n_calls;
		o->deps = deps;
		o->n_deps = c->n_deps;
		for (uint32_t j = 0; j < c->n_deps; j++) {
			deps[j].from = c->deps[j].from;
			deps[j].to = c->deps[j].to;
			deps[j].var = c->deps[j].var;
			deps[j].produced = c->deps[j].produced;
			deps[j].consumed = c->deps[j].consumed;
			deps[j].known = c->deps[j].known;
		}
		deps += c->n_deps;
		o->n_tasks = c->n_tasks;
		o->safe = c->safety == DPF_SAFE;
		o->checked = c->safety == DPF_CHECKED;
		o->conflict = c->safety == DPF_CONFLICT;
		o->check_inputs = c->check_inputs;
		o->n_reach = c->n_reach;
		o->reach = c->reach;     /* in the feedback's arena, which lives as long */
		o->reach_all = c->reach_all;
		o->safety_why = c->safety_why;
		o->accepted = c->verdict == DPF_ACCEPTED;
		o->too_cheap = c->verdict == DPF_TOO_CHEAP;
		o->verdict_why = c->verdict_why;
		o->speedup = c->speedup;
		o->program_speedup = c->program_speedup;
		o->loop_line = c->loop_line;
		o->iterations = c->iterations;
		o->loop_cutoff = c->loop_cutoff;
	}
	out->cand = cand;
	out->n_cand = fb->n_cand;
	for (uint32_t i = 0; i < fb->n_rec; i++) {
		const struct dpf_recursion *r = &fb->rec[i];
		place(&rec[i].at, &r->at);
		rec[i].type = dpa_rec_type_name((enum dpa_rec_type)r->type);
		rec[i].cutoff_depth = r->cutoff_depth;
		rec[i].branching = r->branching;
		rec[i].why = r->why;
	}
	out->rec = rec;
	out->n_rec = fb->n_rec;
	return 0;
}

void dpu_release(struct dpu_feedback *fb)
{
	struct priv *v = fb->priv;
	if (v) {
		for (unsigned i = 0; i < 4; i++)
			free(v->mem[i]);
		dpf_feedback_release(&v->fb);
		free(v);
	}
	free(fb->rec);
	memset(fb, 0, sizeof *fb);
}
