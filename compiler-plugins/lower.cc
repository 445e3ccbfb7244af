/*
 * lower.cc — ABI v2's inline fast path made of ABI v1's hooks after
 * inlining: by default (lower_bodies, below: every call counted, each
 * inlined body its own activation), and with calls=surviving
 * (dp_opt.late), from the hooks of the calls that survived inlining.
 *
 * calls=surviving:
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

/* ================= abi 2 by default: after inlining ================= */

/*
 * Without calls=surviving every source-level call counts, inlined or not;
 * but GCC's inliner and function splitting are best left to see calls
 * where the inline path will be (instrument.cc, lowered_after_ipa). Here,
 * after inlining, each body's hooks become the code inline_path.cc emits
 * before inlining, body by body: the function's own and each body GCC
 * inlined into it, told apart by scope (the inliner nests an inlined body's
 * scopes under a block of its own). A body's enter hook becomes its
 * prologue (an inlined one's check is folded by inlined.cc), and its sites
 * use its pd. A body with no enter hook is a part GCC split off a function
 * (f.part.0), or a piece of an inlined body that function splitting moved
 * away from the body's entry: it runs in the activation of the function it
 * comes from, which dp_cur names; its code finds me and pd from dp_cur
 * where it starts, checked (dp_abi_resume when a signal handler left
 * dp_cur naming another csd).
 */

/* The body statement S is in: the block the inliner made for the inlined
 * call around it, the innermost; NULL_TREE for the function's own code. */
static tree body_of_stmt(gimple *s)
{
	for (tree b = gimple_block(s); b && TREE_CODE(b) == BLOCK; b = BLOCK_SUPERCONTEXT(b))
		if (inlined_function_outer_scope_p(b))
			return b;
	return NULL_TREE;
}

/* The call return hook R follows, in its body: the last statement before
 * R, in its block or ending the one block before it. */
static gimple *call_before(gimple *r)
{
	gimple *last = NULL;
	gimple_stmt_iterator g = gsi_for_stmt(r);
	for (gsi_prev(&g); !gsi_end_p(g) && !last; gsi_prev(&g))
		if (!is_gimple_debug(gsi_stmt(g)))
			last = gsi_stmt(g);
	if (!last && single_pred_p(gimple_bb(r)))
		last = last_stmt(single_pred(gimple_bb(r)));
	if (!last || !is_gimple_call(last) || gimple_call_internal_p(last) || dp_hook_of(last) != DPH_NONE ||
	    body_of_stmt(last) != body_of_stmt(r))
		return NULL;
	return last;
}

/* The procedure of function DECL's source (a clone's, a part's: their
 * origin's), or -1. */
static int ps_of_decl(tree decl)
{
	if (!decl || TREE_CODE(decl) != FUNCTION_DECL)
		return -1;
	tree o = DECL_ORIGIN(decl);
	for (unsigned i = 0; i < dp_n_fns; i++)
		if (dp_fns[i].uid == (int)DECL_UID(o))
			return (int)i;
	return -1;
}

/* Statement A comes before B on every path (B's block is dominated by A's,
 * or it is A's block and B follows A). Dominators computed. */
static bool before_all(gimple *a, gimple *b)
{
	if (gimple_bb(a) != gimple_bb(b))
		return dominated_by_p(CDI_DOMINATORS, gimple_bb(b), gimple_bb(a));
	for (gimple_stmt_iterator g = gsi_for_stmt(a); !gsi_end_p(g); gsi_next(&g))
		if (gsi_stmt(g) == b)
			return true;
	return false;
}

/* One body's hooks (above). */
struct body {
	tree key;
	gimple *enter;
	int ps;                 /* its procedure, -1 unknown */
	bool work;              /* it has sites or back-edges */
	gimple *first;          /* no enter hook: its site or tick that comes
	                           before all its hooks (dominates them), if any */
	tree me, pd;            /* found and checked: its sites use their slots */
	int from;               /* the call hook of a lean site into it (-2:
	                           several), else -1 */
};

