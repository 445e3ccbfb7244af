/*
 * ctxpath.c — calling contexts named by their call sites from the thread's
 * root (URLs that survive a new run), and the shortest suffix of that path
 * that tells a procedure's contexts apart (ctxpath.h).
 * Part of deepprof's analyses library. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctxpath.h"

/* Paths longer than this are cut (a 10^7-deep chain): resolving and
 * telling apart stop there. */
#define MAX_STEPS 100000u

uint32_t dpa_ctx_parent(const struct dpa_deep *d, uint32_t pd)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_pd *q = &p->pd[pd];
	uint32_t cq = dpa_clique_of(&d->cl, pd), best = 0, inner = 0;
	uint64_t bc = 0, ic = 0;

	for (uint32_t i = 0; i < dpa_pd_in_n(q); i++) {
		uint32_t x = dpa_in_csd(p, q->in_first + i), from = p->csd[x].caller_pd;
		uint64_t c = dpa_own(p, x, DPA_CALLS);

		if (dpa_clique_of(&d->cl, from) != cq) {
			if (!best || c > bc || (c == bc && x < best)) {
				best = x;
				bc = c;
			}
		} else if (from < pd && (!inner || c > ic || (c == ic && x < inner))) {
			inner = x;
			ic = c;
		}
	}
	if (best)
		return best;
	if (inner)
		return inner;
	return dpa_clique_primary_entry(&d->cl, cq);
}

/* ================================================================
 * Paths
 * ================================================================ */

struct buf {
	char *s;
	size_t n, cap;
	bool failed;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 128;
		char *v;

		while (cap < b->n + n + 1)
			cap *= 2;
		if (!(v = realloc(b->s, cap))) {
			b->failed = true;
			return;
		}
		b->s = v;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* A name inside a step: '%', '/' and '@' escaped. */
static void put_name(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '%')
			puts_(b, "%25");
		else if (*s == '/')
			puts_(b, "%2F");
		else if (*s == '@')
			puts_(b, "%40");
		else
			put(b, s, 1);
	}
}

/* The csds from pd up to its thread's root (nearest first), at most max,
 * malloc'd into *out; returns how many, or -1 out of memory. */
static long chain(const struct dpa_deep *d, uint32_t pd, uint32_t max, uint32_t **out)
{
	uint32_t n = 0, cap = 16, *v = malloc(cap * sizeof(*v));
	uint32_t x;

	if (!v)
		return -1;
	while (n < max && (x = dpa_ctx_parent(d, pd)) != 0) {
		if (n == cap) {
			uint32_t *w = realloc(v, 2 * cap * sizeof(*v));

			if (!w) {
				free(v);
				return -1;
			}
			v = w;
			cap *= 2;
		}
		v[n++] = x;
		pd = d->p->csd[x].caller_pd;
	}
	*out = v;
	return n;
}

void dpa_ctx_css_loc(const struct dpa_profile *p, uint32_t css, char *buf, size_t n)
{
	uint32_t line = dpa_src_get(p, DPA_CSS_LINE, css), col = dpa_src_get(p, DPA_CSS_COL, css);

	if (line && col)
		snprintf(buf, n, "%u:%u", line, col);
	else if (line)
		snprintf(buf, n, "%u", line);
	else
		snprintf(buf, n, "css%u", css);
}

bool dpa_ctx_css_matches(const struct dpa_profile *p, uint32_t css, const char *loc, size_t len)
{
	char want[48];

	if (len >= sizeof(want))
		return false;
	memcpy(want, loc, len);
	want[len] = 0;
	if (!strncmp(want, "css", 3))
		return strtoul(want + 3, NULL, 10) == css && want[3] >= '0' && want[3] <= '9';
	{
		char *end;
		unsigned long line = strtoul(want, &end, 10), col = 0;

		if (end == want)
			return false;
		if (*end == ':') {
			col = strtoul(end + 1, &end, 10);
			if (*end)
				return false;
		} else if (*end) {
			return false;
		}
		return line == dpa_src_get(p, DPA_CSS_LINE, css) &&
		       (!col || col == dpa_src_get(p, DPA_CSS_COL, css));
	}
}

