/*
 * deepprof.h — the public interface of libprof, deepprof's runtime. Link a
 * program compiled with the deepprof GCC plugin (deepprof-cc, ABI v1 of
 * compiler-plugins/deepprof-abi.h) or with -finstrument-functions against
 * libprof and it writes Deep.data (schemas/deep-data.md) at exit, on
 * SIGINT/SIGTERM, or on demand. (Use one or the other in a program, not both.)
 * Part of deepprof's libprof. MIT licence.
 *
 *     deepprof-cc -O2 -g prog.c                  (plugin mode: links libprof)
 *     cc -finstrument-functions -g prog.c $(pkg-config --cflags --libs libprof)
 *
 * Environment:
 *   DEEPPROF_FILE  where to write (default "Deep.data" in the current
 *                  directory); "%p" becomes the pid. A forked child writes
 *                  its own profile, counted from the fork, to the same name
 *                  plus ".<pid>" unless the name has "%p".
 *   DEEPPROF_HZ    CPU-time clock ticks per second asked for, per thread
 *                  (default 1000; 0 turns the timer off). The kernel may
 *                  deliver fewer: the file records the measured ns per tick.
 *
 * libprof also counts malloc, calloc, realloc, aligned_alloc, posix_memalign,
 * memalign and valloc (it interposes them), installs a SIGPROF handler while
 * the timer is on, and a SIGINT/SIGTERM handler where the program left the
 * default (it writes the profile, then dies of the signal as it would have).
 * Its own problems are reported on stderr as one "deepprof: ..." line; it
 * never exits or crashes the program.
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
