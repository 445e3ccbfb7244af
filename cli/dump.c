/*
 * dump.c — `deepprof dump [--json] FILE`: every node of a profile with
 * resolved names and all measures, as aligned text tables or as the one
 * JSON document of schemas/deep-data.md ("deepprof dump --json").
 * Part of deepprof's command line. MIT licence.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli.h"
#include "profile.h"
#include "utf8.h"

/* Display names of every ps, computed once per dump (rows ask for them
 * millions of times in a big profile): text form and JSON form. */
static const char **ps_text;
static char **ps_json;

static const char *ps_name_text(const struct dpa_profile *p, uint32_t ps)
{
	return ps_text && ps <= p->n_ps ? ps_text[ps] : dpa_ps_name(p, ps);
}

/* ---- text: aligned tables ---- */

#define MAX_COLS 16
#define CELL 256

/* A table is printed in two passes over its rows: widths, then text. A row
 * function fills cells[0..ncol) for row i (1-based ids). */
struct table {
	const char *title;
	int ncol;
	const char *head[MAX_COLS];
	const char *align;      /* per column: 'r' right, 'l' left */
	uint32_t nrows;
	void (*row)(const struct dpa_profile *p, uint32_t i, char cells[][CELL]);
};

static void print_table(const struct dpa_profile *p, const struct table *t)
{
	static char cells[MAX_COLS][CELL];
	int w[MAX_COLS];

	printf("\n%s (%" PRIu32 ")\n", t->title, t->nrows);
	if (!t->nrows)
		return;
	for (int c = 0; c < t->ncol; c++)
		w[c] = strlen(t->head[c]);
	for (uint32_t i = 1; i <= t->nrows; i++) {
		t->row(p, i, cells);
		for (int c = 0; c < t->ncol; c++) {
			int n = strlen(cells[c]);

			if (n > w[c])
				w[c] = n;
		}
	}
	for (uint32_t i = 0; i <= t->nrows; i++) {
		fputs(" ", stdout);
		if (i)
			t->row(p, i, cells);
		for (int c = 0; c < t->ncol; c++) {
			const char *s = i ? cells[c] : t->head[c];
			bool last = c == t->ncol - 1;

			if (t->align[c] == 'r')
				printf(" %*s", w[c], s);
			else if (last)
				printf(" %s", s);
			else
				printf(" %-*s", w[c], s);
		}
		putchar('\n');
	}
}

static void fmt_u(char *cell, uint64_t v)
{
	snprintf(cell, CELL, "%" PRIu64, v);
}

static void fmt_loc(char *cell, const char *file, uint32_t line, uint32_t col)
{
	if (!file)
		snprintf(cell, CELL, "-");
	else if (col)
		snprintf(cell, CELL, "%s:%" PRIu32 ":%" PRIu32, file, line, col);
	else if (line)
		snprintf(cell, CELL, "%s:%" PRIu32, file, line);
	else
		snprintf(cell, CELL, "%s", file);
}

static void module_row(const struct dpa_profile *p, uint32_t i, char c[][CELL])
{
	const struct dpa_module *m = &p->module[i];

	fmt_u(c[0], i);
	snprintf(c[1], CELL, "0x%" PRIx64, m->base);
	snprintf(c[2], CELL, "0x%" PRIx64, m->size);
	snprintf(c[3], CELL, "%.40s", m->build_id ? m->build_id : "-");
	snprintf(c[4], CELL, "%s", m->path);
}

static void ps_row(const struct dpa_profile *p, uint32_t i, char c[][CELL])
{
	const struct dpa_ps *ps = &p->ps[i];

	fmt_u(c[0], i);
	fmt_u(c[1], ps->module);
	snprintf(c[2], CELL, "0x%" PRIx64, dpa_ps_offset(p, i));
	fmt_loc(c[3], dpa_src_str(p, DPA_PS_FILE, i), dpa_src_get(p, DPA_PS_LINE, i), 0);
	snprintf(c[4], CELL, "%s", dpa_ps_name(p, i));
}

