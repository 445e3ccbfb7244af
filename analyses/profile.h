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

/*
 * Errors: every function here that can fail returns 0 on success and -1 on
 * failure, after writing one line (no trailing newline) into *err that names
 * the file and says what is wrong. The library never prints and never exits.
 */
struct dpa_error {
	char msg[512];
};

/* The Deep.data format version this reader understands (schemas/deep-data.md):
 * a file whose version or min_version is larger is rejected. */
#define DPA_FORMAT_VERSION 1

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
};

struct dpa_module {
	char *path;
	uint64_t base, size;
	char *build_id;         /* lower-case hex, or NULL */
	int symbols;            /* set by dpa_profile_symbolize(): 1 its file was
				 * read, -1 missing/unreadable/build id mismatch,
				 * 0 not looked at (no node in it needed a name) */
};

/* Strings (name, file) may be NULL until dpa_profile_symbolize() fills them. */
struct dpa_ps {
	uint32_t module;        /* 0: synthetic (name is set) */
	uint64_t offset;
	const char *name, *file;
	uint32_t line;
};

struct dpa_css {
	uint32_t caller_ps;
	uint32_t module;
	uint64_t offset;        /* return address − module base */
	uint8_t kind;           /* enum dpa_css_kind */
	uint32_t callee_ps;     /* 0: not known statically */
	const char *in_fn;      /* function the site's address lies in, or NULL */
	const char *file;
	uint32_t line, col;
};

struct dpa_pd {
	uint32_t ps;
	uint32_t thread;        /* the thread whose graph holds this pd */
	uint32_t out_first, out_n;  /* csds called from here: out_csd[out_first ..] */
	uint32_t in_first, in_n;    /* csds calling here:     in_csd[in_first ..]  */
};

struct dpa_csd {
	uint32_t css, caller_pd, callee_pd;
	uint64_t m[DPA_NMEASURES];  /* own costs */
};

struct dpa_thread {
	uint64_t tid;
	uint32_t root_pd;
	uint64_t cpu_ns, ticks, ticks_outside, allocs_outside, bytes_outside;
	bool exited;
};

/*
 * A whole profile. Arrays are indexed by id: element 0 is unused (zeroed), so
 * ps[1] .. ps[n_ps] are the records. The profile owns every array and string;
 * dpa_profile_release() frees them all.
 */
struct dpa_profile {
	char *path;             /* the file it was read from */
	struct dpa_header hdr;
	uint32_t n_module, n_ps, n_css, n_pd, n_csd, n_thread;
	struct dpa_module *module;
	struct dpa_ps *ps;
	struct dpa_css *css;
	struct dpa_pd *pd;
	struct dpa_csd *csd;
	struct dpa_thread *thread;
	uint32_t *out_csd;      /* n_csd entries, grouped by caller pd */
	uint32_t *in_csd;       /* n_csd entries, grouped by callee pd */
	void *strings;          /* private: owner of interned strings */
};

/* Read and validate `path` into *p (which the caller provides, uninitialised).
 * On failure *p holds nothing that needs releasing. */
int dpa_profile_read(struct dpa_profile *p, const char *path, struct dpa_error *err);

/* Fill in ps/css names, files and lines that the file left out, from the debug
 * information of each module's file (elfutils libdw). Names that cannot be
 * found stay NULL; this is not an error. Returns the number of modules whose
 * file was missing or whose build id did not match (0 when all were found). */
int dpa_profile_symbolize(struct dpa_profile *p);

/* Free everything *p owns; *p is then zeroed. Releasing a zeroed profile does nothing. */
void dpa_profile_release(struct dpa_profile *p);

/* Names for display: never NULL ("0x1139 in /path" style when unresolved). */
const char *dpa_ps_name(const struct dpa_profile *p, uint32_t ps);
const char *dpa_measure_name(enum dpa_measure m);   /* "calls", "exits", "nonlocal_exits", ... */
const char *dpa_css_kind_name(enum dpa_css_kind k); /* "dynamic", "normal", ... */

/* "0x1139 in prog" (offset, module file's basename; just "0x1139" for module 0
 * or out of range): the display name of an unresolved address. The string is
 * interned in *p and lives until dpa_profile_release(). Never NULL. */
const char *dpa_addr_name(const struct dpa_profile *p, uint32_t module, uint64_t offset);

/* The part of `path` after its last '/' ("?" for NULL). Points into path. */
const char *dpa_basename(const char *path);

/*
 * A csd's own cost for one measure. New code reads measures through this
 * accessor, not csd[i].m[] directly, so that the storage of measures can
 * change (it is most of a big profile's memory) without touching callers.
 */
static inline uint64_t dpa_own(const struct dpa_profile *p, uint32_t csd, enum dpa_measure m)
{
	return p->csd[csd].m[m];
}

#endif
