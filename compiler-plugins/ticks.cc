/*
 * ticks.cc — ABI v2: in an innermost loop that makes no call, the
 * back-edge tick keeps its count in a register and stores it each
 * iteration, instead of loading, adding and storing it.
 *
 * A tick is me->loop_cscs++ (inline_path.cc), memory through the
 * __deepprof_rt alias set. Where the loop stores chars, which may alias
 * anything, GCC must reload that counter after each such store, and each
 * iteration waits for the store of the one before it to reach the load
 * (a chain through memory: a loop copying and upper-casing 600 M chars
 * 0.456 s, 0.402 s with a register, plain 0.338 s). Here the count is
 * loaded once where the loop is entered,
 * carried around the loop by a PHI and stored after each increment: the
 * memory holds the running count at every iteration's end, as before, so
 * the clock tick (which reads it from the signal handler) still sees it
 * (the count in a register alone, stored at calls and returns, was
 * withdrawn for that: see the README). Only in loops that make no call
 * and contain no other loop: nothing else can change that csd's count
 * while the loop runs (a recursive activation may share the csd, and its
 * ticks would be overwritten).
 *
 * Part of deepprof's compiler plugins. MIT licence.
 */
#include "plugin.h"
#include "tree-into-ssa.h"
#include "gimplify.h"

/* S is MEM[B + loop_cscs] = X + 1 with X loaded from the same place: the
 * tick of csd B. */
static bool is_tick(gimple *s, tree *base)
{
	if (!gimple_assign_single_p(s) || !gimple_vdef(s))
		return false;
	tree lhs = gimple_assign_lhs(s);
	if (TREE_CODE(lhs) != MEM_REF || TREE_THIS_VOLATILE(lhs) ||
	    TREE_TYPE(TREE_OPERAND(lhs, 1)) != dp_roots[DPR_RT_PTR] ||
	    !tree_fits_uhwi_p(TREE_OPERAND(lhs, 1)) || tree_to_uhwi(TREE_OPERAND(lhs, 1)) != DP_CSD_LOOP ||
	    TREE_CODE(TREE_OPERAND(lhs, 0)) != SSA_NAME)
		return false;
	gimple *add = dp_def_of(gimple_assign_rhs1(s));
	if (!add || !is_gimple_assign(add) || gimple_assign_rhs_code(add) != PLUS_EXPR ||
	    !integer_onep(gimple_assign_rhs2(add)))
		return false;
	gimple *load = dp_def_of(gimple_assign_rhs1(add));
	if (!load || !gimple_assign_single_p(load) || !operand_equal_p(gimple_assign_rhs1(load), lhs, 0))
		return false;
	*base = TREE_OPERAND(lhs, 0);
	return true;
}

/* The one tick of innermost loop L, in its latch, of a csd defined
 * outside it, if L makes no call: else NULL. */
static gimple *promotable(class loop *l, tree *base)
{
	if (!l->latch || l->inner)
		return NULL;
	gimple *tick = NULL;
	basic_block *bbs = get_loop_body(l);
	bool ok = true;
	for (unsigned i = 0; ok && i < l->num_nodes; i++)
		for (gimple_stmt_iterator g = gsi_start_bb(bbs[i]); ok && !gsi_end_p(g); gsi_next(&g)) {
			gimple *s = gsi_stmt(g);
			tree b;
			if (is_gimple_call(s) && !gimple_call_internal_p(s))
				ok = false;
			else if (is_tick(s, &b)) {
				ok = !tick && bbs[i] == l->latch && !SSA_NAME_IS_DEFAULT_DEF(b) &&
				     !flow_bb_inside_loop_p(l, gimple_bb(SSA_NAME_DEF_STMT(b)));
				tick = s;
				*base = b;
			}
		}
	free(bbs);
	return ok ? tick : NULL;
}

/* Whether loop L's body (its inner loops' included) makes a call. */
static bool makes_call(class loop *l)
{
	basic_block *bbs = get_loop_body(l);
	bool call = false;
	for (unsigned i = 0; !call && i < l->num_nodes; i++)
		for (gimple_stmt_iterator g = gsi_start_bb(bbs[i]); !call && !gsi_end_p(g); gsi_next(&g))
			call = is_gimple_call(gsi_stmt(g)) && !gimple_call_internal_p(gsi_stmt(g));
	free(bbs);
	return call;
}

/* DP_ABI_TICK with its operand by number (gimple_build_asm_vec does not
 * resolve names) */
static const char *tick_text(void)
{
	static char text[sizeof DP_ABI_TICK];
	if (!text[0]) {
		strcpy(text, DP_ABI_TICK);
		strcpy(strstr(text, "%[n]"), "%0");
	}
	return text;
}

/* TICK (is_tick) as one asm, DP_ABI_TICK, which names the count's word
 * as "+m": the load, the add and the store it was, in one instruction,
 * and no register keeping the count from one iteration to the next
 * (GCC's PRE did that around VdbeExec's dispatch loop, where some paths
 * make no call). */
