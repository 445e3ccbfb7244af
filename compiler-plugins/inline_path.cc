/*
 * inline_path.cc — ABI v2 (-fplugin-arg-deepprof-abi=2): the common path
 * of a call emitted inline as loads and stores on thread-local state, the
 * rare paths as calls to dp_abi_enter_slow / dp_abi_call_slow
 * (schemas/plugin-abi.md, "The inline fast path"). Part of deepprof. MIT licence.
 */
#include "plugin.h"

/* ================= building blocks ================= */

/* A temporary: an SSA name when lower.cc emits after inlining. */
static tree reg(tree type, const char *name)
{
	return gimple_in_ssa_p(cfun) ? make_ssa_name(type) : create_tmp_reg(type, name);
}

/* The type through which the inline path reaches the runtime's csds and
 * pds: a record no program code can name, so its accesses have an alias
 * set of their own, and the program's loads and stores are known not to
 * touch the counters (and the counters' not to touch the program's:
 * nothing else writes them but the runtime, behind calls). */
static tree rt_ptr(void)
{
	if (!dp_roots[DPR_RT_PTR]) {
		tree t = make_node(RECORD_TYPE);
		TYPE_NAME(t) = get_identifier("__deepprof_rt");
		TYPE_SIZE(t) = bitsize_int(64 * 8);
		TYPE_SIZE_UNIT(t) = size_int(64);
		SET_TYPE_ALIGN(t, 64);
		dp_roots[DPR_RT_PTR] = build_pointer_type(t);
	}
	return dp_roots[DPR_RT_PTR];
}

/* A load or store of TYPE at BASE + OFF in the runtime's memory. An odd
 * OFF reaches a field through a tagged pointer (csd | 1: TAGGED_OFF below, and
 * the prologue's one load), whose base is not aligned, nor, when dp_cur is
 * untagged, the prologue's address: the access is typed unaligned, which
 * costs nothing on x86-64 and keeps -fsanitize=alignment (which checks
 * code emitted before its pass, at -O0) from taking it for a bug. */
static tree mem(tree base, int off, tree type)
{
	if (off & 1)
		type = build_aligned_type(type, BITS_PER_UNIT);
	return build2(MEM_REF, type, base, build_int_cst(rt_ptr(), off));
}

/* A slot holds its csd tagged (csd | 1, what the site stores in dp_cur):
 * the csd's field at OFF is at slot value + OFF - 1. */
#define TAGGED_OFF(off) ((int)(off) - 1)

static void add(gimple_seq *seq, gimple *g, location_t loc)
{
	gimple_set_location(g, loc);
	gimple_seq_add_stmt(seq, g);
}

/* MEM[base + off] += delta (uint64): the new value */
static tree add_increment(gimple_seq *seq, tree base, int off, location_t loc, int delta = 1)
{
	tree a = reg(uint64_type_node, "dp_n"), b = reg(uint64_type_node, "dp_n");
	add(seq, gimple_build_assign(a, mem(base, off, uint64_type_node)), loc);
	add(seq, gimple_build_assign(b, PLUS_EXPR, a, build_int_cst(uint64_type_node, delta)), loc);
	add(seq, gimple_build_assign(mem(base, off, uint64_type_node), b), loc);
	return b;
}

/* A direct site's counters in its pd (deepprof-abi.h): its calls, and
 * 8 bytes on its exits */
#define CALLS_OFF(slot) ((int)DP_PD_COUNT(slot))
#define EXITS_OFF(slot) (CALLS_OFF(slot) + 8)

/* dp_cur = (uintptr) ptr | tag; a volatile store when VOL. Around a call
 * into uninstrumented code the stores must be volatile: GCC knows what a
 * builtin such as memset or memcpy reads (its arguments, never dp_cur), so
 * dead-store elimination drops the tagging store before it as overwritten
 * by the restore after it, and a clock tick in memset went to the caller
 * (the runtime reads dp_cur from the SIGPROF handler, which GCC cannot see). */
