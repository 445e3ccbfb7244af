/*
 * write_profile.h — write a struct dpa_profile back to a Deep.data v1 file
 * (schemas/deep-data.md), atomically. Part of deepprof's analyses library.
 * MIT licence.
 */
#ifndef DPA_WRITE_PROFILE_H
#define DPA_WRITE_PROFILE_H

#include "profile.h"

/*
 * Write *p to `path` as Deep.data v1: HEADER, MODULE*, PS*, CSS*, PD*, CSD*,
 * THREAD*, END (with the record counts and the CRC-32 of everything before
 * END). Records are written in id order, so ids are kept.
 *
 * The file is written to a temporary file in the directory of `path` and
 * renamed over `path` only when complete, so a failure never leaves a partial
 * file behind. Reads *p only (p->path, out_perm and in_perm are not used).
 * Returns 0, or -1 with one line in *err naming `path` and the problem.
 */
int dpa_profile_write(const struct dpa_profile *p, const char *path, struct dpa_error *err);

#endif
