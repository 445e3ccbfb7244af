/*
 * gen.h — write synthetic Deep.data files of a chosen shape and size, valid
 * or deliberately broken, for tests and benchmarks (dp-gen is its CLI).
 * Part of deepprof's tests. MIT licence.
 *
 * Shapes, per thread with M csds (M = csds / threads, the first threads take
 * the remainder); pd 0 of a thread is its root (ps 1, "<root>"), csd 1 of a
 * thread is root -> main (ps 2, css 1); G = groups below:
 *   chain      main -> f1 -> f2 -> ... : n_ps = M+1, n_css = M, n_pd = M+1
 *   tree       contexts form a 4-ary tree under main over 16 procedures
 *              f1..f16 (ps 3..18, ps of pd i = 3+(i-2)%16): n_pd = M+1,
 *              n_ps = 2+min(M-1,16), n_css = 1+4*(n_ps-1)
 *   wide       main calls M-1 procedures through one indirect call site:
 *              n_ps = M+1, n_css = 2, n_pd = M+1
 *   recursive  G = ceil((M-1)/2) groups main -> r_g, r_g -> r_g (folded):
 *              n_ps = 2+G, n_css = 1+2G, n_pd = 2+G
 *   mutual     G = ceil((M-1)/3) groups main -> a_g -> b_g -> a_g:
 *              n_ps = 2+2G, n_css = 1+3G, n_pd = 2+2G
 *   threads    tree, 4 threads unless threads is given
 * n_ps and n_css come from the largest thread; pds are per thread.
 * Measures come from `seed`: calls 1..1000 (root->main: 1), exits = calls,
 * nonlocal_exits 0, cscs = calls, ticks 0..7, allocs 0..3, bytes 16..79 per
 * alloc. The header's calls/cscs/allocs/bytes are the sums.
 */
#ifndef DPG_GEN_H
#define DPG_GEN_H

#include <stdint.h>
#include <stdio.h>

enum dpg_shape { DPG_CHAIN, DPG_TREE, DPG_WIDE, DPG_RECURSIVE, DPG_MUTUAL, DPG_THREADS };

/* Deliberate defects (each yields one specific reader error). */
enum dpg_corrupt {
	DPG_OK,
	DPG_MAGIC,        /* header magic "deepproff" */
	DPG_VERSION,      /* version 7, min_version 7 */
	DPG_MINVERSION,   /* version 1, min_version 3 (newer than every reader) */
	DPG_MISSING_KEY,  /* no "pid" */
	DPG_KEY_TYPE,     /* "pid" is a string */
	DPG_NOT_MAP,      /* the first object is an array */
	DPG_REF,          /* the first csd's callee_pd is past the last pd */
	DPG_ORDER,        /* a second MODULE record after the CSS records */
	DPG_ID,           /* csd ids skip one */
	DPG_KIND,         /* a record of unknown kind 4 */
	DPG_LEN,          /* a PD record with 4 elements */
	DPG_CSS_KIND,     /* a css of kind 9 */
	DPG_ROOT,         /* thread 1's root_pd is main's pd, not a <root> pd */
	DPG_UNREACHABLE,  /* one more pd that nothing calls */
	DPG_SHARED,       /* a csd from the last thread's root into thread 1's main */
	DPG_CRC,          /* END's crc32 off by one bit */
	DPG_COUNT,        /* END's n_csd one too many */
	DPG_NO_END,       /* no END record */
	DPG_TRAILING,     /* 3 bytes after END */
	DPG_CSS_COL,      /* css 1's col is 2^29, past what struct dpa_css keeps */
	DPG_PS1,          /* ps 1, which must be the synthetic <root>, is in module 1 */
	DPG_CLOCK,        /* the header's clock is "ticks", which no writer writes */
	DPG_NCORRUPT
};

struct dpg_opts {
	enum dpg_shape shape;
	uint64_t csds;          /* total over all threads, >= 1 */
	uint32_t threads;       /* 0: 1 (4 for DPG_THREADS) */
	uint64_t seed;
	enum dpg_corrupt corrupt;
	const char *module;     /* the module's path; NULL: /nonexistent/dp-gen-program */
};

/* What was written (before any corruption changed it). */
struct dpg_stats {
	uint32_t n_module, n_ps, n_css, n_pd, n_csd, n_thread;
	uint64_t calls, cscs, ticks, allocs, bytes;
	uint64_t file_size;
};

/* Names for option parsing and messages; dpg_parse_* return -1 if unknown. */
int dpg_parse_shape(const char *s);
int dpg_parse_corrupt(const char *s);
const char *dpg_corrupt_name(enum dpg_corrupt c);

/*
 * Write a Deep.data file to `path` (truncated or created). Returns 0, or -1
 * with a one-line message in err[0..errlen). *st may be NULL.
 */
int dpg_write_file(const struct dpg_opts *o, const char *path, struct dpg_stats *st,
		   char *err, size_t errlen);

#endif
