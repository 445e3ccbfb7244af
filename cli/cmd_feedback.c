/*
 * cmd_feedback.c — `deepprof feedback`: analyse profiles (in parallel with
 * --jobs), combine them, write the feedback file as JSON or MessagePack
 * (schemas/feedback.md), explain a candidate, convert MessagePack to JSON.
 * Part of deepprof's command line. MIT licence.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "feedback.h"
#include "feedback_cli.h"
#include "feedback_file.h"
#include "file_json.h"
#include "file_msgpack.h"
#include "profile.h"
#include "progrep.h"
#include "startup.h"
#include "tempfile.h"

int cmd_feedback(int argc, char **argv);

static const char feedback_usage[] =
	"usage: deepprof feedback [options] FILE... [-o OUT.json|OUT.msgpack|-]\n"
	"       deepprof feedback --to-json FILE.msgpack\n"
	"\n"
	"Analyse the profiles FILE... (Deep.data files of one program, built with\n"
	"deepprof-cc) and write one feedback file (schemas/feedback.md): hot and\n"
	"cold code, recursion patterns, variable-use timing and parallelism\n"
	"candidates, each keyed by function, file, line, column, static call-site\n"
	"id and progrep checksum. With several inputs each candidate carries its\n"
	"min, median and max speedup over them. A FILE ending in .json or\n"
	".msgpack is a feedback file, combined as it is.\n"
	"\n"
	"Output:\n"
	"  -o, --output=OUT      OUT.json: JSON; OUT.msgpack: MessagePack (same\n"
	"                        content); written atomically, then the accepted\n"
	"                        candidates are listed on stdout. '-' or no -o:\n"
	"                        the JSON document on stdout, nothing else\n"
	"  --explain=ID          print the numbers behind candidate ID's estimate\n"
	"                        in plain words (OUT is written only if named)\n"
	"  --separate            inputs of different programs: one feedback file\n"
	"                        per program (OUT with .PROGRAM inserted before\n"
	"                        its extension) and a summary table\n"
	"  --to-json=FILE        print the MessagePack feedback file FILE as JSON\n"
	"Analysis:\n"
	"  --jobs=N              analyse N profiles at a time (default 1); a\n"
	"                        progress bar on stderr when it is a terminal\n"
	"  --basis=cscs|ticks    the measure estimates rest on (default: cscs for\n"
	"                        a plugin build, ticks for -finstrument-functions)\n"
	"  --per-context         also list candidates per calling context\n"
	"  --program-time=T      the uninstrumented program's run time (e.g. 1.02s,\n"
	"                        measured on the same input): ns per CSC = T / the\n"
	"                        profile's cost; default: the instrumented run's\n"
	"                        CPU time per CSC (slower: the runtime's work at\n"
	"                        every call inflates it, ~10x for tiny calls)\n"
	"  --call-threshold=T    a call is costly at this mean cost (20us)\n"
	"  --proc-threshold=T    a procedure is searched at this mean cost (50us)\n"
	"  --hot-threshold=T     hot code: mean or median cost per call (100us)\n"
	"  --rare-calls=N        'almost never executed': at most N calls (1)\n"
	"  --speedup-threshold=X keep candidates whose speedup is above X (1.01)\n"
	"  --max-tasks=N         at most N tasks per candidate (online CPUs)\n"
	"  --search-budget=N     partitions tried before the search goes greedy\n"
	"                        (1000)\n"
	"  --list-share=X        list a region with too few costly calls (as\n"
	"                        too_cheap) when two of its calls each cost this\n"
	"                        share of the program (0.01; or 1%)\n"
	"  --checked-by=F[,F...] profiles of a check build (deepprof-cc\n"
	"                        --deepprof-check) on other inputs: their findings\n"
	"                        (not their costs) join every FILE's\n"
	"  --no-progrep          accept profiles without a program representation:\n"
	"                        they give hot/cold code and recursion only\n"
	"Overheads (ns of this machine; defaults, or `deepprof calibrate`'s):\n"
	"  --calibration=FILE    read them from a calibration file\n"
	"  --spawn-cost=T --spawn-delay=T --barrier-cost=T --signal-cost=T\n"
	"  --wait-cost=T --wakeup-delay=T    override one of them\n"
	"  -h, --help            show this help\n"
	"\n"
	"T is a time with a unit: 5000ns, 20us, 1ms, 0.5s (no unit: ns).\n"
	"Exit status: 0 success, 2 bad usage or a bad input (missing, truncated\n"
	"or corrupt FILE, no progrep, different programs, bad calibration file,\n"
	"unknown candidate, unwritable OUT), 1 failure of the tool itself.\n";

/* ================================================================
 * Options
 * ================================================================ */

static const struct {
	const char *name;       /* option */
	const char *field;      /* in messages */
	size_t off;             /* in struct dpf_overheads */
} ov_opts[6] = {
	{ "--spawn-cost", "spawn_cost", offsetof(struct dpf_overheads, spawn_cost) },
	{ "--spawn-delay", "spawn_delay", offsetof(struct dpf_overheads, spawn_delay) },
	{ "--barrier-cost", "barrier_cost", offsetof(struct dpf_overheads, barrier_cost) },
	{ "--signal-cost", "signal_cost", offsetof(struct dpf_overheads, signal_cost) },
	{ "--wait-cost", "wait_cost", offsetof(struct dpf_overheads, wait_cost) },
	{ "--wakeup-delay", "wakeup_delay", offsetof(struct dpf_overheads, wakeup_delay) },
};

/* A time with a unit (ns, us, ms, s; none: ns) in nanoseconds; dies on a
 * bad, negative or unknown-unit value. */