static void tick_asm(gimple *tick)
{
	tree lhs = gimple_assign_lhs(tick);
	gimple *add = dp_def_of(gimple_assign_rhs1(tick));
	gimple *load = dp_def_of(gimple_assign_rhs1(add));
	vec<tree, va_gc> *out = NULL;
	vec_safe_push(out, build_tree_list(build_tree_list(NULL_TREE, build_string(3, "+m")), unshare_expr(lhs)));
	gasm *a = gimple_build_asm_vec(tick_text(), NULL, out, NULL, NULL);
	gimple_asm_set_volatile(a, true);
	gimple_set_location(a, gimple_location(tick));
	gimple_set_block(a, gimple_block(tick));
	gimple_stmt_iterator g = gsi_for_stmt(tick);
	gsi_insert_before(&g, a, GSI_SAME_STMT);
	dp_remove_stmt(tick);
	if (has_zero_uses(gimple_assign_lhs(add)))
		dp_remove_stmt(add);
	if (has_zero_uses(gimple_assign_lhs(load)))
		dp_remove_stmt(load);
}

/* S is a tick as tick_asm makes it: its word, MEM_REF[*BASE + *OFF] */
bool dp_tick_asm_p(gimple *s, tree *base, HOST_WIDE_INT *off)
{
	gasm *a = dyn_cast<gasm *>(s);
	if (!a || gimple_asm_noutputs(a) != 1 || gimple_asm_ninputs(a) != 0 ||
	    strcmp(gimple_asm_string(a), tick_text()))
		return false;
	tree m = TREE_VALUE(gimple_asm_output_op(a, 0));
	if (TREE_CODE(m) != MEM_REF || TREE_CODE(TREE_OPERAND(m, 0)) != SSA_NAME)
		return false;
	*base = TREE_OPERAND(m, 0);
	*off = mem_ref_offset(m).force_shwi().to_constant();
	return true;
}

/* The one edge entering L's header from outside L, or NULL. */
static edge entry_edge(class loop *l)
{
	edge e, in = NULL;
	edge_iterator ei;
	FOR_EACH_EDGE(e, ei, l->header->preds)
		if (!flow_bb_inside_loop_p(l, e->src)) {
			if (in || (e->flags & (EDGE_ABNORMAL | EDGE_EH)))
				return NULL;
			in = e;
		}
	return in;
}

namespace {

const pass_data ticks_pass_data = {
	GIMPLE_PASS, "deepprof_ticks", OPTGROUP_NONE, TV_NONE,
	PROP_cfg | PROP_ssa, 0, 0, 0, 0
};

class ticks_pass : public gimple_opt_pass {
public:
	ticks_pass(gcc::context *ctxt) : gimple_opt_pass(ticks_pass_data, ctxt) {}
	bool gate(function *) override
	{
		return dp_opt.abi == 2 && dp_opt.backedges && !in_lto_p && !seen_error() && dp_roots[DPR_RT_PTR];
	}
	unsigned int execute(function *fun) override;
};

unsigned int ticks_pass::execute(function *fun)
{
	calculate_dominance_info(CDI_DOMINATORS);
	bool own = !loops_for_fn(fun);
	if (own)
		loop_optimizer_init(AVOID_CFG_MODIFICATIONS);
	else if (loops_state_satisfies_p(fun, LOOPS_NEED_FIXUP))
		fix_loop_structure(NULL);
	bool any = false;
	for (auto l : loops_list(fun, LI_ONLY_INNERMOST)) {
		tree base;
		gimple *tick = promotable(l, &base);
		edge in = tick ? entry_edge(l) : NULL;
		edge latch = in ? find_edge(l->latch, l->header) : NULL;
		if (!latch)
			continue;
		location_t loc = gimple_location(tick);
		tree lhs = gimple_assign_lhs(tick);
		tree r0 = make_ssa_name(uint64_type_node), r = make_ssa_name(uint64_type_node);
		tree r1 = make_ssa_name(uint64_type_node);
		gimple *load = gimple_build_assign(r0, unshare_expr(lhs));
		gimple_set_location(load, loc);
		gsi_insert_on_edge(in, load);
		gphi *phi = create_phi_node(r, l->header);
		add_phi_arg(phi, r0, in, loc);
		add_phi_arg(phi, r1, latch, loc);
		gimple *inc = gimple_build_assign(r1, PLUS_EXPR, r, build_int_cst(uint64_type_node, 1));
		gimple_set_location(inc, loc);
		gimple_stmt_iterator g = gsi_for_stmt(tick);
		gsi_insert_before(&g, inc, GSI_SAME_STMT);
		gimple_assign_set_rhs1(tick, r1);
		update_stmt(tick);
		any = true;
	}
	/* the other ticks of loops that make a call: as asms */
	auto_vec<gimple *> asms;
	basic_block bb;
	FOR_EACH_BB_FN(bb, fun) {
		class loop *l = bb->loop_father;
		if (!l || !loop_outer(l))
			continue;
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
			tree b;
			if (is_tick(gsi_stmt(g), &b) && makes_call(l))
				asms.safe_push(gsi_stmt(g));
		}
	}
	if (own)
		loop_optimizer_finalize();
	for (gimple *t : asms)
		tick_asm(t);
	if (!any && asms.is_empty())
		return 0;
	gsi_commit_edge_inserts();
	mark_virtual_operands_for_renaming(fun);
	return TODO_update_ssa_only_virtuals;
}

} /* namespace */

opt_pass *dp_make_ticks_pass(gcc::context *ctxt)
{
	return new ticks_pass(ctxt);
}
