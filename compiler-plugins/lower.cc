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

/* The body block K is in, past K itself (body_of_stmt's next). */
static tree body_of_stmt_above(tree k)
{
	for (tree b = BLOCK_SUPERCONTEXT(k); b && TREE_CODE(b) == BLOCK; b = BLOCK_SUPERCONTEXT(b))
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
	int from;               /* the call hook of a quiet site into it (-2:
	                           several), else -1 */
	int head;               /* a part of the quiet body of this index, GCC
	                           inlined into it: runs in its activation */
};

/* Call hook H of indirect site SITE whose call GCC inlined: the procedure
 * of this TU its target is (GCC found the pointer constant, made the call
 * direct and inlined it; schemas/plugin-abi.md, "Devirtualized sites"),
 * if that procedure has a prologue (a body of it here has its enter
 * hook), else -1. */
static int devirt_ps(const vec<body> &bodies, gimple *h, unsigned site)
{
	if (dp_sites[site].kind != DP_CSS_KIND_INDIRECT)
		return -1;
	tree fn = gimple_call_arg(h, 2);
	STRIP_NOPS(fn);
	if (TREE_CODE(fn) != ADDR_EXPR || TREE_CODE(TREE_OPERAND(fn, 0)) != FUNCTION_DECL)
		return -1;
	int p = ps_of_decl(TREE_OPERAND(fn, 0));
	for (const body &b : bodies)
		if (p >= 0 && b.enter && b.ps == p)
			return p;
	return -1;
}

static unsigned body_index(vec<body> &bodies, hash_map<tree, unsigned> &index, tree key)
{
	tree k = key ? key : error_mark_node;   /* (a hash_map key is never NULL) */
	if (unsigned *i = index.get(k))
		return *i;
	body b = { key, NULL, -1, false, NULL, NULL_TREE, NULL_TREE, -1, -1 };
	bodies.safe_push(b);
	index.put(k, bodies.length() - 1);
	return bodies.length() - 1;
}

/* Block KEY is OUTER or in it. */
static bool nested_in(tree key, tree outer)
{
	for (tree b = key; b && TREE_CODE(b) == BLOCK; b = BLOCK_SUPERCONTEXT(b))
		if (b == outer)
			return true;
	return false;
}

/* The most statements a quiet body has, with the bodies inlined within
 * it: a clock tick in its code goes to its owner's csd, a small error
 * only where the body is small (and it has no loop). */
#define QUIET_MAX 128

/* The enter hook on the paths from call hook H to the return hooks of its
 * site (index SITE; a site in tail position has none: to where the scope
 * the body was inlined into resumes, or the function's exit): its index
 * in the hooks (AT), else -1. On those paths the other hooks (INNER gets
 * their indexes: sites', ticks', the enter hooks of bodies inlined
 * within) and calls (CALLS) are left for the caller to check; an asm,
 * another hook, an abnormal or EH edge or (but for a tail site) the
 * function's exit fail. Every path must end so within QUIET_MAX
 * statements in all, or in a block that ends the function (a call that
 * does not return). */
