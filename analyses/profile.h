/*
 * profile.h — a Deep.data file in memory: the four node kinds, the threads
 * and the header, as read and validated by dpa_profile_read().
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_PROFILE_H
#define DPA_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>

#include "errors.h"     /* struct dpa_error, dpa_fail(), dpa_fail_at() */

struct dpa_profile;

/* The Deep.data format version this reader understands (schemas/deep-data.md):
 * a file whose version or min_version is larger is rejected. */
#define DPA_FORMAT_VERSION 2

/* The measures every csd carries, in Deep.data's CSD record order. */
enum dpa_measure {
	DPA_CALLS,
	DPA_EXITS,
	DPA_NONLOCAL,
	DPA_CSCS,
	DPA_TICKS,
	DPA_ALLOCS,
	DPA_BYTES,
	DPA_NMEASURES
};

/* Static call-site kinds (schemas/deep-data.md, CSS). */
enum dpa_css_kind {
	DPA_CSS_DYNAMIC,
	DPA_CSS_NORMAL,
	DPA_CSS_INDIRECT,
	DPA_CSS_EXTERNAL,
	DPA_CSS_CALLBACK,
	DPA_CSS_PARALLEL,       /* a run of an OpenMP parallel region's body by one thread */
	DPA_CSS_TASK,           /* a run of an OpenMP task's body */
	DPA_CSS_NKINDS
};

struct dpa_header {
	uint32_t version, min_version;
	char *program;
	char **argv;            /* argc entries */
	uint32_t argc;
	uint64_t pid, ppid, fork_of;
	bool final;
	uint64_t start_ns, wall_ns;
	char *clock;            /* "calls" or "calls+loops" */
	uint64_t timer_hz, cpu_ns, ticks, ticks_outside;
	double ns_per_tick;
	uint64_t calls, cscs, allocs, bytes, allocs_outside, bytes_outside, mem_bytes, lost;
	/* a sampled profile (`deepprof record`, format 2, clock "samples"):
	 * calls, exits and cscs are unknown (0); time is ticks x ns_per_tick */
	bool sampled;
	uint64_t record_flags;          /* enum dpa_record_flags: what disturbed the sampling */
	uint64_t samples_truncated, samples_failed;
};

/* The marks of a sampled profile (Deep.data "record_flags"). */
enum dpa_record_flags {
	DPA_REC_HANDLER = 1,    /* the program installed its own SIGPROF handler */
	DPA_REC_BLOCKED = 2,    /* the program blocked SIGPROF in some thread */
	DPA_REC_ITIMER = 4,     /* the program started an ITIMER_PROF timer */
};

/* What record flag `bit` (one of enum dpa_record_flags) says, in words
 * ("the program installed its own SIGPROF handler"); NULL for another value. */
const char *dpa_record_flag_text(uint64_t bit);

struct dpa_module {
	char *path;
	uint64_t base, size;
	char *build_id;         /* lower-case hex, or NULL */
	int symbols;            /* set by dpa_profile_symbolize(): 1 its file was
				 * read, -1 missing/unreadable/build id mismatch,
				 * 0 not looked at (no node in it needed a name) */
};

/*
 * A ps or css record holds what every one has: where it is (module,
 * offset) and, for a css, who calls whom. Its source fields (name, file,
 * line; in_fn, file, line, col) are columns of their own (struct
 * dpa_src_col, read with dpa_src_get()), since many profiles lack them (a
 * program whose debug information is gone) or need fewer than 32 bits for
 * them (string ids of a profile with fewer than 65536 distinct strings).
 *
 * Offsets are 64-bit, but an offset into a module is almost always below
 * 2^32: a record keeps the low 32 bits (offset_lo) and the high ones are a
 * column of their own (DPA_PS_OFF_HI, DPA_CSS_OFF_HI), which takes no memory
 * while they are all 0. So a ps takes 8 bytes and a css 16 (12 and 20 with
 * 64-bit offsets: 80 MB of a 10^7-procedure profile). Read and write
 * offsets with dpa_ps_offset() and dpa_ps_set_offset() (dpa_css_...), not
 * through offset_lo; a record copied whole keeps only its low half.
 */
