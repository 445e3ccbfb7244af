/*
 * flame.c — icicles (flame graphs drawn from the top) as inline SVG: the
 * deep structure with each clique one frame per calling context
 * (dpa_flame_svg), and a diff's contexts coloured by change
 * (dpa_flame_diff_svg). Part of deepprof's analyses library. MIT licence.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"

#define ROW 17                  /* pixels per level */
#define MAX_FRAMES 4000
#define MAX_DEPTH 200
#define HREF 4096

struct frame {
	uint32_t clique;
	uint32_t depth;
	uint64_t v;
	double x;               /* 0..1 of the whole */
	uint32_t thread;
	uint32_t parent;        /* the parent frame's index + 1; 0: a root */
};

struct kid {
	uint32_t clique;
	uint64_t v;
};

static int by_clique(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;

	return x->clique < y->clique ? -1 : x->clique > y->clique;
}

static int by_value(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;

	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return x->clique < y->clique ? -1 : x->clique > y->clique;
}

/* The procedure a clique's frame is named after: its primary entry's
 * callee, or its first member. */
static uint32_t entry_pd(const struct dpa_deep *d, uint32_t c)
{
	uint32_t e = dpa_clique_primary_entry(&d->cl, c), n;

	if (e)
		return d->p->csd[e].callee_pd;
	return dpa_clique_members(&d->cl, c, &n)[0];
}

/* Text for SVG: & < > " escaped, bytes below 0x20 dropped. */
static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
	}
}

/* A warm colour from the name, so a procedure keeps its colour. */
static void colour(const char *s, char *buf, size_t n)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	snprintf(buf, n, "rgb(%u,%u,%u)", 205 + h % 50, 80 + (h >> 8) % 130, 40 + (h >> 16) % 50);
}

/* One frame: rect, clipped label, tooltip, link. */
static void draw(FILE *f, double x, double w, uint32_t depth, const char *label, const char *fill,
		 const char *tip, const char *href, const char *data)
{
	size_t fit = w > 12 ? (size_t)((w - 6) / 6.5) : 0;

	fputs("<g>", f);
	if (href) {
		fputs("<a href=\"", f);
		esc(f, href);
		fputs("\">", f);
	}
	fprintf(f, "<rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"%u\" fill=\"%s\"%s/>", x,
		depth * ROW, w, ROW - 1, fill, data ? data : "");
	if (fit >= 3) {
		size_t len = strlen(label);

		fprintf(f, "<text x=\"%.1f\" y=\"%u\">", x + 3, depth * ROW + ROW - 5);
		if (len <= fit) {
			esc(f, label);
		} else {
			char cut[512];

			snprintf(cut, sizeof(cut), "%.*s..", (int)(fit - 2 < sizeof(cut) - 3 ? fit - 2 : 100),
				 label);
			esc(f, cut);
		}
		fputs("</text>", f);
	}
	fputs("<title>", f);
	esc(f, tip);
	fputs("</title>", f);
	if (href)
		fputs("</a>", f);
	fputs("</g>\n", f);
}

/* The frames of the icicle, breadth first (each frame's children after
 * it), into *out (malloc'd, *n of them); *all the whole program's cost,
 * *maxd the deepest level. Returns 0 or -1 out of memory. */