static double parse_time(const char *v, const char *opt)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "\xc2\xb5s", 1e3 }, { "ms", 1e6 },
		{ "s", 1e9 },
	};
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (end == v || !isfinite(d) || errno)
		usage_error("feedback", "bad %s '%s': want a time such as 20us", opt, v);
	if (d < 0)
		usage_error("feedback", "bad %s '%s': a time cannot be negative", opt, v);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			return d * units[i].ns;
	usage_error("feedback", "bad %s '%s': unknown unit '%s' (ns, us, ms or s)", opt, v, end);
}

/* An unsigned number >= min; dies otherwise. */
static uint64_t parse_count(const char *v, const char *opt, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long l;

	errno = 0;
	if (v[0] < '0' || v[0] > '9')
		usage_error("feedback", "bad %s '%s': want a whole number", opt, v);
	l = strtoull(v, &end, 10);
	if (*end || errno || l > max)
		usage_error("feedback", "bad %s '%s': want a whole number up to %llu", opt, v,
			    (unsigned long long)max);
	if (l < min)
		usage_error("feedback", "bad %s '%s': must be at least %llu", opt, v,
			    (unsigned long long)min);
	return l;
}

static double parse_ratio(const char *v, const char *opt)
{
	char *end;
	double d = strtod(v, &end);

	if (end == v || *end || !isfinite(d) || d <= 0)
		usage_error("feedback", "bad %s '%s': want a positive number such as 1.01", opt, v);
	return d;
}

/* A share of the program, 0 to 1 (0.01 or 1%). */
static double parse_share(const char *v, const char *opt)
{
	char *end;
	double d = strtod(v, &end);

	if (end != v && !strcmp(end, "%"))
		d /= 100;
	else if (end == v || *end)
		d = -1;
	if (!(d >= 0 && d <= 1))
		usage_error("feedback", "bad %s '%s': want a share from 0 to 1 (or 0%% to 100%%)",
			    opt, v);
	return d;
}

void fb_cli_init(struct fb_cli *c)
{
	memset(c, 0, sizeof(*c));
	dpf_options_default(&c->opt);
	c->jobs = 1;
	for (int k = 0; k < 6; k++)
		c->ov_set[k] = NAN;
}

/* Parse argv into *c and the input files (*files, *nfiles: pointers into argv). */
void fb_parse_args(struct fb_cli *c, int argc, char **argv, const char ***files,
		   int *nfiles)
{
	bool done = false;
	const char *v;

	*files = calloc(argc, sizeof(**files));
	if (!*files)
		die_status(DP_EXIT_FAIL, "feedback: out of memory");
	*nfiles = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool ov = false;

		if (done || a[0] != '-' || !a[1]) {
			(*files)[(*nfiles)++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			done = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(feedback_usage, stdout);
			exit(DP_EXIT_OK);
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, "-o", "--output"))) {
			if (!*v)
				usage_error("feedback", "empty output file name");
			c->out = strcmp(v, "-") ? v : NULL;
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, "--explain"))) {
			c->explain = (uint32_t)parse_count(v, "--explain", 1, UINT32_MAX);
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, "--to-json"))) {
			c->to_json = v;
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, "-j", "--jobs"))) {
			c->jobs = (unsigned)parse_count(v, "--jobs", 1, 256);
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, "--basis"))) {
			if (!strcmp(v, "cscs"))
				c->opt.basis = DPF_CSCS;
			else if (!strcmp(v, "ticks"))
				c->opt.basis = DPF_TICKS;
			else
				usage_error("feedback", "bad --basis '%s': want cscs or ticks", v);
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, "--program-time"))) {
			c->opt.program_ns = parse_time(v, "--program-time");
			if (!(c->opt.program_ns > 0) || !isfinite(c->opt.program_ns))
				usage_error("feedback", "bad --program-time '%s': want a time above "
					    "0, such as 1.02s", v);
		} else if (!strcmp(a, "--per-context")) {
			c->opt.per_context = true;
		} else if (!strcmp(a, "--separate")) {
			c->separate = true;
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, "--checked-by"))) {
			if (!*v)
				usage_error("feedback", "--checked-by needs profiles of a check build");
			c->checked_by = v;
		} else if (!strcmp(a, "--no-progrep")) {
			c->no_progrep = true;
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, "--call-threshold"))) {
			c->opt.call_threshold = parse_time(v, "--call-threshold");
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, "--proc-threshold"))) {
			c->opt.proc_threshold = parse_time(v, "--proc-threshold");
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, "--hot-threshold"))) {
			c->opt.hot_threshold = parse_time(v, "--hot-threshold");
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, "--rare-calls"))) {
			c->opt.rare_calls = parse_count(v, "--rare-calls", 0, INT64_MAX);
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, "--speedup-threshold"))) {
			c->opt.speedup_threshold = parse_ratio(v, "--speedup-threshold");
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, "--list-share"))) {
			c->opt.list_share = parse_share(v, "--list-share");
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, "--max-tasks"))) {
			c->opt.max_tasks = (unsigned)parse_count(v, "--max-tasks", 2, 1024);
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, "--search-budget"))) {
			c->opt.search_budget = (unsigned)parse_count(v, "--search-budget", 1,
								     UINT32_MAX);
		} else if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, "--calibration"))) {
			c->calibration = v;
		} else {
			for (int k = 0; k < 6 && !ov; k++)
				if ((v = dp_opt_value("feedback", argc, argv, &i, NULL, ov_opts[k].name))) {
					c->ov_set[k] = parse_time(v, ov_opts[k].name);
					ov = true;
				}
			if (!ov)
				usage_error("feedback", "unknown option '%s'", a);
		}
	}
}

/* The encoding OUT's name asks for: 0 JSON, 1 MessagePack; dies otherwise. */
static int out_encoding(const char *out)
{
	size_t n = strlen(out);

	if (n > 5 && !strcmp(out + n - 5, ".json"))
		return 0;
	if (n > 8 && !strcmp(out + n - 8, ".msgpack"))
		return 1;
	usage_error("feedback", "'%s': the output's name must end in .json or .msgpack", out);
}

