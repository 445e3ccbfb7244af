/*
 * cmd_batch.c — `deepprof batch`: `deepprof feedback` over a whole suite of
 * programs (a directory with one subdirectory per program, or a manifest,
 * schemas/batch.md): one feedback file per program and a summary table
 * (text and JSON) of their candidates, predicted and achieved speedups,
 * safety and stability across inputs; or, with --emit, a Makefile or
 * build.ninja whose independent actions do the same work, and --summarize,
 * the table from the feedback files those actions wrote.
 * The analysis is feedback's (feedback_cli.h), one job per profile.
 * Part of deepprof's command line. MIT licence.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "feedback.h"
#include "feedback_cli.h"
#include "feedback_file.h"
#include "profile.h"
#include "tempfile.h"

static const char batch_usage[] =
	"usage: deepprof batch [options] [feedback options] INPUT -o DIR\n"
	"       deepprof batch --emit=make|ninja [options] [feedback options] INPUT -o DIR\n"
	"       deepprof batch --summarize [--format=F] INPUT -o DIR\n"
	"\n"
	"Analyse a suite of programs. INPUT is a directory with one subdirectory\n"
	"per program, NAME/, holding its profiles (NAME/*.data, one per input) and\n"
	"optionally NAME/measured.json (achieved speedups), or a manifest\n"
	"(schemas/batch.md). Writes one feedback file per program, DIR/NAME.json\n"
	"(as `deepprof feedback` writes it), and a summary table, DIR/summary.txt\n"
	"(also on stdout) and DIR/summary.json: per program its inputs,\n"
	"candidates and recommended ones; the best one's predicted region and\n"
	"program speedups, the achieved speedup where measured and the\n"
	"prediction's error, its safety, and its stability across the inputs.\n"
	"\n"
	"  -o, --output=DIR        the output directory (made if missing)\n"
	"  --format=json|msgpack   the feedback files' encoding (json)\n"
	"  -j, --jobs=N            analyse N profiles at a time (1); a progress\n"
	"                          bar on stderr when it is a terminal\n"
	"  --emit=make|ninja       analyse nothing: write DIR/Makefile or\n"
	"                          DIR/build.ninja, whose actions run `deepprof\n"
	"                          feedback` per program (independent of each\n"
	"                          other) and then `deepprof batch --summarize`\n"
	"  --summarize             analyse nothing: make the summary from the\n"
	"                          feedback files DIR already holds\n"
	"  -h, --help              show this help\n"
	"Any other option is one of `deepprof feedback`'s analysis options, as\n"
	"--name=value (deepprof help feedback), for every program; a manifest\n"
	"adds each program's own and its program time(s).\n"
	"\n"
	"Exit status: 0 success, 2 bad usage or bad input (a missing INPUT, a bad\n"
	"manifest or measured.json, a program without profiles, a profile of\n"
	"another program, an unwritable DIR), 1 failure of the tool itself.\n";

/* ================================================================
 * Small helpers
 * ================================================================ */

/* One line naming the file at fault (control characters as '?'), exit 2. */
__attribute__((noreturn, format(printf, 1, 2)))
static void bad(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	die_plain("%s", fb_one_line(msg));
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		die_status(DP_EXIT_FAIL, "batch: out of memory");
	return p;
}

__attribute__((format(printf, 1, 2)))
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die_status(DP_EXIT_FAIL, "batch: out of memory");
	return s;
}

static char *xstrdup(const char *s)
{
	return xasprintf("%s", s);
}

/* p made absolute against the absolute directory base. */
static char *abs_path(const char *base, const char *p)
{
	return p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", base, p);
}

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcmp(s + n - m, suf);
}

/* A growing list of malloc'ed strings. */
struct strs {
	char **v;
	uint32_t n, cap;
};

static void strs_add(struct strs *l, char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			die_status(DP_EXIT_FAIL, "batch: out of memory");
	}
	l->v[l->n++] = s;
}

