/*
 * csd_columns.c — the csds' own costs stored as one column per measure,
 * each as narrow as its values allow (or absent: all zero, or equal to
 * another measure, or exits = calls − nonlocal_exits): reserve, set, pack.
 * Part of deepprof's analyses library. MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* --- private prototypes ------------------------------------------------ */

static unsigned width(uint8_t kind);
static uint8_t kind_for(uint64_t max);
static void raw_put(struct dpa_col *c, uint32_t i, uint64_t v);
static void refs_update(struct dpa_profile *p);

/* ===================================================================== */

/* Bytes per value of a column kind (0: not stored). */
static unsigned width(uint8_t kind)
{
	switch (kind) {
	case DPA_COL_U8: return 1;
	case DPA_COL_U16: return 2;
	case DPA_COL_U32: return 4;
	case DPA_COL_U64: return 8;
	}
	return 0;
}

/* The narrowest stored kind that holds every value up to max. */
static uint8_t kind_for(uint64_t max)
{
	if (max <= UINT8_MAX)
		return DPA_COL_U8;
	if (max <= UINT16_MAX)
		return DPA_COL_U16;
	if (max <= UINT32_MAX)
		return DPA_COL_U32;
	return DPA_COL_U64;
}

/* Recompute p->col_refs after a column changed kind. */
static void refs_update(struct dpa_profile *p)
{
	p->col_refs = 0;
	for (int m = 0; m < DPA_NMEASURES; m++) {
		const struct dpa_col *c = &p->col[m];

		if (c->kind == DPA_COL_SAME)
			p->col_refs |= 1u << c->a;
		else if (c->kind == DPA_COL_DIFF)
			p->col_refs |= 1u << c->a | 1u << c->b;
	}
}

/* Store v at i in a stored column wide enough for it. */
static void raw_put(struct dpa_col *c, uint32_t i, uint64_t v)
{
	switch (c->kind) {
	case DPA_COL_U8: ((uint8_t *)c->v)[i] = (uint8_t)v; break;
	case DPA_COL_U16: ((uint16_t *)c->v)[i] = (uint16_t)v; break;
	case DPA_COL_U32: ((uint32_t *)c->v)[i] = (uint32_t)v; break;
	case DPA_COL_U64: ((uint64_t *)c->v)[i] = v; break;
	}
}

/*
 * Measure m's values for ids 0 .. n-1 in a new block of kind `kind` (room for csd_cap)
 * (wide enough for all of them), or NULL when out of memory.
 */
