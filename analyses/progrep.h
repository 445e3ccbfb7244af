/*
 * progrep.h — the program representation (schemas/progrep.md) in memory:
 * read from the .deepprof.progrep section of an ELF file (executable,
 * shared library, object), validated, keyed by (tu_id, ps) and
 * (tu_id, site), each function's checksum checked against its source; and
 * for a profile, every module's progrep with its ps and css mapped to their
 * records. Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_PROGREP_H
#define DPA_PROGREP_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

/* The newest progrep record version this reader understands; larger is
 * rejected (2: bodies may hold use/store items; 1 is still read). */
#define DPA_PROGREP_VERSION 2

/* ================================================================
 * One ELF file's progrep
 * ================================================================ */

/* What a SOURCE, a TARGET or a result names (schemas/progrep.md). */
enum dpa_pr_ref_kind {
	DPA_PR_NONE,            /* result: no value used */
	DPA_PR_TEMP,            /* result: an unnamed value */
	DPA_PR_PARAM,           /* {"param": name} */
	DPA_PR_LOCAL,           /* {"local": name} */
	DPA_PR_GLOBAL,          /* {"global": name} */
	DPA_PR_CALL,            /* source {"call": site} (has_site false: {"call": null}) */
	DPA_PR_ADDR_OF,         /* source {"addr_of": {var: name}}: var is PARAM/LOCAL/GLOBAL */
	DPA_PR_FUNCTION,        /* source {"function": name}; target "function" (name NULL) */
	DPA_PR_CONST,           /* source {"const": true} */
	DPA_PR_STRING,          /* source {"const": "string"}; target "string" */
	DPA_PR_MEMORY,          /* source {"memory": true} */
	DPA_PR_VIA_PARAM,       /* target {"via_param": name} */
	DPA_PR_HEAP,            /* target {"heap": site} */
	DPA_PR_NULL,            /* target "null" */
	DPA_PR_UNKNOWN,         /* target "unknown" */
	DPA_PR_NREFS
};

struct dpa_pr_ref {
	uint8_t kind;           /* enum dpa_pr_ref_kind */
	uint8_t var;            /* DPA_PR_ADDR_OF: DPA_PR_PARAM, _LOCAL or _GLOBAL */
	bool has_site;          /* DPA_PR_CALL, DPA_PR_HEAP: site is set */
	uint32_t site;          /* TU-wide site index */
	const char *name;       /* variable or function name, else NULL */
};

enum dpa_pr_effects { DPA_PR_EFF_CONST, DPA_PR_EFF_PURE, DPA_PR_EFF_MEMORY };

struct dpa_pr_arg {
	uint32_t n_from;
	struct dpa_pr_ref *from;
	bool has_points_to;     /* the record had "points_to" (a pointer argument) */
	uint32_t n_points_to;
	struct dpa_pr_ref *points_to;
};

/* One call site's record. */
struct dpa_pr_call {
	uint32_t site;          /* TU-wide index: the key is (tu_id, site) */
	uint32_t fn;            /* index of its function in dpa_progrep.fn */
	const char *callee;     /* NULL: indirect */
	uint8_t kind;           /* enum dpa_css_kind: NORMAL, INDIRECT or EXTERNAL */
	uint8_t effects;        /* enum dpa_pr_effects */
	bool tail, noreturn;
	uint32_t line, col;
	uint32_t n_target_from;
	struct dpa_pr_ref *target_from;
	uint32_t n_args;
	struct dpa_pr_arg *args;
	struct dpa_pr_ref result;   /* NONE, TEMP, PARAM, LOCAL or GLOBAL */
};

/* A body: items in execution order. */
enum dpa_pr_item_kind {
	DPA_PR_ITEM_CALL, DPA_PR_ITEM_BRANCH, DPA_PR_ITEM_LOOP,
	DPA_PR_ITEM_USE,        /* {"use": name}: a statement reading parameter name */
	DPA_PR_ITEM_STORE       /* {"store": name}: a store through pointer parameter name */
};
struct dpa_pr_item;
struct dpa_pr_body {
	uint32_t n;
	struct dpa_pr_item *items;
};
struct dpa_pr_item {
	uint8_t kind;           /* enum dpa_pr_item_kind */
	bool is_switch;         /* branch: "switch" (else "if") */
	uint32_t site;          /* call */
	uint32_t line;          /* branch, loop */
	uint32_t n_arms;        /* branch: >= 2 */
	struct dpa_pr_body *arms;
	struct dpa_pr_body body;    /* loop */
	const char *name;       /* use, store: the parameter's name */
	uint32_t param;         /* use, store: its index in the function's params */
};

