/*
 * show.c — dp-batch-show FILE [NM_OUTPUT]: print a profile's calls as
 * "T<thread> <caller context> -> <callee>: calls=N exits=N cscs=N" lines,
 * summed per (caller pd, callee pd), names from `nm` output when given
 * (else 0x offsets), in sorted order; the batch suite compares them with
 * exact expected counts. `dp-batch-show --canon FILE` prints
 * dpa_profile_canon() instead. Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "profile.h"

struct sym { unsigned long long addr; char name[128]; };
static struct sym *syms;
static size_t nsyms;

static void load_nm(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], type;
	unsigned long long a;
	char name[128];

	if (!f) {
		fprintf(stderr, "dp-batch-show: %s: cannot open\n", path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &a, &type, name) == 3 && (type == 't' || type == 'T')) {
			syms = realloc(syms, (nsyms + 1) * sizeof(*syms));
			if (!syms)
				exit(1);
			syms[nsyms].addr = a;
			snprintf(syms[nsyms].name, sizeof(syms[nsyms].name), "%s", name);
			nsyms++;
		}
	fclose(f);
}

static const char *ps_name(const struct dpa_profile *p, uint32_t ps, char *buf, size_t n)
{
	size_t i;

	if (p->ps[ps].module == 1)
		for (i = 0; i < nsyms; i++)
			if (syms[i].addr == dpa_ps_offset(p, ps))
				return syms[i].name;
	return dpa_merge_ps_label(p, ps, buf, n);
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	struct dpa_profile p;
	struct dpa_merged m;
	struct dpa_error err = { { 0 } };
	const struct dpa_profile *in[1] = { &p };
	const struct dpa_profile *o;
	char **lines;
	size_t nl = 0, i;
	uint32_t k;

	if (argc >= 3 && !strcmp(argv[1], "--canon")) {
		char *s;
		if (dpa_profile_read(&p, argv[2], &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			return 2;
		}
		s = dpa_profile_canon(&p, &err);
		if (!s) {
			fprintf(stderr, "%s\n", err.msg);
			return 2;
		}
		fputs(s, stdout);
		free(s);
		dpa_profile_release(&p);
		return 0;
	}
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: dp-batch-show [--canon] FILE [NM_OUTPUT]\n");
		return 2;
	}
	if (argc == 3)
		load_nm(argv[2]);
	if (dpa_profile_read(&p, argv[1], &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	/* Merged alone: canonical, and gives each pd a shortest path. */
	if (dpa_merge(&m, in, 1, NULL, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	o = &m.prof;
	lines = calloc(o->n_csd + 1, sizeof(char *));
	for (k = 1; k <= o->n_csd; k++) {
		const struct dpa_csd *d = &o->csd[k];
		uint64_t calls = 0, exits = 0, cscs = 0;
		uint32_t j, x, chain[64], n = 0;
		char path[2048] = "", buf[128];
		bool first = true;

		for (j = 1; j < k; j++)
			if (o->csd[j].caller_pd == d->caller_pd && o->csd[j].callee_pd == d->callee_pd)
				break;
		if (j < k)
			continue;       /* summed with an earlier one */
		for (j = k; j <= o->n_csd; j++)
			if (o->csd[j].caller_pd == d->caller_pd && o->csd[j].callee_pd == d->callee_pd) {
				calls += dpa_own(o, j, DPA_CALLS);
				exits += dpa_own(o, j, DPA_EXITS);
				cscs += dpa_own(o, j, DPA_CSCS);
			}
		for (x = d->caller_pd; x && o->pd[x].ps != 1 && n < 64;
		     x = m.bfs_parent_csd[x] ? o->csd[m.bfs_parent_csd[x]].caller_pd : 0)
			chain[n++] = x;
		for (j = n; j-- > 0; first = false) {
			strcat(path, first ? "" : ">");
			strncat(path, ps_name(o, o->pd[chain[j]].ps, buf, sizeof(buf)), 100);
		}
		if (asprintf(&lines[nl++], "T%u %s -> %s: calls=%llu exits=%llu cscs=%llu",
			     dpa_pd_thread(o, d->caller_pd), n ? path : "<root>",
			     ps_name(o, o->pd[d->callee_pd].ps, buf, sizeof(buf)),
			     (unsigned long long)calls, (unsigned long long)exits,
			     (unsigned long long)cscs) < 0)
			return 1;
	}
	qsort(lines, nl, sizeof(*lines), cmp_line);
	for (i = 0; i < nl; i++) {
		puts(lines[i]);
		free(lines[i]);
	}
	printf("header calls=%llu cscs=%llu threads=%u\n", (unsigned long long)o->hdr.calls,
	       (unsigned long long)o->hdr.cscs, o->n_thread);
	free(lines);
	dpa_merged_release(&m);
	dpa_profile_release(&p);
	return 0;
}
