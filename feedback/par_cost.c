/*
 * par_cost.c — the parallel cost model: the time of a straight-line run of
 * calls split into contiguous tasks, with spawn, signal, wait, wake-up and
 * barrier overheads and the overlap of dependent tasks (Mercury's model,
 * schemas/feedback-model.md), and the bounded best-partition search.
 * Part of deepprof's feedback library. MIT licence.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "par_cost.h"

/* ================================================================
 * One partition
 * ================================================================ */

/* An event inside a call: a consumption or a production of dependence dep,
 * `at` units after the call's start. */
struct ev {
	double at;
	uint32_t dep;
	bool produce;
};

/* Order by time; at one time, consumptions first (a call that forwards a
 * value cannot signal it before it has it). */
static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->produce != y->produce)
		return x->produce ? 1 : -1;
	return x->dep < y->dep ? -1 : x->dep > y->dep;
}

/* The time of partition task[] (k tasks) with its dependences left out:
 * the answer when there is no memory for them (optimistic, never a crash). */
static double eval_no_deps(const struct dpf_pc_problem *pb, const uint32_t *task, uint32_t k,
			   double spawn_cost, double spawn_delay, double barrier)
{
	double latest = 0, now = (k - 1) * spawn_cost;
	uint32_t t = 0;

	for (uint32_t i = 0; i < pb->n; i++) {
		if (task[i] != t) {
			if (now > latest)
				latest = now;
			t = task[i];
			now = t * spawn_delay;
		}
		now += pb->cost[i];
	}
	if (now > latest)
		latest = now;
	return pb->before + latest + barrier + pb->after;
}

/*
 * The model's time for partition task[] (see par_cost.h), in time linear
 * in calls + dependences: each dependence between tasks is bucketed once
 * under its producing and its consuming call. Scratch arrays come from the
 * stack when small, else the heap; on out of memory the dependences are
 * ignored (an optimistic estimate rather than a crash).
 */
double dpf_pc_eval(const struct dpf_pc_problem *pb, const uint32_t *task, bool ideal)
{
	const struct dpf_overheads *ov = &pb->ov;
	double spawn_cost = ideal ? 0 : ov->spawn_cost, spawn_delay = ideal ? 0 : ov->spawn_delay;
	double barrier = ideal ? 0 : ov->barrier_cost, signal = ideal ? 0 : ov->signal_cost;
	double wait = ideal ? 0 : ov->wait_cost, wakeup = ideal ? 0 : ov->wakeup_delay;
	uint32_t n = pb->n, nd = pb->n_deps, k, i;
	double seq = pb->before + pb->after, latest = 0;
	double avail_s[17];
	struct ev ev_s[33];
	uint32_t first_s[34];
	double *avail = avail_s;
	struct ev *ev = ev_s;
	uint32_t *first = first_s;

	for (i = 0; i < n; i++)
		seq += pb->cost[i];
	if (n == 0)
		return seq;
	k = task[n - 1] + 1;
	if (k <= 1)
		return seq;
	if (nd > 16 || n > 32) {
		avail = malloc(((size_t)nd + 1) * sizeof(*avail));
		ev = malloc((2 * (size_t)nd + 1) * sizeof(*ev));
		first = calloc((size_t)n + 1, sizeof(*first));
		if (!avail || !ev || !first) {
			free(avail);
			free(ev);
			free(first);
			return eval_no_deps(pb, task, k, spawn_cost, spawn_delay, barrier);
		}
	} else {
		memset(first_s, 0, sizeof(first_s));
	}
	/* bucket the events by call: after the prefix sums, call i's events
	 * are ev[first[i-1] .. first[i]) (first[-1] = 0) */
	for (uint32_t e = 0; e < nd; e++) {
		const struct dpf_pc_dep *dp = &pb->deps[e];

		if (task[dp->from] == task[dp->to])
			continue;
		first[dp->from + 1]++;
		first[dp->to + 1]++;
	}
	for (i = 0; i < n; i++)
		first[i + 1] += first[i];
	for (uint32_t e = 0; e < nd; e++) {
		const struct dpf_pc_dep *dp = &pb->deps[e];

		avail[e] = 0;
		if (task[dp->from] == task[dp->to])
			continue;
		ev[first[dp->from]++] = (struct ev){ dp->produce, e, true };
		ev[first[dp->to]++] = (struct ev){ dp->consume, e, false };
	}
	/* first[i] now ends call i's events; they start at first[i-1] */
	i = 0;
	for (uint32_t t = 0; t < k; t++) {
		double now = t == 0 ? (k - 1) * spawn_cost : t * spawn_delay;

		for (; i < n && task[i] == t; i++) {
			uint32_t e0 = i ? first[i - 1] : 0, e1 = first[i];
			double start = now, shift = 0;

			if (e1 - e0 > 1)
				qsort(ev + e0, e1 - e0, sizeof(*ev), ev_cmp);
			for (uint32_t j = e0; j < e1; j++) {
				double at = start + ev[j].at + shift;

				if (ev[j].produce) {
					shift += signal;
					avail[ev[j].dep] = at + signal;
				} else if (avail[ev[j].dep] <= at) {
					shift += wait;
				} else {
					shift += avail[ev[j].dep] - at + wait + wakeup;
				}
			}
			now = start + pb->cost[i] + shift;
		}
		if (now > latest)
			latest = now;
	}
	if (avail != avail_s)
		free(avail);
	if (ev != ev_s)
		free(ev);
	if (first != first_s)
		free(first);
	return pb->before + latest + barrier + pb->after;
}