static int body_region(gimple *h, unsigned long site, hash_map<gimple *, unsigned> &at,
		       hash_set<int_hash<int, -1, -2>> &inner, hash_set<gimple *> &calls)
{
	/* a site in tail position has no return hook: the body ends the
	 * function */
	bool tail = dp_sites[site].flags & DP_CSS_TAIL;
	tree key = NULL_TREE;
	auto_vec<basic_block, 16> todo;
	auto_bitmap seen;
	int enter = -1, budget = QUIET_MAX;
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
			/* (a tail site's body ends where the code of the
			 * scope it was inlined into resumes) */
			if (tail && key && gimple_block(s) && !nested_in(gimple_block(s), key)) {
				ended = true;
				break;
			}
			if (!is_gimple_call(s) || gimple_call_internal_p(s))
				continue;
			enum dp_hook_kind k = dp_hook_of(s);
			if (k == DPH_RETURN && tree_fits_uhwi_p(gimple_call_arg(s, 1)) &&
			    tree_to_uhwi(gimple_call_arg(s, 1)) == site) {
				ended = true;
			} else if (k == DPH_NONE) {
				if (!gimple_call_builtin_p(s, BUILT_IN_UNREACHABLE) &&
				    !gimple_call_builtin_p(s, BUILT_IN_TRAP))
					calls.add(s);
			} else {
				unsigned *i = at.get(s);
				if (!i)
					return -1;
				if (k == DPH_ENTER && enter < 0) {
					enter = (int)*i;
					key = body_of_stmt(s);
				}
				else if (k == DPH_ENTER || k == DPH_CALL || k == DPH_RETURN || k == DPH_BACKEDGE)
					inner.add((int)*i);
				else
					return -1;
			}
		}
		if (!ended) {
			edge e;
			edge_iterator ei;
			FOR_EACH_EDGE(e, ei, bb->succs) {
				if (e->dest == EXIT_BLOCK_PTR_FOR_FN(cfun) && tail && !(e->flags & (EDGE_ABNORMAL | EDGE_EH)))
					continue;
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
 * Quiet bodies (schemas/plugin-abi.md). A small body GCC inlined at a
 * direct site (no loop, QUIET_MAX statements at most), whose code calls
 * nothing but through its own sites and the parts GCC split off its
 * function (no setjmp, no asm), with every body inlined within it quiet
 * too, leaves dp_cur to the code it was inlined into (its
 * owner: the nearest code around it that is not a quiet body). The site
 * counts the call and its return before the body (one load of the slot;
 * no tagging store before the body, no restore and no reload of the slot
 * after it); the body's me is the site's csd, bound to the body's
 * procedure (the runtime's rule for direct sites, as a folded prologue
 * relies on), its pd is loaded at each of its sites; its sites restore
 * dp_cur to the owner's me, and take the exits of the quiet bodies they
 * are in back while their calls run (exits - 1 before, + 1 after), so a
 * longjmp, exit or pthread_exit over a call leaves those bodies' calls
 * non-local exits, as before; a call of a part gets dp_cur = me around
 * it (the part finds its activation there). A clock tick in the body's
 * own code goes to the owner's csd, as in a leaf without a prologue
 * (hence small bodies without loops only). A body that makes no call (a
 * lean site, before) needs no me.
 *
 * Which code is the body's is told by the paths from the site's call
 * hook to its return hooks (body_region; a site in tail position has
 * none: to where the scope it was inlined into resumes): they must hold
 * the callee's enter hook, every hook and call of the body and of the
 * bodies inlined within it (quiet_body), and no other. LEAN[i]: hook i is
 * such a site's call hook, or a return hook of such a site (every call
 * hook of its site in its body quiet).
 */
/* A key for (body B, the site of call or return hook H). */
static HOST_WIDE_INT body_site(unsigned b, gimple *h)
{
	return (HOST_WIDE_INT)b * dp_n_sites + (HOST_WIDE_INT)tree_to_uhwi(gimple_call_arg(h, 1));
}

/* The body in which GCC inlined body P, a part it split off a function
 * (no enter hook), when that is where the part's head is: an index, or
 * -1. */
static int head_of_part(const vec<body> &bodies, hash_map<tree, unsigned> &index, unsigned p)
{
	const body &b = bodies[p];
	if (b.enter || !b.key)
		return -1;
	tree up = BLOCK_SUPERCONTEXT(b.key);
	while (up && TREE_CODE(up) == BLOCK && !inlined_function_outer_scope_p(up))
		up = BLOCK_SUPERCONTEXT(up);
	unsigned *o = up && TREE_CODE(up) == BLOCK ? index.get(up) : NULL;
	if (!o || !bodies[*o].enter || bodies[*o].ps != ps_of_decl(BLOCK_ABSTRACT_ORIGIN(b.key)))
		return -1;
	return (int)*o;
}

/* The procedure of body B's code (a part's: its function's). */
static int ps_of_body(const vec<body> &bodies, unsigned b)
{
	return bodies[b].enter ? bodies[b].ps : bodies[b].key ? ps_of_decl(BLOCK_ABSTRACT_ORIGIN(bodies[b].key)) : -1;
}

/* A quiet body's candidate (quiet_sites): what makes it quiet if the
 * bodies inlined within it are. */
struct quiet_cand {
	unsigned body;
	auto_vec<unsigned> nested;      /* bodies with an enter hook within it */
	auto_vec<unsigned> bare;        /* hooks of sites within it with no call */
	auto_vec<unsigned> part_bodies; /* parts GCC inlined within it */
	auto_vec<gimple *> part_calls;  /* calls of parts within it */
};

/* The hooks and calls body_region found within body B (C->body) leave it
 * a candidate (C filled), if the bodies within it turn out quiet. */
static bool quiet_body(const vec<gimple *> &hooks, const vec<unsigned> &of, const vec<gimple *> &call_of,
		       const vec<body> &bodies, hash_map<tree, unsigned> &index, const vec<unsigned> &n_calls,
		       hash_set<int_hash<int, -1, -2>> &inner, hash_set<gimple *> &calls, quiet_cand *c)
{
	unsigned b = c->body;
	hash_set<gimple *> sites;
	unsigned mine = 0;
	for (unsigned j = 0; j < hooks.length(); j++) {
		unsigned o = of[j];
		if (hooks[j] == bodies[b].enter || !bodies[o].key || !nested_in(bodies[o].key, bodies[b].key))
			continue;
		mine++;
		if (!inner.contains((int)j))
			return false;
		if (o != b && !bodies[o].enter) {
			/* a part inlined within: of a function whose body is
			 * the candidate or within it (it runs in that one's
			 * activation) */
			int h = head_of_part(bodies, index, o);
			if (h < 0 || !nested_in(bodies[h].key, bodies[b].key))
				return false;
			if (!c->part_bodies.contains(o))
				c->part_bodies.safe_push(o);
		}
		enum dp_hook_kind k = dp_hook_of(hooks[j]);
		if (k == DPH_BACKEDGE)
			return false;   /* a loop: its time stays its own */
		if (k == DPH_ENTER) {
			if (hooks[j] != bodies[o].enter)
				return false;
			c->nested.safe_push(o);
			continue;
		}
		if ((k != DPH_CALL && k != DPH_RETURN) || !tree_fits_uhwi_p(gimple_call_arg(hooks[j], 1)) ||
		    tree_to_uhwi(gimple_call_arg(hooks[j], 1)) >= dp_n_sites)
			return false;
		if (!call_of[j])
			c->bare.safe_push(j);   /* a body inlined there: quiet, below */
		else if (k == DPH_CALL)
			sites.add(call_of[j]);
	}
	if (inner.elements() != mine)
		return false;
	/* every call of its code on the paths walked (none that GCC moved
	 * elsewhere, or that the walk of a tail site's body did not reach):
	 * as many as its bodies have */
	unsigned want = 0, seen = 0;
	for (unsigned o = 0; o < bodies.length(); o++)
		if (bodies[o].key && nested_in(bodies[o].key, bodies[b].key))
			want += n_calls[o];
	for (hash_set<gimple *>::iterator i = calls.begin(); i != calls.end(); ++i) {
		tree k = body_of_stmt(*i);
		seen += k && nested_in(k, bodies[b].key);
	}
	if (seen != want)
		return false;
	for (hash_set<gimple *>::iterator i = calls.begin(); i != calls.end(); ++i) {
		if (sites.contains(*i))
			continue;
		/* a part GCC split off the function of the body the call is
		 * in, which runs in that body's activation (dp_v2_quiet_part) */
		tree fn = gimple_call_fndecl(*i);
		cgraph_node *n = fn ? cgraph_node::get(fn) : NULL;
		unsigned *o = index.get(body_of_stmt(*i) ? body_of_stmt(*i) : error_mark_node);
		if (!n || !n->split_part || !o || ps_of_decl(fn) != ps_of_body(bodies, *o))
			return false;
		c->part_calls.safe_push(*i);
	}
	return true;
}

/* LEAN (above) from the candidates still in Q (by body: its candidate's
 * index, or -1): a call hook is quiet when its body is, and the hooks of
 * a site in a body are when all its call hooks are. */
static void quiet_hooks(const vec<gimple *> &hooks, const vec<unsigned> &of, const vec<gimple *> &call_of,
			const vec<body> &bodies, const vec<int> &found, const vec<int> &q, vec<bool> &lean)
{
	hash_map<int_hash<HOST_WIDE_INT, -1, -2>, int> all;
	for (unsigned i = 0; i < hooks.length(); i++) {
		if (dp_hook_of(hooks[i]) != DPH_CALL || call_of[i] || !tree_fits_uhwi_p(gimple_call_arg(hooks[i], 1)))
			continue;
		bool ok = found[i] >= 0 && q[found[i]] >= 0 && bodies[found[i]].from == (int)i;
		HOST_WIDE_INT k = body_site(of[i], hooks[i]);
		int *v = all.get(k);
		if (!v)
			all.put(k, ok);
		else
			*v &= ok;
	}
	for (unsigned i = 0; i < hooks.length(); i++) {
		lean[i] = false;
		enum dp_hook_kind k = dp_hook_of(hooks[i]);
		if ((k != DPH_RETURN && k != DPH_CALL) || call_of[i] || !tree_fits_uhwi_p(gimple_call_arg(hooks[i], 1)))
			continue;
		int *v = all.get(body_site(of[i], hooks[i]));
		lean[i] = v && *v;
	}
}

/* Which bodies are quiet: LEAN (above); each quiet body's from, its
 * parts' head; PARTS: the calls of parts in quiet bodies (to the body
 * whose activation they run in). */
static void quiet_sites(const vec<gimple *> &hooks, const vec<unsigned> &of, const vec<gimple *> &call_of,
			vec<body> &bodies, hash_map<tree, unsigned> &index, vec<bool> &lean,
			hash_map<gimple *, unsigned> &parts)
{
	/* by body: its calls that are no hooks (as body_region counts them) */
	auto_vec<unsigned> n_calls;
	n_calls.safe_grow_cleared(bodies.length());
	basic_block bb;
	FOR_EACH_BB_FN(bb, cfun)
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
			gimple *s = gsi_stmt(g);
			if (!is_gimple_call(s) || gimple_call_internal_p(s) || dp_hook_of(s) != DPH_NONE ||
			    gimple_call_builtin_p(s, BUILT_IN_UNREACHABLE) || gimple_call_builtin_p(s, BUILT_IN_TRAP))
				continue;
			/* (code of a function inlined without hooks is its
			 * nearest body's that has them) */
			for (tree k = body_of_stmt(s); k; k = body_of_stmt_above(k))
				if (unsigned *o = index.get(k)) {
					n_calls[*o]++;
					break;
				}
		}
	hash_map<gimple *, unsigned> at;
	for (unsigned i = 0; i < hooks.length(); i++) {
		lean.safe_push(false);
		at.put(hooks[i], i);
	}
	auto_vec<quiet_cand *> cands;
	auto_vec<int> found, q;
	auto_vec<bool> claimed;
	for (unsigned i = 0; i < bodies.length(); i++) {
		q.safe_push(-1);
		claimed.safe_push(false);
	}
	for (unsigned i = 0; i < hooks.length(); i++) {
		gimple *h = hooks[i];
		found.safe_push(-1);
		if (dp_hook_of(h) != DPH_CALL || call_of[i] || !tree_fits_uhwi_p(gimple_call_arg(h, 1)) ||
		    tree_to_uhwi(gimple_call_arg(h, 1)) >= dp_n_sites)
			continue;
		unsigned long site = tree_to_uhwi(gimple_call_arg(h, 1));
		const struct dp_site_rec *r = &dp_sites[site];
		int cps = r->kind == DP_CSS_KIND_NORMAL && r->callee_uid <= -2 ? -2 - r->callee_uid
			: devirt_ps(bodies, h, (unsigned)site);
		if (cps < 0)
			continue;
		hash_set<int_hash<int, -1, -2>> inner;
		hash_set<gimple *> calls;
		int e = body_region(h, site, at, inner, calls);
		if (e < 0)
			continue;
		body &b = bodies[of[e]];
		if (b.enter != hooks[e] || b.ps != cps || !b.key)
			continue;
		if (claimed[of[e]]) {   /* reached from two call hooks: not quiet */
			if (b.from >= 0)
				found[b.from] = -1;
			b.from = -2;
			q[of[e]] = -1;
			continue;
		}
		claimed[of[e]] = true;
		quiet_cand *c = new quiet_cand;
		c->body = of[e];
		if (!quiet_body(hooks, of, call_of, bodies, index, n_calls, inner, calls, c)) {
			delete c;
			continue;
		}
		found[i] = (int)of[e];
		b.from = (int)i;
		q[of[e]] = (int)cands.length();
		cands.safe_push(c);
	}
	/* a candidate stays quiet while its own site's hooks are and every
	 * body inlined within it is */
	for (bool changed = true; changed;) {
		changed = false;
		quiet_hooks(hooks, of, call_of, bodies, found, q, lean);
		for (unsigned k = 0; k < cands.length(); k++) {
			quiet_cand *c = cands[k];
			if (q[c->body] < 0)
				continue;
			bool ok = lean[bodies[c->body].from];
			for (unsigned n : c->nested)
				ok &= q[n] >= 0;
			for (unsigned j : c->bare)
				ok &= lean[j];
			if (!ok) {
				q[c->body] = -1;
				changed = true;
			}
		}
	}
	for (unsigned k = 0; k < cands.length(); k++) {
		quiet_cand *c = cands[k];
		body &b = bodies[c->body];
		if (q[c->body] >= 0 && b.from >= 0) {
			if (c->nested.length() || c->part_bodies.length() || c->part_calls.length())
				b.work = true;          /* its me, within */
			for (unsigned p : c->part_bodies)
				bodies[p].head = head_of_part(bodies, index, p);
			for (gimple *g : c->part_calls)
				if (!parts.get(g)) {
					unsigned o = *index.get(body_of_stmt(g) ? body_of_stmt(g) : error_mark_node);
					parts.put(g, bodies[o].head >= 0 ? (unsigned)bodies[o].head : o);
				}
		} else if (b.from >= 0) {
			b.from = -1;
		}
		delete c;
	}
}

