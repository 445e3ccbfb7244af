/*
 * analysis.h — private to the feedback analyses (feedback.c, var_use.c,
 * par_cost.c, autopar.c): the parallel cost model over abstract tasks, and
 * the context the var-use and candidate analyses share. Not installed.
 * Part of deepprof's feedback library. MIT licence.
 */
#ifndef DPF_ANALYSIS_H
#define DPF_ANALYSIS_H

#include "feedback.h"

/* ================================================================
 * The cost model (par_cost.c): a pure function of numbers
 * ================================================================ */

/*
 * A value call `from` produces `produce` units after its start and call `to`
 * (from < to) first consumes `consume` units after its start. Only a
 * dependence between calls in different tasks costs anything.
 */
struct dpf_pc_dep {
	uint32_t from, to;
	double produce, consume;
};

/*
 * One straight-line run of n calls (cost[i] per execution, basis units),
 * with `before` and `after` units of sequential code around the calls that
 * may be split into tasks. A conflict (from, to) is a pair that must stay in
 * one task (a write after a read or write of the same object: a future
 * cannot order it). Overheads in basis units.
 */
struct dpf_pc_problem {
	uint32_t n;
	const double *cost;
	uint32_t n_deps;
	const struct dpf_pc_dep *deps;
	uint32_t n_conflicts;
	const struct dpf_pc_dep *conflicts;     /* produce/consume unused */
	double before, after;
	struct dpf_overheads ov;
	unsigned max_tasks;     /* >= 1 */
	unsigned budget;        /* partitions evaluated before going greedy */
};

struct dpf_pc_result {
	uint32_t *task;         /* caller's [n]: the best partition's task of each call */
	uint32_t n_tasks;       /* 1: no valid partition into 2 or more tasks */
	double seq;             /* before + sum(cost) + after */
	double par;             /* the best partition's time (seq if n_tasks 1) */
	double overhead;        /* par minus the same partition with no overheads */
	double ideal;           /* the least time of any valid partition with no
				 * overheads: seq when dependences serialise all */
	uint32_t tried;         /* partitions evaluated (each with 2+ tasks) */
	bool complete;          /* every valid partition was evaluated */
	bool cut_allowed;       /* some partition into 2+ tasks is valid */
};

/*
 * The time of one partition: task[i] is call i's task, 0-based,
 * nondecreasing, every task non-empty. The model (schemas/feedback-model.md):
 * with k tasks, task 0 runs on the spawning thread after it spawned the
 * others (k-1 spawn_costs); task t >= 1 starts at t * spawn_delay. A task
 * runs its calls in order; at a consumption of a value produced in another
 * task it continues at once (+ wait_cost) if the value is there, else at
 * the signal + wait_cost + wakeup_delay; a production adds signal_cost to
 * its task and the value is there when it is signalled. The time is
 * before + the latest task's end + barrier_cost + after (k = 1: the
 * sequential time, no overheads). With ideal, all overheads count 0.
 */
double dpf_pc_eval(const struct dpf_pc_problem *pb, const uint32_t *task, bool ideal);

/*
 * Find the best partition of pb's calls into at most max_tasks contiguous
 * tasks that separates no conflict: every one when there are at most
 * `budget` of them (in order of task count, then boundary positions),
 * else the first `budget` and then greedily from the best so far (add the
 * boundary that gains most, while one gains). res->task must hold pb->n
 * entries. Returns 0, or -1 out of memory.
 */
int dpf_pc_search(const struct dpf_pc_problem *pb, struct dpf_pc_result *res);

/* ================================================================
 * The shared context (feedback.c sets it up; var_use.c, autopar.c use it)
 * ================================================================ */

/* A function of the program representation: its module and record. */
struct dpf_fn {
	uint32_t mod;
	const struct dpa_pr_fn *fn;
	uint32_t ps;            /* the profile's ps, 0: none */
};

