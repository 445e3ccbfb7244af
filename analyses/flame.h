/*
 * flame.h — the deep structure as an icicle (a flame graph drawn from the
 * top): one frame per clique in each calling context, recursion folded into
 * its clique, as inline SVG (nothing fetched), each frame a link.
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_FLAME_H
#define DPA_FLAME_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "display.h"
#include "startup.h"

/* The link hook of struct dpa_html_site (display.h); called with
 * DPA_LINK_CLIQUE and a clique id (dp and t NULL). NULL: no links. */
typedef bool (*dpa_flame_href)(void *ctx, const struct dpa_display *dp, const struct dpa_table *t,
			       uint32_t row, int kind, uint64_t id, char *buf, size_t n);

/*
 * Write the icicle of *d by measure m (each frame as wide as its total
 * cost; threads side by side under "all") as one <svg class="flame"> of
 * `width` pixels. Frames narrower than min_pct percent of the whole are
 * left out, and at most 4000 frames and 200 levels are drawn. Returns 0,
 * or -1 out of memory.
 */
int dpa_flame_svg(FILE *f, const struct dpa_deep *d, enum dpa_measure m, dpa_flame_href href,
		  void *ctx, unsigned width, double min_pct);

/* The same frames as JSON, the flame page's twin: {"version": 1, "report":
 * "flame", "measure", "total", "min_pct", "frames": [{"clique", "name",
 * "members", "depth", "parent" (index + 1 of the parent frame, 0 for a
 * root), "value", "x" (0..1, where it starts), "thread"}]}, parents before
 * children. A new reference, or NULL out of memory. */
json_t *dpa_flame_json(const struct dpa_deep *d, enum dpa_measure m, double min_pct);

/* One frame of a diff's icicle: the same layout, each frame coloured by
 * its change: red dearer, green cheaper, grey the same, the width the
 * larger side. (flame_diff in flame.c; cmd-free.) */
struct dpa_flame_diff_node {
	const char *label;
	uint64_t old_v, new_v;
	uint32_t parent;        /* index of the parent frame + 1; 0: a top frame */
	const char *href;       /* may be NULL */
};

/* Frames in parent-before-child order. Returns 0 or -1 out of memory. */
int dpa_flame_diff_svg(FILE *f, const struct dpa_flame_diff_node *nodes, uint32_t n,
		       unsigned width);

#endif