/* The mes of quiet body B and of the quiet bodies it is in (UP: the one
 * each is in, -1 none), whose exits a site in B takes back around its
 * call. */
static void pending_mes(const vec<body> &bodies, const vec<int> &up, int b, vec<tree> &out)
{
	for (int u = b; u >= 0; u = up[u])
		out.safe_push(bodies[u].me);
}

/* Whether no statement in BB but COND's condition and assignments of
 * SSA names (the prologue's: inline_path.cc's emit_prologue) */
static bool prologue_only(basic_block bb)
{
	for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
		gimple *st = gsi_stmt(g);
		if (is_gimple_debug(st) || gimple_code(st) == GIMPLE_COND)
			continue;
		if (!is_gimple_assign(st) || TREE_CODE(gimple_assign_lhs(st)) != SSA_NAME)
			return false;
	}
	return true;
}

/* The nearest common dominator of NCD (NULL: none yet) and the blocks
 * of V's uses but debug binds and SKIP (a PHI's use is on its edge's
 * source) */
static basic_block uses_dominator(tree v, gimple *skip, basic_block ncd)
{
	imm_use_iterator it;
	use_operand_p u;
	FOR_EACH_IMM_USE_FAST(u, it, v) {
		gimple *st = USE_STMT(u);
		if (is_gimple_debug(st) || st == skip)
			continue;
		basic_block bb = gimple_bb(st);
		if (gphi *ph = dyn_cast<gphi *>(st))
			bb = gimple_phi_arg_edge(ph, PHI_ARG_INDEX_FROM_USE(u))->src;
		ncd = ncd ? nearest_common_dominator(CDI_DOMINATORS, ncd, bb) : bb;
	}
	return ncd;
}

