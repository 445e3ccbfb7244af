/*
 * test_par_cost.c — feedback/par_cost.c: the parallel cost model and the
 * best-partition search on examples computed by hand (the arithmetic is in
 * each test's comment). Part of deepprof's tests. MIT licence.
 */
#include <string.h>

#include "unit.h"
#include "par_cost.h"

#define EPS 1e-9

/* Overheads small and distinct so every term shows in a sum. */
static struct dpf_pc_problem problem(uint32_t n, const double *cost, unsigned max_tasks)
{
	struct dpf_pc_problem pb;

	memset(&pb, 0, sizeof(pb));
	pb.n = n;
	pb.cost = cost;
	pb.ov.spawn_cost = 1;
	pb.ov.spawn_delay = 10;
	pb.ov.barrier_cost = 2;
	pb.ov.signal_cost = 1;
	pb.ov.wait_cost = 1;
	pb.ov.wakeup_delay = 5;
	pb.max_tasks = max_tasks;
	pb.budget = 1000;
	return pb;
}

/*
 * Two calls of 100, two tasks: task 0 spawns task 1 (1) and runs 1..101;
 * task 1 starts at 10, ends 110; + barrier 2 = 112. Sequential 200. With no
 * overheads 100, so the overheads are 12.
 */
static void test_two_balanced(void)
{
	static const double cost[] = { 100, 100 };
	struct dpf_pc_problem pb = problem(2, cost, 2);
	struct dpf_pc_result r;
	uint32_t task[2];
	static const uint32_t one[] = { 0, 0 }, two[] = { 0, 1 };

	CU_ASSERT_DOUBLE_EQUAL(dpf_pc_eval(&pb, one, false), 200, EPS);
	CU_ASSERT_DOUBLE_EQUAL(dpf_pc_eval(&pb, two, false), 112, EPS);
	CU_ASSERT_DOUBLE_EQUAL(dpf_pc_eval(&pb, two, true), 100, EPS);
	r.task = task;
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search(&pb, &r), 0);
	CU_ASSERT_EQUAL(r.n_tasks, 2);
	CU_ASSERT_EQUAL(task[0], 0);
	CU_ASSERT_EQUAL(task[1], 1);
	CU_ASSERT_DOUBLE_EQUAL(r.seq, 200, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 112, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.overhead, 12, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.ideal, 100, EPS);
	CU_ASSERT_EQUAL(r.tried, 1);
	CU_ASSERT_TRUE(r.complete);
	CU_ASSERT_TRUE(r.cut_allowed);

	/* code before (5) and after (7) the calls adds to both times */
	pb.before = 5;
	pb.after = 7;
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search(&pb, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(r.seq, 212, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 124, EPS);

	/* max_tasks 1: nothing to search */
	pb.max_tasks = 1;
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search(&pb, &r), 0);
	CU_ASSERT_EQUAL(r.n_tasks, 1);
	CU_ASSERT_EQUAL(r.tried, 0);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 212, EPS);
}

/*
 * 60, 30, 90 into at most 2 tasks:
 *   {60}{30 90}: task 0 1+60 = 61, task 1 10+120 = 130  -> 132
 *   {60 30}{90}: task 0 1+90 = 91, task 1 10+90 = 100   -> 102 (best)
 * Into at most 3, also {60}{30}{90}: task 0 2+60 = 62, task 1 10+30 = 40,
 * task 2 20+90 = 110 -> 112: the best stays {60 30}{90}. Ideal: 90.
 */
static void test_three_unbalanced(void)
{
	static const double cost[] = { 60, 30, 90 };
	struct dpf_pc_problem pb = problem(3, cost, 2);
	struct dpf_pc_result r;
	uint32_t task[3];
	static const uint32_t p3[] = { 0, 1, 2 };

	r.task = task;
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search(&pb, &r), 0);
	CU_ASSERT_EQUAL(r.n_tasks, 2);
	CU_ASSERT_EQUAL(task[0], 0);
	CU_ASSERT_EQUAL(task[1], 0);
	CU_ASSERT_EQUAL(task[2], 1);
	CU_ASSERT_DOUBLE_EQUAL(r.seq, 180, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 102, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.overhead, 12, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.ideal, 90, EPS);
	CU_ASSERT_EQUAL(r.tried, 2);
	CU_ASSERT_TRUE(r.complete);

	CU_ASSERT_DOUBLE_EQUAL(dpf_pc_eval(&pb, p3, false), 112, EPS);
	pb.max_tasks = 3;
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search(&pb, &r), 0);
	CU_ASSERT_EQUAL(r.tried, 3);
	CU_ASSERT_EQUAL(r.n_tasks, 2);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 102, EPS);
}

/*
 * A dependent pair that overlaps: call 0 produces at 20, call 1 consumes
 * at 80. Task 0 starts at 1, produces at 21, signals (+1): the value is
 * there at 22, task 0 ends at 102. Task 1 starts at 10 and reaches its
 * consumption at 90 > 22: + wait 1, ends at 111. + barrier: 113. Without
 * overheads the consumption never waits: 100.
 */