static void add_set_cur(gimple_seq *seq, tree ptr, int tag, bool vol, location_t loc)
{
	tree u = reg(pointer_sized_int_node, "dp_c");
	add(seq, gimple_build_assign(u, NOP_EXPR, ptr), loc);
	if (tag) {
		tree v = reg(pointer_sized_int_node, "dp_c");
		add(seq, gimple_build_assign(v, BIT_IOR_EXPR, u,
					     build_int_cst(pointer_sized_int_node, 1)), loc);
		u = v;
	}
	tree lhs = dp_cur_decl();
	if (vol) {
		tree vt = build_qualified_type(pointer_sized_int_node, TYPE_QUAL_VOLATILE);
		tree a = reg(build_pointer_type(vt), "dp_curp");
		TREE_ADDRESSABLE(lhs) = 1;
		add(seq, gimple_build_assign(a, build_fold_addr_expr_with_type(lhs, TREE_TYPE(a))), loc);
		lhs = build2(MEM_REF, vt, a, build_int_cst(TREE_TYPE(a), 0));
		TREE_THIS_VOLATILE(lhs) = 1;
		TREE_SIDE_EFFECTS(lhs) = 1;
	}
	add(seq, gimple_build_assign(lhs, u), loc);
}

/* Inserts COND_SEQ (ending in a GIMPLE_COND) before the statement at *GSI
 * and THEN_SEQ in a new block run when the condition holds (unlikely);
 * the statement then starts the block where both paths join. In SSA form,
 * RESULT (if any) becomes the PHI there of FAST (the value without the
 * THEN block) and SLOW (the value it sets). */
static void insert_if_then(gimple_stmt_iterator *gsi, gimple_seq cond_seq, gimple_seq then_seq,
			   tree result = NULL_TREE, tree fast = NULL_TREE, tree slow = NULL_TREE)
{
	gimple *at = gsi_stmt(*gsi);
	gimple *cond = gimple_seq_last_stmt(cond_seq);
	gsi_insert_seq_before(gsi, cond_seq, GSI_SAME_STMT);
	basic_block cond_bb = gimple_bb(cond);
	edge fall = split_block(cond_bb, cond);
	basic_block join = fall->dest;
	fall->flags = EDGE_FALSE_VALUE;
	basic_block then_bb = create_empty_bb(cond_bb);
	if (current_loops)
		add_bb_to_loop(then_bb, cond_bb->loop_father);
	edge t = make_edge(cond_bb, then_bb, EDGE_TRUE_VALUE);
	t->probability = profile_probability::very_unlikely();
	fall->probability = t->probability.invert();
	/* after GCC's profile estimate (lower.cc): the new block's count,
	 * or the passes after take the function's profile for unknown */
	then_bb->count = cond_bb->count.apply_probability(t->probability);
	make_single_succ_edge(then_bb, join, EDGE_FALLTHRU);
	gimple_stmt_iterator tg = gsi_start_bb(then_bb);
	gsi_insert_seq_after(&tg, then_seq, GSI_NEW_STMT);
	if (result) {
		gphi *phi = create_phi_node(result, join);
		add_phi_arg(phi, fast, fall, UNKNOWN_LOCATION);
		add_phi_arg(phi, slow, single_succ_edge(then_bb), UNKNOWN_LOCATION);
	}
	*gsi = gsi_for_stmt(at);
}

/* ================= the emitted code ================= */

/* The one normal (not abnormal, not EH) successor edge of CALL's block,
 * or NULL (none, or several). */
static edge normal_succ(gimple *call)
{
	edge e, normal = NULL;
	edge_iterator ei;
	int n = 0;
	FOR_EACH_EDGE(e, ei, gimple_bb(call)->succs)
		if (!(e->flags & (EDGE_ABNORMAL | EDGE_EH))) {
			normal = e;
			n++;
		}
	return n == 1 ? normal : NULL;
}

void dp_insert_after_call(gimple *call, gimple_seq seq)
{
	if (!stmt_ends_bb_p(call)) {
		gimple_stmt_iterator gsi = gsi_for_stmt(call);
		gsi_insert_seq_after(&gsi, seq, GSI_NEW_STMT);
	} else if (edge normal = normal_succ(call)) {
		gsi_insert_seq_on_edge(normal, seq);
	}
}

/* Inserts G after statement AT or, without one, at the start of block
 * AT_BB, or, without either, in a block of its own after the function's
 * entry (in the function's outermost scope). */
static void place_after(function *fun, gimple *g, gimple *at, basic_block at_bb)
{
	gimple_stmt_iterator gsi;
	if (at) {
		gsi = gsi_for_stmt(at);
		gsi_insert_after(&gsi, g, GSI_NEW_STMT);
	} else if (at_bb) {
		gsi = gsi_after_labels(at_bb);
		if (gsi_end_p(gsi)) {
			gsi = gsi_last_bb(at_bb);
			gsi_insert_after(&gsi, g, GSI_NEW_STMT);
		} else {
			gsi_insert_before(&gsi, g, GSI_NEW_STMT);
		}
	} else {
		basic_block bb = split_edge(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun)));
		if (DECL_INITIAL(fun->decl) && TREE_CODE(DECL_INITIAL(fun->decl)) == BLOCK)
			gimple_set_block(g, DECL_INITIAL(fun->decl));
		gsi = gsi_start_bb(bb);
		gsi_insert_after(&gsi, g, GSI_NEW_STMT);
	}
}

