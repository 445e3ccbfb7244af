/*
 * pages_modules.c — the browser's modules (a program's source files and
 * objects): their list, one module's procedures, and contour exclusion
 * (charging a set of modules to the calls into them; Mercury's exclude.m).
 * Part of deepprof's analyses library. MIT licence.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pages_int.h"

/* Does ps belong to module name (a source file's or an object's basename,
 * or its whole path)? */
static bool in_module(const struct dpa_profile *p, uint32_t ps, const char *name)
{
	const char *f = dpa_src_str(p, DPA_PS_FILE, ps);
	uint32_t m = p->ps[ps].module;

	if (f && (!strcmp(dpa_basename(f), name) || !strcmp(f, name)))
		return true;
	return m && m <= p->n_module && p->module[m].path &&
	       (!strcmp(dpa_basename(p->module[m].path), name) || !strcmp(p->module[m].path, name));
}


static int by_own(const void *a, const void *b)
{
	const struct modrow *x = a, *y = b;

	if (x->own != y->own)
		return x->own > y->own ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The modules: each source file and each object with called procedures,
 * their procedures' own costs summed. *out malloc'd. */
int dpa_pg_modules_of(const struct side *s, enum dpa_measure m, struct modrow **out, uint32_t *n)
{
	const struct dpa_profile *p = &s->p;
	uint32_t cap = 16, k = 0;
	struct modrow *v = malloc(cap * sizeof(*v));

	if (!v)
		return -1;
	for (uint32_t ps = 2; ps <= p->n_ps; ps++) {
		uint64_t own[DPA_NMEASURES], total[DPA_NMEASURES];
		const char *f = dpa_src_str(p, DPA_PS_FILE, ps);
		uint32_t mod = p->ps[ps].module;
		const char *names[2] = { f ? dpa_basename(f) : NULL,
					 mod && mod <= p->n_module && p->module[mod].path
					 ? dpa_basename(p->module[mod].path) : NULL };

		if (!dpa_deep_ps_npd(&s->d, ps))
			continue;
		dpa_deep_ps_costs(&s->d, ps, own, total);
		for (int o = 0; o < 2; o++) {
			uint32_t i;

			if (!names[o])
				continue;
			for (i = 0; i < k; i++)
				if (v[i].object == (o == 1) && !strcmp(v[i].name, names[o]))
					break;
			if (i == k) {
				if (k == cap) {
					struct modrow *w2 = realloc(v, 2 * cap * sizeof(*v));

					if (!w2) {
						free(v);
						return -1;
					}
					v = w2;
					cap *= 2;
				}
				v[k++] = (struct modrow){ .name = names[o], .object = o == 1 };
			}
			v[i].procs++;
			v[i].calls += own[DPA_CALLS];
			v[i].own += own[m];
		}
	}
	qsort(v, k, sizeof(*v), by_own);
	*out = v;
	*n = k;
	return 0;
}

int dpa_pg_page_modules(struct page *w)
{
	struct modrow *v;
	uint32_t n;
	uint64_t all = 0;

	if (dpa_pg_modules_of(w->s, w->q.sort, &v, &n) < 0)
		return dpa_pg_fail(w, 500, "out of memory");
	for (uint32_t t = 1; t <= w->s->p.n_thread; t++)
		all += dpa_deep_thread_total(&w->s->d, t, w->q.sort);
	if (w->q.json) {
		json_t *a = json_array();

		for (uint32_t i = 0; a && i < n; i++)
			json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:I, s:I}", "module", v[i].name,
							   "kind", v[i].object ? "object" : "source",
							   "procedures", (json_int_t)v[i].procs,
							   "calls", (json_int_t)v[i].calls,
							   "self", (json_int_t)v[i].own));
		free(v);
		return dpa_pg_put_json(w, json_pack("{s:i, s:s, s:s, s:o}", "version", 1, "report", "modules",
					     "sort", dpa_pg_measure_key(w->q.sort), "modules", a));
	}
	dpa_pg_page_begin(w, "Modules (source files and objects)", "/modules", NULL);
	fputs("<p class=\"meta\">Excluding a module (exclude=NAME,NAME on any page) charges everything"
	      " below the calls into it from outside to those calls: its callers then show what the"
	      " library costs them.</p>\n", w->f);
	fprintf(w->f, "<table id=\"modules\"><thead><tr><th class=\"l\" data-sort=\"1\">module</th>"
		"<th class=\"l\" data-sort=\"1\">kind</th><th class=\"n\" data-sort=\"1\">procedures</th>"
		"<th class=\"n\" data-sort=\"1\">calls</th><th class=\"n\" data-sort=\"1\">self %s</th>"
		"<th class=\"n\" data-sort=\"1\">%%</th></tr></thead>\n<tbody>\n", dpa_pg_measure_key(w->q.sort));
	for (uint32_t i = 0; i < n; i++) {
		char *pp;

		fputs("<tr><td class=\"l\">", w->f);
		if (asprintf(&pp, "/module/%s", v[i].name) >= 0) {
			dpa_pg_link(w, pp, NULL, NULL, v[i].name);
			free(pp);
		}
		{
			char *ex = NULL;

			fputs(" <span class=\"meta\">(", w->f);
			if (asprintf(&ex, "exclude=%s", v[i].name) >= 0) {
				/* url-encoded enough: module names are file names */
				dpa_pg_link(w, "/top", ex, NULL, "exclude it");
				free(ex);
			}
			fputs(")</span>", w->f);
		}
		fprintf(w->f, "</td><td class=\"l\">%s</td><td class=\"n\" data-v=\"%u\">%u</td>"
			"<td class=\"n\" data-v=\"%" PRIu64 "\">%" PRIu64 "</td><td class=\"n\" data-v=\"%"
			PRIu64 "\">%" PRIu64 "</td><td class=\"n\" data-v=\"%.4f\">%.1f%%</td></tr>\n",
			v[i].object ? "object" : "source", v[i].procs, v[i].procs, v[i].calls, v[i].calls,
			v[i].own, v[i].own, all ? 100.0 * (double)v[i].own / (double)all : 0.0,
			all ? 100.0 * (double)v[i].own / (double)all : 0.0);
	}
	fputs("</tbody></table>\n", w->f);
	free(v);
	dpa_pg_page_end(w);
	return 0;
}

