/*
 * names.h — find procedures by the name a user types: `name` or
 * `file.c:name` (file: a path, or any tail of one after a '/'), and the close
 * matches to suggest when a name is unknown.
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_NAMES_H
#define DPA_NAMES_H

#include "profile.h"

/*
 * The procedures (ps ids, ascending) that `spec` names in *p, which should be
 * symbolized first: `name` or `file:name`, where file is a path or its last
 * components; a name may hold colons (ns::f, file.c:ns::f: each colon from
 * the left is tried as the file's end, then the whole spec as a name). A
 * bare name that several files define is ambiguous: the
 * error lists them as file:name. *out is malloc'ed (the caller frees it) and
 * *n > 0 on success. Returns 0, or -1 with err naming p's file: unknown name
 * (with up to 5 close matches: edit distance at most a third of the name,
 * or containing it), ambiguous name, out of memory.
 */
int dpa_names_find(const struct dpa_profile *p, const char *spec, uint32_t **out,
		   uint32_t *n, struct dpa_error *err);

/* Edit (Levenshtein) distance of a and b, stopping early once it exceeds
 * max (it then returns max + 1). */
unsigned dpa_names_distance(const char *a, const char *b, unsigned max);

#endif
