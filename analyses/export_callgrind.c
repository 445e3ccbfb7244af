/*
 * export_callgrind.c — a deep profile in callgrind's format: contexts
 * aggregated per procedure, exact calls per caller→callee arc, inclusive
 * costs per arc that add up to each procedure's total without counting
 * recursion twice. Part of deepprof's analyses library. MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"

/* --- private prototypes ------------------------------------------------ */


/* The five profile measures the events come from; time is ticks scaled. */
#define NBASE 5
static const enum dpa_measure base_of[NBASE] = {
	DPA_CALLS, DPA_CSCS, DPA_TICKS, DPA_ALLOCS, DPA_BYTES
};
/* export measure → index in base_of[] */
static const int xm_slot[DPA_XM_N] = { 0, 1, 2, 2, 3, 4 };

/* One caller→callee procedure pair: calls and inclusive costs. */
struct arc {
	uint32_t caller, callee;        /* ps ids */
	uint32_t line;                  /* caller's source line of the first call site, or 0 */
	uint64_t calls;
	uint64_t w[NBASE];
};

struct arcs {
	struct arc *a;
	uint32_t n, cap;
	uint32_t *slot;                 /* open addressing: arc index or UINT32_MAX */
	uint32_t hcap;
};

/* ===================================================================== */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint32_t arc_hash(const struct arcs *as, uint32_t caller, uint32_t callee)
{
	return (uint32_t)mix(((uint64_t)caller << 32) | callee) & (as->hcap - 1);
}

/* Twice the slots, the arcs placed again. Returns 0 or -1 (out of memory). */
static int arcs_rehash(struct arcs *as)
{
	uint32_t hcap = as->hcap ? as->hcap * 2 : 1024, *slot;

	if (hcap <= as->hcap || !(slot = malloc((size_t)hcap * sizeof(*slot))))
		return -1;
	memset(slot, 0xff, (size_t)hcap * sizeof(*slot));
	free(as->slot);
	as->slot = slot;
	as->hcap = hcap;
	for (uint32_t k = 0; k < as->n; k++) {
		uint32_t i = arc_hash(as, as->a[k].caller, as->a[k].callee);

		while (slot[i] != UINT32_MAX)
			i = (i + 1) & (hcap - 1);
		slot[i] = k;
	}
	return 0;
}

/* The arc caller→callee, made if new; NULL when out of memory. The table
 * grows with the arcs (a tree profile of 10^7 csds has a few dozen). */
static struct arc *arc_get(struct arcs *as, uint32_t caller, uint32_t callee)
{
	uint32_t i;

	if (2 * ((uint64_t)as->n + 1) > as->hcap && arcs_rehash(as) < 0)
		return NULL;
	i = arc_hash(as, caller, callee);

	for (;;) {
		uint32_t k = as->slot[i];

		if (k == UINT32_MAX)
			break;
		if (as->a[k].caller == caller && as->a[k].callee == callee)
			return &as->a[k];
		i = (i + 1) & (as->hcap - 1);
	}
	if (as->n == as->cap) {
		uint32_t cap = as->cap ? as->cap * 2 : 512;
		struct arc *a = cap > as->cap ? realloc(as->a, (size_t)cap * sizeof(*a)) : NULL;

		if (!a)
			return NULL;
		as->a = a;
		as->cap = cap;
	}
	as->slot[i] = as->n;
	memset(&as->a[as->n], 0, sizeof(as->a[0]));
	as->a[as->n].caller = caller;
	as->a[as->n].callee = callee;
	return &as->a[as->n++];
}

static int cmp_arcs(const void *x, const void *y)
{
	const struct arc *a = x, *b = y;

	if (a->caller != b->caller)
		return a->caller < b->caller ? -1 : 1;
	return a->callee < b->callee ? -1 : a->callee > b->callee;
}

/*
 * outer[pd] = 1 for the pds counted in their procedure's total (startup.h):
 * walking down the tree of primary parents, a pd is outermost unless a
 * primary entry on the chain above its clique is called from a pd of the
 * same procedure. Returns 0 or -1 (out of memory).
 */