static void test_dependent_overlap(void)
{
	static const double cost[] = { 100, 100 };
	static const struct dpf_pc_dep dep = { 0, 1, 20, 80 };
	struct dpf_pc_problem pb = problem(2, cost, 2);
	struct dpf_pc_result r;
	uint32_t task[2];

	pb.n_deps = 1;
	pb.deps = &dep;
	r.task = task;
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search(&pb, &r), 0);
	CU_ASSERT_EQUAL(r.n_tasks, 2);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 113, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.ideal, 100, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.overhead, 13, EPS);
}

/*
 * A dependent pair with no overlap: produced at the end (100), consumed at
 * the start (0). Task 0: produces at 101, the value is there at 102, ends
 * 102. Task 1 starts at 10, consumes at once and blocks: continues at
 * 102 + wait 1 + wake-up 5 = 108, ends at 208; + barrier = 210 > 200
 * sequential. With no overheads: 200, no gain at all.
 */
static void test_dependent_no_overlap(void)
{
	static const double cost[] = { 100, 100 };
	static const struct dpf_pc_dep dep = { 0, 1, 100, 0 };
	struct dpf_pc_problem pb = problem(2, cost, 2);
	struct dpf_pc_result r;
	uint32_t task[2];

	pb.n_deps = 1;
	pb.deps = &dep;
	r.task = task;
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search(&pb, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 210, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.ideal, 200, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.seq, 200, EPS);
	/* the same dependence inside one task costs nothing */
	static const uint32_t one[] = { 0, 0 };
	CU_ASSERT_DOUBLE_EQUAL(dpf_pc_eval(&pb, one, false), 200, EPS);
}

/*
 * A three-call chain through a middle task: call 0 produces at 10 for call
 * 1, which consumes at 5 and produces at 50 for call 2, which consumes at
 * 40. Costs 100 each, three tasks (spawn 2): task 0 starts 2, produces at
 * 12, value at 13, ends 103. Task 1 starts 10, consumes at 15 >= 13: +1;
 * produces at 10+50+1 = 61, value at 62, ends 10+100+2 = 112. Task 2
 * starts 20, consumes at 60 < 62: blocks to 62+1+5 = 68, ends 20+100+8 =
 * 128. + barrier 130.
 */
static void test_chain(void)
{
	static const double cost[] = { 100, 100, 100 };
	static const struct dpf_pc_dep deps[] = { { 0, 1, 10, 5 }, { 1, 2, 50, 40 } };
	static const uint32_t t3[] = { 0, 1, 2 };
	struct dpf_pc_problem pb = problem(3, cost, 3);

	pb.n_deps = 2;
	pb.deps = deps;
	CU_ASSERT_DOUBLE_EQUAL(dpf_pc_eval(&pb, t3, false), 130, EPS);
}

/*
 * Budget exhaustion: five calls of 10, no overheads, up to 5 tasks, budget
 * 4. Partitions: 4 + 6 + 4 + 1 = 15 > 4, so incomplete. The 4 two-task
 * ones come first (cut after call 0, 1, 2, 3: 40, 30, 30, 40): best cut 1
 * (the first of the ties). Greedy from it adds cut 0 (30), 2 (20) or 3
 * (20): cut 2, the first best; then cut 0 or 3 give 20, no gain: stop.
 * Tried 4 + 3 + 2 = 9; best {0 1}{2}{3 4} = 20.
 */
static void test_budget(void)
{
	static const double cost[] = { 10, 10, 10, 10, 10 };
	struct dpf_pc_problem pb = problem(5, cost, 5);
	struct dpf_pc_result r;
	uint32_t task[5];

	memset(&pb.ov, 0, sizeof(pb.ov));
	pb.budget = 4;
	r.task = task;
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search(&pb, &r), 0);
	CU_ASSERT_FALSE(r.complete);
	CU_ASSERT_EQUAL(r.tried, 9);
	CU_ASSERT_EQUAL(r.n_tasks, 3);
	CU_ASSERT_EQUAL(task[0], 0);
	CU_ASSERT_EQUAL(task[1], 0);
	CU_ASSERT_EQUAL(task[2], 1);
	CU_ASSERT_EQUAL(task[3], 2);
	CU_ASSERT_EQUAL(task[4], 2);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 20, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.seq, 50, EPS);

	/* with the budget 15 the search is complete and finds 10 (5 tasks) */
	pb.budget = 15;
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search(&pb, &r), 0);
	CU_ASSERT_TRUE(r.complete);
	CU_ASSERT_EQUAL(r.tried, 15);
	CU_ASSERT_EQUAL(r.n_tasks, 5);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 10, EPS);
}

/*
 * Forty calls of 10 (the heap path), no overheads, two tasks of 20: call
 * 20 + i consumes at its start what call i produces at its end. Task 1's
 * first call waits until 10 and ends at 20; from then on each value is
 * there when needed (call i ends at 10 (i + 1) <= 20 + 10 i): task 1 ends
 * at 210, task 0 at 200.
 */
