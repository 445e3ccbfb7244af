/*
 * feedback.h — the feedback model, the feedback library's public header:
 * what `deepprof feedback` finds in one or more profiles of a program (hot
 * and cold code, recursion patterns, variable-use timing, parallelism
 * candidates) and what a feedback file holds (schemas/feedback.md,
 * schemas/feedback.schema.json); the analysis that makes one, combining
 * several, and the model's life cycle. feedback_file.h reads the files.
 * C and C++ (the GCC plugin) include it; it needs only analyses/errors.h.
 * Part of deepprof's feedback library. MIT licence.
 */
#ifndef DPF_FEEDBACK_H
#define DPF_FEEDBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What dpf_feedback_analyse() reads: a profile after startup (startup.h)
 * and its program representations (progrep.h), both of analyses/. */
struct dpa_deep;
struct dpa_progreps;

/* The feedback file format version (the "version" of its header); a reader
 * rejects a larger one. */
#define DPF_FEEDBACK_VERSION 1

/* ================================================================
 * Units and options
 * ================================================================ */

/*
 * The measure an estimate rests on. CSCS: call sequence counts, loop-aware in
 * plugin builds (header clock "calls+loops"); the profile's costs in CSCs,
 * converted to time with ns_per_unit = the uninstrumented program's time
 * (--program-time) / its cost in CSCs, else cpu_ns / cscs of the profile
 * (the instrumented run: slower per CSC; header ns_per_unit_source says which).
 * TICKS: a -finstrument-functions build (clock "calls": a CSC is only a call,
 * so CSCs do not measure time); costs come from clock ticks, ns_per_unit =
 * the header's ns_per_tick. Every cost in the model is a double in the
 * basis's unit; multiply by dpf_feedback.ns_per_unit for nanoseconds.
 */
enum dpf_basis { DPF_CSCS, DPF_TICKS, DPF_NBASES };

/*
 * Parallel overheads, in nanoseconds of this machine, for the code shape the
 * estimates assume (OpenMP tasks, libgomp), in a `#pragma omp parallel` +
 * `single` region that already exists:
 *     #pragma omp task        (group 2) ... (group k), each spawned in order
 *     group 1 runs on the spawning thread once it has spawned the others
 *     #pragma omp taskwait
 * (Mercury's order: the first group starts at once, so a producer early in
 * the sequence is never the delayed one; schemas/feedback-model.md §6.)
 * spawn_cost   what spawning one task costs the spawning thread
 * spawn_delay  from the spawn until another thread starts running the task
 * barrier_cost the taskwait when every task has already finished
 * signal_cost  a producer making a shared value available (store + flag)
 * wait_cost    a consumer finding a shared value already available
 * wakeup_delay a consumer that had to block: from the signal to running again
 * `deepprof calibrate` measures them (feedback/calibrate.c) and writes a
 * calibration file (schemas/feedback.md) that dpf_overheads_read() reads.
 */
struct dpf_overheads {
	double spawn_cost, spawn_delay, barrier_cost, signal_cost, wait_cost, wakeup_delay;
	char source[256];       /* "defaults", or the calibration file's path */
};

struct dpf_options {
	struct dpf_overheads ov;
	int basis;              /* -1: choose from the profile (CSCS if its clock
				 * is "calls+loops", else TICKS); else enum dpf_basis */
	double call_threshold;  /* ns: a call is costly when its mean total cost
				 * per call is at least this */
	double proc_threshold;  /* ns: a procedure (per context) is searched for
				 * candidates when its mean total cost per call is
				 * at least this */
	double speedup_threshold;   /* a candidate is kept when its estimated
				     * speedup of its region is above this (1.01) */
	unsigned max_tasks;     /* desired parallelism: at most this many tasks
				 * per candidate (default: online CPUs) */
	unsigned search_budget; /* partitions evaluated per candidate before the
				 * best-partition search goes greedy (1000) */
	double hot_threshold;   /* ns: a procedure or site is hot when its mean
				 * or median total cost per call is at least this */
	uint64_t rare_calls;    /* "almost never executed": at most this many
				 * calls (0 only means "never") */
	bool per_context;       /* also report candidates per calling context,
				 * not only merged over contexts */
	double list_share;      /* a region with too few costly calls is listed
				 * (verdict too_cheap) only when two of its calls,
				 * over all its executions, each cost at least this
				 * share of the whole program (0.01) */
	double program_ns;      /* ns: the uninstrumented program's time as the
				 * user measured it (`--program-time`); > 0 sets
				 * ns_per_unit = program_ns / program_cost; 0: from
				 * the instrumented run (the profile's header) */
};