static int find_outermost(const struct dpa_deep *d, uint8_t *outer)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_cliques *cl = &d->cl;
	uint32_t n = cl->n;
	uint32_t *cfirst, *child, *par, *active, *st = NULL, *next = NULL, nst = 0;
	int ret = -1;

	cfirst = calloc((size_t)n + 2, sizeof(*cfirst));
	child = malloc(((size_t)n + 1) * sizeof(*child));
	par = malloc(((size_t)n + 1) * sizeof(*par));
	active = calloc((size_t)p->n_ps + 1, sizeof(*active));
	st = malloc(((size_t)n + 1) * sizeof(*st));
	next = malloc(((size_t)n + 1) * sizeof(*next));
	if (!cfirst || !child || !par || !active || !st || !next)
		goto out;
	for (uint32_t c = 1; c <= n; c++) {
		par[c] = dpa_clique_parent(cl, p, c);
		cfirst[par[c] + 1]++;
	}
	for (uint32_t c = 1; c <= n + 1; c++)
		cfirst[c] += cfirst[c - 1];
	for (uint32_t c = 1; c <= n; c++)
		child[cfirst[par[c]]++] = c;
	for (uint32_t c = n + 1; c >= 1; c--)
		cfirst[c] = cfirst[c - 1];
	cfirst[0] = 0;
	/* children of c: child[cfirst[c] .. cfirst[c+1]); of 0: the roots */
	st[0] = 0;
	next[0] = cfirst[0];
	nst = 1;
	while (nst) {
		uint32_t c = st[nst - 1], k, e, nm;
		const uint32_t *mem;

		if (next[nst - 1] == cfirst[c + 1]) {
			e = c ? dpa_clique_primary_entry(cl, c) : 0;
			if (e)
				active[p->pd[p->csd[e].caller_pd].ps]--;
			nst--;
			continue;
		}
		k = child[next[nst - 1]++];
		e = dpa_clique_primary_entry(cl, k);
		if (e)
			active[p->pd[p->csd[e].caller_pd].ps]++;
		mem = dpa_clique_members(cl, k, &nm);
		for (uint32_t i = 0; i < nm; i++)
			outer[mem[i]] = active[p->pd[mem[i]].ps] == 0;
		if (nst > n) {
			/* a parent cycle: impossible with topological ids */
			goto out;
		}
		st[nst] = k;
		next[nst] = cfirst[k];
		nst++;
	}
	ret = 0;
out:
	free(cfirst);
	free(child);
	free(par);
	free(active);
	free(st);
	free(next);
	return ret;
}

/* One call's share of `tot`: in proportion w / wsum, or 1/k of it when no
 * call was counted (wsum 0); rounded down. */
static uint64_t share(uint64_t tot, uint64_t w, uint64_t wsum, uint32_t k)
{
	if (wsum == 0)
		return tot / k;
	return (uint64_t)((unsigned __int128)tot * w / wsum);
}

/*
 * Distribute pd q's totals over the calls into it: its entry calls (from
 * outside its clique) or, if it has none, its calls from inside the clique.
 */
static int give_total(const struct dpa_deep *d, struct arcs *as, uint32_t q)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_pd *v = &p->pd[q];
	uint64_t tot[NBASE], wsum = 0, given[NBASE] = { 0 };
	uint32_t k = 0, prim = 0;
	bool want_internal = true;

	for (uint32_t j = 0; j < dpa_pd_in_n(v); j++)
		if (!dpa_csd_internal(&d->cl, p, dpa_in_csd(p, v->in_first + j)))
			want_internal = false;
	for (uint32_t j = 0; j < dpa_pd_in_n(v); j++) {
		uint32_t x = dpa_in_csd(p, v->in_first + j);

		if (dpa_csd_internal(&d->cl, p, x) != want_internal)
			continue;
		k++;
		wsum += dpa_own(p, x, DPA_CALLS);
		if (!prim || dpa_own(p, x, DPA_CALLS) > dpa_own(p, prim, DPA_CALLS))
			prim = x;
	}
	if (!k)
		return 0;
	for (int s = 0; s < NBASE; s++)
		tot[s] = dpa_deep_pd_total(d, q, base_of[s]);
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t j = 0; j < dpa_pd_in_n(v); j++) {
			uint32_t x = dpa_in_csd(p, v->in_first + j);
			struct arc *a;

			if (dpa_csd_internal(&d->cl, p, x) != want_internal)
				continue;
			/* pass 0: everyone but the primary; pass 1: the primary
			 * takes what is left, so the shares add up exactly */
			if ((x == prim) != (pass == 1))
				continue;
			a = arc_get(as, p->pd[p->csd[x].caller_pd].ps, v->ps);
			if (!a)
				return -1;
			for (int s = 0; s < NBASE; s++) {
				uint64_t w = pass ? tot[s] - given[s]
					: share(tot[s], dpa_own(p, x, DPA_CALLS), wsum, k);

				given[s] += w;
				a->w[s] += w;
			}
		}
	return 0;
}

/*
 * The writer's output primitives. A big profile's export is hundreds of
 * megabytes of names and numbers: written with the _unlocked stdio calls
 * (the stream is this thread's alone while it writes) and numbers formatted
 * by hand, not by a locked fprintf each.
 */