struct dpa_ps {               /* 8 bytes */
	uint32_t module;        /* 0: synthetic (its name is set) */
	uint32_t offset_lo;     /* private: see dpa_ps_offset() */
};

struct dpa_css {              /* 16 bytes */
	uint32_t caller_ps;
	/* packed: kind shares module's word (module ids below 2^29, as the
	 * reader checks) */
	uint32_t module : 29;
	uint32_t kind : 3;      /* enum dpa_css_kind */
	uint32_t offset_lo;     /* private: see dpa_css_offset() (return address − module base) */
	uint32_t callee_ps;     /* 0: not known statically */
};

/* The most modules a css can name (struct dpa_css). */
#define DPA_MAX_MODULES ((1u << 29) - 1)

_Static_assert(sizeof(struct dpa_ps) == 8, "struct dpa_ps has a 32-bit offset: 8 bytes");
_Static_assert(sizeof(struct dpa_css) == 16, "struct dpa_css has a 32-bit offset: 16 bytes");

/*
 * The source fields of ps and css records, by id. Strings (name, file,
 * in_fn) are ids into the profile's string table, read with dpa_str() (0:
 * none, NULL) and made with dpa_str_id(); they may be 0 until
 * dpa_profile_symbolize() fills them. in_fn is the function a call site's
 * address lies in. A css col is below 2^29 (the reader checks). OFF_HI:
 * the high 32 bits of the record's offset (read the offset with
 * dpa_ps_offset(), dpa_css_offset()).
 */
enum dpa_src {
	DPA_PS_NAME, DPA_PS_FILE, DPA_PS_LINE, DPA_PS_OFF_HI,
	DPA_CSS_IN_FN, DPA_CSS_FILE, DPA_CSS_LINE, DPA_CSS_COL, DPA_CSS_OFF_HI,
	DPA_NSRC
};

/* One source field of every ps (css): n values of `width` bytes each (0:
 * none stored), for ids 0 .. n-1; every id from n on is 0. */
struct dpa_src_col {
	uint8_t width;          /* 0, 1, 2 or 4 */
	uint32_t n;
	void *v;
};

/*
 * A pd's csds are a group of dpa_out_csd() (dpa_in_csd()): the groups follow
 * one another in pd id order, so a group ends where the next pd's starts,
 * and a pd needs no counts. pd[n_pd + 1] is a sentinel whose out_first and
 * in_first are n_csd; pd 0's are 0 (pd 1's group starts at 0). Its thread
 * (the thread whose graph holds it) is dpa_pd_thread(): 12 bytes, not 24.
 */
struct dpa_pd {
	uint32_t ps;
	uint32_t out_first;     /* csds called from here: dpa_out_csd(p, out_first ..) */
	uint32_t in_first;      /* csds calling here:     dpa_in_csd(p, in_first ..)  */
};

_Static_assert(sizeof(struct dpa_pd) == 12, "struct dpa_pd has no counts and no thread: 12 bytes");

/* The number of csds called from pd (a pointer into p->pd, 0 .. n_pd). */
static inline uint32_t dpa_pd_out_n(const struct dpa_pd *pd)
{
	return pd[1].out_first - pd->out_first;
}

/* The number of csds calling pd (a pointer into p->pd, 0 .. n_pd). */
static inline uint32_t dpa_pd_in_n(const struct dpa_pd *pd)
{
	return pd[1].in_first - pd->in_first;
}

/* A csd's ids; its own costs are in the profile's measure columns
 * (struct dpa_col), read with dpa_own() and written with dpa_csd_set(). */
struct dpa_csd {
	uint32_t css, caller_pd, callee_pd;
};

/*
 * How one measure of every csd is stored: most of a big profile's memory,
 * so each measure takes the width its values need, or none. ZERO: 0 on every
 * csd. SAME: equal to measure `a` on every csd (cscs and calls with clock
 * "calls"). DIFF: measure `a` minus measure `b` (exits = calls −
 * nonlocal_exits in a final profile). U8 .. U64: v holds one value per csd
 * id, of that width. `a` and `b` are always stored (U8 .. U64) or ZERO.
 */
