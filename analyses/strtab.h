/*
 * strtab.h — interned strings for a profile: each distinct string is stored
 * once in an arena and lives until dpa_strtab_free(). Private to analyses/.
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_STRTAB_H
#define DPA_STRTAB_H

#include <stddef.h>

struct dpa_strtab;

/* A new, empty table, or NULL when out of memory. */
struct dpa_strtab *dpa_strtab_new(void);

/* The interned copy of s[0..len) (NUL-terminated), or NULL when out of
 * memory. The table owns it; equal strings give the same pointer. */
const char *dpa_strtab_intern(struct dpa_strtab *t, const char *s, size_t len);

/* The id (1 ..) of the interned copy of s[0..len); 0 when out of memory. */
uint32_t dpa_strtab_id(struct dpa_strtab *t, const char *s, size_t len);

/* The string with id `id` (1 .. as returned above); NULL for 0 or an id the
 * table never gave. */
const char *dpa_strtab_str(const struct dpa_strtab *t, uint32_t id);

/* Free the table and every string in it. NULL does nothing. */
void dpa_strtab_free(struct dpa_strtab *t);

#endif