/* Apply --calibration and the overhead options to c->opt.ov. */
void fb_set_overheads(struct fb_cli *c)
{
	struct dpa_error err = { { 0 } };
	char set[160] = "";
	size_t n = 0;

	if (c->calibration && dpf_overheads_read(&c->opt.ov, c->calibration, &err) < 0)
		die_plain("%s", err.msg);
	for (int k = 0; k < 6; k++) {
		if (isnan(c->ov_set[k]))
			continue;
		*(double *)((char *)&c->opt.ov + ov_opts[k].off) = c->ov_set[k];
		n += snprintf(set + n, sizeof(set) - n, "%s%s", n ? ", " : "", ov_opts[k].field);
	}
	if (n) {
		size_t m = strlen(c->opt.ov.source);

		/* "defaults; spawn_cost, wait_cost from the command line" (cut to fit) */
		if (m < sizeof(c->opt.ov.source) - 1)
			snprintf(c->opt.ov.source + m, sizeof(c->opt.ov.source) - m,
				 "; %.150s from the command line", set);
	}
}

/* Control characters of names read from files as '?': a message is one line. */
const char *fb_one_line(char *msg)
{
	for (char *s = msg; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			*s = '?';
	return msg;
}

/* ================================================================
 * Inputs
 * ================================================================ */

/* Does s end in suf? An input named *.json or *.msgpack is a feedback
 * file (read by dpf_feedback_read_file(), which tells the encoding by the
 * content), any other a profile. */
static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcmp(s + n - m, suf);
}

/* ================================================================
 * Analysing profiles (one job per input, --jobs threads)
 * ================================================================ */

struct pool {
	struct job *job;
	unsigned n;
	const struct fb_cli *c;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned next, done;
};

static int job_fail(struct job *j, int status)
{
	j->status = status;
	return -1;
}

/* The first module message of a profile without a usable progrep. */
static const char *progrep_why(const struct dpa_progreps *s, const struct dpa_profile *p)
{
	for (uint32_t m = 1; s->mod && m <= p->n_module; m++)
		if (s->mod[m].msg)
			return s->mod[m].msg;
	return NULL;
}

/*
 * Read --checked-by's profiles into *out (*n read; each must hold a check's
 * findings) and graft their findings onto *p (whose check regions then
 * point into them: release *p first). Per job, so that `deepprof batch`'s
 * per-program options work too. 0, or -1 with err set.
 */
static int graft_checked_by(const char *list, struct dpa_profile *p, struct dpa_profile **out,
			    uint32_t *n, struct dpa_error *err)
{
	char *copy = strdup(list), *save = NULL;
	uint32_t cap = 1;

	*n = 0;
	*out = NULL;
	if (copy)
		for (const char *q = list; *q; q++)
			cap += *q == ',';
	if (!copy || !(*out = calloc(cap, sizeof(**out)))) {
		free(copy);
		snprintf(err->msg, sizeof(err->msg), "feedback: out of memory");
		return -1;
	}
	for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		if (dpa_profile_read(&(*out)[*n], f, err) < 0)
			goto fail;
		(*n)++;
		if (!(*out)[*n - 1].has_check) {
			snprintf(err->msg, sizeof(err->msg), "%s: given to --checked-by, but not the profile "
				 "of a check build (no check findings; build with deepprof-cc "
				 "--deepprof-check=FEEDBACK)", f);
			goto fail;
		}
		if (dpa_check_graft(p, &(*out)[*n - 1], *n) < 0) {
			snprintf(err->msg, sizeof(err->msg), "feedback: out of memory");
			goto fail;
		}
	}
	free(copy);
	return 0;
fail:
	free(copy);
	return -1;
}

static void release_profiles(struct dpa_profile *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		dpa_profile_release(&v[i]);
	free(v);
}

/* Analyse one input profile into j->fb (or read one feedback file). */
static int analyse_one(struct job *j, const struct fb_cli *c)
{
	struct dpa_profile p, *cb = NULL;
	uint32_t n_cb = 0;
	struct dpa_deep d;
	struct dpa_progreps s;
	bool no_pr;
	int rc;

	if (has_suffix(j->path, ".json") || has_suffix(j->path, ".msgpack"))
		return dpf_feedback_read_file(&j->fb, j->path, &j->err) < 0 ?
		       job_fail(j, DP_EXIT_USAGE) : 0;
	if (dpa_profile_read(&p, j->path, &j->err) < 0)
		return job_fail(j, DP_EXIT_USAGE);
	if (c->checked_by && graft_checked_by(c->checked_by, &p, &cb, &n_cb, &j->err) < 0) {
		dpa_profile_release(&p);
		release_profiles(cb, n_cb);
		return job_fail(j, DP_EXIT_USAGE);
	}
	dpa_profile_symbolize(&p);
	if (dpa_deep_init(&d, &p, &j->err) < 0) {
		dpa_profile_release(&p);
		return job_fail(j, DP_EXIT_USAGE);
	}
	rc = dpa_progreps_load_used(&s, &p, &j->err);
	no_pr = rc == 0 && s.n_loaded == 0;
	if (rc == 0 && no_pr && !c->no_progrep) {
		const char *why = progrep_why(&s, &p);

		snprintf(j->err.msg, sizeof(j->err.msg),
			 "%s: no progrep for %s (%s): candidates need a build with deepprof-cc; "
			 "--no-progrep gives hot/cold code and recursion only",
			 j->path, p.hdr.program ? dpa_basename(p.hdr.program) : "the program",
			 why ? why : "no module has a program representation");
		rc = -1;
	}
	if (rc == 0)
		rc = dpf_feedback_analyse(&j->fb, &d, no_pr ? NULL : &s, &c->opt, &j->err);
	dpa_progreps_release(&s);
	dpa_deep_release(&d);
	if (rc == 0 && !j->fb.n_input) {
		/* the analysis left the input record to its caller */
		j->fb.input = dpf_alloc(&j->fb, sizeof(*j->fb.input));
		if (j->fb.input) {
			j->fb.n_input = 1;
			j->fb.input->program = dpf_strdup(&j->fb, p.hdr.program);
			j->fb.input->cscs = p.hdr.cscs;
			j->fb.input->cpu_ns = p.hdr.cpu_ns;
			j->fb.input->basis = j->fb.basis;
		}
	}
	if (rc == 0 && j->fb.n_input) {
		j->fb.input[0].path = dpf_strdup(&j->fb, j->path);
		j->fb.input[0].crc32 = p.file_crc32;
		j->fb.input[0].has_progrep = !no_pr;
		if (!j->fb.input[0].path)
			rc = -1;
	}
	if (rc == 0 && !j->fb.program)
		j->fb.program = dpf_strdup(&j->fb, p.hdr.program);
	if (rc == 0 && no_pr) {
		/* without progrep: hot/cold code and recursion only */
		j->fb.n_cand = 0;
		j->fb.n_var_use = 0;
	}
	dpa_profile_release(&p);
	release_profiles(cb, n_cb);     /* after p: its check regions point here */
	if (rc < 0 && !j->status)
		j->status = DP_EXIT_USAGE;
	return rc;
}