static void test_many_calls(void)
{
	double cost[40];
	struct dpf_pc_dep deps[20];
	uint32_t task[40];
	struct dpf_pc_problem pb;

	for (uint32_t i = 0; i < 40; i++) {
		cost[i] = 10;
		task[i] = i >= 20;
	}
	for (uint32_t i = 0; i < 20; i++)
		deps[i] = (struct dpf_pc_dep){ i, 20 + i, 10, 0 };
	pb = problem(40, cost, 2);
	memset(&pb.ov, 0, sizeof(pb.ov));
	pb.n_deps = 20;
	pb.deps = deps;
	CU_ASSERT_DOUBLE_EQUAL(dpf_pc_eval(&pb, task, false), 210, EPS);
	pb.n_deps = 0;
	CU_ASSERT_DOUBLE_EQUAL(dpf_pc_eval(&pb, task, false), 200, EPS);
}

/* A conflict between the two calls forbids the only cut; one between
 * calls 0 and 1 of three leaves only the cut after call 1. */
static void test_conflict(void)
{
	static const double cost[] = { 100, 100 }, cost3[] = { 60, 30, 90 };
	static const struct dpf_pc_dep c01 = { 0, 1, 0, 0 };
	struct dpf_pc_problem pb = problem(2, cost, 2);
	struct dpf_pc_result r;
	uint32_t task[3];

	pb.n_conflicts = 1;
	pb.conflicts = &c01;
	r.task = task;
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search(&pb, &r), 0);
	CU_ASSERT_FALSE(r.cut_allowed);
	CU_ASSERT_EQUAL(r.n_tasks, 1);
	CU_ASSERT_EQUAL(r.tried, 0);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 200, EPS);

	pb = problem(3, cost3, 3);
	pb.n_conflicts = 1;
	pb.conflicts = &c01;
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search(&pb, &r), 0);
	CU_ASSERT_TRUE(r.cut_allowed);
	CU_ASSERT_EQUAL(r.tried, 1);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 102, EPS);
}

/*
 * Groups (a checked region): the quarters' mergesort, sorts of 10 and
 * merges of 20, groups {0, 1, 4} and {2, 3, 5}: task 0 runs 40 from 1,
 * task 1 40 from 10: 50 + 2 = 52 (ideal 40, seq 80), tasks not contiguous.
 * Three groups of 50, 30 and 20 into at most 2 tasks: {0,0,1} 83, {0,1,0}
 * 73, {0,1,1} 62 (task 0 51, task 1 60); into 3: {0,1,2} also, task 0 ends
 * 2 + 50, tasks 1 and 2 at 40: 54.
 */
static void test_groups(void)
{
	static const double cost[] = { 10, 10, 10, 10, 20, 20 }, cost3[] = { 50, 30, 20 };
	static const uint32_t g6[] = { 0, 0, 1, 1, 0, 1 }, g3[] = { 0, 1, 2 };
	struct dpf_pc_problem pb = problem(6, cost, 2);
	struct dpf_pc_result r;
	uint32_t task[6];

	r.task = task;
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search_groups(&pb, g6, 2, &r), 0);
	CU_ASSERT_EQUAL(r.n_tasks, 2);
	for (int i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(task[i], g6[i]);
	CU_ASSERT_DOUBLE_EQUAL(r.seq, 80, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 52, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.ideal, 40, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.overhead, 12, EPS);
	CU_ASSERT_EQUAL(r.tried, 1);
	CU_ASSERT_TRUE(r.complete && r.cut_allowed);

	pb = problem(3, cost3, 2);
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search_groups(&pb, g3, 3, &r), 0);
	CU_ASSERT_EQUAL(r.tried, 3);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 62, EPS);
	CU_ASSERT_EQUAL(task[0], 0);
	CU_ASSERT_EQUAL(task[1], 1);
	CU_ASSERT_EQUAL(task[2], 1);
	pb = problem(3, cost3, 3);
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search_groups(&pb, g3, 3, &r), 0);
	CU_ASSERT_EQUAL(r.tried, 4);
	CU_ASSERT_EQUAL(r.n_tasks, 3);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 54, EPS);
	/* one group: no split */
	static const uint32_t g1[] = { 0, 0, 0 };
	CU_ASSERT_EQUAL_FATAL(dpf_pc_search_groups(&pb, g1, 1, &r), 0);
	CU_ASSERT_FALSE(r.cut_allowed);
	CU_ASSERT_EQUAL(r.n_tasks, 1);
	CU_ASSERT_DOUBLE_EQUAL(r.par, 100, EPS);
}

DPA_TEST_SUITE(par_cost, DPA_TEST(test_two_balanced), DPA_TEST(test_three_unbalanced),
	       DPA_TEST(test_dependent_overlap), DPA_TEST(test_dependent_no_overlap),
	       DPA_TEST(test_chain), DPA_TEST(test_budget), DPA_TEST(test_many_calls),
	       DPA_TEST(test_conflict), DPA_TEST(test_groups));