/* Where code now in FROM may move to serve the uses NCD dominates: NCD or
 * its nearest dominator in no loop deeper than FROM's; NULL if that is
 * FROM itself, not dominated by it, or entered by an abnormal or EH edge */
static basic_block moved_to(function *fun, basic_block ncd, basic_block from)
{
	while (ncd && ncd != from && bb_loop_depth(ncd) > bb_loop_depth(from))
		ncd = get_immediate_dominator(CDI_DOMINATORS, ncd);
	if (!ncd || ncd == from || ncd == EXIT_BLOCK_PTR_FOR_FN(fun) || !dominated_by_p(CDI_DOMINATORS, ncd, from))
		return NULL;
	edge e;
	edge_iterator ei;
	FOR_EACH_EDGE(e, ei, ncd->preds)
		if (e->flags & (EDGE_ABNORMAL | EDGE_EH))
			return NULL;
	return ncd;
}

/* V's debug binds that its definition, now in DEF, no longer dominates
 * bind nothing */
static void unbind_undominated(tree v, basic_block def)
{
	imm_use_iterator it;
	gimple *st;
	FOR_EACH_IMM_USE_STMT(st, it, v)
		if (is_gimple_debug(st) && !dominated_by_p(CDI_DOMINATORS, gimple_bb(st), def)) {
			gimple_debug_bind_reset_value(st);
			update_stmt(st);
		}
}