static void css_row(const struct dpa_profile *p, uint32_t i, char c[][CELL])
{
	const struct dpa_css *s = &p->css[i];

	fmt_u(c[0], i);
	fmt_u(c[1], s->module);
	snprintf(c[2], CELL, "0x%" PRIx64, dpa_css_offset(p, i));
	snprintf(c[3], CELL, "%s", dpa_css_kind_name(s->kind));
	fmt_loc(c[4], dpa_src_str(p, DPA_CSS_FILE, i), dpa_src_get(p, DPA_CSS_LINE, i),
		dpa_src_get(p, DPA_CSS_COL, i));
	snprintf(c[5], CELL, "%s", dpa_src_get(p, DPA_CSS_IN_FN, i) ? dpa_src_str(p, DPA_CSS_IN_FN, i)
		 : dpa_addr_name(p, s->module, dpa_css_offset(p, i)));
	snprintf(c[6], CELL, "%" PRIu32 " %s", s->caller_ps, ps_name_text(p, s->caller_ps));
	if (s->callee_ps)
		snprintf(c[7], CELL, "%" PRIu32 " %s", s->callee_ps, ps_name_text(p, s->callee_ps));
	else
		snprintf(c[7], CELL, "-");
}

static void pd_row(const struct dpa_profile *p, uint32_t i, char c[][CELL])
{
	const struct dpa_pd *pd = &p->pd[i];

	fmt_u(c[0], i);
	fmt_u(c[1], dpa_pd_thread(p, i));
	fmt_u(c[2], pd->ps);
	fmt_u(c[3], dpa_pd_in_n(pd));
	fmt_u(c[4], dpa_pd_out_n(pd));
	snprintf(c[5], CELL, "%s", ps_name_text(p, pd->ps));
}

static void csd_row(const struct dpa_profile *p, uint32_t i, char c[][CELL])
{
	const struct dpa_csd *d = &p->csd[i];

	fmt_u(c[0], i);
	fmt_u(c[1], d->css);
	snprintf(c[2], CELL, "%" PRIu32 "->%" PRIu32, d->caller_pd, d->callee_pd);
	for (int m = 0; m < DPA_NMEASURES; m++)
		fmt_u(c[3 + m], dpa_own(p, i, m));
	snprintf(c[3 + DPA_NMEASURES], CELL, "%s -> %s",
		 ps_name_text(p, p->pd[d->caller_pd].ps), ps_name_text(p, p->pd[d->callee_pd].ps));
}

static void thread_row(const struct dpa_profile *p, uint32_t i, char c[][CELL])
{
	const struct dpa_thread *t = &p->thread[i];

	fmt_u(c[0], i);
	fmt_u(c[1], t->tid);
	fmt_u(c[2], t->root_pd);
	fmt_u(c[3], t->cpu_ns);
	fmt_u(c[4], t->ticks);
	fmt_u(c[5], t->ticks_outside);
	fmt_u(c[6], t->allocs_outside);
	fmt_u(c[7], t->bytes_outside);
	snprintf(c[8], CELL, "%s", t->exited ? "yes" : "no");
}

/* A check build's findings (deepprof-cc --deepprof-check), one region a
 * paragraph: its calls, how often it ran, each conflict and opaque call. */
static void dump_check_text(const struct dpa_profile *p)
{
	printf("  check        %" PRIu32 " candidate region%s checked (%" PRIu64 " executions lost)\n",
	       p->n_check, p->n_check == 1 ? "" : "s", p->check_lost);
	for (uint32_t i = 0; i < p->n_check; i++) {
		const struct dpa_check_region *g = &p->check[i];

		printf("    %s (%s), %" PRIu64 " execution%s:", g->fn, g->file, g->executions,
		       g->executions == 1 ? "" : "s");
		for (uint32_t k = 0; k < g->n_calls; k++)
			printf(" [%u] %s() %u:%u", k, g->calls[k].callee, g->calls[k].line, g->calls[k].col);
		if (g->loop)
			printf(" in a loop (calls [i] are iterations of a window of %u)", DPA_CHECK_WINDOW);
		printf("\n");
		if (!g->n_conflicts && !g->n_opaque)
			printf("      no conflict\n");
		for (uint32_t k = 0; k < g->n_conflicts; k++) {
			const struct dpa_check_conflict *c = &g->conflicts[k];

			printf("      conflict [%u] [%u] %s in %" PRIu64 " execution%s: %s%s%s and %s%s%s, "
			       "%" PRIu64 " bytes at 0x%" PRIx64 "\n", c->i, c->j, c->kind, c->executions,
			       c->executions == 1 ? "" : "s", c->loc_i, *c->var_i ? " " : "", c->var_i,
			       c->loc_j, *c->var_j ? " " : "", c->var_j, c->size, c->addr);
		}
		for (uint32_t k = 0; k < g->n_opaque; k++)
			printf("      unchecked [%u]: calls %s() at %s in %" PRIu64 " execution%s\n",
			       g->opaque[k].k, g->opaque[k].callee, g->opaque[k].loc, g->opaque[k].executions,
			       g->opaque[k].executions == 1 ? "" : "s");
	}
}

