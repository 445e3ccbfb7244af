/*
 * lower.cc — calls=surviving on ABI v2 (dp_opt.late): the inline fast path
 * placed after inlining.
 *
 * The instrumentation pass emits ABI v1's hooks (instrument.cc), which are
 * calls GCC keeps in order and copies with the bodies it inlines; after
 * inlining surviving.cc removes those of the calls that are gone and the
 * enter hooks of the inlined bodies; then this pass turns what is left
 * into ABI v2's loads and stores (inline_path.cc, in SSA form): the enter
 * hook into the prologue, each call hook and its call into the site's
 * code, each dp_abi_backedge() into a tick of the function's csd, and
 * each dp_abi_land(&tu, 0) into dp_abi_land(&tu, me).
 *
 * A site of an inlined body runs in the activation of the function it was
 * inlined into (P), whose pd has a slot for it after P's own sites': the
 * "extra" slots. They are decided at the end of the IPA passes, when the
 * inliner has decided (dp_late_extras: every site in the bodies inlined
 * into P, transitively, and in the parts GCC split off them), and listed
 * in the TU's table (DP_TU_EXTRA_SLOTS). A function without an enter hook
 * of its own (a part GCC split off a function) runs in the activation of
 * whoever called it: its sites find their csd by the slow path each time.
 *
 * Part of deepprof's compiler plugins. MIT licence.
 */
#include "plugin.h"
#include "tree-into-ssa.h"

/* The procedure whose enter hook F has outside inlined bodies, or -1. */
static int own_ps(function *f)
{
	basic_block bb;
	FOR_EACH_BB_FN(bb, f)
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
			gimple *s = gsi_stmt(g);
			if (dp_hook_of(s) == DPH_ENTER && !dp_from_inlined_body(s) &&
			    tree_fits_uhwi_p(gimple_call_arg(s, 1)) &&
			    tree_to_uhwi(gimple_call_arg(s, 1)) < dp_n_fns)
				return (int)tree_to_uhwi(gimple_call_arg(s, 1));
		}
	return -1;
}

/* The slot of site S in a pd of procedure P: its own, an extra one, or -1. */
static int slot_of(int p, unsigned s)
{
	if (p < 0)
		return -1;
	const struct dp_fn_rec *f = &dp_fns[p];
	if (dp_sites[s].caller == (unsigned)p)
		return (int)(s - f->first_css);
	for (unsigned j = 0; j < f->n_extra; j++)
		if (f->extra[j] == s)
			return (int)(f->n_css + j);
	return -1;
}

/* ================= the extra slots, at the end of IPA ================= */

static function *body_of(cgraph_node *n)
{
	while (n && !gimple_has_body_p(n->decl))
		n = n->clone_of;
	return n ? DECL_STRUCT_FUNCTION(n->decl) : NULL;
}

static void add_extra(unsigned p, unsigned s)
{
	struct dp_fn_rec *f = &dp_fns[p];
	if (dp_sites[s].caller == p)
		return;
	for (unsigned j = 0; j < f->n_extra; j++)
		if (f->extra[j] == s)
			return;
	f->extra = XRESIZEVEC(unsigned, f->extra, f->n_extra + 1);
	f->extra[f->n_extra++] = s;
}

/* The sites of N's body, which runs in P's activation (N is P's own
 * function, a body inlined into it or a part split off one of those), and
 * of the bodies inlined into N and the parts it calls. INLINED: N's body
 * is a copy inlined elsewhere. */
static void collect(cgraph_node *n, unsigned p, bool inlined, hash_set<cgraph_node *> &seen)
{
	if (seen.add(n))
		return;
	if (function *f = body_of(n)) {
		basic_block bb;
		FOR_EACH_BB_FN(bb, f)
			for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
				gimple *s = gsi_stmt(g);
				if (dp_hook_of(s) != DPH_CALL || !tree_fits_uhwi_p(gimple_call_arg(s, 1)))
					continue;
				unsigned site = (unsigned)tree_to_uhwi(gimple_call_arg(s, 1));
				if (site >= dp_n_sites)
					continue;
				add_extra(p, site);
				/* a site in tail position of the function it was written
				 * in is not in an inlined copy: it counts its returns */
				if (inlined || dp_from_inlined_body(s))
					dp_sites[site].flags &= ~DP_CSS_TAIL;
			}
	}
	for (cgraph_edge *e = n->callees; e; e = e->next_callee)
		if (!e->inline_failed)
			collect(e->callee, p, true, seen);
		else if (e->callee->split_part)
			collect(e->callee, p, inlined, seen);
}

/* PLUGIN_ALL_IPA_PASSES_END (not under LTO): the inliner has decided. */
void dp_late_extras(void)
{
	cgraph_node *n;
	FOR_EACH_DEFINED_FUNCTION(n) {
		if (n->inlined_to)
			continue;
		function *f = body_of(n);
		int p = f ? own_ps(f) : -1;
		if (p < 0)
			continue;
		hash_set<cgraph_node *> seen;
		collect(n, (unsigned)p, false, seen);
	}
}