int dpa_ctx_path(const struct dpa_deep *d, uint32_t pd, char **out)
{
	return dpa_ctx_key(d, pd, MAX_STEPS, out);
}

int dpa_ctx_key(const struct dpa_deep *d, uint32_t pd, uint32_t max, char **out)
{
	const struct dpa_profile *p = d->p;
	struct buf b = { 0 };
	uint32_t *v, t = dpa_pd_thread(p, pd);
	long n = chain(d, pd, max + 1, &v);
	char num[32];

	if (n < 0)
		return -1;
	puts_(&b, "");
	if (t > 1) {
		snprintf(num, sizeof(num), "t%u/", t);
		puts_(&b, num);
	}
	if ((uint32_t)n > max) {
		puts_(&b, "~/");        /* the last max calls only */
		n = max;
	}
	for (long i = n - 1; i >= 0; i--) {
		const struct dpa_csd *c = &p->csd[v[i]];

		put_name(&b, dpa_ps_name(p, p->pd[c->callee_pd].ps));
		puts_(&b, "@");
		dpa_ctx_css_loc(p, c->css, num, sizeof(num));
		puts_(&b, num);
		if (i)
			puts_(&b, "/");
	}
	free(v);
	if (b.failed) {
		free(b.s);
		return -1;
	}
	*out = b.s;
	return 0;
}

static uint32_t resolve_suffix(const struct dpa_deep *d, uint32_t t, const char *path,
			       const char *s, struct dpa_error *err);

/* Undo put_name() on s[0..n) into out (at least n + 1 bytes). */
static void unescape(const char *s, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n) {
			if (!strncmp(s + i, "%25", 3)) { out[o++] = '%'; i += 2; continue; }
			if (!strncasecmp(s + i, "%2F", 3)) { out[o++] = '/'; i += 2; continue; }
			if (!strncmp(s + i, "%40", 3)) { out[o++] = '@'; i += 2; continue; }
		}
		out[o++] = s[i];
	}
	out[o] = 0;
}

/* "~/STEP/.../STEP": the first context of thread t whose path ends with
 * these calls. */
static uint32_t resolve_suffix(const struct dpa_deep *d, uint32_t t, const char *path,
			       const char *s, struct dpa_error *err)
{
	const struct dpa_profile *p = d->p;
	uint32_t n = 0, found = 0;
	const char *step[256], *at[256];
	size_t len[256];
	char *last = NULL, *name = malloc(strlen(s) + 1);
	bool *want = NULL;

	if (!name) {
		dpa_fail(err, p, "out of memory");
		return 0;
	}
	for (const char *c = s; *c && n < 256;) {
		const char *end = strchr(c, '/');

		step[n] = c;
		len[n] = end ? (size_t)(end - c) : strlen(c);
		at[n] = memrchr(c, '@', len[n]);
		if (!at[n] || at[n] == c + len[n] - 1) {
			dpa_fail(err, p, "context path '%s': step %u is not NAME@LINE:COL", path, n + 1);
			goto out;
		}
		n++;
		c = end ? end + 1 : c + len[n - 1];
	}
	if (!n) {
		dpa_fail(err, p, "context path '%s': no step after ~/", path);
		goto out;
	}
	last = malloc(strlen(s) + 1);
	want = calloc((size_t)p->n_ps + 1, sizeof(bool));
	if (!last || !want) {
		dpa_fail(err, p, "out of memory");
		goto out;
	}
	unescape(step[n - 1], (size_t)(at[n - 1] - step[n - 1]), last);
	for (uint32_t ps = 1; ps <= p->n_ps; ps++)
		want[ps] = !strcmp(dpa_ps_name(p, ps), last);
	for (uint32_t k = 1; k <= p->n_pd && !found; k++) {
		uint32_t x = k;
		bool ok = true;

		if (!want[p->pd[k].ps] || dpa_pd_thread(p, k) != t)
			continue;
		for (uint32_t i = n; i-- > 0 && ok;) {
			uint32_t c = dpa_ctx_parent(d, x);

			unescape(step[i], (size_t)(at[i] - step[i]), name);
			ok = c && !strcmp(dpa_ps_name(p, p->pd[p->csd[c].callee_pd].ps), name) &&
			     dpa_ctx_css_matches(p, p->csd[c].css, at[i] + 1,
						 (size_t)(step[i] + len[i] - (at[i] + 1)));
			if (c)
				x = p->csd[c].caller_pd;
		}
		if (ok)
			found = k;
	}
	if (!found)
		dpa_fail(err, p, "context path '%s': no context ends with these calls", path);
out:
	free(name);
	free(last);
	free(want);
	return found;
}

