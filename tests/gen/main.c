/*
 * main.c — dp-gen: write a synthetic Deep.data file (tests/gen/gen.h says
 * what each shape looks like), valid or with one deliberate defect.
 * Part of deepprof's tests. MIT licence.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

static const char usage[] =
	"usage: dp-gen --shape=chain|tree|wide|recursive|mutual|threads --csds=N\n"
	"              [--threads=K] [--seed=S] [--module=PATH] [--corrupt=WHAT]\n"
	"              [--stats] -o FILE\n"
	"  --corrupt=WHAT  write a bad file: magic, version, min-version, missing-key,\n"
	"                  key-type, not-map, ref, order, id, kind, len, css-kind, root,\n"
	"                  unreachable, shared, crc, count, no-end, trailing, css-col,\n"
	"                  ps1, clock\n"
	"  --stats         print the record counts and totals written\n";

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "dp-gen: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (try dp-gen --help)\n");
	return 2;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	*out = strtoull(s, &end, 0);
	return *end ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct dpg_opts o = { .shape = DPG_TREE, .csds = 100 };
	struct dpg_stats st;
	const char *out = NULL;
	int stats = 0, v;
	char err[512];
	uint64_t n;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strncmp(a, "--shape=", 8)) {
			if ((v = dpg_parse_shape(a + 8)) < 0)
				return bad("unknown shape '%s'", a + 8);
			o.shape = v;
		} else if (!strncmp(a, "--csds=", 7)) {
			if (parse_u64(a + 7, &o.csds) < 0 || o.csds == 0)
				return bad("bad --csds '%s'", a + 7);
		} else if (!strncmp(a, "--threads=", 10)) {
			if (parse_u64(a + 10, &n) < 0 || n == 0 || n > 1000000)
				return bad("bad --threads '%s'", a + 10);
			o.threads = n;
		} else if (!strncmp(a, "--seed=", 7)) {
			if (parse_u64(a + 7, &o.seed) < 0)
				return bad("bad --seed '%s'", a + 7);
		} else if (!strncmp(a, "--module=", 9)) {
			o.module = a + 9;
		} else if (!strncmp(a, "--corrupt=", 10)) {
			if ((v = dpg_parse_corrupt(a + 10)) < 0)
				return bad("unknown corruption '%s'", a + 10);
			o.corrupt = v;
		} else if (!strcmp(a, "--stats")) {
			stats = 1;
		} else if (!strcmp(a, "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strncmp(a, "-o", 2) && a[2]) {
			out = a + 2;
		} else {
			return bad("unknown argument '%s'", a);
		}
	}
	if (!out)
		return bad("%s", "no output file (-o FILE)");
	if (dpg_write_file(&o, out, &st, err, sizeof(err)) < 0) {
		fprintf(stderr, "dp-gen: %s\n", err);
		return 1;
	}
	if (stats)
		printf("modules=%u ps=%u css=%u pd=%u csd=%u threads=%u calls=%" PRIu64
		       " cscs=%" PRIu64 " ticks=%" PRIu64 " allocs=%" PRIu64 " bytes=%" PRIu64
		       " size=%" PRIu64 "\n", st.n_module, st.n_ps, st.n_css, st.n_pd, st.n_csd,
		       st.n_thread, st.calls, st.cscs, st.ticks, st.allocs, st.bytes, st.file_size);
	return 0;
}
