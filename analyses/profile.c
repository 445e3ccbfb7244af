/*
 * profile.c — the parts of struct dpa_profile that are not reading or
 * symbolizing: releasing it and display names for its nodes and measures.
 * Part of deepprof's analyses library. MIT licence.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "profile.h"
#include "strtab.h"

void *dpa_huge(void *p, size_t bytes)
{
	/* the whole pages around the block: a large block is a mapping of
	 * its own (its header is on the first page), and flagging only part
	 * of it would split it, and then realloc could no longer grow it in
	 * place (mremap) but would copy it */
	const uintptr_t page = 4096;
	uintptr_t lo = (uintptr_t)p & ~(page - 1);
	uintptr_t hi = ((uintptr_t)p + bytes + page - 1) & ~(page - 1);

	/* DEEPPROF_HUGEPAGES=0: no such request (where the kernel would
	 * compact memory for every huge page, at a cost above what it saves) */
	static int asked = -1;
	int on = __atomic_load_n(&asked, __ATOMIC_RELAXED);
	if (on < 0) {
		const char *e = getenv("DEEPPROF_HUGEPAGES");
		on = !(e && !strcmp(e, "0"));
		__atomic_store_n(&asked, on, __ATOMIC_RELAXED);
	}
	if (p && on && bytes >= ((size_t)4 << 20))
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	return p;
}

static const char *const measure_names[DPA_NMEASURES] = {
	[DPA_CALLS] = "calls",
	[DPA_EXITS] = "exits",
	[DPA_NONLOCAL] = "nonlocal_exits",
	[DPA_CSCS] = "cscs",
	[DPA_TICKS] = "ticks",
	[DPA_ALLOCS] = "allocs",
	[DPA_BYTES] = "bytes",
};

static const char *const kind_names[DPA_CSS_NKINDS] = {
	[DPA_CSS_DYNAMIC] = "dynamic",
	[DPA_CSS_NORMAL] = "normal",
	[DPA_CSS_INDIRECT] = "indirect",
	[DPA_CSS_EXTERNAL] = "external",
	[DPA_CSS_CALLBACK] = "callback",
	[DPA_CSS_PARALLEL] = "parallel",
	[DPA_CSS_TASK] = "task",
};

const char *dpa_measure_name(enum dpa_measure m)
{
	return (unsigned)m < DPA_NMEASURES ? measure_names[m] : "?";
}

const char *dpa_css_kind_name(enum dpa_css_kind k)
{
	return (unsigned)k < DPA_CSS_NKINDS ? kind_names[k] : "?";
}

