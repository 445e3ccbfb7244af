/*
 * tempfile.h — the first half of writing a file atomically: a new
 * temporary file beside it (same directory, so rename() stays in one file
 * system) with the mode a plain create would give. The caller writes it,
 * then renames it over the file, or unlinks it on failure.
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_TEMPFILE_H
#define DPA_TEMPFILE_H

/* Create "<path>.tmpXXXXXX" (mkstemp) with mode 0666 & ~umask: its open
 * fd, and its name in *tmp (malloc'ed; the caller frees it). -1 with errno
 * set and *tmp NULL when it cannot be made (ENOMEM included). */
int dpa_temp_create(const char *path, char **tmp);

#endif
