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
 * set and *tmp NULL when it cannot be made (ENOMEM included). A path that
 * exists and is not a regular file (/dev/null, a FIFO, /dev/stdout on a
 * pipe) is opened for writing in place instead, *tmp NULL: renaming over it
 * would replace the device with a regular file. */
int dpa_temp_create(const char *path, char **tmp);

/* Whether path can be written as dpa_temp_create would: 0, or -1 with
 * errno set (ENOMEM included). A path written in place is only checked
 * with access(), never opened: opening a FIFO would wait for a reader, and
 * closing it hand that reader an empty file. */
int dpa_temp_probe(const char *path);

/* The second half: rename tmp over path (0), or nothing when the file was
 * written in place (tmp NULL); -1 with errno set. */
int dpa_temp_commit(const char *tmp, const char *path);

/* On failure: remove tmp, if there is one. */
void dpa_temp_discard(const char *tmp);

#endif