void dp_v2_place_after(gimple *g, gimple *at, basic_block at_bb)
{
	place_after(cfun, g, at, at_bb);
}

/* EXP = &__deepprof_tu.ps[PS], added to S. */
static void ps_addr(gimple_seq *s, tree exp, unsigned ps, location_t loc)
{
	if (tree psd = dp_roots[DPR_PS_DECL]) {
		/* the tables exist (lower.cc, after them): a link-time constant */
		tree elt = build4(ARRAY_REF, TREE_TYPE(TREE_TYPE(psd)), psd, size_int(ps), NULL_TREE, NULL_TREE);
		add(s, gimple_build_assign(exp, build_fold_addr_expr_with_type(elt, ptr_type_node)), loc);
	} else {
		tree tps = reg(ptr_type_node, "dp_ps");
		add(s, gimple_build_assign(tps, dp_tu_ps_ref()), loc);
		add(s, gimple_build_assign(exp, POINTER_PLUS_EXPR, tps,
					   size_int(ps * sizeof(struct dp_ps_static))), loc);
	}
}

/* The prologue of function PS: find my csd (*ME) and pd (*PD), placed as
 * place_after places. Before SSA *ME and *PD are the variables to set; in
 * SSA form they are made here. RESUME: the code of a part GCC split off
 * PS, which runs in the activation that called it: dp_cur's csd, tagged or
 * not, if its pd runs PS, else dp_abi_resume's. */
static void emit_prologue(function *fun, unsigned ps, tree *mep, tree *pdp, gimple *at, basic_block at_bb,
			  bool resume = false)
{
	bool ssa = gimple_in_ssa_p(fun);
	if (ssa) {
		*mep = make_ssa_name(ptr_type_node);
		*pdp = make_ssa_name(ptr_type_node);
	}
	tree me = *mep, pd = *pdp;
	tree me_fast = ssa ? make_ssa_name(ptr_type_node) : me;
	tree me_slow = ssa ? make_ssa_name(ptr_type_node) : me;
	location_t loc = at ? gimple_location(at) : DECL_SOURCE_LOCATION(fun->decl);
	gimple *load_pd = gimple_build_assign(pd, mem(me, DP_CSD_CALLEE, ptr_type_node));
	gimple_set_location(load_pd, loc);
	place_after(fun, load_pd, at, at_bb);

	tree up = pointer_sized_int_node;
	tree c = reg(up, "dp_c");
	tree pps = reg(ptr_type_node, "dp_ps");
	tree exp = reg(ptr_type_node, "dp_ps");
	gimple_seq s = NULL;
	add(&s, gimple_build_assign(c, dp_cur_decl()), loc);
	/* No dp_cur = me here: while the activation makes no call, dp_cur
	 * still names me, tagged, which the runtime reads as the same csd
	 * (a store here cost fib(38) 25%: 0.69 s against 0.54 s). */
	if (resume) {
		/* me = c & ~1 (tagged or not); its pd must run PS */
		tree mi = reg(up, "dp_c"), pd0 = reg(ptr_type_node, "dp_pd");
		add(&s, gimple_build_assign(mi, BIT_AND_EXPR, c, build_int_cst(up, -2)), loc);
		add(&s, gimple_build_assign(me_fast, NOP_EXPR, mi), loc);
		add(&s, gimple_build_assign(pd0, mem(me_fast, DP_CSD_CALLEE, ptr_type_node)), loc);
		add(&s, gimple_build_assign(pps, mem(pd0, DP_PD_PS, ptr_type_node)), loc);
	} else {
		/* one load checks both that the call came through a site (c
		 * tagged: c - 1 is the csd) and that its csd is bound to PS:
		 * the word at c + 55 is the csd's callee_ps when c is tagged,
		 * and when it is not, a word whose low byte is DP_CSD_MAGIC's
		 * top byte (0xff), never a ps record's (deepprof-abi.h) */
		tree cp = reg(ptr_type_node, "dp_cp");
		add(&s, gimple_build_assign(cp, NOP_EXPR, c), loc);
		add(&s, gimple_build_assign(pps, mem(cp, DP_CSD_CALLEE_PS - 1, ptr_type_node)), loc);
		add(&s, gimple_build_assign(me_fast, POINTER_PLUS_EXPR, cp, size_int(-1)), loc);
	}
	ps_addr(&s, exp, ps, loc);
	add(&s, gimple_build_cond(NE_EXPR, pps, exp, NULL_TREE, NULL_TREE), loc);

	gimple_seq slow = NULL;
	gcall *call = gimple_build_call(dp_hook_decl(resume ? DPR_RESUME : DPR_ENTER_SLOW), 3, dp_tu_addr(),
					build_int_cst(uint32_type_node, ps), c);
	gimple_call_set_lhs(call, me_slow);
	add(&slow, call, loc);
	gimple_stmt_iterator gsi = gsi_for_stmt(load_pd);
	if (ssa)
		insert_if_then(&gsi, s, slow, me, me_fast, me_slow);
	else
		insert_if_then(&gsi, s, slow);
}

