/*
 * inlined.cc — ABI v2: after inlining, the prologue of a callee copied
 * into its caller no longer checks what the call site just told it.
 *
 * A v2 call site stores dp_cur = csd | 1, as its slot in the caller's pd
 * holds it (or as dp_abi_call_slow returns it), and the callee's prologue loads
 * dp_cur and takes the slow path unless the tag is set and csd is bound to
 * the callee's procedure (one load, of callee_ps: inline_path.cc). When GCC has inlined the
 * callee, that load reads the value the site stored a few statements
 * before; and a direct site's csd is always bound to the site's static
 * callee (the runtime binds it when it makes it: dp_abi_call_slow), or is
 * the sink, which records nothing either way. So the check cannot fail,
 * and the pass folds its condition: the slow call, its block and the
 * load feeding the check go, in code size and in time, once per inlined
 * call. Only direct sites of this TU whose static callee is the inlined
 * procedure qualify, and only when the store reaches the load through
 * statements that cannot change dp_cur (no call, no join).
 * Part of deepprof. MIT licence.
 */
#include "plugin.h"

/* The store to dp_cur that reaches LOAD (a load of it): the last store
 * before it on every path, with nothing between that may change dp_cur.
 * NULL when there is a join, a call or a possible clobber on the way. */
static gimple *reaching_store(gimple *load, tree cur)
{
	tree vuse = gimple_vuse(load);
	for (int k = 0; vuse && TREE_CODE(vuse) == SSA_NAME && k < 32; k++) {
		gimple *d = SSA_NAME_DEF_STMT(vuse);
		if (!d || !is_gimple_assign(d))
			return NULL;    /* a PHI, a call, the function's entry */
		if (gimple_assign_lhs(d) == cur)
			return d;
		if (stmt_may_clobber_ref_p(d, cur))
			return NULL;
		vuse = gimple_vuse(d);
	}
	return NULL;
}

/* C is the dp_abi_call_slow of a direct site of this TU, or the
 * dp_abi_call_bound of a devirtualized one: the site's index, else -1;
 * *PS the procedure its csd is bound to. */
static long direct_slow_site(gimple *c, tree tu, long *ps)
{
	if (!c || !is_gimple_call(c) || gimple_call_num_args(c) < 4 ||
	    !dp_is_tu_addr(gimple_call_arg(c, 0), tu) || !tree_fits_uhwi_p(gimple_call_arg(c, 1)) ||
	    tree_to_uhwi(gimple_call_arg(c, 1)) >= dp_n_sites)
		return -1;
	long site = (long)tree_to_uhwi(gimple_call_arg(c, 1));
	const struct dp_site_rec *r = &dp_sites[site];
	if ((gimple_call_fndecl(c) == dp_roots[DPR_CALL_SLOW] || gimple_call_fndecl(c) == dp_roots[DPR_CALL_NOSLOT] ||
	     gimple_call_fndecl(c) == dp_roots[DPR_COUNT_SLOW]) &&
	    gimple_call_num_args(c) == 4 &&
	    integer_zerop(gimple_call_arg(c, 2))) {
		*ps = r->callee_uid <= -2 ? -2 - r->callee_uid : -1;
		return site;
	}
	if (gimple_call_fndecl(c) == dp_roots[DPR_CALL_BOUND] && gimple_call_num_args(c) == 5 &&
	    tree_fits_uhwi_p(gimple_call_arg(c, 4))) {
		*ps = (long)tree_to_uhwi(gimple_call_arg(c, 4));
		return site;
	}
	return -1;
}

/* PHI joins SLOW (the call_slow of direct site SITE) with the load of
 * that site's slot in the same pd, as emit_site makes the site's csd: the
 * load's MEM_REF, else NULL. */
static tree slot_load(gphi *phi, gimple *slow, long site)
{
	if (gimple_phi_num_args(phi) != 2)
		return NULL_TREE;
	const struct dp_fn_rec *caller = &dp_fns[dp_sites[site].caller];
	for (unsigned i = 0; i < 2; i++) {
		if (dp_def_of(gimple_phi_arg_def(phi, i)) != slow)
			continue;
		gimple *l = dp_def_of(gimple_phi_arg_def(phi, 1 - i));
		tree m = l && gimple_assign_single_p(l) ? gimple_assign_rhs1(l) : NULL_TREE;
		if (m && TREE_CODE(m) == MEM_REF && TREE_OPERAND(m, 0) == gimple_call_arg(slow, 3) &&
		    tree_fits_uhwi_p(TREE_OPERAND(m, 1)) && (unsigned long)site >= caller->first_css &&
		    tree_to_uhwi(TREE_OPERAND(m, 1)) == DP_PD_SLOT + 8 * ((unsigned long)site - caller->first_css))
			return m;
	}
	return NULL_TREE;
}

