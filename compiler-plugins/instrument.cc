/*
 * instrument.cc — the instrumentation pass (after "cfg", before SSA and
 * before any inlining): numbers every source-level call site, records the
 * function and its sites for the tables, and inserts the ABI v1 hooks:
 * enter, call/return around each site, a tick on each loop back-edge.
 * Part of deepprof's compiler plugins. MIT licence.
 */
#include "plugin.h"

/* --- private prototypes --- */
static bool is_site(gimple *stmt);
static bool is_exec(tree fn);
static unsigned site_kind(tree fndecl);
static bool in_tail_position(gimple *call);
static gimple_seq tick_sequence(void);
static void add_fn(tree fndecl, function *fun);
static unsigned add_site(gimple *call, unsigned caller);

/* One of libc's exec functions (a file-scope declaration of that name). */
static bool is_exec(tree fn)
{
	static const char *const names[] = { "execv", "execve", "execvp", "execvpe", "execl",
					     "execle", "execlp", "fexecve", "execveat" };
	if (!TREE_PUBLIC(fn) || (DECL_CONTEXT(fn) && TREE_CODE(DECL_CONTEXT(fn)) == FUNCTION_DECL))
		return false;
	const char *n = dp_decl_name(fn);
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(n, names[i]))
			return true;
	return false;
}

static bool is_site(gimple *stmt)
{
	if (!is_gimple_call(stmt) || gimple_call_internal_p(stmt))
		return false;
	if (gimple_call_flags(stmt) & ECF_RETURNS_TWICE)
		return false;           /* setjmp & co: see schemas/plugin-abi.md */
	tree fn = gimple_call_fndecl(stmt);
	if (!fn)
		return true;
	if (dp_is_hook(fn))
		return false;
	if (fndecl_built_in_p(fn, BUILT_IN_MD) || fndecl_built_in_p(fn, BUILT_IN_FRONTEND))
		return false;
	if (dp_builtin_op(fn))
		return false;
	return true;
}

/* Statically, a direct call goes into uninstrumented code when the callee
 * is a library builtin, comes from a system header, or is marked
 * no_instrument_function. A callee in another TU is presumed instrumented;
 * the runtime finds out if it was not. */
static unsigned site_kind(tree fn)
{
	if (!fn)
		return DP_CSS_KIND_INDIRECT;
	if (fndecl_built_in_p(fn) || dp_skip_function(fn))
		return DP_CSS_KIND_EXTERNAL;
	return DP_CSS_KIND_NORMAL;
}

/* Nothing but copies of the call's value and the return follow the call. */
static bool in_tail_position(gimple *call)
{
	tree val = gimple_call_lhs(call);
	basic_block bb = gimple_bb(call);
	gimple_stmt_iterator g = gsi_for_stmt(call);
	gsi_next(&g);
	for (int hops = 0; hops < 4; hops++) {
		for (; !gsi_end_p(g); gsi_next(&g)) {
			gimple *s = gsi_stmt(g);
			enum gimple_code c = gimple_code(s);
			if (is_gimple_debug(s) || c == GIMPLE_LABEL || c == GIMPLE_NOP ||
			    c == GIMPLE_PREDICT || gimple_clobber_p(s))
				continue;
			if (c == GIMPLE_RETURN) {
				tree r = gimple_return_retval(as_a<greturn *>(s));
				return !r || (val && r == val);
			}
			if (val && gimple_assign_single_p(s) && gimple_assign_rhs1(s) == val) {
				tree l = gimple_assign_lhs(s);
				if ((TREE_CODE(l) == VAR_DECL || TREE_CODE(l) == RESULT_DECL) &&
				    !TREE_ADDRESSABLE(l) && !is_global_var(l)) {
					val = l;
					continue;
				}
			}
			return false;
		}
		if (!single_succ_p(bb))
			return false;
		edge e = single_succ_edge(bb);
		if (e->flags & (EDGE_ABNORMAL | EDGE_EH))
			return false;
		bb = e->dest;
		if (bb == EXIT_BLOCK_PTR_FOR_FN(cfun))
			return val == NULL_TREE;
		g = gsi_start_bb(bb);
	}
	return false;
}

/* dp_loop_ticks = dp_loop_ticks + 1, as GIMPLE before SSA. */
static gimple_seq tick_sequence(void)
{
	tree var = dp_ticks_decl();
	tree t1 = create_tmp_reg(uint64_type_node, "dp_t");
	tree t2 = create_tmp_reg(uint64_type_node, "dp_t");
	gimple_seq seq = NULL;
	gimple_seq_add_stmt(&seq, gimple_build_assign(t1, var));
	gimple_seq_add_stmt(&seq, gimple_build_assign(t2, PLUS_EXPR, t1,
						      build_int_cst(uint64_type_node, 1)));
	gimple_seq_add_stmt(&seq, gimple_build_assign(var, t2));
	return seq;
}

