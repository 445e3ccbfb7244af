/*
 * main.c — the deepprof command: a table of subcommands (git's commands[]),
 * global options, help. Subcommands live one per file (dump.c, ...) and only
 * parse their options, call analyses/ and render.
 * Part of deepprof's command line. MIT licence.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile.h"

#define DEEPPROF_VERSION "0.1"

const char *dp_progname = "deepprof";
const char *dp_usage_where;

struct subcmd {
	const char *name;
	dp_cmd_fn fn;
	const char *summary;
	const char *usage;      /* full help, first line the synopsis; NULL: the
				 * command prints its own for --help */
};

static const struct subcmd subcmds[] = {
	{ "dump", cmd_dump, "print every node of a Deep.data file with its measures",
	  "usage: deepprof dump [--json] FILE\n"
	  "\n"
	  "Print every node of the profile FILE (a Deep.data file) with resolved\n"
	  "names and all measurements: the header, modules, procedures (ps), call\n"
	  "sites (css), procedure contexts (pd), call-site contexts (csd) and\n"
	  "threads, as aligned tables.\n"
	  "\n"
	  "  --json       one JSON document instead (schemas/deep-data.md,\n"
	  "               \"deepprof dump --json\"); one array element per line\n"
	  "  -h, --help   show this help\n"
	  "\n"
	  "Names come from the file, else from the debug information of each\n"
	  "module's file; unresolved ones show as 0x<offset> in <module>. Exit\n"
	  "status: 0 success, 2 bad usage or a missing, truncated or corrupt FILE.\n" },
	{ "merge", cmd_merge, "combine the profiles of several runs of one program", NULL },
	{ "diff", cmd_diff, "compare two profiles per procedure and per context", NULL },
	{ "progrep", cmd_progrep, "show the program representation of a plugin build or profile", NULL },
	{ "report", cmd_report, "summary, top procedures, procedure, clique, call site, callers, recursion", NULL },
	{ "export", cmd_export, "write a profile as folded stacks, callgrind or speedscope", NULL },
	{ "feedback", cmd_feedback, "parallelism candidates, variable use, recursion, hot/cold code as a feedback file", NULL },
	{ "batch", cmd_batch, "feedback for a whole suite of programs, a summary table, or build actions for it", NULL },
	{ "calibrate", cmd_calibrate, "measure this machine's OpenMP task overheads for feedback", NULL },
	{ "serve", cmd_serve, "browse a profile (and a diff) in a web browser", NULL },
	{ "test-pages", cmd_test_pages, "render every page `serve` can show, failing on any error", NULL },
	{ "record", cmd_record, "sample an unmodified program's calling contexts (libunwind)", NULL },
};

#define NSUBCMDS (sizeof(subcmds) / sizeof(subcmds[0]))

void die_status(int status, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", dp_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

void die_plain(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(DP_EXIT_USAGE);
}

const char *dp_opt_value(const char *cmd, int argc, char **argv, int *i, const char *shrt,
			 const char *lng)
{
	const char *a = argv[*i];
	size_t n = strlen(lng);

	if (!strncmp(a, lng, n) && a[n] == '=')
		return a + n + 1;
	if (!strcmp(a, lng) || (shrt && !strcmp(a, shrt))) {
		if (*i + 1 >= argc)
			usage_error(cmd, "option '%s' needs a value", a);
		return argv[++*i];
	}
	if (shrt && !strncmp(a, shrt, 2) && a[2])
		return a + 2;
	return NULL;
}

void usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	if (cmd)
		fprintf(stderr, "%s %s: ", dp_progname, cmd);
	else
		fprintf(stderr, "%s: ", dp_progname);
	if (dp_usage_where)
		fprintf(stderr, "%s: ", dp_usage_where);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, " (try '%s help %s')\n", dp_progname, cmd);
	else
		fprintf(stderr, " (try '%s --help')\n", dp_progname);
	exit(DP_EXIT_USAGE);
}

static const struct subcmd *find_subcmd(const char *name)
{
	for (size_t i = 0; i < NSUBCMDS; i++)
		if (!strcmp(subcmds[i].name, name))
			return &subcmds[i];
	return NULL;
}

const char *dp_cmd_usage(const char *name)
{
	const struct subcmd *c = find_subcmd(name);

	return c ? c->usage : NULL;
}

static void print_help(FILE *f)
{
	fprintf(f, "usage: %s [--version] [--help] <command> [<args>]\n\n", dp_progname);
	fprintf(f, "Read and analyse deep profiles (Deep.data files).\n\nCommands:\n");
	for (size_t i = 0; i < NSUBCMDS; i++)
		fprintf(f, "  %-10s %s\n", subcmds[i].name, subcmds[i].summary);
	fprintf(f, "\n'%s help <command>' shows a command's options.\n", dp_progname);
}

static int cmd_help(int argc, char **argv)
{
	const struct subcmd *c;

	if (argc < 2) {
		print_help(stdout);
		return DP_EXIT_OK;
	}
	if (argc > 2)
		usage_error("help", "too many arguments");
	c = find_subcmd(argv[1]);
	if (!c)
		usage_error(NULL, "'%s' is not a deepprof command", argv[1]);
	if (!c->usage) {
		char *args[] = { (char *)c->name, "--help", NULL };

		return c->fn(2, args);
	}
	fputs(c->usage, stdout);
	return DP_EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct subcmd *c;
	const char *name;

	if (argc < 2)
		usage_error(NULL, "no command given");
	name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(name, "--version")) {
		printf("deepprof %s (Deep.data format %d)\n", DEEPPROF_VERSION, DPA_FORMAT_VERSION);
		return DP_EXIT_OK;
	}
	if (!strcmp(name, "help"))
		return cmd_help(argc - 1, argv + 1);
	if (name[0] == '-')
		usage_error(NULL, "unknown option '%s'", name);
	c = find_subcmd(name);
	if (!c)
		usage_error(NULL, "'%s' is not a deepprof command", name);
	return c->fn(argc - 1, argv + 1);
}