/* ================= the pass ================= */

/* The call that the call hook H stands before (surviving.cc kept H: the
 * next call but _exit's and exec's notices). */
static gimple *call_after(gimple *h)
{
	gimple *c = dp_next_call(h);
	while (c && dp_hook_of(c) == DPH_OTHER)
		c = dp_next_call(c);
	return c && dp_hook_of(c) == DPH_NONE ? c : NULL;
}

namespace {

const pass_data lower_pass_data = {
	GIMPLE_PASS, "deepprof_lower", OPTGROUP_NONE, TV_NONE,
	PROP_cfg | PROP_ssa, 0, 0, 0, 0
};

class lower_pass : public gimple_opt_pass {
public:
	lower_pass(gcc::context *ctxt) : gimple_opt_pass(lower_pass_data, ctxt) {}
	bool gate(function *) override
	{
		return dp_opt.late && !in_lto_p && !seen_error() && dp_roots[DPR_TU_DECL];
	}
	unsigned int execute(function *fun) override;
};

unsigned int lower_pass::execute(function *fun)
{
	auto_vec<gimple *> enters, calls, returns, backs, lands;
	basic_block bb;
	FOR_EACH_BB_FN(bb, fun)
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
			gimple *s = gsi_stmt(g);
			switch (dp_hook_of(s)) {
			case DPH_ENTER: enters.safe_push(s); break;
			case DPH_CALL: calls.safe_push(s); break;
			case DPH_RETURN: returns.safe_push(s); break;
			case DPH_BACKEDGE: backs.safe_push(s); break;
			case DPH_LAND: lands.safe_push(s); break;
			default: break;
			}
		}
	if (enters.is_empty() && calls.is_empty() && returns.is_empty() && backs.is_empty() &&
	    lands.is_empty())
		return 0;
	free_dominance_info(CDI_DOMINATORS);
	free_dominance_info(CDI_POST_DOMINATORS);

	/* my csd and pd: from the prologue of my enter hook (surviving.cc
	 * left only mine), or a leaf's nothing, or a continuation's */
	int p = -1;
	gimple *enter = NULL;
	for (unsigned i = 0; i < enters.length(); i++)
		if (tree_fits_uhwi_p(gimple_call_arg(enters[i], 1)) &&
		    tree_to_uhwi(gimple_call_arg(enters[i], 1)) < dp_n_fns) {
			enter = enters[i];
			p = (int)tree_to_uhwi(gimple_call_arg(enter, 1));
			break;
		}
	tree me = NULL_TREE, pd = NULL_TREE;
	bool work = !calls.is_empty() || !backs.is_empty();
	if (enter && (work || !(dp_fns[p].flags & DP_PS_LEAF) || dp_fns[p].v2_entry))
		dp_v2_prologue(fun, (unsigned)p, enter, &me, &pd);
	else if (work)
		dp_v2_continuation(fun, &me, &pd);

	for (unsigned i = 0; i < backs.length(); i++) {
		gimple_stmt_iterator g = gsi_for_stmt(backs[i]);
		dp_v2_tick(&g, me, gimple_location(backs[i]));
	}
	for (unsigned i = 0; i < calls.length(); i++) {
		gimple *h = calls[i], *call = call_after(h);
		if (!call || !tree_fits_uhwi_p(gimple_call_arg(h, 1)) ||
		    tree_to_uhwi(gimple_call_arg(h, 1)) >= dp_n_sites)
			continue;
		unsigned site = (unsigned)tree_to_uhwi(gimple_call_arg(h, 1));
		tree fn = dp_sites[site].kind == DP_CSS_KIND_INDIRECT ? gimple_call_arg(h, 2) : NULL_TREE;
		dp_v2_site(h, call, site, slot_of(enter ? p : -1, site), me, pd, fn);
	}
	for (unsigned i = 0; i < lands.length(); i++)
		if (me) {
			gimple_call_set_arg(lands[i], 1, me);
			update_stmt(lands[i]);
		}

	for (unsigned i = 0; i < enters.length(); i++)
		dp_remove_stmt(enters[i]);
	for (unsigned i = 0; i < calls.length(); i++)
		dp_remove_stmt(calls[i]);
	for (unsigned i = 0; i < returns.length(); i++)
		dp_remove_stmt(returns[i]);
	for (unsigned i = 0; i < backs.length(); i++)
		dp_remove_stmt(backs[i]);
	for (unsigned i = 0; !me && i < lands.length(); i++)
		dp_remove_stmt(lands[i]);
	gsi_commit_edge_inserts();
	mark_virtual_operands_for_renaming(fun);
	if (current_loops)
		loops_state_set(LOOPS_NEED_FIXUP);
	return TODO_update_ssa_only_virtuals | TODO_cleanup_cfg;
}

} /* namespace */

opt_pass *dp_make_lower_pass(gcc::context *ctxt)
{
	return new lower_pass(ctxt);
}
