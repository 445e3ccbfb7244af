/*
 * pages_diff.c — the browser's diff of two profiles (`deepprof serve OLD
 * NEW`): totals, a red/green icicle of the contexts, the procedures and
 * contexts that changed (analyses/diff.c matches them).
 * Part of deepprof's analyses library. MIT licence.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display.h"
#include "flame.h"
#include "merge.h"
#include "pages_int.h"

static enum dpa_diff_measure diff_measure(enum dpa_measure m)
{
	switch (m) {
	case DPA_CALLS: return DPA_DIFF_CALLS;
	case DPA_TICKS: return DPA_DIFF_TICKS;
	case DPA_ALLOCS: return DPA_DIFF_ALLOCS;
	case DPA_BYTES: return DPA_DIFF_BYTES;
	default: return DPA_DIFF_CSCS;
	}
}

/* The red/green icicle of the diff's contexts by measure dm: each context
 * as wide as its inclusive cost on the larger side. */
static int diff_flame(struct page *w, enum dpa_diff_measure dm)
{
	struct dpa_diff *df = &w->s->diff;
	const struct dpa_profile *o = &df->m.prof;
	uint32_t n = o->n_pd, *order = NULL, *depth = NULL, *idx = NULL, nn = 0;
	uint64_t *ov = NULL, *nv = NULL, all = 0;
	struct dpa_flame_diff_node *nodes = NULL;
	char **labels = NULL;
	int rc = -1;

	order = malloc((n + 1) * sizeof(*order));
	depth = calloc(n + 1, sizeof(*depth));
	idx = calloc(n + 1, sizeof(*idx));
	ov = calloc(n + 1, sizeof(*ov));
	nv = calloc(n + 1, sizeof(*nv));
	if (!order || !depth || !idx || !ov || !nv)
		goto out;
	for (uint32_t r = 0; r < df->n_ctx; r++) {
		ov[df->ctx[r].id] = df->ctx[r].old[dm];
		nv[df->ctx[r].id] = df->ctx[r].new_[dm];
	}
	/* depth by the breadth-first parents; pds then sorted by depth */
	for (uint32_t k = 1; k <= n; k++) {
		uint32_t dd = 0, x = k;

		while (df->m.bfs_parent_csd[x] && dd < 100000) {
			x = o->csd[df->m.bfs_parent_csd[x]].caller_pd;
			dd++;
		}
		depth[k] = dd;
		order[k - 1] = k;
	}
	{
		/* counting sort by depth: parents before children */
		uint32_t maxd = 0, *start;

		for (uint32_t k = 1; k <= n; k++)
			if (depth[k] > maxd)
				maxd = depth[k];
		start = calloc((size_t)maxd + 2, sizeof(*start));
		if (!start)
			goto out;
		for (uint32_t k = 1; k <= n; k++)
			start[depth[k] + 1]++;
		for (uint32_t dd = 1; dd <= maxd + 1; dd++)
			start[dd] += start[dd - 1];
		for (uint32_t k = 1; k <= n; k++)
			order[start[depth[k]]++] = k;
		free(start);
	}
	/* inclusive sums, children before parents */
	for (uint32_t i = n; i-- > 0;) {
		uint32_t k = order[i], pc = df->m.bfs_parent_csd[k];

		if (pc) {
			ov[o->csd[pc].caller_pd] += ov[k];
			nv[o->csd[pc].caller_pd] += nv[k];
		}
	}
	for (uint32_t i = 0; i < n; i++)
		if (!df->m.bfs_parent_csd[order[i]])
			all += ov[order[i]] > nv[order[i]] ? ov[order[i]] : nv[order[i]];
	nodes = calloc(n + 1, sizeof(*nodes));
	labels = calloc(n + 1, sizeof(*labels));
	if (!nodes || !labels)
		goto out;
	for (uint32_t i = 0; i < n && nn < 3000; i++) {
		uint32_t k = order[i], pc = df->m.bfs_parent_csd[k], parent = 0;
		uint64_t v = ov[k] > nv[k] ? ov[k] : nv[k];
		char lab[256];

		if (pc) {
			parent = idx[o->csd[pc].caller_pd];
			if (!parent)
				continue;       /* its parent was too narrow */
		}
		if (all && (double)v / (double)all < 0.002)
			continue;
		if (o->pd[k].ps == 1)
			snprintf(lab, sizeof(lab), o->n_thread > 1 ? "thread %u" : "all", dpa_pd_thread(o, k));
		else
		{
			char b2[256];

			snprintf(lab, sizeof(lab), "%s", dpa_merge_ps_label(o, o->pd[k].ps, b2, sizeof(b2)));
		}
		labels[nn] = strdup(lab);
		nodes[nn] = (struct dpa_flame_diff_node){ .label = labels[nn] ? labels[nn] : "?",
							  .old_v = ov[k], .new_v = nv[k], .parent = parent };
		idx[k] = ++nn;
	}
	rc = dpa_flame_diff_svg(w->f, nodes, nn, 1200);
out:
	if (labels)
		for (uint32_t i = 0; i < nn; i++)
			free(labels[i]);
	free(labels);
	free(nodes);
	free(order);
	free(depth);
	free(idx);
	free(ov);
	free(nv);
	return rc;
}

