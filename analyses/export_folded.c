/*
 * export_folded.c — the export measures, the tree of stacks of a deep
 * profile (every context's chain of calls, recursion shown once), and the
 * folded-stacks writer ("a;b;c N" lines for flamegraph.pl and speedscope).
 * Part of deepprof's analyses library. MIT licence.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

/* --- private prototypes ------------------------------------------------ */


/* ===================================================================== */
/* { ==== measures ==== */

static const char *const xm_names[DPA_XM_N] = {
	"calls", "cscs", "ticks", "time", "allocs", "bytes"
};

static const enum dpa_measure xm_base[DPA_XM_N] = {
	DPA_CALLS, DPA_CSCS, DPA_TICKS, DPA_TICKS, DPA_ALLOCS, DPA_BYTES
};

const char *dpa_xmeasure_name(enum dpa_xmeasure m)
{
	return (unsigned)m < DPA_XM_N ? xm_names[m] : "?";
}

int dpa_xmeasure_parse(const char *name)
{
	for (int m = 0; m < DPA_XM_N; m++)
		if (name && !strcmp(name, xm_names[m]))
			return m;
	return -1;
}

enum dpa_measure dpa_xmeasure_base(enum dpa_xmeasure m)
{
	return (unsigned)m < DPA_XM_N ? xm_base[m] : DPA_CALLS;
}

uint64_t dpa_export_ns_per_tick(const struct dpa_profile *p)
{
	double v = p->hdr.ns_per_tick;

	if (!isfinite(v) || v < 0.5 || v >= 1.8e19)
		return 0;
	return (uint64_t)llround(v);
}

int dpa_xmeasure_scale(enum dpa_xmeasure m, uint64_t ns_per_tick, uint64_t v, uint64_t *out)
{
	if (m != DPA_XM_TIME) {
		*out = v;
		return 0;
	}
	return __builtin_mul_overflow(v, ns_per_tick, out) ? -1 : 0;
}

/* } */
/* ===================================================================== */
/* { ==== the stack tree ==== */

#define NONE UINT32_MAX

/* Open addressing over (parent, frame) → node, and over names → frame. */
struct build {
	struct dpa_stacks *s;
	uint32_t cap;                   /* node capacity (fixed: an upper bound) */
	uint32_t *slot;                 /* [hcap]: node id or NONE */
	uint32_t hcap;
	uint32_t *name_slot;            /* [ncap]: frame id or NONE */
	uint32_t ncap;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return mix(h);
}

static uint32_t pow2_above(uint64_t n)
{
	uint64_t c = 16;

	while (c < 2 * n)
		c *= 2;
	return c > UINT32_MAX ? 0 : (uint32_t)c;
}

/* The node (parent, frame), made if new. Never fails: cap bounds the nodes. */
static uint32_t intern(struct build *b, uint32_t parent, uint32_t frame)
{
	struct dpa_stacks *s = b->s;
	uint32_t i = (uint32_t)mix(((uint64_t)parent << 32) | frame) & (b->hcap - 1);

	for (;;) {
		uint32_t v = b->slot[i];

		if (v == NONE)
			break;
		if (s->parent[v] == parent && s->frame[v] == frame)
			return v;
		i = (i + 1) & (b->hcap - 1);
	}
	if (s->n >= b->cap)
		return NONE;    /* cannot happen: cap is an upper bound */
	b->slot[i] = s->n;
	s->parent[s->n] = parent;
	s->frame[s->n] = frame;
	s->weight[s->n] = 0;
	return s->n++;
}

/* The frame of name `name` (first seen as ps), made if new. */
static uint32_t frame_of(struct build *b, const char *name, uint32_t ps)
{
	struct dpa_stacks *s = b->s;
	uint32_t i = (uint32_t)hash_str(name) & (b->ncap - 1);

	for (;;) {
		uint32_t f = b->name_slot[i];

		if (f == NONE)
			break;
		if (!strcmp(s->frame_name[f], name))
			return f;
		i = (i + 1) & (b->ncap - 1);
	}
	b->name_slot[i] = s->n_frames;
	s->frame_name[s->n_frames] = name;
	s->frame_ps[s->n_frames] = ps;
	return s->n_frames++;
}