static void strs_free(struct strs *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ================================================================
 * The suite: programs, their profiles, options and measurements
 * ================================================================ */

struct measured_cand {
	uint32_t id;
	double speedup;
};

struct prog {
	char *name;             /* also the output's base name */
	char *where;            /* "m.json: programs[1] 'fib'" / "DIR/fib" */
	struct strs profiles;   /* absolute paths, in input order */
	struct strs times;      /* program times: none, one, or one per profile */
	struct strs opts;       /* its own feedback options (normalized) */
	double measured;        /* achieved program speedup, NAN: not measured */
	uint32_t n_mcand;
	struct measured_cand *mcand;
	char *measured_file;    /* the directory form's measured.json, or NULL */
	struct fb_cli *cli;     /* per profile (parsed options) */
	char *out;              /* DIR/NAME.json|.msgpack */
};

struct batch {
	/* the command line */
	const char *input, *outdir_arg;
	const char *format;     /* "json" or "msgpack" */
	const char *emit;       /* NULL, "make" or "ninja" */
	bool summarize;
	unsigned jobs;
	struct strs gopts;      /* feedback options for every program (normalized):
				 * the command line's, then the manifest's */
	uint32_t n_cmd_opts;    /* how many of them the command line's */
	/* the suite */
	bool manifest;
	char *input_abs;        /* the manifest or directory, absolute */
	char *outdir;           /* absolute */
	struct prog *prog;
	uint32_t n;
};

/* A copy of opts[0..n) with --calibration's and --checked-by's files made
 * absolute against base (so that the emitted actions and this run read the same file from
 * any directory). Control characters are refused (where: for messages). */
static void normalize_opts(struct strs *out, char *const *opts, uint32_t n, const char *base,
			   const char *where)
{
	static const char cal[] = "--calibration";

	for (uint32_t i = 0; i < n; i++) {
		const char *o = opts[i];

		for (const char *s = o; *s; s++)
			if ((unsigned char)*s < ' ' || *s == 0x7f)
				bad("%s: option '%s': a control character", where, o);
		if (!strncmp(o, cal, sizeof(cal) - 1) && o[sizeof(cal) - 1] == '=' &&
		    o[sizeof(cal)]) {
			char *p = abs_path(base, o + sizeof(cal));

			strs_add(out, xasprintf("%s=%s", cal, p));
			free(p);
		} else if (!strcmp(o, cal) && i + 1 < n) {
			char *p = abs_path(base, opts[++i]);

			strs_add(out, xasprintf("%s=%s", cal, p));
			free(p);
		} else if (!strncmp(o, "--checked-by=", 13) && o[13]) {
			/* check profiles, comma-separated: each made absolute */
			char *list = xstrdup(o + 13), *save = NULL, *acc = xstrdup("--checked-by=");

			for (char *f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
				char *p = abs_path(base, f), *nacc;

				nacc = xasprintf("%s%s%s", acc, acc[13] ? "," : "", p);
				free(acc);
				free(p);
				acc = nacc;
			}
			free(list);
			strs_add(out, acc);
		} else {
			strs_add(out, xstrdup(o));
		}
	}
}

/* Can s name a program (and its output file DIR/s.json)? */
static bool good_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 100 || s[0] == '.' || s[0] == '-' || !strcmp(s, "summary"))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-' || *s == '+'))
			return false;
	return true;
}

static const char name_rule[] =
	"want letters, digits, '.', '_', '+' or '-', not first '.' or '-', not 'summary'";

/* A measured speedup: a number above 0. */
static bool speedup_value(const json_t *v, double *d)
{
	if (!json_is_number(v))
		return false;
	*d = json_number_value(v);
	return isfinite(*d) && *d > 0;
}

/* The measurements {"program": X, "candidates": {"ID": X, ...}} of obj
 * into p; where: what to name in messages ("m.json: programs[0].measured"). */
static void read_measured(struct prog *p, const json_t *obj, const char *where)
{
	const char *k;
	json_t *v;

	if (!json_is_object(obj))
		bad("%s: want an object {\"program\": X, \"candidates\": {\"ID\": X}}", where);
	json_object_foreach((json_t *)obj, k, v) {
		if (!strcmp(k, "program")) {
			if (!speedup_value(v, &p->measured))
				bad("%s.program: want a speedup, a number above 0", where);
		} else if (!strcmp(k, "candidates")) {
			const char *id;
			json_t *x;

			if (!json_is_object(v))
				bad("%s.candidates: want an object of candidate ids and speedups", where);
			p->mcand = xmalloc((json_object_size(v) + 1) * sizeof(*p->mcand));
			json_object_foreach(v, id, x) {
				char *end;
				unsigned long l;

				errno = 0;
				l = strtoul(id, &end, 10);
				if (id[0] < '1' || id[0] > '9' || *end || errno || l > UINT32_MAX)
					bad("%s.candidates: '%s' is not a candidate id (1, 2, ...)", where, id);
				p->mcand[p->n_mcand].id = (uint32_t)l;
				if (!speedup_value(x, &p->mcand[p->n_mcand].speedup))
					bad("%s.candidates.%s: want a speedup, a number above 0", where, id);
				p->n_mcand++;
			}
		} else {
			bad("%s: unknown key '%s' (program, candidates)", where, k);
		}
	}
}

/* A JSON file's document; dies naming the file. */
static json_t *load_json(const char *path)
{
	json_error_t je;
	json_t *doc;
	FILE *f = fopen(path, "r");

	if (!f)
		bad("%s: cannot read: %s", path, strerror(errno));
	doc = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
	fclose(f);
	if (!doc)
		bad("%s:%d:%d: not JSON: %s", path, je.line, je.column, je.text);
	return doc;
}

static void check_unique(const struct batch *b, uint32_t i, const char *where)
{
	for (uint32_t k = 0; k < i; k++)
		if (!strcmp(b->prog[k].name, b->prog[i].name))
			bad("%s: the name '%s' is taken by another program", where, b->prog[i].name);
}

/* The strings of an array (where: for messages). */
static void string_array(struct strs *out, const json_t *a, const char *where, const char *what)
{
	size_t i;
	json_t *v;

	if (!json_is_array(a))
		bad("%s: want an array of %s", where, what);
	json_array_foreach(a, i, v) {
		if (!json_is_string(v) || !json_string_value(v)[0])
			bad("%s[%zu]: want a non-empty string (%s)", where, i, what);
		strs_add(out, xstrdup(json_string_value(v)));
	}
}

