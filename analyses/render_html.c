/*
 * render_html.c — a display as one self-contained HTML5 page (inline CSS, no
 * script, nothing fetched), and a whole profile as a static browsable site
 * of such pages linked together (Mercury's mdprof_cgi, without the server).
 * Part of deepprof's analyses library. MIT licence.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "display.h"
#include "names.h"
#include "tempfile.h"
#include "utf8.h"

#define CELL 160
#define HREF 2048

/* ================================================================
 * Escaping and units
 * ================================================================ */

/* Write s to f so that it is text (or an attribute value) and nothing else:
 * & < > " ' as character references, control characters and bytes that are
 * not UTF-8 as U+FFFD. */
static void esc(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n;

		switch (*p) {
		case '&': fputs("&amp;", f); p++; continue;
		case '<': fputs("&lt;", f); p++; continue;
		case '>': fputs("&gt;", f); p++; continue;
		case '"': fputs("&quot;", f); p++; continue;
		case '\'': fputs("&#39;", f); p++; continue;
		default: break;
		}
		if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f) {
			fputs("&#xFFFD;", f);
			p++;
			continue;
		}
		n = dpa_utf8_len(p);
		if (!n) {
			fputs("&#xFFFD;", f);
			p++;
			continue;
		}
		fwrite(p, 1, n, f);
		p += n;
	}
}

/* The raw value of a number cell (as JSON would carry it) into buf[CELL];
 * false for strings and empty cells. */
static bool raw_cell(const struct dpa_cell *x, char *buf)
{
	switch (x->type) {
	case DPA_CELL_UINT: snprintf(buf, CELL, "%" PRIu64, x->v.u); return true;
	case DPA_CELL_REAL: snprintf(buf, CELL, "%.10g", x->v.f); return true;
	case DPA_CELL_BOOL: snprintf(buf, CELL, "%s", x->v.b ? "true" : "false"); return true;
	default: return false;
	}
}

/* ================================================================
 * Links between the pages of a site
 * ================================================================ */

enum link_kind { L_NONE, L_PS, L_CLIQUE, L_CSS, L_PD };

/* How column c of t links: which kind of page, and the column with the id. */
static enum link_kind col_link(const struct dpa_table *t, int c, int *src)
{
	const char *k = t->col[c].key;

	if (c > 0 && t->col[c - 1].unit == DPA_UNIT_PLAIN) {
		const char *id = t->col[c - 1].key;
		size_t n = strlen(id);

		/* ps_cols(): "ps" then "name", or "<key>" then "<key>_name" */
		if ((!strcmp(id, "ps") && !strcmp(k, "name")) ||
		    (!strncmp(k, id, n) && !strcmp(k + n, "_name"))) {
			*src = c - 1;
			return L_PS;
		}
	}
	if (!strcmp(k, "clique") || !strcmp(k, "callee_clique")) {
		*src = c;
		return L_CLIQUE;
	}
	if (!strcmp(k, "css")) {
		*src = c;
		return L_CSS;
	}
	if (!strcmp(k, "context"))
		for (int i = 0; i < t->ncol; i++)
			if (!strcmp(t->col[i].key, "pd")) {
				*src = i;
				return L_PD;
			}
	if (!strcmp(k, "site_location"))
		for (int i = 0; i < t->ncol; i++)
			if (!strcmp(t->col[i].key, "css")) {
				*src = i;
				return L_CSS;
			}
	return L_NONE;
}

/* The page (href, into buf[HREF]) cell x links to, or false when none. */
static bool link_of(const struct dpa_html_site *site, enum link_kind k, const struct dpa_cell *x,
		    char *buf, const struct dpa_display *dp, const struct dpa_table *t, uint32_t r)
{
	const struct dpa_profile *p = site ? site->p : NULL;
	uint64_t id;

	if (site && site->href && k == L_PD && x->type == DPA_CELL_UINT)
		return site->href(site->href_ctx, dp, t, r, DPA_LINK_PD, x->v.u, buf, HREF);
	if (!p || k == L_NONE || k == L_PD || x->type != DPA_CELL_UINT)
		return false;
	id = x->v.u;
	if (site->href)
		return site->href(site->href_ctx, dp, t, r,
				  k == L_PS ? DPA_LINK_PS : k == L_CLIQUE ? DPA_LINK_CLIQUE : DPA_LINK_CSS,
				  id, buf, HREF);
	switch (k) {
	case L_PS:
		if (!id || id > p->n_ps || !site->proc_page[id])
			return false;
		snprintf(buf, CELL, "proc-%" PRIu32 ".html", site->proc_page[id]);
		return true;
	case L_CLIQUE:
		if (!id || id > site->n_cliques || !site->clique_page[id])
			return false;
		snprintf(buf, CELL, "clique-%" PRIu64 ".html", id);
		return true;
	case L_CSS: {
		uint32_t ps;

		if (!id || id > p->n_css)
			return false;
		ps = p->css[id].caller_ps;
		if (!ps || ps > p->n_ps || !site->proc_page[ps])
			return false;
		snprintf(buf, CELL, "proc-%" PRIu32 ".html#site-%" PRIu64, site->proc_page[ps], id);
		return true;
	}
	default:
		return false;
	}
}

