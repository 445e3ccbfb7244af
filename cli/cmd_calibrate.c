/*
 * cmd_calibrate.c — `deepprof calibrate [-o FILE] [--runs N] [--quick]`:
 * measure this machine's OpenMP task overheads (feedback/calibrate.c), print
 * them as a table and write the calibration file (schemas/calibration.md)
 * atomically. Part of deepprof's command line. MIT licence.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calibrate.h"
#include "cli.h"
#include "tempfile.h"

#define CALIBRATION_FORMAT "deepprof-calibration"
#define CALIBRATION_VERSION 1

static const char calibrate_usage[] =
	"usage: deepprof calibrate [-o FILE] [--runs N] [--quick]\n"
	"\n"
	"Measure the overheads `deepprof feedback` charges a parallel candidate,\n"
	"for OpenMP tasks in libgomp on this machine, in the code shape its\n"
	"estimates assume (a parallel + single region; a task per group but the\n"
	"last, which runs inline; taskwait; a shared value signalled by an atomic\n"
	"flag store and waited for by spinning on the flag):\n"
	"  spawn_cost    what spawning one task costs the spawning thread\n"
	"  spawn_delay   from the spawn until another thread runs the task\n"
	"  barrier_cost  a taskwait when the task has already finished\n"
	"  signal_cost   a producer storing a value and its flag\n"
	"  wait_cost     a consumer finding the value already there\n"
	"  wakeup_delay  a consumer already waiting: from the signal to running on\n"
	"Each is the median of N runs' medians; the table shows the smallest and\n"
	"largest run median beside it.\n"
	"\n"
	"  -o, --output=FILE  the calibration file (default:\n"
	"                     deepprof-calibration.json), written atomically;\n"
	"                     give it to `deepprof feedback --calibration=FILE`\n"
	"  -r, --runs=N       runs (1..1000; default 5, 3 with --quick)\n"
	"  -q, --quick        fewer repetitions per run: under a second in all\n"
	"  -h, --help         show this help\n"
	"\n"
	"The format is schemas/calibration.md. Exit status: 0 success, 1 the\n"
	"measurement failed (no second thread ran a task), 2 bad usage or a FILE\n"
	"that cannot be written.\n";

/* The CPU's model name from /proc/cpuinfo, or "unknown", into buf. */
static const char *cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		if (*colon)
			snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
	return buf;
}

/* The calibration as the JSON document of schemas/calibration.schema.json
 * (a new reference the caller owns), or NULL on out of memory. */
static json_t *calibration_json(const struct dpf_calibration *c)
{
	char date[32], model[256], gomp[4096];
	const char *policy = getenv("OMP_WAIT_POLICY");
	time_t now = time(NULL);
	struct tm tm;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	json_t *ov = json_object();
	json_t *doc;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!ov)
		return NULL;
	for (int i = 0; i < DPF_OV_N; i++) {
		const struct dpf_calib_stat *s = &c->ov[i];

		if (json_object_set_new(ov, dpf_ov_name(i),
					json_pack("{s:f, s:f, s:f, s:f, s:I}", "ns", s->ns,
						  "spread", s->max - s->min, "min", s->min,
						  "max", s->max, "samples",
						  (json_int_t)s->samples)) < 0) {
			json_decref(ov);
			return NULL;
		}
	}
	doc = json_pack("{s:s, s:i, s:s, s:{s:I, s:s}, s:{s:s?, s:i, s:i, s:s?}, s:i, s:b,"
			" s:f, s:f, s:o}",
			"format", CALIBRATION_FORMAT, "version", CALIBRATION_VERSION,
			"date", date,
			"machine", "cores", (json_int_t)(cores > 0 ? cores : 1),
			"cpu_model", cpu_model(model, sizeof(model)),
			"libgomp", "path", dpf_libgomp_path(gomp, sizeof(gomp)),
			"openmp", c->openmp, "threads", c->threads,
			"wait_policy", policy && *policy ? policy : NULL,
			"runs", (int)c->runs, "quick", c->quick,
			"clock_ns", c->clock_ns, "seconds", c->seconds,
			"overheads", ov);
	return doc;
}