struct dpf_ctx {
	struct dpf_feedback *fb;
	const struct dpa_deep *d;
	const struct dpa_profile *p;
	const struct dpa_progreps *pr;  /* NULL: no program representation */
	struct dpa_error *err;
	enum dpa_measure m;     /* DPA_CSCS or DPA_TICKS */
	double call_thr, proc_thr;      /* basis units */
	double list_thr;        /* basis units over the whole run */
	struct dpf_overheads ov;             /* basis units */
	/* per module: fn index -> first slot in site_css / its ps */
	uint32_t **fn_base;     /* [n_module+1][n_fn] */
	uint32_t **fn_ps;       /* [n_module+1][n_fn] */
	uint32_t *site_css;     /* slot -> css, 0: never ran here */
	uint32_t *css_csd;      /* css -> its first csd, 0: none */
	uint32_t *rec_of_clique;        /* clique -> 1 + its index in fb->rec, 0: none */
	/* var_use.c: the timings found so far (copied into fb's arena at the
	 * end), and the css each belongs to */
	struct dpf_var_use *vu;
	uint32_t *vu_css;
	uint32_t n_vu, cap_vu;
};

int dpf_ctx_init(struct dpf_ctx *c, struct dpf_feedback *fb, const struct dpa_deep *d,
		 const struct dpa_progreps *pr, struct dpa_error *err);
void dpf_ctx_release(struct dpf_ctx *c);

/* The css of site number `local` (0-based, in fn->calls) of f; 0: none. */
uint32_t dpf_site_css(const struct dpf_ctx *c, const struct dpf_fn *f, uint32_t local);
/* The function record of ps (f->fn NULL when it has none). */
struct dpf_fn dpf_fn_of_ps(const struct dpf_ctx *c, uint32_t ps);
/* The callee of call record `call` of f: through the css it ran as, else by
 * name in f's module. f->fn NULL when unknown. */
struct dpf_fn dpf_callee(const struct dpf_ctx *c, const struct dpf_fn *f, const struct dpa_pr_call *call);

/* ---- var_use.c ---- */

/* Does a call to f write through its parameter `param`? */
enum dpf_write { DPF_WRITES_NOT, DPF_WRITES, DPF_WRITES_MAYBE };
enum dpf_write dpf_writes_param(const struct dpf_ctx *c, const struct dpf_fn *f, uint32_t param,
				unsigned depth);

/* Does call record `call` of f write through its argument k? NOT for a
 * non-pointer argument or a const/pure callee; MAYBE when the callee's
 * stores are not known. */
enum dpf_write dpf_call_writes_arg(const struct dpf_ctx *c, const struct dpf_fn *f,
				   const struct dpa_pr_call *call, uint32_t k, unsigned depth);

/*
 * When a call to f (merged over its contexts) first consumes parameter
 * `param` (use DPF_CONSUMED) or last produces the object it points to
 * (DPF_PRODUCED), as a fraction of the call's cost in [0, 1]. Returns
 * whether it is known; *why says how, or why not (a static string).
 * Unknown: consumed at 0, produced at 1.
 */
bool dpf_use_fraction(const struct dpf_ctx *c, const struct dpf_fn *f, uint32_t param,
		      enum dpf_use use, unsigned depth, double *fraction, const char **why);

/*
 * Add the variable-use timings of a costly call (call record `call` of f,
 * css `css`, mean cost `cost` units) to fb->var_use, unless that css is
 * already there: the return value's production, each written pointer
 * argument's, each argument's consumption. Returns 0 or -1 (out of memory).
 */
int dpf_var_use_add(struct dpf_ctx *c, const struct dpf_fn *f, const struct dpa_pr_call *call,
		    uint32_t css, double cost);

/* Copy the timings found into fb->var_use, in the order found. 0 or -1. */
int dpf_var_use_finish(struct dpf_ctx *c);

/* ---- autopar.c ---- */

/* Find the candidates (and the var-use timings of their costly calls) and
 * fill fb->cand / fb->var_use. Returns 0 or -1. */
int dpf_autopar(struct dpf_ctx *c);

#endif