/* Fill *o with the documented defaults (schemas/feedback.md). */
void dpf_options_default(struct dpf_options *o);

/* Read a calibration file written by `deepprof calibrate` into *ov (source
 * set to path). Returns 0, or -1 with one line in *err naming the file
 * (missing, not JSON, wrong format or version, a value missing or not a
 * finite non-negative number). */
int dpf_overheads_read(struct dpf_overheads *ov, const char *path, struct dpa_error *err);

/* ================================================================
 * The model
 * ================================================================ */

/* How a compiler finds a place again. Strings are owned by the feedback. */
struct dpf_place {
	const char *fn;         /* the function the place is in */
	const char *file;
	uint32_t line, col;
	bool has_site;          /* plugin build: the static call-site id is known */
	uint64_t tu_id;         /* with has_site: "<tu>:<site>" */
	uint32_t site;
	uint64_t checksum;      /* the function's progrep checksum, 0: unknown */
};

/* Hot and cold code. */
enum dpf_hot_kind { DPF_PROC, DPF_SITE };
enum dpf_temp { DPF_HOT, DPF_RARE, DPF_NEVER };
struct dpf_hot {
	uint8_t kind;           /* enum dpf_hot_kind */
	uint8_t temp;           /* enum dpf_temp */
	struct dpf_place at; /* PROC: the function's first line; SITE: the call */
	const char *callee;     /* SITE: the callee's name, NULL if unknown */
	uint64_t calls;
	double mean, median;    /* total cost per call, in the basis's unit; the
				 * median is over the calls, per calling context */
	double mean_cscs, mean_ns;  /* the same mean in CSCs and in time (ticks) */
	uint64_t outer_calls;   /* the calls mean and median are over: a PROC's
				 * calls from outside its clique (all its calls
				 * when there are none), a SITE's calls */
};

/* Recursion patterns, per clique (recursive cliques only). */
struct dpf_recursion {
	struct dpf_place at;     /* the clique's first member procedure */
	uint32_t clique;            /* in the first input's profile */
	uint8_t type;               /* enum dpa_rec_type (analyses/recursion.h) */
	bool from_progrep;          /* the type rests on the program
				     * representation (else on call counts) */
	uint32_t members;
	uint64_t entry_calls, internal_calls;
	double depth;               /* levels per entry */
	double cost_per_entry;      /* total cost of one entry, basis unit */
	uint32_t n_levels;          /* level_cost[0 .. n_levels): cost of one call
				     * at that level (0: the entry), at most 64 */
	double *level_cost;
	uint32_t cutoff_depth;      /* single/divide-and-conquer: spawn only at
				     * levels below this (0: never worth it) */
	const char *why;            /* the cut-off in plain words */
	uint32_t rec_sites;         /* distinct call sites of recursive calls */
	uint32_t branching;         /* the level model's recursive calls per
				     * activation: 1 single, 2+ divide-and-conquer,
				     * 0 no level model (mutual, other) */
	double per_call;            /* cost of one activation without its
				     * recursive calls (its own work and
				     * non-recursive callees), basis unit */
	double spawn_overhead;      /* spawn_cost + spawn_delay + barrier_cost,
				     * basis unit: what the cut-off weighs */
	double own_per_call;        /* the clique's own code per activation
				     * (constant per activation), basis unit */
	double combine_cost;        /* its non-recursive callees per entry
				     * (divide/combine work, proportional to the
				     * sub-problem: the same at every level) */
	uint32_t cores;             /* P of the divide-and-conquer model */
	double par_cost;            /* divide-and-conquer: one entry's parallel
				     * time at cutoff_depth on `cores` cores
				     * (recursion_patterns.c); 0 when no
				     * cut-off */
	/* entered at every level of another divide-and-conquer recursion (a
	 * mergesort's merge): that clique (0: not), and the levels its entries
	 * span; the level model (cost_per_entry, level_cost, per_call, cut-off)
	 * is then the top entry's, which costs total / nested_levels */
	uint32_t nested_in;
	double nested_levels;
};