static void *worker(void *arg)
{
	struct pool *pl = arg;

	for (;;) {
		unsigned i;

		pthread_mutex_lock(&pl->mu);
		i = pl->next < pl->n ? pl->next++ : pl->n;
		pthread_mutex_unlock(&pl->mu);
		if (i == pl->n)
			return NULL;
		analyse_one(&pl->job[i], pl->job[i].c ? pl->job[i].c : pl->c);
		pthread_mutex_lock(&pl->mu);
		pl->done++;
		pthread_cond_signal(&pl->cv);
		pthread_mutex_unlock(&pl->mu);
	}
}

/* "feedback [=====>     ] 3/8 profiles" on stderr. */
static void draw_bar(unsigned done, unsigned n)
{
	char bar[31];
	unsigned w = n ? done * 30 / n : 30;

	for (unsigned k = 0; k < 30; k++)
		bar[k] = k < w ? '=' : k == w ? '>' : ' ';
	bar[30] = 0;
	fprintf(stderr, "\rfeedback [%s] %u/%u profiles", bar, done, n);
	fflush(stderr);
}

/* Run every job on min(jobs, n) threads; a progress bar on a terminal. */
void fb_run_jobs(struct job *job, unsigned n, const struct fb_cli *c)
{
	struct pool pl = { job, n, c, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
	unsigned nt = c->jobs < n ? c->jobs : n, started = 0;
	bool bar = isatty(STDERR_FILENO) && c->to_json == NULL;
	pthread_t *t = calloc(nt ? nt : 1, sizeof(*t));

	if (!t)
		die_status(DP_EXIT_FAIL, "feedback: out of memory");
	/* with a bar the main thread draws and nt threads work; else the
	 * main thread is one of the nt */
	for (unsigned k = bar ? 0 : 1; k < nt; k++)
		if (pthread_create(&t[started], NULL, worker, &pl) == 0)
			started++;
		else
			break;
	if (bar) {
		if (!started) {
			worker(&pl);
		} else {
			pthread_mutex_lock(&pl.mu);
			while (pl.done < n) {
				unsigned d = pl.done;

				pthread_mutex_unlock(&pl.mu);
				draw_bar(d, n);
				pthread_mutex_lock(&pl.mu);
				while (pl.done == d)
					pthread_cond_wait(&pl.cv, &pl.mu);
			}
			pthread_mutex_unlock(&pl.mu);
		}
		draw_bar(n, n);
		fputs("\r\033[K", stderr);
	} else {
		worker(&pl);
	}
	for (unsigned k = 0; k < started; k++)
		pthread_join(t[k], NULL);
	free(t);
	pthread_mutex_destroy(&pl.mu);
	pthread_cond_destroy(&pl.cv);
}

/* ================================================================
 * Writing
 * ================================================================ */

/* A growing buffer for json_dump_callback(): realloc moves a big one by
 * remapping its pages, where json_dumps() copies its text at each doubling. */
struct text_buf {
	char *s;
	size_t len, cap;
};

static int text_add(const char *b, size_t n, void *data)
{
	struct text_buf *t = data;

	if (t->cap - t->len < n + 2) {
		size_t ncap = t->cap ? t->cap : 65536;
		char *ns;

		while (ncap - t->len < n + 2)
			ncap *= 2;
		if (!(ns = realloc(t->s, ncap)))
			return -1;
		t->s = ns;
		t->cap = ncap;
	}
	memcpy(t->s + t->len, b, n);
	t->len += n;
	return 0;
}

/* Write doc to `out` atomically (temporary file beside it, renamed), in
 * the encoding its name says. Dies with one line on failure. */
void fb_write_file(const json_t *doc, const char *out)
{
	size_t len = 0;
	char *buf = NULL;
	struct stat st;

	if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
		die("%s: cannot write: is a directory", out);
	if (out_encoding(out) == 1) {
		if (dpf_msgpack_from_json(doc, &buf, &len) < 0)
			die_status(DP_EXIT_FAIL, "feedback: out of memory encoding MessagePack");
	} else {
		struct text_buf t = { 0 };

		/* JSON ends with a newline (text_add leaves room for it) */
		if (json_dump_callback(doc, text_add, &t, JSON_INDENT(2)) < 0 || !t.s) {
			free(t.s);
			die_status(DP_EXIT_FAIL, "feedback: out of memory encoding JSON");
		}
		buf = t.s;
		len = t.len;
		buf[len++] = '\n';
		buf[len] = 0;
	}
	fb_write_atomic(out, buf, len);
	free(buf);
}

void fb_write_atomic(const char *out, const char *buf, size_t len)
{
	char *tmp;
	int fd, e;

	fd = dpa_temp_create(out, &tmp);
	if (fd < 0 && errno == ENOMEM)
		die_status(DP_EXIT_FAIL, "feedback: out of memory");
	if (fd < 0)
		die("%s: cannot write: %s", out, strerror(errno));
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			goto fail;
		off += (size_t)w;
	}
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (dpa_temp_commit(tmp, out) < 0)
		goto fail;
	free(tmp);
	return;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	dpa_temp_discard(tmp);
	die("%s: cannot write: %s", out, strerror(e));
}

