/*
 * cmd_diff.c — `deepprof diff OLD NEW [--json] [--sort=M] [--limit=N]`:
 * what got cheaper or dearer per procedure and per context
 * (analyses/diff.h), as aligned text tables or the JSON of schemas/diff.md.
 * Part of deepprof's command line. MIT licence.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "diff.h"
#include "profile.h"

int cmd_diff(int argc, char **argv);

static const char diff_usage[] =
	"usage: deepprof diff [--json] [--sort=MEASURE] [--limit=N] [--force] OLD NEW\n"
	"\n"
	"Compare two profiles of one program (Deep.data files): per procedure\n"
	"(summed over its contexts) and per context (matched as 'deepprof merge'\n"
	"matches them), what got cheaper or dearer, in absolute and relative\n"
	"terms, for calls, cscs, ticks and time, allocs and bytes. Contexts and\n"
	"procedures only in OLD are 'gone', only in NEW 'new'.\n"
	"\n"
	"  --json           one JSON document (schemas/diff.md) instead of tables\n"
	"  --sort=MEASURE   order by the absolute change of MEASURE: calls, cscs\n"
	"                   (default), ticks, time, allocs or bytes\n"
	"  --limit=N        at most N procedures and N contexts (default 20 in\n"
	"                   text, all in JSON); 0 shows all\n"
	"  --force          compare profiles of different programs or builds\n"
	"  -h, --help       show this help\n"
	"\n"
	"Exit status: 0 success, 2 bad usage or a missing, corrupt or\n"
	"incompatible input.\n";

static void diff_help(void)
{
	const char *u = dp_cmd_usage("diff");

	fputs(u ? u : diff_usage, stdout);
}

/* ================================================================
 * Formatting
 * ================================================================ */

static void fmt_time(char *buf, size_t n, double ns, bool sign)
{
	const char *s = sign ? (ns > 0 ? "+" : ns < 0 ? "-" : "") : "";
	double a = fabs(ns);

	if (a >= 1e9)
		snprintf(buf, n, "%s%.2fs", s, a / 1e9);
	else if (a >= 1e6)
		snprintf(buf, n, "%s%.2fms", s, a / 1e6);
	else if (a >= 1e3)
		snprintf(buf, n, "%s%.2fus", s, a / 1e3);
	else
		snprintf(buf, n, "%s%.0fns", s, a);
}

static void fmt_value(char *buf, size_t n, int m, uint64_t v)
{
	if (m == DPA_DIFF_TIME)
		fmt_time(buf, n, (double)v, false);
	else
		snprintf(buf, n, "%llu", (unsigned long long)v);
}

static void fmt_delta(char *buf, size_t n, int m, uint64_t old, uint64_t new_)
{
	int64_t d = dpa_diff_delta(old, new_);

	if (m == DPA_DIFF_TIME)
		fmt_time(buf, n, (double)d, true);
	else
		snprintf(buf, n, "%+lld", (long long)d);
}

static void fmt_rel(char *buf, size_t n, uint64_t old, uint64_t new_)
{
	double r = dpa_diff_relative(old, new_);

	if (isnan(r))
		snprintf(buf, n, "%s", new_ ? "new" : "-");
	else
		snprintf(buf, n, "%+.1f%%", 100.0 * r);
}

/* The measures the tables show (ticks are shown as time). */
static const int shown[] = { DPA_DIFF_CALLS, DPA_DIFF_CSCS, DPA_DIFF_TIME, DPA_DIFF_ALLOCS,
			     DPA_DIFF_BYTES };
#define NSHOWN (sizeof(shown) / sizeof(shown[0]))

static void print_totals(const struct dpa_diff *d)
{
	char a[48], b[48], c[48], r[48];
	int m;

	printf("old: %s (%s)\nnew: %s (%s)\n\n", d->old_path, d->program[0], d->new_path,
	       d->program[1]);
	printf("%-8s %16s %16s %16s %9s\n", "total", "old", "new", "delta", "%");
	for (m = 0; m < DPA_DIFF_NMEASURES; m++) {
		fmt_value(a, sizeof(a), m, d->old_sum[m]);
		fmt_value(b, sizeof(b), m, d->new_sum[m]);
		fmt_delta(c, sizeof(c), m, d->old_sum[m], d->new_sum[m]);
		fmt_rel(r, sizeof(r), d->old_sum[m], d->new_sum[m]);
		printf("%-8s %16s %16s %16s %9s\n", dpa_diff_measure_name(m), a, b, c, r);
	}
}