/*
 * Lazy prologues (schemas/plugin-abi.md, "Prologues where they are
 * needed"). The prologue of a function that only its TU's sites call
 * (not public, address never taken: dp_fns' v2_entry false) need not run
 * on a path that uses neither its me nor its pd (no site, tick, restore
 * or landing): the call was counted at its site, its exit is counted
 * after it, and its csd was bound to it when made (the runtime's rule for
 * direct sites of TU callees). So the prologue's blocks (the condition's,
 * with the load of dp_cur; the slow call's; the join's, me's PHI and pd's
 * load) move from the function's entry to the start of the nearest block
 * that dominates every use of me and pd and is in no loop: an early return
 * before it runs none of it. Nothing writes dp_cur before it (every store
 * to dp_cur is a site's, a restore or a part's: uses), so it reads the
 * tag its caller's site stored. Not in a function that calls setjmp & co,
 * nor where that block has abnormal or EH edges in.
 */
static void lazy_prologue(function *fun, tree me, tree pd)
{
	gimple *load = SSA_NAME_DEF_STMT(pd);
	gphi *phi = dyn_cast<gphi *>(SSA_NAME_DEF_STMT(me));
	if (!phi || !load || gimple_bb(load) != gimple_bb(phi) || fun->calls_setjmp)
		return;
	basic_block join = gimple_bb(phi), cond = NULL, slow = NULL;
	if (EDGE_COUNT(join->preds) != 2 || gsi_stmt(gsi_start_nondebug_bb(join)) != load)
		return;
	for (int i = 0; i < 2; i++) {
		basic_block a = EDGE_PRED(join, i)->src, b = EDGE_PRED(join, 1 - i)->src;
		if (single_pred_p(a) && single_succ_p(a) && single_pred(a) == b)
			slow = a, cond = b;
	}
	if (!cond || !single_pred_p(cond) || single_pred(cond) != ENTRY_BLOCK_PTR_FOR_FN(fun) ||
	    !prologue_only(cond) || !dyn_cast<gcond *>(last_stmt(cond)))
		return;
	free_dominance_info(CDI_DOMINATORS);     /* (the blocks the lowering added) */
	calculate_dominance_info(CDI_DOMINATORS);
	basic_block ncd = moved_to(fun, uses_dominator(pd, load, uses_dominator(me, load, NULL)), join);
	if (!ncd) {
		free_dominance_info(CDI_DOMINATORS);
		return;
	}
	edge out = split_block(join, load);     /* join: me's PHI and pd's load alone */
	edge in = single_pred_edge(cond);
	redirect_edge_succ(in, out->dest);       /* the entry goes on without them */
	edge at = split_block_after_labels(ncd);
	basic_block rest = at->dest;
	redirect_edge_succ(at, cond);            /* ... to them here */
	redirect_edge_succ(out, rest);
	cond->count = ncd->count;
	join->count = ncd->count;
	slow->count = ncd->count.apply_probability(single_pred_edge(slow)->probability);
	free_dominance_info(CDI_DOMINATORS);
	/* debug binds of me or pd the moved definitions no longer dominate */
	calculate_dominance_info(CDI_DOMINATORS);
	unbind_undominated(me, join);
	unbind_undominated(pd, join);
	free_dominance_info(CDI_DOMINATORS);
}