struct dpa_pr_param {
	const char *name;       /* NULL: unnamed */
	const char *type;
	bool pointer;
};

/* The checksum's state after dpa_progrep checked it against the source. */
enum dpa_pr_sum_state {
	DPA_PR_SUM_OK,          /* the source's lines hash to the recorded checksum */
	DPA_PR_SUM_STALE,       /* they do not: the function changed since it was compiled */
	DPA_PR_SUM_NO_SOURCE,   /* the source file cannot be read now */
	DPA_PR_SUM_UNKNOWN,     /* recorded 0: the plugin could not read the source */
	DPA_PR_SUM_NSTATES
};

struct dpa_pr_fn {
	uint32_t version;       /* the record's "progrep" version: 1 has no use/store
				 * items (an older plugin), 2 has them */
	uint32_t tu;            /* index in dpa_progrep.tu */
	uint32_t ps;            /* index in its TU's ps table: the key is (tu_id, ps) */
	const char *name, *file;
	uint32_t line, end_line;
	uint64_t checksum;      /* as recorded */
	uint64_t source_sum;    /* recomputed (DPA_PR_SUM_OK, _STALE), else 0 */
	uint8_t sum_state;      /* enum dpa_pr_sum_state */
	bool partial;           /* read lazily (dpa_progreps_load_used()) and not
				 * loaded yet: only the fields above and first_site,
				 * n_sites, backedges are set, and calls[i].site and
				 * .fn; dpa_progrep_fn_load() reads the rest */
	bool public_;
	uint32_t first_site, n_sites, backedges;
	uint32_t n_params;
	struct dpa_pr_param *params;
	struct dpa_pr_body body;
	uint32_t n_unplaced;
	uint32_t *unplaced;
	struct dpa_pr_call *calls;  /* n_sites: calls[i].site == first_site + i */
};

struct dpa_pr_tu {
	uint64_t id;
	const char *file;
	uint32_t n_ps, n_css, abi;
	struct dpa_pr_fn **fn_of_ps;       /* n_ps entries, NULL: no record */
	struct dpa_pr_call **call_of_site; /* n_css entries, NULL: no record */
};

/* A file's progrep. Arrays are in the order of the records in the section.
 * dpa_progrep owns everything; dpa_progrep_release() frees it all. */
struct dpa_progrep {
	char *path;             /* the ELF file */
	uint32_t n_tu, n_fn;
	struct dpa_pr_tu *tu;
	struct dpa_pr_fn *fn;
	uint32_t n_sum[DPA_PR_SUM_NSTATES];  /* functions per checksum state */
	void *pool;             /* private: arena and strings */
};

/*
 * Read the .deepprof.progrep section of the ELF file `path` into *pr (which
 * the caller provides, uninitialised), validate every record, and check each
 * function's checksum against its source file (a relative `file` is looked up
 * in the DW_AT_comp_dir of the file's DWARF, then beside `path`, then in the
 * current directory).
 * Returns 0 when loaded; 1 when the file is an ELF file without the section
 * (a -finstrument-functions or uninstrumented build: *pr is then empty but
 * valid, path set); -1 with one line in *err naming `path` (and the record's
 * line in the section) for a missing or non-ELF file, a truncated section,
 * or a malformed record. Whatever it returns, dpa_progrep_release() is safe.
 */
int dpa_progrep_read(struct dpa_progrep *pr, const char *path, struct dpa_error *err);

/* Parse `len` bytes of section text (JSON lines) as if read from `path`:
 * what dpa_progrep_read() does after reading the section. Returns 0 or -1. */
int dpa_progrep_parse(struct dpa_progrep *pr, const char *path, const char *text, size_t len,
		      struct dpa_error *err);

/* Free everything *pr owns; *pr is then zeroed. A zeroed *pr does nothing. */
void dpa_progrep_release(struct dpa_progrep *pr);

/* The work reading *pr took, in steps: records read, hash-table slots
 * looked at (TUs by id, source files by name), source lines indexed and
 * lines hashed for checksums. Reading is linear: this grows in proportion
 * to the section and its sources, which the unit tests check without timing
 * anything. 0 for a zeroed *pr. */
uint64_t dpa_progrep_steps(const struct dpa_progrep *pr);

/* Lookups by key; NULL when there is no such record. */
struct dpa_pr_tu *dpa_progrep_tu(const struct dpa_progrep *pr, uint64_t tu_id);
struct dpa_pr_fn *dpa_progrep_fn(const struct dpa_progrep *pr, uint64_t tu_id, uint32_t ps);
struct dpa_pr_call *dpa_progrep_site(const struct dpa_progrep *pr, uint64_t tu_id, uint32_t site);

