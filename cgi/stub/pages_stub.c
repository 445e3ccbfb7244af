/*
 * pages_stub.c — TEMPORARY stand-in for the page module (branch serve):
 * reads the profile with libdpa and answers every page with its counts.
 * Removed when cli/pages.h lands. Part of deepprof's CGI program. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pages.h"
#include "profile.h"

struct dp_pages {
	char *file;
	struct stat st;
	unsigned long long calls;
	unsigned n_ps, n_csd;
};

static int load(struct dp_pages *pg, char *err, size_t errlen)
{
	struct dpa_profile p;
	struct dpa_error e;

	if (stat(pg->file, &pg->st) || dpa_profile_read(&p, pg->file, &e)) {
		snprintf(err, errlen, "%s", e.msg);
		return -1;
	}
	pg->calls = 0;
	for (uint32_t c = 1; c <= p.n_csd; c++)
		pg->calls += dpa_own(&p, c, DPA_CALLS);
	pg->n_ps = p.n_ps;
	pg->n_csd = p.n_csd;
	dpa_profile_release(&p);
	return 0;
}

struct dp_pages *dp_pages_open(const char *file, const char *other, char *err, size_t errlen)
{
	struct dp_pages *pg = calloc(1, sizeof(*pg));

	(void)other;
	if (!pg || !(pg->file = strdup(file)) || load(pg, err, errlen)) {
		if (pg)
			free(pg->file);
		free(pg);
		return NULL;
	}
	return pg;
}

int dp_pages_reload_if_changed(struct dp_pages *pg, char *err, size_t errlen)
{
	struct stat st;

	if (stat(pg->file, &st) == 0 && st.st_ino == pg->st.st_ino &&
	    st.st_mtim.tv_nsec == pg->st.st_mtim.tv_nsec && st.st_mtime == pg->st.st_mtime &&
	    st.st_size == pg->st.st_size)
		return 0;
	return load(pg, err, errlen) ? -1 : 1;
}

int dp_pages_answer(struct dp_pages *pg, const char *path, const char *query, char **body,
		    size_t *len, const char **ctype)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "<!DOCTYPE html>\n<html><body><p>path=%s query=%s "
			 "calls=%llu ps=%u csd=%u</p></body></html>\n", path, query, pg->calls,
			 pg->n_ps, pg->n_csd);

	*ctype = "text/html; charset=utf-8";
	*body = strdup(buf);
	*len = (size_t)n;
	return strcmp(path, "/") && strncmp(path, "/proc/", 6) ? 404 : 200;
}

void dp_pages_close(struct dp_pages *pg)
{
	if (pg)
		free(pg->file);
	free(pg);
}