/* V is (uintptr) csd with csd the PHI of a direct site's slot and its
 * dp_abi_call_slow (both tagged: a slot holds csd | 1), or a devirtualized
 * site's and its dp_abi_call_bound: that site's index, else -1; *PS the
 * procedure its csd is bound to (-1: none). */
static long tagged_site(tree v, tree tu, long *ps)
{
	gimple *cv = dp_def_of(v);
	if (!cv || !is_gimple_assign(cv) || !CONVERT_EXPR_CODE_P(gimple_assign_rhs_code(cv)))
		return -1;
	gphi *phi = dyn_cast<gphi *>(dp_def_of(gimple_assign_rhs1(cv)));
	if (!phi || gimple_phi_num_args(phi) != 2)
		return -1;
	for (unsigned i = 0; i < 2; i++) {
		gimple *c = dp_def_of(gimple_phi_arg_def(phi, i));
		long site = direct_slow_site(c, tu, ps);
		if (site >= 0)
			return slot_load(phi, c, site) ? site : -1;
	}
	return -1;
}

/* The prologue whose slow call is SLOW: fold its check when the site
 * that stored the dp_cur it loads calls its procedure directly. */
static bool fold_prologue(gcall *slow, tree tu, tree cur)
{
	if (gimple_call_num_args(slow) != 3 || !dp_is_tu_addr(gimple_call_arg(slow, 0), tu) ||
	    !tree_fits_uhwi_p(gimple_call_arg(slow, 1)))
		return false;
	unsigned ps = (unsigned)tree_to_uhwi(gimple_call_arg(slow, 1));
	/* what the prologue loaded from dp_cur: the load, or the stored
	 * value itself where the early passes forwarded it (a callee that
	 * the early inliner copied in before them) */
	tree v = gimple_call_arg(slow, 2);
	gimple *load = dp_def_of(v);
	if (load && gimple_assign_single_p(load) && gimple_assign_rhs1(load) == cur) {
		gimple *st = reaching_store(load, cur);
		v = st && gimple_assign_single_p(st) ? gimple_assign_rhs1(st) : NULL_TREE;
	}
	long bound = -1;
	long site = v ? tagged_site(v, tu, &bound) : -1;
	if (site < 0 || bound != (long)ps)
		return false;
	/* the slow call's block, entered from the check's only */
	basic_block bb = gimple_bb(slow);
	if (!single_pred_p(bb))
		return false;
	edge in = single_pred_edge(bb);
	gcond *cond = dyn_cast<gcond *>(last_stmt(in->src));
	if (!cond || !(in->flags & (EDGE_TRUE_VALUE | EDGE_FALSE_VALUE)))
		return false;
	if (in->flags & EDGE_TRUE_VALUE)
		gimple_cond_make_false(cond);
	else
		gimple_cond_make_true(cond);
	update_stmt(cond);
	return true;
}

/*
 * A site whose callee turned out to be a leaf without a prologue (compiled
 * after its caller: instrument.cc could not know) is flagged
 * DP_CSS_LEAF_CALLEE when the tables are made (tables.cc), and the runtime
 * counts its calls as exits. Its code still stores the tagged csd in
 * dp_cur and counts exits after the call: the stores that tag, and the
 * exits increments after, are removed here (what is left is a leaf site's
 * code; one that is missed only costs time).
 */
static bool leaf_site(long site)
{
	return site >= 0 && dp_sites[site].kind == DP_CSS_KIND_NORMAL &&
	       (dp_sites[site].flags & DP_CSS_LEAF_CALLEE);
}

/* MEM[a + exits - 1] = ..., with a the reload of one of SLOTS (tagged):
 * exits++. */