/*
 * Write doc into path atomically: a temporary file beside it, renamed into
 * place once complete. Exits 2 naming path if it cannot be written.
 */
static void write_atomically(json_t *doc, const char *path)
{
	char *tmp;
	int fd = dpa_temp_create(path, &tmp);
	FILE *f;

	if (fd < 0 && errno == ENOMEM)
		die_status(DP_EXIT_FAIL, "calibrate: out of memory");
	if (fd < 0)
		die("calibrate: cannot write %s: %s", path, strerror(errno));
	f = fdopen(fd, "w");
	if (!f || json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0 ||
	    fputc('\n', f) == EOF || fflush(f) == EOF || ferror(f)) {
		int e = errno;

		if (f)
			fclose(f);
		else
			close(fd);
		dpa_temp_discard(tmp);
		die("calibrate: cannot write %s: %s", path, strerror(e ? e : EIO));
	}
	if (fclose(f) == EOF || dpa_temp_commit(tmp, path) < 0) {
		int e = errno;

		dpa_temp_discard(tmp);
		die("calibrate: cannot write %s: %s", path, strerror(e));
	}
	free(tmp);
}

/* Print the overheads as a table on standard output. */
static void print_table(const struct dpf_calibration *c, const char *out)
{
	printf("OpenMP task overheads (libgomp, %d threads, %u run%s%s), ns:\n", c->threads,
	       c->runs, c->runs == 1 ? "" : "s", c->quick ? ", quick" : "");
	printf("  %-13s %10s %10s %10s %9s\n", "overhead", "median", "min", "max", "samples");
	for (int i = 0; i < DPF_OV_N; i++)
		printf("  %-13s %10.1f %10.1f %10.1f %9lu\n", dpf_ov_name(i), c->ov[i].ns,
		       c->ov[i].min, c->ov[i].max, c->ov[i].samples);
	printf("measured in %.2f s (a clock reading costs %.1f ns); written to %s\n", c->seconds,
	       c->clock_ns, out);
}

int cmd_calibrate(int argc, char **argv)
{
	const char *out = "deepprof-calibration.json";
	unsigned runs = 0;
	bool quick = false;
	struct dpf_calibration c;
	char err[256];
	json_t *doc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(calibrate_usage, stdout);
			return DP_EXIT_OK;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quick")) {
			quick = true;
		} else if ((v = dp_opt_value("calibrate", argc, argv, &i, "-o", "--output"))) {
			if (!*v)
				usage_error("calibrate", "an empty output file name");
			out = v;
		} else if ((v = dp_opt_value("calibrate", argc, argv, &i, "-r", "--runs"))) {
			char *end;
			long n;

			errno = 0;
			n = strtol(v, &end, 10);
			if (errno || end == v || *end || n < 1 || n > 1000)
				usage_error("calibrate", "--runs wants a number from 1 to 1000, "
					    "not '%s'", v);
			runs = (unsigned)n;
		} else if (a[0] == '-') {
			usage_error("calibrate", "unknown option '%s'", a);
		} else {
			usage_error("calibrate", "unexpected argument '%s'", a);
		}
	}
	if (!runs)
		runs = quick ? 3 : 5;

	/* find out now, not after the measuring, that out cannot be written */
	if (dpa_temp_probe(out) < 0) {
		if (errno == ENOMEM)
			die_status(DP_EXIT_FAIL, "calibrate: out of memory");
		die("calibrate: cannot write %s: %s", out, strerror(errno));
	}

	if (dpf_calibrate(&c, runs, quick, err, sizeof(err)) < 0)
		die_status(DP_EXIT_FAIL, "%s", err);
	doc = calibration_json(&c);
	if (!doc)
		die_status(DP_EXIT_FAIL, "calibrate: out of memory");
	write_atomically(doc, out);
	json_decref(doc);
	print_table(&c, out);
	return DP_EXIT_OK;
}