static void put_u64(FILE *f, uint64_t v)
{
	char buf[20];
	int i = sizeof(buf);

	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite_unlocked(buf + i, 1, sizeof(buf) - i, f);
}

static void put_str(FILE *f, const char *s)
{
	fputs_unlocked(s, f);
}

/* Print s with newlines and other control characters as '?'. */
static void put_clean(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		fputc_unlocked(c < 0x20 || c == 0x7f ? '?' : c, f);
	}
}

static const char *ps_file(const struct dpa_profile *p, uint32_t ps)
{
	const char *f = dpa_src_str(p, DPA_PS_FILE, ps);

	return f && *f ? f : "???";
}

static const char *ps_object(const struct dpa_profile *p, uint32_t ps)
{
	uint32_t m = p->ps[ps].module;

	return m && m <= p->n_module && p->module[m].path ? p->module[m].path : "???";
}

/*
 * Name compression: "key=(id) name" the first time an id is used, "key=(id)"
 * after. fn/cfn and fl/cfi ids are ps ids (a file named by several ps gets
 * several ids, which readers allow); ob/cob ids are module ids, and
 * n_module + 1 for "???".
 */
static void put_name(FILE *f, const char *key, uint8_t *done, uint32_t id, const char *name)
{
	put_str(f, key);
	put_str(f, "=(");
	put_u64(f, id);
	fputc_unlocked(')', f);
	if (!done[id]) {
		fputc_unlocked(' ', f);
		put_clean(f, name);
		done[id] = 1;
	}
	fputc_unlocked('\n', f);
}

static uint32_t ob_id(const struct dpa_profile *p, uint32_t ps)
{
	uint32_t m = p->ps[ps].module;

	return m && m <= p->n_module && p->module[m].path ? m : p->n_module + 1;
}

/* The costs of one line, in event order. */
static void put_costs(FILE *f, const int *ev, const uint64_t *v, uint64_t npt)
{
	for (int i = 0; i < DPA_XM_N; i++) {
		uint64_t x = v[xm_slot[ev[i]]];

		if (ev[i] == DPA_XM_TIME)
			x *= npt;       /* no overflow: checked on the totals */
		fputc_unlocked(' ', f);
		put_u64(f, x);
	}
	fputc_unlocked('\n', f);
}

int dpa_export_callgrind(FILE *out, const struct dpa_deep *d, enum dpa_xmeasure first,
			 struct dpa_error *err)
{
	const struct dpa_profile *p = d->p;
	struct arcs as = { 0 };
	uint8_t *outer = NULL, *used = NULL, *ob_done = NULL, *fl_done = NULL, *fn_done = NULL;
	uint64_t npt = dpa_export_ns_per_tick(p), total[NBASE] = { 0 }, scaled;
	char name[DPA_ADDR_NAME_MAX];
	int ev[DPA_XM_N], nev = 0;
	const char *why = "out of memory";
	uint32_t ai = 0;
	int ret = -1;

	if ((unsigned)first >= DPA_XM_N)
		return dpa_fail(err, p, "export: unknown measure %d", (int)first);
	ev[nev++] = first;
	for (int m = 0; m < DPA_XM_N; m++)
		if (m != (int)first)
			ev[nev++] = m;

	outer = calloc((size_t)p->n_pd + 1, 1);
	used = calloc((size_t)p->n_ps + 1, 1);
	ob_done = calloc((size_t)p->n_module + 2, 1);
	fl_done = calloc((size_t)p->n_ps + 1, 1);
	fn_done = calloc((size_t)p->n_ps + 1, 1);
	if (!outer || !used || !ob_done || !fl_done || !fn_done)
		goto fail;
	if (find_outermost(d, outer) < 0)
		goto fail;