/* ================================================================
 * Pages
 * ================================================================ */

static const char style[] =
	"body{font-family:sans-serif;margin:1em 2em;color:#222;background:#fff}\n"
	"h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.5em}h3{font-size:1em}\n"
	"nav{margin-bottom:1em}nav a{margin-right:1em}\n"
	".meta{color:#555;font-size:.9em}\n"
	"table{border-collapse:collapse;font-size:.9em;margin:.3em 0}\n"
	"th,td{padding:.15em .5em;border-bottom:1px solid #ddd;vertical-align:top}\n"
	"thead th{background:#eef;position:sticky;top:0}\n"
	"th.n,td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"th.l,td.l{text-align:left}\n"
	"table.kv th{text-align:left;font-weight:normal;color:#555}\n"
	"tbody tr:hover{background:#f6f6ff}\n"
	"tr:target{background:#ffc}\n"
	"a{color:#04a;text-decoration:none}a:hover{text-decoration:underline}\n"
	".none{color:#777}\n";

/* Everything before the first table: head, style, navigation (site pages). */
static void page_begin(FILE *f, const char *title, const struct dpa_html_site *site)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	esc(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
	if (site) {
		fputs("<nav><a href=\"index.html\">Index</a>", f);
		if (site->recursion)
			fputs("<a href=\"recursion.html\">Recursion</a>", f);
		fputs("</nav>\n", f);
	}
}

/* Everything after the last table. */
static void page_end(FILE *f)
{
	fputs("<p class=\"meta\">Written by deepprof.</p>\n</body>\n</html>\n", f);
}

/* The profile file, program and tick length, under the page's title. */
static void meta(const struct dpa_display *dp, FILE *f)
{
	char buf[CELL];

	fputs("<p class=\"meta\">profile: ", f);
	esc(f, dp->file ? dp->file : "?");
	fputs(" &nbsp; program: ", f);
	esc(f, dp->program ? dp->program : "?");
	fputs("<br>\n", f);
	if (dp->ns_per_tick > 0.0) {
		dpa_fmt_time(buf, sizeof(buf), dp->ns_per_tick);
		fputs("time = timer ticks &times; ", f);
		esc(f, buf);
		fputs(" per tick", f);
	} else {
		fputs("time: the timer was off (no ticks)", f);
	}
	if (dp->sampled) {
		fputs("<br>\nsampled profile (deepprof record): times only; calls and call sequence "
		      "counts are unknown", f);
		for (uint64_t b = 1; b && b <= dp->record_flags; b <<= 1)
			if (dp->record_flags & b) {
				fputs("<br>\nwarning: ", f);
				esc(f, dpa_record_flag_text(b));
				fputs(": times may be wrong", f);
			}
	}
	fputs("</p>\n", f);
}

/* Where the row of call site css begins on a procedure's page: the first
 * row of each site in a table with a "css" column (rows come grouped by
 * css), so links to "proc-N.html#site-css" land on it. */
static int css_col(const struct dpa_table *t)
{
	for (int c = 0; c < t->ncol; c++)
		if (!strcmp(t->col[c].key, "css"))
			return c;
	return -1;
}

/* One cell: number cells right-aligned with their raw value in data-v (and
 * in title where the text rounds it; ticks: also as nanoseconds); names,
 * cliques and call sites linked to their pages when site has them. */
