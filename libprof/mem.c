/*
 * mem.c — the runtime's memory: anonymous mmap only (malloc is interposed,
 * and the writer may run in a signal handler), bump-allocated per thread or
 * globally, never freed before the process ends.
 * Part of deepprof's libprof. MIT licence.
 */
#include <sys/mman.h>
#include "internal.h"

#define CHUNK (256u * 1024u)

static size_t page_round(size_t n)
{
	return (n + 4095) & ~(size_t)4095;
}

/* A fresh zeroed mapping of at least size bytes, counted in mem_bytes; NULL on failure. */
void *dp_mem_map(size_t size)
{
	size = page_round(size);
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	DP_ADD(&dp_rt.mem_bytes, size);
	return p;
}

/* Objects of DP_LINE bytes or more start on a cache line (a csd's hot
 * part, the inline fast path's counters, is its first line: internal.h),
 * smaller ones on 16 bytes. */
static void *bump(char **cur, char **end, size_t size)
{
	size_t align = size >= DP_LINE ? DP_LINE : 16;
	size = (size + 15) & ~(size_t)15;
	*cur = (char *)(((uintptr_t)*cur + align - 1) & ~(uintptr_t)(align - 1));
	if (*cur > *end || (size_t)(*end - *cur) < size) {
		size_t chunk = size > CHUNK / 4 ? page_round(size) : CHUNK;
		char *p = dp_mem_map(chunk);
		if (!p)
			return NULL;
		if (chunk != CHUNK) /* a big block gets its own mapping */
			return p;
		*cur = p;
		*end = p + chunk;
	}
	void *r = *cur;
	*cur += size;
	return r;
}

/* Zeroed memory owned by thread t's graph; only t calls this. */
void *dp_mem_thread(struct dp_thread *t, size_t size)
{
	return bump(&t->arena, &t->arena_end, size);
}

/* Zeroed memory for global nodes; the caller holds dp_rt.lock. */
void *dp_mem_global(size_t size)
{
	return bump(&dp_rt.arena, &dp_rt.arena_end, size);
}
