/*
 * inline_cost.cc — GCC's inliner weighs the program's code, not ours.
 *
 * The instrumentation goes in before any inlining (instrument.cc, right
 * after "cfg"), so GCC's function summaries (ipa-fnsummary) count its
 * statements in every function's size: an instrumented function looks
 * several times bigger than it is, and the inliner, early and IPA, leaves
 * out most of the calls it makes in the plain build (gawk's builtin.c: 155
 * of the plain build's 418 inlinings, by -fopt-info-inline-optimized). The profile is then of a
 * program that is not the one the plain build makes, and slower for it.
 *
 * So after each computation of a function's summary (every instance of
 * "local-fnsummary", which the early inliner reads, and the IPA
 * "fnsummary", which the IPA inliner and ipa-cp read) this takes our
 * statements' size back out: the inline path's loads, stores and the
 * arithmetic between them (found by what they read: dp_cur, dp_loop_ticks,
 * the TU's table, or memory through the runtime's own pointer type, and
 * then whatever is computed from those alone), and the hook calls, whose
 * call summaries get size and time 0 as GCC gives its free builtins. The
 * size comes out of the unconditional entry of the size table first (most
 * of our code is there), then out of the others, never below zero. Time is
 * left as it is: inlining does not remove our code, and the time benefit
 * GCC sees for a call is its own.
 *
 * `-fplugin-arg-deepprof-inline-cost=counted` leaves GCC's summaries as
 * they are (the sizes then include the instrumentation).
 * Part of deepprof's compiler plugins. MIT licence.
 */
#include "plugin.h"
#include "tree-inline.h"
#include "alloc-pool.h"
#include "symbol-summary.h"
#include "sreal.h"
#include "ipa-prop.h"
#include "ipa-fnsummary.h"

static bool our_decl(tree t)
{
	return t && (t == dp_roots[DPR_CUR] || t == dp_roots[DPR_TICKS] || t == dp_roots[DPR_TU_DECL] ||
		     t == dp_roots[DPR_PS_DECL]);
}

/* A memory reference or address that is ours: of one of our variables,
 * through the runtime's pointer type, or through a pointer we computed. */
static bool our_ref(tree t, hash_set<tree> &names)
{
	if (!t)
		return false;
	if (TREE_CODE(t) == ADDR_EXPR)
		t = TREE_OPERAND(t, 0);
	if (TREE_CODE(t) == MEM_REF || TREE_CODE(t) == TARGET_MEM_REF) {
		if (dp_roots[DPR_RT_PTR] && TREE_TYPE(TREE_OPERAND(t, 1)) == dp_roots[DPR_RT_PTR])
			return true;
		tree base = TREE_OPERAND(t, 0);
		if (TREE_CODE(base) == SSA_NAME)
			return names.contains(base);
	}
	return our_decl(get_base_address(t));
}

/* Whether stmt is ours (see the top), given the SSA names known ours. */
static bool ours(gimple *stmt, hash_set<tree> &names)
{
	if (is_gimple_call(stmt))
		return dp_is_probe(gimple_call_fndecl(stmt));
	ssa_op_iter it;
	tree use;
	bool any = false;
	if (gimple_code(stmt) == GIMPLE_COND) {
		FOR_EACH_SSA_TREE_OPERAND(use, stmt, it, SSA_OP_USE) {
			if (!names.contains(use))
				return false;
			any = true;
		}
		return any;
	}
	if (!is_gimple_assign(stmt))
		return false;
	tree lhs = gimple_assign_lhs(stmt);
	if (gimple_assign_single_p(stmt) &&
	    (our_ref(lhs, names) || our_ref(gimple_assign_rhs1(stmt), names)))
		return true;
	if (TREE_CODE(lhs) != SSA_NAME || gimple_vuse(stmt))
		return false;
	FOR_EACH_SSA_TREE_OPERAND(use, stmt, it, SSA_OP_USE) {
		if (!names.contains(use))
			return false;
		any = true;
	}
	return any;
}

/* Not in the check build (dp_opt.check): with the plain build's inlining,
 * under -fsanitize=undefined, its recording missed a conflict between two
 * calls of a recursive msort (tests/check t004), so it keeps GCC's sizes. */
static bool wanted(void)
{
	return dp_opt.instrument && dp_opt.inline_discount && !dp_opt.check && !seen_error();
}