const char *dpa_basename(const char *path)
{
	const char *slash;

	if (!path)
		return "?";
	slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/* The address name into buf (DPA_ADDR_NAME_MAX bytes): its length, or -1. */
static int addr_name(const struct dpa_profile *p, uint32_t module, uint64_t offset, char *buf)
{
	int n;

	if (module >= 1 && module <= p->n_module)
		n = snprintf(buf, DPA_ADDR_NAME_MAX, "0x%" PRIx64 " in %.255s", offset,
			     dpa_basename(p->module[module].path));
	else
		n = snprintf(buf, DPA_ADDR_NAME_MAX, "0x%" PRIx64, offset);
	if (n < 0)
		return -1;
	return (size_t)n >= DPA_ADDR_NAME_MAX ? DPA_ADDR_NAME_MAX - 1 : n;
}

const char *dpa_addr_name(const struct dpa_profile *p, uint32_t module, uint64_t offset)
{
	struct dpa_profile *mp = (struct dpa_profile *)p;  /* only the string table changes */
	char buf[DPA_ADDR_NAME_MAX];
	const char *s;
	int n = addr_name(p, module, offset, buf);

	if (n < 0)
		return "?";
	if (!mp->strings && !(mp->strings = dpa_strtab_new()))
		return "?";
	s = dpa_strtab_intern(mp->strings, buf, n);
	return s ? s : "?";
}

const char *dpa_str(const struct dpa_profile *p, uint32_t id)
{
	return id ? dpa_strtab_str(p->strings, id) : NULL;
}

uint32_t dpa_str_id(struct dpa_profile *p, const char *s)
{
	if (!s)
		return 0;
	if (!p->strings && !(p->strings = dpa_strtab_new()))
		return 0;
	return dpa_strtab_id(p->strings, s, strlen(s));
}

const char *dpa_ps_name_buf(const struct dpa_profile *p, uint32_t ps, char *buf)
{
	if (ps == 0 || ps > p->n_ps)
		return "?";
	if (dpa_src_get(p, DPA_PS_NAME, ps))
		return dpa_src_str(p, DPA_PS_NAME, ps);
	return addr_name(p, p->ps[ps].module, dpa_ps_offset(p, ps), buf) < 0 ? "?" : buf;
}

const char *dpa_ps_name(const struct dpa_profile *p, uint32_t ps)
{
	if (ps == 0 || ps > p->n_ps)
		return "?";
	if (dpa_src_get(p, DPA_PS_NAME, ps))
		return dpa_src_str(p, DPA_PS_NAME, ps);
	return dpa_addr_name(p, p->ps[ps].module, dpa_ps_offset(p, ps));
}

/* ---- source columns ---- */

/* The bytes a column needs to hold v. */
static uint8_t src_width(uint32_t v)
{
	return v <= UINT8_MAX ? 1 : v <= UINT16_MAX ? 2 : 4;
}

static void src_put(void *a, uint8_t width, uint32_t i, uint32_t v)
{
	switch (width) {
	case 1: ((uint8_t *)a)[i] = (uint8_t)v; break;
	case 2: ((uint16_t *)a)[i] = (uint16_t)v; break;
	case 4: ((uint32_t *)a)[i] = v; break;
	}
}

int dpa_src_set_slow(struct dpa_profile *p, enum dpa_src f, uint32_t id, uint32_t v)
{
	struct dpa_src_col *c = &p->src[f];
	uint8_t w = c->width;
	uint64_t n = c->n;
	void *a;

	if (id < c->n && src_width(v) <= w) {
		src_put(c->v, w, id, v);
		return 0;
	}
	if (id >= c->n && !v)
		return 0;       /* already 0 */
	if (src_width(v) > w)
		w = src_width(v);
	if (id >= n) {
		n = n ? n * 2 : 64;
		while (n <= id)
			n *= 2;
		if (n > (uint64_t)UINT32_MAX)
			n = (uint64_t)id + 1;
	}
	if (w == c->width) {
		a = dpa_realloc_huge(c->v, n * w);
		if (!a)
			return -1;
		memset((char *)a + (size_t)c->n * w, 0, (n - c->n) * w);
	} else {
		a = dpa_calloc_huge(n, w);
		if (!a)
			return -1;
		for (uint32_t i = 0; i < c->n; i++)
			src_put(a, w, i, dpa_src_get(p, f, i));
		free(c->v);
	}
	c->v = a;
	c->width = w;
	c->n = (uint32_t)n;
	src_put(c->v, w, id, v);
	return 0;
}

const char *dpa_src_str(const struct dpa_profile *p, enum dpa_src f, uint32_t id)
{
	return dpa_str(p, dpa_src_get(p, f, id));
}

void dpa_src_trim(struct dpa_profile *p)
{
	for (int f = 0; f < DPA_NSRC; f++) {
		struct dpa_src_col *c = &p->src[f];
		uint32_t n = (f <= DPA_PS_OFF_HI ? p->n_ps : p->n_css) + 1;
		void *a;

		if (c->n > n && (a = realloc(c->v, (size_t)n * c->width))) {
			c->v = a;
			c->n = n;
		}
	}
}

void dpa_src_release(struct dpa_profile *p)
{
	for (int f = 0; f < DPA_NSRC; f++)
		free(p->src[f].v);
	memset(p->src, 0, sizeof(p->src));
}

/* ---- call lists ---- */

/* True when perm[0 .. n) is 1 .. n. */
static bool is_identity(const uint32_t *perm, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (perm[i] != i + 1)
			return false;
	return true;
}

void dpa_profile_compact(struct dpa_profile *p)
{
	if (p->pd_thread) {
		bool ranges = true;

		for (uint32_t i = 2; i <= p->n_pd && ranges; i++)
			ranges = p->pd_thread[i] == p->pd_thread[i - 1] ||
				 p->pd_thread[i] == p->pd_thread[i - 1] + 1;
		if (ranges && p->n_pd && p->pd_thread[1] != 1)
			ranges = false;
		if (ranges && p->n_pd && p->pd_thread[p->n_pd] != p->n_thread)
			ranges = false;
		if (ranges) {
			for (uint32_t i = p->n_pd; i >= 1; i--)
				p->thread[p->pd_thread[i]].first_pd = i;
			free(p->pd_thread);
			p->pd_thread = NULL;
		}
	}
	if (p->out_perm && is_identity(p->out_perm, p->n_csd)) {
		free(p->out_perm);
		p->out_perm = NULL;
	}
	if (p->in_perm && is_identity(p->in_perm, p->n_csd)) {
		free(p->in_perm);
		p->in_perm = NULL;
	}
}

void dpa_profile_release(struct dpa_profile *p)
{
	if (!p)
		return;
	free(p->path);
	free(p->hdr.argv);
	free(p->module);
	free(p->ps);
	free(p->css);
	free(p->pd);
	dpa_csd_release(p);
	free(p->thread);
	free(p->out_perm);
	free(p->in_perm);
	free(p->pd_thread);
	dpa_src_release(p);
	free(p->inside);
	for (uint32_t i = 0; i < p->n_check; i++) {
		free(p->check[i].calls);
		free(p->check[i].conflicts);
		free(p->check[i].opaque);
	}
	free(p->check);
	dpa_strtab_free(p->strings);
	memset(p, 0, sizeof(*p));
}

/* "<path>: <message>" into *err (if not NULL); -1. */
static int vfail(struct dpa_error *err, const char *path, const char *fmt, va_list ap)
{
	int n;

	if (!err)
		return -1;
	n = snprintf(err->msg, sizeof(err->msg), "%s: ", path);
	if (n < 0 || (size_t)n >= sizeof(err->msg))
		n = 0;
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
	return -1;
}

int dpa_fail(struct dpa_error *err, const struct dpa_profile *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(err, p && p->path ? p->path : "profile", fmt, ap);
	va_end(ap);
	return -1;
}

int dpa_fail_at(struct dpa_error *err, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(err, path, fmt, ap);
	va_end(ap);
	return -1;
}

int dpa_check_graft(struct dpa_profile *to, const struct dpa_profile *from, uint32_t input)
{
	struct dpa_check_region *v;

	if (!from->n_check)
		return 0;
	v = realloc(to->check, ((size_t)to->n_check + from->n_check) * sizeof(*v));
	if (!v)
		return -1;
	to->check = v;
	for (uint32_t i = 0; i < from->n_check; i++) {
		const struct dpa_check_region *f = &from->check[i];
		struct dpa_check_region *g = &to->check[to->n_check];

		*g = *f;
		g->input = input;
		g->calls = malloc(f->n_calls * sizeof(*g->calls));
		g->conflicts = f->n_conflicts ? malloc(f->n_conflicts * sizeof(*g->conflicts)) : NULL;
		g->opaque = f->n_opaque ? malloc(f->n_opaque * sizeof(*g->opaque)) : NULL;
		if (!g->calls || (f->n_conflicts && !g->conflicts) || (f->n_opaque && !g->opaque)) {
			free(g->calls);
			free(g->conflicts);
			free(g->opaque);
			return -1;
		}
		memcpy(g->calls, f->calls, f->n_calls * sizeof(*g->calls));
		if (f->n_conflicts)
			memcpy(g->conflicts, f->conflicts, f->n_conflicts * sizeof(*g->conflicts));
		if (f->n_opaque)
			memcpy(g->opaque, f->opaque, f->n_opaque * sizeof(*g->opaque));
		to->n_check++;
	}
	to->has_check = true;
	return 0;
}