static void add_fn(tree fndecl, function *fun)
{
	dp_fns = (struct dp_fn_rec *)xrealloc(dp_fns, (dp_n_fns + 1) * sizeof *dp_fns);
	struct dp_fn_rec *f = &dp_fns[dp_n_fns++];
	expanded_location xl = expand_location(DECL_SOURCE_LOCATION(fndecl));
	expanded_location xe = expand_location(fun->function_end_locus);
	f->name = xstrdup(dp_decl_name(fndecl));
	f->file = xstrdup(xl.file ? xl.file : "");
	f->line = xl.line;
	f->end_line = xe.line >= xl.line ? xe.line : xl.line;
	f->flags = TREE_PUBLIC(fndecl) ? DP_PS_PUBLIC : 0;
	f->first_css = dp_n_sites;
	f->n_css = 0;
	f->n_backedges = 0;
	f->uid = DECL_UID(fndecl);
	f->v2_entry = false;
	f->hooks = dp_opt.abi == 1;
	f->extra = NULL;
	f->n_extra = 0;
}

static unsigned add_site(gimple *call, unsigned caller)
{
	dp_sites = (struct dp_site_rec *)xrealloc(dp_sites, (dp_n_sites + 1) * sizeof *dp_sites);
	struct dp_site_rec *s = &dp_sites[dp_n_sites];
	tree fn = gimple_call_fndecl(call);
	expanded_location xl = expand_location(gimple_location(call));
	s->callee = fn ? xstrdup(dp_decl_name(fn)) : NULL;
	s->file = xstrdup(xl.file ? xl.file : "");
	s->line = xl.line;
	s->col = xl.column;
	s->caller = caller;
	s->kind = site_kind(fn);
	s->callee_uid = s->kind == DP_CSS_KIND_NORMAL ? (int)DECL_UID(fn) : -1;
	s->flags = 0;
	s->stmt = call;
	if (dp_opt.abi == 2 && s->callee_uid >= 0)     /* a leaf of this TU seen already */
		for (unsigned i = 0; i < dp_n_fns; i++)
			if (dp_fns[i].uid == s->callee_uid && (dp_fns[i].flags & DP_PS_LEAF) &&
			    !dp_fns[i].v2_entry)
				s->flags |= DP_CSS_LEAF_CALLEE;
	/* (calls=surviving on abi 1: a site in tail position of a function
	 * GCC inlines is not in tail position where its copy runs, and its
	 * return hook would be missing there: no tail sites. On abi 2 the
	 * tables wait for the inliner, which clears the flag of those sites
	 * only: lower.cc.) */
	bool tail = dp_opt.tailcalls && !(dp_opt.surviving && dp_opt.abi == 1) && in_tail_position(call);
	/* a library function declared leaf returns here: it may not call
	 * back into the unit nor longjmp into it (GCC's leaf attribute). Not
	 * an exec function, which does not return when it works. In tail
	 * position it is both: a tail call (no restore follows), which the
	 * runtime knows has returned when a prologue finds its csd in dp_cur
	 * (libprof/plugin2.c, enter). */
	if (gimple_call_noreturn_p(call))
		s->flags |= DP_CSS_NORETURN;
	else if (tail)
		s->flags |= DP_CSS_TAIL;
	if (s->kind == DP_CSS_KIND_EXTERNAL && fn && !(s->flags & DP_CSS_NORETURN) &&
	    (gimple_call_flags(call) & ECF_LEAF) && !is_exec(fn))
		s->flags |= DP_CSS_RETURNS;
	return dp_n_sites++;
}

/* abi 2 without calls=surviving: this function gets abi 1's hooks now,
 * which lower.cc turns into the inline path after inlining, where GCC's
 * optimisations run for the function (optimised, not under -flto, whose
 * link-time units have no site records to lower with). Until then GCC sees
 * calls where the inline path will be: its passes before inlining have
 * less code to work on, and its function splitting measured a function's
 * head with the prologue in it and could not pass the prologue's csd and
 * pd to the part it splits off (it passes parameters only): the plugin
 * build split almost no function (gawk: 1 part against plain's 51) and
 * GCC's inliner spent its growth budget on whole bodies instead of heads.
 * Not in use and check builds, whose passes read the inline path's code,
 * nor with inline-cost=counted, which asks GCC to weigh the inline path as
 * the code it is (the hooks would weigh less). */
static bool lowered_after_ipa(void)
{
	return dp_opt.abi == 2 && !dp_opt.late && !dp_opt.use && !dp_opt.check && dp_opt.inline_discount &&
	       optimize > 0 && !flag_lto;
}

