/*
 * cmd_test_pages.c — `deepprof test-pages FILE [OTHER]` (Mercury's
 * mdprof_test): render every page `deepprof serve` can show, HTML and JSON,
 * and fail on any page that is not answered with 200.
 * Part of deepprof's command line. MIT licence.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "pages.h"

int cmd_test_pages(int argc, char **argv);

static const char test_pages_usage[] =
	"usage: deepprof test-pages [--verbose] [--base=PATH [--suffix=QUERY]] FILE [OTHER]\n"
	"\n"
	"Render every page `deepprof serve FILE [OTHER]` can show (each\n"
	"procedure, its callers by every grouping, each clique, call site and\n"
	"module, every report and preference), as HTML and as JSON, and check\n"
	"that each is answered (status 200, a body that is not empty). Prints\n"
	"one line per failing page and a count.\n"
	"\n"
	"  --base=PATH     links under PATH (dp_pages_set_base, as deepprof-cgi\n"
	"                  sets it); every link of every page must start with it\n"
	"  --suffix=QUERY  and carry QUERY (e.g. file=x.data)\n"
	"  -v, --verbose   print every page's status, size and time\n"
	"  -h, --help      show this help\n"
	"\n"
	"Exit status: 0 every page rendered, 1 some page failed, 2 bad usage or a\n"
	"missing or corrupt FILE.\n";

struct tally {
	struct dp_pages *pg;
	bool verbose;
	const char *base, *suffix;
	unsigned long pages, failed;
	unsigned long long bytes;
	double slowest;
	char slowest_url[256];
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Does some href in the page not start with --base or lack --suffix? */
static bool bad_links(const struct tally *t, const char *body)
{
	for (const char *h = strstr(body, "href=\""); h; h = strstr(h, "href=\"")) {
		const char *end;

		h += 6;
		end = strchr(h, '"');
		if (!end)
			return true;
		if (!strncmp(h, "data:", 5))
			continue;       /* the page's own empty icon */
		if (strncmp(h, t->base, strlen(t->base)) ||
		    (t->suffix && !memmem(h, (size_t)(end - h), t->suffix, strlen(t->suffix)))) {
			printf("     bad link: %.*s\n", (int)(end - h > 200 ? 200 : end - h), h);
			return true;
		}
	}
	return false;
}

/* One page, as HTML and as JSON. */
static int visit(void *ctx, const char *path, const char *query)
{
	struct tally *t = ctx;

	for (int json = 0; json < 2; json++) {
		char *q = NULL, *body;
		size_t len;
		const char *ctype;
		double t0 = now(), dt;
		int st;

		if (asprintf(&q, "%s%s%s", query, *query && json ? "&" : "", json ? "format=json" : "") < 0)
			return -1;
		st = dp_pages_answer(t->pg, path, q, &body, &len, &ctype);
		dt = now() - t0;
		t->pages++;
		t->bytes += len;
		if (dt > t->slowest) {
			t->slowest = dt;
			snprintf(t->slowest_url, sizeof(t->slowest_url), "%s%s%s", path, *q ? "?" : "", q);
		}
		if (st == 200 && body && !json && t->base && bad_links(t, body)) {
			t->failed++;
			printf("FAIL %s%s%s: a link outside --base or without --suffix\n", path, *q ? "?" : "", q);
		} else if (st != 200 || !body || !len) {
			t->failed++;
			printf("FAIL %d %s%s%s: %.300s\n", st, path, *q ? "?" : "", q,
			       body ? body : "(no body)");
		} else if (t->verbose) {
			printf("ok   %d %7zu bytes %7.2f ms %s%s%s\n", st, len, dt * 1e3, path, *q ? "?" : "", q);
		}
		free(body);
		free(q);
	}
	return 0;
}

int cmd_test_pages(int argc, char **argv)
{
	const char *pos[2] = { NULL };
	int npos = 0;
	struct tally t = { 0 };
	char err[600];
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1]) {
			if (npos == 2)
				usage_error("test-pages", "too many arguments: '%s'", a);
			pos[npos++] = a;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(test_pages_usage, stdout);
			return DP_EXIT_OK;
		} else if (!strncmp(a, "--base=", 7)) {
			t.base = a + 7;
		} else if (!strncmp(a, "--suffix=", 9)) {
			t.suffix = a + 9;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			t.verbose = true;
		} else {
			usage_error("test-pages", "unknown option '%s'", a);
		}
	}
	if (!npos)
		usage_error("test-pages", "no FILE given");
	if (t.suffix && !t.base)
		usage_error("test-pages", "--suffix needs --base");
	if (!(t.pg = dp_pages_open(pos[0], pos[1], err, sizeof(err))))
		die_plain("%s", err);
	if (t.base && dp_pages_set_base(t.pg, t.base, t.suffix) < 0)
		die_status(DP_EXIT_FAIL, "test-pages: out of memory");
	rc = dp_pages_each(t.pg, visit, &t);
	dp_pages_close(t.pg);
	if (rc)
		die_status(DP_EXIT_FAIL, "test-pages: out of memory");
	printf("test-pages: %lu pages, %lu failed, %llu bytes; slowest %.1f ms (%s)\n", t.pages,
	       t.failed, t.bytes, t.slowest * 1e3, t.slowest_url);
	return t.failed ? DP_EXIT_FAIL : DP_EXIT_OK;
}
