/*
 * par_cost.h — the parallel cost model over abstract tasks (par_cost.c): a
 * pure function of numbers, which autopar.c applies to candidate regions.
 * Private to the feedback library. Part of deepprof's feedback library.
 * MIT licence.
 */
#ifndef DPF_PAR_COST_H
#define DPF_PAR_COST_H

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

/*
 * The best assignment of groups to at most max_tasks tasks, in any
 * arrangement (not only contiguous runs): group[i] (< n_groups) is call
 * i's group, and the calls of a group share a task (a dependence check
 * found them touching the same memory). pb's dependences and conflicts
 * are not used. Each task runs its calls in source order. Tasks are
 * numbered by their first call. Returns 0, or -1 out of memory.
 */
int dpf_pc_search_groups(const struct dpf_pc_problem *pb, const uint32_t *group, uint32_t n_groups,
			 struct dpf_pc_result *res);

#endif