static int frames(const struct dpa_deep *d, enum dpa_measure m, double min_pct, struct frame **out,
		  uint32_t *nout, uint32_t *maxdout, uint64_t *allout)
{
	const struct dpa_profile *p = d->p;
	struct frame *fr = malloc(MAX_FRAMES * sizeof(*fr));
	struct kid *kids = NULL;
	size_t nk, capk = 0;
	uint32_t n = 0, maxd = 0;
	uint64_t all = 0, min;

	if (!fr)
		return -1;
	for (uint32_t t = 1; t <= p->n_thread; t++)
		all += dpa_deep_thread_total(d, t, m);
	min = (uint64_t)(min_pct / 100.0 * (double)all);
	if (!min)
		min = 1;
	/* the thread roots, side by side */
	{
		double x = 0;

		for (uint32_t t = 1; t <= p->n_thread && n < MAX_FRAMES; t++) {
			uint64_t v = dpa_deep_thread_total(d, t, m);

			fr[n++] = (struct frame){ .clique = dpa_clique_of(&d->cl, p->thread[t].root_pd),
						  .v = v, .x = x, .thread = t };
			x += all ? (double)v / (double)all : 0;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t nm;
		const uint32_t *mem = dpa_clique_members(&d->cl, fr[i].clique, &nm);
		double x = fr[i].x;

		if (fr[i].depth + 1 >= MAX_DEPTH)
			continue;
		nk = 0;
		for (uint32_t k = 0; k < nm; k++) {
			const struct dpa_pd *q = &p->pd[mem[k]];

			for (uint32_t j = 0; j < dpa_pd_out_n(q); j++) {
				uint32_t c = dpa_out_csd(p, q->out_first + j);
				uint64_t v;

				if (dpa_csd_internal(&d->cl, p, c))
					continue;
				v = dpa_deep_csd_total(d, c, m);
				if (v < min)
					continue;
				if (nk == capk) {
					size_t cap = capk ? 2 * capk : 64;
					struct kid *w = realloc(kids, cap * sizeof(*w));

					if (!w) {
						free(kids);
						free(fr);
						return -1;
					}
					kids = w;
					capk = cap;
				}
				kids[nk++] = (struct kid){ dpa_clique_of(&d->cl, p->csd[c].callee_pd), v };
			}
		}
		if (nk > 1) {
			size_t o = 0;

			qsort(kids, nk, sizeof(*kids), by_clique);
			for (size_t k = 1; k < nk; k++) {
				if (kids[k].clique == kids[o].clique)
					kids[o].v += kids[k].v;
				else
					kids[++o] = kids[k];
			}
			nk = o + 1;
			qsort(kids, nk, sizeof(*kids), by_value);
		}
		for (size_t k = 0; k < nk && n < MAX_FRAMES; k++) {
			fr[n++] = (struct frame){ .clique = kids[k].clique, .v = kids[k].v, .x = x,
						  .depth = fr[i].depth + 1, .thread = fr[i].thread,
						  .parent = i + 1 };
			if (fr[i].depth + 1 > maxd)
				maxd = fr[i].depth + 1;
			x += all ? (double)kids[k].v / (double)all : 0;
		}
	}
	free(kids);
	*out = fr;
	*nout = n;
	*maxdout = maxd;
	*allout = all;
	return 0;
}

/* A frame's label: the clique's entry procedure (+ its other members), or
 * "all" / "thread N" for a root. */
static void label_of(const struct dpa_deep *d, const struct frame *fr, char *label, size_t n)
{
	const struct dpa_profile *p = d->p;
	uint32_t nm;
	const char *name = dpa_ps_name(p, p->pd[entry_pd(d, fr->clique)].ps);

	(void)dpa_clique_members(&d->cl, fr->clique, &nm);
	if (!fr->depth && p->n_thread > 1)
		snprintf(label, n, "thread %u", fr->thread);
	else if (!fr->depth)
		snprintf(label, n, "all");
	else if (nm > 1)
		snprintf(label, n, "%s +%u", name, nm - 1);
	else
		snprintf(label, n, "%s", name);
}

json_t *dpa_flame_json(const struct dpa_deep *d, enum dpa_measure m, double min_pct)
{
	struct frame *fr;
	uint32_t n, maxd;
	uint64_t all;
	json_t *a, *doc;

	if (frames(d, m, min_pct, &fr, &n, &maxd, &all) < 0)
		return NULL;
	a = json_array();
	for (uint32_t i = 0; a && i < n; i++) {
		char label[300];
		uint32_t nm;

		(void)dpa_clique_members(&d->cl, fr[i].clique, &nm);
		label_of(d, &fr[i], label, sizeof(label));
		if (json_array_append_new(a, json_pack("{s:I, s:s, s:I, s:I, s:I, s:I, s:f, s:I}",
						       "clique", (json_int_t)fr[i].clique, "name", label,
						       "members", (json_int_t)nm,
						       "depth", (json_int_t)fr[i].depth,
						       "parent", (json_int_t)fr[i].parent,
						       "value", (json_int_t)fr[i].v, "x", fr[i].x,
						       "thread", (json_int_t)fr[i].thread)) < 0) {
			json_decref(a);
			a = NULL;
		}
	}
	free(fr);
	if (!a)
		return NULL;
	doc = json_pack("{s:i, s:s, s:s, s:I, s:f, s:o}", "version", 1, "report", "flame",
			"measure", dpa_measure_name(m), "total", (json_int_t)all, "min_pct", min_pct,
			"frames", a);
	return doc;
}

int dpa_flame_svg(FILE *f, const struct dpa_deep *d, enum dpa_measure m, dpa_flame_href href,
		  void *ctx, unsigned width, double min_pct)
{
	const struct dpa_profile *p = d->p;
	struct frame *fr;
	uint32_t n, maxd;
	uint64_t all;
	char *link = malloc(HREF);

	if (!link || frames(d, m, min_pct, &fr, &n, &maxd, &all) < 0) {
		free(link);
		return -1;
	}
	fprintf(f, "<svg class=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\""
		" viewBox=\"0 0 %u %u\" data-frames=\"%u\">\n", width, (maxd + 1) * ROW, width,
		(maxd + 1) * ROW, n);
	for (uint32_t i = 0; i < n; i++) {
		char tip[1024], fill[48], label[300], data[64];
		const char *name;
		uint32_t nm, pd = entry_pd(d, fr[i].clique);
		double w = all ? (double)fr[i].v / (double)all * width : 0;
		bool root = fr[i].depth == 0;

		if (w < 0.3)
			continue;
		(void)dpa_clique_members(&d->cl, fr[i].clique, &nm);
		name = dpa_ps_name(p, p->pd[pd].ps);
		label_of(d, &fr[i], label, sizeof(label));
		snprintf(tip, sizeof(tip), "%s: %" PRIu64 " %s total (%.2f%%)%s", label, fr[i].v,
			 dpa_measure_name(m), all ? 100.0 * (double)fr[i].v / (double)all : 0.0,
			 nm > 1 ? ", a recursive clique" : "");
		colour(root ? "all" : name, fill, sizeof(fill));
		if (root)
			snprintf(fill, sizeof(fill), "rgb(200,200,210)");
		snprintf(data, sizeof(data), " data-clique=\"%u\"", fr[i].clique);
		draw(f, fr[i].x * width, w, fr[i].depth, label, fill, tip,
		     href && href(ctx, NULL, NULL, 0, DPA_LINK_CLIQUE, fr[i].clique, link, HREF) ? link : NULL,
		     data);
	}
	fputs("</svg>\n", f);
	free(fr);
	free(link);
	return ferror(f) ? -1 : 0;
}

int dpa_flame_diff_svg(FILE *f, const struct dpa_flame_diff_node *nodes, uint32_t n,
		       unsigned width)
{
	double *x = malloc((n + 1) * sizeof(*x)), *next = malloc((n + 1) * sizeof(*next));
	uint32_t *depth = malloc((n + 1) * sizeof(*depth)), maxd = 0;
	uint64_t all = 0;

	if (!x || !depth || !next) {
		free(x);
		free(depth);
		free(next);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		if (!nodes[i].parent)
			all += nodes[i].old_v > nodes[i].new_v ? nodes[i].old_v : nodes[i].new_v;
	{
		double top = 0;

		for (uint32_t i = 0; i < n; i++) {
			uint64_t v = nodes[i].old_v > nodes[i].new_v ? nodes[i].old_v : nodes[i].new_v;
			double w = all ? (double)v / (double)all : 0;

			if (!nodes[i].parent) {
				x[i] = top;
				depth[i] = 0;
				top += w;
			} else {
				uint32_t pa = nodes[i].parent - 1;

				x[i] = next[pa];
				depth[i] = depth[pa] + 1;
			}
			next[i] = x[i];
			if (nodes[i].parent)
				next[nodes[i].parent - 1] += w;
			if (depth[i] > maxd)
				maxd = depth[i];
		}
	}
	fprintf(f, "<svg class=\"flame diff\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\""
		" viewBox=\"0 0 %u %u\" data-frames=\"%u\">\n", width, (maxd + 1) * ROW, width,
		(maxd + 1) * ROW, n);
	for (uint32_t i = 0; i < n; i++) {
		const struct dpa_flame_diff_node *q = &nodes[i];
		uint64_t v = q->old_v > q->new_v ? q->old_v : q->new_v;
		double w = all ? (double)v / (double)all * width : 0, rel;
		char tip[1024], fill[48], data[96];
		int shade;

		if (w < 0.3)
			continue;
		rel = q->old_v ? ((double)q->new_v - (double)q->old_v) / (double)q->old_v
		      : q->new_v ? 1.0 : 0.0;
		shade = (int)((rel > 1 ? 1 : rel < -1 ? -1 : rel) * 150);
		if (q->new_v > q->old_v)
			snprintf(fill, sizeof(fill), "rgb(255,%d,%d)", 210 - (shade > 0 ? shade : 0),
				 210 - (shade > 0 ? shade : 0));
		else if (q->new_v < q->old_v)
			snprintf(fill, sizeof(fill), "rgb(%d,255,%d)", 210 + (shade < 0 ? shade : 0),
				 210 + (shade < 0 ? shade : 0));
		else
			snprintf(fill, sizeof(fill), "rgb(215,215,215)");
		snprintf(tip, sizeof(tip), "%s: %" PRIu64 " -> %" PRIu64 " (%+" PRId64 ")", q->label, q->old_v,
			 q->new_v, (int64_t)(q->new_v - q->old_v));
		snprintf(data, sizeof(data), " data-old=\"%" PRIu64 "\" data-new=\"%" PRIu64 "\"", q->old_v,
			 q->new_v);
		draw(f, x[i] * width, w, depth[i], q->label, fill, tip, q->href, data);
	}
	fputs("</svg>\n", f);
	free(x);
	free(depth);
	free(next);
	return ferror(f) ? -1 : 0;
}
