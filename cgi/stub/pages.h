/*
 * pages.h — TEMPORARY stand-in for cli/pages.h (branch serve), so that
 * deepprof-cgi's protocol can be built and tested before the page module
 * lands; removed when it does. Part of deepprof's CGI program. MIT licence.
 */
#ifndef DP_PAGES_H
#define DP_PAGES_H
#include <stddef.h>
struct dp_pages;
struct dp_pages *dp_pages_open(const char *file, const char *other, char *err, size_t errlen);
int dp_pages_reload_if_changed(struct dp_pages *pg, char *err, size_t errlen);
int dp_pages_answer(struct dp_pages *pg, const char *path, const char *query, char **body,
		    size_t *len, const char **ctype);
void dp_pages_close(struct dp_pages *pg);
#endif