static unsigned body_index(vec<body> &bodies, hash_map<tree, unsigned> &index, tree key)
{
	tree k = key ? key : error_mark_node;   /* (a hash_map key is never NULL) */
	if (unsigned *i = index.get(k))
		return *i;
	body b = { key, NULL, -1, false, NULL, NULL_TREE, NULL_TREE, -1 };
	bodies.safe_push(b);
	index.put(k, bodies.length() - 1);
	return bodies.length() - 1;
}

/* The enter hook on the paths from call hook H to the return hooks of its
 * site (index SITE), when nothing else there is a call, a hook or an asm:
 * its index in the hooks (AT), else -1. Every path must reach such a
 * return hook within a few hundred statements. */
static int lean_region(gimple *h, unsigned long site, hash_map<gimple *, unsigned> &at)
{
	auto_vec<basic_block, 16> todo;
	auto_bitmap seen;
	int enter = -1, budget = 256;
	basic_block bb = gimple_bb(h);
	gimple_stmt_iterator g = gsi_for_stmt(h);
	gsi_next(&g);
	for (;;) {
		bool ended = false;     /* at the site's return hook */
		for (; !gsi_end_p(g) && !ended; gsi_next(&g)) {
			gimple *s = gsi_stmt(g);
			if (is_gimple_debug(s) || gimple_code(s) == GIMPLE_LABEL)
				continue;
			if (--budget < 0 || gimple_code(s) == GIMPLE_ASM)
				return -1;
			if (!is_gimple_call(s) || gimple_call_internal_p(s))
				continue;
			enum dp_hook_kind k = dp_hook_of(s);
			if (k == DPH_RETURN && tree_fits_uhwi_p(gimple_call_arg(s, 1)) &&
			    tree_to_uhwi(gimple_call_arg(s, 1)) == site) {
				ended = true;
			} else if (k == DPH_ENTER && enter < 0) {
				unsigned *i = at.get(s);
				if (!i)
					return -1;
				enter = (int)*i;
			} else {
				return -1;
			}
		}
		if (!ended) {
			edge e;
			edge_iterator ei;
			if (EDGE_COUNT(bb->succs) == 0)
				return -1;
			FOR_EACH_EDGE(e, ei, bb->succs) {
				if (e->dest == EXIT_BLOCK_PTR_FOR_FN(cfun) || (e->flags & (EDGE_ABNORMAL | EDGE_EH)))
					return -1;
				if (bitmap_set_bit(seen, e->dest->index))
					todo.safe_push(e->dest);
			}
		}
		if (todo.is_empty())
			return enter;
		bb = todo.pop();
		g = gsi_start_bb(bb);
	}
}

/*
 * Lean sites. A site whose call GCC inlined, into a body that has no site,
 * no tick and no call of its own, changes no dp_cur: the body runs no
 * code that reads it (its prologue, folded, would read only what the
 * site stored) and calls nothing that could. Its code then leaves dp_cur
 * alone: no tagging store before the body, no restore after it, only
 * calls and exits counted (a body that makes no call returns; a longjmp
 * from a signal handler over it counts as a return, as over a leaf). A
 * clock tick in the body goes to the caller's csd, as in a leaf without a
 * prologue (schemas/plugin-abi.md, "Leaves"). Which code is the body's is
 * told by the paths from the call hook to the site's return hooks: they
 * must hold the callee's enter hook and nothing else that is a hook, a
 * call or an asm (a part GCC split off the body, inlined or not, a call
 * whose statement has no scope, as an OpenMP construct's GOMP_parallel:
 * each is a hook or a call there). LEAN[i]: hook i is such a site's call
 * hook, or a return hook of such a site (every call hook of its site in
 * its body lean); the body gets no prologue.
 */
/* A key for (body B, the site of call or return hook H). */
static HOST_WIDE_INT body_site(unsigned b, gimple *h)
{
	return (HOST_WIDE_INT)b * dp_n_sites + (HOST_WIDE_INT)tree_to_uhwi(gimple_call_arg(h, 1));
}