/* The manifest (schemas/batch.md) into b. */
static void read_manifest(struct batch *b)
{
	const char *path = b->input, *k;
	json_t *doc = load_json(path), *v, *progs;
	char *dir = xstrdup(b->input_abs), *slash = strrchr(dir, '/');
	size_t i;

	*(slash == dir ? slash + 1 : slash) = 0;
	if (!json_is_object(doc))
		bad("%s: not a batch manifest (want an object)", path);
	v = json_object_get(doc, "format");
	if (!json_is_string(v) || strcmp(json_string_value(v), "deepprof-batch"))
		bad("%s: not a batch manifest (format is not \"deepprof-batch\")", path);
	v = json_object_get(doc, "version");
	if (!json_is_integer(v))
		bad("%s: version: want an integer", path);
	if (json_integer_value(v) != 1)
		bad("%s: version %lld is not readable (this deepprof reads version 1)", path,
		    (long long)json_integer_value(v));
	json_object_foreach(doc, k, v)
		if (strcmp(k, "format") && strcmp(k, "version") && strcmp(k, "options") &&
		    strcmp(k, "programs"))
			bad("%s: unknown key '%s' (format, version, options, programs)", path, k);
	if ((v = json_object_get(doc, "options"))) {
		struct strs raw = { 0 };
		char *w = xasprintf("%s: options", path);

		string_array(&raw, v, w, "feedback options");
		normalize_opts(&b->gopts, raw.v, raw.n, dir, w);
		strs_free(&raw);
		free(w);
	}
	progs = json_object_get(doc, "programs");
	if (!json_is_array(progs) || !json_array_size(progs))
		bad("%s: programs: want a non-empty array of programs", path);
	b->n = (uint32_t)json_array_size(progs);
	b->prog = xmalloc(b->n * sizeof(*b->prog));
	json_array_foreach(progs, i, v) {
		struct prog *p = &b->prog[i];
		json_t *f;
		char *w = xasprintf("%s: programs[%zu]", path, i), *w2;

		p->measured = NAN;
		if (!json_is_object(v))
			bad("%s: want an object (name, profiles, ...)", w);
		json_object_foreach(v, k, f)
			if (strcmp(k, "name") && strcmp(k, "profiles") && strcmp(k, "program_time") &&
			    strcmp(k, "measured") && strcmp(k, "options"))
				bad("%s: unknown key '%s' (name, profiles, program_time, measured, "
				    "options)", w, k);
		f = json_object_get(v, "name");
		if (!json_is_string(f))
			bad("%s.name: want a string", w);
		if (!good_name(json_string_value(f)))
			bad("%s.name '%s': %s", w, json_string_value(f), name_rule);
		p->name = xstrdup(json_string_value(f));
		p->where = xasprintf("%s '%s'", w, p->name);
		check_unique(b, (uint32_t)i, p->where);
		f = json_object_get(v, "profiles");
		w2 = xasprintf("%s.profiles", w);
		if (!f)
			bad("%s: no profiles", p->where);
		{
			struct strs raw = { 0 };

			string_array(&raw, f, w2, "profile paths");
			if (!raw.n)
				bad("%s: no profiles", p->where);
			for (uint32_t k2 = 0; k2 < raw.n; k2++)
				strs_add(&p->profiles, abs_path(dir, raw.v[k2]));
			strs_free(&raw);
		}
		free(w2);
		if ((f = json_object_get(v, "program_time"))) {
			w2 = xasprintf("%s.program_time", w);
			if (json_is_string(f) && json_string_value(f)[0])
				strs_add(&p->times, xstrdup(json_string_value(f)));
			else if (json_is_array(f))
				string_array(&p->times, f, w2, "program times such as \"1.02s\"");
			else
				bad("%s: want a time such as \"1.02s\", or an array of one per profile",
				    w2);
			if (json_is_array(f) && p->times.n != p->profiles.n)
				bad("%s: %u times for %u profiles (want one per profile)", w2,
				    p->times.n, p->profiles.n);
			free(w2);
		}
		if ((f = json_object_get(v, "measured"))) {
			w2 = xasprintf("%s.measured", w);
			read_measured(p, f, w2);
			free(w2);
		}
		if ((f = json_object_get(v, "options"))) {
			struct strs raw = { 0 };

			w2 = xasprintf("%s.options", w);
			string_array(&raw, f, w2, "feedback options");
			normalize_opts(&p->opts, raw.v, raw.n, dir, w2);
			strs_free(&raw);
			free(w2);
		}
		free(w);
	}
	free(dir);
	json_decref(doc);
}

/* The directory form into b: each subdirectory NAME/ a program, its *.data
 * files its profiles (by name), NAME/measured.json its measurements. */
static void read_dir(struct batch *b)
{
	const char *in = b->input;
	DIR *d = opendir(b->input_abs);
	struct strs names = { 0 };
	struct dirent *e;
	char *outdir = realpath(b->outdir_arg, NULL);   /* NULL: not made yet */

	if (!d)
		bad("%s: cannot read: %s", in, strerror(errno));
	while ((e = readdir(d))) {
		char *sub;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", b->input_abs, e->d_name);
		/* (the output directory may be one of them: not a program) */
		if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode) && !(outdir && !strcmp(sub, outdir)))
			strs_add(&names, xstrdup(e->d_name));
		free(sub);
	}
	free(outdir);
	closedir(d);
	if (!names.n)
		bad("%s: no programs (want one subdirectory per program, holding its *.data "
		    "profiles)", in);
	qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	b->n = names.n;
	b->prog = xmalloc(b->n * sizeof(*b->prog));
	for (uint32_t i = 0; i < names.n; i++) {
		struct prog *p = &b->prog[i];
		char *sub = xasprintf("%s/%s", b->input_abs, names.v[i]);
		struct stat st;

		p->measured = NAN;
		p->where = xasprintf("%s/%s", in, names.v[i]);
		if (!good_name(names.v[i]))
			bad("%s: '%s' cannot name a program: %s", p->where, names.v[i], name_rule);
		p->name = xstrdup(names.v[i]);
		d = opendir(sub);
		if (!d)
			bad("%s: cannot read: %s", p->where, strerror(errno));
		while ((e = readdir(d)))
			if (e->d_name[0] != '.' && ends_with(e->d_name, ".data"))
				strs_add(&p->profiles, xasprintf("%s/%s", sub, e->d_name));
		closedir(d);
		if (!p->profiles.n)
			bad("%s: no profiles (no *.data file)", p->where);
		qsort(p->profiles.v, p->profiles.n, sizeof(*p->profiles.v), cmp_str);
		p->measured_file = xasprintf("%s/measured.json", sub);
		if (stat(p->measured_file, &st) == 0) {
			json_t *doc = load_json(p->measured_file);

			read_measured(p, doc, p->measured_file);
			json_decref(doc);
		} else {
			free(p->measured_file);
			p->measured_file = NULL;
		}
		free(sub);
	}
	strs_free(&names);
}

