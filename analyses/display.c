/*
 * display.c — report structures to a format-neutral display: which tables
 * and columns each report shows, one typed cell per value (display.h).
 * Part of deepprof's analyses library. MIT licence.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctxpath.h"
#include "display.h"

/* The measures shown, in order, with their JSON stems and units. */
static const struct {
	enum dpa_measure m;
	const char *key;
	uint8_t unit;
} shown[] = {
	{ DPA_CALLS, "calls", DPA_UNIT_COUNT },
	{ DPA_CSCS, "cscs", DPA_UNIT_COUNT },
	{ DPA_TICKS, "ticks", DPA_UNIT_TICKS },
	{ DPA_ALLOCS, "allocs", DPA_UNIT_COUNT },
	{ DPA_BYTES, "bytes", DPA_UNIT_BYTES },
};
#define NSHOWN (sizeof(shown) / sizeof(shown[0]))

/* Column keys and headings built from a measure name live as long as the
 * program: a fixed table of them. */
static const char *const self_keys[DPA_NMEASURES] = {
	"self_calls", "self_exits", "self_nonlocal_exits", "self_cscs", "self_ticks",
	"self_allocs", "self_bytes" };
static const char *const total_keys[DPA_NMEASURES] = {
	"total_calls", "total_exits", "total_nonlocal_exits", "total_cscs", "total_ticks",
	"total_allocs", "total_bytes" };
static const char *const heads[DPA_NMEASURES] = {
	"calls", "exits", "nonlocal", "cscs", "time", "allocs", "bytes" };
static const char *const self_heads[DPA_NMEASURES] = {
	"self calls", "self exits", "self nonlocal", "self cscs", "self time", "self allocs",
	"self bytes" };
static const char *const total_heads[DPA_NMEASURES] = {
	"total calls", "total exits", "total nonlocal", "total cscs", "total time", "total allocs",
	"total bytes" };

static uint8_t unit_of(enum dpa_measure m)
{
	return m == DPA_TICKS ? DPA_UNIT_TICKS : m == DPA_BYTES ? DPA_UNIT_BYTES : DPA_UNIT_COUNT;
}

/* ================================================================
 * Building tables
 * ================================================================ */

struct build {
	struct dpa_display *dp;
	const struct dpa_report *r;
	const struct dpa_profile *p;
	struct dpa_table *t;    /* the table being filled */
	uint32_t c;             /* next cell of the current row */
	bool failed;
};