void dp_v2_prologue(function *fun, unsigned ps, gimple *at, tree *me, tree *pd)
{
	emit_prologue(fun, ps, me, pd, at, NULL);
}

void dp_v2_resume(function *fun, unsigned ps, gimple *before, tree *me, tree *pd)
{
	gimple *at = NULL;
	basic_block at_bb = NULL;
	if (before) {           /* after the statement before it, or at its block's start */
		gimple_stmt_iterator g = gsi_for_stmt(before);
		gsi_prev(&g);
		if (!gsi_end_p(g) && gimple_code(gsi_stmt(g)) != GIMPLE_LABEL)
			at = gsi_stmt(g);
		else
			at_bb = gimple_bb(before);
	}
	emit_prologue(fun, ps, me, pd, at, at_bb, true);
}

/* Code that runs inside an activation whose prologue ran elsewhere (a part
 * GCC split off a function): my csd is dp_cur's, tagged or not. */
void dp_v2_continuation(function *fun, tree *me, tree *pd)
{
	tree up = pointer_sized_int_node;
	tree c = reg(up, "dp_c"), mi = reg(up, "dp_c");
	*me = reg(ptr_type_node, "dp_me");
	*pd = reg(ptr_type_node, "dp_pd");
	location_t loc = DECL_SOURCE_LOCATION(fun->decl);
	gimple_seq s = NULL;
	add(&s, gimple_build_assign(c, dp_cur_decl()), loc);
	add(&s, gimple_build_assign(mi, BIT_AND_EXPR, c, build_int_cst(up, -2)), loc);
	add(&s, gimple_build_assign(*me, NOP_EXPR, mi), loc);
	add(&s, gimple_build_assign(*pd, mem(*me, DP_CSD_CALLEE, ptr_type_node)), loc);
	basic_block bb = split_edge(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun)));
	gimple_stmt_iterator gsi = gsi_start_bb(bb);
	gsi_insert_seq_after(&gsi, s, GSI_NEW_STMT);
}

/* An indirect site's check, SSA form: COND_SEQ (the slot's csd FAST,
 * whether its target is not FN) goes before *GSI, and where it holds, the
 * slot's csd's next (deepprof-abi.h: a csd of the same slot, or a
 * placeholder) is tried before the slow call SC (of SLOT of PD):
 *
 *     alt = fast->next;
 *     if (alt->target == fn) { pd->slot[SLOT] = alt; alt->next = fast; }
 *     else alt = SC;
 *
 * so a site whose calls go to two targets in turn makes no slow call.
 * CSD (the PHI after it all) is the site's csd, SLOW_CSD SC's value. */
static void emit_indirect_alt(gimple_stmt_iterator *gsi, gimple_seq cond_seq, gcall *sc, tree pd,
			      int slot, tree fn, tree csd, tree fast, tree slow_csd, location_t loc)
{
	tree alt = make_ssa_name(ptr_type_node), tgt = make_ssa_name(ptr_type_node);
	tree found = make_ssa_name(ptr_type_node), mark = make_ssa_name(ptr_type_node);
	gimple_seq a = NULL;
	add(&a, gimple_build_assign(alt, mem(fast, TAGGED_OFF(DP_CSD_NEXT), ptr_type_node)), loc);
	add(&a, gimple_build_assign(tgt, mem(alt, TAGGED_OFF(DP_CSD_TARGET), ptr_type_node)), loc);
	gimple *at = gimple_build_assign(mark, alt);    /* where the two paths split (a copy) */
	add(&a, at, loc);
	insert_if_then(gsi, cond_seq, a, csd, fast, found);
	gimple_stmt_iterator g = gsi_for_stmt(at);
	gimple_seq hit = NULL, test = NULL;
	add(&test, gimple_build_cond(EQ_EXPR, tgt, fn, NULL_TREE, NULL_TREE), loc);
	add(&hit, gimple_build_assign(mem(pd, DP_PD_SLOT + 8 * slot, ptr_type_node), alt), loc);
	add(&hit, gimple_build_assign(mem(alt, TAGGED_OFF(DP_CSD_NEXT), ptr_type_node), fast), loc);
	insert_if_then(&g, test, hit);
	g = gsi_for_stmt(at);
	gimple_seq miss = NULL, slow = NULL;
	add(&miss, gimple_build_cond(NE_EXPR, tgt, fn, NULL_TREE, NULL_TREE), loc);
	gimple_seq_add_stmt(&slow, sc);
	insert_if_then(&g, miss, slow, found, alt, slow_csd);
}