/* Parse the feedback options v[0..n) into *c with `deepprof feedback`'s
 * parser (a bad one is a usage error naming where), refusing what a batch
 * decides itself (its outputs, --jobs), and read their calibration file. */
static void parse_list(struct fb_cli *c, char *const *v, uint32_t n, const char *where)
{
	char **argv = xmalloc((n + 2) * sizeof(*argv));
	const char **files;
	int argc = 0, nfiles;

	argv[argc++] = "feedback";
	for (uint32_t i = 0; i < n; i++) {
		const char *a = v[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "--") ||
		    !strncmp(a, "--jobs", 6) || !strncmp(a, "-j", 2) || !strncmp(a, "-o", 2) ||
		    !strncmp(a, "--output", 8) || !strncmp(a, "--separate", 10) ||
		    !strncmp(a, "--explain", 9) || !strncmp(a, "--to-json", 9))
			bad("%s: option '%s' is not for a batch (its outputs and --jobs are "
			    "deepprof batch's)", where, a);
		argv[argc++] = v[i];
	}
	dp_usage_where = where;
	fb_cli_init(c);
	fb_parse_args(c, argc, argv, &files, &nfiles);
	if (nfiles)
		bad("%s: '%s' is not an option (feedback options are --name=value)", where,
		    files[0]);
	free(files);
	fb_set_overheads(c);
	dp_usage_where = NULL;
	free(argv);
}

/* The batch's own feedback options alone first, so that a bad one is named
 * as the batch's (the command line's, then the manifest's). */
static void parse_batch_opts(const struct batch *b)
{
	struct fb_cli c;
	char *w;

	parse_list(&c, b->gopts.v, b->n_cmd_opts, "batch");
	if (b->gopts.n > b->n_cmd_opts) {
		w = xasprintf("%s: options", b->input);
		parse_list(&c, b->gopts.v + b->n_cmd_opts, b->gopts.n - b->n_cmd_opts, w);
		free(w);
	}
}

/* The options of each of p's inputs: the batch's, then p's own, then its
 * program time (a bad one is named as p's). */
static void parse_opts(const struct batch *b, struct prog *p)
{
	uint32_t n = p->profiles.n;

	p->cli = xmalloc(n * sizeof(*p->cli));
	for (uint32_t k = 0; k < n; k++) {
		char **v = xmalloc((b->gopts.n + p->opts.n + 1) * sizeof(*v));
		char *time = NULL;
		uint32_t m = 0;

		for (uint32_t i = 0; i < b->gopts.n; i++)
			v[m++] = b->gopts.v[i];
		for (uint32_t i = 0; i < p->opts.n; i++)
			v[m++] = p->opts.v[i];
		if (p->times.n)
			v[m++] = time = xasprintf("--program-time=%s",
						  p->times.v[p->times.n == 1 ? 0 : k]);
		parse_list(&p->cli[k], v, m, p->where);
		free(time);
		free(v);
	}
}

/* ================================================================
 * The summary table
 * ================================================================ */

struct row {
	const struct prog *p;
	const struct dpf_feedback *fb;
	uint32_t recommended;
	const struct dpf_candidate *best;   /* the accepted one of highest
					     * program speedup; NULL: none */
	double predicted;                   /* its program speedup; 1: none */
	double achieved, error;             /* NAN: not measured */
	const char *achieved_from;          /* "candidate", "program" or NULL */
};

/* The row of program p from its (combined) feedback fb. */
static void make_row(struct row *r, const struct prog *p, const struct dpf_feedback *fb)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->fb = fb;
	/* recommended: accepted and safe or checked, as `deepprof feedback`
	 * lists them; the best is the best of those, else of the accepted
	 * ones that need a check (its safety column says so) */
	for (uint32_t i = 0; i < fb->n_cand; i++) {
		const struct dpf_candidate *c = &fb->cand[i];
		bool rec = c->safety == DPF_SAFE || c->safety == DPF_CHECKED;
		bool best_rec = r->best && (r->best->safety == DPF_SAFE || r->best->safety == DPF_CHECKED);

		if (c->verdict != DPF_ACCEPTED)
			continue;
		r->recommended += rec;
		if (!r->best || (rec && !best_rec) ||
		    (rec == best_rec && c->program_speedup > r->best->program_speedup))
			r->best = c;
	}
	r->predicted = r->best ? r->best->program_speedup : 1.0;
	r->achieved = r->error = NAN;
	for (uint32_t k = 0; k < p->n_mcand; k++)
		if (!dpf_feedback_candidate(fb, p->mcand[k].id))
			bad("%s: measured: no candidate %u in the feedback (it has %u candidate%s)",
			    p->measured_file ? p->measured_file : p->where, p->mcand[k].id, fb->n_cand,
			    fb->n_cand == 1 ? "" : "s");
		else if (r->best && p->mcand[k].id == r->best->id) {
			r->achieved = p->mcand[k].speedup;
			r->achieved_from = "candidate";
		}
	if (!r->achieved_from && !isnan(p->measured)) {
		r->achieved = p->measured;
		r->achieved_from = "program";
	}
	if (r->achieved_from)
		r->error = (r->predicted - r->achieved) / r->achieved;
}

