/*
 * cli.h — what the deepprof subcommands share: the subcommand signature,
 * die()/usage helpers (only the CLI prints errors and exits), and each
 * subcommand's entry point. Part of deepprof's command line. MIT licence.
 */
#ifndef DP_CLI_H
#define DP_CLI_H

#include <stdio.h>

/* Exit statuses: 0 success, 1 failure of the tool itself (out of memory,
 * cannot write output), 2 bad input or bad usage. */
enum { DP_EXIT_OK = 0, DP_EXIT_FAIL = 1, DP_EXIT_USAGE = 2 };

extern const char *dp_progname;   /* "deepprof" */

/* Print "deepprof: <msg>" on stderr and exit with `status`. */
__attribute__((noreturn, format(printf, 2, 3)))
void die_status(int status, const char *fmt, ...);
#define die(...) die_status(DP_EXIT_USAGE, __VA_ARGS__)

/* Print "<msg>" alone on stderr (an analyses/ error line, which already
 * names the file) and exit 2. */
__attribute__((noreturn, format(printf, 1, 2)))
void die_plain(const char *fmt, ...);

/* Print "deepprof <cmd>: <msg>" and a one-line hint to `--help` on stderr,
 * then exit 2. For unknown options and wrong arguments. */
__attribute__((noreturn, format(printf, 2, 3)))
void usage_error(const char *cmd, const char *fmt, ...);

/* Where the options being parsed come from when not the command line
 * (`deepprof batch` parses feedback's options from a manifest:
 * "m.json: programs[1] 'fib'"): usage_error() says it before the message.
 * NULL: the command line. */
extern const char *dp_usage_where;

/* The value of option argv[*i] of subcommand cmd if it is the option named
 * shrt ("-o"; NULL: none) or lng ("--output"), else NULL. Takes "--long=V", "--long V",
 * "-sV" and "-s V" (then *i moves past V); a missing V is a usage error. */
const char *dp_opt_value(const char *cmd, int argc, char **argv, int *i, const char *shrt,
			 const char *lng);

/* A subcommand: argv[0] is its name. Returns the exit status. */
typedef int (*dp_cmd_fn)(int argc, char **argv);

int cmd_dump(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_progrep(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_feedback(int argc, char **argv);
int cmd_batch(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_test_pages(int argc, char **argv);
int cmd_record(int argc, char **argv);

/* The usage text of subcommand `name` (several lines), or NULL. */
const char *dp_cmd_usage(const char *name);

#endif