static void count_status(const struct dpa_diff_row *rows, uint32_t n, uint32_t *c)
{
	uint32_t r;

	c[0] = c[1] = c[2] = c[3] = 0;
	for (r = 0; r < n; r++)
		c[rows[r].status]++;
}

static void print_rows(const struct dpa_diff *d, bool procs, int sort, size_t limit)
{
	const struct dpa_diff_row *rows = procs ? d->procs : d->ctx;
	uint32_t n = procs ? d->n_procs : d->n_ctx, r, c[4];
	size_t k;
	char a[48], b[48], x[48];
	bool incl = procs && d->inherited;

	count_status(rows, n, c);
	printf("\n%s: %u (%u changed, %u new, %u gone, %u same), by |delta %s|",
	       procs ? "procedures" : "contexts", n, c[DPA_DIFF_CHANGED], c[DPA_DIFF_NEW],
	       c[DPA_DIFF_GONE], c[DPA_DIFF_SAME], dpa_diff_measure_name(sort));
	if (limit && limit < n)
		printf(", first %zu", limit);
	printf("\n%-7s %12s %12s", "status", "old", "new");
	for (k = 0; k < NSHOWN; k++) {
		snprintf(x, sizeof(x), "d%s", shown[k] == DPA_DIFF_TIME ? "time" :
			 dpa_diff_measure_name(shown[k]));
		printf(" %11s %8s", x, "%");
	}
	if (incl) {
		snprintf(x, sizeof(x), "d%s incl", sort == DPA_DIFF_TIME ? "time" :
			 dpa_diff_measure_name(sort));
		printf(" %11s %8s", x, "%");
	}
	printf("  %s\n", procs ? "procedure" : "context");
	for (r = 0; r < n && (!limit || r < limit); r++) {
		const struct dpa_diff_row *row = &rows[r];
		char *name = NULL;
		char label[256];

		fmt_value(a, sizeof(a), sort, row->old[sort]);
		fmt_value(b, sizeof(b), sort, row->new_[sort]);
		printf("%-7s %12s %12s", dpa_diff_status_name(row->status), a, b);
		for (k = 0; k < NSHOWN; k++) {
			int m = shown[k];
			fmt_delta(a, sizeof(a), m, row->old[m], row->new_[m]);
			fmt_rel(b, sizeof(b), row->old[m], row->new_[m]);
			printf(" %11s %8s", a, b);
		}
		if (incl) {
			fmt_delta(a, sizeof(a), sort, row->old_total[sort], row->new_total[sort]);
			fmt_rel(b, sizeof(b), row->old_total[sort], row->new_total[sort]);
			printf(" %11s %8s", a, b);
		}
		if (procs) {
			printf("  %s\n", dpa_merge_ps_label(&d->m.prof, row->id, label, sizeof(label)));
		} else {
			name = dpa_diff_context_name(d, row->id);
			printf("  %s\n", name ? name : "?");
			free(name);
		}
	}
}

/* ================================================================
 * The command
 * ================================================================ */

/* Read `path` and resolve its names; remember which ps had names in the
 * file so they can be dropped again if only one side resolves. */
static int read_side(struct dpa_profile *p, const char *path, bool **named, int *unresolved)
{
	struct dpa_error err = { { 0 } };
	uint32_t k;

	if (dpa_profile_read(p, path, &err) < 0)
		die("%s", err.msg);
	*named = calloc((size_t)p->n_ps + 1, sizeof(bool));
	if (!*named)
		die_status(DP_EXIT_FAIL, "diff: out of memory");
	for (k = 1; k <= p->n_ps; k++)
		(*named)[k] = dpa_src_get(p, DPA_PS_NAME, k) != 0;
	*unresolved = dpa_profile_symbolize(p);
	return 0;
}

