/*
 * cgi_pages.c — deepprof-cgi's adapter to the page module (pages.h): the
 * data of one server, read again when the file changes or on restart, with
 * answers running in parallel under a read lock and reloads alone under
 * the write lock. Part of deepprof's CGI program. MIT licence.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgi.h"
#include "pages.h"

/* rw guards pg, st and script: answers hold it for reading, a reload or
 * a change of the links' base for writing. st is the file as last read, to
 * see cheaply (one stat) that it changed. Links in pages are script + page
 * path + "?" + the page's query + suffix ("file=" and the data file's
 * path, URL-encoded), so they come back to this program for this file. */
struct cgi_data {
	pthread_rwlock_t rw;
	struct dp_pages *pg;
	char *file;
	struct stat st;
	char *script;           /* the base the links have now; NULL: none yet */
	char *suffix;           /* "file=..." */
};

/* ---- private prototypes ---- */
static int same_file(const struct stat *a, const struct stat *b);
static int refresh(struct cgi_data *d, struct cgi_answer *a);
static char *file_suffix(const char *file);
static int rebase(struct cgi_data *d, const char *script, struct cgi_answer *a);

/* "file=" and file URL-encoded (all but unreserved characters and '/'). */
static char *file_suffix(const char *file)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = malloc(5 + 3 * strlen(file) + 1), *o = out;

	if (!out)
		return NULL;
	o = stpcpy(o, "file=");
	for (const unsigned char *s = (const unsigned char *)file; *s; s++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		    strchr("-._~/", *s)) {
			*o++ = (char)*s;
		} else {
			*o++ = '%';
			*o++ = hex[*s >> 4];
			*o++ = hex[*s & 15];
		}
	}
	*o = '\0';
	return out;
}

/* Make the links of the pages start with script, if they do not yet (the
 * same program may be reached under two names). dp_pages_set_base may
 * not run beside an answer: it runs under the write lock. */
static int rebase(struct cgi_data *d, const char *script, struct cgi_answer *a)
{
	int same, rc = 0;

	pthread_rwlock_rdlock(&d->rw);
	same = d->script && !strcmp(d->script, script);
	pthread_rwlock_unlock(&d->rw);
	if (same)
		return 0;
	pthread_rwlock_wrlock(&d->rw);
	if (!d->script || strcmp(d->script, script)) {
		char *copy = strdup(script);

		if (!copy || dp_pages_set_base(d->pg, script, d->suffix)) {
			free(copy);
			rc = -1;
		} else {
			free(d->script);
			d->script = copy;
		}
	}
	pthread_rwlock_unlock(&d->rw);
	if (rc)
		cgi_answer_error(a, 500, "out of memory");
	return rc;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

struct cgi_data *cgi_data_open(const char *file, struct cgi_answer *a)
{
	struct cgi_data *d = calloc(1, sizeof(*d));
	char err[1024] = "";

	if (!d || !(d->file = strdup(file)) || !(d->suffix = file_suffix(file))) {
		if (d)
			free(d->file);
		free(d);
		cgi_answer_error(a, 500, "out of memory");
		return NULL;
	}
	if (stat(file, &d->st) != 0) {
		cgi_answer_error(a, 404, "%s: cannot open the data file: %s", file, strerror(errno));
		goto fail;
	}
	d->pg = dp_pages_open(file, NULL, err, sizeof(err));
	if (!d->pg) {
		cgi_answer_error(a, 422, "%s", err[0] ? err : "cannot read the data file");
		goto fail;
	}
	pthread_rwlock_init(&d->rw, NULL);
	return d;
fail:
	free(d->suffix);
	free(d->file);
	free(d);
	return NULL;
}

/* If the file is no longer the one read, read it again (under the write
 * lock; a concurrent answer waits). Returns 0, or -1 with *a an error. */
static int refresh(struct cgi_data *d, struct cgi_answer *a)
{
	struct stat now;
	char err[1024] = "";
	int rc = 0;

	if (stat(d->file, &now) != 0) {
		cgi_answer_error(a, 404, "%s: the data file is gone: %s", d->file, strerror(errno));
		return -1;
	}
	pthread_rwlock_rdlock(&d->rw);
	rc = same_file(&now, &d->st);
	pthread_rwlock_unlock(&d->rw);
	if (rc)
		return 0;
	pthread_rwlock_wrlock(&d->rw);
	if (!same_file(&now, &d->st)) {
		if (dp_pages_reload_if_changed(d->pg, err, sizeof(err)) < 0) {
			pthread_rwlock_unlock(&d->rw);
			cgi_answer_error(a, 422, "the data file changed and cannot be read: %s",
					 err[0] ? err : d->file);
			return -1;
		}
		d->st = now;
	}
	pthread_rwlock_unlock(&d->rw);
	return 0;
}

void cgi_data_answer(struct cgi_data *d, const char *script, const char *file,
		     const char *path, const char *query, struct cgi_answer *a)
{
	const char *ctype = NULL;
	char *body = NULL;
	size_t len = 0;
	int status;

	(void)file;
	if (refresh(d, a) || rebase(d, script, a))
		return;
	pthread_rwlock_rdlock(&d->rw);
	status = dp_pages_answer(d->pg, path, query, &body, &len, &ctype);
	pthread_rwlock_unlock(&d->rw);
	memset(a, 0, sizeof(*a));
	if (!body) {
		cgi_answer_error(a, status >= 400 ? status : 500, "%s: no page", path);
		return;
	}
	a->status = status;
	snprintf(a->ctype, sizeof(a->ctype), "%s", ctype ? ctype : "text/html; charset=utf-8");
	a->body = body;
	a->len = len;
}

int cgi_data_reopen(struct cgi_data *d, struct cgi_answer *a)
{
	char err[1024] = "";
	struct dp_pages *pg = dp_pages_open(d->file, NULL, err, sizeof(err));
	struct stat st;
	int rc;

	if (!pg) {
		cgi_answer_error(a, 422, "%s", err[0] ? err : "cannot read the data file");
		return -1;
	}
	pthread_rwlock_rdlock(&d->rw);
	rc = dp_pages_set_base(pg, d->script, d->suffix);
	pthread_rwlock_unlock(&d->rw);
	if (rc) {
		dp_pages_close(pg);
		cgi_answer_error(a, 500, "out of memory");
		return -1;
	}
	pthread_rwlock_wrlock(&d->rw);
	dp_pages_close(d->pg);
	d->pg = pg;
	if (stat(d->file, &st) == 0)
		d->st = st;
	pthread_rwlock_unlock(&d->rw);
	return 0;
}

void cgi_data_close(struct cgi_data *d)
{
	if (!d)
		return;
	dp_pages_close(d->pg);
	pthread_rwlock_destroy(&d->rw);
	free(d->script);
	free(d->suffix);
	free(d->file);
	free(d);
}