static void print_header(const struct dpa_profile *p)
{
	const struct dpa_header *h = &p->hdr;
	char when[64] = "?";
	time_t secs = h->start_ns / 1000000000u;
	struct tm tm;

	if (gmtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	printf("%s: Deep.data format %" PRIu32 " (readable from %" PRIu32 "), %s profile\n",
	       p->path, h->version, h->min_version, h->final ? "final" : "snapshot");
	printf("  program      %s\n", h->program);
	printf("  argv        ");
	for (uint32_t i = 0; i < h->argc; i++)
		printf(" %s", h->argv[i]);
	printf("\n  pid          %" PRIu64 " (parent %" PRIu64 ")", h->pid, h->ppid);
	if (h->fork_of)
		printf(", forked from %" PRIu64, h->fork_of);
	printf("\n  started      %s, ran %.3f s wall, %.3f s cpu\n", when,
	       h->wall_ns / 1e9, h->cpu_ns / 1e9);
	if (h->sampled) {
		printf("  clock        samples (sampled by deepprof record: calls and call sequence "
		       "counts unknown, times from ticks)\n");
		printf("  sampling     %" PRIu64 " stacks truncated, %" PRIu64 " not unwound\n",
		       h->samples_truncated, h->samples_failed);
		for (uint64_t b = 1; b <= h->record_flags; b <<= 1)
			if (h->record_flags & b)
				printf("  warning      %s: times may be wrong\n", dpa_record_flag_text(b));
	} else {
		printf("  clock        %s (call sequence counts: %" PRIu64 ")\n", h->clock, h->cscs);
	}
	printf("  timer        %" PRIu64 " Hz asked, %" PRIu64 " ticks (%" PRIu64
	       " outside), %.3f ms per tick\n", h->timer_hz, h->ticks, h->ticks_outside,
	       h->ns_per_tick / 1e6);
	printf("  calls        %" PRIu64 "\n", h->calls);
	printf("  allocations  %" PRIu64 " (%" PRIu64 " outside), %" PRIu64 " bytes (%" PRIu64
	       " outside)\n", h->allocs, h->allocs_outside, h->bytes, h->bytes_outside);
	printf("  runtime      %" PRIu64 " bytes of memory, %" PRIu64 " events lost\n",
	       h->mem_bytes, h->lost);
	printf("  nodes        %" PRIu32 " modules, %" PRIu32 " ps, %" PRIu32 " css, %" PRIu32
	       " pd, %" PRIu32 " csd, %" PRIu32 " threads\n", p->n_module, p->n_ps, p->n_css,
	       p->n_pd, p->n_csd, p->n_thread);
	if (p->has_inside)
		printf("  split        %" PRIu64 " ticks looked at the stack; %" PRIu32
		       " recursive csds measured (inside, in dump --json)\n",
		       p->inside_samples, p->n_inside);
	if (p->has_check)
		dump_check_text(p);
}

static void dump_text(const struct dpa_profile *p)
{
	const struct table tables[] = {
		{ "modules", 5, { "id", "base", "size", "build_id", "path" }, "rrrll",
		  p->n_module, module_row },
		{ "ps: procedures", 5, { "id", "module", "offset", "file:line", "name" }, "rrrll",
		  p->n_ps, ps_row },
		{ "css: call sites", 8, { "id", "module", "offset", "kind", "file:line:col", "in",
					   "caller_ps", "callee_ps" }, "rrrlllll",
		  p->n_css, css_row },
		{ "pd: procedures in context", 6, { "id", "thread", "ps", "in", "out", "name" },
		  "rrrrrl", p->n_pd, pd_row },
		{ "csd: call sites in context", 11, { "id", "css", "pd->pd", "calls", "exits",
						       "nonlocal", "cscs", "ticks", "allocs", "bytes",
						       "caller -> callee" },
		  "rrrrrrrrrrl", p->n_csd, csd_row },
		{ "threads", 9, { "id", "tid", "root_pd", "cpu_ns", "ticks", "ticks_outside",
				  "allocs_outside", "bytes_outside", "exited" }, "rrrrrrrrl",
		  p->n_thread, thread_row },
	};

	ps_text = malloc(((size_t)p->n_ps + 1) * sizeof(*ps_text));
	if (ps_text)
		for (uint32_t i = 1; i <= p->n_ps; i++)
			ps_text[i] = dpa_ps_name(p, i);
	print_header(p);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		print_table(p, &tables[i]);
	free(ps_text);
	ps_text = NULL;
}

/* ---- JSON: one document, one array element per line ---- */

static json_t *ju(uint64_t v)
{
	return v <= INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v);
}