/* Variable-use timing of a costly call. */
enum dpf_use { DPF_PRODUCED, DPF_CONSUMED };
struct dpf_var_use {
	struct dpf_place at; /* the call */
	const char *callee;
	int32_t arg;            /* argument index, -1: the return value */
	const char *var;        /* the parameter's name in the callee, or
				 * "return"; NULL if unnamed */
	uint8_t use;            /* enum dpf_use */
	double time;            /* basis units from the call's start */
	double fraction;        /* time / the call's cost, in [0, 1] */
	double call_cost;       /* the call's mean cost */
	bool known;             /* false: the pessimistic assumption (consumed at
				 * 0, produced at the end) */
	const char *why;        /* how it was found, or why it is not known */
};

/* Parallelism candidates. */
enum dpf_safety {
	DPF_SAFE,            /* registers and locals independent, memory proven
				 * disjoint (const/pure callees, distinct locals) */
	DPF_UNKNOWN_MEMORY,  /* memory effects unknown: needs a check */
	DPF_CHECKED,         /* a dependence check (deepprof-cc --deepprof-check)
				 * saw no conflict between the tasks on
				 * check_inputs inputs: not proved */
	DPF_CONFLICT,        /* the check saw the calls touch the same memory
				 * in every split: never parallel */
	DPF_NSAFETY
};
enum dpf_verdict {
	DPF_ACCEPTED,
	DPF_TOO_CHEAP,       /* the calls are below call_threshold */
	DPF_NO_SPEEDUP,      /* best speedup at most speedup_threshold */
	DPF_DEPENDENT,       /* dependent with no overlap */
	DPF_UNSAFE,          /* a dependence that cannot be synchronised */
	DPF_NVERDICTS
};

struct dpf_call {
	struct dpf_place at;
	const char *callee;
	double cost;            /* mean cost per execution of the region */
	uint32_t task;          /* the task of the best partition, 0-based */
};

/* A value one call produces and a later one consumes. */
struct dpf_dep {
	uint32_t from, to;      /* indexes in calls[] */
	const char *var;        /* the variable that carries it */
	double produced, consumed;  /* as fractions of the producer's and the
				     * consumer's cost */
	bool known;             /* false: pessimistic */
	bool memory;            /* through memory the calls point to (not written to
				 * the feedback file): a dependence check supersedes it */
};

struct dpf_candidate {
	uint32_t id;            /* 1-based, unique in the file; --explain ID */
	struct dpf_place proc;   /* the procedure the calls are in */
	const char *context;    /* NULL: merged over contexts; else the calling
				 * context, "main > solve > " style */
	uint64_t executions;    /* times the region ran */
	uint32_t n_calls;
	struct dpf_call *calls;
	uint32_t n_tasks;       /* in the best partition */
	uint32_t n_deps;
	struct dpf_dep *deps;
	uint8_t safety;         /* enum dpf_safety */
	const char *safety_why;
	/* the dependence check: inputs (profiles) whose check covered the
	 * calls, and the region's executions checked over them */
	uint32_t check_inputs;
	uint64_t check_executions;
	/* the procedures that ran beneath the calls (any depth), by name: what
	 * a check build instruments (reach_all: too many to list, check all) */
	uint32_t n_reach;
	const char **reach;
	bool reach_all;
	/* a loop candidate (loop_line != 0): its one call, made once per
	 * iteration of the loop at loop_line, is a task per iteration; the
	 * iterations' results meet only in a sum (the use build checks) */
	uint32_t loop_line;
	double iterations;      /* per execution of the loop, mean */
	uint32_t loop_cutoff;   /* a recursive call: spawn only at recursion
				 * depths below this; 0: not recursive */
	uint8_t verdict;        /* enum dpf_verdict */
	const char *verdict_why;
	uint32_t partitions_tried;
	bool search_complete;   /* false: the budget ran out, greedy after */
	/* per execution of the region, basis units: */
	double seq_time, par_time;
	double overhead;        /* the overheads inside par_time */
	double speedup;         /* seq_time / par_time */
	double program_speedup; /* the whole program's, if only this changes */
	/* batch: over the inputs that have this candidate (1 input: all equal) */
	uint32_t n_inputs_seen;
	double speedup_min, speedup_median, speedup_max;
};

