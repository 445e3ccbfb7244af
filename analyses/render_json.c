/*
 * render_json.c — print a display as one JSON document
 * (schemas/report.schema.json): raw numbers, no units; every ticks value
 * also as nanoseconds (key + "_ns" = ticks × ns_per_tick).
 * Part of deepprof's analyses library. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "display.h"
#include "utf8.h"

#define REPORT_JSON_VERSION 1

static json_t *cell_json(const struct dpa_cell *x)
{
	switch (x->type) {
	case DPA_CELL_STR: return dpa_json_string(x->v.s);
	case DPA_CELL_UINT: return json_integer((json_int_t)x->v.u);
	case DPA_CELL_REAL: return json_real(x->v.f);
	case DPA_CELL_BOOL: return json_boolean(x->v.b);
	default: return json_null();
	}
}

/* Set key (and key_ns for ticks) of o from cell x. Returns -1 on failure. */
static int put(const struct dpa_display *dp, json_t *o, const struct dpa_column *c,
	       const struct dpa_cell *x)
{
	if (json_object_set_new(o, c->key, cell_json(x)) < 0)
		return -1;
	if (c->unit == DPA_UNIT_TICKS && (x->type == DPA_CELL_UINT || x->type == DPA_CELL_REAL)) {
		double t = x->type == DPA_CELL_UINT ? (double)x->v.u : x->v.f;
		char key[96];

		snprintf(key, sizeof(key), "%s_ns", c->key);
		if (json_object_set_new(o, key, json_real(t * dp->ns_per_tick)) < 0)
			return -1;
	}
	return 0;
}

static json_t *row_json(const struct dpa_display *dp, const struct dpa_table *t, uint32_t r)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	for (int c = 0; c < t->ncol; c++) {
		if (t->col[c].flags & DPA_COL_NOJSON)
			continue;
		if (put(dp, o, &t->col[c], &t->cell[(size_t)r * t->ncol + c]) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static json_t *options_json(const struct dpa_display *dp)
{
	const struct dpa_report_opts *o = dp->o;
	static const char *const m[DPA_NMEASURES] = {
		"calls", "exits", "nonlocal_exits", "cscs", "ticks", "allocs", "bytes" };

	return json_pack("{s:s, s:s, s:b, s:I, s:f, s:o, s:o, s:s}",
			 "sort", m[o->sort], "mode", o->total ? "total" : "self",
			 "per_call", o->per_call, "limit", (json_int_t)o->limit,
			 "threshold", o->threshold,
			 "name", o->name ? dpa_json_string(o->name) : json_null(),
			 "id", o->id ? json_integer(o->id) : json_null(),
			 "by", dpa_report_group_name(o->group));
}

int dpa_render_json(const struct dpa_display *dp, FILE *f)
{
	json_t *doc = json_object(), *counts = json_object();
	int rc = -1;

	if (!doc || !counts)
		goto out;
	if (json_object_set_new(doc, "version", json_integer(REPORT_JSON_VERSION)) < 0 ||
	    json_object_set_new(doc, "report", dpa_json_string(dp->report)) < 0 ||
	    json_object_set_new(doc, "title", dpa_json_string(dp->title)) < 0 ||
	    json_object_set_new(doc, "file", dpa_json_string(dp->file)) < 0 ||
	    json_object_set_new(doc, "program", dpa_json_string(dp->program)) < 0 ||
	    json_object_set_new(doc, "ns_per_tick", json_real(dp->ns_per_tick)) < 0 ||
	    json_object_set_new(doc, "options", options_json(dp)) < 0)
		goto out;
	for (int i = 0; i < dp->ntab; i++) {
		const struct dpa_table *t = &dp->tab[i];
		json_t *v;

		if (t->vertical) {
			v = t->nrows ? row_json(dp, t, 0) : json_object();
		} else {
			v = json_array();
			for (uint32_t r = 0; v && r < t->nrows; r++)
				if (json_array_append_new(v, row_json(dp, t, r)) < 0) {
					json_decref(v);
					v = NULL;
				}
			if (json_object_set_new(counts, t->name,
						json_pack("{s:I, s:I}", "shown", (json_int_t)t->nrows,
							  "total", (json_int_t)(t->total_rows > t->nrows
										? t->total_rows
										: t->nrows))) < 0)
				goto out;
		}
		if (!v || json_object_set_new(doc, t->name, v) < 0)
			goto out;
	}
	if (json_object_set(doc, "rows", counts) < 0)
		goto out;
	if (json_dumpf(doc, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) < 0)
		goto out;
	fputc('\n', f);
	rc = ferror(f) ? -1 : 0;
out:
	json_decref(counts);
	json_decref(doc);
	return rc;
}
