/*
 * feedback_cli.h — what `deepprof feedback` (cmd_feedback.c) shares with
 * `deepprof batch` (cmd_batch.c), which runs the same analysis over many
 * programs: its options, the analysis of profiles on a pool of threads with
 * a progress bar, combining one program's feedbacks, and writing a file
 * atomically. Only these two commands include it.
 * Part of deepprof's command line. MIT licence.
 */
#ifndef DP_FEEDBACK_CLI_H
#define DP_FEEDBACK_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "errors.h"
#include "feedback.h"

/* `deepprof feedback`'s command line. */
struct fb_cli {
	struct dpf_options opt;
	const char *out;        /* NULL: stdout */
	const char *calibration;
	const char *to_json;
	uint32_t explain;       /* 0: none */
	unsigned jobs;
	bool separate, no_progrep;
	double ov_set[6];       /* command-line overheads, NAN: not given */
	const char *checked_by; /* --checked-by: check builds' profiles, comma-separated */
};

/* One input to analyse (a profile, or a feedback file read as it is). */
struct job {
	const char *path;
	const struct fb_cli *c; /* its options; NULL: those given to fb_run_jobs */
	struct dpf_feedback fb;
	struct dpa_error err;
	int status;             /* DP_EXIT_*: of this input */
};

/* Set *c to the defaults (no option given). */
void fb_cli_init(struct fb_cli *c);

/* Parse argv[1..argc) (argv[0]: the command) into *c and the input files
 * (*files, *nfiles: pointers into argv; *files malloc'ed). A bad option is
 * a usage error (exit 2, named through usage_error()). */
void fb_parse_args(struct fb_cli *c, int argc, char **argv, const char ***files,
		   int *nfiles);

/* Apply --calibration and the overhead options to c->opt.ov; dies with the
 * calibration file's error. */
void fb_set_overheads(struct fb_cli *c);

/* Analyse every job on min(c->jobs, n) threads (each with job->c, else c);
 * a progress bar on stderr when it is a terminal. A job that fails has
 * status and err set. */
void fb_run_jobs(struct job *job, unsigned n, const struct fb_cli *c);

/* Combine in[0..n) (one program's) into *out; dies (exit 2) on failure. */
void fb_combine(struct dpf_feedback *out, const struct dpf_feedback *in, uint32_t n);

/* Do two feedbacks come from the same program (by the program's base name)? */
bool fb_same_program(const struct dpf_feedback *a, const struct dpf_feedback *b);

/* The document of fb; dies (exit 1) when it cannot be made. */
json_t *fb_doc_of(const struct dpf_feedback *fb);

/* Write doc to `out` atomically in the encoding its name says (.json or
 * .msgpack); dies with one line on failure. */
void fb_write_file(const json_t *doc, const char *out);

/* Write buf[0..len) to `out` atomically (a temporary file beside it,
 * renamed); dies with one line naming it on failure (exit 2). */
void fb_write_atomic(const char *out, const char *buf, size_t len);

/* msg with control characters as '?' (a message is one line); returns msg. */
const char *fb_one_line(char *msg);

#endif
