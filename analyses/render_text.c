/*
 * render_text.c — print a display as text: a title, "heading: value" blocks
 * for single nodes, aligned tables with human units (12.3k, 4.5 MB,
 * 1.23 ms, 12.3%) for lists. Times are ticks × the profile's ns_per_tick.
 * Part of deepprof's analyses library. MIT licence.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display.h"

#define CELL 160

void dpa_fmt_count(char *buf, size_t n, double v)
{
	static const char sfx[] = "kMGTPE";
	int i = -1;

	if (v < 10000.0) {
		if (v == floor(v))
			snprintf(buf, n, "%.0f", v);
		else
			snprintf(buf, n, v < 100.0 ? "%.2f" : "%.1f", v);
		return;
	}
	while (v >= 999.95 && i < 5) {
		v /= 1000.0;
		i++;
	}
	snprintf(buf, n, v < 9.995 ? "%.2f%c" : v < 99.95 ? "%.1f%c" : "%.0f%c", v, sfx[i]);
}

void dpa_fmt_bytes(char *buf, size_t n, double v)
{
	static const char *const sfx[] = { "kB", "MB", "GB", "TB", "PB", "EB" };
	int i = -1;

	if (v < 1000.0) {
		snprintf(buf, n, v == floor(v) ? "%.0f B" : "%.1f B", v);
		return;
	}
	while (v >= 999.95 && i < 5) {
		v /= 1000.0;
		i++;
	}
	snprintf(buf, n, v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s", v, sfx[i]);
}

void dpa_fmt_time(char *buf, size_t n, double ns)
{
	static const struct { double div; const char *unit; } u[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" },
	};

	if (ns == 0.0) {
		snprintf(buf, n, "0");
		return;
	}
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (ns >= u[i].div * 0.9995) {
			double v = ns / u[i].div;

			snprintf(buf, n, v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s", v,
				 u[i].unit);
			return;
		}
	snprintf(buf, n, "%.0f ns", ns);
}

void dpa_fmt_cell(const struct dpa_display *dp, const struct dpa_column *c,
		  const struct dpa_cell *x, char *buf, size_t n)
{
	double v;

	switch (x->type) {
	case DPA_CELL_NULL:
		snprintf(buf, n, "-");
		return;
	case DPA_CELL_STR:
		snprintf(buf, n, "%s", x->v.s);
		return;
	case DPA_CELL_BOOL:
		snprintf(buf, n, "%s", x->v.b ? "yes" : "no");
		return;
	case DPA_CELL_UINT:
		if (c->unit == DPA_UNIT_PLAIN) {
			snprintf(buf, n, "%" PRIu64, x->v.u);
			return;
		}
		v = (double)x->v.u;
		break;
	default:
		v = x->v.f;
		break;
	}
	switch (c->unit) {
	case DPA_UNIT_COUNT: dpa_fmt_count(buf, n, v); break;
	case DPA_UNIT_BYTES: dpa_fmt_bytes(buf, n, v); break;
	case DPA_UNIT_TICKS: dpa_fmt_time(buf, n, v * dp->ns_per_tick); break;
	case DPA_UNIT_NS: dpa_fmt_time(buf, n, v); break;
	case DPA_UNIT_PCT: snprintf(buf, n, v != 0.0 && v < 0.05 ? "%.2f%%" : "%.1f%%", v); break;
	case DPA_UNIT_RATIO: snprintf(buf, n, "%.2f", v); break;
	default: snprintf(buf, n, "%g", v); break;
	}
}

static void vertical(const struct dpa_display *dp, const struct dpa_table *t, FILE *f)
{
	char buf[CELL];
	int w = 0;

	fprintf(f, "\n%s\n", t->title);
	if (!t->nrows)
		return;
	for (int c = 0; c < t->ncol; c++)
		if (!(t->col[c].flags & DPA_COL_NOTEXT) && (int)strlen(t->col[c].head) > w)
			w = strlen(t->col[c].head);
	for (int c = 0; c < t->ncol; c++) {
		if (t->col[c].flags & DPA_COL_NOTEXT)
			continue;
		dpa_fmt_cell(dp, &t->col[c], &t->cell[c], buf, CELL);
		fprintf(f, "  %-*s  %s\n", w + 1, t->col[c].head, buf);
	}
}

static void horizontal(const struct dpa_display *dp, const struct dpa_table *t, FILE *f)
{
	int w[DPA_DISPLAY_MAX_COLS] = { 0 }, last = -1;
	char buf[CELL];

	fprintf(f, "\n%s", t->title);
	if (t->total_rows > t->nrows)
		fprintf(f, " (%u of %u shown)", t->nrows, t->total_rows);
	else
		fprintf(f, " (%u)", t->nrows);
	fputc('\n', f);
	if (!t->nrows)
		return;
	for (int c = 0; c < t->ncol; c++) {
		if (t->col[c].flags & DPA_COL_NOTEXT)
			continue;
		w[c] = strlen(t->col[c].head);
		last = c;
		for (uint32_t r = 0; r < t->nrows; r++) {
			int n;

			dpa_fmt_cell(dp, &t->col[c], &t->cell[(size_t)r * t->ncol + c], buf, CELL);
			n = strlen(buf);
			if (n > w[c])
				w[c] = n;
		}
	}
	for (uint32_t r = 0; r <= t->nrows; r++) {
		fputc(' ', f);
		for (int c = 0; c < t->ncol; c++) {
			const struct dpa_column *col = &t->col[c];
			const char *s = col->head;

			if (col->flags & DPA_COL_NOTEXT)
				continue;
			if (r) {
				dpa_fmt_cell(dp, col, &t->cell[(size_t)(r - 1) * t->ncol + c], buf, CELL);
				s = buf;
			}
			if (!(col->flags & DPA_COL_LEFT))
				fprintf(f, " %*s", w[c], s);
			else if (c == last)
				fprintf(f, " %s", s);
			else
				fprintf(f, " %-*s", w[c], s);
		}
		fputc('\n', f);
	}
}

int dpa_render_text(const struct dpa_display *dp, FILE *f)
{
	fprintf(f, "%s\n", dp->title);
	fprintf(f, "profile: %s   program: %s\n", dp->file, dp->program);
	if (dp->ns_per_tick > 0.0) {
		char buf[CELL];

		dpa_fmt_time(buf, sizeof(buf), dp->ns_per_tick);
		fprintf(f, "time = timer ticks x %s per tick\n", buf);
	} else {
		fprintf(f, "time: the timer was off (no ticks)\n");
	}
	if (dp->sampled) {
		fprintf(f, "sampled profile (deepprof record): times only; calls and call sequence "
			"counts are unknown\n");
		for (uint64_t b = 1; b && b <= dp->record_flags; b <<= 1)
			if (dp->record_flags & b)
				fprintf(f, "warning: %s: times may be wrong\n", dpa_record_flag_text(b));
	}
	for (int i = 0; i < dp->ntab; i++) {
		if (dp->tab[i].vertical)
			vertical(dp, &dp->tab[i], f);
		else
			horizontal(dp, &dp->tab[i], f);
	}
	return ferror(f) ? -1 : 0;
}