/* A hook with no scope gets the scope of the statements before it (lower.cc
 * tells the bodies inlined before it runs apart by scope). */
static void give_scope(gimple *hook, basic_block bb)
{
	if (gimple_block(hook))
		return;
	for (gimple_stmt_iterator g = gsi_last_bb(bb); !gsi_end_p(g); gsi_prev(&g))
		if (tree b = gimple_block(gsi_stmt(g))) {
			gimple_set_block(hook, b);
			return;
		}
}

/* ================= the pass ================= */

namespace {

const pass_data inst_pass_data = {
	GIMPLE_PASS, "deepprof_inst", OPTGROUP_OTHER, TV_NONE,
	PROP_cfg, 0, 0, 0, 0
};

class inst_pass : public gimple_opt_pass {
public:
	inst_pass(gcc::context *ctxt) : gimple_opt_pass(inst_pass_data, ctxt) {}
	bool gate(function *) override { return !in_lto_p && !seen_error(); }
	unsigned int execute(function *fun) override;
};

unsigned int inst_pass::execute(function *fun)
{
	tree fndecl = fun->decl;
	if (dp_skip_function(fndecl))
		return 0;
	if (dp_opt.instrument)
		dp_tu_decl();   /* every TU with an instrumented function has tables, leaves only too */
	unsigned ps = dp_n_fns;
	add_fn(fndecl, fun);

	/* Sites, in block then statement order. */
	auto_vec<gimple *> calls, lands;
	basic_block bb;
	FOR_EACH_BB_FN(bb, fun)
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
			gimple *st = gsi_stmt(g);
			if (is_site(st))
				calls.safe_push(st);
			else if (is_gimple_call(st) && (gimple_call_flags(st) & ECF_RETURNS_TWICE))
				lands.safe_push(st);    /* abi=2: a longjmp may land after it */
		}

	/* A use build: what the feedback says of this function and its
	 * sites, numbered as the instrumented build numbered them. */
	if (dp_opt.use)
		dp_use_function(fun, calls);
	if (!dp_opt.instrument) {
		for (unsigned i = 0; i < calls.length(); i++)
			add_site(calls[i], ps);
		dp_fns[ps].n_css = calls.length();
		return 0;
	}