enum dpa_col_kind {
	DPA_COL_ZERO, DPA_COL_SAME, DPA_COL_DIFF,
	DPA_COL_U8, DPA_COL_U16, DPA_COL_U32, DPA_COL_U64
};

struct dpa_col {
	uint8_t kind;           /* enum dpa_col_kind */
	uint8_t a, b;           /* SAME, DIFF: the measures it is made from */
	void *v;                /* U8 .. U64: [csd_cap] values, by csd id */
};

struct dpa_thread {
	uint64_t tid;
	uint32_t root_pd;
	uint32_t first_pd;      /* with pd_thread NULL: this thread's pds are
				 * first_pd .. the next thread's first_pd - 1
				 * (n_pd for the last thread) */
	uint64_t cpu_ns, ticks, ticks_outside, allocs_outside, bytes_outside;
	bool exited;
};

/*
 * A check build's findings (deepprof-cc --deepprof-check; schemas/deep-data.md,
 * header key "check"): per candidate region, how often it ran under the
 * check, and the pairs of its calls that touched the same memory.
 */
struct dpa_check_call {
	uint32_t line, col;
	const char *callee;
};
struct dpa_check_conflict {
	uint32_t i, j;          /* calls, i < j */
	const char *kind;       /* "write-write", "write-read" (i writes what j
				 * reads) or "read-write" */
	uint64_t executions;    /* of the region's, those where it showed */
	const char *loc_i, *loc_j;  /* "file:line:col" of the two accesses */
	const char *var_i, *var_j;  /* what they name ("" unknown) */
	uint64_t addr, size;    /* the first overlap seen */
};
struct dpa_check_opaque {
	uint32_t k;             /* the call that made it */
	uint64_t executions;
	const char *callee, *loc;
};
#define DPA_CHECK_WINDOW 64     /* a loop's iterations compared together */
struct dpa_check_region {
	uint32_t input;         /* 0: this profile's; k: grafted from another
				 * profile (dpa_check_graft) */
	const char *fn, *file;
	uint32_t n_calls;
	struct dpa_check_call *calls;
	bool loop;              /* a loop candidate's (its one call, made per
				 * iteration): conflicts and opaque calls name
				 * iterations of a window, 0 .. DPA_CHECK_WINDOW-1 */
	uint64_t executions;
	uint32_t n_conflicts;
	struct dpa_check_conflict *conflicts;
	uint32_t n_opaque;
	struct dpa_check_opaque *opaque;
};

/*
 * A whole profile. Arrays are indexed by id: element 0 is unused (zeroed), so
 * ps[1] .. ps[n_ps] are the records (and pd has the sentinel pd[n_pd + 1]). The profile owns every array and string;
 * dpa_profile_release() frees them all.
 */