uint32_t dpa_ctx_resolve(const struct dpa_deep *d, const char *path, struct dpa_error *err)
{
	const struct dpa_profile *p = d->p;
	uint32_t t = 1, pd, step = 0;
	const char *s = path;
	char *name;

	if (s[0] == 't' && s[1] >= '1' && s[1] <= '9') {
		char *end;
		unsigned long v = strtoul(s + 1, &end, 10);

		if (*end == '/' || !*end) {
			if (v < 1 || v > p->n_thread) {
				dpa_fail(err, p, "no thread %lu in context path '%s' (threads are 1..%u)", v,
					 path, p->n_thread);
				return 0;
			}
			t = (uint32_t)v;
			s = *end ? end + 1 : end;
		}
	}
	if (t < 1 || t > p->n_thread) {
		dpa_fail(err, p, "the profile has no thread");
		return 0;
	}
	if (s[0] == '~' && s[1] == '/')
		return resolve_suffix(d, t, path, s + 2, err);
	pd = p->thread[t].root_pd;
	if (!(name = malloc(strlen(path) + 1))) {
		dpa_fail(err, p, "out of memory");
		return 0;
	}
	while (*s) {
		const char *end = strchr(s, '/'), *at;
		size_t len = end ? (size_t)(end - s) : strlen(s);
		size_t loc_len;
		const struct dpa_pd *q = &p->pd[pd];
		uint32_t next = 0;

		step++;
		at = memrchr(s, '@', len);
		if (!at || at == s + len - 1) {
			dpa_fail(err, p, "context path '%s': step %u ('%.*s') is not NAME@LINE:COL", path,
				 step, (int)len, s);
			goto fail;
		}
		loc_len = (size_t)(s + len - (at + 1));
		unescape(s, (size_t)(at - s), name);
		for (uint32_t i = 0; i < dpa_pd_out_n(q) && !next; i++) {
			uint32_t x = dpa_out_csd(p, q->out_first + i);

			if (!strcmp(dpa_ps_name(p, p->pd[p->csd[x].callee_pd].ps), name) &&
			    dpa_ctx_css_matches(p, p->csd[x].css, at + 1, loc_len))
				next = p->csd[x].callee_pd;
		}
		if (!next) {
			dpa_fail(err, p, "context path '%s': step %u: %s makes no call to %s at %.*s in this"
				 " context", path, step, dpa_ps_name(p, q->ps), name, (int)loc_len, at + 1);
			goto fail;
		}
		pd = next;
		s = end ? end + 1 : s + len;
	}
	free(name);
	return pd;
fail:
	free(name);
	return 0;
}

/* ================================================================
 * Telling contexts apart
 * ================================================================ */

struct item {
	uint32_t idx;           /* into pds */
	uint32_t group;         /* contexts alike so far */
	uint32_t css, ps;       /* the key at this level: the call site and its callee */
	uint32_t at;            /* the pd reached so far (its parent is next) */
};

static uint64_t key_hash(const struct item *x)
{
	uint64_t h = x->group * 0x9E3779B97F4A7C15ull ^ x->css * 0xC2B2AE3D27D4EB4Full ^
		     x->ps * 0x165667B19E3779F9ull;

	return h ^ (h >> 29);
}

static bool same_key(const struct item *a, const struct item *b)
{
	return a->group == b->group && a->css == b->css && a->ps == b->ps;
}

/*
 * Level by level up the paths: contexts alike so far (a group) are split
 * by the next call site up; one alone in its part is told apart at that
 * level. Each level is one pass with a hash table of the keys (group,
 * call site, callee): O(contexts) per level, no sorting.
 */
