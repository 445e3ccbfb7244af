/*
 * cmd_serve.c — `deepprof serve FILE [OTHER]`: browse a profile (and its
 * diff with OTHER) in a web browser, Mercury mdprof-style, over HTTP by
 * libmicrohttpd; the pages are analyses/pages.h's. Exits when idle or on
 * SIGTERM/SIGINT. Part of deepprof's command line. MIT licence.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "cli.h"
#include "pages.h"

extern char **environ;

static const char serve_usage[] =
	"usage: deepprof serve [options] FILE [OTHER]\n"
	"\n"
	"Serve the profile FILE (a Deep.data file) as web pages: the summary, a\n"
	"flame graph, top procedures, each procedure with every calling context\n"
	"told apart, its callers, cliques, call sites, recursion; with OTHER,\n"
	"also the diff of FILE (old) and OTHER (new) by context. Every page has a\n"
	"JSON twin (?format=json), what `deepprof report --json` prints. The\n"
	"first line on stdout is the address to open, http://ADDR:PORT/.\n"
	"FILE is read again when it changes.\n"
	"\n"
	"  --port=N          the port (default 0: a free one)\n"
	"  --bind=ADDR       the IPv4 address to listen on (default 127.0.0.1)\n"
	"  --idle-timeout=D  exit after D without a request: 90s, 5m, 1h, or\n"
	"                    seconds (default 30m; 0: never)\n"
	"  --open            open the address with xdg-open (or $BROWSER)\n"
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 after the idle timeout, SIGTERM or SIGINT; 2 bad usage, a\n"
	"missing or corrupt FILE, or an address that cannot be listened on.\n";

int cmd_serve(int argc, char **argv);

/* ---- state shared with the request threads ---- */

static struct dp_pages *pages;
static atomic_llong last_request;      /* CLOCK_MONOTONIC seconds */
static atomic_ullong requests;

static long long now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec;
}

/* Parse "90s", "5m", "1h", "2d" or seconds into *s. Returns 0 or -1. */
static int parse_duration(const char *v, long long *s)
{
	char *end;
	double d;
	long long mul = 1;

	errno = 0;
	d = strtod(v, &end);
	if (end == v || errno || d < 0 || v[0] == '-' || v[0] == '+')
		return -1;
	if (!strcmp(end, "") || !strcmp(end, "s"))
		mul = 1;
	else if (!strcmp(end, "m"))
		mul = 60;
	else if (!strcmp(end, "h"))
		mul = 3600;
	else if (!strcmp(end, "d"))
		mul = 86400;
	else
		return -1;
	if (d * (double)mul > 1e9)
		return -1;
	*s = (long long)(d * (double)mul + 0.5);
	return 0;
}

/* ---- HTTP ---- */

struct qbuf {
	char *s;
	size_t n, cap;
	bool failed;
};

static void qput(struct qbuf *b, const char *s, bool encode)
{
	for (; s && *s; s++) {
		char tmp[4];
		const char *out = s;
		size_t len = 1;
		unsigned char c = (unsigned char)*s;

		if (encode && !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
				strchr("-._~/:@,", c))) {
			snprintf(tmp, sizeof(tmp), "%%%02X", c);
			out = tmp;
			len = 3;
		}
		if (b->n + len + 1 > b->cap) {
			size_t cap = b->cap ? 2 * b->cap : 256;
			char *v = realloc(b->s, cap);

			if (!v) {
				b->failed = true;
				return;
			}
			b->s = v;
			b->cap = cap;
		}
		memcpy(b->s + b->n, out, len);
		b->n += len;
		b->s[b->n] = 0;
	}
}

/* libmicrohttpd gives the query decoded, key by key: encoded again into
 * the raw query dp_pages_answer takes. */
static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind, const char *key,
			       const char *value)
{
	struct qbuf *b = cls;

	(void)kind;
	if (b->n)
		qput(b, "&", false);
	qput(b, key, true);
	if (value) {
		qput(b, "=", false);
		qput(b, value, true);
	}
	return MHD_YES;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	struct MHD_Response *r;
	struct qbuf q = { 0 };
	char *body;
	size_t len;
	const char *ctype;
	int status;
	enum MHD_Result ret;

	(void)cls;
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)con_cls;
	atomic_store(&last_request, now_s());
	atomic_fetch_add(&requests, 1);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		static const char msg[] = "only GET and HEAD\n";

		r = MHD_create_response_from_buffer(sizeof(msg) - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
		if (!r)
			return MHD_NO;
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
		ret = MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, r);
		MHD_destroy_response(r);
		return ret;
	}
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_arg, &q);
	if (q.failed) {
		free(q.s);
		return MHD_NO;
	}
	status = dp_pages_answer(pages, url, q.s ? q.s : "", &body, &len, &ctype);
	free(q.s);
	if (!body) {
		static const char msg[] = "deepprof: out of memory\n";

		r = MHD_create_response_from_buffer(sizeof(msg) - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
		status = 500;
		ctype = "text/plain";
	} else {
		r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
		if (!r)
			free(body);
	}
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	ret = MHD_queue_response(c, (unsigned)status, r);
	MHD_destroy_response(r);
	return ret;
}