/* ================================================================
 * The search
 * ================================================================ */

struct search {
	const struct dpf_pc_problem *pb;
	struct dpf_pc_result *res;
	uint32_t *cut;          /* [m]: boundary positions that may be cut (a
				 * boundary b is between calls b and b+1) */
	uint32_t m;
	uint32_t *task;         /* scratch partition */
	bool *on;               /* [n-1]: the boundaries of the current partition */
	double best, best_ideal;
};

/* Fill s->task from s->on[] and evaluate it; keep it in res when it is the
 * best so far (ties: the earlier one). */
static double try_partition(struct search *s)
{
	const struct dpf_pc_problem *pb = s->pb;
	uint32_t t = 0;
	double v, vi;

	for (uint32_t i = 0; i < pb->n; i++) {
		s->task[i] = t;
		if (i + 1 < pb->n && s->on[i])
			t++;
	}
	v = dpf_pc_eval(pb, s->task, false);
	vi = dpf_pc_eval(pb, s->task, true);
	s->res->tried++;
	if (vi < s->best_ideal)
		s->best_ideal = vi;
	if (v < s->best) {
		s->best = v;
		memcpy(s->res->task, s->task, pb->n * sizeof(*s->task));
		s->res->n_tasks = t + 1;
	}
	return v;
}

/* C(a, b) as a double (only compared with the budget). */
static double choose(uint32_t a, uint32_t b)
{
	double r = 1;

	if (b > a)
		return 0;
	for (uint32_t i = 1; i <= b; i++)
		r = r * (a - b + i) / i;
	return r;
}

/*
 * Evaluate the partitions with `cuts` boundaries chosen among s->cut[],
 * in lexicographic order of positions, until the budget is spent.
 * Returns false when the budget ran out.
 */
static bool enumerate(struct search *s, uint32_t cuts)
{
	uint32_t idx[64];

	if (cuts == 0 || cuts > s->m || cuts > 64)
		return true;
	for (uint32_t j = 0; j < cuts; j++)
		idx[j] = j;
	for (;;) {
		if (s->res->tried >= s->pb->budget)
			return false;
		memset(s->on, 0, (s->pb->n - 1) * sizeof(*s->on));
		for (uint32_t j = 0; j < cuts; j++)
			s->on[s->cut[idx[j]]] = true;
		try_partition(s);
		/* next combination */
		int j = (int)cuts - 1;

		while (j >= 0 && idx[j] == s->m - cuts + (uint32_t)j)
			j--;
		if (j < 0)
			return true;
		idx[j]++;
		for (uint32_t l = (uint32_t)j + 1; l < cuts; l++)
			idx[l] = idx[l - 1] + 1;
	}
}

