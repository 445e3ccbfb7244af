/*
 * deepprof.h — the public interface of libprof, deepprof's runtime. Link a
 * program compiled with -finstrument-functions against libprof and it writes
 * Deep.data (schemas/deep-data.md) at exit, on SIGINT/SIGTERM, or on demand.
 * Part of deepprof's libprof. MIT licence.
 */
#ifndef DEEPPROF_H
#define DEEPPROF_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Write a snapshot of the profile so far (header "final": false) to path;
 * NULL means the default: $DEEPPROF_FILE with %p replaced by the pid, else
 * "Deep.data" in the current directory (a forked child appends ".<pid>" when
 * the name has no %p). The file is written atomically (temporary + rename).
 * Returns 0, or -1 after printing one "deepprof:" line on stderr; it never
 * exits or crashes the program. Recording goes on afterwards.
 */
int dp_write(const char *path);

#ifdef __cplusplus
}
#endif

#endif