struct dpa_profile {
	char *path;             /* the file it was read from */
	uint32_t file_crc32;    /* crc32 (zlib's) of that whole file, END included */
	struct dpa_header hdr;
	uint32_t n_module, n_ps, n_css, n_pd, n_csd, n_thread;
	struct dpa_module *module;
	struct dpa_ps *ps;
	struct dpa_css *css;
	struct dpa_pd *pd;
	struct dpa_csd *csd;
	struct dpa_col col[DPA_NMEASURES];  /* the csds' own costs, by measure */
	size_t csd_cap;         /* ids csd[0 .. csd_cap) and columns allocated */
	size_t csd_init;        /* ids below hold values (zeroed when reserved);
				 * the memory above is not touched until needed */
	uint8_t col_refs;       /* bit m: some SAME or DIFF column reads measure m */
	struct dpa_thread *thread;
	/* The csd ids grouped by caller (callee) pd, n_csd entries each, read
	 * with dpa_out_csd() (dpa_in_csd()); NULL when that order is the csd
	 * ids' own (entry i is csd i + 1), which saves 4 bytes per csd
	 * (dpa_profile_compact). in_perm is NULL for libprof's profiles
	 * of programs without recursion (csds are written in the order they
	 * were made, each with the pd it made), out_perm for merged ones
	 * (merge writes csds grouped by caller). */
	uint32_t *out_perm;
	uint32_t *in_perm;
	/* [n_pd + 1]: each pd's thread, read with dpa_pd_thread(); NULL when
	 * every thread's pds are one range of ids, in thread order (libprof
	 * and merge write them so), which thread[].first_pd then gives */
	uint32_t *pd_thread;
	struct dpa_src_col src[DPA_NSRC];       /* ps and css source fields */
	void *strings;          /* private: the string table (dpa_str) */
	/* The split of recursions (schemas/deep-data.md, header keys
	 * inside_samples and inside): has_inside when the file measured it;
	 * inside[0 .. n_inside) the csds with a non-zero measure, by csd id
	 * ascending (malloc'ed; read with dpa_csd_inside). */
	bool has_inside;
	uint64_t inside_samples;
	uint32_t n_inside;
	struct dpa_inside { uint32_t csd; uint64_t inside; } *inside;
	/* a check build's findings (has_check: the key was there) */
	bool has_check;
	uint64_t check_lost;
	uint32_t n_check;
	struct dpa_check_region *check;
};

/* Append the check findings of profile *from to *to's, marked as input
 * `input` (> 0): a check build's run on another input, for the same
 * program. Strings stay *from's, which must outlive *to. 0, or -1 out of
 * memory. */
int dpa_check_graft(struct dpa_profile *to, const struct dpa_profile *from, uint32_t input);

/* Entry i (0 .. n_csd - 1) of the csd ids grouped by caller pd: pd q's
 * out csds are dpa_out_csd(p, q->out_first + j), j < dpa_pd_out_n(q). */
static inline uint32_t dpa_out_csd(const struct dpa_profile *p, uint32_t i)
{
	return p->out_perm ? p->out_perm[i] : i + 1;
}

/* Entry i (0 .. n_csd - 1) of the csd ids grouped by callee pd: pd q's
 * in csds are dpa_in_csd(p, q->in_first + j), j < dpa_pd_in_n(q). */
static inline uint32_t dpa_in_csd(const struct dpa_profile *p, uint32_t i)
{
	return p->in_perm ? p->in_perm[i] : i + 1;
}

/* Source field f of ps (css) id: a string id or a number, 0 when unknown
 * or out of range. O(1). */
static inline uint32_t dpa_src_get(const struct dpa_profile *p, enum dpa_src f, uint32_t id)
{
	const struct dpa_src_col *c = &p->src[f];

	if (id >= c->n)
		return 0;
	switch (c->width) {
	case 1: return ((const uint8_t *)c->v)[id];
	case 2: return ((const uint16_t *)c->v)[id];
	case 4: return ((const uint32_t *)c->v)[id];
	}
	return 0;
}

/* The string of source field f (a string id: name, file, in_fn) of ps
 * (css) id: NULL when it has none. */
const char *dpa_src_str(const struct dpa_profile *p, enum dpa_src f, uint32_t id);

/* Source field f of ps (css) id becomes v; the column grows (in length or
 * width) when it must, other ids keep their values. Returns 0, or -1 when
 * out of memory (nothing changed); setting 0 never fails. */
int dpa_src_set_slow(struct dpa_profile *p, enum dpa_src f, uint32_t id, uint32_t v);

static inline int dpa_src_set(struct dpa_profile *p, enum dpa_src f, uint32_t id, uint32_t v)
{
	struct dpa_src_col *c = &p->src[f];

	/* the common cases inline: 0 past the column (a profile without the
	 * field), and a value that fits */
	if (id >= c->n) {
		if (!v)
			return 0;
	} else if (c->width == 1 && v <= UINT8_MAX) {
		((uint8_t *)c->v)[id] = (uint8_t)v;
		return 0;
	} else if (c->width == 2 && v <= UINT16_MAX) {
		((uint16_t *)c->v)[id] = (uint16_t)v;
		return 0;
	} else if (c->width == 4) {
		((uint32_t *)c->v)[id] = v;
		return 0;
	}
	return dpa_src_set_slow(p, f, id, v);
}

