/*
 * check.c — the targeted dependence check (deepprof-cc --deepprof-check,
 * schemas/deep-data.md "check"): which memory each call of a parallelism
 * candidate reads and writes, and which pairs of its calls touch the same
 * bytes with at least one write.
 *
 * The plugin brackets each candidate call with __deepprof_chk_begin/end
 * (a region descriptor and the call's index) and makes every load and
 * store of the functions those calls can reach call __deepprof_chk_rd/wr.
 * Outside a candidate call a hook returns after one thread-local test.
 * Inside, the access joins the current call's read or write set: intervals
 * [lo, hi) with the source location of the first access, runs of
 * neighbouring accesses from one place folded into one interval. Stack
 * below the call's own start is its own (each task has its own stack), and
 * so is heap memory the call allocates and frees again.
 *
 * A region's executions nest (a recursive candidate runs inside its own
 * calls): each execution is a frame on the thread's stack; when its last
 * call returns, every pair of its calls is compared, the conflicts are
 * counted on the region, and the calls' sets join the enclosing call's.
 * Part of deepprof's libprof. MIT licence.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <msgpack.h>
#include "internal.h"

extern void *__libc_malloc(size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

/* ==== the global findings, per region ======================================= */

enum { CK_WW, CK_WR, CK_RW };   /* i writes / j writes; i writes / j reads; i reads / j writes */
static const char *const kind_name[] = { "write-write", "write-read", "read-write" };

struct ck_conf {
	uint32_t i, j, kind;
	uint64_t execs;         /* executions where the pair conflicted */
	const char *loc_i, *loc_j;
	uintptr_t lo, hi;       /* the first overlap seen */
};

struct ck_opq {
	uint32_t k;
	uint64_t execs;
	const char *callee, *loc;
};

struct ck_region {
	const char *desc;       /* the plugin's descriptor (a string in the program) */
	uint32_t n;             /* calls */
	uint64_t executions;
	struct ck_conf *conf;
	uint32_t n_conf, cap_conf;
	struct ck_opq *opq;
	uint32_t n_opq, cap_opq;
};

#define CK_MAX_REGIONS 1024
static struct ck_region ck_regions[CK_MAX_REGIONS];
static uint32_t ck_n_regions;
static uint64_t ck_lost;        /* executions not recorded (out of memory, too many regions) */
static pthread_mutex_t ck_lock = PTHREAD_MUTEX_INITIALIZER;

/* ==== per thread ============================================================ */

struct ivl {
	uintptr_t lo, hi;
	const char *loc;
};

struct iset {
	struct ivl *v;
	uint32_t n, cap;
	uint32_t fold_at;       /* fold (sort and merge) when n reaches it */
	uint32_t last[8];       /* by place: the interval it extended last (a hint) */
};

struct ck_call {
	struct iset r, w;
	struct iset allocs;     /* blocks allocated in the call (loc unused) */
	struct iset priv;       /* of those, freed again in the call */
	const char *opq_callee, *opq_loc;   /* the first opaque call made in it */
};

struct ck_exec {
	struct ck_region *reg;
	uint32_t n;             /* calls; calls[n] is the code between them */
	int cur;                /* the call running, -1 between calls */
	int last;               /* the last call that returned, -1 none */
	uintptr_t sp;           /* a stack address below the caller's frame at begin */
	struct ck_call *calls;
	uint32_t cap;
	bool loop;              /* a window of a loop's iterations (__deepprof_chk_iter) */
};

struct ck_thread {
	struct ck_exec *stack;
	uint32_t depth, cap;
};

/* dp_ck_on (alloc.c), nonzero inside a candidate call, is the one thing
 * every hook tests first. */
static __thread struct ck_thread *ck_self __attribute__((tls_model("initial-exec")));
/* a stack window: addresses in [sp - CK_STACK, sp) are a call's own frames */
#define CK_STACK ((uintptr_t)64 << 20)

static void *ck_grow(void *p, uint32_t *cap, size_t elem, uint32_t need)
{
	uint32_t nc = *cap ? *cap : 16;
	while (nc < need)
		nc *= 2;
	void *q = __libc_realloc(p, (size_t)nc * elem);
	if (q)
		*cap = nc;
	return q;
}

/* A new last element of *v (*n of *cap, elem bytes each), grown as needed;
 * NULL (counted lost) when out of memory. Under ck_lock for the regions'. */