static void lean_sites(const vec<gimple *> &hooks, const vec<unsigned> &of, const vec<gimple *> &call_of,
		       vec<body> &bodies, vec<bool> &lean)
{
	hash_map<gimple *, unsigned> at;
	for (unsigned i = 0; i < hooks.length(); i++) {
		lean.safe_push(false);
		at.put(hooks[i], i);
	}
	auto_vec<int> found;
	for (unsigned i = 0; i < hooks.length(); i++) {
		gimple *h = hooks[i];
		found.safe_push(-1);
		if (dp_hook_of(h) != DPH_CALL || call_of[i] || !tree_fits_uhwi_p(gimple_call_arg(h, 1)) ||
		    tree_to_uhwi(gimple_call_arg(h, 1)) >= dp_n_sites)
			continue;
		unsigned long site = tree_to_uhwi(gimple_call_arg(h, 1));
		const struct dp_site_rec *r = &dp_sites[site];
		if (r->kind != DP_CSS_KIND_NORMAL || r->callee_uid > -2)
			continue;
		int e = lean_region(h, site, at);
		if (e < 0)
			continue;
		body &b = bodies[of[e]];
		if (b.enter != hooks[e] || b.ps != -2 - r->callee_uid || b.work)
			continue;
		found[i] = (int)of[e];
		b.from = b.from == -1 ? (int)i : -2;
	}
	/* by (body, site): every call hook lean (1), or not (0) */
	hash_map<int_hash<HOST_WIDE_INT, -1, -2>, int> all;
	for (unsigned i = 0; i < hooks.length(); i++) {
		if (dp_hook_of(hooks[i]) != DPH_CALL || call_of[i] || !tree_fits_uhwi_p(gimple_call_arg(hooks[i], 1)))
			continue;
		lean[i] = found[i] >= 0 && bodies[found[i]].from == (int)i;
		HOST_WIDE_INT k = body_site(of[i], hooks[i]);
		int *v = all.get(k);
		if (!v)
			all.put(k, lean[i]);
		else
			*v &= lean[i];
	}
	for (unsigned i = 0; i < hooks.length(); i++) {
		if (dp_hook_of(hooks[i]) != DPH_RETURN || call_of[i] || !tree_fits_uhwi_p(gimple_call_arg(hooks[i], 1)))
			continue;
		int *v = all.get(body_site(of[i], hooks[i]));
		lean[i] = v && *v;
	}
}