/* qsort_r order of nodes: by parent, then frame name (thread nodes by id). */
static int cmp_nodes(const void *a, const void *b, void *ctx)
{
	const struct dpa_stacks *s = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c;

	if (s->parent[x] != s->parent[y])
		return s->parent[x] < s->parent[y] ? -1 : 1;
	if (x <= s->n_thread || y <= s->n_thread)
		return x < y ? -1 : x > y;
	c = strcmp(s->frame_name[s->frame[x]], s->frame_name[s->frame[y]]);
	if (c)
		return c;
	return x < y ? -1 : x > y;
}

/* Depth-first order: order[] and depth[]. Returns 0 or -1 (out of memory). */
static int order_nodes(struct dpa_stacks *s)
{
	uint32_t n = s->n, *sorted, *first, *st = NULL, nst = 0, k = 0;
	int ret = -1;

	sorted = malloc((size_t)n * sizeof(*sorted));
	first = calloc((size_t)n + 1, sizeof(*first));
	st = malloc((size_t)n * sizeof(*st));
	if (!sorted || !first || !st)
		goto out;
	for (uint32_t v = 1; v < n; v++)
		sorted[v - 1] = v;
	qsort_r(sorted, n - 1, sizeof(*sorted), cmp_nodes, s);
	/* children of v: sorted[first[v] .. first[v+1]) */
	for (uint32_t i = 0; i + 1 < n; i++)
		first[s->parent[sorted[i]] + 1]++;
	for (uint32_t v = 1; v <= n; v++)
		first[v] += first[v - 1];
	/* iterative preorder; the stack holds nodes still to visit, pushed in
	 * reverse so that the first child comes out first */
	st[nst++] = 0;
	while (nst) {
		uint32_t v = st[--nst];

		s->order[k++] = v;
		s->depth[v] = v == 0 || v <= s->n_thread ? 0 : s->depth[s->parent[v]] + 1;
		for (uint32_t i = first[v + 1]; i > first[v]; i--)
			st[nst++] = sorted[i - 1];
	}
	ret = k == n ? 0 : -1;
out:
	free(sorted);
	free(first);
	free(st);
	return ret;
}

void dpa_stacks_release(struct dpa_stacks *s)
{
	if (!s)
		return;
	free(s->parent);
	free(s->frame);
	free(s->weight);
	free(s->order);
	free(s->depth);
	free(s->frame_name);
	free(s->frame_ps);
	free(s->thread_total);
	memset(s, 0, sizeof(*s));
}

