/*
 * cmd_export.c — `deepprof export --format=folded|callgrind|speedscope
 * [--measure=M] FILE [-o OUT]`: a profile in another tool's format
 * (analyses/export.h), on standard output or written atomically to OUT.
 * Part of deepprof's command line. MIT licence.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "export.h"
#include "profile.h"
#include "startup.h"
#include "tempfile.h"

int cmd_export(int argc, char **argv);

static const char export_usage[] =
	"usage: deepprof export [--format=F] [--measure=M] FILE [-o OUT]\n"
	"\n"
	"Write the profile FILE (a Deep.data file) in another tool's format, on\n"
	"standard output or into OUT.\n"
	"\n"
	"  -f, --format=F    folded (default): one line \"a;b;c N\" per calling\n"
	"                    context, for flamegraph.pl, inferno and speedscope;\n"
	"                    callgrind: for callgrind_annotate and KCachegrind,\n"
	"                    every measure as an event, one function per\n"
	"                    procedure, exact calls and inclusive costs per arc;\n"
	"                    speedscope: speedscope's JSON file format, one\n"
	"                    profile per thread\n"
	"  -m, --measure=M   what stacks weigh (callgrind: the first event):\n"
	"                    calls, cscs (default), ticks, time (ns: ticks x the\n"
	"                    profile's ns_per_tick), allocs, bytes; a sampled\n"
	"                    profile (deepprof record): ticks by default\n"
	"  -o, --output=OUT  write OUT (atomically: a temporary file renamed into\n"
	"                    place when complete) instead of standard output\n"
	"  -h, --help        show this help\n"
	"\n"
	"Folded stacks and speedscope show every context's chain of calls from\n"
	"its thread's root, with recursion folded: a recursive clique appears\n"
	"once, each member below the chain inside the clique that first reaches\n"
	"it, and the calls back into the clique, at every depth, as one frame\n"
	"(main;fib;fib is the cost of all of fib's recursive calls). Weights add\n"
	"up to the profile's total of the measure.\n"
	"\n"
	"Exit status: 0 success, 1 out of memory or a write error on standard\n"
	"output, 2 bad usage, a missing, truncated or corrupt FILE, or an OUT\n"
	"that cannot be written.\n";

enum format { FMT_FOLDED, FMT_CALLGRIND, FMT_SPEEDSCOPE };

static void export_help(void)
{
	const char *u = dp_cmd_usage("export");

	fputs(u ? u : export_usage, stdout);
}

static enum format parse_format(const char *s)
{
	if (!strcmp(s, "folded"))
		return FMT_FOLDED;
	if (!strcmp(s, "callgrind"))
		return FMT_CALLGRIND;
	if (!strcmp(s, "speedscope"))
		return FMT_SPEEDSCOPE;
	usage_error("export", "unknown format '%s' (folded, callgrind or speedscope)", s);
}

static enum dpa_xmeasure parse_measure(const char *s)
{
	int m = dpa_xmeasure_parse(s);

	if (m < 0)
		usage_error("export", "unknown measure '%s' (calls, cscs, ticks, time, allocs "
			    "or bytes)", s);
	return (enum dpa_xmeasure)m;
}

static int write_doc(FILE *f, enum format fmt, const struct dpa_deep *d, enum dpa_xmeasure m,
		     struct dpa_error *err)
{
	switch (fmt) {
	case FMT_CALLGRIND:
		return dpa_export_callgrind(f, d, m, err);
	case FMT_SPEEDSCOPE:
		return dpa_export_speedscope(f, d, m, err);
	default:
		return dpa_export_folded(f, d, m, err);
	}
}

/*
 * Open a temporary file beside `out` (so that rename() stays in one file
 * system). *tmp gets its malloc'd name. Exits 2 with one line when the
 * directory cannot be written.
 */
