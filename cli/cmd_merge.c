/*
 * cmd_merge.c — `deepprof merge [--force] -o OUT FILE...`: read the
 * profiles, merge them context by context (analyses/merge.h) and write the
 * result as one Deep.data file (analyses/write_profile.h).
 * Part of deepprof's command line. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "merge.h"
#include "profile.h"
#include "write_profile.h"

int cmd_merge(int argc, char **argv);

static const char merge_usage[] =
	"usage: deepprof merge [--force] -o OUT FILE...\n"
	"\n"
	"Combine the profiles FILE... (Deep.data files of runs of one program)\n"
	"into OUT, context by context: contexts are matched by the path of call\n"
	"sites that leads to them from their thread's root (thread 1 with thread\n"
	"1, other threads by start routine and position), every measure and the\n"
	"header's totals are summed, and recursion stays folded. OUT is again a\n"
	"Deep.data file (schemas/deep-data.md, \"Merged profiles\"); it may be one\n"
	"of the inputs. Merging is associative and commutative: the order and\n"
	"grouping of the runs do not change a byte of OUT (except that with\n"
	"--force the header names the first file's program).\n"
	"\n"
	"  -o, --output=OUT  the file to write (written atomically)\n"
	"  --force           merge profiles of different programs (program path\n"
	"                    or main module build id differ); contexts then\n"
	"                    match only where names or addresses agree\n"
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 success, 1 OUT could not be written, 2 bad usage or a\n"
	"missing, corrupt or incompatible input (different programs, clocks).\n";

static void merge_help(void)
{
	const char *u = dp_cmd_usage("merge");

	fputs(u ? u : merge_usage, stdout);
}

static void read_input(struct dpa_profile *p, const char *path)
{
	struct dpa_error err = { { 0 } };

	if (dpa_profile_read(p, path, &err) < 0)
		die("%s", err.msg);
}

static void merge_or_die(struct dpa_merged *m, const struct dpa_profile *const *in, uint32_t n,
			 const struct dpa_merge_options *opt)
{
	struct dpa_error err = { { 0 } };

	if (dpa_merge(m, in, n, opt, &err) < 0) {
		if (!opt->force && (strstr(err.msg, "different programs") ||
				    strstr(err.msg, "different builds")))
			die("%s (--force merges them anyway)", err.msg);
		die("%s", err.msg);
	}
}

int cmd_merge(int argc, char **argv)
{
	struct dpa_merge_options opt = { .force = false };
	const char *out = NULL;
	const char **files;
	const struct dpa_profile *ins[2];
	struct dpa_profile cur;
	struct dpa_merged m;
	struct dpa_error err = { { 0 } };
	int nfiles = 0, i, status = DP_EXIT_OK;
	bool opts_done = false;

	files = calloc((size_t)argc + 1, sizeof(*files));
	if (!files)
		die_status(DP_EXIT_FAIL, "merge: out of memory");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (opts_done || a[0] != '-' || !a[1]) {
			files[nfiles++] = a;
		} else if (!strcmp(a, "--")) {
			opts_done = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			free(files);
			merge_help();
			return DP_EXIT_OK;
		} else if (!strcmp(a, "--force")) {
			opt.force = true;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (i + 1 >= argc)
				usage_error("merge", "option '%s' needs a file name", a);
			out = argv[++i];
		} else if (!strncmp(a, "--output=", 9)) {
			out = a + 9;
		} else if (!strncmp(a, "-o", 2)) {
			out = a + 2;
		} else {
			usage_error("merge", "unknown option '%s'", a);
		}
	}
	if (!out || !*out)
		usage_error("merge", "no output file: use -o OUT");
	if (nfiles < 1)
		usage_error("merge", "no profiles to merge");

	/* Fold the inputs in one at a time (merging is associative, so the
	 * result is the same as merging all at once): at most two profiles
	 * and the running result are in memory, however many files there are. */
	read_input(&cur, files[0]);
	if (nfiles == 1) {
		ins[0] = &cur;
		merge_or_die(&m, ins, 1, &opt);
		dpa_profile_release(&cur);
	}
	for (i = 1; i < nfiles; i++) {
		struct dpa_profile next;
		struct dpa_merged acc;

		read_input(&next, files[i]);
		ins[0] = i == 1 ? &cur : &m.prof;
		ins[1] = &next;
		merge_or_die(&acc, ins, 2, &opt);
		if (i == 1)
			dpa_profile_release(&cur);
		else
			dpa_merged_release(&m);
		dpa_profile_release(&next);
		m = acc;
		/* errors about later files name the first one, whose program the
		 * running result carries */
		free(m.prof.path);
		m.prof.path = strdup(files[0]);
		if (!m.prof.path)
			die_status(DP_EXIT_FAIL, "merge: out of memory");
	}
	if (dpa_profile_write(&m.prof, out, &err) < 0) {
		fprintf(stderr, "%s: %s\n", dp_progname, err.msg);
		status = DP_EXIT_FAIL;
	}
	dpa_merged_release(&m);
	free(files);
	return status;
}
