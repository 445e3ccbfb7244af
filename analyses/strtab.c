/*
 * strtab.c — string interning for profiles: an open-addressing hash table
 * of ids over an arena of large blocks, so a profile's many repeated names
 * and paths cost one copy each, are named by a 4-byte id, and are freed in
 * one go.
 * Part of deepprof's analyses library. MIT licence.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

/* ---- private types ---- */

#define BLOCK_SIZE (64 * 1024)

struct block {
	struct block *next;
	size_t used, size;
	char data[];
};

struct dpa_strtab {
	struct block *blocks;
	const char **by_id;     /* [n + 1]: the string of each id (by_id[0] NULL) */
	size_t cap_id;
	uint32_t *slot;         /* cap entries: an id, 0 = empty */
	uint32_t *hash;         /* hash of slot[i]'s string */
	size_t cap, n;
};

/* ---- private functions ---- */

static uint32_t hash_bytes(const char *s, size_t len)
{
	uint32_t h = 2166136261u;  /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static char *arena_alloc(struct dpa_strtab *t, size_t len)
{
	struct block *b = t->blocks;

	if (!b || b->size - b->used < len) {
		size_t size = len > BLOCK_SIZE / 4 ? len : BLOCK_SIZE;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->used = 0;
		if (len > BLOCK_SIZE / 4 && t->blocks) {
			/* a big string gets its own block, behind the current one */
			b->next = t->blocks->next;
			t->blocks->next = b;
		} else {
			b->next = t->blocks;
			t->blocks = b;
		}
	}
	b->used += len;
	return b->data + b->used - len;
}

static int grow(struct dpa_strtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	uint32_t *slot = calloc(cap, sizeof(*slot));
	uint32_t *hash = calloc(cap, sizeof(*hash));

	if (!slot || !hash) {
		free(slot);
		free(hash);
		return -1;
	}
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->slot[i])
			continue;
		for (j = t->hash[i] & (cap - 1); slot[j]; j = (j + 1) & (cap - 1))
			;
		slot[j] = t->slot[i];
		hash[j] = t->hash[i];
	}
	free(t->slot);
	free(t->hash);
	t->slot = slot;
	t->hash = hash;
	t->cap = cap;
	return 0;
}

/* ---- public functions ---- */

struct dpa_strtab *dpa_strtab_new(void)
{
	return calloc(1, sizeof(struct dpa_strtab));
}

uint32_t dpa_strtab_id(struct dpa_strtab *t, const char *s, size_t len)
{
	uint32_t h = hash_bytes(s, len);
	size_t j;
	char *copy;

	if ((t->n + 1) * 2 > t->cap && grow(t) < 0)
		return 0;
	if (t->n + 2 > t->cap_id) {
		size_t cap = t->cap_id ? t->cap_id * 2 : 256;
		const char **by_id = realloc(t->by_id, cap * sizeof(*by_id));

		if (!by_id || t->n + 1 >= UINT32_MAX)
			return 0;
		by_id[0] = NULL;
		t->by_id = by_id;
		t->cap_id = cap;
	}
	for (j = h & (t->cap - 1); t->slot[j]; j = (j + 1) & (t->cap - 1)) {
		const char *o = t->by_id[t->slot[j]];

		if (t->hash[j] == h && !strncmp(o, s, len) && o[len] == '\0')
			return t->slot[j];
	}
	copy = arena_alloc(t, len + 1);
	if (!copy)
		return 0;
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->n++;
	t->by_id[t->n] = copy;
	t->slot[j] = (uint32_t)t->n;
	t->hash[j] = h;
	return (uint32_t)t->n;
}

const char *dpa_strtab_str(const struct dpa_strtab *t, uint32_t id)
{
	return t && id && id <= t->n ? t->by_id[id] : NULL;
}

const char *dpa_strtab_intern(struct dpa_strtab *t, const char *s, size_t len)
{
	uint32_t id = dpa_strtab_id(t, s, len);

	return id ? t->by_id[id] : NULL;
}

void dpa_strtab_free(struct dpa_strtab *t)
{
	if (!t)
		return;
	while (t->blocks) {
		struct block *b = t->blocks;

		t->blocks = b->next;
		free(b);
	}
	free(t->slot);
	free(t->hash);
	free(t->by_id);
	free(t);
}