/* FNV-1a 64 of the bytes of lines from..to (1-based, each with its newline)
 * of text[0..len): the function checksum of schemas/progrep.md. */
uint64_t dpa_progrep_checksum(const char *text, size_t len, uint32_t from, uint32_t to);

/* Names for display and JSON: "const"/"pure"/"memory"; "ok"/"stale"/
 * "no-source"/"unknown"; "param", "local", ... (the JSON key or string). */
const char *dpa_pr_effects_name(enum dpa_pr_effects e);
const char *dpa_pr_sum_name(enum dpa_pr_sum_state s);
const char *dpa_pr_ref_name(enum dpa_pr_ref_kind k);

/* ================================================================
 * A profile's progreps
 * ================================================================ */

/* Per module of a profile. */
enum dpa_pr_module_state {
	DPA_PR_LOADED,          /* progrep read */
	DPA_PR_ABSENT,          /* "no progrep": the file has no .deepprof.progrep section */
	DPA_PR_UNREADABLE,      /* the file is missing or not ELF (msg says why) */
	DPA_PR_MISMATCH,        /* the file's build id differs from the profile's */
	DPA_PR_SYNTHETIC        /* no file (module path empty) */
};

struct dpa_pr_module {
	uint8_t state;          /* enum dpa_pr_module_state */
	char *msg;              /* UNREADABLE, MISMATCH: one line naming the file; else NULL */
	struct dpa_progrep pr;  /* LOADED: the records; else empty */
};

/* Where a profile's node is in its module's progrep. */
struct dpa_pr_ps_map {
	uint32_t module;        /* 0: not mapped */
	struct dpa_pr_fn *fn;
};
struct dpa_pr_css_map {
	uint32_t module;        /* 0: not mapped */
	uint64_t tu_id;
	uint32_t site;
	struct dpa_pr_call *call;   /* NULL: key known (from the table) but no record */
};

struct dpa_progreps {
	const struct dpa_profile *p;    /* not owned */
	struct dpa_pr_module *mod;      /* [1 .. p->n_module] */
	struct dpa_pr_ps_map *ps;       /* [1 .. p->n_ps] */
	struct dpa_pr_css_map *css;     /* [1 .. p->n_css] */
	uint32_t n_loaded, n_absent, n_unusable;   /* modules by state (unusable:
						    * unreadable or mismatch) */
	uint32_t n_ps_mapped, n_css_mapped;
};

/*
 * Load the progrep of every module of *p from the file at its path, and map
 * p's ps and css to their records. A css of a plugin build (its offset the
 * address of a dp_css_static record, i.e. inside a __deepprof_css symbol of
 * the module file) is mapped through the (index, tu_id) stored in that
 * record; a ps through a mapped css it makes, else by (name, file, line).
 * A module without progrep, missing or with another build id is not an
 * error (its state says so); a malformed progrep is: -1 with *err naming
 * the module file and the record. *s must be released with
 * dpa_progreps_release() whatever this returns; *p must outlive *s.
 */
int dpa_progreps_load(struct dpa_progreps *s, const struct dpa_profile *p, struct dpa_error *err);

/*
 * dpa_progreps_load(), reading only what the profile uses: every record's
 * head (its keys but params, body, unplaced and calls) and the whole record
 * of each function that a ps or a css of p maps to. The other functions
 * are partial (dpa_pr_fn.partial) until dpa_progrep_fn_load() reads them.
 * The records read are checked as dpa_progreps_load() checks them, with the
 * same messages; the rest of a partial function's record is checked only
 * if it is loaded, so a malformed body, call or parameter list of a
 * function the profile never ran is not an error here (deepprof progrep
 * reads everything). On the sqlite3 bench, about half the section.
 */
int dpa_progreps_load_used(struct dpa_progreps *s, const struct dpa_profile *p,
			   struct dpa_error *err);

/* Read the rest of function f of pr if it is partial (pr and *f are
 * logically const: this fills in what a full read would have). Returns 0;
 * -1 when its record is malformed (f stays partial; the failure is kept for
 * dpa_progreps_check()). Not thread-safe on one pr. */
int dpa_progrep_fn_load(const struct dpa_progrep *pr, struct dpa_pr_fn *f);

/* 0, or -1 with *err set to the first failure of dpa_progrep_fn_load() on
 * any module of s (one line naming the file and the record's line). */
int dpa_progreps_check(const struct dpa_progreps *s, struct dpa_error *err);

void dpa_progreps_release(struct dpa_progreps *s);

const char *dpa_pr_module_state_name(enum dpa_pr_module_state st);
	/* "loaded", "no progrep", "unreadable", "build id mismatch", "synthetic" */

#endif