static json_t *js(const char *s)
{
	return s ? dpa_json_string(s) : json_null();
}

static void put(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v ? v : json_null());
}

/* Write `v` compactly and free it; ordered keys. */
static void emit(json_t *v)
{
	json_dumpf(v, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	json_decref(v);
}

/* The check findings as JSON (the same fields as the text). */
static json_t *check_json(const struct dpa_profile *p)
{
	json_t *o = json_object(), *rs = json_array();

	put(o, "lost", ju(p->check_lost));
	for (uint32_t i = 0; i < p->n_check; i++) {
		const struct dpa_check_region *g = &p->check[i];
		json_t *r = json_object(), *calls = json_array(), *cs = json_array(), *qs = json_array();

		put(r, "fn", js(g->fn));
		put(r, "file", js(g->file));
		for (uint32_t k = 0; k < g->n_calls; k++) {
			json_t *c = json_object();

			put(c, "callee", js(g->calls[k].callee));
			put(c, "line", ju(g->calls[k].line));
			put(c, "col", ju(g->calls[k].col));
			json_array_append_new(calls, c);
		}
		put(r, "calls", calls);
		if (g->loop)
			put(r, "loop", json_true());
		put(r, "executions", ju(g->executions));
		for (uint32_t k = 0; k < g->n_conflicts; k++) {
			const struct dpa_check_conflict *c = &g->conflicts[k];
			json_t *x = json_object();

			put(x, "i", ju(c->i));
			put(x, "j", ju(c->j));
			put(x, "kind", js(c->kind));
			put(x, "executions", ju(c->executions));
			put(x, "at_i", js(c->loc_i));
			put(x, "var_i", js(c->var_i));
			put(x, "at_j", js(c->loc_j));
			put(x, "var_j", js(c->var_j));
			put(x, "size", ju(c->size));
			json_array_append_new(cs, x);
		}
		put(r, "conflicts", cs);
		for (uint32_t k = 0; k < g->n_opaque; k++) {
			json_t *x = json_object();

			put(x, "call", ju(g->opaque[k].k));
			put(x, "callee", js(g->opaque[k].callee));
			put(x, "at", js(g->opaque[k].loc));
			put(x, "executions", ju(g->opaque[k].executions));
			json_array_append_new(qs, x);
		}
		put(r, "opaque", qs);
		json_array_append_new(rs, r);
	}
	put(o, "regions", rs);
	return o;
}

static json_t *header_json(const struct dpa_profile *p)
{
	const struct dpa_header *h = &p->hdr;
	json_t *o = json_object(), *argv = json_array();

	for (uint32_t i = 0; i < h->argc; i++)
		json_array_append_new(argv, dpa_json_string(h->argv[i]));
	put(o, "magic", json_string("deepprof"));
	put(o, "version", ju(h->version));
	put(o, "min_version", ju(h->min_version));
	put(o, "program", js(h->program));
	put(o, "argv", argv);
	put(o, "pid", ju(h->pid));
	put(o, "ppid", ju(h->ppid));
	put(o, "fork_of", ju(h->fork_of));
	put(o, "final", json_boolean(h->final));
	put(o, "start_ns", ju(h->start_ns));
	put(o, "wall_ns", ju(h->wall_ns));
	put(o, "clock", js(h->clock));
	if (h->sampled) {
		put(o, "record_flags", ju(h->record_flags));
		put(o, "samples_truncated", ju(h->samples_truncated));
		put(o, "samples_failed", ju(h->samples_failed));
	}
	put(o, "timer_hz", ju(h->timer_hz));
	put(o, "cpu_ns", ju(h->cpu_ns));
	put(o, "ticks", ju(h->ticks));
	put(o, "ticks_outside", ju(h->ticks_outside));
	put(o, "ns_per_tick", json_real(h->ns_per_tick));
	put(o, "calls", ju(h->calls));
	put(o, "cscs", ju(h->cscs));
	put(o, "allocs", ju(h->allocs));
	put(o, "bytes", ju(h->bytes));
	put(o, "allocs_outside", ju(h->allocs_outside));
	put(o, "bytes_outside", ju(h->bytes_outside));
	put(o, "mem_bytes", ju(h->mem_bytes));
	put(o, "lost", ju(h->lost));
	if (p->has_inside)
		put(o, "inside_samples", ju(p->inside_samples));
	if (p->has_check)
		put(o, "check", check_json(p));
	return o;
}

static json_t *module_json(const struct dpa_profile *p, uint32_t i)
{
	const struct dpa_module *m = &p->module[i];
	json_t *o = json_object();

	put(o, "id", ju(i));
	put(o, "path", js(m->path));
	put(o, "base", ju(m->base));
	put(o, "size", ju(m->size));
	put(o, "build_id", js(m->build_id));
	return o;
}

static json_t *ps_json_obj(const struct dpa_profile *p, uint32_t i)
{
	const struct dpa_ps *ps = &p->ps[i];
	json_t *o = json_object();

	put(o, "id", ju(i));
	put(o, "name", js(dpa_src_str(p, DPA_PS_NAME, i)));
	put(o, "file", js(dpa_src_str(p, DPA_PS_FILE, i)));
	put(o, "line", ju(dpa_src_get(p, DPA_PS_LINE, i)));
	put(o, "module", ju(ps->module));
	put(o, "offset", ju(dpa_ps_offset(p, i)));
	return o;
}

static json_t *css_json(const struct dpa_profile *p, uint32_t i)
{
	const struct dpa_css *s = &p->css[i];
	json_t *o = json_object();

	put(o, "id", ju(i));
	put(o, "caller_ps", ju(s->caller_ps));
	put(o, "kind", json_string(dpa_css_kind_name(s->kind)));
	put(o, "callee_ps", ju(s->callee_ps));
	put(o, "in", js(dpa_src_str(p, DPA_CSS_IN_FN, i)));
	put(o, "file", js(dpa_src_str(p, DPA_CSS_FILE, i)));
	put(o, "line", ju(dpa_src_get(p, DPA_CSS_LINE, i)));
	put(o, "col", ju(dpa_src_get(p, DPA_CSS_COL, i)));
	put(o, "module", ju(s->module));
	put(o, "offset", ju(dpa_css_offset(p, i)));
	return o;
}

/* pd and csd rows are the bulk of a big profile: printed directly, with
 * names escaped once per ps by jansson. Same keys and order as the others. */
static const char *ps_name_json(const struct dpa_profile *p, uint32_t ps)
{
	return ps_json && ps <= p->n_ps && ps_json[ps] ? ps_json[ps] : "null";
}

static void pd_json_row(const struct dpa_profile *p, uint32_t i)
{
	const struct dpa_pd *pd = &p->pd[i];

	printf("{\"id\":%" PRIu32 ",\"ps\":%" PRIu32 ",\"name\":%s,\"thread\":%" PRIu32 "}",
	       i, pd->ps, ps_name_json(p, pd->ps), dpa_pd_thread(p, i));
}

static void csd_json_row(const struct dpa_profile *p, uint32_t i)
{
	const struct dpa_csd *d = &p->csd[i];

	printf("{\"id\":%" PRIu32 ",\"css\":%" PRIu32 ",\"caller_pd\":%" PRIu32
	       ",\"callee_pd\":%" PRIu32 ",\"caller\":%s,\"callee\":%s", i, d->css,
	       d->caller_pd, d->callee_pd, ps_name_json(p, p->pd[d->caller_pd].ps),
	       ps_name_json(p, p->pd[d->callee_pd].ps));
	for (int m = 0; m < DPA_NMEASURES; m++)
		printf(",\"%s\":%" PRIu64, dpa_measure_name(m), dpa_own(p, i, m));
	if (p->has_inside)
		printf(",\"inside\":%" PRIu64, dpa_csd_inside(p, i));
	putchar('}');
}

static json_t *thread_json(const struct dpa_profile *p, uint32_t i)
{
	const struct dpa_thread *t = &p->thread[i];
	json_t *o = json_object();

	put(o, "id", ju(i));
	put(o, "tid", ju(t->tid));
	put(o, "root_pd", ju(t->root_pd));
	put(o, "cpu_ns", ju(t->cpu_ns));
	put(o, "ticks", ju(t->ticks));
	put(o, "ticks_outside", ju(t->ticks_outside));
	put(o, "allocs_outside", ju(t->allocs_outside));
	put(o, "bytes_outside", ju(t->bytes_outside));
	put(o, "exited", json_boolean(t->exited));
	return o;
}

static void emit_array(const struct dpa_profile *p, const char *key, uint32_t n,
		       json_t *(*elem)(const struct dpa_profile *, uint32_t),
		       void (*row)(const struct dpa_profile *, uint32_t), bool last)
{
	printf("\"%s\":[", key);
	for (uint32_t i = 1; i <= n; i++) {
		fputs(i > 1 ? ",\n" : "\n", stdout);
		if (row)
			row(p, i);
		else
			emit(elem(p, i));
	}
	printf("%s]%s\n", n ? "\n" : "", last ? "" : ",");
}

static void dump_json(const struct dpa_profile *p)
{
	fputs("{\"file\":", stdout);
	emit(dpa_json_string(p->path));
	fputs(",\n\"header\":", stdout);
	emit(header_json(p));
	fputs(",\n", stdout);
	emit_array(p, "modules", p->n_module, module_json, NULL, false);
	emit_array(p, "ps", p->n_ps, ps_json_obj, NULL, false);
	emit_array(p, "css", p->n_css, css_json, NULL, false);
	ps_json = calloc((size_t)p->n_ps + 1, sizeof(*ps_json));
	if (ps_json)
		for (uint32_t i = 1; i <= p->n_ps; i++) {
			json_t *name = dpa_src_get(p, DPA_PS_NAME, i) ? dpa_json_string(dpa_src_str(p, DPA_PS_NAME, i)) : NULL;

			ps_json[i] = name ? json_dumps(name, JSON_ENCODE_ANY) : NULL;
			json_decref(name);
		}
	emit_array(p, "pd", p->n_pd, NULL, pd_json_row, false);
	emit_array(p, "csd", p->n_csd, NULL, csd_json_row, false);
	emit_array(p, "threads", p->n_thread, thread_json, NULL, true);
	fputs("}\n", stdout);
	if (ps_json)
		for (uint32_t i = 1; i <= p->n_ps; i++)
			free(ps_json[i]);
	free(ps_json);
	ps_json = NULL;
}

/* ---- the subcommand ---- */

static void warn_symbols(const struct dpa_profile *p, int missing)
{
	const char *first = NULL;

	for (uint32_t i = 1; i <= p->n_module && !first; i++)
		if (p->module[i].symbols < 0)
			first = p->module[i].path;
	fprintf(stderr, "%s: warning: no symbols from %d module%s (file missing or changed: %s);"
		" their names show as addresses\n", dp_progname, missing, missing == 1 ? "" : "s",
		first ? first : "?");
}

int cmd_dump(int argc, char **argv)
{
	struct dpa_profile p;
	struct dpa_error err;
	const char *file = NULL;
	bool json = false, opts_done = false;
	int missing;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!opts_done && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done && !strcmp(a, "--json")) {
			json = true;
		} else if (!opts_done && (!strcmp(a, "-h") || !strcmp(a, "--help"))) {
			fputs(dp_cmd_usage("dump"), stdout);
			return DP_EXIT_OK;
		} else if (!opts_done && a[0] == '-' && a[1]) {
			usage_error("dump", "unknown option '%s'", a);
		} else {
			if (file)
				usage_error("dump", "more than one FILE ('%s' and '%s')", file, a);
			file = a;
		}
	}
	if (!file)
		usage_error("dump", "no FILE given");
	if (dpa_profile_read(&p, file, &err) < 0)
		die_plain("%s", err.msg);
	missing = dpa_profile_symbolize(&p);
	if (missing > 0)
		warn_symbols(&p, missing);
	if (json)
		dump_json(&p);
	else
		dump_text(&p);
	dpa_profile_release(&p);
	if (fflush(stdout) != 0 || ferror(stdout))
		die_status(DP_EXIT_FAIL, "error writing the output");
	return DP_EXIT_OK;
}