static bool exits_of(gimple *s, const vec<tree> &slots)
{
	if (!gimple_assign_single_p(s))
		return false;
	tree lhs = gimple_assign_lhs(s);
	if (TREE_CODE(lhs) != MEM_REF || TREE_TYPE(TREE_OPERAND(lhs, 1)) != dp_roots[DPR_RT_PTR] ||
	    !tree_fits_uhwi_p(TREE_OPERAND(lhs, 1)) || tree_to_uhwi(TREE_OPERAND(lhs, 1)) != DP_CSD_EXITS - 1)
		return false;
	gimple *l = dp_def_of(TREE_OPERAND(lhs, 0));
	if (!l || !gimple_assign_single_p(l))
		return false;
	for (unsigned i = 0; i < slots.length(); i++)
		if (operand_equal_p(gimple_assign_rhs1(l), slots[i], 0))
			return true;
	return false;
}

/* SLOW is the dp_abi_call_slow of leaf site SITE: the load of its slot
 * that a PHI joins with SLOW's result, else NULL. */
static tree slot_of(gcall *slow, long site)
{
	tree r = gimple_call_lhs(slow);
	if (!r || TREE_CODE(r) != SSA_NAME)
		return NULL_TREE;
	use_operand_p use;
	imm_use_iterator it;
	FOR_EACH_IMM_USE_FAST(use, it, r)
		if (gphi *phi = dyn_cast<gphi *>(USE_STMT(use)))
			if (tree m = slot_load(phi, slow, site))
				return m;
	return NULL_TREE;
}

static void strip_leaf_sites(function *fun, tree tu, tree cur)
{
	long ps;
	auto_vec<gimple *> dead;
	auto_vec<tree> slots;
	basic_block bb;
	FOR_EACH_BB_FN(bb, fun)
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
			gimple *s = gsi_stmt(g);
			if (gimple_assign_single_p(s) && gimple_assign_lhs(s) == cur &&
			    leaf_site(tagged_site(gimple_assign_rhs1(s), tu, &ps))) {
				dead.safe_push(s);      /* the store that tags (if DSE left it) */
				continue;
			}
			long site = direct_slow_site(s, tu, &ps);
			if (!leaf_site(site))
				continue;
			if (tree m = slot_of(as_a<gcall *>(s), site))
				slots.safe_push(m);
		}
	if (!dp_roots[DPR_RT_PTR] || (slots.is_empty() && dead.is_empty()))
		return;
	FOR_EACH_BB_FN(bb, fun)
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g))
			if (exits_of(gsi_stmt(g), slots))
				dead.safe_push(gsi_stmt(g));
	for (unsigned i = 0; i < dead.length(); i++)
		dp_remove_stmt(dead[i]);
}

namespace {

const pass_data inlined_pass_data = {
	GIMPLE_PASS, "deepprof_inlined", OPTGROUP_NONE, TV_NONE,
	PROP_cfg | PROP_ssa, 0, 0, 0, 0
};

class inlined_pass : public gimple_opt_pass {
public:
	inlined_pass(gcc::context *ctxt) : gimple_opt_pass(inlined_pass_data, ctxt) {}
	/* the site records are this compilation's: not in an LTO link */
	bool gate(function *) override
	{
		return dp_opt.abi == 2 && !dp_opt.late && !in_lto_p && !seen_error() && dp_n_sites &&
		       dp_roots[DPR_TU_DECL] && dp_roots[DPR_ENTER_SLOW] &&
		       (dp_roots[DPR_CALL_SLOW] || dp_roots[DPR_COUNT_SLOW] || dp_roots[DPR_CALL_BOUND]) &&
		       dp_roots[DPR_CUR];
	}
	unsigned int execute(function *fun) override;
};

unsigned int inlined_pass::execute(function *fun)
{
	tree tu = dp_roots[DPR_TU_DECL], cur = dp_roots[DPR_CUR];
	auto_vec<gcall *> slow;
	basic_block bb;
	FOR_EACH_BB_FN(bb, fun)
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g))
			if (is_gimple_call(gsi_stmt(g)) &&
			    gimple_call_fndecl(gsi_stmt(g)) == dp_roots[DPR_ENTER_SLOW])
				slow.safe_push(as_a<gcall *>(gsi_stmt(g)));
	bool any = false;
	for (unsigned i = 0; i < slow.length(); i++)
		any |= fold_prologue(slow[i], tu, cur);
	strip_leaf_sites(fun, tu, cur);
	return any ? TODO_cleanup_cfg : 0;
}

} /* namespace */

opt_pass *dp_make_inlined_pass(gcc::context *ctxt)
{
	return new inlined_pass(ctxt);
}