	/* Back-edges: every retreating edge of a depth-first walk, which covers
	 * natural loops, continue and backward goto (and irreducible loops). */
	unsigned n_back = 0;
	auto_vec<edge> back;
	if (dp_opt.backedges) {
		mark_dfs_back_edges(fun);
		FOR_EACH_BB_FN(bb, fun) {
			edge e;
			edge_iterator ei;
			FOR_EACH_EDGE(e, ei, bb->succs)
				if ((e->flags & EDGE_DFS_BACK) && !(e->flags & (EDGE_ABNORMAL | EDGE_EH)))
					back.safe_push(e);
		}
	}
	/* v2 code made of hooks by lower.cc after inlining */
	bool v2hooks = dp_opt.late || lowered_after_ipa();
	dp_fns[ps].hooks = dp_opt.abi == 1 || v2hooks;
	if (v2hooks)            /* lowered later: the same choice for leaves */
		dp_fns[ps].v2_entry = dp_may_be_entered(fndecl);
	if (dp_opt.abi == 2 && !v2hooks) {
		for (unsigned i = 0; i < calls.length(); i++)
			add_site(calls[i], ps);
		/* A leaf that only its TU's sites call is counted by them; one that
		 * uninstrumented code may call (a callback, a signal handler, an
		 * atexit function, a call from another TU) counts itself. */
		dp_fns[ps].v2_entry = dp_may_be_entered(fndecl);
		dp_emit_inline(fun, ps, calls, back, lands, dp_fns[ps].v2_entry);
		gsi_commit_edge_inserts();
		n_back = back.length();
	} else {
		if (dp_opt.backedges) {
			for (unsigned i = 0; i < back.length(); i++) {
				if (dp_opt.tick_call || v2hooks) {     /* v2hooks: lower.cc's marker */
					gcall *tick = gimple_build_call(dp_hook_decl(DPR_BACKEDGE), 0);
					gimple_set_location(tick, back[i]->goto_locus);
					give_scope(tick, back[i]->src);
					gsi_insert_on_edge(back[i], tick);
				} else {
					gsi_insert_seq_on_edge(back[i], tick_sequence());
				}
				n_back++;
			}
		}

		/* OpenMP: a return hook ending an outlined region would become a
		 * sibling call once the region is a function (a call before
		 * GIMPLE_OMP_RETURN is no tail call here), reaching the runtime
		 * with the region's frame gone: an empty volatile asm after the
		 * hooks in regions keeps them calls */
		auto_vec<struct dp_omp_region> regions;
		auto_vec<bool> in_region;
		int *scope = XCNEWVEC(int, last_basic_block_for_fn(fun) + 1);
		dp_omp_regions(fun, scope, regions);
		for (unsigned i = 0; i < calls.length(); i++)
			in_region.safe_push(scope[gimple_bb(calls[i])->index] != 0);
		XDELETEVEC(scope);
		/* v2hooks: each region GCC will outline gets an enter hook of the
		 * procedure where inline_path.cc puts its prologue (lower.cc
		 * makes it one), and each setjmp & co a dp_abi_land(tu, 0), whose
		 * second argument lower.cc makes the function's csd */
		for (unsigned k = 0; v2hooks && k < regions.length(); k++) {
			gcall *enter = gimple_build_call(dp_hook_decl(DPR_ENTER), 2, dp_tu_addr(),
							 build_int_cst(uint32_type_node, ps));
			gimple_set_location(enter, gimple_location(regions[k].stmt));
			dp_v2_place_after(enter, regions[k].after, regions[k].first);
		}
		for (unsigned k = 0; v2hooks && k < lands.length(); k++)
			dp_v2_land_marker(lands[k]);
		free_dominance_info(CDI_DOMINATORS);
		for (unsigned i = 0; i < calls.length(); i++) {
			gimple *call = calls[i];
			unsigned site = add_site(call, ps);
			tree fn = gimple_call_fndecl(call) ? null_pointer_node : gimple_call_fn(call);
			gcall *pre = gimple_build_call(dp_hook_decl(DPR_CALL), 3, dp_tu_addr(),
						       build_int_cst(uint32_type_node, site), fn);
			gimple_set_location(pre, gimple_location(call));
			gimple_stmt_iterator g = gsi_for_stmt(call);
			gsi_insert_before(&g, pre, GSI_SAME_STMT);
			if (dp_sites[site].flags & (DP_CSS_TAIL | DP_CSS_NORETURN))
				continue;
			gcall *post = gimple_build_call(dp_hook_decl(DPR_RETURN), 2, dp_tu_addr(),
							build_int_cst(uint32_type_node, site));
			gimple_set_location(post, gimple_location(call));
			gimple_seq after = NULL;
			gimple_seq_add_stmt(&after, post);
			if (in_region[i]) {
				gasm *keep = gimple_build_asm_vec("", NULL, NULL, NULL, NULL);
				gimple_asm_set_volatile(keep, true);
				gimple_seq_add_stmt(&after, keep);
			}
			dp_insert_after_call(call, after);
		}

		gcall *enter = gimple_build_call(dp_hook_decl(DPR_ENTER), 2, dp_tu_addr(),
						 build_int_cst(uint32_type_node, ps));
		gimple_set_location(enter, DECL_SOURCE_LOCATION(fndecl));
		/* In the function's outermost scope, so that a copy inlined elsewhere
		 * is recognisable (surviving.cc). */
		if (DECL_INITIAL(fndecl) && TREE_CODE(DECL_INITIAL(fndecl)) == BLOCK)
			gimple_set_block(enter, DECL_INITIAL(fndecl));
		gsi_insert_on_edge_immediate(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun)), enter);
		gsi_commit_edge_inserts();
	}
	/* _exit and _Exit end the process without exit's destructors, where
	 * the runtime writes the profile, and an exec function replaces it:
	 * the runtime is told right before (after the site's own code, so the
	 * call is counted, as one left running) */
	for (unsigned i = 0; i < calls.length(); i++) {
		tree fn = gimple_call_fndecl(calls[i]);
		enum dp_root hook = DPR_N;
		if (fn && (fndecl_built_in_p(fn, BUILT_IN__EXIT) || fndecl_built_in_p(fn, BUILT_IN__EXIT2)))
			hook = DPR_EXITING;
		else if (fn && is_exec(fn))
			hook = DPR_EXEC;
		if (hook != DPR_N) {
			gcall *tell = gimple_build_call(dp_hook_decl(hook), 0);
			gimple_set_location(tell, gimple_location(calls[i]));
			gimple_stmt_iterator g = gsi_for_stmt(calls[i]);
			gsi_insert_before(&g, tell, GSI_SAME_STMT);
		}
	}
	struct dp_fn_rec *f = &dp_fns[ps];
	f->n_css = calls.length();
	f->n_backedges = n_back;
	if (n_back)
		f->flags |= DP_PS_LOOPS;
	if (!f->n_css && !n_back)
		f->flags |= DP_PS_LEAF;
	return 0;
}

} /* namespace */

opt_pass *dp_make_instrument_pass(gcc::context *ctxt)
{
	return new inst_pass(ctxt);
}