/* The offset of ps (css) id in its module. O(1). */
static inline uint64_t dpa_ps_offset(const struct dpa_profile *p, uint32_t ps)
{
	return (uint64_t)dpa_src_get(p, DPA_PS_OFF_HI, ps) << 32 | p->ps[ps].offset_lo;
}

static inline uint64_t dpa_css_offset(const struct dpa_profile *p, uint32_t css)
{
	return (uint64_t)dpa_src_get(p, DPA_CSS_OFF_HI, css) << 32 | p->css[css].offset_lo;
}

/* The offset of ps (css) id becomes v. Returns 0, or -1 when out of
 * memory (an offset of 2^32 or more, the first in a profile, makes its
 * column); then only the low half is set. */
static inline int dpa_ps_set_offset(struct dpa_profile *p, uint32_t ps, uint64_t v)
{
	p->ps[ps].offset_lo = (uint32_t)v;
	return dpa_src_set(p, DPA_PS_OFF_HI, ps, (uint32_t)(v >> 32));
}

static inline int dpa_css_set_offset(struct dpa_profile *p, uint32_t css, uint64_t v)
{
	p->css[css].offset_lo = (uint32_t)v;
	return dpa_src_set(p, DPA_CSS_OFF_HI, css, (uint32_t)(v >> 32));
}

/* Give back column capacity beyond ps (css) id n_ps (n_css). Never fails. */
void dpa_src_trim(struct dpa_profile *p);

/* Free the source columns (dpa_profile_release() does it too). */
void dpa_src_release(struct dpa_profile *p);

/* The thread whose graph holds pd (1 .. n_pd; 0 for pd 0). O(1) with a
 * single thread or a stored pd_thread, else O(log n_thread). */
