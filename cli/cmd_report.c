/*
 * cmd_report.c — `deepprof report FILE [summary|top|proc NAME|clique ID|
 * site ID|callers NAME|recursion] [options]`: Mercury's pipeline, read →
 * startup → report → display → text, JSON or HTML (analyses/report.h,
 * display.h); `--html-dir DIR` writes a browsable static site of them.
 * Part of deepprof's command line. MIT licence.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "display.h"
#include "report.h"
#include "tempfile.h"

int cmd_report(int argc, char **argv);

static const char report_usage[] =
	"usage: deepprof report [options] FILE [REPORT [ARG]]\n"
	"\n"
	"Reports on the profile FILE (a Deep.data file). REPORT is one of:\n"
	"  summary          program, totals, numbers of nodes and cliques (default)\n"
	"  top              procedures ranked by a measure\n"
	"  proc NAME        one procedure across all its contexts: its contexts,\n"
	"                   its call sites with their callees and costs\n"
	"  clique ID        one calling context: ancestors up to main, members,\n"
	"                   each call site's own and inherited costs, child cliques\n"
	"  site ID          one call site (css id) and its callees\n"
	"  callers NAME     who calls NAME, grouped by --by\n"
	"  recursion        cliques by recursion type; per recursive clique its\n"
	"                   calls per entry, estimated depth and cost per level\n"
	"NAME is a function name or file.c:name.\n"
	"\n"
	"Options (before or after FILE):\n"
	"  --sort=MEASURE   calls, cscs (default), ticks or time, allocs, bytes\n"
	"                   (a sampled profile, from deepprof record: time by default;\n"
	"                   it has no calls or cscs)\n"
	"  --self           rank by the procedure's own cost (default)\n"
	"  --total          rank by its own plus its descendants' cost\n"
	"  --per-call       divide by the calls into each row\n"
	"  --limit=N        at most N rows in ranked lists (default 20 in text and\n"
	"                   HTML, all in JSON; 0: all); --limit=P% keeps rows with\n"
	"                   at least P percent of the program's total\n"
	"  --threshold=P    the same as --limit=P%\n"
	"  --by=GROUP       callers: site (default), proc, file or clique\n"
	"  --json           one JSON document (schemas/report.schema.json)\n"
	"  --html           one self-contained HTML page (inline CSS, no script)\n"
	"  -o, --output=OUT write the report to OUT (atomically) instead of stdout\n"
	"  --html-dir=DIR   write a browsable static site into DIR (created; its\n"
	"                   pages replaced, an earlier site's stale pages\n"
	"                   removed) instead of one report: index.html\n"
	"                   (summary and top procedures), recursion.html, a page\n"
	"                   per procedure (proc-PS.html) and per recursive clique\n"
	"                   (clique-ID.html), linked to each other; give no REPORT\n"
	"  --html-limit=N   --html-dir: pages for at most N procedures, the\n"
	"                   costliest by total --sort measure, and N recursive\n"
	"                   cliques (default 500); names without a page are not links\n"
	"  -h, --help       show this help\n"
	"\n"
	"Times are timer ticks x the profile's measured time per tick.\n"
	"Exit status: 0 success, 2 bad usage, a missing, truncated or corrupt\n"
	"FILE, an unknown name or id, or an output place that cannot be written;\n"
	"1 when the tool itself fails (out of memory, a write error).\n";

static void report_help(void)
{
	const char *u = dp_cmd_usage("report");

	fputs(u ? u : report_usage, stdout);
}

static double parse_pct(const char *v, const char *opt)
{
	char *end;
	double d = strtod(v, &end);

	if (end == v || (*end && strcmp(end, "%")) || !(d >= 0.0 && d <= 100.0))
		usage_error("report", "bad %s '%s': want a percentage 0..100", opt, v);
	return d;
}

static uint32_t parse_uint(const char *v, const char *what)
{
	char *end;
	unsigned long long l;

	if (v[0] < '0' || v[0] > '9')
		usage_error("report", "bad %s '%s': want a number", what, v);
	l = strtoull(v, &end, 10);
	if (*end || l > UINT32_MAX)
		usage_error("report", "bad %s '%s': want a number", what, v);
	return (uint32_t)l;
}

/* Write *dp to path atomically (a temporary file beside it, renamed over
 * it) as render() prints it. Dies: 2 if path's directory cannot take the
 * file, 1 if writing fails. */
