/*
 * cgi_answer.c — answers as deepprof-cgi sends them: error and note pages
 * (HTML, every message escaped) and the CGI response on stdout (Status:,
 * Content-Type:, Content-Length:, body). Part of deepprof's CGI program.
 * MIT licence.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgi.h"

/* ---- private prototypes ---- */
static void page(struct cgi_answer *a, int status, const char *title, const char *msg);
static size_t escape(char *out, const char *s);

const char *cgi_status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 414: return "URI Too Long";
	case 422: return "Unprocessable Content";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	default: return status < 400 ? "OK" : status < 500 ? "Bad Request" : "Internal Server Error";
	}
}

/* Write s HTML-escaped into out (which has room for 6 * strlen(s) + 1);
 * returns the length written. With out NULL, only counts. */
static size_t escape(char *out, const char *s)
{
	size_t n = 0;

	for (; *s; s++) {
		const char *rep = NULL;

		switch (*s) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		}
		if (rep) {
			if (out)
				memcpy(out + n, rep, strlen(rep));
			n += strlen(rep);
		} else {
			if (out)
				out[n] = *s;
			n++;
		}
	}
	if (out)
		out[n] = '\0';
	return n;
}

/* A small complete HTML page: title as heading, msg as a paragraph. If
 * memory runs out, the body is a fixed text. */
static void page(struct cgi_answer *a, int status, const char *title, const char *msg)
{
	static const char head[] = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>";
	static const char mid1[] = "</title></head>\n<body><h1>";
	static const char mid2[] = "</h1>\n<p class=\"";
	static const char mid3[] = "\">";
	static const char tail[] = "</p>\n</body></html>\n";
	const char *cls = status >= 400 ? "error" : "note";
	size_t tl = escape(NULL, title), ml = escape(NULL, msg);
	size_t len = sizeof(head) - 1 + tl + sizeof(mid1) - 1 + tl + sizeof(mid2) - 1 +
		     strlen(cls) + sizeof(mid3) - 1 + ml + sizeof(tail) - 1;
	char *b = malloc(len + 1), *p = b;

	memset(a, 0, sizeof(*a));
	a->status = status;
	snprintf(a->ctype, sizeof(a->ctype), "text/html; charset=utf-8");
	if (!b) {
		static const char oom[] = "out of memory\n";

		a->body = strdup(oom);
		a->len = a->body ? strlen(oom) : 0;
		snprintf(a->ctype, sizeof(a->ctype), "text/plain");
		return;
	}
	p = stpcpy(p, head);
	p += escape(p, title);
	p = stpcpy(p, mid1);
	p += escape(p, title);
	p = stpcpy(p, mid2);
	p = stpcpy(p, cls);
	p = stpcpy(p, mid3);
	p += escape(p, msg);
	p = stpcpy(p, tail);
	a->body = b;
	a->len = (size_t)(p - b);
}

void cgi_answer_error(struct cgi_answer *a, int status, const char *fmt, ...)
{
	char msg[2048], title[80];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(title, sizeof(title), "deepprof: %d %s", status, cgi_status_text(status));
	page(a, status, title, msg);
}

void cgi_answer_note(struct cgi_answer *a, const char *title, const char *msg)
{
	page(a, 200, title, msg);
}

void cgi_answer_free(struct cgi_answer *a)
{
	if (!a)
		return;
	free(a->body);
	a->body = NULL;
	a->len = 0;
}

int cgi_answer_write(const struct cgi_answer *a, int head)
{
	char hdr[256];
	int n = snprintf(hdr, sizeof(hdr), "Status: %d %s\r\nContent-Type: %s\r\n"
			 "Content-Length: %zu\r\nCache-Control: no-store\r\n\r\n",
			 a->status, cgi_status_text(a->status), a->ctype, a->len);

	if (fwrite(hdr, 1, (size_t)n, stdout) != (size_t)n)
		return -1;
	if (!head && a->len && fwrite(a->body, 1, a->len, stdout) != a->len)
		return -1;
	return fflush(stdout) == 0 ? 0 : -1;
}