/* Greedy from the best partition found (or none): add the allowed
 * boundary whose partition is fastest, while it is faster than before and
 * the tasks are fewer than max_tasks. */
static void greedy(struct search *s)
{
	const struct dpf_pc_problem *pb = s->pb;
	uint32_t tasks = s->res->n_tasks;
	double cur = s->best;

	memset(s->on, 0, (pb->n - 1) * sizeof(*s->on));
	for (uint32_t i = 0; i + 1 < pb->n; i++)
		if (s->res->task[i] != s->res->task[i + 1])
			s->on[i] = true;
	while (tasks < pb->max_tasks) {
		uint32_t pick = UINT32_MAX;
		double pick_v = cur;

		for (uint32_t j = 0; j < s->m; j++) {
			uint32_t b = s->cut[j];
			double v;

			if (s->on[b])
				continue;
			s->on[b] = true;
			v = try_partition(s);
			s->on[b] = false;
			if (v < pick_v) {
				pick_v = v;
				pick = b;
			}
		}
		if (pick == UINT32_MAX)
			break;
		s->on[pick] = true;
		cur = pick_v;
		tasks++;
	}
}

int dpf_pc_search(const struct dpf_pc_problem *pb, struct dpf_pc_result *res)
{
	struct search s = { .pb = pb, .res = res };
	double total = 0;
	uint32_t max_cuts;
	bool complete = true;

	res->n_tasks = 1;
	res->tried = 0;
	res->cut_allowed = false;
	for (uint32_t i = 0; i < pb->n; i++)
		res->task[i] = 0;
	res->seq = dpf_pc_eval(pb, res->task, false);
	res->par = res->ideal = res->seq;
	res->overhead = 0;
	res->complete = true;
	if (pb->n < 2 || pb->max_tasks < 2)
		return 0;
	s.cut = malloc((pb->n - 1) * sizeof(*s.cut));
	s.on = calloc(pb->n - 1, sizeof(*s.on));
	s.task = malloc(pb->n * sizeof(*s.task));
	if (!s.cut || !s.on || !s.task) {
		free(s.cut);
		free(s.on);
		free(s.task);
		return -1;
	}
	for (uint32_t b = 0; b + 1 < pb->n; b++) {
		bool ok = true;

		for (uint32_t c = 0; c < pb->n_conflicts && ok; c++) {
			uint32_t lo = pb->conflicts[c].from, hi = pb->conflicts[c].to;

			if (lo > hi) {
				uint32_t x = lo;

				lo = hi;
				hi = x;
			}
			if (b >= lo && b < hi)
				ok = false;
		}
		if (ok)
			s.cut[s.m++] = b;
	}
	res->cut_allowed = s.m > 0;
	s.best = DBL_MAX;
	s.best_ideal = res->seq;
	max_cuts = pb->max_tasks - 1 < s.m ? pb->max_tasks - 1 : s.m;
	for (uint32_t c = 1; c <= max_cuts; c++)
		total += choose(s.m, c);
	if (total > pb->budget)
		complete = false;
	for (uint32_t c = 1; c <= max_cuts; c++)
		if (!enumerate(&s, c))
			break;
	if (!complete && s.best < DBL_MAX)
		greedy(&s);
	/* the best partition tried, even when it loses to the sequential
	 * time (its time says by how much) */
	if (s.best < DBL_MAX) {
		res->par = s.best;
		res->overhead = s.best - dpf_pc_eval(pb, res->task, true);
	}
	res->ideal = s.best_ideal;
	res->complete = complete;
	free(s.cut);
	free(s.on);
	free(s.task);
	return 0;
}

/* ================================================================
 * Groups: calls that must share a task, in any arrangement
 * ================================================================ */