/* Site SITE's code before the call, placed before POS (the call itself,
 * or where lower.cc found the call hook): slot SLOT of the caller's pd,
 * or with -1 none (the slow path finds the csd every time); FN the target
 * of an indirect site, else NULL_TREE; QUIET: a quiet body's site (lower.cc),
 * which counts the return too and leaves dp_cur alone; BOUND (with FN): the
 * procedure FN is, whose csd the site checks it has (dp_abi_call_bound).
 * Returns the site's csd. */
static tree emit_pre(gimple *pos, unsigned site, int slot, tree pd, tree fn, location_t loc,
		     bool quiet = false, int bound = -1)
{
	struct dp_site_rec *r = &dp_sites[site];
	bool ssa = gimple_in_ssa_p(cfun);
	tree csd = reg(ptr_type_node, "dp_csd");
	tree fast = ssa && slot >= 0 ? make_ssa_name(ptr_type_node) : csd;
	tree slow_csd = ssa && slot >= 0 ? make_ssa_name(ptr_type_node) : csd;
	if (!fn)
		bound = -1;
	/* a direct site with a slot counts in its pd's counters (COUNTED),
	 * whose first call through the pd takes the slow path */
	bool counted = slot >= 0 && !fn;
	gcall *sc = bound >= 0
		? gimple_build_call(dp_hook_decl(DPR_CALL_BOUND), 5, dp_tu_addr(),
				    build_int_cst(uint32_type_node, site), fn, pd,
				    build_int_cst(uint32_type_node, bound))
		: gimple_build_call(dp_hook_decl(slot < 0 ? DPR_CALL_NOSLOT : counted ? DPR_COUNT_SLOW : DPR_CALL_SLOW),
				    4, dp_tu_addr(), build_int_cst(uint32_type_node, site),
				    fn ? fn : null_pointer_node, pd);
	gimple_call_set_lhs(sc, slow_csd);
	gimple_set_location(sc, loc);
	gimple_stmt_iterator gsi = gsi_for_stmt(pos);
	if (slot < 0) {
		gsi_insert_before(&gsi, sc, GSI_SAME_STMT);
	} else {
		gimple_seq s = NULL;
		tree n = counted ? add_increment(&s, pd, CALLS_OFF(slot), loc) : NULL_TREE;
		add(&s, gimple_build_assign(fast, mem(pd, DP_PD_SLOT + 8 * slot, ptr_type_node)), loc);
		if (counted) {
			/* (its calls word from all ones to 0: the first call) */
			add(&s, gimple_build_cond(EQ_EXPR, n, build_int_cst(uint64_type_node, 0), NULL_TREE,
						  NULL_TREE), loc);
		} else if (bound >= 0) {
			/* one load, as the prologue's: bound to the procedure
			 * fn is (so fn's csd; the placeholder is bound to none) */
			tree cps = reg(ptr_type_node, "dp_ps"), exp = reg(ptr_type_node, "dp_ps");
			add(&s, gimple_build_assign(cps, mem(fast, TAGGED_OFF(DP_CSD_CALLEE_PS), ptr_type_node)), loc);
			ps_addr(&s, exp, (unsigned)bound, loc);
			add(&s, gimple_build_cond(NE_EXPR, cps, exp, NULL_TREE, NULL_TREE), loc);
		} else if (fn) {       /* slots of indirect sites never hold NULL (the runtime's rule) */
			tree tgt = reg(ptr_type_node, "dp_tgt");
			add(&s, gimple_build_assign(tgt, mem(fast, TAGGED_OFF(DP_CSD_TARGET), ptr_type_node)), loc);
			add(&s, gimple_build_cond(NE_EXPR, tgt, fn, NULL_TREE, NULL_TREE), loc);
			if (ssa) {
				emit_indirect_alt(&gsi, s, sc, pd, slot, fn, csd, fast, slow_csd, loc);
				goto counted;
			}
		} else {
			add(&s, gimple_build_cond(EQ_EXPR, fast, null_pointer_node, NULL_TREE, NULL_TREE), loc);
		}
		gimple_seq slow = NULL;
		gimple_seq_add_stmt(&slow, sc);
		if (ssa)
			insert_if_then(&gsi, s, slow, csd, fast, slow_csd);
		else
			insert_if_then(&gsi, s, slow);
	}
counted:;
	gimple_seq pre = NULL;
	if (!counted)
		add_increment(&pre, csd, TAGGED_OFF(DP_CSD_CALLS), loc);
	if (quiet) {    /* a quiet body's return, counted before it (lower.cc) */
		if (!(r->flags & DP_CSS_LEAF_PROC))     /* (the runtime's, there) */
			add_increment(&pre, counted ? pd : csd, counted ? EXITS_OFF(slot) : TAGGED_OFF(DP_CSD_EXITS),
				      loc);
	}
	else if (!(r->flags & DP_CSS_LEAF_CALLEE))
		add_set_cur(&pre, csd, 0, r->kind == DP_CSS_KIND_EXTERNAL, loc);   /* tagged already */
	gsi_insert_seq_before(&gsi, pre, GSI_SAME_STMT);
	return csd;
}