static char *str(struct build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *str(struct build *b, const char *fmt, ...)
{
	struct dpa_display *dp = b->dp;
	va_list ap;
	char *s;

	if (dp->nstrs == dp->capstrs) {
		uint32_t cap = dp->capstrs ? 2 * dp->capstrs : 64;
		char **v = realloc(dp->strs, cap * sizeof(*v));

		if (!v) {
			b->failed = true;
			return NULL;
		}
		dp->strs = v;
		dp->capstrs = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		s = NULL;
		b->failed = true;
	}
	va_end(ap);
	if (s)
		dp->strs[dp->nstrs++] = s;
	return s;
}

/* s (malloc'd, may be NULL) becomes the display's; NULL when s is NULL or
 * out of memory (then freed). */
static char *adopt(struct build *b, char *s)
{
	struct dpa_display *dp = b->dp;

	if (!s) {
		b->failed = true;
		return NULL;
	}
	if (dp->nstrs == dp->capstrs) {
		uint32_t cap = dp->capstrs ? 2 * dp->capstrs : 64;
		char **v = realloc(dp->strs, cap * sizeof(*v));

		if (!v) {
			free(s);
			b->failed = true;
			return NULL;
		}
		dp->strs = v;
		dp->capstrs = cap;
	}
	dp->strs[dp->nstrs++] = s;
	return s;
}

static void table(struct build *b, const char *name, const char *title, bool vertical)
{
	b->t = &b->dp->tab[b->dp->ntab++];
	b->t->name = name;
	b->t->title = title;
	b->t->vertical = vertical;
}

static void col(struct build *b, const char *key, const char *head, uint8_t unit, uint8_t flags)
{
	struct dpa_column *c = &b->t->col[b->t->ncol++];

	/* a sampled profile knows no calls: JSON keeps the keys (0), text
	 * and HTML do not show them */
	if (b->p->hdr.sampled && (strstr(key, "calls") || strstr(key, "cscs") || strstr(key, "exits")))
		flags |= DPA_COL_NOTEXT;
	c->key = key;
	c->head = head;
	c->unit = unit;
	c->flags = flags;
}

static void row(struct build *b)
{
	struct dpa_table *t = b->t;

	if (t->nrows == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 16;
		struct dpa_cell *v = realloc(t->cell, (size_t)cap * t->ncol * sizeof(*v));

		if (!v) {
			b->failed = true;
			return;
		}
		t->cell = v;
		t->cap = cap;
	}
	memset(&t->cell[(size_t)t->nrows * t->ncol], 0, t->ncol * sizeof(t->cell[0]));
	t->nrows++;
	b->c = 0;
}

static struct dpa_cell *next(struct build *b)
{
	static struct dpa_cell sink;
	struct dpa_table *t = b->t;

	if (b->failed || !t->nrows || b->c >= (uint32_t)t->ncol)
		return &sink;
	return &t->cell[(size_t)(t->nrows - 1) * t->ncol + b->c++];
}

static void put_s(struct build *b, const char *s)
{
	struct dpa_cell *c = next(b);

	c->type = s ? DPA_CELL_STR : DPA_CELL_NULL;
	c->v.s = s;
}

static void put_u(struct build *b, uint64_t u)
{
	struct dpa_cell *c = next(b);

	c->type = DPA_CELL_UINT;
	c->v.u = u;
}

static void put_f(struct build *b, double f)
{
	struct dpa_cell *c = next(b);

	c->type = DPA_CELL_REAL;
	c->v.f = f;
}

static void put_b(struct build *b, bool v)
{
	struct dpa_cell *c = next(b);

	c->type = DPA_CELL_BOOL;
	c->v.b = v;
}

static void put_id(struct build *b, uint32_t id)
{
	if (id)
		put_u(b, id);
	else
		put_s(b, NULL);
}

/* ================================================================
 * Common columns
 * ================================================================ */

static const char *ps_name(struct build *b, uint32_t ps)
{
	return ps ? dpa_ps_name(b->p, ps) : NULL;
}

static const char *loc(struct build *b, const char *file, uint32_t line)
{
	if (!file)
		return NULL;
	if (!line)
		return dpa_basename(file);
	return str(b, "%s:%u", dpa_basename(file), line);
}

/* A procedure: ps id, name, file, line (JSON), location (text). */
static void ps_cols(struct build *b, const char *key, const char *head)
{
	const char *k = key ? key : "ps";

	col(b, k, "ps", DPA_UNIT_PLAIN, DPA_COL_NOTEXT);
	col(b, key ? str(b, "%s_name", key) : "name", head, DPA_UNIT_PLAIN, DPA_COL_LEFT);
	col(b, key ? str(b, "%s_file", key) : "file", "file", DPA_UNIT_PLAIN, DPA_COL_NOTEXT);
	col(b, key ? str(b, "%s_line", key) : "line", "line", DPA_UNIT_PLAIN, DPA_COL_NOTEXT);
}

static void ps_cells(struct build *b, uint32_t ps)
{
	uint32_t line = dpa_src_get(b->p, DPA_PS_LINE, ps);

	put_id(b, ps);
	put_s(b, ps_name(b, ps));
	put_s(b, dpa_src_str(b->p, DPA_PS_FILE, ps));
	if (line)
		put_u(b, line);
	else
		put_s(b, NULL);
}

static void loc_col(struct build *b)
{
	col(b, "location", "location", DPA_UNIT_PLAIN, DPA_COL_LEFT | DPA_COL_NOJSON);
}

/* Costs: calls (into the node), then self_* and total_* of every shown
 * measure (JSON);
 * text shows `ranked`: the measures in the mode asked (self or total, per
 * call) and % of the sort measure; else calls, self and total of the sort
 * measure and % of its total. */
static void cost_cols(struct build *b, bool ranked)
{
	const struct dpa_report_opts *o = &b->r->o;
	enum dpa_measure s = o->sort;

	col(b, "calls", "calls", DPA_UNIT_COUNT, 0);
	for (size_t i = 0; i < NSHOWN; i++) {
		enum dpa_measure m = shown[i].m;
		bool in_text_self = ranked ? !o->total && !o->per_call : m == s;
		bool in_text_total = ranked ? o->total && !o->per_call : m == s;

		/* the first column already shows the calls into the node */
		if (m == DPA_CALLS)
			in_text_self = false;

		col(b, self_keys[m], ranked ? heads[m] : self_heads[m], unit_of(m),
		    in_text_self ? 0 : DPA_COL_NOTEXT);
		col(b, total_keys[m], ranked ? heads[m] : total_heads[m], unit_of(m),
		    in_text_total ? 0 : DPA_COL_NOTEXT);
	}
	if (ranked && o->per_call)
		for (size_t i = 0; i < NSHOWN; i++)
			col(b, str(b, "%s_%s_per_call", o->total ? "total" : "self", shown[i].key),
			    str(b, "%s/call", heads[shown[i].m]), unit_of(shown[i].m), 0);
	col(b, "pct", ranked ? str(b, "%%%s", heads[s]) : str(b, "%%total %s", heads[s]),
	    DPA_UNIT_PCT, 0);
}

static void cost_cells(struct build *b, const struct dpa_report_row *w, bool ranked)
{
	const struct dpa_report *r = b->r;
	enum dpa_measure s = r->o.sort;
	uint64_t v;

	put_u(b, w->calls);
	for (size_t i = 0; i < NSHOWN; i++) {
		put_u(b, w->c.own[shown[i].m]);
		put_u(b, w->c.total[shown[i].m]);
	}
	if (ranked && r->o.per_call)
		for (size_t i = 0; i < NSHOWN; i++) {
			uint64_t x = r->o.total ? w->c.total[shown[i].m] : w->c.own[shown[i].m];

			put_f(b, w->calls ? (double)x / (double)w->calls : 0.0);
		}
	v = ranked && !r->o.total ? w->c.own[s] : w->c.total[s];
	put_f(b, r->program[s] ? 100.0 * (double)v / (double)r->program[s] : 0.0);
}

/* A vertical table with every cost of one node. */
static void self_table(struct build *b, const char *name, const char *title,
		       const struct dpa_report_row *w, void (*ident_cols)(struct build *),
		       void (*ident_cells)(struct build *, const struct dpa_report_row *))
{
	table(b, name, title, true);
	ident_cols(b);
	col(b, "calls", "calls", DPA_UNIT_COUNT, 0);
	for (size_t i = 0; i < NSHOWN; i++) {
		col(b, self_keys[shown[i].m], self_heads[shown[i].m], shown[i].unit, 0);
		col(b, total_keys[shown[i].m], total_heads[shown[i].m], shown[i].unit, 0);
	}
	col(b, "pct", str(b, "%% of program %s", heads[b->r->o.sort]), DPA_UNIT_PCT, 0);
	row(b);
	ident_cells(b, w);
	put_u(b, w->calls);
	for (size_t i = 0; i < NSHOWN; i++) {
		put_u(b, w->c.own[shown[i].m]);
		put_u(b, w->c.total[shown[i].m]);
	}
	enum dpa_measure s = b->r->o.sort;
	put_f(b, b->r->program[s] ? 100.0 * (double)w->c.total[s] / (double)b->r->program[s] : 0.0);
}

static void ranked_total(struct build *b, const struct dpa_report_section *s)
{
	b->t->total_rows = s->n_before_limit;
}

/* ================================================================
 * The reports
 * ================================================================ */

static void summary(struct build *b)
{
	const struct dpa_header *h = &b->p->hdr;
	const struct dpa_report *r = b->r;

	table(b, "summary", "Summary", true);
	col(b, "program", "program", DPA_UNIT_PLAIN, DPA_COL_LEFT);
	col(b, "command", "command", DPA_UNIT_PLAIN, DPA_COL_LEFT);
	col(b, "final", "final", DPA_UNIT_PLAIN, 0);
	col(b, "clock", "clock", DPA_UNIT_PLAIN, DPA_COL_LEFT);
	col(b, "threads", "threads", DPA_UNIT_PLAIN, 0);
	col(b, "calls", "calls", DPA_UNIT_COUNT, 0);
	col(b, "cscs", "call sequence counts", DPA_UNIT_COUNT, 0);
	col(b, "ticks", "time (profiled)", DPA_UNIT_TICKS, 0);
	col(b, "ticks_count", "ticks", DPA_UNIT_COUNT, DPA_COL_NOJSON);
	col(b, "ticks_outside", "ticks outside", DPA_UNIT_COUNT, 0);
	col(b, "ns_per_tick", "time per tick", DPA_UNIT_NS, 0);
	col(b, "timer_hz", "timer asked (Hz)", DPA_UNIT_PLAIN, 0);
	col(b, "cpu_ns", "cpu time", DPA_UNIT_NS, 0);
	col(b, "wall_ns", "wall time", DPA_UNIT_NS, 0);
	col(b, "allocs", "allocations", DPA_UNIT_COUNT, 0);
	col(b, "bytes", "bytes allocated", DPA_UNIT_BYTES, 0);
	col(b, "allocs_outside", "allocations outside", DPA_UNIT_COUNT, 0);
	col(b, "lost", "lost events", DPA_UNIT_PLAIN, 0);
	col(b, "procedures", "procedures (ps)", DPA_UNIT_PLAIN, 0);
	col(b, "call_sites", "call sites (css)", DPA_UNIT_PLAIN, 0);
	col(b, "contexts", "procedure contexts (pd)", DPA_UNIT_PLAIN, 0);
	col(b, "call_site_contexts", "call site contexts (csd)", DPA_UNIT_PLAIN, 0);
	col(b, "cliques", "cliques", DPA_UNIT_PLAIN, 0);
	col(b, "recursive_cliques", "recursive cliques", DPA_UNIT_PLAIN, 0);
	row(b);
	put_s(b, h->program);
	{
		size_t len = 0;
		char *s;

		for (uint32_t i = 0; i < h->argc; i++)
			len += strlen(h->argv[i]) + 1;
		s = str(b, "%*s", (int)(len ? len - 1 : 0), "");
		if (s) {
			char *q = s;

			for (uint32_t i = 0; i < h->argc; i++)
				q += sprintf(q, "%s%s", i ? " " : "", h->argv[i]);
		}
		put_s(b, s);
	}
	put_b(b, h->final);
	put_s(b, h->clock);
	put_u(b, b->p->n_thread);
	put_u(b, r->program[DPA_CALLS]);
	put_u(b, r->program[DPA_CSCS]);
	put_u(b, r->program[DPA_TICKS]);
	put_u(b, r->program[DPA_TICKS]);
	put_u(b, h->ticks_outside);
	put_f(b, h->ns_per_tick);
	put_u(b, h->timer_hz);
	put_u(b, h->cpu_ns);
	put_u(b, h->wall_ns);
	put_u(b, r->program[DPA_ALLOCS]);
	put_u(b, r->program[DPA_BYTES]);
	put_u(b, h->allocs_outside);
	put_u(b, h->lost);
	put_u(b, b->p->n_ps);
	put_u(b, b->p->n_css);
	put_u(b, b->p->n_pd);
	put_u(b, b->p->n_csd);
	put_u(b, b->r->d->cl.n);
	put_u(b, r->n_recursive);
}

static void top(struct build *b)
{
	const struct dpa_report_section *s = &b->r->sec[0];

	table(b, "procedures", "Procedures", false);
	col(b, "rank", "#", DPA_UNIT_PLAIN, 0);
	cost_cols(b, true);
	ps_cols(b, NULL, "procedure");
	loc_col(b);
	col(b, "contexts", "contexts", DPA_UNIT_PLAIN, DPA_COL_NOTEXT);
	for (uint32_t i = 0; i < s->n; i++) {
		const struct dpa_report_row *w = &s->row[i];

		row(b);
		put_u(b, i + 1);
		cost_cells(b, w, true);
		ps_cells(b, w->ps);
		put_s(b, loc(b, dpa_src_str(b->p, DPA_PS_FILE, w->ps), dpa_src_get(b->p, DPA_PS_LINE, w->ps)));
		put_u(b, w->count);
	}
	ranked_total(b, s);
}

static void proc_ident_cols(struct build *b)
{
	ps_cols(b, NULL, "procedure");
	loc_col(b);
	col(b, "contexts", "contexts", DPA_UNIT_PLAIN, 0);
}

static void proc_ident_cells(struct build *b, const struct dpa_report_row *w)
{
	ps_cells(b, w->ps);
	put_s(b, loc(b, dpa_src_str(b->p, DPA_PS_FILE, w->ps), dpa_src_get(b->p, DPA_PS_LINE, w->ps)));
	put_u(b, w->count);
}

/* A call site: css id, kind, location (the call's line, else the function
 * its address lies in). */
static void css_cols(struct build *b)
{
	col(b, "css", "site", DPA_UNIT_PLAIN, 0);
	col(b, "site_kind", "kind", DPA_UNIT_PLAIN, DPA_COL_NOTEXT);
	col(b, "site_location", "at", DPA_UNIT_PLAIN, DPA_COL_LEFT);
}

static void css_cells(struct build *b, uint32_t css)
{
	const struct dpa_css *s = &b->p->css[css];
	uint32_t file = dpa_src_get(b->p, DPA_CSS_FILE, css), in_fn = dpa_src_get(b->p, DPA_CSS_IN_FN, css);

	put_u(b, css);
	put_s(b, dpa_css_kind_name(s->kind));
	if (file)
		put_s(b, loc(b, dpa_str(b->p, file), dpa_src_get(b->p, DPA_CSS_LINE, css)));
	else
		put_s(b, in_fn ? dpa_str(b->p, in_fn) : dpa_addr_name(b->p, s->module, dpa_css_offset(b->p, css)));
}

static void proc(struct build *b)
{
	const struct dpa_report *r = b->r;
	const struct dpa_report_section *ctx = &r->sec[0], *sites = &r->sec[1];

	self_table(b, "procedure", "Procedure", &r->self, proc_ident_cols, proc_ident_cells);

	table(b, "contexts", "Contexts (one per calling context)", false);
	col(b, "pd", "pd", DPA_UNIT_PLAIN, 0);
	col(b, "thread", "thread", DPA_UNIT_PLAIN, 0);
	col(b, "clique", "clique", DPA_UNIT_PLAIN, 0);
	cost_cols(b, false);
	ps_cols(b, "caller", "called from");
	col(b, "via_css", "via", DPA_UNIT_PLAIN, DPA_COL_NOTEXT);
	col(b, "context", "context (the call sites that tell it apart)", DPA_UNIT_PLAIN, DPA_COL_LEFT);
	for (uint32_t i = 0; i < ctx->n; i++) {
		const struct dpa_report_row *w = &ctx->row[i];

		row(b);
		put_u(b, w->pd);
		put_u(b, dpa_pd_thread(b->p, w->pd));
		put_u(b, w->clique);
		cost_cells(b, w, false);
		ps_cells(b, w->other_ps);
		put_id(b, w->css);
		put_s(b, adopt(b, dpa_ctx_suffix(b->r->d, w->pd, w->count)));
	}
	ranked_total(b, ctx);

	table(b, "call_sites", "Call sites and their callees", false);
	css_cols(b);
	cost_cols(b, false);
	col(b, "contexts", "contexts", DPA_UNIT_PLAIN, 0);
	col(b, "recursive", "rec", DPA_UNIT_PLAIN, 0);
	ps_cols(b, "callee", "callee");
	for (uint32_t i = 0; i < sites->n; i++) {
		const struct dpa_report_row *w = &sites->row[i];

		row(b);
		css_cells(b, w->css);
		cost_cells(b, w, false);
		put_u(b, w->count);
		put_b(b, w->internal);
		ps_cells(b, w->other_ps);
	}
	ranked_total(b, sites);
}

static void clique_ident_cols(struct build *b)
{
	col(b, "clique", "clique", DPA_UNIT_PLAIN, 0);
	col(b, "members", "members", DPA_UNIT_PLAIN, 0);
	col(b, "recursion", "recursion", DPA_UNIT_PLAIN, DPA_COL_LEFT);
	ps_cols(b, NULL, "first member");
}

static void clique_ident_cells(struct build *b, const struct dpa_report_row *w)
{
	put_u(b, w->clique);
	put_u(b, w->count);
	put_s(b, dpa_rec_type_name(w->rec.type));
	ps_cells(b, w->ps);
}

static void clique(struct build *b)
{
	const struct dpa_report *r = b->r;
	const struct dpa_report_section *anc = &r->sec[0], *mem = &r->sec[1], *sites = &r->sec[2],
					*kids = &r->sec[3];

	self_table(b, "clique", "Clique", &r->self, clique_ident_cols, clique_ident_cells);

	table(b, "ancestors", "Ancestors (nearest first, up to main)", false);
	col(b, "clique", "clique", DPA_UNIT_PLAIN, 0);
	col(b, "csd", "csd", DPA_UNIT_PLAIN, DPA_COL_NOTEXT);
	css_cols(b);
	cost_cols(b, false);
	ps_cols(b, "caller", "caller");
	ps_cols(b, "callee", "callee");
	for (uint32_t i = 0; i < anc->n; i++) {
		const struct dpa_report_row *w = &anc->row[i];

		row(b);
		put_u(b, w->clique);
		put_u(b, w->csd);
		css_cells(b, w->css);
		cost_cells(b, w, false);
		ps_cells(b, w->ps);
		ps_cells(b, w->other_ps);
	}
	ranked_total(b, anc);

	table(b, "members", "Members", false);
	col(b, "pd", "pd", DPA_UNIT_PLAIN, 0);
	cost_cols(b, false);
	ps_cols(b, NULL, "procedure");
	for (uint32_t i = 0; i < mem->n; i++) {
		row(b);
		put_u(b, mem->row[i].pd);
		cost_cells(b, &mem->row[i], false);
		ps_cells(b, mem->row[i].ps);
	}
	ranked_total(b, mem);

	table(b, "call_sites", "Call sites (own and inherited costs)", false);
	col(b, "csd", "csd", DPA_UNIT_PLAIN, 0);
	css_cols(b);
	cost_cols(b, false);
	col(b, "callee_clique", "to clique", DPA_UNIT_PLAIN, 0);
	col(b, "recursive", "rec", DPA_UNIT_PLAIN, 0);
	ps_cols(b, "caller", "caller");
	ps_cols(b, "callee", "callee");
	for (uint32_t i = 0; i < sites->n; i++) {
		const struct dpa_report_row *w = &sites->row[i];

		row(b);
		put_u(b, w->csd);
		css_cells(b, w->css);
		cost_cells(b, w, false);
		put_u(b, w->clique);
		put_b(b, w->internal);
		ps_cells(b, w->ps);
		ps_cells(b, w->other_ps);
	}
	ranked_total(b, sites);

	table(b, "children", "Child cliques", false);
	col(b, "clique", "clique", DPA_UNIT_PLAIN, 0);
	col(b, "entries", "csds", DPA_UNIT_PLAIN, 0);
	cost_cols(b, false);
	ps_cols(b, NULL, "first member");
	for (uint32_t i = 0; i < kids->n; i++) {
		const struct dpa_report_row *w = &kids->row[i];

		row(b);
		put_u(b, w->clique);
		put_u(b, w->count);
		cost_cells(b, w, false);
		ps_cells(b, w->ps);
	}
	ranked_total(b, kids);
}

static void site_ident_cols(struct build *b)
{
	css_cols(b);
	ps_cols(b, "caller", "in procedure");
	ps_cols(b, "static_callee", "static callee");
	col(b, "contexts", "contexts", DPA_UNIT_PLAIN, 0);
}

static void site_ident_cells(struct build *b, const struct dpa_report_row *w)
{
	css_cells(b, w->css);
	ps_cells(b, w->ps);
	ps_cells(b, w->other_ps);
	put_u(b, w->count);
}

static void site(struct build *b)
{
	const struct dpa_report *r = b->r;
	const struct dpa_report_section *s = &r->sec[0];

	self_table(b, "site", "Call site", &r->self, site_ident_cols, site_ident_cells);
	table(b, "callees", "Callees", false);
	cost_cols(b, false);
	col(b, "contexts", "contexts", DPA_UNIT_PLAIN, 0);
	col(b, "recursive", "rec", DPA_UNIT_PLAIN, 0);
	ps_cols(b, "callee", "callee");
	for (uint32_t i = 0; i < s->n; i++) {
		row(b);
		cost_cells(b, &s->row[i], false);
		put_u(b, s->row[i].count);
		put_b(b, s->row[i].internal);
		ps_cells(b, s->row[i].other_ps);
	}
	ranked_total(b, s);
}

static void callers(struct build *b)
{
	const struct dpa_report *r = b->r;
	const struct dpa_report_section *s = &r->sec[0];
	enum dpa_report_group g = r->o.group;

	self_table(b, "procedure", "Procedure", &r->self, proc_ident_cols, proc_ident_cells);
	table(b, "callers", g == DPA_GROUP_SITE ? "Callers by call site"
			     : g == DPA_GROUP_PROC ? "Callers by procedure"
			     : g == DPA_GROUP_FILE ? "Callers by source file" : "Callers by clique",
	      false);
	col(b, "rank", "#", DPA_UNIT_PLAIN, 0);
	cost_cols(b, true);
	col(b, "csds", "csds", DPA_UNIT_PLAIN, 0);
	col(b, "recursive", "rec", DPA_UNIT_PLAIN, 0);
	if (g == DPA_GROUP_SITE)
		css_cols(b);
	if (g == DPA_GROUP_CLIQUE)
		col(b, "clique", "clique", DPA_UNIT_PLAIN, 0);
	if (g == DPA_GROUP_FILE)
		col(b, "file", "file", DPA_UNIT_PLAIN, DPA_COL_LEFT);
	else
		ps_cols(b, "caller", g == DPA_GROUP_CLIQUE ? "first member" : "caller");
	for (uint32_t i = 0; i < s->n; i++) {
		const struct dpa_report_row *w = &s->row[i];

		row(b);
		put_u(b, i + 1);
		cost_cells(b, w, true);
		put_u(b, w->count);
		put_b(b, w->internal);
		if (g == DPA_GROUP_SITE)
			css_cells(b, w->css);
		if (g == DPA_GROUP_CLIQUE)
			put_u(b, w->clique);
		if (g == DPA_GROUP_FILE)
			put_s(b, w->label);
		else
			ps_cells(b, w->ps);
	}
	ranked_total(b, s);
}

static void recursion(struct build *b)
{
	const struct dpa_report *r = b->r;
	const struct dpa_report_section *s = &r->sec[0];
	uint32_t all = 0;

	table(b, "types", "Cliques by recursion type (thread roots left out)", true);
	for (int t = 0; t < DPA_REC_NTYPES; t++) {
		col(b, dpa_rec_type_name(t), dpa_rec_type_name(t), DPA_UNIT_PLAIN, 0);
		all += r->by_type[t];
	}
	col(b, "cliques", "all cliques", DPA_UNIT_PLAIN, 0);
	row(b);
	for (int t = 0; t < DPA_REC_NTYPES; t++)
		put_u(b, r->by_type[t]);
	put_u(b, all);

	table(b, "cliques", "Recursive cliques", false);
	col(b, "rank", "#", DPA_UNIT_PLAIN, 0);
	col(b, "clique", "clique", DPA_UNIT_PLAIN, 0);
	col(b, "type", "type", DPA_UNIT_PLAIN, DPA_COL_LEFT);
	col(b, "members", "members", DPA_UNIT_PLAIN, 0);
	col(b, "recursive_sites", "sites", DPA_UNIT_PLAIN, 0);
	col(b, "entry_calls", "entries", DPA_UNIT_COUNT, 0);
	col(b, "internal_calls", "rec calls", DPA_UNIT_COUNT, 0);
	col(b, "calls_per_entry", "calls/entry", DPA_UNIT_RATIO, 0);
	col(b, "depth", "depth~", DPA_UNIT_RATIO, 0);
	col(b, "own_per_call", str(b, "%s/call", heads[r->o.sort]), unit_of(r->o.sort), 0);
	col(b, "per_level", str(b, "%s/level", heads[r->o.sort]), unit_of(r->o.sort), 0);
	cost_cols(b, true);
	ps_cols(b, NULL, "first member");
	for (uint32_t i = 0; i < s->n; i++) {
		const struct dpa_report_row *w = &s->row[i];

		row(b);
		put_u(b, i + 1);
		put_u(b, w->clique);
		put_s(b, dpa_rec_type_name(w->rec.type));
		put_u(b, w->rec.members);
		put_u(b, w->rec.rec_sites);
		put_u(b, w->rec.entry_calls);
		put_u(b, w->rec.internal_calls);
		put_f(b, w->rec.calls_per_entry);
		put_f(b, w->rec.depth);
		put_f(b, w->rec.own_per_call);
		put_f(b, w->rec.per_level);
		cost_cells(b, w, true);
		ps_cells(b, w->ps);
	}
	ranked_total(b, s);
}

int dpa_report_display(struct dpa_display *dp, const struct dpa_report *r,
		       struct dpa_error *err)
{
	struct build b = { .dp = dp, .r = r, .p = r->p };
	const struct dpa_report_opts *o = &r->o;
	const char *mode = o->total ? "self+descendants" : "self";

	memset(dp, 0, sizeof(*dp));
	dp->report = dpa_report_kind_name(o->kind);
	dp->file = r->p->path;
	dp->program = r->p->hdr.program;
	dp->ns_per_tick = r->p->hdr.ns_per_tick;
	dp->sampled = r->p->hdr.sampled;
	dp->record_flags = r->p->hdr.record_flags;
	dp->o = o;
	switch (o->kind) {
	case DPA_REPORT_SUMMARY:
		dp->title = str(&b, "Summary of %s", r->p->path);
		summary(&b);
		break;
	case DPA_REPORT_TOP:
		dp->title = str(&b, "Top procedures by %s %s%s", mode, heads[o->sort],
				o->per_call ? " per call" : "");
		top(&b);
		break;
	case DPA_REPORT_PROC:
		dp->title = str(&b, "Procedure %s", o->name);
		proc(&b);
		break;
	case DPA_REPORT_CLIQUE:
		dp->title = str(&b, "Clique %u", o->id);
		clique(&b);
		break;
	case DPA_REPORT_SITE:
		dp->title = str(&b, "Call site %u", o->id);
		site(&b);
		break;
	case DPA_REPORT_CALLERS:
		dp->title = str(&b, "Callers of %s, by %s, ranked by %s %s%s", o->name,
				dpa_report_group_name(o->group), mode, heads[o->sort],
				o->per_call ? " per call" : "");
		callers(&b);
		break;
	case DPA_REPORT_RECURSION:
		dp->title = str(&b, "Recursion: cliques by type; recursive ones ranked by %s %s",
				mode, heads[o->sort]);
		recursion(&b);
		break;
	default:
		break;
	}
	if (b.failed || !dp->title) {
		dpa_display_release(dp);
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory building the display",
			 r->p->path);
		return -1;
	}
	return 0;
}

void dpa_display_release(struct dpa_display *dp)
{
	for (int i = 0; i < dp->ntab; i++)
		free(dp->tab[i].cell);
	for (uint32_t i = 0; i < dp->nstrs; i++)
		free(dp->strs[i]);
	free(dp->strs);
	memset(dp, 0, sizeof(*dp));
}
