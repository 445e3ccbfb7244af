/*
 * omp_regions.cc — the OpenMP regions of a function that GCC will outline
 * into functions of their own, found in the CFG the instrumentation pass
 * sees (after "cfg", before "ompexp"), the way omp-expand's
 * build_omp_regions reads them: a walk of the dominator tree in which a
 * block ending with a directive opens a region for the blocks it
 * dominates, and one ending with its GIMPLE_OMP_RETURN closes it.
 * Part of deepprof's compiler plugins. MIT licence.
 */
#include "plugin.h"

/* Whether the directive stmt opens a region omp-expand outlines. */
static bool outlined(gimple *stmt)
{
	switch (gimple_code(stmt)) {
	case GIMPLE_OMP_PARALLEL:
		return true;
	case GIMPLE_OMP_TASK:
		return !gimple_omp_task_taskwait_p(stmt);
	case GIMPLE_OMP_TEAMS:
		return gimple_omp_teams_host(as_a<gomp_teams *>(stmt));
	case GIMPLE_OMP_TARGET:
		return is_gimple_omp_offloaded(stmt);
	default:
		return false;
	}
}

/* Whether the directive stmt has no region of its own (omp-expand treats
 * it as stand-alone: no GIMPLE_OMP_RETURN matches it). */
static bool standalone(gimple *stmt)
{
	switch (gimple_code(stmt)) {
	case GIMPLE_OMP_TARGET:
		switch (gimple_omp_target_kind(stmt)) {
		case GF_OMP_TARGET_KIND_REGION:
		case GF_OMP_TARGET_KIND_OACC_PARALLEL:
		case GF_OMP_TARGET_KIND_OACC_KERNELS:
		case GF_OMP_TARGET_KIND_OACC_SERIAL:
		case GF_OMP_TARGET_KIND_OACC_PARALLEL_KERNELS_PARALLELIZED:
		case GF_OMP_TARGET_KIND_OACC_PARALLEL_KERNELS_GANG_SINGLE:
			return false;
		default:
			return true;
		}
	case GIMPLE_OMP_ORDERED:      /* ordered depend(...): GCC 12 tells it by the clause */
		for (tree c = gimple_omp_ordered_clauses(as_a<gomp_ordered *>(stmt)); c;
		     c = OMP_CLAUSE_CHAIN(c))
			if (OMP_CLAUSE_CODE(c) == OMP_CLAUSE_DEPEND)
				return true;
		return false;
	case GIMPLE_OMP_TASK:
		return gimple_omp_task_taskwait_p(stmt);
	case GIMPLE_OMP_TASKGROUP:
		return true;
	default:
		return false;
	}
}

/* The copy of the pointer to the shared data that starts an outlined
 * region (.omp_data_i = &.omp_data_o), which omp-expand looks for in the
 * region's first block: the region's own code must come after it. */
static gimple *data_copy(gimple *stmt, basic_block first)
{
	tree sender = NULL_TREE;
	if (gimple_code(stmt) == GIMPLE_OMP_TARGET) {
		tree a = gimple_omp_target_data_arg(as_a<gomp_target *>(stmt));
		if (a && TREE_CODE(a) == TREE_VEC)
			sender = TREE_VEC_ELT(a, 0);
	} else {
		sender = gimple_omp_taskreg_data_arg(stmt);
	}
	if (!sender)
		return NULL;
	for (gimple_stmt_iterator g = gsi_start_bb(first); !gsi_end_p(g); gsi_next(&g)) {
		gimple *s = gsi_stmt(g);
		if (gimple_code(s) != GIMPLE_ASSIGN || gimple_num_ops(s) != 2)
			continue;
		tree r = gimple_assign_rhs1(s);
		if (TREE_CODE(r) == ADDR_EXPR && TREE_OPERAND(r, 0) == sender)
			return s;
	}
	return NULL;
}

/* An open region of the walk: the one around it (-1: none) and the scope
 * of the blocks it holds (its own if outlined, else its outer one's). */
struct open_region {
	int outer, scope;
};

struct walk {
	int *scope;
	vec<struct dp_omp_region> *regions;
	auto_vec<struct open_region> open;
};

/* bb and the blocks it dominates, inside region parent (an index into
 * w->open, -1: none), as omp-expand's build_omp_regions_1 walks them. */
static void walk_bb(struct walk *w, basic_block bb, int parent)
{
	w->scope[bb->index] = parent < 0 ? 0 : w->open[parent].scope;
	gimple_stmt_iterator g = gsi_last_nondebug_bb(bb);
	gimple *last = gsi_end_p(g) ? NULL : gsi_stmt(g);
	if (last && is_gimple_omp(last)) {
		enum gimple_code code = gimple_code(last);
		if (code == GIMPLE_OMP_RETURN || code == GIMPLE_OMP_ATOMIC_STORE) {
			if (parent >= 0)
				parent = w->open[parent].outer;
		} else if (code != GIMPLE_OMP_CONTINUE && code != GIMPLE_OMP_SECTIONS_SWITCH &&
			   !standalone(last)) {
			struct open_region o = { parent, parent < 0 ? 0 : w->open[parent].scope };
			edge e = EDGE_COUNT(bb->succs) == 1 ? single_succ_edge(bb) : FALLTHRU_EDGE(bb);
			if (outlined(last) && e) {
				struct dp_omp_region r = { last, e->dest, data_copy(last, e->dest) };
				w->regions->safe_push(r);
				o.scope = w->regions->length();
			}
			w->open.safe_push(o);
			parent = w->open.length() - 1;
		}
	}
	for (basic_block son = first_dom_son(CDI_DOMINATORS, bb); son;
	     son = next_dom_son(CDI_DOMINATORS, son))
		walk_bb(w, son, parent);
}

void dp_omp_regions(function *fun, int *scope, vec<struct dp_omp_region> &regions)
{
	if (!flag_openmp)
		return;
	bool any = false;
	basic_block bb;
	FOR_EACH_BB_FN(bb, fun) {
		gimple_stmt_iterator g = gsi_last_nondebug_bb(bb);
		if (!gsi_end_p(g) && is_gimple_omp(gsi_stmt(g)))
			any = true;
	}
	if (!any)
		return;
	calculate_dominance_info(CDI_DOMINATORS);
	struct walk w;
	w.scope = scope;
	w.regions = &regions;
	walk_bb(&w, ENTRY_BLOCK_PTR_FOR_FN(fun), -1);
}