/* The time of an assignment of groups to k tasks (no dependences): each
 * task runs its calls in source order; task 0 after spawning the others,
 * task t from t * spawn_delay. */
static double eval_groups(const struct dpf_pc_problem *pb, const uint32_t *group,
			  const uint32_t *task_of_group, uint32_t k, bool ideal)
{
	const struct dpf_overheads *ov = &pb->ov;
	double sum[64] = { 0 }, latest = 0;

	for (uint32_t i = 0; i < pb->n; i++)
		sum[task_of_group[group[i]]] += pb->cost[i];
	if (k <= 1)
		return pb->before + sum[0] + pb->after;
	for (uint32_t t = 0; t < k; t++) {
		double start = ideal ? 0 : t == 0 ? (k - 1) * ov->spawn_cost : t * ov->spawn_delay;

		if (start + sum[t] > latest)
			latest = start + sum[t];
	}
	return pb->before + latest + (ideal ? 0 : ov->barrier_cost) + pb->after;
}

int dpf_pc_search_groups(const struct dpf_pc_problem *pb, const uint32_t *group, uint32_t n_groups,
			 struct dpf_pc_result *res)
{
	uint32_t kmax = pb->max_tasks < n_groups ? pb->max_tasks : n_groups;
	uint32_t *a = calloc(n_groups + 1, sizeof(*a)), *best = calloc(n_groups + 1, sizeof(*best));
	double best_v = DBL_MAX, best_ideal;
	uint32_t best_k = 1;

	if (!a || !best) {
		free(a);
		free(best);
		return -1;
	}
	if (kmax > 64)
		kmax = 64;
	res->tried = 0;
	res->complete = true;
	res->seq = eval_groups(pb, group, a, 1, false);
	best_ideal = res->seq;
	res->cut_allowed = n_groups >= 2 && kmax >= 2;
	/* restricted growth strings: group 0 in task 0, each next group in a
	 * task already used or the next new one, at most kmax tasks */
	if (res->cut_allowed) {
		for (;;) {
			uint32_t k = 0;

			for (uint32_t g = 0; g < n_groups; g++)
				if (a[g] + 1 > k)
					k = a[g] + 1;
			if (k >= 2) {
				double v = eval_groups(pb, group, a, k, false);
				double vi = eval_groups(pb, group, a, k, true);

				res->tried++;
				if (vi < best_ideal)
					best_ideal = vi;
				if (v < best_v) {
					best_v = v;
					best_k = k;
					memcpy(best, a, n_groups * sizeof(*a));
				}
			}
			if (res->tried >= pb->budget) {
				res->complete = false;
				break;
			}
			/* next string */
			int g = (int)n_groups - 1;

			for (; g > 0; g--) {
				uint32_t m = 0;

				for (int h = 0; h < g; h++)
					if (a[h] + 1 > m)
						m = a[h] + 1;
				if (a[g] < m && a[g] + 1 < kmax) {
					a[g]++;
					for (uint32_t h = (uint32_t)g + 1; h < n_groups; h++)
						a[h] = 0;
					break;
				}
			}
			if (g <= 0)
				break;
		}
	}
	res->n_tasks = 1;
	res->par = res->seq;
	res->overhead = 0;
	for (uint32_t i = 0; i < pb->n; i++)
		res->task[i] = 0;
	if (best_v < DBL_MAX) {
		/* tasks renumbered by first call, so call 0 is in task 0 */
		uint32_t map[64], next = 0;

		for (uint32_t t = 0; t < 64; t++)
			map[t] = UINT32_MAX;
		for (uint32_t i = 0; i < pb->n; i++) {
			uint32_t t = best[group[i]];

			if (map[t] == UINT32_MAX)
				map[t] = next++;
			res->task[i] = map[t];
		}
		res->n_tasks = best_k;
		res->par = best_v;
		res->overhead = best_v - eval_groups(pb, group, best, best_k, true);
	}
	res->ideal = best_ideal;
	free(a);
	free(best);
	return 0;
}