static void *ck_slot(void **v, uint32_t *n, uint32_t *cap, size_t elem)
{
	if (*n == *cap) {
		void *nv = ck_grow(*v, cap, elem, *n + 1);
		if (!nv) {
			ck_lost++;
			return NULL;
		}
		*v = nv;
	}
	return (char *)*v + (size_t)(*n)++ * elem;
}

static int ivl_cmp_loc(const void *a, const void *b)
{
	const struct ivl *x = a, *y = b;
	if (x->loc != y->loc)
		return (uintptr_t)x->loc < (uintptr_t)y->loc ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int ivl_cmp_lo(const void *a, const void *b)
{
	const struct ivl *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sort: insertion for the few intervals most executions have, else qsort. */
static void sort_ivl(struct ivl *v, uint32_t n, int (*cmp)(const void *, const void *))
{
	if (n > 96) {
		qsort(v, n, sizeof(*v), cmp);
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		struct ivl x = v[i];
		uint32_t j = i;
		while (j > 0 && cmp(&v[j - 1], &x) > 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/* Sort v[0 .. *n) by lo and merge the overlapping or touching intervals,
 * whatever their places (each keeps its lowest piece's). */
static void merge_by_lo(struct ivl *v, uint32_t *n)
{
	if (*n < 2)
		return;
	sort_ivl(v, *n, ivl_cmp_lo);
	uint32_t o = 0;
	for (uint32_t i = 1; i < *n; i++) {
		if (v[i].lo <= v[o].hi) {
			if (v[i].hi > v[o].hi)
				v[o].hi = v[i].hi;
		} else {
			v[++o] = v[i];
		}
	}
	*n = o + 1;
}

/* Sort s by (loc, lo) and merge the overlapping or touching intervals of
 * one loc. */
static void fold(struct iset *s)
{
	if (s->n > 1) {
		sort_ivl(s->v, s->n, ivl_cmp_loc);
		uint32_t o = 0;
		for (uint32_t i = 1; i < s->n; i++) {
			struct ivl *a = &s->v[o], *b = &s->v[i];
			if (b->loc == a->loc && b->lo <= a->hi) {
				if (b->hi > a->hi)
					a->hi = b->hi;
			} else {
				s->v[++o] = *b;
			}
		}
		s->n = o + 1;
	}
	if (s->n > 64) {
		/* places that interleave (a[i] and a[j] of a merge) leave each
		 * other gaps: merge neighbours across places, each range keeping
		 * the place of its lowest piece */
		merge_by_lo(s->v, &s->n);
	}
	s->fold_at = 2 * s->n + 256;
}

/* Append as it is: no folding, no joining (blocks of allocs stay apart). */
static void iset_push(struct iset *s, uintptr_t lo, uintptr_t hi, const char *loc)
{
	if (s->n == s->cap) {
		struct ivl *nv = ck_grow(s->v, &s->cap, sizeof(*nv), s->n + 1);
		if (!nv) {
			DP_ADD(&ck_lost, 1);
			return;
		}
		s->v = nv;
	}
	s->v[s->n++] = (struct ivl){ lo, hi, loc };
}

/* Whether [lo, hi) from place loc joins interval v (same place,
 * touching or overlapping): then v grows to cover it. */
static bool ivl_extend(struct ivl *v, uintptr_t lo, uintptr_t hi, const char *loc)
{
	if (v->loc != loc || lo > v->hi || hi < v->lo)
		return false;
	if (lo < v->lo)
		v->lo = lo;
	if (hi > v->hi)
		v->hi = hi;
	return true;
}

static void iset_add(struct iset *s, uintptr_t lo, uintptr_t hi, const char *loc)
{
	/* a run of accesses from one place: the interval that place extended
	 * last, or one of the last few */
	uint32_t *hint = &s->last[((uintptr_t)loc >> 3) & 7];
	if (*hint < s->n && ivl_extend(&s->v[*hint], lo, hi, loc))
		return;
	uint32_t stop = s->n > 4 ? s->n - 4 : 0;
	for (uint32_t i = s->n; i-- > stop;)
		if (ivl_extend(&s->v[i], lo, hi, loc)) {
			*hint = i;
			return;
		}
	*hint = s->n;   /* the one appended below */
	if (s->n == s->cap && s->fold_at && s->n >= s->fold_at)
		fold(s);
	iset_push(s, lo, hi, loc);
	if (s->fold_at && s->n >= s->fold_at)
		fold(s);
}

static void call_reset(struct ck_call *c)
{
	c->r.n = c->w.n = c->allocs.n = c->priv.n = 0;
	c->r.fold_at = c->w.fold_at = 256;
	c->allocs.fold_at = c->priv.fold_at = 0;
	c->opq_callee = c->opq_loc = NULL;
}

static struct ck_thread *thread_state(void)
{
	struct ck_thread *t = ck_self;
	if (!t) {
		t = __libc_malloc(sizeof(*t));
		if (!t)
			return NULL;
		memset(t, 0, sizeof(*t));
		ck_self = t;
	}
	return t;
}

/* The region of descriptor desc (n calls), found or made. */
static struct ck_region *region_of(const char *desc, uint32_t n)
{
	struct ck_region *r = NULL;
	pthread_mutex_lock(&ck_lock);
	for (uint32_t i = 0; i < ck_n_regions && !r; i++)
		if (ck_regions[i].desc == desc ||
		    (ck_regions[i].n == n && !strcmp(ck_regions[i].desc, desc)))
			r = &ck_regions[i];
	if (!r && ck_n_regions < CK_MAX_REGIONS) {
		r = &ck_regions[ck_n_regions++];
		r->desc = desc;
		r->n = n;
	}
	pthread_mutex_unlock(&ck_lock);
	return r;
}

/* ==== the hooks ============================================================ */

static inline struct iset *set_of(struct ck_exec *e, bool write)
{
	struct ck_call *c = &e->calls[e->cur >= 0 ? (uint32_t)e->cur : e->n];
	return write ? &c->w : &c->r;
}

static inline struct ck_call *call_of(struct ck_exec *e)
{
	return &e->calls[e->cur >= 0 ? (uint32_t)e->cur : e->n];
}

/* The stack address below which memory is the current code's own. */
static inline uintptr_t own_below(struct ck_thread *t)
{
	struct ck_exec *e = &t->stack[t->depth - 1];
	if (e->cur >= 0)
		return e->sp;
	return t->depth > 1 ? t->stack[t->depth - 2].sp : 0;
}

static void access_(const void *addr, size_t size, const char *loc, bool write)
{
	struct ck_thread *t = ck_self;
	uintptr_t a = (uintptr_t)addr, below;
	if (!t || !t->depth || !size)
		return;
	below = own_below(t);
	if (a < below && a + CK_STACK >= below)
		return;
	iset_add(set_of(&t->stack[t->depth - 1], write), a, a + size, loc);
}

DP_EXPORT void __deepprof_chk_rd(const void *addr, size_t size, const char *loc)
{
	if (likely(!dp_ck_on))
		return;
	access_(addr, size, loc, false);
}

DP_EXPORT void __deepprof_chk_wr(const void *addr, size_t size, const char *loc)
{
	if (likely(!dp_ck_on))
		return;
	access_(addr, size, loc, true);
}

/* A call the check cannot see into (a function compiled without it). */
DP_EXPORT void __deepprof_chk_call(const char *callee, const char *loc)
{
	if (likely(!dp_ck_on))
		return;
	struct ck_thread *t = ck_self;
	if (!t || !t->depth)
		return;
	struct ck_call *c = call_of(&t->stack[t->depth - 1]);
	if (!c->opq_callee) {
		c->opq_callee = callee;
		c->opq_loc = loc;
	}
}

/* A call into code that may not be checked (another unit's function, a
 * call through a pointer): pending until a checked function's entry says
 * it is checked; still pending when the call returns, it was not. */
static __thread const char *ck_pend, *ck_pend_loc;

DP_EXPORT void __deepprof_chk_maybe(const char *callee, const char *loc)
{
	if (likely(!dp_ck_on))
		return;
	ck_pend = callee;
	ck_pend_loc = loc;
}

DP_EXPORT void __deepprof_chk_entry(void)
{
	if (unlikely(dp_ck_on))
		ck_pend = NULL;
}

DP_EXPORT void __deepprof_chk_back(void)
{
	if (likely(!dp_ck_on) || !ck_pend)
		return;
	__deepprof_chk_call(ck_pend, ck_pend_loc);
	ck_pend = NULL;
}

/* Called by alloc.c's malloc family with the block made or freed. */
void dp_check_alloc(void *p, size_t n)
{
	struct ck_thread *t = ck_self;
	if (!p || !t || !t->depth)
		return;
	iset_push(&call_of(&t->stack[t->depth - 1])->allocs, (uintptr_t)p, (uintptr_t)p + n, NULL);
}

static void free_at(const void *p, const char *loc)
{
	struct ck_thread *t = ck_self;
	if (!p || !t || !t->depth)
		return;
	struct ck_call *c = call_of(&t->stack[t->depth - 1]);
	uintptr_t a = (uintptr_t)p;
	for (uint32_t i = c->allocs.n; i-- > 0;)
		if (c->allocs.v[i].lo == a) {
			iset_push(&c->priv, a, c->allocs.v[i].hi, NULL);
			c->allocs.v[i] = c->allocs.v[--c->allocs.n];
			return;
		}
	/* a block from outside the call: freeing it writes all of it */
	iset_add(&c->w, a, a + malloc_usable_size((void *)p), loc);
}

/* realloc (alloc.c) frees the block it moves */
void dp_check_free(void *p)
{
	free_at(p, "realloc()");
}

/* Before free(p) in checked code (libprof does not interpose free()). */
DP_EXPORT void __deepprof_chk_free(const void *p, const char *loc)
{
	if (unlikely(dp_ck_on))
		free_at(p, loc);
}

/* ---- the end of an execution ---- */

/* Remove the ranges of priv (sorted by lo, disjoint) from s. */
static void subtract(struct iset *s, const struct iset *priv)
{
	if (!priv->n || !s->n)
		return;
	for (uint32_t i = 0; i < s->n; i++) {
		struct ivl *v = &s->v[i];
		/* the first private range ending after v->lo */
		uint32_t lo = 0, hi = priv->n;
		while (lo < hi) {
			uint32_t m = (lo + hi) / 2;
			if (priv->v[m].hi <= v->lo)
				lo = m + 1;
			else
				hi = m;
		}
		for (uint32_t k = lo; k < priv->n && priv->v[k].lo < v->hi && v->lo < v->hi; k++) {
			const struct ivl *p = &priv->v[k];
			if (p->lo <= v->lo) {
				v->lo = p->hi < v->hi ? p->hi : v->hi;
			} else {
				/* keep [v->lo, p->lo) here, the rest after p goes on */
				if (p->hi < v->hi) {
					struct ivl rest = { p->hi, v->hi, v->loc };
					v->hi = p->lo;
					iset_push(s, rest.lo, rest.hi, rest.loc);
					v = &s->v[i];   /* the array may have moved */
				} else {
					v->hi = p->lo;
				}
			}
		}
	}
	uint32_t o = 0;
	for (uint32_t i = 0; i < s->n; i++)
		if (s->v[i].lo < s->v[i].hi)
			s->v[o++] = s->v[i];
	s->n = o;
}

/* The disjoint union of s, sorted by lo, in u (scratch). */
static bool union_of(const struct iset *s, struct iset *u)
{
	if (u->cap < s->n + 1) {
		struct ivl *nv = ck_grow(u->v, &u->cap, sizeof(*nv), s->n + 1);
		if (!nv)
			return false;
		u->v = nv;
	}
	if (s->n)
		memcpy(u->v, s->v, s->n * sizeof(*s->v));
	u->n = s->n;
	merge_by_lo(u->v, &u->n);
	return true;
}

/* The first overlap of two disjoint sorted sets, or false. */
static bool overlap(const struct iset *a, const struct iset *b, uintptr_t *lo, uintptr_t *hi)
{
	uint32_t i = 0, j = 0;
	while (i < a->n && j < b->n) {
		uintptr_t l = a->v[i].lo > b->v[j].lo ? a->v[i].lo : b->v[j].lo;
		uintptr_t h = a->v[i].hi < b->v[j].hi ? a->v[i].hi : b->v[j].hi;
		if (l < h) {
			*lo = l;
			*hi = h;
			return true;
		}
		if (a->v[i].hi < b->v[j].hi)
			i++;
		else
			j++;
	}
	return false;
}

/* The place of an access of s that covers address a. */
static const char *loc_at(const struct iset *s, uintptr_t a)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->v[i].lo <= a && a < s->v[i].hi)
			return s->v[i].loc;
	return "?";
}

static void note_conflict(struct ck_region *r, uint32_t i, uint32_t j, uint32_t kind,
			  const char *li, const char *lj, uintptr_t lo, uintptr_t hi)
{
	for (uint32_t k = 0; k < r->n_conf; k++)
		if (r->conf[k].i == i && r->conf[k].j == j && r->conf[k].kind == kind) {
			r->conf[k].execs++;
			return;
		}
	struct ck_conf *c = ck_slot((void **)&r->conf, &r->n_conf, &r->cap_conf, sizeof(*c));
	if (c)
		*c = (struct ck_conf){ i, j, kind, 1, li, lj, lo, hi };
}

static void note_opaque(struct ck_region *r, uint32_t k, const char *callee, const char *loc)
{
	for (uint32_t x = 0; x < r->n_opq; x++)
		if (r->opq[x].k == k && !strcmp(r->opq[x].callee, callee)) {
			r->opq[x].execs++;
			return;
		}
	struct ck_opq *q = ck_slot((void **)&r->opq, &r->n_opq, &r->cap_opq, sizeof(*q));
	if (q)
		*q = (struct ck_opq){ k, 1, callee, loc };
}

static bool iset_append(struct iset *to, const struct iset *from)
{
	for (uint32_t i = 0; i < from->n; i++)
		iset_add(to, from->v[i].lo, from->v[i].hi, from->v[i].loc);
	return true;
}

/* Compare e's calls pairwise, record on its region, hand its sets to the
 * enclosing call (parent, or NULL). */
static void finish(struct ck_exec *e, struct ck_exec *parent)
{
	static __thread struct iset *ur, *uw;   /* per call: disjoint unions */
	static __thread uint32_t ucap;
	uint32_t n = e->n;
	struct ck_region *r = e->reg;

	for (uint32_t i = 0; i <= n; i++) {
		struct ck_call *c = &e->calls[i];
		fold(&c->r);
		fold(&c->w);
		if (c->priv.n) {
			struct iset pu = { 0 };
			if (union_of(&c->priv, &pu)) {
				subtract(&c->r, &pu);
				subtract(&c->w, &pu);
			}
			__libc_free(pu.v);
		}
	}
	if (ucap < n) {
		struct iset *a = __libc_realloc(ur, n * sizeof(*a)), *b;
		if (a)
			ur = a;
		b = a ? __libc_realloc(uw, n * sizeof(*b)) : NULL;
		if (b) {
			uw = b;
			memset(ur + ucap, 0, (n - ucap) * sizeof(*ur));
			memset(uw + ucap, 0, (n - ucap) * sizeof(*uw));
			ucap = n;
		}
	}
	if (ucap >= n && r) {
		bool ok = true;
		for (uint32_t i = 0; i < n && ok; i++)
			ok = union_of(&e->calls[i].r, &ur[i]) && union_of(&e->calls[i].w, &uw[i]);
		pthread_mutex_lock(&ck_lock);
		if (!ok) {
			ck_lost++;
		} else {
			r->executions++;
			for (uint32_t i = 0; i < n; i++) {
				if (e->calls[i].opq_callee)
					note_opaque(r, i, e->calls[i].opq_callee, e->calls[i].opq_loc);
				for (uint32_t j = i + 1; j < n; j++) {
					uintptr_t lo, hi;
					const struct ck_call *ci = &e->calls[i], *cj = &e->calls[j];
					if (overlap(&uw[i], &uw[j], &lo, &hi))
						note_conflict(r, i, j, CK_WW, loc_at(&ci->w, lo), loc_at(&cj->w, lo), lo, hi);
					if (overlap(&uw[i], &ur[j], &lo, &hi))
						note_conflict(r, i, j, CK_WR, loc_at(&ci->w, lo), loc_at(&cj->r, lo), lo, hi);
					if (overlap(&ur[i], &uw[j], &lo, &hi))
						note_conflict(r, i, j, CK_RW, loc_at(&ci->r, lo), loc_at(&cj->w, lo), lo, hi);
				}
			}
		}
		pthread_mutex_unlock(&ck_lock);
	} else {
		DP_ADD(&ck_lost, 1);
	}
	if (!parent)
		return;
	struct ck_call *to = call_of(parent);
	for (uint32_t i = 0; i <= n; i++) {
		struct ck_call *c = &e->calls[i];
		iset_append(&to->r, &c->r);
		iset_append(&to->w, &c->w);
		for (uint32_t k = 0; k < c->allocs.n; k++)
			iset_push(&to->allocs, c->allocs.v[k].lo, c->allocs.v[k].hi, NULL);
		for (uint32_t k = 0; k < c->priv.n; k++)
			iset_push(&to->priv, c->priv.v[k].lo, c->priv.v[k].hi, NULL);
		if (c->opq_callee && !to->opq_callee) {
			to->opq_callee = c->opq_callee;
			to->opq_loc = c->opq_loc;
		}
	}
}

static void pop(struct ck_thread *t)
{
	struct ck_exec *e = &t->stack[--t->depth];
	finish(e, t->depth ? &t->stack[t->depth - 1] : NULL);
	e->reg = NULL;
	dp_ck_on = t->depth;
}

static bool same_desc(const struct ck_exec *e, const char *desc)
{
	return e->reg && (e->reg->desc == desc || !strcmp(e->reg->desc, desc));
}

/* Executions that ended without saying so, seen from a hook whose frame is
 * at sp: a call that never returned (longjmp past it: this hook runs as
 * high on the stack as that call's did, or higher), and a loop's window
 * between iterations whose function has returned (left by return or goto:
 * this hook runs in a shallower frame). */
static void drop_stale(struct ck_thread *t, uintptr_t sp)
{
	while (t->depth) {
		const struct ck_exec *e = &t->stack[t->depth - 1];
		if (!(e->cur >= 0 ? sp >= e->sp : e->loop && sp > e->sp))
			break;
		pop(t);
	}
}

/* __deepprof_chk_begin, from a hook whose frame is at sp; loop: a window
 * of a loop's iterations. */
static void begin_at(struct ck_thread *t, const char *desc, unsigned k, unsigned n, uintptr_t sp,
		     bool loop)
{
	drop_stale(t, sp);
	struct ck_exec *e = t->depth ? &t->stack[t->depth - 1] : NULL;

	/* the next call of the execution on top, or a new one */
	if (!e || e->cur >= 0 || e->n != n || (int)k <= e->last || e->loop != loop ||
	    (e->reg && !same_desc(e, desc))) {
		if (t->depth == t->cap) {
			uint32_t old = t->cap;
			struct ck_exec *ns = ck_grow(t->stack, &t->cap, sizeof(*ns), t->depth + 1);
			if (!ns) {
				DP_ADD(&ck_lost, 1);
				return;
			}
			memset(ns + old, 0, (t->cap - old) * sizeof(*ns));
			t->stack = ns;
		}
		e = &t->stack[t->depth];
		if (e->cap < n + 1) {
			uint32_t old = e->cap;
			struct ck_call *nc = ck_grow(e->calls, &e->cap, sizeof(*nc), n + 1);
			if (!nc) {
				DP_ADD(&ck_lost, 1);
				return;
			}
			memset(nc + old, 0, (e->cap - old) * sizeof(*nc));
			e->calls = nc;
		}
		for (uint32_t i = 0; i <= n; i++)
			call_reset(&e->calls[i]);
		e->reg = region_of(desc, n);
		e->n = n;
		e->last = -1;
		e->loop = loop;
		t->depth++;
	}
	e->cur = (int)k;
	e->sp = sp;
	dp_ck_on = t->depth;
}

DP_EXPORT void __deepprof_chk_begin(const char *desc, unsigned k, unsigned n)
{
	struct ck_thread *t = thread_state();
	if (!t || !n || k >= n)
		return;
	begin_at(t, desc, k, n, (uintptr_t)__builtin_frame_address(0), false);
}

DP_EXPORT void __deepprof_chk_end(const char *desc, unsigned k)
{
	struct ck_thread *t = ck_self;
	(void)desc;
	if (!t || !t->depth)
		return;
	/* a call that never returned here (longjmp): its executions end now */
	while (t->depth > 1 && t->stack[t->depth - 1].cur != (int)k)
		pop(t);
	struct ck_exec *e = &t->stack[t->depth - 1];
	if (e->cur != (int)k)
		return;
	e->cur = -1;
	e->last = (int)k;
	if (k + 1 == e->n)
		pop(t);
}

/*
 * Loop candidates (a task per iteration): the plugin brackets the loop's
 * one call with __deepprof_chk_iter/_iter_end and calls
 * __deepprof_chk_loop_end after the loop; its descriptor ends in "\nloop".
 * An execution of the loop is a run of executions of its region, windows
 * of CK_LOOP iterations each (iteration i is call i % CK_LOOP of its
 * window), every pair of iterations in a window compared: two iterations
 * in different windows are not.
 */
#define CK_LOOP 64

DP_EXPORT void __deepprof_chk_iter(const char *desc)
{
	struct ck_thread *t = thread_state();
	if (!t)
		return;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	drop_stale(t, sp);
	struct ck_exec *e = t->depth ? &t->stack[t->depth - 1] : NULL;
	unsigned k = 0;
	if (e && e->loop && e->cur < 0 && same_desc(e, desc)) {
		k = (unsigned)(e->last + 1);
		if (k == CK_LOOP) {
			pop(t);         /* the window is full: the next one */
			k = 0;
		}
	}
	begin_at(t, desc, k, CK_LOOP, sp, true);
}

DP_EXPORT void __deepprof_chk_iter_end(const char *desc)
{
	struct ck_thread *t = ck_self;
	if (!t)
		return;
	/* the iteration's window, and above it only executions inside the
	 * call that never ended (longjmp out of them, a loop left by return) */
	uint32_t m = t->depth;
	while (m && !(t->stack[m - 1].loop && t->stack[m - 1].cur >= 0 &&
		      same_desc(&t->stack[m - 1], desc)))
		m--;
	if (!m)
		return;
	while (t->depth > m)
		pop(t);
	struct ck_exec *e = &t->stack[m - 1];
	e->last = e->cur;
	e->cur = -1;
}

DP_EXPORT void __deepprof_chk_loop_end(const char *desc)
{
	struct ck_thread *t = ck_self;
	if (!t)
		return;
	drop_stale(t, (uintptr_t)__builtin_frame_address(0));
	if (t->depth && t->stack[t->depth - 1].loop && t->stack[t->depth - 1].cur < 0 &&
	    same_desc(&t->stack[t->depth - 1], desc))
		pop(t);
}

/* ==== the profile's "check" header entry ==================================== */

/* A check build says so (compiler-plugins/check.cc), so its profile has a
 * check entry even when no candidate's call ran. */
extern const int __deepprof_check_build __attribute__((weak));

/* Whether the profile gets a "check" entry: a check build, or a region ran. */
uint32_t dp_check_regions(void)
{
	return DP_LOAD(&ck_n_regions) || &__deepprof_check_build != NULL;
}

static void pack_str(msgpack_packer *pk, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s ? s : "", n);
}

void dp_check_pack(struct msgpack_packer *pk)
{
	pthread_mutex_lock(&ck_lock);
	msgpack_pack_map(pk, 2);
	pack_str(pk, "lost");
	msgpack_pack_uint64(pk, ck_lost);
	pack_str(pk, "regions");
	msgpack_pack_array(pk, ck_n_regions);
	for (uint32_t i = 0; i < ck_n_regions; i++) {
		const struct ck_region *r = &ck_regions[i];
		msgpack_pack_map(pk, 4);
		pack_str(pk, "region");
		pack_str(pk, r->desc);
		pack_str(pk, "executions");
		msgpack_pack_uint64(pk, r->executions);
		pack_str(pk, "opaque");
		msgpack_pack_array(pk, r->n_opq);
		for (uint32_t k = 0; k < r->n_opq; k++) {
			msgpack_pack_array(pk, 4);
			msgpack_pack_uint32(pk, r->opq[k].k);
			msgpack_pack_uint64(pk, r->opq[k].execs);
			pack_str(pk, r->opq[k].callee);
			pack_str(pk, r->opq[k].loc);
		}
		pack_str(pk, "conflicts");
		msgpack_pack_array(pk, r->n_conf);
		for (uint32_t k = 0; k < r->n_conf; k++) {
			const struct ck_conf *c = &r->conf[k];
			msgpack_pack_array(pk, 8);
			msgpack_pack_uint32(pk, c->i);
			msgpack_pack_uint32(pk, c->j);
			pack_str(pk, kind_name[c->kind]);
			msgpack_pack_uint64(pk, c->execs);
			pack_str(pk, c->loc_i);
			pack_str(pk, c->loc_j);
			msgpack_pack_uint64(pk, c->lo);
			msgpack_pack_uint64(pk, c->hi - c->lo);
		}
	}
	pthread_mutex_unlock(&ck_lock);
}