/* The document of fb; dies (exit 1) when it cannot be made. */
json_t *fb_doc_of(const struct dpf_feedback *fb)
{
	struct dpa_error err = { { 0 } };
	json_t *doc = dpf_feedback_to_json(fb, &err);

	if (!doc)
		die_status(DP_EXIT_FAIL, "%s", err.msg);
	return doc;
}

/* ================================================================
 * Plain words
 * ================================================================ */

/* The static copy of a feedback's ns_per_unit_source (the first input's
 * carries over to a combined feedback, which does not own it); NULL if
 * unknown. */
static const char *unit_source(const char *s)
{
	static const char *const known[] = {
		"instrumented run", "program time", "clock ticks", "none",
	};

	for (size_t i = 0; s && i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(s, known[i]))
			return known[i];
	return NULL;
}

/* Combine in[0..n) into *out (feedback_cli.h). */
void fb_combine(struct dpf_feedback *out, const struct dpf_feedback *in, uint32_t n)
{
	struct dpa_error err = { { 0 } };

	if (dpf_feedback_combine(out, in, n, &err) < 0)
		die_plain("%s", fb_one_line(err.msg));
	out->ns_per_unit_source = unit_source(in[0].ns_per_unit_source);
}

/* "12.3 us" for a cost in basis units. */
static const char *as_time(const struct dpf_feedback *fb, double units, char *b, size_t n)
{
	double ns = units * fb->ns_per_unit;

	if (fb->ns_per_unit <= 0)
		snprintf(b, n, "? ns");
	else if (ns >= 1e9)
		snprintf(b, n, "%.3g s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(b, n, "%.3g ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(b, n, "%.3g us", ns / 1e3);
	else
		snprintf(b, n, "%.3g ns", ns);
	return b;
}

/* A cost for people: whole numbers from 1000 up, else 4 significant digits. */
static const char *num(double v, char *b, size_t n)
{
	if (fabs(v) >= 1000)
		snprintf(b, n, "%.0f", v);
	else
		snprintf(b, n, "%.4g", v);
	return b;
}

static const char *unit_name(const struct dpf_feedback *fb)
{
	return fb->basis == DPF_TICKS ? "ticks" : "CSCs";
}

static const char *or_q(const char *s)
{
	return s ? s : "?";
}

/* "fn (file:line)" */
static void print_place(FILE *f, const struct dpf_place *p)
{
	fprintf(f, "%s (%s:%u)", or_q(p->fn), p->file ? dpa_basename(p->file) : "?", p->line);
}

/* "checked on 3 inputs (41 executions), not proved" and the like. */
static void safety_words(FILE *f, const struct dpf_candidate *c)
{
	switch (c->safety) {
	case DPF_SAFE:
		fprintf(f, "safe");
		break;
	case DPF_CHECKED:
		fprintf(f, "checked on %u input%s (%llu execution%s), not proved", c->check_inputs,
			c->check_inputs == 1 ? "" : "s", (unsigned long long)c->check_executions,
			c->check_executions == 1 ? "" : "s");
		break;
	case DPF_CONFLICT:
		fprintf(f, "conflict");
		break;
	default:
		if (c->safety_why && !strncmp(c->safety_why, "the dependence check", 20))
			fprintf(f, "needs a check: %s", c->safety_why + 4);
		else
			fprintf(f, "needs a check (deepprof-cc --deepprof-check)");
		break;
	}
}

/* One candidate's line: where, what, the estimate, its safety. */
static void print_cand(FILE *f, const struct dpf_candidate *c)
{
	fprintf(f, "  #%u in ", c->id);
	print_place(f, &c->proc);
	if (c->context)
		fprintf(f, " called from %s", c->context);
	fprintf(f, ": run ");
	for (uint32_t k = 0; k < c->n_calls; k++)
		fprintf(f, "%s%s() (line %u)", k == 0 ? "" : k + 1 == c->n_calls ? " and " : ", ",
			or_q(c->calls[k].callee), c->calls[k].at.line);
	if (c->loop_line) {
		fprintf(f, " as a task per iteration of the loop at line %u", c->loop_line);
		if (c->loop_cutoff)
			fprintf(f, " down to recursion depth %u", c->loop_cutoff);
		fprintf(f, ": the loop %.2fx faster, the program %.2fx", c->speedup, c->program_speedup);
	} else {
		fprintf(f, " as %u parallel tasks", c->n_tasks);
	}
	if (!c->loop_line && c->n_tasks < c->n_calls) {
		/* which calls share a task: "{61, 62, 65} with {63, 64, 66}" */
		for (uint32_t t = 0; t < c->n_tasks; t++) {
			bool first = true;

			fprintf(f, "%s{", t ? " with " : " ");
			for (uint32_t k = 0; k < c->n_calls; k++)
				if (c->calls[k].task == t) {
					fprintf(f, "%s%u", first ? "" : ", ", c->calls[k].at.line);
					first = false;
				}
			fprintf(f, "}");
		}
	}
	if (!c->loop_line)
		fprintf(f, ": the region %.2fx faster, the program %.2fx", c->speedup,
			c->program_speedup);
	if (c->n_inputs_seen > 1)
		fprintf(f, " (%.2fx to %.2fx over %u inputs)", c->speedup_min, c->speedup_max,
			c->n_inputs_seen);
	fprintf(f, "; ");
	safety_words(f, c);
	fprintf(f, "\n");
}

/*
 * After a file was written: the accepted candidates that are safe or
 * checked ("recommended"), the accepted ones whose memory effects nobody
 * checked ("needs a check"), and those a check found in conflict.
 */
static void print_accepted(FILE *f, const struct dpf_feedback *fb, const char *out)
{
	uint32_t rec = 0, need = 0, confl = 0;

	for (uint32_t i = 0; i < fb->n_cand; i++) {
		const struct dpf_candidate *c = &fb->cand[i];

		if (c->safety == DPF_CONFLICT)
			confl++;
		else if (c->verdict == DPF_ACCEPTED && (c->safety == DPF_SAFE || c->safety == DPF_CHECKED))
			rec++;
		else if (c->verdict == DPF_ACCEPTED)
			need++;
	}
	fprintf(f, "feedback: wrote %s: %u candidate%s (%u recommended, %u needing a check), "
		"%u variable use%s, %u recursive clique%s, %u hot/cold entr%s\n", out, fb->n_cand,
		fb->n_cand == 1 ? "" : "s", rec, need, fb->n_var_use, fb->n_var_use == 1 ? "" : "s",
		fb->n_rec, fb->n_rec == 1 ? "" : "s", fb->n_hot, fb->n_hot == 1 ? "y" : "ies");
	if (!rec)
		fprintf(f, "no parallelism is recommended.\n");
	else
		fprintf(f, "recommended:\n");
	for (uint32_t i = 0; i < fb->n_cand; i++) {
		const struct dpf_candidate *c = &fb->cand[i];

		if (c->verdict == DPF_ACCEPTED && (c->safety == DPF_SAFE || c->safety == DPF_CHECKED))
			print_cand(f, c);
	}
	if (need) {
		fprintf(f, "needs a check (memory effects unknown; build with deepprof-cc "
			"--deepprof-check=%s and run it):\n", out);
		for (uint32_t i = 0; i < fb->n_cand; i++) {
			const struct dpf_candidate *c = &fb->cand[i];

			if (c->verdict == DPF_ACCEPTED && c->safety == DPF_UNKNOWN_MEMORY)
				print_cand(f, c);
		}
	}
	if (confl) {
		fprintf(f, "conflicts (never parallel):\n");
		for (uint32_t i = 0; i < fb->n_cand; i++) {
			const struct dpf_candidate *c = &fb->cand[i];

			if (c->safety != DPF_CONFLICT)
				continue;
			fprintf(f, "  #%u in ", c->id);
			print_place(f, &c->proc);
			fprintf(f, ": %s\n", c->safety_why ? c->safety_why : "a conflict");
		}
	}
}

/* explain: the partition of a stretch of calls into tasks. */
static void explain_partition(FILE *f, const struct dpf_candidate *c)
{
	fprintf(f, "Partition: %u task%s", c->n_tasks, c->n_tasks == 1 ? "" : "s");
	for (uint32_t g = 0; g < c->n_tasks; g++) {
		bool first = true;

		fprintf(f, "%s {", g ? "," : ":");
		for (uint32_t k = 0; k < c->n_calls; k++)
			if (c->calls[k].task == g) {
				fprintf(f, "%s%u", first ? "" : " ", k);
				first = false;
			}
		fprintf(f, "}");
	}
	fprintf(f, "; the best of %u partitions tried (%s).\n", c->partitions_tried,
		c->search_complete ? "the search was complete" :
		"the search budget ran out and the rest was greedy");
	if (c->n_tasks == 2)
		fprintf(f, "The running thread spawns task 1 as an OpenMP task, runs task 0 "
			"itself, then waits for it (taskwait).\n");
	else if (c->n_tasks > 2)
		fprintf(f, "The running thread spawns tasks 1 to %u as OpenMP tasks, runs task 0 "
			"itself, then waits for them (taskwait).\n", c->n_tasks - 1);
}

/* --explain: the numbers behind candidate c's estimate. */
static void explain(FILE *f, const struct dpf_feedback *fb, const struct dpf_candidate *c)
{
	const struct dpf_overheads *ov = &fb->opt.ov;
	const char *u = unit_name(fb);
	char t[32], t2[32], n1[48], n2[48];
	static const struct { const char *what; size_t off; } ovs[] = {
		{ "spawning a task costs the spawning thread", offsetof(struct dpf_overheads, spawn_cost) },
		{ "a spawned task starts running after", offsetof(struct dpf_overheads, spawn_delay) },
		{ "the final barrier (taskwait) costs", offsetof(struct dpf_overheads, barrier_cost) },
		{ "making a shared value available (signal) costs", offsetof(struct dpf_overheads, signal_cost) },
		{ "taking an available shared value (wait) costs", offsetof(struct dpf_overheads, wait_cost) },
		{ "a consumer that blocked wakes up after", offsetof(struct dpf_overheads, wakeup_delay) },
	};

	fprintf(f, "Candidate %u: calls in ", c->id);
	print_place(f, &c->proc);
	if (c->context)
		fprintf(f, ", in the calling context %s.\n", c->context);
	else
		fprintf(f, ", merged over all its calling contexts.\n");
	fprintf(f, "Costs are in %s (1 %s = %.4g ns here), per run of the region; the region "
		"ran %llu time%s.\n", u, fb->basis == DPF_TICKS ? "tick" : "CSC", fb->ns_per_unit,
		(unsigned long long)c->executions, c->executions == 1 ? "" : "s");
	if (fb->ns_per_unit_source && !strcmp(fb->ns_per_unit_source, "program time"))
		fprintf(f, "The ns per %s come from the program time you gave (%.4g s over %llu "
			"%s).\n", fb->basis == DPF_TICKS ? "tick" : "CSC", fb->opt.program_ns / 1e9,
			(unsigned long long)fb->program_cost, u);
	else
		fprintf(f, "The ns per %s come from the %s (an instrumented run is slower than "
			"the program: --program-time=T gives the real time).\n",
			fb->basis == DPF_TICKS ? "tick" : "CSC",
			fb->ns_per_unit_source ? fb->ns_per_unit_source : "instrumented run");
	fprintf(f, "The calls, in program order:\n");
	for (uint32_t k = 0; k < c->n_calls; k++) {
		const struct dpf_call *k_ = &c->calls[k];

		fprintf(f, "  call %u: %s() at %s:%u:%u", k, or_q(k_->callee),
			k_->at.file ? dpa_basename(k_->at.file) : "?", k_->at.line, k_->at.col);
		if (k_->at.has_site)
			fprintf(f, " (site %016llx:%u)", (unsigned long long)k_->at.tu_id, k_->at.site);
		fprintf(f, " costs %s %s (%s), task %u\n", num(k_->cost, n1, sizeof(n1)), u,
			as_time(fb, k_->cost, t, sizeof(t)), k_->task);
	}
	if (c->loop_line) {
		fprintf(f, "Loop: the call is made once per iteration of the loop at line %u, %.3g "
			"iterations per execution%s; each iteration becomes an OpenMP task (its "
			"arguments taken when it is spawned, its result added to the sum atomically), "
			"and a taskwait follows the loop.\n", c->loop_line, c->iterations,
			c->loop_cutoff ? " (the recursion's branching, estimated from its mean depth "
			"at the clock ticks, or assumed without them: the profile folds its levels)" : "");
		if (c->loop_cutoff)
			fprintf(f, "Recursion: the call is recursive; tasks are spawned down to depth "
				"%u, below which the calls run serially.\n", c->loop_cutoff);
	} else {
		explain_partition(f, c);
	}
	if (!c->n_deps)
		fprintf(f, "Dependences: none; the calls share no variable.\n");
	for (uint32_t k = 0; k < c->n_deps; k++) {
		const struct dpf_dep *d = &c->deps[k];
		double pc = d->from < c->n_calls ? c->calls[d->from].cost : 0;
		double cc = d->to < c->n_calls ? c->calls[d->to].cost : 0;

		fprintf(f, "Dependence: call %u produces %s at %.0f%% of its cost (%s %s after it "
			"starts); call %u consumes it at %.0f%% of its cost (%s %s after it "
			"starts)%s.\n", d->from, d->var ? d->var : "a value", d->produced * 100,
			num(d->produced * pc, n1, sizeof(n1)), u, d->to, d->consumed * 100,
			num(d->consumed * cc, n2, sizeof(n2)), u,
			d->known ? "" : " — not known: assumed produced at the end and consumed at "
			"the start");
	}
	fprintf(f, "Overheads (%s):\n", ov->source);
	for (size_t k = 0; k < sizeof(ovs) / sizeof(ovs[0]); k++) {
		double ns = *(const double *)((const char *)ov + ovs[k].off);

		fprintf(f, "  %s %s ns (%s %s)\n", ovs[k].what, num(ns, n1, sizeof(n1)),
			num(fb->ns_per_unit > 0 ? ns / fb->ns_per_unit : 0, n2, sizeof(n2)), u);
	}
	fprintf(f, "  in this estimate they add up to %s %s (%s).\n",
		num(c->overhead, n1, sizeof(n1)), u, as_time(fb, c->overhead, t, sizeof(t)));
	fprintf(f, "Sequential time %s %s (%s); parallel time %s %s (%s).\n",
		num(c->seq_time, n1, sizeof(n1)), u, as_time(fb, c->seq_time, t, sizeof(t)),
		num(c->par_time, n2, sizeof(n2)), u, as_time(fb, c->par_time, t2, sizeof(t2)));
	fprintf(f, "Speedup of the region %.3fx; of the whole program %.3fx.\n", c->speedup,
		c->program_speedup);
	if (c->n_inputs_seen > 1)
		fprintf(f, "Over the %u inputs that have it: speedup min %.3fx, median %.3fx, "
			"max %.3fx.\n", c->n_inputs_seen, c->speedup_min, c->speedup_median,
			c->speedup_max);
	fprintf(f, "Safety: ");
	safety_words(f, c);
	fprintf(f, " — %s.\n", c->safety_why ? c->safety_why : "no reason recorded");
	fprintf(f, "Verdict: %s — %s.\n", dpf_verdict_name(c->verdict),
		c->verdict_why ? c->verdict_why : "no reason recorded");
}

/* ================================================================
 * The command
 * ================================================================ */

/* --to-json FILE.msgpack: print it as JSON (it must be a feedback file). */
static int to_json(const char *path)
{
	struct dpa_error err = { { 0 } };
	struct dpf_feedback fb;
	json_t *doc;
	char *s;

	if (!has_suffix(path, ".msgpack"))
		usage_error("feedback", "--to-json '%s': want a .msgpack feedback file", path);
	doc = dpf_feedback_load_doc(path, &err);
	if (!doc)
		die_plain("%s", fb_one_line(err.msg));
	if (dpf_feedback_from_json(&fb, doc, path, &err) < 0) {
		dpf_feedback_release(&fb);
		json_decref(doc);
		die_plain("%s", fb_one_line(err.msg));
	}
	dpf_feedback_release(&fb);
	s = json_dumps(doc, JSON_INDENT(2));
	if (!s)
		die_status(DP_EXIT_FAIL, "feedback: out of memory");
	puts(s);
	free(s);
	json_decref(doc);
	if (fflush(stdout) != 0 || ferror(stdout))
		die_status(DP_EXIT_FAIL, "feedback: cannot write the output");
	return DP_EXIT_OK;
}

/* OUT with ".prog" inserted before its extension, malloc'd. */
static char *separate_name(const char *out, const char *program)
{
	const char *dot = strrchr(out, '.'), *base = dpa_basename(program ? program : "program");
	size_t n = strlen(out) + strlen(base) + 2;
	char *s = malloc(n), *p;

	if (!s)
		die_status(DP_EXIT_FAIL, "feedback: out of memory");
	snprintf(s, n, "%.*s.%s%s", (int)(dot - out), out, base, dot);
	/* a program name is one path component already; keep it harmless */
	for (p = s + (dot - out) + 1; *p && p < s + (dot - out) + 1 + strlen(base); p++)
		if (*p == '/' || (unsigned char)*p < ' ')
			*p = '_';
	return s;
}

bool fb_same_program(const struct dpf_feedback *a, const struct dpf_feedback *b)
{
	return !strcmp(dpa_basename(a->program ? a->program : ""),
		       dpa_basename(b->program ? b->program : ""));
}

int cmd_feedback(int argc, char **argv)
{
	struct fb_cli c;
	const char **files;
	int nfiles;
	struct job *job;
	struct dpa_error err = { { 0 } };
	uint32_t *group, ngroups = 0;
	int status = DP_EXIT_OK;

	fb_cli_init(&c);
	fb_parse_args(&c, argc, argv, &files, &nfiles);

	if (c.to_json) {
		if (nfiles)
			usage_error("feedback", "--to-json takes no other FILE ('%s')", files[0]);
		free(files);
		return to_json(c.to_json);
	}
	if (!nfiles)
		usage_error("feedback", "no FILE given");
	if (c.out)
		out_encoding(c.out);
	if (c.explain && c.separate)
		usage_error("feedback", "--explain and --separate do not go together");
	if (c.separate && !c.out)
		usage_error("feedback", "--separate needs -o OUT.json or OUT.msgpack");
	if (c.out) {
		struct stat st;

		if (stat(c.out, &st) == 0 && S_ISDIR(st.st_mode))
			die("%s: cannot write: is a directory", c.out);
	}
	fb_set_overheads(&c);

	job = calloc(nfiles, sizeof(*job));
	group = calloc(nfiles, sizeof(*group));
	if (!job || !group)
		die_status(DP_EXIT_FAIL, "feedback: out of memory");
	for (int i = 0; i < nfiles; i++)
		job[i].path = files[i];
	fb_run_jobs(job, (unsigned)nfiles, &c);
	for (int i = 0; i < nfiles; i++)
		if (job[i].status) {
			fflush(stdout);
			fprintf(stderr, "%s\n", fb_one_line(job[i].err.msg));
			exit(job[i].status);
		}

	/* groups of one program, in order of first appearance */
	for (int i = 0; i < nfiles; i++) {
		int k;

		for (k = 0; k < i; k++)
			if (fb_same_program(&job[k].fb, &job[i].fb))
				break;
		group[i] = k < i ? group[k] : ngroups++;
	}
	if (ngroups > 1 && !c.separate) {
		int k = 1;

		while (group[k] == 0)
			k++;
		snprintf(err.msg, sizeof(err.msg), "%s: a profile of '%s', not of '%s' like %s "
			 "(--separate writes one feedback file per program)", job[k].path,
			 dpa_basename(job[k].fb.program ? job[k].fb.program : "?"),
			 dpa_basename(job[0].fb.program ? job[0].fb.program : "?"), job[0].path);
		die_plain("%s", fb_one_line(err.msg));
	}

	if (c.separate)
		printf("%-20s %6s %10s %8s  %s\n", "program", "inputs", "candidates", "accepted",
		       "file");
	for (uint32_t g = 0; g < ngroups; g++) {
		struct dpf_feedback *in = malloc(nfiles * sizeof(*in)), out;
		uint32_t n = 0, acc = 0;
		json_t *doc;
		char *name = NULL;

		if (!in)
			die_status(DP_EXIT_FAIL, "feedback: out of memory");
		for (int i = 0; i < nfiles; i++)
			if (group[i] == g)
				in[n++] = job[i].fb;
		fb_combine(&out, in, n);
		free(in);
		doc = fb_doc_of(&out);
		if (c.separate)
			name = separate_name(c.out, out.program);
		if (c.explain && !c.separate) {
			const struct dpf_candidate *cd = dpf_feedback_candidate(&out, c.explain);

			if (!cd)
				die("--explain %u: no candidate %u (the feedback has %u candidate%s)",
				    c.explain, c.explain, out.n_cand, out.n_cand == 1 ? "" : "s");
			if (c.out)
				fb_write_file(doc, c.out);
			explain(stdout, &out, cd);
		} else if (!c.out) {
			char *s = json_dumps(doc, JSON_INDENT(2));

			if (!s)
				die_status(DP_EXIT_FAIL, "feedback: out of memory");
			puts(s);
			free(s);
		} else if (c.separate) {
			fb_write_file(doc, name);
			for (uint32_t i = 0; i < out.n_cand; i++)
				acc += out.cand[i].verdict == DPF_ACCEPTED;
			printf("%-20s %6u %10u %8u  %s\n", dpa_basename(out.program ? out.program : "?"),
			       out.n_input, out.n_cand, acc, name);
		} else {
			fb_write_file(doc, c.out);
			print_accepted(stdout, &out, c.out);
		}
		free(name);
		json_decref(doc);
		dpf_feedback_release(&out);
	}
	for (int i = 0; i < nfiles; i++)
		dpf_feedback_release(&job[i].fb);
	free(job);
	free(group);
	free(files);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: feedback: cannot write the output\n", dp_progname);
		status = DP_EXIT_FAIL;
	}
	return status;
}
