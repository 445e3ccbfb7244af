/*
 * diff.c — OLD vs NEW per procedure and per context: both profiles are
 * merged (so contexts match exactly as in `deepprof merge`), each side's
 * own costs are summed onto the merged graph through the merge's maps, and
 * startup's inherited costs are added per procedure.
 * Part of deepprof's analyses library. MIT licence.
 */
#include "diff.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "startup.h"
#include "utf8.h"

/* Which csd measure feeds each diff measure (time is derived from ticks). */
static const enum dpa_measure src_measure[DPA_DIFF_NMEASURES] = {
	DPA_CALLS, DPA_CSCS, DPA_TICKS, DPA_TICKS, DPA_ALLOCS, DPA_BYTES
};
static const char *const measure_names[DPA_DIFF_NMEASURES] = {
	"calls", "cscs", "ticks", "time_ns", "allocs", "bytes"
};
static const char *const status_names[] = { "same", "changed", "new", "gone" };

/* --- private prototypes --- */
static int derr(struct dpa_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fill_time(uint64_t *v, double ns_per_tick);
static int add_inherited(struct dpa_diff *d, struct dpa_profile *p, int side,
			 struct dpa_error *err);

static int derr(struct dpa_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

const char *dpa_diff_measure_name(enum dpa_diff_measure m)
{
	return (unsigned)m < DPA_DIFF_NMEASURES ? measure_names[m] : "?";
}

int dpa_diff_measure_parse(const char *name)
{
	int m;

	if (!name)
		return -1;
	if (!strcmp(name, "time"))
		return DPA_DIFF_TIME;
	for (m = 0; m < DPA_DIFF_NMEASURES; m++)
		if (!strcmp(name, measure_names[m]))
			return m;
	return -1;
}

const char *dpa_diff_status_name(enum dpa_diff_status s)
{
	return (unsigned)s < 4 ? status_names[s] : "?";
}

int64_t dpa_diff_delta(uint64_t old, uint64_t new_)
{
	if (new_ >= old)
		return new_ - old > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(new_ - old);
	return old - new_ > (uint64_t)INT64_MAX ? -INT64_MAX : -(int64_t)(old - new_);
}

double dpa_diff_relative(uint64_t old, uint64_t new_)
{
	if (old == 0)
		return NAN;
	return ((double)new_ - (double)old) / (double)old;
}

/* v[DPA_DIFF_TIME] from v[DPA_DIFF_TICKS]. */
static void fill_time(uint64_t *v, double ns_per_tick)
{
	double t = (double)v[DPA_DIFF_TICKS] * ns_per_tick;

	v[DPA_DIFF_TIME] = t >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)t;
}

static void set_status(struct dpa_diff_row *r, bool in_old, bool in_new)
{
	if (!in_old)
		r->status = DPA_DIFF_NEW;
	else if (!in_new)
		r->status = DPA_DIFF_GONE;
	else
		r->status = memcmp(r->old, r->new_, sizeof(r->old)) ? DPA_DIFF_CHANGED : DPA_DIFF_SAME;
}

/* Inherited costs of side `side`'s procedures, summed onto the merged ps. */
static int add_inherited(struct dpa_diff *d, struct dpa_profile *p, int side,
			 struct dpa_error *err)
{
	struct dpa_deep deep;
	uint32_t k, r;
	int m;

	if (dpa_deep_init(&deep, p, err) < 0)
		return -1;
	/* Called before sorting: procs[r] is ps r + 2 of the merged profile. */
	for (k = 2; k <= p->n_ps; k++) {
		uint32_t out = d->m.ps_map[side][k];
		struct dpa_diff_row *row;

		if (out < 2 || (r = out - 2) >= d->n_procs || d->procs[r].id != out)
			continue;
		row = &d->procs[r];
		for (m = 0; m < DPA_DIFF_NMEASURES; m++) {
			uint64_t v = dpa_deep_ps_total(&deep, k, src_measure[m]);
			if (side == 0)
				row->old_total[m] += v;
			else
				row->new_total[m] += v;
		}
	}
	dpa_deep_release(&deep);
	return 0;
}

int dpa_diff_init(struct dpa_diff *d, struct dpa_profile *old, struct dpa_profile *new_,
		  bool force, struct dpa_error *err)
{
	const struct dpa_profile *in[2] = { old, new_ };
	struct dpa_merge_options opt = { .force = force };
	const struct dpa_profile *o;
	uint64_t (*csd_v)[2][DPA_DIFF_NMEASURES] = NULL;
	bool *ps_in[2] = { NULL, NULL }, *pd_in[2] = { NULL, NULL };
	uint32_t *ps_row = NULL, k, r;
	int side, m, ret = -1;

	memset(d, 0, sizeof(*d));
	if (dpa_merge(&d->m, in, 2, &opt, err) < 0)
		return -1;
	o = &d->m.prof;
	d->old_path = strdup(old->path ? old->path : "OLD");
	d->new_path = strdup(new_->path ? new_->path : "NEW");
	d->ns_per_tick[0] = old->hdr.ns_per_tick;
	d->ns_per_tick[1] = new_->hdr.ns_per_tick;
	d->program[0] = strdup(old->hdr.program ? old->hdr.program : "");
	d->program[1] = strdup(new_->hdr.program ? new_->hdr.program : "");
	if (!d->program[0] || !d->program[1] || !d->old_path || !d->new_path) {
		derr(err, "%s: out of memory", old->path ? old->path : "?");
		goto out;
	}

	csd_v = calloc((size_t)o->n_csd + 1, sizeof(*csd_v));
	ps_row = calloc((size_t)o->n_ps + 1, sizeof(*ps_row));
	for (side = 0; side < 2; side++) {
		ps_in[side] = calloc((size_t)o->n_ps + 1, sizeof(bool));
		pd_in[side] = calloc((size_t)o->n_pd + 1, sizeof(bool));
	}
	d->procs = calloc((size_t)o->n_ps + 1, sizeof(*d->procs));
	d->ctx = calloc((size_t)o->n_pd + 1, sizeof(*d->ctx));
	if (!csd_v || !ps_row || !ps_in[0] || !ps_in[1] || !pd_in[0] || !pd_in[1] ||
	    !d->procs || !d->ctx) {
		derr(err, "%s, %s: out of memory", old->path ? old->path : "?",
		     new_->path ? new_->path : "?");
		goto out;
	}
	/* Each side's own costs onto the merged csds; presence of ps and pds. */
	for (side = 0; side < 2; side++) {
		const struct dpa_profile *p = in[side];
		for (k = 1; k <= p->n_csd; k++)
			for (m = 0; m < DPA_DIFF_NMEASURES; m++)
				csd_v[d->m.csd_map[side][k]][side][m] += dpa_own(p, k, src_measure[m]);
		for (k = 1; k <= p->n_pd; k++) {
			pd_in[side][d->m.pd_map[side][k]] = true;
			ps_in[side][d->m.ps_map[side][p->pd[k].ps]] = true;
		}
		for (k = 1; k <= o->n_csd; k++)
			for (m = 0; m < DPA_DIFF_NMEASURES; m++) {
				uint64_t *sum = side ? d->new_sum : d->old_sum;
				sum[m] += csd_v[k][side][m];
			}
		fill_time(side ? d->new_sum : d->old_sum, d->ns_per_tick[side]);
	}
	/* Rows: every procedure but <root>, every context but thread roots. */
	for (k = 2; k <= o->n_ps; k++) {
		d->procs[d->n_procs].id = k;
		ps_row[k] = ++d->n_procs;
	}
	for (k = 1; k <= o->n_pd; k++)
		if (o->pd[k].ps != 1)
			d->ctx[d->n_ctx++].id = k;
	{
		uint32_t *ctx_row = calloc((size_t)o->n_pd + 1, sizeof(uint32_t));
		if (!ctx_row) {
			derr(err, "%s: out of memory", old->path ? old->path : "?");
			goto out;
		}
		for (r = 0; r < d->n_ctx; r++)
			ctx_row[d->ctx[r].id] = r + 1;
		for (k = 1; k <= o->n_csd; k++) {
			uint32_t callee = o->csd[k].callee_pd, ps = o->pd[callee].ps;
			struct dpa_diff_row *cr = ctx_row[callee] ? &d->ctx[ctx_row[callee] - 1] : NULL;
			struct dpa_diff_row *pr = ps_row[ps] ? &d->procs[ps_row[ps] - 1] : NULL;
			for (m = 0; m < DPA_DIFF_NMEASURES; m++) {
				if (cr) {
					cr->old[m] += csd_v[k][0][m];
					cr->new_[m] += csd_v[k][1][m];
				}
				if (pr) {
					pr->old[m] += csd_v[k][0][m];
					pr->new_[m] += csd_v[k][1][m];
				}
			}
		}
		free(ctx_row);
	}
	for (r = 0; r < d->n_procs; r++) {
		struct dpa_diff_row *row = &d->procs[r];
		fill_time(row->old, d->ns_per_tick[0]);
		fill_time(row->new_, d->ns_per_tick[1]);
		set_status(row, ps_in[0][row->id], ps_in[1][row->id]);
	}
	for (r = 0; r < d->n_ctx; r++) {
		struct dpa_diff_row *row = &d->ctx[r];
		fill_time(row->old, d->ns_per_tick[0]);
		fill_time(row->new_, d->ns_per_tick[1]);
		set_status(row, pd_in[0][row->id], pd_in[1][row->id]);
	}
	/* Inherited costs per procedure (analyses/startup.h). */
	if (add_inherited(d, old, 0, err) < 0 || add_inherited(d, new_, 1, err) < 0)
		goto out;
	for (r = 0; r < d->n_procs; r++) {
		fill_time(d->procs[r].old_total, d->ns_per_tick[0]);
		fill_time(d->procs[r].new_total, d->ns_per_tick[1]);
	}
	d->inherited = true;
	ret = 0;
out:
	free(csd_v);
	free(ps_row);
	for (side = 0; side < 2; side++) {
		free(ps_in[side]);
		free(pd_in[side]);
	}
	if (ret < 0)
		dpa_diff_release(d);
	return ret;
}

void dpa_diff_release(struct dpa_diff *d)
{
	if (!d)
		return;
	dpa_merged_release(&d->m);
	free(d->program[0]);
	free(d->program[1]);
	free(d->old_path);
	free(d->new_path);
	free(d->procs);
	free(d->ctx);
	memset(d, 0, sizeof(*d));
}

/* ================================================================
 * Sorting
 * ================================================================ */

static uint64_t absdelta(const struct dpa_diff_row *r, int m)
{
	return r->new_[m] >= r->old[m] ? r->new_[m] - r->old[m] : r->old[m] - r->new_[m];
}

static int cmp_row(const void *a, const void *b, void *arg)
{
	const struct dpa_diff_row *x = a, *y = b;
	int sort_m = *(const enum dpa_diff_measure *)arg;
	uint64_t dx = absdelta(x, sort_m), dy = absdelta(y, sort_m);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (x->new_[sort_m] != y->new_[sort_m])
		return x->new_[sort_m] > y->new_[sort_m] ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

void dpa_diff_sort(struct dpa_diff *d, enum dpa_diff_measure m)
{
	if (d->n_procs)
		qsort_r(d->procs, d->n_procs, sizeof(*d->procs), cmp_row, &m);
	if (d->n_ctx)
		qsort_r(d->ctx, d->n_ctx, sizeof(*d->ctx), cmp_row, &m);
}

/* ================================================================
 * Names and JSON
 * ================================================================ */

char *dpa_diff_context_name(const struct dpa_diff *d, uint32_t pd)
{
	const struct dpa_profile *o = &d->m.prof;
	uint32_t chain[256], n = 0, x = pd, i;
	char *buf = NULL, label[256];
	size_t len = 0;
	FILE *f;
	bool cut = false;

	while (x && o->pd[x].ps != 1) {
		if (n == sizeof(chain) / sizeof(chain[0])) {
			cut = true;
			break;
		}
		chain[n++] = x;
		x = d->m.bfs_parent_csd[x] ? o->csd[d->m.bfs_parent_csd[x]].caller_pd : 0;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	if (dpa_pd_thread(o, pd) > 1)
		fprintf(f, "[thread %u] ", dpa_pd_thread(o, pd));
	if (cut)
		fputs("... > ", f);
	for (i = n; i-- > 0;)
		fprintf(f, "%s%s", dpa_merge_ps_label(o, o->pd[chain[i]].ps, label, sizeof(label)),
			i ? " > " : "");
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static json_t *measures_json(const uint64_t *v)
{
	json_t *o = json_object();
	int m;

	for (m = 0; o && m < DPA_DIFF_NMEASURES; m++)
		json_object_set_new(o, measure_names[m], json_integer((json_int_t)
				    (v[m] > (uint64_t)INT64_MAX ? INT64_MAX : v[m])));
	return o;
}

static void add_compare(json_t *row, const uint64_t *old, const uint64_t *new_, const char *suffix)
{
	json_t *delta = json_object(), *rel = json_object();
	char key[32];
	int m;

	for (m = 0; m < DPA_DIFF_NMEASURES; m++) {
		double r = dpa_diff_relative(old[m], new_[m]);
		json_object_set_new(delta, measure_names[m], json_integer(dpa_diff_delta(old[m], new_[m])));
		json_object_set_new(rel, measure_names[m], isnan(r) ? json_null() : json_real(r));
	}
	snprintf(key, sizeof(key), "old%s", suffix);
	json_object_set_new(row, key, measures_json(old));
	snprintf(key, sizeof(key), "new%s", suffix);
	json_object_set_new(row, key, measures_json(new_));
	snprintf(key, sizeof(key), "delta%s", suffix);
	json_object_set_new(row, key, delta);
	snprintf(key, sizeof(key), "relative%s", suffix);
	json_object_set_new(row, key, rel);
}

static json_t *side_json(const char *program, double ns_per_tick, const char *path,
			 const uint64_t *sum)
{
	json_t *s = json_object();

	json_object_set_new(s, "file", dpa_json_string(path ? path : ""));
	json_object_set_new(s, "program", dpa_json_string(program ? program : ""));
	json_object_set_new(s, "ns_per_tick", json_real(ns_per_tick));
	json_object_set_new(s, "totals", measures_json(sum));
	return s;
}

json_t *dpa_diff_json(const struct dpa_diff *d, enum dpa_diff_measure sort, size_t limit)
{
	const struct dpa_profile *o = &d->m.prof;
	json_t *doc = json_object(), *procs = json_array(), *ctxs = json_array(), *ms = json_array();
	json_t *totals = json_object();
	char label[256];
	uint32_t r;
	int m;

	if (!doc || !procs || !ctxs || !ms || !totals) {
		json_decref(doc);
		json_decref(procs);
		json_decref(ctxs);
		json_decref(ms);
		json_decref(totals);
		return NULL;
	}
	for (m = 0; m < DPA_DIFF_NMEASURES; m++)
		json_array_append_new(ms, json_string(measure_names[m]));
	json_object_set_new(doc, "format", json_string("deepprof-diff"));
	json_object_set_new(doc, "version", json_integer(1));
	json_object_set_new(doc, "old", side_json(d->program[0], d->ns_per_tick[0], d->old_path, d->old_sum));
	json_object_set_new(doc, "new", side_json(d->program[1], d->ns_per_tick[1], d->new_path, d->new_sum));
	add_compare(totals, d->old_sum, d->new_sum, "");
	json_object_set_new(doc, "totals", totals);
	json_object_set_new(doc, "measures", ms);
	json_object_set_new(doc, "sort", json_string(measure_names[sort]));
	json_object_set_new(doc, "limit", json_integer((json_int_t)limit));
	json_object_set_new(doc, "inherited", json_boolean(d->inherited));
	json_object_set_new(doc, "n_procedures", json_integer(d->n_procs));
	json_object_set_new(doc, "n_contexts", json_integer(d->n_ctx));
	for (r = 0; r < d->n_procs && (!limit || r < limit); r++) {
		const struct dpa_diff_row *row = &d->procs[r];
		const struct dpa_ps *s = &o->ps[row->id];
		json_t *j = json_object();
		json_object_set_new(j, "name", dpa_json_string(dpa_merge_ps_label(o, row->id, label, sizeof(label))));
		json_object_set_new(j, "resolved", json_boolean(dpa_src_get(o, DPA_PS_NAME, row->id) != 0));
		json_object_set_new(j, "module", s->module ? dpa_json_string(o->module[s->module].path) : json_null());
		json_object_set_new(j, "offset", json_integer((json_int_t)dpa_ps_offset(o, row->id)));
		json_object_set_new(j, "status", json_string(status_names[row->status]));
		add_compare(j, row->old, row->new_, "");
		if (d->inherited)
			add_compare(j, row->old_total, row->new_total, "_inherited");
		json_array_append_new(procs, j);
	}
	for (r = 0; r < d->n_ctx && (!limit || r < limit); r++) {
		const struct dpa_diff_row *row = &d->ctx[r];
		json_t *j = json_object(), *path = json_array();
		char *name = dpa_diff_context_name(d, row->id);
		uint32_t x = row->id;
		json_object_set_new(j, "name", dpa_json_string(name ? name : "?"));
		free(name);
		/* path from the root, as procedure names */
		while (x && o->pd[x].ps != 1) {
			json_array_insert_new(path, 0, dpa_json_string(dpa_merge_ps_label(o, o->pd[x].ps, label, sizeof(label))));
			x = d->m.bfs_parent_csd[x] ? o->csd[d->m.bfs_parent_csd[x]].caller_pd : 0;
		}
		json_object_set_new(j, "path", path);
		json_object_set_new(j, "thread", json_integer(dpa_pd_thread(o, row->id)));
		json_object_set_new(j, "pd", json_integer(row->id));
		json_object_set_new(j, "status", json_string(status_names[row->status]));
		add_compare(j, row->old, row->new_, "");
		json_array_append_new(ctxs, j);
	}
	json_object_set_new(doc, "procedures", procs);
	json_object_set_new(doc, "contexts", ctxs);
	return doc;
}