static void write_output(const char *path, const struct dpa_display *dp,
			 int (*render)(const struct dpa_display *, FILE *))
{
	char *tmp;
	FILE *f;
	int fd = dpa_temp_create(path, &tmp);

	if (fd < 0 && errno == ENOMEM)
		die_status(DP_EXIT_FAIL, "report: out of memory");
	if (fd < 0)
		die("report: %s: cannot create: %s", path, strerror(errno));
	if (!(f = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		dpa_temp_discard(tmp);
		die_status(DP_EXIT_FAIL, "report: %s: %s", path, strerror(e));
	}
	errno = 0;
	if (render(dp, f) < 0 || fflush(f) != 0 || (tmp && fsync(fileno(f)) != 0)) {
		int e = errno;

		fclose(f);
		dpa_temp_discard(tmp);
		die_status(DP_EXIT_FAIL, "report: %s: write failed: %s", path,
			   e ? strerror(e) : "I/O error");
	}
	if (fclose(f) != 0 || dpa_temp_commit(tmp, path) < 0) {
		int e = errno;

		dpa_temp_discard(tmp);
		die_status(DP_EXIT_FAIL, "report: %s: cannot write: %s", path, strerror(e));
	}
	free(tmp);
}

/* --html: a lone page, without links. */
static int render_html_page(const struct dpa_display *dp, FILE *f)
{
	return dpa_render_html(dp, NULL, f);
}

/* Is dir a directory this process can write into? */
static bool writable_dir(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && access(dir, W_OK | X_OK) == 0;
}

static void warn_symbols(const struct dpa_profile *p, int missing)
{
	const char *first = NULL;

	for (uint32_t i = 1; i <= p->n_module && !first; i++)
		if (p->module[i].symbols < 0)
			first = p->module[i].path;
	fprintf(stderr, "%s: warning: no symbols from %d module%s (file missing or changed: %s);"
		" their names show as addresses\n", dp_progname, missing, missing == 1 ? "" : "s",
		first ? first : "?");
}

int cmd_report(int argc, char **argv)
{
	struct dpa_report_opts o = { .kind = DPA_REPORT_SUMMARY, .sort = DPA_CSCS };
	const char *pos[4] = { NULL };
	int npos = 0, missing;
	bool json = false, html = false, opts_done = false, limit_set = false, mode_set = false;
	bool sort_set = false;
	const char *out = NULL, *html_dir = NULL, *html_limit = NULL;
	uint32_t site_limit = 500;
	int (*render)(const struct dpa_display *, FILE *);
	struct dpa_profile p;
	struct dpa_deep d;
	struct dpa_report r;
	struct dpa_display dp;
	struct dpa_error err = { { 0 } };

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (opts_done || a[0] != '-' || !a[1]) {
			if (npos == 3)
				usage_error("report", "too many arguments: '%s'", a);
			pos[npos++] = a;
		} else if (!strcmp(a, "--")) {
			opts_done = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			report_help();
			return DP_EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--html")) {
			html = true;
		} else if ((v = dp_opt_value("report", argc, argv, &i, NULL, "--html-dir"))) {
			if (!*v)
				usage_error("report", "--html-dir needs a directory");
			html_dir = v;
		} else if ((v = dp_opt_value("report", argc, argv, &i, NULL, "--html-limit"))) {
			html_limit = v;
			site_limit = parse_uint(v, "--html-limit");
		} else if ((v = dp_opt_value("report", argc, argv, &i, "-o", "--output"))) {
			if (!*v)
				usage_error("report", "-o needs a file name");
			out = v;
		} else if (!strcmp(a, "--self") || !strcmp(a, "--total")) {
			bool t = !strcmp(a, "--total");

			if (mode_set && o.total != t)
				usage_error("report", "--self and --total exclude each other");
			o.total = t;
			mode_set = true;
		} else if (!strcmp(a, "--per-call")) {
			o.per_call = true;
		} else if ((v = dp_opt_value("report", argc, argv, &i, NULL, "--sort"))) {
			int m = dpa_report_measure_parse(v);

			if (m < 0)
				usage_error("report", "unknown measure '%s' (calls, cscs, ticks, time, allocs, bytes)", v);
			o.sort = m;
			sort_set = true;
		} else if ((v = dp_opt_value("report", argc, argv, &i, NULL, "--limit"))) {
			if (*v && v[strlen(v) - 1] == '%')
				o.threshold = parse_pct(v, "--limit");
			else
				o.limit = parse_uint(v, "--limit");
			limit_set = true;
		} else if ((v = dp_opt_value("report", argc, argv, &i, NULL, "--threshold"))) {
			o.threshold = parse_pct(v, "--threshold");
		} else if ((v = dp_opt_value("report", argc, argv, &i, NULL, "--by"))) {
			int g = dpa_report_group_parse(v);

			if (g < 0)
				usage_error("report", "unknown grouping '%s' (site, proc, file, clique)", v);
			o.group = g;
		} else {
			usage_error("report", "unknown option '%s'", a);
		}
	}
	if (!npos)
		usage_error("report", "no FILE given");
	if (html && json)
		usage_error("report", "--html and --json exclude each other");
	if (html_dir && (html || json || out))
		usage_error("report", "--html-dir writes a whole site: no --html, --json or -o with it");
	if (html_dir && npos >= 2)
		usage_error("report", "--html-dir writes every report: give no REPORT ('%s')", pos[1]);
	if (html_limit && !html_dir)
		usage_error("report", "--html-limit needs --html-dir");
	if (npos >= 2) {
		int k = dpa_report_kind_parse(pos[1]);

		if (k < 0)
			usage_error("report", "unknown report '%s' (summary, top, proc, clique, site, callers, recursion)",
				    pos[1]);
		o.kind = k;
	}
	switch (o.kind) {
	case DPA_REPORT_PROC:
	case DPA_REPORT_CALLERS:
		if (npos != 3)
			usage_error("report", "'%s' needs a procedure NAME", pos[1]);
		o.name = pos[2];
		break;
	case DPA_REPORT_CLIQUE:
	case DPA_REPORT_SITE:
		if (npos != 3)
			usage_error("report", "'%s' needs an ID", pos[1]);
		o.id = parse_uint(pos[2], o.kind == DPA_REPORT_CLIQUE ? "clique id" : "call site id");
		break;
	default:
		if (npos == 3)
			usage_error("report", "'%s' takes no argument ('%s')", pos[1], pos[2]);
	}
	if (!limit_set && !json)
		o.limit = 20;
	if (html_dir) {
		struct stat st;

		/* fail before reading a big profile, not after */
		if (stat(html_dir, &st) == 0 && !S_ISDIR(st.st_mode))
			die("report: %s: not a directory", html_dir);
	}

	if (dpa_profile_read(&p, pos[0], &err) < 0)
		die_plain("%s", err.msg);
	if (p.hdr.sampled) {
		/* deepprof record: time is all there is */
		if (!sort_set)
			o.sort = DPA_TICKS;
		else if (o.sort != DPA_TICKS && o.sort != DPA_ALLOCS && o.sort != DPA_BYTES)
			die("report: %s is a sampled profile (deepprof record): it has no %s "
			    "(sort by time, allocs or bytes)", pos[0], dpa_measure_name(o.sort));
		if (o.per_call)
			die("report: %s is a sampled profile (deepprof record): it has no calls to "
			    "divide by (--per-call)", pos[0]);
	}
	missing = dpa_profile_symbolize(&p);
	if (dpa_deep_init(&d, &p, &err) < 0)
		die_plain("%s", err.msg);
	if (html_dir) {
		uint32_t counts[2];

		if (missing > 0)
			warn_symbols(&p, missing);
		if (dpa_html_site_write(&d, &o, html_dir, site_limit, counts, &err) < 0)
			die_status(writable_dir(html_dir) ? DP_EXIT_FAIL : DP_EXIT_USAGE, "report: %s",
				   err.msg);
		printf("%s/index.html: %u procedure page%s, %u clique page%s\n", html_dir, counts[0],
		       counts[0] == 1 ? "" : "s", counts[1], counts[1] == 1 ? "" : "s");
		dpa_deep_release(&d);
		dpa_profile_release(&p);
		return DP_EXIT_OK;
	}
	if (dpa_report_init(&r, &d, &o, &err) < 0)
		die_plain("%s", err.msg);
	if (dpa_report_display(&dp, &r, &err) < 0)
		die_status(DP_EXIT_FAIL, "report: %s", err.msg);
	if (missing > 0)
		warn_symbols(&p, missing);
	render = json ? dpa_render_json : html ? render_html_page : dpa_render_text;
	if (out)
		write_output(out, &dp, render);
	else if (render(&dp, stdout) < 0 || fflush(stdout) != 0)
		die_status(DP_EXIT_FAIL, "report: cannot write the output");
	dpa_display_release(&dp);
	dpa_report_release(&r);
	dpa_deep_release(&d);
	dpa_profile_release(&p);
	return DP_EXIT_OK;
}