static void *copy_as(const struct dpa_profile *p, enum dpa_measure m, uint8_t kind, size_t n)
{
	struct dpa_col tmp = { .kind = kind };

	tmp.v = dpa_malloc_huge((p->csd_cap > n ? p->csd_cap : n ? n : 1) * width(kind));
	if (!tmp.v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		raw_put(&tmp, (uint32_t)i, dpa_own(p, (uint32_t)i, m));
	return tmp.v;
}

/* Make m a stored column of a kind that holds its values and `also`.
 * Returns 0 or -1 (out of memory; nothing changed). */
static int materialize(struct dpa_profile *p, enum dpa_measure m, uint64_t also)
{
	struct dpa_col *c = &p->col[m];
	uint64_t max = also;
	uint8_t kind;
	void *v;

	for (size_t i = 0; i < p->csd_init; i++) {
		uint64_t x = dpa_own(p, (uint32_t)i, m);

		if (x > max)
			max = x;
	}
	kind = kind_for(max);
	if (width(c->kind) >= width(kind))
		return 0;
	if (c->kind == DPA_COL_ZERO) {
		v = dpa_calloc_huge(p->csd_cap ? p->csd_cap : 1, width(kind));
	} else if (width(c->kind)) {
		/* widen in place, from the end so no value is overwritten early */
		unsigned w = width(c->kind);
		size_t n = p->csd_init;
		struct dpa_col wide = { .kind = kind };

		v = dpa_realloc_huge(c->v, (p->csd_cap ? p->csd_cap : 1) * width(kind));
		if (!v)
			return -1;
		c->v = v;
		wide.v = v;
		while (n--) {
			uint64_t x;

			switch (w) {
			case 1: x = ((uint8_t *)v)[n]; break;
			case 2: x = ((uint16_t *)v)[n]; break;
			default: x = ((uint32_t *)v)[n]; break;
			}
			raw_put(&wide, (uint32_t)n, x);
		}
		c->kind = kind;
		return 0;
	} else {
		v = copy_as(p, m, kind, p->csd_init);
	}
	if (!v)
		return -1;
	c->v = v;
	c->kind = kind;
	c->a = c->b = 0;
	refs_update(p);
	return 0;
}

/* Room for ncap csd ids (> csd_cap) in p->csd and every stored column,
 * without touching the new memory: a big block's pages then cost nothing
 * until a csd is put there. 0 or -1 (out of memory; csd_cap unchanged). */
static int grow(struct dpa_profile *p, size_t ncap)
{
	void *q = dpa_realloc_huge(p->csd, ncap * sizeof(*p->csd));

	if (!q)
		return -1;
	p->csd = q;
	for (int m = 0; m < DPA_NMEASURES; m++) {
		struct dpa_col *c = &p->col[m];

		if (!width(c->kind))
			continue;
		q = dpa_realloc_huge(c->v, ncap * width(c->kind));
		if (!q)
			return -1;      /* cap unchanged: larger blocks do no harm */
		c->v = q;
	}
	p->csd_cap = ncap;
	return 0;
}

int dpa_csd_expect(struct dpa_profile *p, uint32_t n)
{
	return (size_t)n < p->csd_cap ? 0 : grow(p, (size_t)n + 1);
}

int dpa_csd_reserve(struct dpa_profile *p, uint32_t n)
{
	size_t cap = p->csd_cap, ncap, from = p->csd_init;

	if (n < from)
		return 0;
	if (n >= cap) {
		ncap = cap ? cap * 2 : 64;
		while (ncap <= n)
			ncap *= 2;
		if (grow(p, ncap) < 0)
			return -1;
	}
	if (n == from) {
		/* one more csd (the reader's case): no memset calls */
		p->csd[n] = (struct dpa_csd){ 0 };
		for (int m = 0; m < DPA_NMEASURES; m++)
			raw_put(&p->col[m], n, 0);
	} else {
		memset(p->csd + from, 0, (n + 1 - from) * sizeof(*p->csd));
		for (int m = 0; m < DPA_NMEASURES; m++) {
			struct dpa_col *c = &p->col[m];
			unsigned w = width(c->kind);

			if (w)
				memset((char *)c->v + from * w, 0, (n + 1 - from) * w);
		}
	}
	p->csd_init = (size_t)n + 1;
	return 0;
}

int dpa_csd_set_slow(struct dpa_profile *p, uint32_t csd, enum dpa_measure m, uint64_t v)
{
	struct dpa_col *c = &p->col[m];
	uint64_t old = dpa_own(p, csd, m);

	if (old == v)
		return 0;
	/* measures derived from m keep their values: store them first */
	for (int k = 0; k < DPA_NMEASURES; k++) {
		const struct dpa_col *d = &p->col[k];

		if ((d->kind == DPA_COL_SAME && d->a == m) ||
		    (d->kind == DPA_COL_DIFF && (d->a == m || d->b == m)))
			if (materialize(p, k, 0) < 0)
				return -1;
	}
	if (width(c->kind) < width(kind_for(v)) && materialize(p, m, v) < 0)
		return -1;
	raw_put(c, csd, v);
	return 0;
}

/* True when v[] (a whole csd's measures) agrees with derived column m. */
static inline bool follows(const struct dpa_col *col, const uint64_t v[DPA_NMEASURES], int m)
{
	if (col->kind == DPA_COL_SAME)
		return v[m] == v[col->a];
	return v[m] == v[col->a] - v[col->b];   /* DIFF: wrapping, like dpa_own */
}

/*
 * The general case of dpa_csd_append(). Every measure is set at once, so a
 * derived column (SAME, DIFF) that this csd follows stays derived even when
 * the columns it reads widen (dpa_csd_set() would have to store it, not
 * knowing the derived value is about to be set to match); one this csd
 * does not follow becomes stored first.
 */
static int append_slow(struct dpa_profile *p, uint32_t id, const struct dpa_csd *c,
		       const uint64_t v[DPA_NMEASURES])
{
	if (dpa_csd_reserve(p, id) < 0)
		return -1;
	for (int m = 0; m < DPA_NMEASURES; m++) {
		const struct dpa_col *col = &p->col[m];

		if ((col->kind == DPA_COL_SAME || col->kind == DPA_COL_DIFF) && !follows(col, v, m) &&
		    materialize(p, m, v[m]) < 0)
			return -1;
	}
	for (int m = 0; m < DPA_NMEASURES; m++) {
		struct dpa_col *col = &p->col[m];

		if (col->kind == DPA_COL_SAME || col->kind == DPA_COL_DIFF)
			continue;
		if (v[m] && width(col->kind) < width(kind_for(v[m])) && materialize(p, m, v[m]) < 0)
			return -1;
		raw_put(col, id, v[m]);         /* nothing for a ZERO column (v[m] is 0) */
	}
	p->csd[id] = *c;
	return 0;
}

void dpa_csd_derive(struct dpa_profile *p, enum dpa_measure m, enum dpa_col_kind kind,
		    enum dpa_measure a, enum dpa_measure b)
{
	if (p->csd_cap || m == a || p->col[a].kind != DPA_COL_ZERO ||
	    (kind == DPA_COL_DIFF && (m == b || a == b || p->col[b].kind != DPA_COL_ZERO)) ||
	    (kind != DPA_COL_SAME && kind != DPA_COL_DIFF))
		return;
	p->col[m] = (struct dpa_col){ .kind = kind, .a = a, .b = kind == DPA_COL_DIFF ? b : 0 };
	refs_update(p);
}

int dpa_csd_append(struct dpa_profile *p, uint32_t id, const struct dpa_csd *c,
		   const uint64_t v[DPA_NMEASURES])
{
	if (id != p->csd_init || id >= p->csd_cap)
		return append_slow(p, id, c, v);
	/* every value fits its column and follows the derived ones (the
	 * common case): stored as is, each measure with its own copy of the
	 * switch */
#pragma GCC unroll 8
	for (int m = 0; m < DPA_NMEASURES; m++) {
		struct dpa_col *col = &p->col[m];

		switch (col->kind) {
		case DPA_COL_ZERO:
			if (v[m])
				return append_slow(p, id, c, v);
			break;
		case DPA_COL_U8:
			if (v[m] > UINT8_MAX)
				return append_slow(p, id, c, v);
			((uint8_t *)col->v)[id] = (uint8_t)v[m];
			break;
		case DPA_COL_U16:
			if (v[m] > UINT16_MAX)
				return append_slow(p, id, c, v);
			((uint16_t *)col->v)[id] = (uint16_t)v[m];
			break;
		case DPA_COL_U32:
			if (v[m] > UINT32_MAX)
				return append_slow(p, id, c, v);
			((uint32_t *)col->v)[id] = (uint32_t)v[m];
			break;
		case DPA_COL_U64:
			((uint64_t *)col->v)[id] = v[m];
			break;
		case DPA_COL_SAME:
			if (v[m] != v[col->a])
				return append_slow(p, id, c, v);
			break;
		case DPA_COL_DIFF:
			if (v[m] != v[col->a] - v[col->b])
				return append_slow(p, id, c, v);
			break;
		}
	}
	p->csd[id] = *c;
	p->csd_init = (size_t)id + 1;
	return 0;
}

/* The measure that measure m equals on every csd by its column's kind (m
 * itself when none: a stored or ZERO column, a DIFF whose b is not ZERO). */
static int equal_to(const struct dpa_profile *p, int m)
{
	const struct dpa_col *c = &p->col[m];

	if (c->kind == DPA_COL_SAME || (c->kind == DPA_COL_DIFF && p->col[c->b].kind == DPA_COL_ZERO))
		return c->a;
	return m;
}

/* The largest value of measure m over ids 0 .. n-1: a plain loop over a
 * stored column (memory speed), dpa_own() for the rest. */
static uint64_t col_max(const struct dpa_profile *p, enum dpa_measure m, size_t n)
{
	const struct dpa_col *c = &p->col[equal_to(p, m)];
	uint64_t max = 0;

#define MAXLOOP(T) do { const T *v = c->v; for (size_t i = 0; i < n; i++) if (v[i] > max) max = v[i]; } while (0)
	switch (c->kind) {
	case DPA_COL_ZERO: break;
	case DPA_COL_U8: MAXLOOP(uint8_t); break;
	case DPA_COL_U16: MAXLOOP(uint16_t); break;
	case DPA_COL_U32: MAXLOOP(uint32_t); break;
	case DPA_COL_U64: MAXLOOP(uint64_t); break;
	default:
		for (size_t i = 0; i < n; i++)
			if (dpa_own(p, (uint32_t)i, m) > max)
				max = dpa_own(p, (uint32_t)i, m);
	}
#undef MAXLOOP
	return max;
}

/* Measures i and m equal on ids 0 .. n-1 (their largest values being equal
 * and nonzero): memcmp for stored columns of one kind, else value by value. */
static bool col_equal(const struct dpa_profile *p, int i, int m, size_t n)
{
	const struct dpa_col *a = &p->col[i], *b = &p->col[m];

	if (equal_to(p, i) == equal_to(p, m))
		return true;
	if (a->kind == b->kind && width(a->kind))
		return !memcmp(a->v, b->v, n * width(a->kind));
	for (size_t x = 0; x < n; x++)
		if (dpa_own(p, (uint32_t)x, i) != dpa_own(p, (uint32_t)x, m))
			return false;
	return true;
}

void dpa_csd_pack(struct dpa_profile *p)
{
	size_t n = (size_t)p->n_csd + 1;
	uint64_t max[DPA_NMEASURES];
	bool eq[DPA_NMEASURES][DPA_NMEASURES], diff = false;
	struct dpa_col next[DPA_NMEASURES];
	bool fresh[DPA_NMEASURES] = { false };
	void *q;

	if (n > p->csd_init)
		return;         /* not reserved: nothing to pack */
	for (int m = 0; m < DPA_NMEASURES; m++)
		max[m] = col_max(p, m, n);
	for (int i = 0; i < DPA_NMEASURES; i++)
		for (int j = i + 1; j < DPA_NMEASURES; j++)
			eq[i][j] = max[i] && max[i] == max[j] && col_equal(p, i, j, n);
	/* exits = calls - nonlocal_exits (wrapping, like dpa_own) */
	if (p->col[DPA_EXITS].kind == DPA_COL_DIFF && p->col[DPA_EXITS].a == DPA_CALLS &&
	    p->col[DPA_EXITS].b == DPA_NONLOCAL) {
		diff = max[DPA_EXITS] && max[DPA_NONLOCAL];
	} else if (max[DPA_EXITS] && max[DPA_NONLOCAL]) {
		diff = true;
		for (size_t x = 1; x < n && diff; x++)
			diff = dpa_own(p, (uint32_t)x, DPA_EXITS) ==
			       dpa_own(p, (uint32_t)x, DPA_CALLS) - dpa_own(p, (uint32_t)x, DPA_NONLOCAL);
	}
	/* the plan: zero, else the same as a measure planned before it and
	 * stored, else (exits) calls - nonlocal_exits, else stored at its
	 * width; nonlocal_exits is planned before exits, which depends on it */
	static const int order[DPA_NMEASURES] = {
		DPA_CALLS, DPA_NONLOCAL, DPA_EXITS, DPA_CSCS, DPA_TICKS, DPA_ALLOCS, DPA_BYTES
	};
	for (int o = 0; o < DPA_NMEASURES; o++) {
		int m = order[o];

		next[m] = (struct dpa_col){ .kind = DPA_COL_ZERO };
		if (!max[m])
			continue;
		for (int k = 0; k < o && next[m].kind == DPA_COL_ZERO; k++) {
			int i = order[k];

			if (width(next[i].kind) && (i < m ? eq[i][m] : eq[m][i]))
				next[m] = (struct dpa_col){ .kind = DPA_COL_SAME, .a = (uint8_t)i };
		}
		if (next[m].kind != DPA_COL_ZERO)
			continue;
		if (m == DPA_EXITS && diff && width(next[DPA_CALLS].kind) &&
		    width(next[DPA_NONLOCAL].kind)) {
			next[m] = (struct dpa_col){ .kind = DPA_COL_DIFF, .a = DPA_CALLS, .b = DPA_NONLOCAL };
			continue;
		}
		next[m].kind = kind_for(max[m]);
	}
	/* new blocks for stored columns whose kind changes, filled from the
	 * old ones; if memory runs out, keep the old layout */
	for (int m = 0; m < DPA_NMEASURES; m++) {
		if (!width(next[m].kind) || next[m].kind == p->col[m].kind)
			continue;
		if (!(next[m].v = copy_as(p, m, next[m].kind, n))) {
			for (int k = 0; k < m; k++)
				if (fresh[k])
					free(next[k].v);
			goto shrink;
		}
		fresh[m] = true;
	}
	for (int m = 0; m < DPA_NMEASURES; m++) {
		if (width(next[m].kind) && !fresh[m]) {
			next[m].v = p->col[m].v;        /* kept as it is */
			p->col[m].v = NULL;
		}
		free(p->col[m].v);
		p->col[m] = next[m];
	}
	refs_update(p);
shrink:
	if (p->csd_cap > n && (q = realloc(p->csd, n * sizeof(*p->csd))))
		p->csd = q;
	for (int m = 0; m < DPA_NMEASURES; m++) {
		struct dpa_col *c = &p->col[m];

		if (width(c->kind) && p->csd_cap > n && (q = realloc(c->v, n * width(c->kind))))
			c->v = q;
	}
	p->csd_cap = p->csd_init = n;
}

size_t dpa_csd_bytes(const struct dpa_profile *p)
{
	size_t b = p->csd_cap * sizeof(*p->csd);

	for (int m = 0; m < DPA_NMEASURES; m++)
		b += p->csd_cap * width(p->col[m].kind);
	return b;
}

void dpa_csd_release(struct dpa_profile *p)
{
	free(p->csd);
	p->csd = NULL;
	for (int m = 0; m < DPA_NMEASURES; m++) {
		free(p->col[m].v);
		memset(&p->col[m], 0, sizeof(p->col[m]));
	}
	p->csd_cap = p->csd_init = 0;
	p->col_refs = 0;
}