int dpa_stacks_init(struct dpa_stacks *s, const struct dpa_deep *d, enum dpa_xmeasure m,
		    bool per_thread, struct dpa_error *err)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_cliques *cl = &d->cl;
	struct build b = { .s = s };
	uint32_t *ps_frame = NULL, *pd_node = NULL, *queue = NULL;
	uint64_t cap, npt = dpa_export_ns_per_tick(p);
	enum dpa_measure base = dpa_xmeasure_base(m);
	const char *why = "out of memory";

	memset(s, 0, sizeof(*s));
	if ((unsigned)m >= DPA_XM_N)
		return dpa_fail(err, p, "export: unknown measure %d", (int)m);
	s->n_thread = per_thread ? p->n_thread : 0;
	cap = 1 + (uint64_t)s->n_thread + p->n_pd + p->n_csd;
	b.hcap = pow2_above(cap);
	b.ncap = pow2_above((uint64_t)p->n_ps + 1);
	if (cap >= NONE || !b.hcap || !b.ncap) {
		why = "profile too large to export";
		goto fail;
	}
	b.cap = (uint32_t)cap;
	s->parent = malloc(cap * sizeof(*s->parent));
	s->frame = malloc(cap * sizeof(*s->frame));
	s->weight = malloc(cap * sizeof(*s->weight));
	s->order = malloc(cap * sizeof(*s->order));
	s->depth = malloc(cap * sizeof(*s->depth));
	s->frame_name = malloc(((size_t)p->n_ps + 1) * sizeof(*s->frame_name));
	s->frame_ps = malloc(((size_t)p->n_ps + 1) * sizeof(*s->frame_ps));
	s->thread_total = calloc((size_t)s->n_thread + 1, sizeof(*s->thread_total));
	b.slot = malloc((size_t)b.hcap * sizeof(*b.slot));
	b.name_slot = malloc((size_t)b.ncap * sizeof(*b.name_slot));
	ps_frame = malloc(((size_t)p->n_ps + 1) * sizeof(*ps_frame));
	pd_node = malloc(((size_t)p->n_pd + 1) * sizeof(*pd_node));
	queue = malloc(((size_t)p->n_pd + 1) * sizeof(*queue));
	if (!s->parent || !s->frame || !s->weight || !s->order || !s->depth ||
	    !s->frame_name || !s->frame_ps || !s->thread_total || !b.slot ||
	    !b.name_slot || !ps_frame || !pd_node || !queue)
		goto fail;
	memset(b.slot, 0xff, (size_t)b.hcap * sizeof(*b.slot));
	memset(b.name_slot, 0xff, (size_t)b.ncap * sizeof(*b.name_slot));
	memset(pd_node, 0xff, ((size_t)p->n_pd + 1) * sizeof(*pd_node));

	/* node 0, then the thread nodes (frame NONE) */
	s->parent[0] = NONE;
	s->frame[0] = NONE;
	s->weight[0] = 0;
	s->n = 1;
	for (uint32_t t = 1; t <= s->n_thread; t++) {
		s->parent[s->n] = 0;
		s->frame[s->n] = NONE;
		s->weight[s->n] = 0;
		s->n++;
	}
	for (uint32_t i = 1; i <= p->n_ps; i++)
		ps_frame[i] = frame_of(&b, dpa_ps_name(p, i), i);

	/*
	 * Contexts, clique by clique in id order (a clique's callers come
	 * before it): the entry context below its primary entry's caller, the
	 * other members breadth first along the clique's internal calls.
	 * Members no entry reaches (thread roots, or a root clique's other
	 * members) start their own search.
	 */
	for (uint32_t c = 1; c <= cl->n; c++) {
		uint32_t nm, e = dpa_clique_primary_entry(cl, c);
		const uint32_t *mem = dpa_clique_members(cl, c, &nm);

		for (uint32_t i = 0; i <= nm; i++) {
			uint32_t q, head = 0, tail = 0;

			if (i == 0) {
				uint32_t up;

				if (!e)
					continue;
				q = p->csd[e].callee_pd;
				up = pd_node[p->csd[e].caller_pd];
				pd_node[q] = intern(&b, up == NONE ? 0 : up, ps_frame[p->pd[q].ps]);
			} else {
				uint32_t t;

				q = mem[i - 1];
				if (pd_node[q] != NONE)
					continue;
				t = p->pd[q].thread;
				if (t && t <= p->n_thread && p->thread[t].root_pd == q)
					pd_node[q] = per_thread ? t : 0;
				else
					pd_node[q] = intern(&b, 0, ps_frame[p->pd[q].ps]);
			}
			queue[tail++] = q;
			while (head < tail) {
				uint32_t u = queue[head++], un = pd_node[u];
				const struct dpa_pd *v = &p->pd[u];

				for (uint32_t j = 0; j < dpa_pd_out_n(v); j++) {
					uint32_t x = p->out_csd[v->out_first + j];
					uint32_t w = p->csd[x].callee_pd;

					if (pd_node[w] != NONE || !dpa_csd_internal(cl, p, x))
						continue;
					pd_node[w] = intern(&b, un, ps_frame[p->pd[w].ps]);
					queue[tail++] = w;
				}
			}
		}
	}

	/* every csd's own cost, below its caller's stack */
	for (uint32_t x = 1; x <= p->n_csd; x++) {
		const struct dpa_csd *c = &p->csd[x];
		uint64_t w;
		uint32_t up = pd_node[c->caller_pd], v;

		if (dpa_xmeasure_scale(m, npt, dpa_own(p, x, base), &w) < 0) {
			why = "a cost is too large for 64 bits";
			goto fail;
		}
		v = intern(&b, up == NONE ? 0 : up, ps_frame[p->pd[c->callee_pd].ps]);
		if (v == NONE) {
			why = "internal error: stack tree overflow";
			goto fail;
		}
		if (__builtin_add_overflow(s->weight[v], w, &s->weight[v]) ||
		    __builtin_add_overflow(s->total, w, &s->total)) {
			why = "a total is too large for 64 bits";
			goto fail;
		}
		if (per_thread) {
			uint32_t t = p->pd[c->caller_pd].thread;

			if (t && t <= p->n_thread)
				s->thread_total[t] += w;
		}
	}
	if (order_nodes(s) < 0)
		goto fail;
	free(b.slot);
	free(b.name_slot);
	free(ps_frame);
	free(pd_node);
	free(queue);
	return 0;