/*
 * The pd's load where the pd is needed: a function whose prologue stays
 * at its entry (code other than its TU's sites may call it: the check
 * must count such an entry, or lazy_prologue found no place) loads its
 * pd, its csd's callee, at the start of the nearest block that
 * dominates every use of it and is in no loop the prologue is not in.
 * The csd is bound once the check has passed, and a bound csd's callee
 * never changes, so the load reads what it read at the entry; a path
 * that makes no call through a slot (sqlite3's comparators, called
 * through pointers, return early most of the time) then neither loads
 * it nor keeps a register for it.
 */
static void lazy_pd(function *fun, tree pd)
{
	gimple *load = SSA_NAME_DEF_STMT(pd);
	if (!load || !gimple_assign_single_p(load) || gimple_has_volatile_ops(load) || fun->calls_setjmp)
		return;
	calculate_dominance_info(CDI_DOMINATORS);
	basic_block to = moved_to(fun, uses_dominator(pd, NULL, NULL), gimple_bb(load));
	if (to) {
		gimple_stmt_iterator g = gsi_for_stmt(load), at = gsi_after_labels(to);
		gsi_move_before(&g, &at);
		unbind_undominated(pd, to);
	}
	free_dominance_info(CDI_DOMINATORS);
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
	hash_map<gimple *, unsigned> parts;     /* calls of parts in quiet bodies */
	quiet_sites(hooks, of, call_of, bodies, index, lean, parts);

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
		if (b.ps < 0 || b.head >= 0)    /* (a quiet body's part: its me and pd, below) */
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
		if (!me && !b.enter && b.ps >= 0 && b.head < 0 && (k == DPH_CALL || k == DPH_BACKEDGE))
			dp_v2_resume(fun, (unsigned)b.ps, hooks[i], &me, &pd);
		hme.safe_push(me);
		hpd.safe_push(pd);
	}
	for (unsigned i = 0; i < hooks.length(); i++)
		if (!hme[i] && paired[i] >= 0) {
			hme[i] = hme[paired[i]];
			hpd[i] = hpd[paired[i]];
		}

	/* quiet bodies with work, the outer ones first: their site's code
	 * before them, for their me; their sites restore dp_cur to the me of
	 * the code they were inlined into (OWNER: the first not quiet out
	 * from them) and take the exits of the quiet bodies they are in
	 * back while their calls run (PENDING); each site in them loads
	 * their pd. Without a me and pd at its site (none found for the code
	 * around, not quiet), a body is not quiet after all: a prologue. */
	auto_vec<tree> owner;
	auto_vec<int> pend_of, up;
	auto_vec<bool> done;
	for (unsigned i = 0; i < hooks.length(); i++) {
		owner.safe_push(hme[i]);
		pend_of.safe_push(-1);
		done.safe_push(false);
	}
	auto_vec<unsigned> order;
	auto_vec<int> depth;
	for (unsigned bi = 0; bi < bodies.length(); bi++) {
		int d = 0;
		for (tree k = bodies[bi].key; k && TREE_CODE(k) == BLOCK; k = BLOCK_SUPERCONTEXT(k))
			d++;
		depth.safe_push(d);
		up.safe_push(-1);
		if (bodies[bi].from >= 0 && lean[bodies[bi].from] && bodies[bi].work)
			order.safe_push(bi);
	}
	for (unsigned x = 1; x < order.length(); x++)     /* by depth, stable */
		for (unsigned y = x; y > 0 && depth[order[y - 1]] > depth[order[y]]; y--)
			std::swap(order[y - 1], order[y]);
	auto_vec<bool> quiet;
	for (unsigned bi = 0; bi < bodies.length(); bi++)
		quiet.safe_push(false);
	for (unsigned bi : order) {
		body &b = bodies[bi];
		unsigned i = (unsigned)b.from;
		unsigned site = (unsigned)tree_to_uhwi(gimple_call_arg(hooks[i], 1));
		unsigned ei = bodies[of[i]].head >= 0 ? (unsigned)bodies[of[i]].head : of[i];
		tree own = NULL_TREE;
		if (!hme[i] || !hpd[i]) {
			for (unsigned r = 0; r < hooks.length(); r++)
				if (of[r] == of[i] && dp_hook_of(hooks[r]) == DPH_RETURN && !call_of[r] &&
				    tree_fits_uhwi_p(gimple_call_arg(hooks[r], 1)) &&
				    tree_to_uhwi(gimple_call_arg(hooks[r], 1)) == site)
					lean[r] = false;
			lean[i] = false;
			dp_v2_prologue(fun, (unsigned)b.ps, b.enter, &b.me, &b.pd);
		} else {
			const body &e = bodies[of[i]];
			int ps = e.ps;
			int slot = ps >= 0 && dp_sites[site].caller == (unsigned)ps ? (int)(site - dp_fns[ps].first_css) : -1;
			int bound = devirt_ps(bodies, hooks[i], site);
			tree csd = dp_v2_site_pre(hooks[i], site, slot, hpd[i],
						  bound >= 0 ? gimple_call_arg(hooks[i], 2) : NULL_TREE, true, bound);
			b.me = dp_v2_quiet_body(hooks[i], csd);
			done[i] = true;
			quiet[bi] = true;
			up[bi] = quiet[ei] ? (int)ei : -1;
			own = quiet[ei] ? owner[i] : hme[i];
			auto_vec<tree> pend;
			pending_mes(bodies, up, (int)bi, pend);
			for (hash_map<gimple *, unsigned>::iterator p = parts.begin(); p != parts.end(); ++p)
				if ((*p).second == bi)
					dp_v2_quiet_part((*p).first, b.me, own, pend);
		}
		for (unsigned j = 0; j < hooks.length(); j++)
			if (of[j] == bi || bodies[of[j]].head == (int)bi) {
				hme[j] = owner[j] = b.me;
				hpd[j] = b.pd;
				if (quiet[bi]) {
					owner[j] = own;
					pend_of[j] = (int)bi;
					if (dp_hook_of(hooks[j]) == DPH_CALL)
						hpd[j] = dp_v2_quiet_pd(hooks[j], b.me);
				}
			}
	}

	for (unsigned i = 0; i < hooks.length(); i++) {
		gimple *h = hooks[i];
		const body &b = bodies[of[i]];
		tree me = hme[i], pd = hpd[i];
		if (done[i])
			continue;
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
				auto_vec<tree> pend;
				pending_mes(bodies, up, pend_of[i], pend);
				dp_v2_site(h, call_of[i], site, slot, owner[i], pd, fn, pend_of[i] >= 0 ? &pend : NULL);
			} else if (dp_hook_of(h) == DPH_CALL) {
				/* GCC inlined the callee's body: the call's code
				 * before the body, the return's after (an indirect
				 * site's exits go to what its slot holds then) */
				dp_v2_site_pre(h, site, slot, pd, fn, lean[i], devirt_ps(bodies, h, site));
			} else if (!call_of[i] && !lean[i]) {
				dp_v2_site_post(h, site, slot, me, pd);
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
	for (const body &b : bodies)
		if (!b.key && b.enter && b.me && b.pd && b.ps >= 0 && dp_opt.lazy_prologue) {
			if (!dp_fns[b.ps].v2_entry)
				lazy_prologue(fun, b.me, b.pd);
			lazy_pd(fun, b.pd);
		}
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
