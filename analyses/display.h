/*
 * display.h — a format-neutral display (Mercury's report_to_display): a
 * report turned into titled tables of typed cells, which render_text.c and
 * render_json.c print. A cell knows its kind of value (count, bytes, ticks,
 * percentage, name) so each renderer can choose its own units.
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_DISPLAY_H
#define DPA_DISPLAY_H

#include <stdio.h>

#include "report.h"

/* What a column's numbers are: renderers choose units from this. */
enum dpa_unit {
	DPA_UNIT_PLAIN,         /* ids, line numbers: as is */
	DPA_UNIT_COUNT,         /* calls, cscs, allocs: 12.3k in text */
	DPA_UNIT_BYTES,         /* 4.5 MB in text */
	DPA_UNIT_TICKS,         /* timer ticks: text shows ticks × ns_per_tick as a time */
	DPA_UNIT_NS,            /* nanoseconds: a time */
	DPA_UNIT_PCT,           /* a percentage: 12.3% */
	DPA_UNIT_RATIO,         /* a plain real: 2 decimals */
};

enum dpa_cell_type { DPA_CELL_NULL, DPA_CELL_STR, DPA_CELL_UINT, DPA_CELL_REAL, DPA_CELL_BOOL };

struct dpa_cell {
	uint8_t type;           /* enum dpa_cell_type */
	union {
		const char *s;  /* owned by the display or the profile */
		uint64_t u;
		double f;
		bool b;
	} v;
};

enum dpa_col_flags {
	DPA_COL_LEFT = 1,       /* text: left-aligned */
	DPA_COL_NOTEXT = 2,     /* JSON only */
	DPA_COL_NOJSON = 4,     /* text only */
};

#define DPA_DISPLAY_MAX_COLS 40

struct dpa_column {
	const char *key;        /* JSON key */
	const char *head;       /* text heading */
	uint8_t unit;           /* enum dpa_unit */
	uint8_t flags;          /* enum dpa_col_flags */
};

/*
 * A table: rows × columns of cells, row-major. A vertical table has one row
 * and is shown as "heading: value" lines (JSON: an object, not an array).
 * total_rows: rows there were before a limit or threshold cut them.
 */
struct dpa_table {
	const char *name;       /* JSON key */
	const char *title;      /* text heading */
	bool vertical;
	int ncol;
	struct dpa_column col[DPA_DISPLAY_MAX_COLS];
	uint32_t nrows, cap, total_rows;
	struct dpa_cell *cell;  /* [nrows * ncol] */
};

#define DPA_DISPLAY_MAX_TABLES 8

struct dpa_display {
	const char *report;     /* "summary", "top", ... */
	const char *file;
	const char *program;
	double ns_per_tick;
	bool sampled;           /* a sampled profile (`deepprof record`): calls, exits and
				 * cscs are unknown, their columns are not shown in text */
	uint64_t record_flags;  /* its marks (enum dpa_record_flags) */
	char *title;            /* one line saying what the report shows */
	const struct dpa_report_opts *o;
	int ntab;
	struct dpa_table tab[DPA_DISPLAY_MAX_TABLES];
	char **strs;            /* strings the display owns */
	uint32_t nstrs, capstrs;
};

/* Turn *r into *dp. *r must outlive *dp (names point into its profile).
 * Returns 0, or -1 with err set (out of memory; *dp then holds nothing). */
int dpa_report_display(struct dpa_display *dp, const struct dpa_report *r,
		       struct dpa_error *err);

/* Free what *dp owns; *dp is then zeroed. Zeroed: no-op. */
void dpa_display_release(struct dpa_display *dp);

/* The renderers: print *dp to f. Return 0, or -1 if writing failed
 * (render_json: or out of memory). */
int dpa_render_text(const struct dpa_display *dp, FILE *f);
int dpa_render_json(const struct dpa_display *dp, FILE *f);