static void cell(FILE *f, const struct dpa_display *dp, const struct dpa_html_site *site,
		 const struct dpa_table *t, uint32_t r, int c)
{
	const struct dpa_column *col = &t->col[c];
	const struct dpa_cell *x = &t->cell[(size_t)r * t->ncol + c];
	char shown[CELL], raw[CELL], href[HREF];
	int src = c;
	enum link_kind lk = col_link(t, c, &src);
	bool linked = link_of(site, lk, &t->cell[(size_t)r * t->ncol + src], href, dp, t, r);

	if (x->type != DPA_CELL_STR)
		dpa_fmt_cell(dp, col, x, shown, CELL);
	fprintf(f, "<td class=\"%s\"", col->flags & DPA_COL_LEFT ? "l" : "n");
	if (raw_cell(x, raw)) {
		fprintf(f, " data-v=\"%s\"", raw);
		/* a hover shows the exact value where the text rounds it */
		if (col->unit == DPA_UNIT_TICKS && x->type != DPA_CELL_BOOL) {
			double v = x->type == DPA_CELL_UINT ? (double)x->v.u : x->v.f;

			fprintf(f, " title=\"%s ticks = %.0f ns\"", raw, v * dp->ns_per_tick);
		} else if (x->type != DPA_CELL_BOOL && strcmp(raw, shown)) {
			fprintf(f, " title=\"%s\"", raw);
		}
	}
	fputc('>', f);
	if (linked) {
		fputs("<a href=\"", f);
		esc(f, href);
		fputs("\">", f);
	}
	if (x->type == DPA_CELL_STR) {
		esc(f, x->v.s);
	} else {
		esc(f, shown);
	}
	if (linked)
		fputs("</a>", f);
	fputs("</td>", f);
}

/* A table's heading at level h: its title, and for lists how many rows are
 * shown (n) of how many. */
static void table_title(FILE *f, const struct dpa_table *t, uint32_t n, int h)
{
	uint32_t all = t->total_rows > t->nrows ? t->total_rows : t->nrows;

	fprintf(f, "<h%d id=\"t-", h);
	esc(f, t->name);
	fputs("\">", f);
	esc(f, t->title);
	if (!t->vertical) {
		if (all > n)
			fprintf(f, " <span class=\"meta\">(%" PRIu32 " of %" PRIu32 " shown%s)</span>",
				n, all, n < t->nrows ? ", the costliest" : "");
		else
			fprintf(f, " <span class=\"meta\">(%" PRIu32 ")</span>", n);
	}
	fprintf(f, "</h%d>\n", h);
}