/* One input profile. */
struct dpf_input {
	const char *path;
	uint32_t crc32;         /* of the whole file */
	const char *program;
	uint64_t cscs, cpu_ns;
	uint8_t basis;          /* enum dpf_basis */
	bool has_progrep;       /* some module had a loaded progrep */
};

/*
 * A feedback. It owns every array and string (in its arena);
 * dpf_feedback_release() frees them all.
 */
struct dpf_feedback {
	uint32_t version;       /* DPF_FEEDBACK_VERSION */
	const char *program;
	uint32_t n_input;
	struct dpf_input *input;
	struct dpf_options opt;
	uint8_t basis;          /* enum dpf_basis: every estimate's */
	double ns_per_unit;
	const char *ns_per_unit_source; /* "instrumented run", "program time",
					 * "clock ticks" or "none" (analyse.c) */
	uint64_t program_cost;  /* the whole program's cost, basis units */
	uint32_t n_hot;
	struct dpf_hot *hot;
	uint32_t n_rec;
	struct dpf_recursion *rec;
	uint32_t n_var_use;
	struct dpf_var_use *var_use;
	uint32_t n_cand;        /* accepted ones first, by program_speedup */
	struct dpf_candidate *cand;
	void *pool;             /* private: the arena */
};

/*
 * Analyse one profile: *d (startup done) and its progreps *pr (may be NULL,
 * or have no loaded module: then candidates rest on the profile alone, are
 * marked unknown-memory and variable uses are pessimistic). *fb is the
 * caller's, uninitialised. Returns 0, or -1 with *err set (out of memory, a
 * profile whose basis measure is all zero). Never prints.
 */
int dpf_feedback_analyse(struct dpf_feedback *fb, const struct dpa_deep *d,
			 const struct dpa_progreps *pr, const struct dpf_options *o,
			 struct dpa_error *err);

/*
 * Combine the feedbacks of several inputs of one program into *out: the
 * candidates matched by (procedure, context, call-site places); the
 * estimates of out are those of the input where... (combine.c says),
 * with speedup_min/median/max over the inputs. Refuses different programs
 * (-1 with *err naming both). *out is uninitialised; the inputs are kept.
 */
int dpf_feedback_combine(struct dpf_feedback *out, const struct dpf_feedback *in, uint32_t n,
			 struct dpa_error *err);

/* Free what *fb owns; *fb is then zeroed. Zeroed: no-op. */
void dpf_feedback_release(struct dpf_feedback *fb);

/* Candidate `id` of *fb, or NULL. */
const struct dpf_candidate *dpf_feedback_candidate(const struct dpf_feedback *fb, uint32_t id);

/* The feedback's arena: memory that lives until dpf_feedback_release().
 * NULL on out of memory. Zero-filled. */
void *dpf_alloc(struct dpf_feedback *fb, size_t size);
const char *dpf_strdup(struct dpf_feedback *fb, const char *s);  /* NULL -> NULL */

/* Names: "cscs"/"ticks", "hot"/"rare"/"never", "proc"/"site",
 * "produced"/"consumed", "safe"/"unknown_memory", "accepted"/"too_cheap"/
 * "no_speedup"/"dependent"/"unsafe". */
const char *dpf_basis_name(enum dpf_basis b);
const char *dpf_temp_name(enum dpf_temp t);
const char *dpf_hot_kind_name(enum dpf_hot_kind k);
const char *dpf_use_name(enum dpf_use u);
const char *dpf_safety_name(enum dpf_safety s);
const char *dpf_verdict_name(enum dpf_verdict v);

#ifdef __cplusplus
}
#endif

#endif