/* Site SITE's code after its call returned: the restore of dp_cur to ME
 * and the exits of CSD, or (CSD NULL_TREE) of what slot SLOT of PD holds;
 * nothing where no call returns (leaf-callee, tail and noreturn sites).
 * PENDING: the csds of the quiet bodies the site is in (lower.cc), whose
 * returns were counted before them: one less while the call runs, so that
 * a longjmp over the call leaves the bodies' exits uncounted too (not
 * around a call that always returns: DP_CSS_RETURNS, leaf callees, with
 * or without a prologue). */
static gimple_seq post_seq(unsigned site, int slot, tree me, tree pd, tree csd, location_t loc,
			   const vec<tree> *pending = NULL)
{
	struct dp_site_rec *r = &dp_sites[site];
	/* (a site in tail position where it was written, in a quiet body
	 * inlined elsewhere: its call returns into the body, whose return
	 * and whose owner's dp_cur come back here; the runtime counts its
	 * own exits as a tail call's whatever the code does) */
	if (r->flags & (DP_CSS_LEAF_CALLEE | DP_CSS_NORETURN) || (r->flags & DP_CSS_TAIL && !pending))
		return NULL;
	/* the call returned: a longjmp, exit() or pthread_exit over it never
	 * gets here, so the runtime has calls - exits non-local exits (but
	 * for a library function declared leaf, which always returns here) */
	gimple_seq restore = NULL;
	add_set_cur(&restore, me, 0, r->kind == DP_CSS_KIND_EXTERNAL, loc);
	if (pending && !(r->flags & (DP_CSS_RETURNS | DP_CSS_LEAF_PROC)))
		for (tree p : *pending)
			add_increment(&restore, p, DP_CSD_EXITS, loc);
	if (r->flags & (DP_CSS_TAIL | DP_CSS_LEAF_PROC))
		return restore;         /* (a leaf's calls all return: the runtime's rule) */
	if (csd) {
		add_increment(&restore, csd, TAGGED_OFF(DP_CSD_EXITS), loc);
	} else if (slot >= 0 && !(r->flags & DP_CSS_RETURNS) && r->kind != DP_CSS_KIND_INDIRECT) {
		/* a direct site's exits word in its pd (deepprof-abi.h) */
		add_increment(&restore, pd, EXITS_OFF(slot), loc);
	} else if (slot >= 0 && !(r->flags & DP_CSS_RETURNS)) {
		/* an indirect site whose call GCC inlined: what its slot holds
		 * after the body (the runtime sets it before the body's code) */
		tree again = reg(ptr_type_node, "dp_csd");
		add(&restore, gimple_build_assign(again, mem(pd, DP_PD_SLOT + 8 * slot, ptr_type_node)), loc);
		add_increment(&restore, again, TAGGED_OFF(DP_CSD_EXITS), loc);
	}
	return restore;
}

/* Site SITE at CALL, its pre-call code before POS (CALL itself but in
 * lower.cc, which puts it where the call hook was); ME is what dp_cur
 * names again after the call; PENDING as post_seq's. */
