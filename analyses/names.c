/*
 * names.c — procedure lookup by `name` or `file.c:name`, with close matches
 * for names that are not there (see names.h).
 * Part of deepprof's analyses library. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

#define MAX_SUGGEST 5

unsigned dpa_names_distance(const char *a, const char *b, unsigned max)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned row[64], best;

	if (lb >= 64 || la >= 64)
		return strcmp(a, b) ? max + 1 : 0;
	if ((la > lb ? la - lb : lb - la) > max)
		return max + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned v = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > max)
			return max + 1;
	}
	return row[lb] > max ? max + 1 : row[lb];
}

/* Does the ps's file match `file` (the whole path, or a tail of it that
 * starts after a '/')? */
static bool file_matches(const char *path, const char *file, size_t flen)
{
	size_t pl;

	if (!path)
		return false;
	pl = strlen(path);
	if (pl == flen)
		return !memcmp(path, file, flen);
	return pl > flen && path[pl - flen - 1] == '/' && !memcmp(path + pl - flen, file, flen);
}

struct cand {
	unsigned dist;
	uint32_t ps;
};

static int cand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	return a->ps < b->ps ? -1 : a->ps > b->ps;
}

/* Append " (did you mean: a, b?)" or nothing to err. */
static void suggest(const struct dpa_profile *p, const char *name, struct dpa_error *err)
{
	struct cand best[MAX_SUGGEST];
	unsigned n = 0, max = strlen(name) / 3;
	size_t len;

	if (max < 2)
		max = 2;
	for (uint32_t k = 2; k <= p->n_ps; k++) {
		const char *s = dpa_src_str(p, DPA_PS_NAME, k);
		struct cand c;
		bool dup = false;

		if (!s)
			continue;
		c.dist = dpa_names_distance(name, s, max);
		if (c.dist > max && !(strlen(name) >= 3 && strstr(s, name)))
			continue;
		if (c.dist > max)
			c.dist = max + 1;
		c.ps = k;
		for (unsigned i = 0; i < n; i++)
			if (!strcmp(dpa_src_str(p, DPA_PS_NAME, best[i].ps), s))
				dup = true;
		if (dup)
			continue;
		if (n < MAX_SUGGEST) {
			best[n++] = c;
		} else if (cand_cmp(&c, &best[n - 1]) < 0) {
			best[n - 1] = c;
		} else {
			continue;
		}
		qsort(best, n, sizeof(best[0]), cand_cmp);
	}
	if (!n)
		return;
	len = strlen(err->msg);
	len += snprintf(err->msg + len, sizeof(err->msg) - len, " (did you mean:");
	for (unsigned i = 0; i < n && len < sizeof(err->msg); i++)
		len += snprintf(err->msg + len, sizeof(err->msg) - len, "%s %s", i ? "," : "",
				dpa_src_str(p, DPA_PS_NAME, best[i].ps));
	if (len < sizeof(err->msg))
		snprintf(err->msg + len, sizeof(err->msg) - len, "?)");
}

/* The procedures named `name` (in a file that ends in the flen bytes of
 * file, when file is not NULL) into v (room for every ps); their number.
 * *ambiguous: a bare name found in more than one file. */
static uint32_t match(const struct dpa_profile *p, const char *name, const char *file, size_t flen,
		      uint32_t *v, bool *ambiguous)
{
	const char *file1 = NULL;
	uint32_t nv = 0;

	*ambiguous = false;
	/* a procedure without a name is known by its address ("0x..."
	 * dpa_addr_name()), made only when the name asked for is one: making
	 * it interns a string, for every such procedure */
	bool addr = name[0] == '0' && name[1] == 'x';

	for (uint32_t k = 1; k <= p->n_ps; k++) {
		const char *nm;

		if (dpa_src_get(p, DPA_PS_NAME, k))
			nm = dpa_src_str(p, DPA_PS_NAME, k);
		else if (addr)
			nm = dpa_ps_name(p, k);
		else
			continue;
		if (strcmp(nm, name))
			continue;
		if (file && !file_matches(dpa_src_str(p, DPA_PS_FILE, k), file, flen))
			continue;
		if (nv && !file) {
			const char *f = dpa_src_get(p, DPA_PS_FILE, k) ? dpa_src_str(p, DPA_PS_FILE, k) : "";

			if (strcmp(f, file1 ? file1 : ""))
				*ambiguous = true;
		} else {
			file1 = dpa_src_str(p, DPA_PS_FILE, k);
		}
		v[nv++] = k;
	}
	return nv;
}

int dpa_names_find(const struct dpa_profile *p, const char *spec, uint32_t **out,
		   uint32_t *n, struct dpa_error *err)
{
	const char *colon = strrchr(spec, ':');
	const char *name = colon ? colon + 1 : spec;
	size_t flen = colon ? (size_t)(colon - spec) : 0;
	uint32_t *v = NULL, nv = 0;
	bool ambiguous = false;

	*out = NULL;
	*n = 0;
	if (!*name || (colon && !flen)) {
		snprintf(err->msg, sizeof(err->msg), "%s: bad procedure name '%s': want name or file.c:name",
			 p->path, spec);
		return -1;
	}
	v = malloc(((size_t)p->n_ps + 1) * sizeof(*v));
	if (!v) {
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", p->path);
		return -1;
	}
	/* file:name at each colon from the left (a name may hold colons: ns::f,
	 * file.c:ns::f), then the whole spec as a bare name */
	for (const char *c = strchr(spec, ':'); c && !nv; c = strchr(c + 1, ':'))
		if (c > spec && c[1])
			nv = match(p, c + 1, spec, (size_t)(c - spec), v, &ambiguous);
	if (!nv && colon)
		nv = match(p, spec, NULL, 0, v, &ambiguous);
	if (!nv && !colon)
		nv = match(p, name, NULL, 0, v, &ambiguous);
	if (!nv) {
		/* say it as read at the first lone colon (not half of a "::") */
		const char *c = spec;

		while ((c = strchr(c, ':')) && (c[1] == ':' || (c > spec && c[-1] == ':')))
			c++;
		if (c)
			snprintf(err->msg, sizeof(err->msg), "%s: no procedure '%s' in file '%.*s'",
				 p->path, c + 1, (int)(c - spec), spec);
		else
			snprintf(err->msg, sizeof(err->msg), "%s: no procedure named '%s'", p->path, spec);
		suggest(p, c ? c + 1 : spec, err);
		free(v);
		return -1;
	}
	if (ambiguous) {
		const char *bare = colon ? spec : name;
		size_t len = snprintf(err->msg, sizeof(err->msg),
				      "%s: '%s' names procedures in several files; say which:", p->path, bare);
		for (uint32_t i = 0; i < nv && len < sizeof(err->msg); i++) {
			len += snprintf(err->msg + len, sizeof(err->msg) - len, "%s %s:%s", i ? "," : "",
					dpa_src_get(p, DPA_PS_FILE, v[i]) ? dpa_basename(dpa_src_str(p, DPA_PS_FILE, v[i]))
					: "?", bare);
		}
		free(v);
		return -1;
	}
	*out = v;
	*n = nv;
	return 0;
}