static inline uint32_t dpa_pd_thread(const struct dpa_profile *p, uint32_t pd)
{
	uint32_t lo = 1, hi = p->n_thread;

	if (p->pd_thread)
		return p->pd_thread[pd];
	if (!pd)
		return 0;
	while (lo < hi) {       /* the last thread whose first_pd <= pd */
		uint32_t mid = lo + (hi - lo + 1) / 2;

		if (p->thread[mid].first_pd <= pd)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Once out_perm, in_perm and pd_thread are filled (or NULL): free each that
 * is not needed and set it to NULL: a permutation that is the identity, and
 * pd_thread when every thread's pds are one range of ids in thread order
 * (then thread[].first_pd are set). O(n_csd + n_pd); never fails. */
void dpa_profile_compact(struct dpa_profile *p);

/* Csd id's split measure: the clock ticks x activations through it on the
 * stack (schemas/deep-data.md, header key inside); 0 when not measured. */
uint64_t dpa_csd_inside(const struct dpa_profile *p, uint32_t csd);

/* Read and validate `path` into *p (which the caller provides, uninitialised).
 * On failure *p holds nothing that needs releasing. */
/*
 * dpa_huge: ask for transparent huge pages on the interior of a large block
 * just allocated (at least 4 MiB; the 2 MiB-aligned part), before it is
 * touched; returns p (NULL stays NULL). The id-indexed arrays of a large
 * profile are touched once, a page at a time: with 4 KiB pages the kernel's
 * faults cost more than the work done on them (10^7 csds: 110-180 thousand
 * faults, 0.5-0.8 s of CPU, measured in README's "Benchmarks"). A no-op
 * where THP is off or a block is small.
 */
void *dpa_huge(void *p, size_t bytes);

/* malloc, calloc and realloc of a block that may be large, through dpa_huge */
static inline void *dpa_malloc_huge(size_t bytes)
{
	return dpa_huge(malloc(bytes), bytes);
}

static inline void *dpa_calloc_huge(size_t n, size_t size)
{
	return dpa_huge(calloc(n, size), n * size);
}

static inline void *dpa_realloc_huge(void *p, size_t bytes)
{
	return dpa_huge(realloc(p, bytes), bytes);
}

int dpa_profile_read(struct dpa_profile *p, const char *path, struct dpa_error *err);

/* Fill in ps/css names, files and lines that the file left out, from the debug
 * information of each module's file (elfutils libdw). Names that cannot be
 * found stay NULL; this is not an error. Returns the number of modules whose
 * file was missing or whose build id did not match (0 when all were found). */
int dpa_profile_symbolize(struct dpa_profile *p);

/* Free everything *p owns; *p is then zeroed. Releasing a zeroed profile does nothing. */
void dpa_profile_release(struct dpa_profile *p);

/* The string with id `id` of p's string table: NULL for 0 (none). It lives
 * until dpa_profile_release(). O(1). */
const char *dpa_str(const struct dpa_profile *p, uint32_t id);

/* The id of a copy of s (NUL-terminated) in p's string table, made on first
 * use (equal strings, one id): 0 for NULL, and 0 when out of memory (check
 * s != NULL && !id). The table is p's: dpa_profile_release() frees it. */
uint32_t dpa_str_id(struct dpa_profile *p, const char *s);

/* Names for display: never NULL ("0x1139 in /path" style when unresolved). */
const char *dpa_ps_name(const struct dpa_profile *p, uint32_t ps);
/* The same without interning an unresolved one: its address name is
 * written into buf (DPA_ADDR_NAME_MAX bytes) and buf returned; a resolved
 * name is returned as it is. For writers that name millions of procedures
 * once each (exports). */
#define DPA_ADDR_NAME_MAX (64 + 256)
const char *dpa_ps_name_buf(const struct dpa_profile *p, uint32_t ps, char *buf);
const char *dpa_measure_name(enum dpa_measure m);   /* "calls", "exits", "nonlocal_exits", ... */
const char *dpa_css_kind_name(enum dpa_css_kind k); /* "dynamic", "normal", ... */

/* "0x1139 in prog" (offset, module file's basename; just "0x1139" for module 0
 * or out of range): the display name of an unresolved address. The string is
 * interned in *p and lives until dpa_profile_release(). Never NULL. */
const char *dpa_addr_name(const struct dpa_profile *p, uint32_t module, uint64_t offset);

/* The part of `path` after its last '/' ("?" for NULL). Points into path. */
const char *dpa_basename(const char *path);

/* ---- csd measures: the only way to read and write them ---- */

/* The value of a stored (or ZERO) column at csd id i. */
static inline uint64_t dpa_col_raw(const struct dpa_col *c, uint32_t i)
{
	switch (c->kind) {
	case DPA_COL_U8: return ((const uint8_t *)c->v)[i];
	case DPA_COL_U16: return ((const uint16_t *)c->v)[i];
	case DPA_COL_U32: return ((const uint32_t *)c->v)[i];
	case DPA_COL_U64: return ((const uint64_t *)c->v)[i];
	}
	return 0;
}

/* A csd's own cost for one measure (csd 0 .. n_csd; csd 0 is all 0). */
static inline uint64_t dpa_own(const struct dpa_profile *p, uint32_t csd, enum dpa_measure m)
{
	const struct dpa_col *c = &p->col[m];

	if (c->kind == DPA_COL_SAME)
		return dpa_col_raw(&p->col[c->a], csd);
	if (c->kind == DPA_COL_DIFF)
		return dpa_col_raw(&p->col[c->a], csd) - dpa_col_raw(&p->col[c->b], csd);
	return dpa_col_raw(c, csd);
}

/*
 * Building a profile's csds (the reader, merge, tests). The profile owns the
 * csd array and the columns; dpa_profile_release() frees them.
 *
 * dpa_csd_reserve: make csd ids 0 .. n usable (p->csd and every column);
 * new csds have zero ids and zero measures. May move p->csd and the
 * columns. Returns 0 or -1 (out of memory).
 *
 * dpa_csd_set: csd's measure m becomes v (csd reserved). A column
 * widens, or a ZERO/SAME/DIFF one becomes stored, when v needs it: other
 * csds keep their values. Returns 0 or -1 (out of memory; nothing changed).
 *
 * dpa_csd_append: csd id gets the ids *c and the measures v[]:
 * dpa_csd_reserve() and dpa_csd_set() of each measure, in one step when id
 * is the next one (p->csd_init, the reader's case). Returns 0 or -1 (out of
 * memory).
 *
 * dpa_csd_expect: room for csd ids 0 .. n (n + 1 of them) in p->csd and
 * every stored column, none of it touched or made usable: for a builder
 * that knows how many csds come (the reader, from END), so that the
 * blocks are made once instead of grown by doubling. Returns 0 or -1 (out
 * of memory; nothing changed).
 *
 * dpa_csd_derive: before any csd is reserved, measure m is taken to be
 * measure a (kind DPA_COL_SAME) or a - b (DPA_COL_DIFF) on every csd, a and
 * b being ZERO still: dpa_csd_append() then stores nothing for m while the
 * csds agree, and stores m from the first one that does not (the reader's
 * guess for libprof's profiles: cscs = calls with clock "calls", exits =
 * calls - nonlocal_exits in a final profile). Does nothing otherwise.
 *
 * dpa_csd_pack: once the csds are all set (ids 1 .. p->n_csd), choose each
 * column's cheapest kind (ZERO, SAME, DIFF, narrowest width) from the data,
 * and give back capacity beyond n_csd. Never fails (a failed shrink keeps
 * the larger block); values are unchanged. Setting later is allowed.
 */
int dpa_csd_reserve(struct dpa_profile *p, uint32_t n);
int dpa_csd_expect(struct dpa_profile *p, uint32_t n);
int dpa_csd_set_slow(struct dpa_profile *p, uint32_t csd, enum dpa_measure m, uint64_t v);
int dpa_csd_append(struct dpa_profile *p, uint32_t id, const struct dpa_csd *c,
		   const uint64_t v[DPA_NMEASURES]);
void dpa_csd_derive(struct dpa_profile *p, enum dpa_measure m, enum dpa_col_kind kind,
		    enum dpa_measure a, enum dpa_measure b);
void dpa_csd_pack(struct dpa_profile *p);

static inline int dpa_csd_set(struct dpa_profile *p, uint32_t csd, enum dpa_measure m, uint64_t v)
{
	struct dpa_col *c = &p->col[m];

	/* the common case inline: the value fits, and no other measure is
	 * derived from this one */
	if (!(p->col_refs >> m & 1)) {
		switch (c->kind) {
		case DPA_COL_ZERO:
			if (!v)
				return 0;
			break;
		case DPA_COL_U8:
			if (v <= UINT8_MAX) {
				((uint8_t *)c->v)[csd] = (uint8_t)v;
				return 0;
			}
			break;
		case DPA_COL_U16:
			if (v <= UINT16_MAX) {
				((uint16_t *)c->v)[csd] = (uint16_t)v;
				return 0;
			}
			break;
		case DPA_COL_U32:
			if (v <= UINT32_MAX) {
				((uint32_t *)c->v)[csd] = (uint32_t)v;
				return 0;
			}
			break;
		case DPA_COL_U64:
			((uint64_t *)c->v)[csd] = v;
			return 0;
		}
	}
	return dpa_csd_set_slow(p, csd, m, v);
}

/* dpa_csd_set(p, csd, m, dpa_own(p, csd, m) + v) (wrapping like uint64_t). */
static inline int dpa_csd_add(struct dpa_profile *p, uint32_t csd, enum dpa_measure m, uint64_t v)
{
	return v ? dpa_csd_set(p, csd, m, dpa_own(p, csd, m) + v) : 0;
}

/* Free the csd array and the columns; p->csd becomes NULL, every column
 * ZERO, csd_cap 0 (n_csd is left alone). */
void dpa_csd_release(struct dpa_profile *p);

/* Bytes the csd array and the measure columns take (for tests, benchmarks). */
size_t dpa_csd_bytes(const struct dpa_profile *p);

#endif