/* A single node's table: one "heading | value" line per shown column. */
static void vertical(FILE *f, const struct dpa_display *dp, const struct dpa_html_site *site,
		     const struct dpa_table *t, int h)
{
	table_title(f, t, t->nrows, h);
	if (!t->nrows) {
		fputs("<p class=\"none\">none</p>\n", f);
		return;
	}
	fputs("<table class=\"kv\"><tbody>\n", f);
	for (int c = 0; c < t->ncol; c++) {
		if (t->col[c].flags & DPA_COL_NOTEXT)
			continue;
		fputs("<tr data-col=\"", f);
		esc(f, t->col[c].key);
		fputs("\"><th>", f);
		esc(f, t->col[c].head);
		fputs("</th>", f);
		cell(f, dp, site, t, 0, c);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* The value of the "pct" cell of row r (its share of the sort measure), or
 * -1 when the table has none. */
static double share(const struct dpa_table *t, int pc, uint32_t r)
{
	const struct dpa_cell *x = &t->cell[(size_t)r * t->ncol + pc];

	return x->type == DPA_CELL_REAL ? x->v.f : x->type == DPA_CELL_UINT ? (double)x->v.u : -1.0;
}

struct by_share {
	const struct dpa_table *t;
	int pc;
};

/* Largest share first, then table order. */
static int cmp_share(const void *x, const void *y, void *arg)
{
	const struct by_share *c = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	double va = share(c->t, c->pc, a), vb = share(c->t, c->pc, b);

	if (va != vb)
		return va > vb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Table order. */
static int cmp_index(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * The rows of t to show when at most max of them may be (0: all): all of
 * them in order, or the max with the largest share of the sort measure
 * (the first max when t has no share column), still in table order so
 * grouped rows stay together. Returns a malloc'ed index array (n entries),
 * or NULL when all rows are shown or memory is short (then all are shown).
 */
static uint32_t *rows_shown(const struct dpa_table *t, uint32_t max, uint32_t *n)
{
	struct by_share ctx = { t, -1 };
	uint32_t *ix;

	*n = t->nrows;
	if (!max || t->nrows <= max)
		return NULL;
	ix = malloc((size_t)t->nrows * sizeof(*ix));
	if (!ix)
		return NULL;
	for (uint32_t r = 0; r < t->nrows; r++)
		ix[r] = r;
	for (int c = 0; c < t->ncol; c++)
		if (!strcmp(t->col[c].key, "pct"))
			ctx.pc = c;
	if (ctx.pc >= 0) {
		qsort_r(ix, t->nrows, sizeof(*ix), cmp_share, &ctx);
		qsort(ix, max, sizeof(*ix), cmp_index);
	}
	*n = max;
	return ix;
}

/* A list: a heading row, then one row per table row shown (site->max_rows). */
static void horizontal(FILE *f, const struct dpa_display *dp, const struct dpa_html_site *site,
		       const struct dpa_table *t, int h)
{
	int cc = css_col(t);
	bool anchors = cc >= 0 && dp->report && !strcmp(dp->report, "proc");
	uint64_t prev = 0;
	uint32_t n, *ix = rows_shown(t, site ? site->max_rows : 0, &n);

	table_title(f, t, n, h);
	if (!t->nrows) {
		fputs("<p class=\"none\">none</p>\n", f);
		return;
	}
	fputs("<table><thead><tr>", f);
	for (int c = 0; c < t->ncol; c++) {
		if (t->col[c].flags & DPA_COL_NOTEXT)
			continue;
		fprintf(f, "<th class=\"%s\"%s data-col=\"", t->col[c].flags & DPA_COL_LEFT ? "l" : "n",
			site && site->sortable ? " data-sort=\"1\" title=\"click to sort\"" : "");
		esc(f, t->col[c].key);
		fputs("\">", f);
		esc(f, t->col[c].head);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = ix ? ix[i] : i;
		const struct dpa_cell *x = anchors ? &t->cell[(size_t)r * t->ncol + cc] : NULL;

		if (x && x->type == DPA_CELL_UINT && x->v.u != prev) {
			prev = x->v.u;
			fprintf(f, "<tr id=\"site-%" PRIu64 "\">", x->v.u);
		} else {
			fputs("<tr>", f);
		}
		for (int c = 0; c < t->ncol; c++)
			if (!(t->col[c].flags & DPA_COL_NOTEXT))
				cell(f, dp, site, t, r, c);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	free(ix);
}

/* A display's tables, headed at level h. */
static void tables(FILE *f, const struct dpa_display *dp, const struct dpa_html_site *site, int h)
{
	for (int i = 0; i < dp->ntab; i++) {
		if (dp->tab[i].vertical)
			vertical(f, dp, site, &dp->tab[i], h);
		else
			horizontal(f, dp, site, &dp->tab[i], h);
	}
}

void dpa_render_html_tables(const struct dpa_display *dp, const struct dpa_html_site *site,
			    FILE *f, int h)
{
	tables(f, dp, site, h);
}

void dpa_html_escape(FILE *f, const char *s)
{
	esc(f, s);
}

int dpa_render_html(const struct dpa_display *dp, const struct dpa_html_site *site, FILE *f)
{
	page_begin(f, dp->title, site);
	fputs("<h1>", f);
	esc(f, dp->title);
	fputs("</h1>\n", f);
	meta(dp, f);
	tables(f, dp, site, 2);
	page_end(f);
	return ferror(f) ? -1 : 0;
}

/* ================================================================
 * The site
 * ================================================================ */

struct site {
	const struct dpa_deep *d;
	const struct dpa_profile *p;
	struct dpa_report_opts o;       /* the user's options */
	const char *dir;
	uint32_t limit;
	struct dpa_html_site links;
	uint32_t *proc_page;            /* [n_ps + 1] */
	uint8_t *clique_page;           /* [n_cliques + 1] */
	uint32_t *pages;                /* the ps each procedure page is named after */
	char **specs;                   /* the name its proc report is asked for */
	uint32_t n_pages;
	uint32_t *cliques, n_cliques;   /* cliques with a page */
};

/* -1 with "out of memory" in err. */
static int oom(const struct site *s, struct dpa_error *err)
{
	return dpa_fail(err, s->p, "out of memory writing the HTML site");
}

/* Create dir and its missing parents (mkdir -p). Returns 0, or -1 with err
 * naming dir. */
static int make_dir(const char *dir, struct dpa_error *err)
{
	char *path = strdup(dir);
	struct stat st;
	int rc = -1;

	if (!path) {
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", dir);
		return -1;
	}
	for (char *q = path + 1; ; q++) {
		char c = *q;

		if (c != '/' && c)
			continue;
		*q = 0;
		if (mkdir(path, 0777) < 0 && errno != EEXIST) {
			snprintf(err->msg, sizeof(err->msg), "%s: cannot create directory %s: %s", dir,
				 path, strerror(errno));
			goto out;
		}
		*q = c;
		if (!c)
			break;
	}
	if (stat(dir, &st) < 0) {
		snprintf(err->msg, sizeof(err->msg), "%s: %s", dir, strerror(errno));
		goto out;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err->msg, sizeof(err->msg), "%s: not a directory", dir);
		goto out;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		snprintf(err->msg, sizeof(err->msg), "%s: cannot write into it: %s", dir, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(path);
	return rc;
}

/* The name to ask the proc report for so that it shows ps (file.c:name, else
 * path:name, else the bare name), malloc'ed; with *group, *ng the procedures
 * it names (malloc'ed). NULL when no name picks ps or out of memory. */
static char *spec_of(const struct dpa_profile *p, uint32_t ps, uint32_t **group, uint32_t *ng)
{
	const char *name = dpa_src_get(p, DPA_PS_NAME, ps) ? dpa_src_str(p, DPA_PS_NAME, ps) : dpa_ps_name(p, ps);

	for (int i = 0; i < 3; i++) {
		struct dpa_error e;
		char *spec = NULL;
		int n;

		if (i < 2 && !dpa_src_get(p, DPA_PS_FILE, ps))
			continue;
		if (i == 0)
			n = asprintf(&spec, "%s:%s", dpa_basename(dpa_src_str(p, DPA_PS_FILE, ps)), name);
		else if (i == 1)
			n = asprintf(&spec, "%s:%s", dpa_src_str(p, DPA_PS_FILE, ps), name);
		else
			n = asprintf(&spec, "%s", name);
		if (n < 0)
			return NULL;
		if (dpa_names_find(p, spec, group, ng, &e) == 0) {
			for (uint32_t k = 0; k < *ng; k++)
				if ((*group)[k] == ps)
					return spec;
			free(*group);
		}
		*group = NULL;
		free(spec);
	}
	return NULL;
}

/* Which pages the site has (into s->proc_page, pages, specs, clique_page,
 * cliques; s->links points at them): the procedures of the top `limit` by total
 * cost (those named alike share one page), and the `limit` costliest
 * recursive cliques. */
static int plan(struct site *s, struct dpa_error *err)
{
	const struct dpa_profile *p = s->p;
	struct dpa_report_opts o = { .kind = DPA_REPORT_TOP, .sort = s->o.sort, .total = true,
				     .limit = s->limit };
	struct dpa_report r;

	s->proc_page = calloc((size_t)p->n_ps + 1, sizeof(*s->proc_page));
	s->clique_page = calloc((size_t)s->d->cl.n + 1, 1);
	s->pages = calloc((size_t)s->limit + 1, sizeof(*s->pages));
	s->specs = calloc((size_t)s->limit + 1, sizeof(*s->specs));
	s->cliques = calloc((size_t)s->limit + 1, sizeof(*s->cliques));
	if (!s->proc_page || !s->clique_page || !s->pages || !s->specs || !s->cliques)
		return oom(s, err);
	s->links.p = p;
	s->links.proc_page = s->proc_page;
	s->links.clique_page = s->clique_page;
	s->links.n_cliques = s->d->cl.n;
	s->links.recursion = true;
	s->links.max_rows = DPA_HTML_SITE_ROWS;
	if (!s->limit)
		return 0;
	if (dpa_report_init(&r, s->d, &o, err) < 0)
		return -1;
	for (uint32_t i = 0; i < r.sec[0].n && s->n_pages < s->limit; i++) {
		uint32_t ps = r.sec[0].row[i].ps, *group = NULL, ng = 0;
		char *spec;

		if (s->proc_page[ps])
			continue;
		spec = spec_of(p, ps, &group, &ng);
		if (!spec)
			continue;
		for (uint32_t k = 0; k < ng; k++)
			if (!s->proc_page[group[k]])
				s->proc_page[group[k]] = ps;
		free(group);
		s->pages[s->n_pages] = ps;
		s->specs[s->n_pages++] = spec;
	}
	dpa_report_release(&r);

	o.kind = DPA_REPORT_RECURSION;
	if (dpa_report_init(&r, s->d, &o, err) < 0)
		return -1;
	for (uint32_t i = 0; i < r.sec[0].n && s->n_cliques < s->limit; i++) {
		uint32_t c = r.sec[0].row[i].clique;

		if (c && c <= s->d->cl.n && !s->clique_page[c]) {
			s->clique_page[c] = 1;
			s->cliques[s->n_cliques++] = c;
		}
	}
	dpa_report_release(&r);
	return 0;
}

/* Write dir/name atomically: the page made of the reports os[0..n) (one:
 * its own page; more: each under its own heading, the index). Returns 0, or
 * -1 with err naming the file. */
static int write_page(struct site *s, const char *name, const char *title,
		      const struct dpa_report_opts *os, int n, struct dpa_error *err)
{
	struct dpa_report r[2];
	struct dpa_display dp[2];
	char *path = NULL, *tmp = NULL;
	FILE *f = NULL;
	int built = 0, rc = -1, fd;

	for (; built < n; built++) {
		if (dpa_report_init(&r[built], s->d, &os[built], err) < 0)
			goto out;
		if (dpa_report_display(&dp[built], &r[built], err) < 0) {
			dpa_report_release(&r[built]);
			goto out;
		}
	}
	if (asprintf(&path, "%s/%s", s->dir, name) < 0) {
		path = NULL;
		oom(s, err);
		goto out;
	}
	fd = dpa_temp_create(path, &tmp);
	if (fd < 0) {
		snprintf(err->msg, sizeof(err->msg), "%s: cannot create a temporary file: %s", path,
			 strerror(errno));
		goto out;
	}
	if (!(f = fdopen(fd, "w"))) {
		snprintf(err->msg, sizeof(err->msg), "%s: %s", tmp ? tmp : path, strerror(errno));
		close(fd);
		goto out;
	}
	if (n == 1) {
		dpa_render_html(&dp[0], &s->links, f);
	} else {
		page_begin(f, title, &s->links);
		fputs("<h1>", f);
		esc(f, title);
		fputs("</h1>\n", f);
		meta(&dp[0], f);
		for (int i = 0; i < n; i++) {
			fputs("<h2>", f);
			esc(f, dp[i].title);
			fputs("</h2>\n", f);
			tables(f, &dp[i], &s->links, 3);
		}
		page_end(f);
	}
	/* No fsync: hundreds of pages would wait on the disk for each; the
	 * rename still never leaves half a page in place of a whole one. */
	if (fflush(f) != 0 || ferror(f)) {
		snprintf(err->msg, sizeof(err->msg), "%s: write failed: %s", path,
			 errno ? strerror(errno) : "I/O error");
		goto out;
	}
	if (fclose(f) != 0) {
		f = NULL;
		snprintf(err->msg, sizeof(err->msg), "%s: write failed: %s", path, strerror(errno));
		goto out;
	}
	f = NULL;
	if (dpa_temp_commit(tmp, path) < 0) {
		snprintf(err->msg, sizeof(err->msg), "%s: cannot rename %s into place: %s", path, tmp,
			 strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (f)
		fclose(f);
	if (rc < 0 && tmp)
		dpa_temp_discard(tmp);
	free(tmp);
	free(path);
	while (built-- > 0) {
		dpa_display_release(&dp[built]);
		dpa_report_release(&r[built]);
	}
	return rc;
}

/* Every page of the site, index first. */
static int write_pages(struct site *s, struct dpa_error *err)
{
	struct dpa_report_opts os[2] = { s->o, s->o };
	char name[64], *title = NULL;
	int rc;

	os[0].kind = DPA_REPORT_SUMMARY;
	os[1].kind = DPA_REPORT_TOP;
	if (asprintf(&title, "Profile of %s", s->p->hdr.program ? s->p->hdr.program : s->p->path) < 0)
		return oom(s, err);
	rc = write_page(s, "index.html", title, os, 2, err);
	free(title);
	if (rc < 0)
		return -1;

	os[0] = s->o;
	os[0].kind = DPA_REPORT_RECURSION;
	os[0].limit = s->limit ? s->limit : s->o.limit;
	if (write_page(s, "recursion.html", NULL, os, 1, err) < 0)
		return -1;

	os[0] = s->o;
	os[0].kind = DPA_REPORT_PROC;
	os[0].limit = 0;
	for (uint32_t i = 0; i < s->n_pages; i++) {
		os[0].name = s->specs[i];
		snprintf(name, sizeof(name), "proc-%" PRIu32 ".html", s->pages[i]);
		if (write_page(s, name, NULL, os, 1, err) < 0)
			return -1;
	}

	os[0] = s->o;
	os[0].kind = DPA_REPORT_CLIQUE;
	os[0].limit = 0;
	for (uint32_t i = 0; i < s->n_cliques; i++) {
		os[0].id = s->cliques[i];
		snprintf(name, sizeof(name), "clique-%" PRIu32 ".html", s->cliques[i]);
		if (write_page(s, name, NULL, os, 1, err) < 0)
			return -1;
	}
	return 0;
}

/* The number N of a page name "<prefix>N.html" (N decimal, no leading
 * zero); 0 when name is not one. */
static uint64_t page_number(const char *name, const char *prefix)
{
	size_t pl = strlen(prefix);
	uint64_t n = 0;
	const char *c = name + pl;

	if (strncmp(name, prefix, pl) || *c < '1' || *c > '9')
		return 0;
	for (; *c >= '0' && *c <= '9'; c++) {
		if (n > (UINT64_MAX - 9) / 10)
			return 0;
		n = n * 10 + (uint64_t)(*c - '0');
	}
	return strcmp(c, ".html") ? 0 : n;
}

/* Remove the procedure and clique pages in s->dir that this site has not:
 * an earlier site's, whose links would mislead. Other files stay. */
static int remove_stale(struct site *s, struct dpa_error *err)
{
	const struct dpa_profile *p = s->p;
	uint8_t *have = calloc((size_t)p->n_ps + 1, 1);
	DIR *dir;
	struct dirent *e;
	int rc = 0;

	if (!have)
		return oom(s, err);
	for (uint32_t i = 0; i < s->n_pages; i++)
		if (s->pages[i] <= p->n_ps)
			have[s->pages[i]] = 1;
	if (!(dir = opendir(s->dir))) {
		free(have);
		snprintf(err->msg, sizeof(err->msg), "%s: cannot read the directory: %s", s->dir,
			 strerror(errno));
		return -1;
	}
	while ((e = readdir(dir))) {
		uint64_t n = page_number(e->d_name, "proc-"), c = page_number(e->d_name, "clique-");
		bool stale = n ? n > p->n_ps || !have[n] : c && (c > s->d->cl.n || !s->clique_page[c]);
		char *path;

		if (!stale)
			continue;
		if (asprintf(&path, "%s/%s", s->dir, e->d_name) < 0) {
			rc = oom(s, err);
			break;
		}
		if (unlink(path) < 0 && errno != ENOENT) {
			snprintf(err->msg, sizeof(err->msg), "%s: cannot remove an earlier site's page: %s",
				 path, strerror(errno));
			rc = -1;
		}
		free(path);
		if (rc < 0)
			break;
	}
	closedir(dir);
	free(have);
	return rc;
}

int dpa_html_site_write(const struct dpa_deep *d, const struct dpa_report_opts *o,
			const char *dir, uint32_t limit, uint32_t counts[2],
			struct dpa_error *err)
{
	struct site s = { .d = d, .p = d->p, .o = *o, .dir = dir, .limit = limit };
	int rc = -1;

	s.o.name = NULL;
	s.o.id = 0;
	if (make_dir(dir, err) < 0)
		return -1;
	if (plan(&s, err) == 0 && write_pages(&s, err) == 0 && remove_stale(&s, err) == 0)
		rc = 0;
	if (counts) {
		counts[0] = s.n_pages;
		counts[1] = s.n_cliques;
	}
	for (uint32_t i = 0; i < s.n_pages; i++)
		free(s.specs[i]);
	free(s.specs);
	free(s.pages);
	free(s.cliques);
	free(s.proc_page);
	free(s.clique_page);
	return rc;
}