static void emit_site(gimple *pos, gimple *call, unsigned site, int slot, tree me, tree pd, tree fn,
		      const vec<tree> *pending = NULL)
{
	location_t loc = gimple_location(call);
	tree csd = emit_pre(pos, site, slot, pd, fn, loc);
	/* (a leaf returns, and so does a library function declared leaf) */
	if (pending && !(dp_sites[site].flags & (DP_CSS_LEAF_CALLEE | DP_CSS_RETURNS | DP_CSS_LEAF_PROC))) {
		gimple_seq p = NULL;
		for (tree x : *pending)
			add_increment(&p, x, DP_CSD_EXITS, loc, -1);
		gimple_stmt_iterator gsi = gsi_for_stmt(pos);
		gsi_insert_seq_before(&gsi, p, GSI_SAME_STMT);
	}
	/* (after inlining, GCC may have found that it never returns, which
	 * it did not know when the site was made: statements after it would
	 * be in the middle of a block. It counts a non-local exit, as where
	 * GCC removes the restore it cannot reach.) */
	if (gimple_call_noreturn_p(call))
		return;
	/* an indirect site's slot may have changed during the call */
	gimple_seq restore = post_seq(site, slot, me, pd, fn || slot < 0 ? csd : NULL_TREE, loc, pending);
	if (restore)
		dp_insert_after_call(call, restore);
}

void dp_v2_site(gimple *pos, gimple *call, unsigned site, int slot, tree me, tree pd, tree fn,
		const vec<tree> *pending)
{
	emit_site(pos, call, site, slot, me, pd, fn, pending);
}

tree dp_v2_site_pre(gimple *pos, unsigned site, int slot, tree pd, tree fn, bool quiet, int bound)
{
	return emit_pre(pos, site, slot, pd, fn, gimple_location(pos), quiet, bound);
}

void dp_v2_site_post(gimple *pos, unsigned site, int slot, tree me, tree pd)
{
	gimple_seq restore = post_seq(site, slot, me, pd, NULL_TREE, gimple_location(pos));
	if (restore) {
		gimple_stmt_iterator gsi = gsi_for_stmt(pos);
		gsi_insert_seq_before(&gsi, restore, GSI_SAME_STMT);
	}
}

/* Around CALL, a call in a quiet body ME of a part GCC split off the
 * body's function (lower.cc), which finds its activation in dp_cur: ME
 * there, and the exits of the quiet bodies it is in (PENDING) taken back
 * while the part runs; OWNER's after. */
void dp_v2_quiet_part(gimple *call, tree me, tree owner, const vec<tree> &pending)
{
	location_t loc = gimple_location(call);
	gimple_seq s = NULL;
	add_set_cur(&s, me, 0, false, loc);
	for (tree p : pending)
		add_increment(&s, p, DP_CSD_EXITS, loc, -1);
	gimple_stmt_iterator gsi = gsi_for_stmt(call);
	gsi_insert_seq_before(&gsi, s, GSI_SAME_STMT);
	if (gimple_call_noreturn_p(call))
		return;
	gimple_seq r = NULL;
	add_set_cur(&r, owner, 0, false, loc);
	for (tree p : pending)
		add_increment(&r, p, DP_CSD_EXITS, loc);
	dp_insert_after_call(call, r);
}

/* A quiet body's me (lower.cc), from CSD, its site's csd as the slot
 * holds it (tagged), before POS. */
tree dp_v2_quiet_body(gimple *pos, tree csd)
{
	tree me = make_ssa_name(ptr_type_node);
	gimple *g = gimple_build_assign(me, POINTER_PLUS_EXPR, csd, size_int(-1));
	gimple_set_location(g, gimple_location(pos));
	gimple_stmt_iterator gsi = gsi_for_stmt(pos);
	gsi_insert_before(&gsi, g, GSI_SAME_STMT);
	return me;
}

/* Its pd, loaded before POS, a site of it (mostly on a path that is
 * seldom taken: not loaded where the body starts): the csd is bound to
 * the body's procedure (a direct site's, the runtime's rule), as a
 * folded prologue would find. */
tree dp_v2_quiet_pd(gimple *pos, tree me)
{
	tree pd = make_ssa_name(ptr_type_node);
	gimple *g = gimple_build_assign(pd, mem(me, DP_CSD_CALLEE, ptr_type_node));
	gimple_set_location(g, gimple_location(pos));
	gimple_stmt_iterator gsi = gsi_for_stmt(pos);
	gsi_insert_before(&gsi, g, GSI_SAME_STMT);
	return pd;
}