/* Takes our statements' size out of node's summary (fun: its body). */
static void discount(cgraph_node *node, function *fun)
{
	if (!node || !ipa_fn_summaries || !ipa_size_summaries || !ipa_call_summaries)
		return;
	ipa_fn_summary *info = ipa_fn_summaries->get(node);
	ipa_size_summary *size_info = ipa_size_summaries->get(node);
	if (!info || !size_info || !info->size_time_table.length())
		return;

	hash_set<tree> names;
	hash_set<gimple *> mine;
	bool changed = true;
	for (int round = 0; changed && round < 8; round++) {    /* names flow forward: few rounds */
		changed = false;
		basic_block bb;
		FOR_EACH_BB_FN(bb, fun) {
			for (gphi_iterator p = gsi_start_phis(bb); !gsi_end_p(p); gsi_next(&p)) {
				gphi *phi = p.phi();
				tree res = gimple_phi_result(phi);
				if (virtual_operand_p(res) || names.contains(res))
					continue;
				bool all = gimple_phi_num_args(phi) > 0, one = false;
				for (unsigned i = 0; i < gimple_phi_num_args(phi) && all; i++) {
					tree a = gimple_phi_arg_def(phi, i);
					if (TREE_CODE(a) == SSA_NAME) {
						one |= names.contains(a);
						all = names.contains(a) || a == res;
					} else
						all = is_gimple_min_invariant(a);
				}
				if (all && one) {
					names.add(res);
					changed = true;
				}
			}
			for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
				gimple *s = gsi_stmt(g);
				if (is_gimple_debug(s) || mine.contains(s) || !ours(s, names))
					continue;
				mine.add(s);
				changed = true;
				tree lhs = gimple_get_lhs(s);
				if (lhs && TREE_CODE(lhs) == SSA_NAME)
					names.add(lhs);
			}
		}
	}

	int size = 0;
	for (hash_set<gimple *>::iterator i = mine.begin(); i != mine.end(); ++i)
		if (!is_gimple_call(*i))
			size += estimate_num_insns(*i, &eni_size_weights);
	bool calls = false;
	for (cgraph_edge *e = node->callees; e; e = e->next_callee) {
		ipa_call_summary *es;
		if (e->inline_failed && dp_is_probe(e->callee->decl) && (es = ipa_call_summaries->get(e))) {
			calls |= es->call_stmt_size != 0;
			es->call_stmt_size = 0;
			es->call_stmt_time = 0;
		}
	}
	if (!size && !calls)
		return;
	int left = size * ipa_fn_summary::size_scale;
	size_time_entry *e;
	for (unsigned i = 0; left > 0 && info->size_time_table.iterate(i, &e); i++) {
		if (i == 1)
			continue;       /* the call's own overhead, not inlined (analyze_function_body) */
		int take = MIN(left, e->size);
		e->size -= take;
		left -= take;
	}
	ipa_update_overall_fn_summary(node);
	size_info->self_size = size_info->size;
}

namespace {

const pass_data local_data = {
	GIMPLE_PASS, "deepprof_inline_cost", OPTGROUP_NONE, TV_NONE,
	PROP_cfg | PROP_ssa, 0, 0, 0, 0
};

/* after every instance of "local-fnsummary" */
class local_pass : public gimple_opt_pass {
public:
	local_pass(gcc::context *ctxt) : gimple_opt_pass(local_data, ctxt) {}
	opt_pass *clone() override { return new local_pass(m_ctxt); }
	bool gate(function *) override { return wanted(); }
	unsigned int execute(function *fun) override
	{
		discount(cgraph_node::get(fun->decl), fun);
		return 0;
	}
};

const pass_data ipa_data = {
	IPA_PASS, "deepprof_inline_cost_ipa", OPTGROUP_NONE, TV_NONE,
	0, 0, 0, 0, 0
};

/* right after the IPA "fnsummary" made every function's summary again */
static void generate(void)
{
	if (!wanted())
		return;
	cgraph_node *node;
	FOR_EACH_DEFINED_FUNCTION(node) {
		function *fun = DECL_STRUCT_FUNCTION(node->decl);
		if (node->alias || !fun || !fun->cfg || !gimple_in_ssa_p(fun))
			continue;
		push_cfun(fun);
		discount(node, fun);
		pop_cfun();
	}
}

class ipa_pass : public ipa_opt_pass_d {
public:
	ipa_pass(gcc::context *ctxt)
		: ipa_opt_pass_d(ipa_data, ctxt, generate, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL) {}
	bool gate(function *) override { return true; }
	unsigned int execute(function *) override { return 0; }
};

/*
 * GCC's branch prediction (profile_estimate, in the early passes) takes a
 * branch that guards a call for not taken ("call" heuristic, 67%): with
 * our hooks, a call GCC's early inliner inlined is still a call there, and
 * so is a back-edge's tick, and the branches to them are guessed
 * otherwise than in the plain build, whose frequencies then differ, and
 * with them what GCC inlines, splits, lays out and keeps in registers
 * (gawk: the POP_SCALAR of its interpreter's jump-if-false, inlined by the
 * plain build, was left a call). The heuristic skips the calls GCC deems
 * inexpensive, which are the internal ones and the target's builtins; so
 * while profile_estimate runs, and only then, the hooks' declarations say
 * they are target builtins (class BUILT_IN_MD): nothing else looks at
 * them before the pass right after it makes them plain functions again.
 * (Declaring them pure instead would leave their statements' virtual
 * operands out of date, which -fchecking reports.)
 */
static void hooks_inexpensive(bool on)
{
	for (int i = DPR_CALL; i <= DPR_BACKEDGE; i++)
		if (tree d = dp_roots[i])
			set_decl_built_in_function(d, on ? BUILT_IN_MD : NOT_BUILT_IN, 0);
}

const pass_data estimate_data = {
	GIMPLE_PASS, "deepprof_estimate", OPTGROUP_NONE, TV_NONE,
	PROP_cfg, 0, 0, 0, 0
};

class estimate_pass : public gimple_opt_pass {
	bool before;
public:
	estimate_pass(gcc::context *ctxt, bool b) : gimple_opt_pass(estimate_data, ctxt), before(b) {}
	bool gate(function *) override { return dp_opt.instrument; }
	unsigned int execute(function *) override
	{
		hooks_inexpensive(before);
		return 0;
	}
};

} /* namespace */

opt_pass *dp_make_estimate_pass(gcc::context *ctxt, bool before)
{
	return new estimate_pass(ctxt, before);
}

opt_pass *dp_make_inline_cost_pass(gcc::context *ctxt)
{
	return new local_pass(ctxt);
}

opt_pass *dp_make_inline_cost_ipa_pass(gcc::context *ctxt)
{
	return new ipa_pass(ctxt);
}
