/*
 * tempfile.c — a temporary file beside the file it will replace
 * (tempfile.h). Part of deepprof's analyses library. MIT licence.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tempfile.h"

int dpa_temp_create(const char *path, char **tmp)
{
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		*tmp = NULL;
		return open(path, O_WRONLY | O_CLOEXEC);
	}
	size_t n = strlen(path);
	char *t = malloc(n + sizeof(".tmpXXXXXX"));
	mode_t mask;
	int fd, e;

	*tmp = NULL;
	if (!t) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(t, path, n);
	memcpy(t + n, ".tmpXXXXXX", sizeof(".tmpXXXXXX"));
	fd = mkstemp(t);
	if (fd < 0) {
		e = errno;
		free(t);
		errno = e;
		return -1;
	}
	/* mkstemp makes the file 0600; give it the mode a plain create would */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0) {
		e = errno;
		close(fd);
		unlink(t);
		free(t);
		errno = e;
		return -1;
	}
	*tmp = t;
	return fd;
}

int dpa_temp_probe(const char *path)
{
	struct stat st;
	char *tmp;
	int fd;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return access(path, W_OK);
	if ((fd = dpa_temp_create(path, &tmp)) < 0)
		return -1;
	close(fd);
	dpa_temp_discard(tmp);
	free(tmp);
	return 0;
}

int dpa_temp_commit(const char *tmp, const char *path)
{
	return tmp ? rename(tmp, path) : 0;
}

void dpa_temp_discard(const char *tmp)
{
	if (tmp)
		unlink(tmp);
}
