/*
 * render_json.c — print a display as one JSON document
 * (schemas/report.schema.json): raw numbers, no units; every ticks value
 * also as nanoseconds (key + "_ns" = ticks × ns_per_tick).
 * Part of deepprof's analyses library. MIT licence.
 */
#include <stdbool.h>
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

/*
 * The document is written a value at a time, never whole: a report of
 * 10^7 rows built as one jansson tree took 24 GB. The text is what
 * json_dumpf(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER | ...) of the whole
 * tree would print: each value is dumped alone and its lines indented by
 * its depth.
 */
#define DUMP_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))

/* Print v (consumed; NULL: out of memory) as a value `depth` levels down. */
static int put_value(FILE *f, json_t *v, int depth)
{
	char *s = v ? json_dumps(v, DUMP_FLAGS | JSON_ENCODE_ANY) : NULL;

	json_decref(v);
	if (!s)
		return -1;
	for (const char *c = s; *c; c++) {
		fputc_unlocked(*c, f);
		if (*c == '\n')
			for (int i = 0; i < depth; i++)
				fputc_unlocked(' ', f);
	}
	free(s);
	return 0;
}

/* Print the member "key": v of the top-level object (the first one
 * without the comma before it). */
static int put_member(FILE *f, bool *first, const char *key, json_t *v)
{
	fprintf(f, "%s\n \"%s\": ", *first ? "" : ",", key);
	*first = false;
	return put_value(f, v, 1);
}

/* A table of rows as the array member t->name, a row at a time. */
static int put_rows(FILE *f, const struct dpa_display *dp, const struct dpa_table *t, bool *first)
{
	fprintf(f, "%s\n \"%s\": [", *first ? "" : ",", t->name);
	*first = false;
	for (uint32_t r = 0; r < t->nrows; r++) {
		fputs(r ? ",\n  " : "\n  ", f);
		if (put_value(f, row_json(dp, t, r), 2) < 0)
			return -1;
	}
	fputs(t->nrows ? "\n ]" : "]", f);
	return 0;
}

int dpa_render_json(const struct dpa_display *dp, FILE *f)
{
	json_t *counts = json_object();
	bool first = true;
	int rc = -1;

	if (!counts)
		return -1;
	fputc('{', f);
	if (put_member(f, &first, "version", json_integer(REPORT_JSON_VERSION)) < 0 ||
	    put_member(f, &first, "report", dpa_json_string(dp->report)) < 0 ||
	    put_member(f, &first, "title", dpa_json_string(dp->title)) < 0 ||
	    put_member(f, &first, "file", dpa_json_string(dp->file)) < 0 ||
	    put_member(f, &first, "program", dpa_json_string(dp->program)) < 0 ||
	    put_member(f, &first, "ns_per_tick", json_real(dp->ns_per_tick)) < 0 ||
	    (dp->sampled && (put_member(f, &first, "sampled", json_true()) < 0 ||
			     put_member(f, &first, "record_flags", json_integer((json_int_t)dp->record_flags)) < 0)) ||
	    put_member(f, &first, "options", options_json(dp)) < 0)
		goto out;
	for (int i = 0; i < dp->ntab; i++) {
		const struct dpa_table *t = &dp->tab[i];

		if (t->vertical) {
			if (put_member(f, &first, t->name,
				       t->nrows ? row_json(dp, t, 0) : json_object()) < 0)
				goto out;
			continue;
		}
		if (put_rows(f, dp, t, &first) < 0 ||
		    json_object_set_new(counts, t->name,
					json_pack("{s:I, s:I}", "shown", (json_int_t)t->nrows,
						  "total", (json_int_t)(t->total_rows > t->nrows
									? t->total_rows
									: t->nrows))) < 0)
			goto out;
	}
	json_incref(counts);
	if (put_member(f, &first, "rows", counts) < 0)
		goto out;
	fputs("\n}\n", f);
	rc = ferror(f) ? -1 : 0;
out:
	json_decref(counts);
	return rc;
}
