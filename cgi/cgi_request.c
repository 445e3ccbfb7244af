/*
 * cgi_request.c — what an HTTP request asks of deepprof-cgi, read from the
 * CGI environment: the data file, the page and its parameters. Takes
 * SCRIPT/PAGE?file=PATH&... and Mercury's SCRIPT?CMD&PREFS&FILE.
 * Part of deepprof's CGI program. MIT licence.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgi.h"
#include "utf8.h"

/* ---- private prototypes ---- */
static int has_control(const char *s);
static int mercury_shape(const char *qs, struct cgi_request *r, char **file,
			 struct cgi_answer *a);
static int keyed_shape(const char *qs, struct cgi_request *r, char **file,
		       struct cgi_answer *a);
static int resolve_file(const char *given, struct cgi_request *r, struct cgi_answer *a);


char *cgi_url_decode(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '+') {
			*o++ = ' ';
		} else if (s[i] == '%') {
			int hi = i + 1 < n ? dpa_hex_digit((unsigned char)s[i + 1]) : -1;
			int lo = i + 2 < n ? dpa_hex_digit((unsigned char)s[i + 2]) : -1;
			int h = hi < 0 || lo < 0 ? -1 : hi * 16 + lo;

			if (h <= 0) {   /* a bad escape, or an encoded NUL */
				free(out);
				return NULL;
			}
			*o++ = (char)h;
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

/* Does s hold a control character (which no page path or parameter needs,
 * and which the wire frames and the logs had better not see)? */
static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* Mercury's shape, a query string without '=': CMD&PREFS&FILE, CMD&FILE
 * or FILE. CMD "menu" is the first page; PREFS are Mercury's preference
 * fields, which deepprof's pages do not take: they are dropped. */
static int mercury_shape(const char *qs, struct cgi_request *r, char **file,
			 struct cgi_answer *a)
{
	const char *f[3];
	size_t nf = 0, len[3];
	const char *p = qs;

	for (;;) {
		const char *amp = strchr(p, '&');

		if (nf == 3) {
			cgi_answer_error(a, 400, "a query without '=' has Mercury's shape CMD&PREFS&FILE: "
					 "too many '&' fields");
			return -1;
		}
		f[nf] = p;
		len[nf++] = amp ? (size_t)(amp - p) : strlen(p);
		if (!amp)
			break;
		p = amp + 1;
	}
	*file = cgi_url_decode(f[nf - 1], len[nf - 1]);
	if (nf > 1) {
		char *cmd = cgi_url_decode(f[0], len[0]);

		if (cmd && (!strcmp(cmd, "menu") || !*cmd)) {
			cmd[0] = '\0';
		}
		if (cmd) {
			r->path = malloc(strlen(cmd) + 2);
			if (r->path) {
				r->path[0] = '/';
				strcpy(r->path + 1, cmd);
			}
		}
		free(cmd);
		if (!r->path) {
			free(*file);
			*file = NULL;
			cgi_answer_error(a, 400, "bad %%-escape in the command of the query");
			return -1;
		}
	}
	if (!*file) {
		cgi_answer_error(a, 400, "bad %%-escape in the file name of the query");
		return -1;
	}
	return 0;
}

/* The keyed shape: name=value pairs separated by '&' or ';'. file= names
 * the data file (once); the others are the page's, handed on as they
 * came, in their order. */
static int keyed_shape(const char *qs, struct cgi_request *r, char **file,
		       struct cgi_answer *a)
{
	size_t n = strlen(qs), ql = 0;
	const char *p = qs;

	r->query = malloc(n + 1);
	if (!r->query) {
		cgi_answer_error(a, 500, "out of memory");
		return -1;
	}
	while (*p) {
		size_t l = strcspn(p, "&;");

		if (l > 5 && !strncmp(p, "file=", 5)) {
			if (*file) {
				cgi_answer_error(a, 400, "the query names the data file twice (file=)");
				return -1;
			}
			*file = cgi_url_decode(p + 5, l - 5);
			if (!*file) {
				cgi_answer_error(a, 400, "bad %%-escape in file= of the query");
				return -1;
			}
		} else if (l) {
			if (ql)
				r->query[ql++] = '&';
			memcpy(r->query + ql, p, l);
			ql += l;
		}
		p += l;
		if (*p)
			p++;
	}
	r->query[ql] = '\0';
	return 0;
}

/* The canonical path of the data file, checked: absolute, there, a
 * regular file, and under DEEPPROF_CGI_ROOT when that is set. */
static int resolve_file(const char *given, struct cgi_request *r, struct cgi_answer *a)
{
	const char *root = getenv("DEEPPROF_CGI_ROOT");
	struct stat st;

	if (given[0] != '/') {
		cgi_answer_error(a, 400, "%s: the data file must be named by its absolute path", given);
		return -1;
	}
	r->file = realpath(given, NULL);
	if (!r->file) {
		int e = errno;

		cgi_answer_error(a, e == EACCES ? 403 : 404, "%s: cannot open the data file: %s",
				 given, strerror(e));
		return -1;
	}
	if (root && *root) {
		char *croot = realpath(root, NULL);
		size_t n = croot ? strlen(croot) : 0;
		int inside = croot && !strncmp(r->file, croot, n) &&
			     (r->file[n] == '/' || (n == 1 && croot[0] == '/'));

		free(croot);
		if (!inside) {
			cgi_answer_error(a, 403, "%s: not under the directory this server shows "
					 "profiles from (DEEPPROF_CGI_ROOT)", given);
			return -1;
		}
	}
	if (stat(r->file, &st) != 0 || !S_ISREG(st.st_mode)) {
		cgi_answer_error(a, 404, "%s: not a regular file", given);
		return -1;
	}
	return 0;
}

int cgi_request_parse(struct cgi_request *r, struct cgi_answer *a)
{
	const char *method = getenv("REQUEST_METHOD");
	const char *qs = getenv("QUERY_STRING");
	const char *pi = getenv("PATH_INFO");
	const char *sn = getenv("SCRIPT_NAME");
	char *file = NULL;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (!method || (strcmp(method, "GET") && strcmp(method, "HEAD"))) {
		cgi_answer_error(a, 405, "method %s not allowed: deepprof-cgi answers GET and HEAD",
				 method ? method : "(none)");
		return -1;
	}
	r->head = !strcmp(method, "HEAD");
	qs = qs ? qs : "";
	if (has_control(qs) || (pi && has_control(pi)) || (sn && has_control(sn))) {
		cgi_answer_error(a, 400, "control characters in the request");
		goto out;
	}
	r->script = strdup(sn ? sn : "");
	if (!r->script)
		goto oom;
	if (*qs && !strchr(qs, '=')) {
		if (mercury_shape(qs, r, &file, a))
			goto out;
	} else if (keyed_shape(qs, r, &file, a)) {
		goto out;
	}
	if (!r->path)
		r->path = strdup(pi && *pi ? pi : "/");
	if (!r->query)
		r->query = strdup("");
	if (!r->path || !r->query)
		goto oom;
	if (r->path[0] != '/') {
		cgi_answer_error(a, 400, "the page path must start with '/'");
		goto out;
	}
	if (!file || !*file) {
		cgi_answer_error(a, 400, "no data file named: add ?file=/path/to/Deep.data to the URL");
		goto out;
	}
	if (has_control(file)) {
		cgi_answer_error(a, 400, "control characters in the data file's name");
		goto out;
	}
	if (resolve_file(file, r, a))
		goto out;
	rc = 0;
	goto out;
oom:
	cgi_answer_error(a, 500, "out of memory");
out:
	free(file);
	if (rc)
		cgi_request_free(r);
	return rc;
}

void cgi_request_free(struct cgi_request *r)
{
	free(r->file);
	free(r->path);
	free(r->query);
	free(r->script);
	memset(r, 0, sizeof(*r));
}