static void drop_resolved_names(struct dpa_profile *p, const bool *named)
{
	uint32_t k;

	for (k = 1; k <= p->n_ps; k++)
		if (!named[k]) {
			dpa_src_set(p, DPA_PS_NAME, k, 0);     /* 0: never fails */
			dpa_src_set(p, DPA_PS_FILE, k, 0);
		}
}

int cmd_diff(int argc, char **argv)
{
	const char *files[2] = { NULL, NULL };
	int nfiles = 0, i, sort = DPA_DIFF_CSCS, un[2] = { 0, 0 };
	bool sort_set = false;
	bool json = false, force = false, opts_done = false, limit_set = false;
	size_t limit = 20;
	struct dpa_profile old, new_;
	bool *named[2];
	struct dpa_diff d;
	struct dpa_error err = { { 0 } };

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (opts_done || a[0] != '-' || !a[1]) {
			if (nfiles == 2)
				usage_error("diff", "too many arguments: '%s'", a);
			files[nfiles++] = a;
		} else if (!strcmp(a, "--")) {
			opts_done = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			diff_help();
			return DP_EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--force")) {
			force = true;
		} else if (!strncmp(a, "--sort=", 7) || !strcmp(a, "--sort")) {
			const char *v = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);
			if (!v)
				usage_error("diff", "option '--sort' needs a measure");
			sort = dpa_diff_measure_parse(v);
			if (sort < 0)
				usage_error("diff", "unknown measure '%s' (calls, cscs, ticks, time, allocs, bytes)", v);
			sort_set = true;
		} else if (!strncmp(a, "--limit=", 8) || !strcmp(a, "--limit")) {
			const char *v = a[7] == '=' ? a + 8 : (i + 1 < argc ? argv[++i] : NULL);
			char *end;
			unsigned long long l;
			if (!v)
				usage_error("diff", "option '--limit' needs a number");
			l = strtoull(v, &end, 10);
			if (!*v || *end || v[0] == '-' || l > 100000000ULL)
				usage_error("diff", "bad --limit '%s': want a number of rows (0: all)", v);
			limit = (size_t)l;
			limit_set = true;
		} else {
			usage_error("diff", "unknown option '%s'", a);
		}
	}
	if (nfiles != 2)
		usage_error("diff", "want two profiles, OLD and NEW");
	if (json && !limit_set)
		limit = 0;

	read_side(&old, files[0], &named[0], &un[0]);
	read_side(&new_, files[1], &named[1], &un[1]);
	if (!sort_set && (old.hdr.sampled || new_.hdr.sampled))
		sort = DPA_DIFF_TIME;       /* deepprof record: no calls or cscs to order by */
	if (un[0] || un[1]) {
		/* Names on one side and addresses on the other would match nothing. */
		drop_resolved_names(&old, named[0]);
		drop_resolved_names(&new_, named[1]);
	}
	if (dpa_diff_init(&d, &old, &new_, force, &err) < 0) {
		if (!force && (strstr(err.msg, "different programs") || strstr(err.msg, "different builds")))
			die("%s (--force compares them anyway)", err.msg);
		die("%s", err.msg);
	}
	if (un[0] || un[1])
		fprintf(stderr, "%s: warning: %s: cannot resolve every name from debug information;"
			" matching procedures by address\n", dp_progname, un[0] ? files[0] : files[1]);
	dpa_diff_sort(&d, (enum dpa_diff_measure)sort);
	if (json) {
		json_t *doc = dpa_diff_json(&d, (enum dpa_diff_measure)sort, limit);
		if (!doc || json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER) < 0)
			die_status(DP_EXIT_FAIL, "diff: cannot write JSON");
		putchar('\n');
		json_decref(doc);
	} else {
		print_totals(&d);
		print_rows(&d, true, sort, limit);
		print_rows(&d, false, sort, limit);
	}
	dpa_diff_release(&d);
	dpa_profile_release(&old);
	dpa_profile_release(&new_);
	free(named[0]);
	free(named[1]);
	if (fflush(stdout) != 0)
		die_status(DP_EXIT_FAIL, "diff: cannot write the output");
	return DP_EXIT_OK;
}