static unsigned int lower_bodies(function *fun)
{
	auto_vec<gimple *> hooks;
	basic_block bb;
	FOR_EACH_BB_FN(bb, fun)
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
			gimple *s = gsi_stmt(g);
			enum dp_hook_kind k = dp_hook_of(s);
			/* (a landing emitted with its csd is no marker: code
			 * instrument.cc emitted as the inline path, at -O0) */
			if (k != DPH_NONE && k != DPH_OTHER &&
			    (k != DPH_LAND || integer_zerop(gimple_call_arg(s, 1))))
				hooks.safe_push(s);
		}
	if (hooks.is_empty())
		return 0;

	/* which body each hook is in, and (before any code is added) which
	 * sites' calls are still there: a call hook's call follows it in the
	 * same body, a return hook follows its call */
	calculate_dominance_info(CDI_DOMINATORS);
	auto_vec<body> bodies;
	hash_map<tree, unsigned> index;
	auto_vec<unsigned> of;
	auto_vec<gimple *> call_of;
	for (unsigned i = 0; i < hooks.length(); i++) {
		gimple *h = hooks[i];
		tree key = body_of_stmt(h);
		unsigned b = body_index(bodies, index, key);
		of.safe_push(b);
		enum dp_hook_kind k = dp_hook_of(h);
		gimple *c = NULL;
		if (k == DPH_CALL) {
			c = call_after(h);
			if (c && body_of_stmt(c) != key)
				c = NULL;
		} else if (k == DPH_RETURN) {
			c = call_before(h);
		}
		call_of.safe_push(c);
		if (k == DPH_ENTER && !bodies[b].enter && tree_fits_uhwi_p(gimple_call_arg(h, 1)) &&
		    tree_to_uhwi(gimple_call_arg(h, 1)) < dp_n_fns) {
			bodies[b].enter = h;
			bodies[b].ps = (int)tree_to_uhwi(gimple_call_arg(h, 1));
		}
		if (k == DPH_CALL || k == DPH_BACKEDGE)
			bodies[b].work = true;
	}
	auto_vec<bool> lean;
	lean_sites(hooks, of, call_of, bodies, lean);

	/* a body without an enter hook (few, and small): one of its sites or
	 * ticks before all its hooks, where dp_cur names its activation; if
	 * none, each return hook's call hook, where the site's code finds me
	 * for the code after the call */
	auto_vec<int> paired;
	for (unsigned i = 0; i < hooks.length(); i++)
		paired.safe_push(-1);
	for (unsigned i = 0; i < bodies.length(); i++) {
		body &b = bodies[i];
		if (b.enter || !b.key)
			continue;
		auto_vec<unsigned> mine;
		for (unsigned j = 0; j < hooks.length(); j++)
			if (of[j] == i)
				mine.safe_push(j);
		for (unsigned j : mine) {
			enum dp_hook_kind k = dp_hook_of(hooks[j]);
			bool all = k == DPH_CALL || k == DPH_BACKEDGE;
			for (unsigned m = 0; m < mine.length() && all; m++)
				all = mine[m] == j || before_all(hooks[j], hooks[mine[m]]);
			if (all) {
				b.first = hooks[j];
				break;
			}
		}
		for (unsigned r : mine) {
			if (b.first || dp_hook_of(hooks[r]) != DPH_RETURN || call_of[r])
				continue;
			for (unsigned j : mine)
				if (dp_hook_of(hooks[j]) == DPH_CALL &&
				    operand_equal_p(gimple_call_arg(hooks[j], 1), gimple_call_arg(hooks[r], 1), 0) &&
				    before_all(hooks[j], hooks[r]))
					paired[r] = (int)j;
		}
	}
	free_dominance_info(CDI_DOMINATORS);
	free_dominance_info(CDI_POST_DOMINATORS);

	for (unsigned i = 0; i < bodies.length(); i++) {
		body &b = bodies[i];
		const struct dp_fn_rec *f = b.enter ? &dp_fns[b.ps] : NULL;
		if (f && (b.work || !(f->flags & DP_PS_LEAF) || f->v2_entry) &&
		    !(b.from >= 0 && lean[b.from]))
			dp_v2_prologue(fun, (unsigned)b.ps, b.enter, &b.me, &b.pd);
	}
	for (unsigned i = 0; i < bodies.length(); i++) {
		body &b = bodies[i];
		if (b.enter || !b.work)
			continue;
		b.ps = ps_of_decl(b.key ? BLOCK_ABSTRACT_ORIGIN(b.key) : fun->decl);
		if (b.ps < 0)
			continue;
		/* a part inlined where its head was (into the head, or into
		 * where the head was inlined): the head's activation */
		if (b.key) {
			tree up = BLOCK_SUPERCONTEXT(b.key);
			while (up && TREE_CODE(up) == BLOCK && !inlined_function_outer_scope_p(up))
				up = BLOCK_SUPERCONTEXT(up);
			unsigned *o = index.get(up && TREE_CODE(up) == BLOCK ? up : error_mark_node);
			if (o && bodies[*o].enter && bodies[*o].ps == b.ps) {
				b.me = bodies[*o].me;
				b.pd = bodies[*o].pd;
			}
		}
		if (!b.me && (!b.key || b.first))
			dp_v2_resume(fun, (unsigned)b.ps, b.first, &b.me, &b.pd);
	}
	/* the hooks of a body with no such place: each site and tick finds
	 * its activation itself, and a return hook where its call hook did */
	auto_vec<tree> hme, hpd;
	for (unsigned i = 0; i < hooks.length(); i++) {
		const body &b = bodies[of[i]];
		tree me = b.me, pd = b.pd;
		enum dp_hook_kind k = dp_hook_of(hooks[i]);
		if (!me && !b.enter && b.ps >= 0 && (k == DPH_CALL || k == DPH_BACKEDGE))
			dp_v2_resume(fun, (unsigned)b.ps, hooks[i], &me, &pd);
		hme.safe_push(me);
		hpd.safe_push(pd);
	}
	for (unsigned i = 0; i < hooks.length(); i++)
		if (!hme[i] && paired[i] >= 0) {
			hme[i] = hme[paired[i]];
			hpd[i] = hpd[paired[i]];
		}

	for (unsigned i = 0; i < hooks.length(); i++) {
		gimple *h = hooks[i];
		const body &b = bodies[of[i]];
		tree me = hme[i], pd = hpd[i];
		switch (dp_hook_of(h)) {
		case DPH_BACKEDGE:
			if (me) {
				gimple_stmt_iterator g = gsi_for_stmt(h);
				dp_v2_tick(&g, me, gimple_location(h));
			}
			break;
		case DPH_LAND:
			if (me) {
				gimple_call_set_arg(h, 1, me);
				update_stmt(h);
			}
			break;
		case DPH_CALL:
		case DPH_RETURN: {
			if (!pd || !tree_fits_uhwi_p(gimple_call_arg(h, 1)) ||
			    tree_to_uhwi(gimple_call_arg(h, 1)) >= dp_n_sites)
				break;
			unsigned site = (unsigned)tree_to_uhwi(gimple_call_arg(h, 1));
			int slot = dp_sites[site].caller == (unsigned)b.ps ?
				   (int)(site - dp_fns[b.ps].first_css) : -1;
			bool indirect = dp_sites[site].kind == DP_CSS_KIND_INDIRECT;
			tree fn = indirect ? gimple_call_arg(h, 2) : NULL_TREE;
			if (dp_hook_of(h) == DPH_CALL && call_of[i]) {
				/* the call is there: the code around it (its return
				 * hook goes) */
				dp_v2_site(h, call_of[i], site, slot, me, pd, fn);
			} else if (dp_hook_of(h) == DPH_CALL) {
				/* GCC inlined the callee's body: the call's code
				 * before the body, the return's after (an indirect
				 * site's exits go to what its slot holds then) */
				dp_v2_site_pre(h, site, slot, pd, fn, lean[i]);
			} else if (!call_of[i]) {
				dp_v2_site_post(h, site, slot, me, pd, lean[i]);
			}
			break;
		}
		default:
			break;
		}
	}
	for (unsigned i = 0; i < hooks.length(); i++)
		if (dp_hook_of(hooks[i]) != DPH_LAND || !hme[i])
			dp_remove_stmt(hooks[i]);
	gsi_commit_edge_inserts();
	mark_virtual_operands_for_renaming(fun);
	if (current_loops)
		loops_state_set(LOOPS_NEED_FIXUP);
	return TODO_update_ssa_only_virtuals | TODO_cleanup_cfg;
}

const pass_data lower_inlined_pass_data = {
	GIMPLE_PASS, "deepprof_lower_inlined", OPTGROUP_NONE, TV_NONE,
	PROP_cfg | PROP_ssa, 0, 0, 0, 0
};

class lower_inlined_pass : public gimple_opt_pass {
public:
	lower_inlined_pass(gcc::context *ctxt) : gimple_opt_pass(lower_inlined_pass_data, ctxt) {}
	bool gate(function *) override
	{
		return dp_opt.abi == 2 && !dp_opt.late && !in_lto_p && !seen_error() && dp_roots[DPR_TU_DECL];
	}
	unsigned int execute(function *fun) override { return lower_bodies(fun); }
};

} /* namespace */

opt_pass *dp_make_lower_pass(gcc::context *ctxt)
{
	return new lower_pass(ctxt);
}

opt_pass *dp_make_lower_inlined_pass(gcc::context *ctxt)
{
	return new lower_inlined_pass(ctxt);
}
