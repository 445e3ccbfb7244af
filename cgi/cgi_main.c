/*
 * cgi_main.c — deepprof-cgi, the deep profiler's pages behind an existing
 * web server (Mercury's mdprof_cgi): read the request from the CGI
 * environment, have the data file's server answer it (cgi_client.c), write
 * the response. Part of deepprof's CGI program. MIT licence.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgi.h"

struct cgi_config cgi_config = { .timeout_s = 30 * 60, .wait_s = 300 };

static const char usage[] =
	"usage: deepprof-cgi            (run by a web server, as a CGI program)\n"
	"\n"
	"Answers the deep profiler's pages for a web server: the URL names the data\n"
	"file and the page, SCRIPT/PAGE?file=/abs/Deep.data (or Mercury's\n"
	"SCRIPT?CMD&PREFS&FILE). The first query for a file reads it, answers and\n"
	"leaves a server behind that answers the next ones; it stops after 30\n"
	"minutes without a query, or on the page quit. restart reads the file again;\n"
	"timeout/N sets the idle time in minutes (timeout/Ns: seconds).\n"
	"\n"
	"Environment (set them in the web server's configuration):\n"
	"  DEEPPROF_CGI_DIR      directory of the servers' FIFOs and locks\n"
	"                        (default $TMPDIR or /var/tmp, /deepprof-cgi-UID)\n"
	"  DEEPPROF_CGI_ROOT     only show data files under this directory\n"
	"  DEEPPROF_CGI_TIMEOUT  idle seconds before a new server stops (1800)\n"
	"  DEEPPROF_CGI_WAIT     seconds a query waits for its turn or answer (300)\n";

/* The positive integer in environment variable name, or def. */
static int env_int(const char *name, int def)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtol(s, &end, 10);
	return errno || *end || v <= 0 || v > 7 * 24 * 3600 ? def : (int)v;
}

int main(int argc, char **argv)
{
	struct cgi_request r;
	struct cgi_answer a = { 0 };
	int head, rc;

	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			fputs(usage, stdout);
			return 0;
		}
		fprintf(stderr, "deepprof-cgi: takes no arguments: a web server runs it "
			"(try 'deepprof-cgi --help')\n");
		return 2;
	}
	if (!getenv("GATEWAY_INTERFACE") && !getenv("REQUEST_METHOD")) {
		fprintf(stderr, "deepprof-cgi: not run as a CGI program (no REQUEST_METHOD); "
			"see 'deepprof-cgi --help'\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	cgi_config.timeout_s = env_int("DEEPPROF_CGI_TIMEOUT", cgi_config.timeout_s);
	cgi_config.wait_s = env_int("DEEPPROF_CGI_WAIT", cgi_config.wait_s);
	if (cgi_request_parse(&r, &a) == 0) {
		head = r.head;
		cgi_client_run(&r, &a);
		cgi_request_free(&r);
	} else {
		const char *m = getenv("REQUEST_METHOD");

		head = m && !strcmp(m, "HEAD");
	}
	if (!a.body && !a.status)
		cgi_answer_error(&a, 500, "no answer");
	rc = cgi_answer_write(&a, head) ? 1 : 0;
	cgi_answer_free(&a);
	cgi_client_done();
	return rc;
}