/* libmicrohttpd's own complaints (a client gone, ...) go to stderr once. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fprintf(stderr, "%s serve: ", dp_progname);
	vfprintf(stderr, fmt, ap);
}

/* A listening socket on addr:port, or die with why. */
static int listen_on(const char *addr, unsigned port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd, one = 1;

	if (!strcmp(addr, "localhost"))
		addr = "127.0.0.1";
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		usage_error("serve", "bad --bind '%s': want an IPv4 address such as 127.0.0.1", addr);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("serve: cannot make a socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		die("serve: cannot listen on %s:%u: %s%s", addr, port, strerror(e),
		    e == EADDRINUSE ? " (another server has it: choose another --port, or 0 for a free one)" : "");
	}
	if (listen(fd, 128) < 0) {
		int e = errno;

		close(fd);
		die("serve: cannot listen on %s:%u: %s", addr, port, strerror(e));
	}
	return fd;
}

static void open_browser(const char *url)
{
	const char *b = getenv("BROWSER");
	char *args[] = { (char *)(b && *b ? b : "xdg-open"), (char *)url, NULL };
	pid_t pid;

	if (posix_spawnp(&pid, args[0], NULL, NULL, args, environ) != 0)
		fprintf(stderr, "%s serve: cannot run %s to open %s: open it yourself\n", dp_progname,
			args[0], url);
}

int cmd_serve(int argc, char **argv)
{
	const char *pos[3] = { NULL }, *bind_addr = "127.0.0.1";
	int npos = 0, fd, sig;
	unsigned port = 0;
	long long idle = 30 * 60;
	bool open = false, opts_done = false;
	char err[600], last_err[600] = "";
	struct MHD_Daemon *daemon;
	const union MHD_DaemonInfo *info;
	sigset_t set;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (opts_done || a[0] != '-' || !a[1]) {
			if (npos == 2)
				usage_error("serve", "too many arguments: '%s'", a);
			pos[npos++] = a;
		} else if (!strcmp(a, "--")) {
			opts_done = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(serve_usage, stdout);
			return DP_EXIT_OK;
		} else if (!strcmp(a, "--open")) {
			open = true;
		} else if ((v = dp_opt_value("serve", argc, argv, &i, NULL, "--port"))) {
			char *end;
			unsigned long l;

			errno = 0;
			l = strtoul(v, &end, 10);
			if (!*v || *end || errno || l > 65535 || v[0] == '-')
				usage_error("serve", "bad --port '%s': want 0..65535", v);
			port = (unsigned)l;
		} else if ((v = dp_opt_value("serve", argc, argv, &i, NULL, "--bind"))) {
			bind_addr = v;
		} else if ((v = dp_opt_value("serve", argc, argv, &i, NULL, "--idle-timeout"))) {
			if (parse_duration(v, &idle) < 0)
				usage_error("serve", "bad --idle-timeout '%s': want e.g. 90s, 5m, 1h or seconds", v);
		} else {
			usage_error("serve", "unknown option '%s'", a);
		}
	}
	if (!npos)
		usage_error("serve", "no FILE given");
	fd = listen_on(bind_addr, port);        /* a bad address fails before a long read */
	if (!(pages = dp_pages_open(pos[0], pos[1], err, sizeof(err)))) {
		close(fd);
		if (pos[1] && (strstr(err, "different programs") || strstr(err, "different builds")))
			die_plain("%s (serve compares two runs of one program; deepprof diff --force"
				  " compares others)", err);
		die_plain("%s", err);
	}

	/* SIGTERM and SIGINT wait for the main thread (blocked before the
	 * request threads start, so they inherit the mask) */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	atomic_store(&last_request, now_s());
	daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG,
				  0, NULL, NULL, answer, NULL,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				  MHD_OPTION_LISTEN_SOCKET, fd,
				  MHD_OPTION_THREAD_POOL_SIZE, (unsigned)4,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned)1000,
				  MHD_OPTION_END);
	if (!daemon) {
		close(fd);
		dp_pages_close(pages);
		die("serve: libmicrohttpd cannot start on %s:%u", bind_addr, port);
	}
	info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
	port = info ? info->port : port;
	{
		char url[128];

		snprintf(url, sizeof(url), "http://%s:%u/",
			 !strcmp(bind_addr, "localhost") ? "127.0.0.1" : bind_addr, port);
		printf("%s\n", url);
		fflush(stdout);
		if (open)
			open_browser(url);
	}
	for (;;) {
		struct timespec one = { 1, 0 };
		int rc;

		sig = sigtimedwait(&set, NULL, &one);
		if (sig > 0) {
			fprintf(stderr, "%s serve: %s: stopping after %llu requests\n", dp_progname,
				strsignal(sig), (unsigned long long)atomic_load(&requests));
			break;
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;       /* the browser --open started */
		if (idle > 0 && now_s() - atomic_load(&last_request) >= idle) {
			fprintf(stderr, "%s serve: no request for %llds: stopping after %llu requests\n",
				dp_progname, idle, (unsigned long long)atomic_load(&requests));
			break;
		}
		rc = dp_pages_reload_if_changed(pages, err, sizeof(err));
		if (rc > 0) {
			fprintf(stderr, "%s serve: %s changed: read again\n", dp_progname, pos[0]);
			last_err[0] = 0;
		} else if (rc < 0 && strcmp(err, last_err)) {
			/* said once per new error: a file being written fails until done */
			fprintf(stderr, "%s serve: %s (the pages show the profile read before)\n",
				dp_progname, err);
			snprintf(last_err, sizeof(last_err), "%s", err);
		}
	}
	MHD_stop_daemon(daemon);
	dp_pages_close(pages);
	return DP_EXIT_OK;
}