fail:
	free(b.slot);
	free(b.name_slot);
	free(ps_frame);
	free(pd_node);
	free(queue);
	dpa_stacks_release(s);
	return dpa_fail(err, p, "export: %s", why);
}

/* } */
/* ===================================================================== */
/* { ==== folded stacks ==== */

/* Append name to buf at *len, sanitized for the folded format. */
static int append_name(char **buf, size_t *len, size_t *cap, const char *name, bool sep)
{
	size_t n = strlen(name) + 1;

	if (*len + n + 1 > *cap) {
		size_t c = *cap ? *cap : 256;
		char *nb;

		while (*len + n + 1 > c)
			c *= 2;
		nb = realloc(*buf, c);
		if (!nb)
			return -1;
		*buf = nb;
		*cap = c;
	}
	if (sep)
		(*buf)[(*len)++] = ';';
	for (; *name; name++) {
		unsigned char ch = (unsigned char)*name;

		(*buf)[(*len)++] = ch == ';' ? ':' : (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
	}
	(*buf)[*len] = 0;
	return 0;
}

int dpa_export_folded(FILE *out, const struct dpa_deep *d, enum dpa_xmeasure m,
		      struct dpa_error *err)
{
	struct dpa_stacks s;
	char *buf = NULL;
	size_t len = 0, cap = 0, *end = NULL;
	int ret = -1;

	if (dpa_stacks_init(&s, d, m, false, err) < 0)
		return -1;
	/* end[k]: length of the path buffer holding a depth-k stack */
	end = calloc((size_t)s.n + 1, sizeof(*end));
	if (!end) {
		dpa_fail(err, d->p, "export: out of memory");
		goto out;
	}
	for (uint32_t i = 1; i < s.n; i++) {
		uint32_t v = s.order[i], k = s.depth[v];

		len = end[k - 1];
		if (append_name(&buf, &len, &cap, s.frame_name[s.frame[v]], k > 1) < 0) {
			dpa_fail(err, d->p, "export: out of memory");
			goto out;
		}
		end[k] = len;
		if (s.weight[v] && fprintf(out, "%s %llu\n", buf,
					   (unsigned long long)s.weight[v]) < 0)
			break;
	}
	if (fflush(out) != 0 || ferror(out)) {
		dpa_fail(err, d->p, "export: error writing the output");
		goto out;
	}
	ret = 0;
out:
	free(end);
	free(buf);
	dpa_stacks_release(&s);
	return ret;
}

/* } */
