/*
 * diff.h — compare two profiles of one program: per procedure (summed over
 * its contexts) and per context (matched as `deepprof merge` matches them),
 * what got cheaper or dearer, absolutely and relatively, for each measure.
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_DIFF_H
#define DPA_DIFF_H

#include <jansson.h>

#include "profile.h"
#include "merge.h"

/* The measures a diff reports, in display order. DPA_DIFF_TIME is the
 * ticks of each side times that side's ns_per_tick, in ns. */
enum dpa_diff_measure {
	DPA_DIFF_CALLS,
	DPA_DIFF_CSCS,
	DPA_DIFF_TICKS,
	DPA_DIFF_TIME,
	DPA_DIFF_ALLOCS,
	DPA_DIFF_BYTES,
	DPA_DIFF_NMEASURES
};

enum dpa_diff_status {
	DPA_DIFF_SAME,          /* on both sides, every measure equal */
	DPA_DIFF_CHANGED,       /* on both sides, some measure differs */
	DPA_DIFF_NEW,           /* only in NEW */
	DPA_DIFF_GONE           /* only in OLD */
};

/* One procedure or one context. Values are own costs (a context's own cost
 * is the sum of the own costs of the csds calling into it; a procedure's is
 * the sum over its contexts). time values are ns, rounded down. */
struct dpa_diff_row {
	uint32_t id;            /* ps id (procedures) or pd id (contexts) in d->m.prof */
	uint8_t status;         /* enum dpa_diff_status */
	uint64_t old[DPA_DIFF_NMEASURES], new_[DPA_DIFF_NMEASURES];
	/* Procedures only, when d->inherited: the inherited (own + descendants)
	 * costs of analyses/startup.h, outermost contexts only. */
	uint64_t old_total[DPA_DIFF_NMEASURES], new_total[DPA_DIFF_NMEASURES];
};

struct dpa_diff {
	struct dpa_merged m;    /* OLD (input 0) and NEW (input 1) merged */
	char *old_path, *new_path;      /* the profiles' file names (owned) */
	char *program[2];       /* each side's program path (owned) */
	double ns_per_tick[2];
	uint64_t old_sum[DPA_DIFF_NMEASURES], new_sum[DPA_DIFF_NMEASURES]; /* over all csds */
	bool inherited;         /* old_total/new_total are filled */
	uint32_t n_procs, n_ctx;
	struct dpa_diff_row *procs, *ctx;   /* in id order until sorted */
};

/*
 * Compare OLD with NEW. Both profiles are borrowed for the call only
 * (old/new are not changed; startup's cliques are computed on them).
 * Contexts are matched as dpa_merge() matches them (merge.h); call
 * dpa_profile_symbolize() on both first to match procedures by name across
 * rebuilds. Refuses different programs unless `force`, like dpa_merge().
 * Returns 0, or -1 with *err set; on failure *d holds nothing to release.
 */
int dpa_diff_init(struct dpa_diff *d, struct dpa_profile *old, struct dpa_profile *new_,
		  bool force, struct dpa_error *err);

/* Free what *d owns; *d is then zeroed. Zeroed: nothing. */
void dpa_diff_release(struct dpa_diff *d);

/* Order procedures and contexts by the absolute change of `m`, largest
 * first; ties by the larger NEW value, then by id. */
void dpa_diff_sort(struct dpa_diff *d, enum dpa_diff_measure m);

/* "calls", "cscs", "ticks", "time_ns", "allocs", "bytes"; and back (-1 when
 * unknown; "time" is accepted for time_ns). */
const char *dpa_diff_measure_name(enum dpa_diff_measure m);
int dpa_diff_measure_parse(const char *name);
const char *dpa_diff_status_name(enum dpa_diff_status s);  /* "same", "changed", "new", "gone" */

/* new - old, saturated to the int64 range. */
int64_t dpa_diff_delta(uint64_t old, uint64_t new_);
/* (new - old) / old; NAN when old is 0. */
double dpa_diff_relative(uint64_t old, uint64_t new_);

/* The display name of a context: its procedures from the thread's root
 * along the shortest path, "main > f > g" (root left out), and for other
 * threads than the first "[thread 2] w > g". Malloc'd; NULL when out of memory. */
char *dpa_diff_context_name(const struct dpa_diff *d, uint32_t pd);

/*
 * The JSON document of schemas/diff.md, with the rows as currently sorted,
 * at most `limit` of each kind (0: all). `sort` is recorded in it. A new
 * reference the caller owns (json_decref), or NULL when out of memory.
 */
json_t *dpa_diff_json(const struct dpa_diff *d, enum dpa_diff_measure sort, size_t limit);

#endif