static const char *f3(double v, char *b, size_t n)
{
	if (isnan(v))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.3f", v);
	return b;
}

/* The table as text (malloc'ed). */
static char *summary_text(const struct row *rows, uint32_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uint32_t inputs = 0, rec = 0;

	if (!f)
		die_status(DP_EXIT_FAIL, "batch: out of memory");
	fprintf(f, "%-16s %6s %10s %11s %5s %7s %7s %8s %7s  %-16s %5s %6s %6s %6s\n", "program",
		"inputs", "candidates", "recommended", "best", "region", "program", "achieved",
		"error", "safety", "seen", "min", "median", "max");
	for (uint32_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		const struct dpf_candidate *c = r->best;
		char id[16] = "-", seen[32] = "-", err[32] = "-", a[6][32];

		if (c) {
			snprintf(id, sizeof(id), "#%u", c->id);
			snprintf(seen, sizeof(seen), "%u/%u", c->n_inputs_seen, r->fb->n_input);
		}
		if (!isnan(r->error))
			snprintf(err, sizeof(err), "%+.1f%%", 100 * r->error);
		fprintf(f, "%-16s %6u %10u %11u %5s %7s %7s %8s %7s  %-16s %5s %6s %6s %6s\n",
			r->p->name, r->fb->n_input, r->fb->n_cand, r->recommended, id,
			f3(c ? c->speedup : NAN, a[0], 32), f3(r->predicted, a[1], 32),
			f3(r->achieved, a[2], 32), err,
			c ? dpf_safety_name((enum dpf_safety)c->safety) : "-", seen,
			f3(c ? c->speedup_min : NAN, a[3], 32), f3(c ? c->speedup_median : NAN, a[4], 32),
			f3(c ? c->speedup_max : NAN, a[5], 32));
		inputs += r->fb->n_input;
		rec += r->recommended;
	}
	fprintf(f, "%u program%s, %u input%s, %u recommended candidate%s.\n", n, n == 1 ? "" : "s",
		inputs, inputs == 1 ? "" : "s", rec, rec == 1 ? "" : "s");
	fprintf(f, "recommended: accepted, and safe or checked; best: the recommended candidate "
		"of highest predicted\nprogram speedup, else the accepted one that needs a check "
		"(safety says so); region, program: its\npredicted speedups (none accepted: program "
		"1.000); "
		"achieved: measured; error: (predicted - achieved) / achieved;\nseen: the inputs "
		"that have it / the inputs; min, median, max: its region speedup over those.\n");
	if (fclose(f) != 0 || !buf)
		die_status(DP_EXIT_FAIL, "batch: out of memory");
	return buf;
}

