/*
 * report.h — report structures (Mercury's create_report): what `deepprof
 * report` shows, computed from the deep structure and free of any format.
 * report_display (display.h) turns one into tables; renderers print those.
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_REPORT_H
#define DPA_REPORT_H

#include "startup.h"
#include "recursion.h"

enum dpa_report_kind {
	DPA_REPORT_SUMMARY,
	DPA_REPORT_TOP,
	DPA_REPORT_PROC,
	DPA_REPORT_CLIQUE,
	DPA_REPORT_SITE,
	DPA_REPORT_CALLERS,
	DPA_REPORT_RECURSION,
	DPA_REPORT_NKINDS
};

/* How the callers report groups the calls into a procedure. */
enum dpa_report_group {
	DPA_GROUP_SITE,         /* by call site (css) */
	DPA_GROUP_PROC,         /* by calling procedure (ps) */
	DPA_GROUP_FILE,         /* by the calling procedure's source file */
	DPA_GROUP_CLIQUE,       /* by the caller's clique */
	DPA_GROUP_N
};

struct dpa_report_opts {
	enum dpa_report_kind kind;
	enum dpa_measure sort;  /* DPA_CALLS, DPA_CSCS, DPA_TICKS, DPA_ALLOCS, DPA_BYTES */
	bool total;             /* rank by self+descendants (else self) */
	bool per_call;          /* values divided by the calls into the node */
	uint32_t limit;         /* at most this many ranked rows; 0: all */
	double threshold;       /* > 0: only rows whose sort value is at least this
				 * percentage of the program's total */
	const char *name;       /* proc, callers: `name` or `file.c:name` */
	/* proc, callers: when n_procs > 0, the procedures name picks (ps ids,
	 * ascending; borrowed), which the caller has looked up already: name
	 * is then only shown (a server looks names up from its own index,
	 * dpa_names_find() being O(procedures)) */
	const uint32_t *procs;
	uint32_t n_procs;
	uint32_t id;            /* clique, site */
	enum dpa_report_group group;
};

/* The costs a row carries: own (self) and total (self + descendants). */
struct dpa_report_costs {
	uint64_t own[DPA_NMEASURES], total[DPA_NMEASURES];
};

/*
 * One row of a section. Which fields mean something depends on the section
 * (report.c's section comments); unused ids are 0, unused strings NULL.
 * Strings point into the profile (or the report's own strings) and live as
 * long as the report.
 */
struct dpa_report_row {
	uint32_t ps;            /* the procedure the row is about (0: none) */
	uint32_t css, csd, pd, clique;
	uint32_t other_ps;      /* the callee (sites) or the caller (callers) */
	uint32_t count;         /* contexts, members, csds grouped, ... */
	const char *label;      /* file name (callers --by=file), or NULL */
	struct dpa_report_costs c;
	uint64_t calls;         /* calls into the node (per-call denominator) */
	bool internal;          /* a call inside a clique (no inherited cost) */
	struct dpa_recursion rec;   /* recursion report only */
};

struct dpa_report_section {
	const char *name;       /* "procedures", "call_sites", ... (JSON key) */
	uint32_t n, cap;
	struct dpa_report_row *row;
	uint32_t n_before_limit;/* rows there were before limit/threshold */
};

#define DPA_REPORT_MAX_SECTIONS 6

struct dpa_report {
	struct dpa_report_opts o;
	const struct dpa_deep *d;       /* borrowed */
	const struct dpa_profile *p;    /* d->p */
	uint64_t program[DPA_NMEASURES];/* the whole program's cost (all threads) */
	/* summary */
	uint32_t n_recursive;
	/* proc, callers: the procedures the name matched */
	uint32_t *procs, n_procs;
	/* clique, site, proc: the node itself */
	struct dpa_report_row self;
	/* recursion: cliques of each type */
	uint32_t by_type[DPA_REC_NTYPES];
	struct dpa_report_section sec[DPA_REPORT_MAX_SECTIONS];
	int n_sec;
};

/*
 * Build the report o->kind of *d into *r. *d is borrowed and must outlive *r.
 * Returns 0, or -1 with err set: an unknown name (with close matches), an
 * id out of range, out of memory. On failure *r holds nothing to release.
 */
int dpa_report_init(struct dpa_report *r, const struct dpa_deep *d,
		    const struct dpa_report_opts *o, struct dpa_error *err);

/* Free what *r owns; *r is then zeroed. Releasing a zeroed report does nothing. */
void dpa_report_release(struct dpa_report *r);

/* Names: "summary", "top", ...; "site", "proc", ... for groups.
 * The parse functions return -1 for an unknown name. */
const char *dpa_report_kind_name(enum dpa_report_kind k);
int dpa_report_kind_parse(const char *s);
const char *dpa_report_group_name(enum dpa_report_group g);
int dpa_report_group_parse(const char *s);
/* "calls", "cscs", "ticks" (also "time"), "allocs", "bytes" → the measure. */
int dpa_report_measure_parse(const char *s);

/* A row's value of measure m as the options ask (own or total, per call). */
double dpa_report_value(const struct dpa_report *r, const struct dpa_report_row *row,
			enum dpa_measure m);

#endif