struct mprow {
	uint32_t ps;
	uint64_t own[DPA_NMEASURES], total[DPA_NMEASURES];
	uint32_t npd;
};

static enum dpa_measure g_sort;        /* only under the pages lock */
static bool g_total;

static int by_mp(const void *a, const void *b)
{
	const struct mprow *x = a, *y = b;
	uint64_t vx = g_total ? x->total[g_sort] : x->own[g_sort];
	uint64_t vy = g_total ? y->total[g_sort] : y->own[g_sort];

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return x->ps < y->ps ? -1 : x->ps > y->ps;
}

int dpa_pg_page_module(struct page *w, const char *name)
{
	struct side *s = w->s;
	struct mprow *v = NULL;
	uint32_t n = 0, cap = 0, limit;
	char *title = NULL, *self = NULL;

	for (uint32_t ps = 2; ps <= s->p.n_ps; ps++) {
		if (!dpa_deep_ps_npd(&s->d, ps) || !in_module(&s->p, ps, name))
			continue;
		if (n == cap) {
			struct mprow *x = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!x) {
				free(v);
				return dpa_pg_fail(w, 500, "out of memory");
			}
			v = x;
		}
		v[n].ps = ps;
		v[n].npd = dpa_deep_ps_npd(&s->d, ps);
		dpa_deep_ps_costs(&s->d, ps, v[n].own, v[n].total);
		n++;
	}
	if (!n) {
		free(v);
		return dpa_pg_fail(w, 404, "no module %.200s with called procedures (see /modules)", name);
	}
	g_sort = w->q.sort;
	g_total = w->q.total;
	qsort(v, n, sizeof(*v), by_mp);
	limit = w->q.limit >= 0 ? (uint32_t)w->q.limit : w->q.json ? 0 : 50;
	if (limit && n > limit)
		n = limit;
	if (w->q.json) {
		json_t *a = json_array();

		for (uint32_t i = 0; a && i < n; i++)
			json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:I, s:I}",
							   "name", dpa_ps_name(&s->p, v[i].ps),
							   "contexts", (json_int_t)v[i].npd,
							   "calls", (json_int_t)v[i].own[DPA_CALLS],
							   "self", (json_int_t)v[i].own[w->q.sort],
							   "total", (json_int_t)v[i].total[w->q.sort]));
		free(v);
		return dpa_pg_put_json(w, json_pack("{s:i, s:s, s:s, s:s, s:o}", "version", 1, "report", "module",
					     "module", name, "sort", dpa_pg_measure_key(w->q.sort),
					     "procedures", a));
	}
	if (asprintf(&title, "Module %s", name) < 0 || asprintf(&self, "/module/%s", name) < 0) {
		free(title);
		free(v);
		return dpa_pg_fail(w, 500, "out of memory");
	}
	dpa_pg_page_begin(w, title, self, NULL);
	fprintf(w->f, "<table id=\"procedures\"><thead><tr><th class=\"l\" data-sort=\"1\">procedure</th>"
		"<th class=\"n\" data-sort=\"1\">contexts</th><th class=\"n\" data-sort=\"1\">calls</th>"
		"<th class=\"n\" data-sort=\"1\">self %s</th><th class=\"n\" data-sort=\"1\">total %s</th>"
		"</tr></thead>\n<tbody>\n", dpa_pg_measure_key(w->q.sort), dpa_pg_measure_key(w->q.sort));
	for (uint32_t i = 0; i < n; i++) {
		char *pp;

		fputs("<tr><td class=\"l\">", w->f);
		if (asprintf(&pp, "/proc/%s", dpa_pg_ps_spec(s, v[i].ps)) >= 0) {
			dpa_pg_link(w, pp, NULL, NULL, dpa_ps_name(&s->p, v[i].ps));
			free(pp);
		}
		fprintf(w->f, "</td><td class=\"n\" data-v=\"%u\">%u</td><td class=\"n\" data-v=\"%" PRIu64
			"\">%" PRIu64 "</td><td class=\"n\" data-v=\"%" PRIu64 "\">%" PRIu64 "</td>"
			"<td class=\"n\" data-v=\"%" PRIu64 "\">%" PRIu64 "</td></tr>\n", v[i].npd, v[i].npd,
			v[i].own[DPA_CALLS], v[i].own[DPA_CALLS], v[i].own[w->q.sort], v[i].own[w->q.sort],
			v[i].total[w->q.sort], v[i].total[w->q.sort]);
	}
	fputs("</tbody></table>\n", w->f);
	free(v);
	free(title);
	free(self);
	dpa_pg_page_end(w);
	return 0;
}