static json_t *num_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static void set(json_t *o, const char *k, json_t *v)
{
	if (!v || json_object_set_new(o, k, v) < 0)
		die_status(DP_EXIT_FAIL, "batch: out of memory");
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* The table as summary.json's document (schemas/batch.md). */
static json_t *summary_json(const struct batch *b, const struct row *rows, uint32_t n)
{
	json_t *doc = json_object(), *progs = json_array();

	if (!doc || !progs)
		die_status(DP_EXIT_FAIL, "batch: out of memory");
	set(doc, "format", json_string("deepprof-batch-summary"));
	set(doc, "version", json_integer(1));
	set(doc, "input", json_string(b->input_abs));
	set(doc, "feedback_format", json_string(b->format));
	for (uint32_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		const struct dpf_candidate *c = r->best;
		json_t *o = json_object(), *bo = json_null();

		if (!o || json_array_append_new(progs, o) < 0)
			die_status(DP_EXIT_FAIL, "batch: out of memory");
		set(o, "name", json_string(r->p->name));
		set(o, "feedback", json_string(dpa_basename(r->p->out)));
		set(o, "program", str_or_null(r->fb->program));
		set(o, "inputs", json_integer(r->fb->n_input));
		set(o, "candidates", json_integer(r->fb->n_cand));
		set(o, "recommended", json_integer(r->recommended));
		if (c) {
			bo = json_object();
			if (!bo)
				die_status(DP_EXIT_FAIL, "batch: out of memory");
			set(bo, "id", json_integer(c->id));
			set(bo, "fn", str_or_null(c->proc.fn));
			set(bo, "file", str_or_null(c->proc.file));
			set(bo, "line", json_integer(c->proc.line));
			set(bo, "context", str_or_null(c->context));
			set(bo, "n_tasks", json_integer(c->n_tasks));
			set(bo, "speedup", json_real(c->speedup));
			set(bo, "program_speedup", json_real(c->program_speedup));
			set(bo, "safety", json_string(dpf_safety_name((enum dpf_safety)c->safety)));
			set(bo, "n_inputs_seen", json_integer(c->n_inputs_seen));
			set(bo, "speedup_min", json_real(c->speedup_min));
			set(bo, "speedup_median", json_real(c->speedup_median));
			set(bo, "speedup_max", json_real(c->speedup_max));
		}
		set(o, "best", bo);
		set(o, "predicted", json_real(r->predicted));
		set(o, "achieved", num_or_null(r->achieved));
		set(o, "achieved_from", str_or_null(r->achieved_from));
		set(o, "error", num_or_null(r->error));
	}
	set(doc, "programs", progs);
	return doc;
}

/* Write the table (DIR/summary.txt, DIR/summary.json) and print it. */
static void write_summary(const struct batch *b, const struct row *rows, uint32_t n)
{
	char *text = summary_text(rows, n), *txt = xasprintf("%s/summary.txt", b->outdir),
	     *js = xasprintf("%s/summary.json", b->outdir);
	json_t *doc = summary_json(b, rows, n);

	fb_write_file(doc, js);
	fb_write_atomic(txt, text, strlen(text));
	fputs(text, stdout);
	json_decref(doc);
	free(text);
	free(txt);
	free(js);
}

/* ================================================================
 * Analysing, summarizing
 * ================================================================ */

static void analyse(struct batch *b)
{
	uint32_t total = 0, k = 0;
	struct job *job;
	struct fb_cli pool;
	struct dpf_feedback *fb = xmalloc(b->n * sizeof(*fb));
	struct row *rows = xmalloc(b->n * sizeof(*rows));

	for (uint32_t i = 0; i < b->n; i++)
		total += b->prog[i].profiles.n;
	job = xmalloc(total * sizeof(*job));
	for (uint32_t i = 0; i < b->n; i++)
		for (uint32_t j = 0; j < b->prog[i].profiles.n; j++, k++) {
			job[k].path = b->prog[i].profiles.v[j];
			job[k].c = &b->prog[i].cli[j];
		}
	fb_cli_init(&pool);
	pool.jobs = b->jobs;
	fb_run_jobs(job, total, &pool);
	for (k = 0; k < total; k++)
		if (job[k].status) {
			fflush(stdout);
			fprintf(stderr, "%s\n", fb_one_line(job[k].err.msg));
			exit(job[k].status);
		}
	k = 0;
	for (uint32_t i = 0; i < b->n; i++) {
		struct prog *p = &b->prog[i];
		struct dpf_feedback *in = xmalloc(p->profiles.n * sizeof(*in));

		for (uint32_t j = 0; j < p->profiles.n; j++) {
			in[j] = job[k + j].fb;
			if (!fb_same_program(&in[0], &in[j]))
				bad("%s: a profile of '%s', not of '%s' like %s (program '%s')",
				    job[k + j].path, dpa_basename(in[j].program ? in[j].program : "?"),
				    dpa_basename(in[0].program ? in[0].program : "?"), job[k].path,
				    p->name);
		}
		fb_combine(&fb[i], in, p->profiles.n);
		free(in);
		make_row(&rows[i], p, &fb[i]);
		k += p->profiles.n;
	}
	/* every input judged good: now the files */
	for (uint32_t i = 0; i < b->n; i++) {
		json_t *doc = fb_doc_of(&fb[i]);

		fb_write_file(doc, b->prog[i].out);
		json_decref(doc);
	}
	write_summary(b, rows, b->n);
	printf("batch: wrote %u feedback file%s, summary.txt and summary.json in %s\n", b->n,
	       b->n == 1 ? "" : "s", b->outdir_arg);
	for (k = 0; k < total; k++)
		dpf_feedback_release(&job[k].fb);
	for (uint32_t i = 0; i < b->n; i++)
		dpf_feedback_release(&fb[i]);
	free(job);
	free(fb);
	free(rows);
}

/* --summarize: the table from the feedback files DIR holds. */
static void summarize(struct batch *b)
{
	struct dpf_feedback *fb = xmalloc(b->n * sizeof(*fb));
	struct row *rows = xmalloc(b->n * sizeof(*rows));

	for (uint32_t i = 0; i < b->n; i++) {
		struct dpa_error err = { { 0 } };

		if (dpf_feedback_read_file(&fb[i], b->prog[i].out, &err) < 0)
			bad("%s", err.msg);
		make_row(&rows[i], &b->prog[i], &fb[i]);
	}
	write_summary(b, rows, b->n);
	for (uint32_t i = 0; i < b->n; i++)
		dpf_feedback_release(&fb[i]);
	free(fb);
	free(rows);
}

/* ================================================================
 * Build actions (--emit)
 * ================================================================ */

/* A path a Makefile and build.ninja can name as it is. */
static void check_nameable(const char *path, const char *what)
{
	for (const char *s = path; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._/+,=@~-", *s)))
			bad("%s '%s': the character '%c' cannot be named in a build file (--emit); "
			    "rename it, or run deepprof batch without --emit", what, path, *s);
}

/* s quoted for the shell, '$' doubled (make and ninja), appended to f. */
static void put_arg(FILE *f, const char *s)
{
	fputs(" '", f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else if (*s == '$')
			fputs("$$", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* The feedback options of p's input k (all inputs when k < 0): the batch's,
 * p's, its program time. */
static void put_opts(FILE *f, const struct batch *b, const struct prog *p, int k)
{
	for (uint32_t i = 0; i < b->gopts.n; i++)
		put_arg(f, b->gopts.v[i]);
	for (uint32_t i = 0; i < p->opts.n; i++)
		put_arg(f, p->opts.v[i]);
	if (p->times.n) {
		char *t = xasprintf("--program-time=%s", p->times.v[k < 0 ? 0 : k]);

		put_arg(f, t);
		free(t);
	}
}

/* The file a program's input k is analysed into when its inputs have
 * different program times (one action each, then one that combines them). */
static char *part_path(const struct batch *b, const struct prog *p, uint32_t k)
{
	return xasprintf("%s/%s.inputs/%u.json", b->outdir, p->name, k + 1);
}

static void emit(struct batch *b, const char *self)
{
	bool ninja = !strcmp(b->emit, "ninja");
	char *out = xasprintf("%s/%s", b->outdir, ninja ? "build.ninja" : "Makefile");
	char *buf = NULL, *sum = xasprintf("%s/summary.json", b->outdir);
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *in = b->input_abs;

	if (!f)
		die_status(DP_EXIT_FAIL, "batch: out of memory");
	check_nameable(self, "deepprof");
	check_nameable(b->input_abs, b->manifest ? "the manifest" : "the input directory");
	check_nameable(b->outdir, "the output directory");
	for (uint32_t i = 0; i < b->n; i++) {
		for (uint32_t k = 0; k < b->prog[i].profiles.n; k++)
			check_nameable(b->prog[i].profiles.v[k], "the profile");
	}
	fprintf(f, "# %s written by `deepprof batch --emit=%s` for %s.\n"
		"# One action per program writes its feedback file (`deepprof feedback`;\n"
		"# a program whose inputs have different program times: one action per\n"
		"# input, then one that combines them); the actions are independent of\n"
		"# each other. The last one, `deepprof batch --summarize`, reads them\n"
		"# into summary.txt and summary.json. Run: %s\n\n",
		ninja ? "build.ninja" : "Makefile", b->emit, in,
		ninja ? "ninja -f DIR/build.ninja" : "make -f DIR/Makefile -j N");
	if (ninja) {
		/* its log there, not in whatever directory ninja runs in */
		fprintf(f, "ninja_required_version = 1.3\nbuilddir = %s\ndeepprof = %s\n\n",
			b->outdir, self);
		fprintf(f, "rule feedback\n  command = $deepprof feedback $opts $in -o $out\n"
			"  description = feedback $out\n\n");
		fprintf(f, "rule summarize\n  command = $deepprof batch --summarize "
			"--format=%s $input -o $dir\n  description = summary $dir\n\n", b->format);
	} else {
		fprintf(f, "DEEPPROF = %s\n\n.PHONY: all\nall: %s\n\n", self, sum);
	}
	/* the summary */
	if (ninja)
		fprintf(f, "build %s %s/summary.txt: summarize", sum, b->outdir);
	else
		fprintf(f, "%s:", sum);
	for (uint32_t i = 0; i < b->n; i++)
		fprintf(f, " %s", b->prog[i].out);
	{
		const char *bar = ninja ? " |" : "";     /* ninja: implicit inputs */

		if (b->manifest) {
			fprintf(f, "%s %s", bar, in);
			bar = "";
		}
		for (uint32_t i = 0; i < b->n; i++)
			if (b->prog[i].measured_file) {
				check_nameable(b->prog[i].measured_file, "measured");
				fprintf(f, "%s %s", bar, b->prog[i].measured_file);
				bar = "";
			}
	}
	if (ninja)
		fprintf(f, "\n  input = %s\n  dir = %s\n\n", in, b->outdir);
	else
		fprintf(f, "\n\t$(DEEPPROF) batch --summarize --format=%s %s -o %s\n\n", b->format,
			in, b->outdir);
	/* each program */
	for (uint32_t i = 0; i < b->n; i++) {
		struct prog *p = &b->prog[i];
		bool parts = p->times.n > 1;

		for (uint32_t k = 0; k < (parts ? p->profiles.n : 1); k++) {
			char *o = parts ? part_path(b, p, k) : p->out;

			fprintf(f, ninja ? "build %s: feedback" : "%s:", o);
			for (uint32_t j = 0; j < p->profiles.n; j++)
				if (!parts || j == k)
					fprintf(f, " %s", p->profiles.v[j]);
			if (b->manifest)
				fprintf(f, "%s %s", ninja ? " |" : "", in);
			if (ninja) {
				fprintf(f, "\n  opts =");
				put_opts(f, b, p, parts ? (int)k : -1);
				fprintf(f, "\n\n");
			} else {
				fprintf(f, "\n");
				if (parts)
					fprintf(f, "\t@mkdir -p %s/%s.inputs\n", b->outdir, p->name);
				fprintf(f, "\t$(DEEPPROF) feedback");
				put_opts(f, b, p, parts ? (int)k : -1);
				for (uint32_t j = 0; j < p->profiles.n; j++)
					if (!parts || j == k)
						fprintf(f, " %s", p->profiles.v[j]);
				fprintf(f, " -o %s\n\n", o);
			}
			if (parts)
				free(o);
		}
		if (parts) {
			/* the combination of the inputs' feedback files */
			fprintf(f, ninja ? "build %s: feedback" : "%s:", p->out);
			for (uint32_t k = 0; k < p->profiles.n; k++) {
				char *o = part_path(b, p, k);

				fprintf(f, " %s", o);
				free(o);
			}
			if (ninja) {
				fprintf(f, "\n  opts =\n\n");
			} else {
				fprintf(f, "\n\t$(DEEPPROF) feedback $^ -o %s\n\n", p->out);
			}
		}
	}
	if (ninja)
		fprintf(f, "default %s\n", sum);
	if (fclose(f) != 0 || !buf)
		die_status(DP_EXIT_FAIL, "batch: out of memory");
	fb_write_atomic(out, buf, len);
	printf("batch: wrote %s: %u program%s; run: %s %s\n", out, b->n, b->n == 1 ? "" : "s",
	       ninja ? "ninja -f" : "make -j2 -f", out);
	free(buf);
	free(out);
	free(sum);
}

/* ================================================================
 * The command
 * ================================================================ */

static void parse_batch_args(struct batch *b, int argc, char **argv)
{
	struct strs raw = { 0 };
	const char *v;
	bool done = false;
	char cwd[PATH_MAX];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (done || a[0] != '-' || !a[1]) {
			if (b->input)
				usage_error("batch", "one INPUT only ('%s', then '%s')", b->input, a);
			b->input = a;
		} else if (!strcmp(a, "--")) {
			done = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(batch_usage, stdout);
			exit(DP_EXIT_OK);
		} else if ((v = dp_opt_value("batch", argc, argv, &i, "-o", "--output"))) {
			if (!*v)
				usage_error("batch", "empty output directory name");
			b->outdir_arg = v;
		} else if ((v = dp_opt_value("batch", argc, argv, &i, "-j", "--jobs"))) {
			char *end;
			unsigned long l = strtoul(v, &end, 10);

			if (v[0] < '0' || v[0] > '9' || *end || l < 1 || l > 256)
				usage_error("batch", "bad --jobs '%s': want a whole number from 1 to 256",
					    v);
			b->jobs = (unsigned)l;
		} else if ((v = dp_opt_value("batch", argc, argv, &i, NULL, "--format"))) {
			if (strcmp(v, "json") && strcmp(v, "msgpack"))
				usage_error("batch", "bad --format '%s': want json or msgpack", v);
			b->format = v;
		} else if ((v = dp_opt_value("batch", argc, argv, &i, NULL, "--emit"))) {
			if (strcmp(v, "make") && strcmp(v, "ninja"))
				usage_error("batch", "bad --emit '%s': want make or ninja", v);
			b->emit = v;
		} else if (!strcmp(a, "--summarize")) {
			b->summarize = true;
		} else {
			strs_add(&raw, xstrdup(a));     /* one of feedback's */
		}
	}
	if (!getcwd(cwd, sizeof(cwd)))
		die_status(DP_EXIT_FAIL, "batch: cannot tell the current directory: %s",
			   strerror(errno));
	normalize_opts(&b->gopts, raw.v, raw.n, cwd, "batch");
	b->n_cmd_opts = b->gopts.n;
	strs_free(&raw);
	if (!b->input)
		usage_error("batch", "no INPUT given (a directory of programs or a manifest)");
	if (!b->outdir_arg)
		usage_error("batch", "no output directory given (-o DIR)");
	if (b->emit && b->summarize)
		usage_error("batch", "--emit and --summarize do not go together");
}

/* Make the output directory (one level) and prove it writable. */
static void make_outdir(struct batch *b)
{
	const char *d = b->outdir_arg;
	struct stat st;
	char *probe, *r;

	if (mkdir(d, 0777) < 0 && errno != EEXIST)
		bad("%s: cannot make the output directory: %s", d, strerror(errno));
	if (stat(d, &st) < 0 || !S_ISDIR(st.st_mode))
		bad("%s: cannot write: not a directory", d);
	r = realpath(d, NULL);
	if (!r)
		bad("%s: cannot write: %s", d, strerror(errno));
	b->outdir = r;
	probe = xasprintf("%s/summary.json", r);
	if (dpa_temp_probe(probe) < 0)
		bad("%s: cannot write: %s", d, strerror(errno));
	free(probe);
}

int cmd_batch(int argc, char **argv)
{
	struct batch b;
	struct stat st;
	char self[PATH_MAX];
	ssize_t n;

	memset(&b, 0, sizeof(b));
	b.format = "json";
	b.jobs = 1;
	parse_batch_args(&b, argc, argv);
	if (stat(b.input, &st) < 0)
		bad("%s: cannot read: %s", b.input, strerror(errno));
	b.manifest = !S_ISDIR(st.st_mode);
	b.input_abs = realpath(b.input, NULL);
	if (!b.input_abs)
		bad("%s: cannot read: %s", b.input, strerror(errno));
	if (b.manifest)
		read_manifest(&b);
	else
		read_dir(&b);
	if (!b.summarize)
		parse_batch_opts(&b);
	if (!b.summarize)
		for (uint32_t i = 0; i < b.n; i++) {
			struct prog *p = &b.prog[i];

			for (uint32_t k = 0; k < p->profiles.n; k++)
				if (stat(p->profiles.v[k], &st) < 0)
					bad("%s: %s: %s", p->where, p->profiles.v[k], strerror(errno));
			parse_opts(&b, p);
		}
	make_outdir(&b);
	for (uint32_t i = 0; i < b.n; i++)
		b.prog[i].out = xasprintf("%s/%s.%s", b.outdir, b.prog[i].name, b.format);

	if (b.emit) {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n < 0)
			die_status(DP_EXIT_FAIL, "batch: cannot tell where deepprof is: %s",
				   strerror(errno));
		self[n] = 0;
		emit(&b, self);
	} else if (b.summarize) {
		summarize(&b);
	} else {
		analyse(&b);
	}

	for (uint32_t i = 0; i < b.n; i++) {
		struct prog *p = &b.prog[i];

		free(p->name);
		free(p->where);
		strs_free(&p->profiles);
		strs_free(&p->times);
		strs_free(&p->opts);
		free(p->mcand);
		free(p->measured_file);
		free(p->cli);
		free(p->out);
	}
	free(b.prog);
	strs_free(&b.gopts);
	free(b.input_abs);
	free(b.outdir);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: batch: cannot write the output\n", dp_progname);
		return DP_EXIT_FAIL;
	}
	return DP_EXIT_OK;
}