void dp_v2_tick(gimple_stmt_iterator *gsi, tree me, location_t loc)
{
	gimple_seq t = NULL;
	add_increment(&t, me, DP_CSD_LOOP, loc);
	gsi_insert_seq_before(gsi, t, GSI_SAME_STMT);
}

/* After CALL, a call of setjmp & co (returns_twice): dp_abi_land(&tu, me),
 * which finds dp_cur still naming me on the first return, and after a
 * longjmp to it the csd current where the longjmp was made (the runtime
 * then resynchronises: schemas/plugin-abi.md, "longjmp"). ME NULL_TREE:
 * lower.cc's marker, dp_abi_land(&tu, 0), whose argument it sets. */
static void emit_land(gimple *call, tree me)
{
	location_t loc = gimple_location(call);
	gimple_seq s = NULL;
	add(&s, gimple_build_call(dp_hook_decl(DPR_LAND), 2, dp_tu_addr(), me ? me : null_pointer_node), loc);
	dp_insert_after_call(call, s);
}

void dp_v2_land_marker(gimple *call)
{
	emit_land(call, NULL_TREE);
}

/* Emits the v2 code for one function whose sites are dp_sites[first ..]
 * (already recorded, one per element of CALLS), whose back-edges are BACK
 * and whose calls of setjmp & co are LANDS. A leaf (no sites, no
 * back-edges) gets nothing, its callers count it, unless ENTRY: code other
 * than its TU's call sites may call it. (A leaf that calls setjmp and has
 * no prologue gets no landing hook: it has no csd of its own to name.)
 *
 * OpenMP: a region GCC will outline into a function of its own (parallel,
 * task, host teams, target) must not read the me and pd of the function it
 * is cut out of: they would become uninitialised copies there. Each such
 * region gets its own, from a prologue of the same procedure at the
 * region's start (omp_regions.cc finds them); libprof's wrappers of
 * libgomp's entry points (libprof/omp.c) set dp_cur so that the region runs
 * as a call from the construct on every thread that runs it. */
void dp_emit_inline(function *fun, unsigned ps, vec<gimple *> &calls, vec<edge> &back,
		    vec<gimple *> &lands, bool entry)
{
	if (calls.is_empty() && back.is_empty() && !entry)
		return;
	/* the scope of each block: 0 the function's own, k the k-th region */
	auto_vec<struct dp_omp_region> regions;
	int *scope = XCNEWVEC(int, last_basic_block_for_fn(fun) + 1);
	dp_omp_regions(fun, scope, regions);
	unsigned n_scope = regions.length() + 1;
	auto_vec<int> site_scope, back_scope, land_scope;
	for (unsigned i = 0; i < calls.length(); i++)
		site_scope.safe_push(scope[gimple_bb(calls[i])->index]);
	for (unsigned i = 0; i < back.length(); i++)
		back_scope.safe_push(scope[back[i]->src->index]);
	for (unsigned i = 0; i < lands.length(); i++)
		land_scope.safe_push(scope[gimple_bb(lands[i])->index]);
	XDELETEVEC(scope);

	/* insert_if_then does not keep dominators up to date */
	free_dominance_info(CDI_DOMINATORS);
	free_dominance_info(CDI_POST_DOMINATORS);
	auto_vec<tree> me, pd;
	for (unsigned k = 0; k < n_scope; k++) {
		me.safe_push(create_tmp_var(ptr_type_node, "dp_me"));
		pd.safe_push(create_tmp_var(ptr_type_node, "dp_pd"));
	}
	unsigned first = dp_fns[ps].first_css;
	for (unsigned i = 0; i < back.length(); i++) {
		gimple_seq t = NULL;
		add_increment(&t, me[back_scope[i]], DP_CSD_LOOP, back[i]->goto_locus);
		gsi_insert_seq_on_edge(back[i], t);
	}
	for (unsigned i = 0; i < calls.length(); i++)
		emit_site(calls[i], calls[i], first + i, i, me[site_scope[i]], pd[site_scope[i]],
			  gimple_call_fndecl(calls[i]) ? NULL_TREE : gimple_call_fn(calls[i]));
	for (unsigned i = 0; i < lands.length(); i++)
		emit_land(lands[i], me[land_scope[i]]);
	for (unsigned k = 1; k < n_scope; k++) {
		const struct dp_omp_region &r = regions[k - 1];
		emit_prologue(fun, ps, &me[k], &pd[k], r.after, r.first);
	}
	emit_prologue(fun, ps, &me[0], &pd[0], NULL, NULL);
	if (current_loops)
		loops_state_set(LOOPS_NEED_FIXUP);
}