	/* calls on every arc, from every csd */
	for (uint32_t x = 1; x <= p->n_csd; x++) {
		const struct dpa_csd *c = &p->csd[x];
		uint32_t from = p->pd[c->caller_pd].ps;
		struct arc *a = arc_get(&as, from, p->pd[c->callee_pd].ps);

		if (!a)
			goto fail;
		if (__builtin_add_overflow(a->calls, dpa_own(p, x, DPA_CALLS), &a->calls)) {
			why = "a call count is too large for 64 bits";
			goto fail;
		}
		if (!a->line && c->css && c->css <= p->n_css)
			a->line = dpa_src_get(p, DPA_CSS_LINE, c->css);
		if (!a->line)
			a->line = dpa_src_get(p, DPA_PS_LINE, from);
	}
	/* inclusive costs: each outermost pd's total on the calls into it */
	for (uint32_t q = 1; q <= p->n_pd; q++) {
		used[p->pd[q].ps] = 1;
		if (outer[q] && give_total(d, &as, q) < 0)
			goto fail;
	}
	for (uint32_t ps = 1; ps <= p->n_ps; ps++)
		for (int s = 0; s < NBASE; s++)
			if (__builtin_add_overflow(total[s], dpa_deep_ps_own(d, ps, base_of[s]),
						   &total[s])) {
				why = "a total is too large for 64 bits";
				goto fail;
			}
	if (dpa_xmeasure_scale(DPA_XM_TIME, npt, total[xm_slot[DPA_XM_TIME]], &scaled) < 0) {
		why = "the total time is too large for 64 bits";
		goto fail;
	}
	qsort(as.a, as.n, sizeof(*as.a), cmp_arcs);

	/* ---- the document ---- */
	fprintf(out, "# callgrind format\nversion: 1\ncreator: deepprof\n");
	fprintf(out, "pid: %llu\ncmd:", (unsigned long long)p->hdr.pid);
	for (uint32_t i = 0; i < p->hdr.argc; i++) {
		fputc(' ', out);
		put_clean(out, p->hdr.argv[i] ? p->hdr.argv[i] : "");
	}
	if (!p->hdr.argc)
		put_clean(out, p->hdr.program ? p->hdr.program : "");
	fputc('\n', out);
	fprintf(out, "desc: Profile: ");
	put_clean(out, p->path ? p->path : "?");
	fprintf(out, "\ndesc: Clock: %s\n", p->hdr.clock ? p->hdr.clock : "?");
	fprintf(out, "positions: line\n");
	fprintf(out, "event: calls : Calls\n");
	fprintf(out, "event: cscs : Call sequence counts\n");
	fprintf(out, "event: ticks : Timer ticks\n");
	fprintf(out, "event: time : CPU time (ns: ticks x %llu)\n", (unsigned long long)npt);
	fprintf(out, "event: allocs : Allocations\n");
	fprintf(out, "event: bytes : Bytes allocated\n");
	fprintf(out, "events:");
	for (int i = 0; i < nev; i++)
		fprintf(out, " %s", dpa_xmeasure_name(ev[i]));
	fprintf(out, "\nsummary:");
	put_costs(out, ev, total, npt);

	for (uint32_t ps = 1; ps <= p->n_ps; ps++) {
		uint64_t self[NBASE];

		if (!used[ps])
			continue;
		for (int s = 0; s < NBASE; s++)
			self[s] = dpa_deep_ps_own(d, ps, base_of[s]);
		fputc_unlocked('\n', out);
		put_name(out, "ob", ob_done, ob_id(p, ps), ps_object(p, ps));
		put_name(out, "fl", fl_done, ps, ps_file(p, ps));
		put_name(out, "fn", fn_done, ps, dpa_ps_name_buf(p, ps, name));
		put_u64(out, dpa_src_get(p, DPA_PS_LINE, ps));
		put_costs(out, ev, self, npt);
		while (ai < as.n && as.a[ai].caller < ps)
			ai++;
		for (; ai < as.n && as.a[ai].caller == ps; ai++) {
			const struct arc *a = &as.a[ai];

			put_name(out, "cob", ob_done, ob_id(p, a->callee), ps_object(p, a->callee));
			put_name(out, "cfi", fl_done, a->callee, ps_file(p, a->callee));
			put_name(out, "cfn", fn_done, a->callee, dpa_ps_name_buf(p, a->callee, name));
			/* an arc without calls (a sampled profile's, ticks in
			 * uninstrumented code or in deepprof_runtime): callgrind's
			 * format has none, and callgrind_annotate counts the cost
			 * line after calls=0 as the caller's own: written as 1 */
			put_str(out, "calls=");
			put_u64(out, a->calls ? a->calls : 1);
			fputc_unlocked(' ', out);
			put_u64(out, dpa_src_get(p, DPA_PS_LINE, a->callee));
			fputc_unlocked('\n', out);
			put_u64(out, a->line);
			put_costs(out, ev, a->w, npt);
		}
	}
	fprintf(out, "\ntotals:");
	put_costs(out, ev, total, npt);
	if (fflush(out) != 0 || ferror(out)) {
		why = "error writing the output";
		goto fail;
	}
	ret = 0;
	goto out;
fail:
	dpa_fail(err, p, "export: %s", why);
out:
	free(as.a);
	free(as.slot);
	free(outer);
	free(used);
	free(ob_done);
	free(fl_done);
	free(fn_done);
	return ret;
}