/* ---- contour exclusion ---- */

/*
 * s with the procedures of the modules in q->exclude below a contour
 * (Mercury's exclude.m): a call from outside those modules into them is
 * charged everything below it (its own cscs, ticks, allocations and bytes
 * become its totals; its calls stay the calls made through it) and every
 * call made below it costs nothing. The file is read again and changed in
 * memory; the result is kept for the next page with the same set.
 * NULL with why set (no such module, out of memory, a read error).
 */
struct side *dpa_pg_excluded_side(struct page *w, char *why, size_t n, int *status)
{
	struct side *s = w->s, *x;
	const struct dpa_profile *p = &s->p;
	struct dpa_error e = { { 0 } };
	bool *excl = NULL;
	uint8_t *below = NULL;
	uint32_t *queue = NULL, qh = 0, qt = 0, hit = 0;
	char err[400];

	if (s->excl && !strcmp(s->excl_key, w->q.exclude_raw))
		return s->excl;
	*status = 500;
	excl = calloc((size_t)p->n_ps + 1, sizeof(bool));
	below = calloc((size_t)p->n_pd + 1, 1);
	queue = malloc(((size_t)p->n_pd + 1) * sizeof(*queue));
	if (!excl || !below || !queue) {
		snprintf(why, n, "out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < w->q.n_exclude; i++) {
		uint32_t found = 0;

		for (uint32_t ps = 2; ps <= p->n_ps; ps++)
			if (in_module(p, ps, w->q.exclude[i])) {
				excl[ps] = true;
				found++;
			}
		if (!found) {
			snprintf(why, n, "exclude: no module %.200s (see /modules)", w->q.exclude[i]);
			*status = 404;
			goto fail;
		}
		hit += found;
	}
	/* which contexts are below the contour: breadth first from the roots */
	for (uint32_t t = 1; t <= p->n_thread; t++) {
		below[p->thread[t].root_pd] = 1;        /* 1: seen, 3: seen and below */
		queue[qt++] = p->thread[t].root_pd;
	}
	while (qh < qt) {
		uint32_t a = queue[qh++];
		const struct dpa_pd *q = &p->pd[a];

		for (uint32_t j = 0; j < dpa_pd_out_n(q); j++) {
			uint32_t c = dpa_out_csd(p, q->out_first + j), b = p->csd[c].callee_pd;

			if (below[b])
				continue;
			below[b] = (below[a] & 2) || excl[p->pd[b].ps] ? 3 : 1;
			queue[qt++] = b;
		}
	}
	x = dpa_pg_side_load(s->path, NULL, err, sizeof(err));
	if (!x) {
		snprintf(why, n, "%s", err);
		goto fail;
	}
	if (x->p.n_csd != p->n_csd || x->p.n_pd != p->n_pd) {
		dpa_pg_side_free(x);
		snprintf(why, n, "%s changed while excluding: try again", s->path);
		goto fail;
	}
	dpa_deep_release(&x->d);
	for (uint32_t c = 1; c <= p->n_csd; c++) {
		const struct dpa_csd *y = &p->csd[c];
		int rc = 0;

		if (below[y->caller_pd] & 2) {
			for (int m = 0; m < DPA_NMEASURES; m++)
				rc |= dpa_csd_set(&x->p, c, m, 0);
		} else if (below[y->callee_pd] & 2) {
			/* crossing the contour: charged everything below */
			static const enum dpa_measure cost[] = { DPA_CSCS, DPA_TICKS, DPA_ALLOCS, DPA_BYTES };

			for (size_t k = 0; k < sizeof(cost) / sizeof(cost[0]); k++)
				rc |= dpa_csd_set(&x->p, c, cost[k], dpa_deep_csd_total(&s->d, c, cost[k]));
		}
		if (rc) {
			dpa_pg_side_free(x);
			snprintf(why, n, "out of memory excluding");
			goto fail;
		}
	}
	if (dpa_deep_init(&x->d, &x->p, &e) < 0) {
		/* x->d is zeroed on failure: side_free releases what is left */
		dpa_pg_side_free(x);
		snprintf(why, n, "%s", e.msg);
		goto fail;
	}
	dpa_pg_side_free(s->excl);
	free(s->excl_key);
	s->excl = x;
	s->excl_key = strdup(w->q.exclude_raw);
	if (!s->excl_key) {
		dpa_pg_side_free(s->excl);
		s->excl = NULL;
		snprintf(why, n, "out of memory");
		goto fail;
	}
	free(excl);
	free(below);
	free(queue);
	(void)hit;
	return x;
fail:
	free(excl);
	free(below);
	free(queue);
	return NULL;
}