int dpa_ctx_distinguish(const struct dpa_deep *d, const uint32_t *pds, uint32_t n,
			uint32_t *depth)
{
	const struct dpa_profile *p = d->p;
	struct item *it = malloc((size_t)(n ? n : 1) * sizeof(*it));
	uint32_t live = n, cap = 16, *slot = NULL, *count = NULL, *first = NULL;

	while (cap < 2 * (size_t)n + 2)
		cap *= 2;
	slot = malloc(cap * sizeof(*slot));
	count = malloc((size_t)(n ? n : 1) * sizeof(*count));
	first = malloc((size_t)(n ? n : 1) * sizeof(*first));
	if (!it || !slot || !count || !first) {
		free(it);
		free(slot);
		free(count);
		free(first);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		it[i] = (struct item){ .idx = i, .group = 0, .at = pds[i] };
		depth[i] = 0;
	}
	for (uint32_t level = 1; live > 1 && level <= MAX_STEPS; level++) {
		uint32_t keep = 0, groups = 0;

		for (uint32_t i = 0; i < live; i++) {
			uint32_t x = it[i].at ? dpa_ctx_parent(d, it[i].at) : 0;

			if (x) {
				it[i].css = p->csd[x].css;
				it[i].ps = p->pd[p->csd[x].callee_pd].ps;
				it[i].at = p->csd[x].caller_pd;
			} else {
				/* past the root: only the thread is left */
				it[i].css = 0;
				it[i].ps = it[i].at ? dpa_pd_thread(p, it[i].at) : it[i].ps;
				it[i].at = 0;
			}
		}
		/* the new group of each item: the index of the first item with
		 * its key; count[g] how many share it */
		memset(slot, 0xff, cap * sizeof(*slot));
		for (uint32_t i = 0; i < live; i++) {
			size_t h = key_hash(&it[i]) & (cap - 1);

			while (slot[h] != UINT32_MAX && !same_key(&it[slot[h]], &it[i]))
				h = (h + 1) & (cap - 1);
			if (slot[h] == UINT32_MAX) {
				slot[h] = i;
				count[i] = 0;
				groups++;
			}
			count[slot[h]]++;
			first[i] = slot[h];
		}
		for (uint32_t i = 0; i < live; i++) {
			uint32_t g = first[i];

			if (count[g] == 1 || (!it[i].at && !it[i].css)) {
				/* alone; or the whole path is walked and others share it
				 * (only the thread could tell them apart) */
				depth[it[i].idx] = level;
				continue;
			}
			it[keep] = it[i];
			it[keep++].group = g + 1;       /* groups of the next level: nonzero ids */
		}
		(void)groups;
		live = keep;
	}
	for (uint32_t i = 0; i < live; i++)
		if (!depth[it[i].idx])
			depth[it[i].idx] = 1;
	free(it);
	free(slot);
	free(count);
	free(first);
	return 0;
}

char *dpa_ctx_suffix(const struct dpa_deep *d, uint32_t pd, uint32_t k)
{
	const struct dpa_profile *p = d->p;
	struct buf b = { 0 };
	uint32_t *v, t = dpa_pd_thread(p, pd);
	long n = chain(d, pd, k + 2, &v);
	char num[48];

	if (n < 0)
		return NULL;
	puts_(&b, "");
	if (t > 1) {
		snprintf(num, sizeof(num), "[thread %u] ", t);
		puts_(&b, num);
	}
	/* the root → first procedure call is no call site of the program's */
	if (n > 0 && p->pd[p->csd[v[n - 1]].caller_pd].ps == 1)
		n--;
	if ((uint32_t)n > k) {
		puts_(&b, "\xe2\x80\xa6 ");     /* U+2026 … */
		n = k;
	}
	if (!n)
		puts_(&b, "<root>");
	for (long i = n - 1; i >= 0; i--) {
		const struct dpa_csd *c = &p->csd[v[i]];
		uint32_t line = dpa_src_get(p, DPA_CSS_LINE, c->css);

		puts_(&b, dpa_ps_name(p, p->pd[c->caller_pd].ps));
		uint32_t col = dpa_src_get(p, DPA_CSS_COL, c->css);

		if (line && col)
			snprintf(num, sizeof(num), ":%u:%u", line, col);
		else if (line)
			snprintf(num, sizeof(num), ":%u", line);
		else
			snprintf(num, sizeof(num), "#%u", c->css);
		puts_(&b, num);
		if (i)
			puts_(&b, " > ");
	}
	free(v);
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	return b.s;
}