/*
 * render_html.c: the pages of a site (dpa_html_site_write) that links in a
 * page may point to. proc_page[ps] (for 1 <= ps <= p->n_ps) is the ps whose
 * page "proc-<that ps>.html" shows ps, 0 when none does; clique_page[c] (for
 * 1 <= c <= n_cliques) is nonzero when "clique-<c>.html" exists; a call site
 * links to its row ("#site-<css>") on its procedure's page. All borrowed.
 */
struct dpa_html_site {
	const struct dpa_profile *p;
	const uint32_t *proc_page;
	const uint8_t *clique_page;
	uint32_t n_cliques;
	bool recursion;         /* recursion.html exists */
	uint32_t max_rows;      /* > 0: a list shows at most this many rows, the
				 * largest by its "pct" column (else the first) */
	/* When set, links come from href instead (proc_page, clique_page
	 * unused): it writes the URL for a cell naming a procedure (kind
	 * DPA_LINK_PS, id its ps), a clique (DPA_LINK_CLIQUE) or a call site
	 * (DPA_LINK_CSS) into buf[n] and returns true, or returns false for
	 * no link. row: the table's row (for tables whose rows are contexts). */
	bool (*href)(void *ctx, const struct dpa_display *dp, const struct dpa_table *t,
		     uint32_t row, int kind, uint64_t id, char *buf, size_t n);
	void *href_ctx;
	bool sortable;          /* lists get data-sort headings (the page's script sorts) */
};

enum { DPA_LINK_PS = 1, DPA_LINK_CLIQUE = 2, DPA_LINK_CSS = 3, DPA_LINK_PD = 4 };

/* The tables of *dp as HTML (what dpa_render_html puts between the title
 * and the end), headings at level h. For pages built around them. */
void dpa_render_html_tables(const struct dpa_display *dp, const struct dpa_html_site *site,
			    FILE *f, int h);
/* s escaped as HTML text or attribute value (render_html.c's rules). */
void dpa_html_escape(FILE *f, const char *s);

/* The rows a list shows at most on a page of a site (dpa_html_site_write). */
#define DPA_HTML_SITE_ROWS 1000

/* Print *dp to f as one self-contained HTML5 page (inline CSS, no script):
 * text's human units, raw values in data-v and title attributes, every
 * string escaped. site: the site the page belongs to, whose pages names
 * link to; NULL for a lone page without links. Returns 0, or -1 if writing
 * failed. */
int dpa_render_html(const struct dpa_display *dp, const struct dpa_html_site *site, FILE *f);

/*
 * Write the static site of *d into dir (created with its parents; existing
 * files replaced, each page atomically; the proc-N.html and clique-N.html
 * of an earlier site that this one has not are removed, other files
 * kept): index.html (summary and top
 * procedures as *o asks), recursion.html, proc-<ps>.html for the `limit`
 * procedures costliest by total o->sort, clique-<id>.html for the `limit`
 * costliest recursive cliques, all linked; lists of more than
 * DPA_HTML_SITE_ROWS rows show that many. counts (may be NULL) gets the
 * numbers of procedure and clique pages. Returns 0, or -1 with err naming
 * the directory or file (cannot create or write, out of memory).
 */
int dpa_html_site_write(const struct dpa_deep *d, const struct dpa_report_opts *o,
			const char *dir, uint32_t limit, uint32_t counts[2],
			struct dpa_error *err);

/* Text units (render_text.c), exposed for tests: write v into buf. */
void dpa_fmt_count(char *buf, size_t n, double v);
void dpa_fmt_bytes(char *buf, size_t n, double v);
void dpa_fmt_time(char *buf, size_t n, double ns);
/* A cell as the text renderer shows it (human units by the column's unit;
 * "-" for an empty cell), into buf[n]. */
void dpa_fmt_cell(const struct dpa_display *dp, const struct dpa_column *c,
		  const struct dpa_cell *x, char *buf, size_t n);

#endif