static FILE *open_temp(const char *out, char **tmp)
{
	int fd = dpa_temp_create(out, tmp);
	FILE *f;

	if (fd < 0 && errno == ENOMEM)
		die_status(DP_EXIT_FAIL, "export: out of memory");
	if (fd < 0)
		die("%s: cannot write: %s", out, strerror(errno));
	f = fdopen(fd, "w");
	if (!f) {
		int e = errno;

		close(fd);
		dpa_temp_discard(*tmp);
		die("%s: cannot write: %s", out, strerror(e));
	}
	return f;
}

int cmd_export(int argc, char **argv)
{
	enum format fmt = FMT_FOLDED;
	enum dpa_xmeasure m = DPA_XM_CSCS;
	bool m_set = false;
	const char *file = NULL, *out = NULL, *v;
	struct dpa_profile p;
	struct dpa_deep d;
	struct dpa_error err = { { 0 } };
	bool opts_done = false;
	char *tmp = NULL;
	FILE *f = stdout;
	int status = DP_EXIT_OK;
	struct stat st;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (opts_done || a[0] != '-' || !a[1]) {
			if (file)
				usage_error("export", "more than one FILE ('%s' and '%s')", file, a);
			file = a;
		} else if (!strcmp(a, "--")) {
			opts_done = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			export_help();
			return DP_EXIT_OK;
		} else if ((v = dp_opt_value("export", argc, argv, &i, "-f", "--format"))) {
			fmt = parse_format(v);
		} else if ((v = dp_opt_value("export", argc, argv, &i, "-m", "--measure"))) {
			m = parse_measure(v);
			m_set = true;
		} else if ((v = dp_opt_value("export", argc, argv, &i, "-o", "--output"))) {
			if (!*v)
				usage_error("export", "empty output file name");
			out = v;
		} else {
			usage_error("export", "unknown option '%s'", a);
		}
	}
	if (!file)
		usage_error("export", "no FILE given");
	if (out && stat(out, &st) == 0 && S_ISDIR(st.st_mode))
		die("%s: cannot write: is a directory", out);

	if (dpa_profile_read(&p, file, &err) < 0)
		die_plain("%s", err.msg);
	if (p.hdr.sampled) {    /* deepprof record: ticks are all it has */
		if (!m_set)
			m = DPA_XM_TICKS;
		else if (m == DPA_XM_CALLS || m == DPA_XM_CSCS)
			die("export: %s is a sampled profile (deepprof record): it has no %s "
			    "(use ticks, time, allocs or bytes)", file, m == DPA_XM_CALLS ? "calls" : "cscs");
	}
	dpa_profile_symbolize(&p);
	if (dpa_deep_init(&d, &p, &err) < 0) {
		dpa_profile_release(&p);
		die_plain("%s", err.msg);
	}
	if (out)
		f = open_temp(out, &tmp);
	if (write_doc(f, fmt, &d, m, &err) < 0) {
		/* the profile's fault (a cost too large to write, a write error on
		 * OUT: 2), unless memory ran out (1) */
		fprintf(stderr, "%s: %s\n", dp_progname, err.msg);
		status = strstr(err.msg, "out of memory") ? DP_EXIT_FAIL : DP_EXIT_USAGE;
	}
	if (out) {
		if (fclose(f) != 0 && status == DP_EXIT_OK) {
			fprintf(stderr, "%s: %s: cannot write: %s\n", dp_progname, out,
				strerror(errno));
			status = DP_EXIT_USAGE;
		}
		if (status == DP_EXIT_OK && dpa_temp_commit(tmp, out) < 0) {
			fprintf(stderr, "%s: %s: cannot write: %s\n", dp_progname, out,
				strerror(errno));
			status = DP_EXIT_USAGE;
		}
		if (status != DP_EXIT_OK)
			dpa_temp_discard(tmp);
		free(tmp);
	} else if (status == DP_EXIT_OK && (fflush(stdout) != 0 || ferror(stdout))) {
		fprintf(stderr, "%s: error writing the output\n", dp_progname);
		status = DP_EXIT_FAIL;
	}
	dpa_deep_release(&d);
	dpa_profile_release(&p);
	return status;
}