static void diff_rows(struct page *w, bool procs, enum dpa_diff_measure dm, uint32_t limit)
{
	struct dpa_diff *df = &w->s->diff;
	const struct dpa_diff_row *rows = procs ? df->procs : df->ctx;
	uint32_t n = procs ? df->n_procs : df->n_ctx, shown = 0;
	char lab[256];

	fprintf(w->f, "<h2>%s, by the change of %s</h2>\n<table id=\"diff-%s\"><thead><tr>"
		"<th class=\"l\" data-sort=\"1\">status</th><th class=\"n\" data-sort=\"1\">old</th>"
		"<th class=\"n\" data-sort=\"1\">new</th><th class=\"n\" data-sort=\"1\">change</th>"
		"<th class=\"n\" data-sort=\"1\">relative</th><th class=\"l\" data-sort=\"1\">%s</th></tr></thead>\n<tbody>\n",
		procs ? "Procedures" : "Contexts (matched by their paths of call sites)",
		dpa_diff_measure_name(dm), procs ? "procedures" : "contexts", procs ? "procedure" : "context");
	for (uint32_t r = 0; r < n && (!limit || shown < limit); r++) {
		const struct dpa_diff_row *x = &rows[r];
		int64_t dlt = dpa_diff_delta(x->old[dm], x->new_[dm]);
		double rel = dpa_diff_relative(x->old[dm], x->new_[dm]);
		char *name;

		if (x->status == DPA_DIFF_SAME)
			continue;
		name = procs ? NULL : dpa_diff_context_name(df, x->id);
		shown++;
		fprintf(w->f, "<tr class=\"%s\"><td class=\"l\">%s</td><td class=\"n\" data-v=\"%" PRIu64 "\">%"
			PRIu64 "</td><td class=\"n\" data-v=\"%" PRIu64 "\">%" PRIu64 "</td>"
			"<td class=\"n\" data-v=\"%" PRId64 "\" style=\"color:%s\">%+" PRId64 "</td><td class=\"n\" data-v=\"%s\">",
			dpa_diff_status_name(x->status), dpa_diff_status_name(x->status), x->old[dm], x->old[dm],
			x->new_[dm], x->new_[dm], dlt, dlt > 0 ? "#b00" : dlt < 0 ? "#070" : "#555", dlt,
			isnan(rel) ? "" : "r");
		if (isnan(rel))
			fputs("new", w->f);
		else
			fprintf(w->f, "%+.1f%%", 100.0 * rel);
		fputs("</td><td class=\"l\">", w->f);
		{
			const char *text = procs ? dpa_merge_ps_label(&df->m.prof, x->id, lab, sizeof(lab))
					   : name ? name : "?";
			uint32_t o = !w->s->old_pd ? 0 : procs ? w->s->old_ps[x->id] : w->s->old_pd[x->id];
			char *pp = NULL, *cq = NULL;

			/* in OLD too: a link to its page there */
			if (o && procs && asprintf(&pp, "/proc/%s", dpa_pg_ps_spec(w->s, o)) >= 0)
				dpa_pg_link(w, pp, NULL, NULL, text);
			else if (o && !procs && (cq = dpa_pg_ctx_query(w->s, o)))
				dpa_pg_link(w, "/clique", cq, NULL, text);
			else
				dpa_html_escape(w->f, text);
			free(pp);
			free(cq);
		}
		fputs("</td></tr>\n", w->f);
		free(name);
	}
	fputs("</tbody></table>\n", w->f);
}

int dpa_pg_page_diff(struct page *w)
{
	struct dpa_diff *df = &w->s->diff;
	enum dpa_diff_measure dm = diff_measure(w->q.sort);

	if (!w->s->has_diff)
		return dpa_pg_fail(w, 404, "no diff: serve two profiles (deepprof serve OLD NEW) to compare them");
	dpa_diff_sort(df, dm);
	if (w->q.json) {
		/* what `deepprof diff --json --sort=M [--limit=N] OLD NEW` prints */
		json_t *doc = dpa_diff_json(df, dm, w->q.limit >= 0 ? (size_t)w->q.limit : 0);

		return dpa_pg_put_json(w, doc);
	}
	dpa_pg_page_begin(w, "Diff by context", "/diff", NULL);
	fputs("<p class=\"meta\">old: ", w->f);
	dpa_html_escape(w->f, df->old_path);
	fputs(" &nbsp; new: ", w->f);
	dpa_html_escape(w->f, df->new_path);
	fputs("</p>\n<table class=\"kv\" id=\"diff-totals\"><tbody>\n", w->f);
	for (int m = 0; m < DPA_DIFF_NMEASURES; m++)
		fprintf(w->f, "<tr><th>%s</th><td class=\"n\" data-v=\"%" PRIu64 "\">%" PRIu64 "</td>"
			"<td class=\"n\">&rarr;</td><td class=\"n\" data-v=\"%" PRIu64 "\">%" PRIu64 "</td>"
			"<td class=\"n\">%+" PRId64 "</td></tr>\n", dpa_diff_measure_name(m),
			df->old_sum[m], df->old_sum[m], df->new_sum[m], df->new_sum[m],
			dpa_diff_delta(df->old_sum[m], df->new_sum[m]));
	fputs("</tbody></table>\n<h2>Flame graph of the change (red: dearer, green: cheaper; width: the"
	      " larger side)</h2>\n", w->f);
	if (diff_flame(w, dm) < 0)
		return dpa_pg_fail(w, 500, "out of memory drawing the diff");
	diff_rows(w, true, dm, w->q.limit >= 0 ? (uint32_t)w->q.limit : 50);
	diff_rows(w, false, dm, w->q.limit >= 0 ? (uint32_t)w->q.limit : 50);
	dpa_pg_page_end(w);
	return 0;
}

