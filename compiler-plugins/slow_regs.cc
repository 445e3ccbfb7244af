/*
 * slow_regs.cc — ABI v2 on x86-64: the inline path's slow calls become
 * calls that keep the caller's registers (schemas/plugin-abi.md, "Slow
 * paths that keep registers"), and the checks of direct sites and
 * prologues asms with no block of their own ("Checks without blocks",
 * the second pass below).
 *
 * A site's slow path (dp_abi_count_slow, a direct site's first call
 * through a pd; dp_abi_call_slow, an indirect site's new target; not
 * dp_abi_call_noslot, the call
 * of a site with no slot, which runs every time: a call GCC sees saves
 * only the registers live across it, and costs less than the entry point
 * that saves them all: sqlite3's run with calls=surviving, whose split
 * parts' sites have no slot, 986.0 -> 969.9 M instructions) and a prologue's (dp_abi_enter_slow,
 * dp_abi_resume) are calls that seldom run, but to GCC's register
 * allocator they are calls like any other: every value live across one
 * must sit in a callee-saved register or on the stack, and a function
 * whose calls GCC all inlined is no longer a leaf. A prologue's slow call
 * comes before everything, so each parameter of each instrumented
 * function crosses one: sqlite3 built with the plugin ran twice plain's
 * pushes, pops and stack moves (callgrind: +39 M and +49 M instructions
 * per 50,000 rows, a fifth of its overhead).
 *
 * Here, as the last of GIMPLE (before "optimized"), each such call becomes
 * an asm that pushes the arguments (from whatever registers GCC chose, or
 * as constants) and calls the runtime's _regs entry point through the GOT
 * (libprof saves and restores every general register but rax there, the
 * result, and the SSE registers: deepprof-abi.h). The asm clobbers the
 * flags and memory, as the call did, the x87 and MMX registers in a
 * function that may use them (uses_x87) and in a function compiled for
 * AVX the vector registers; values in the general
 * and SSE registers stay there. It moves the
 * stack pointer past the red zone first: GCC does not see a call, so a
 * function with no other may keep data below its stack pointer. (An
 * unwinder stopped inside a slow path then reads the caller's frame 160
 * bytes off where its CFA is the stack pointer: the runtime never unwinds
 * there.)
 *
 * Only when optimising (at -O0 every value lives on the stack anyway),
 * for x86-64's LP64 ABI, not in the large code models and not with
 * -masm=intel (the templates are AT&T's);
 * slow-calls=plain keeps the calls (and the blocks of the second pass).
 * Part of deepprof's compiler plugins. MIT licence.
 */
#include "plugin.h"
#include "stringpool.h"
#include "gimplify.h"          /* unshare_expr */
#include "tree-into-ssa.h"

namespace {

/* A slow call's hook, the entry point that keeps registers, its arguments */
struct slow_kind {
	enum dp_root root;
	const char *entry;
	unsigned nargs;
};
const struct slow_kind kinds[] = {
	{ DPR_CALL_SLOW, "dp_abi_call_slow_regs", 4 },
	{ DPR_COUNT_SLOW, "dp_abi_count_slow_regs", 4 },
	{ DPR_ENTER_SLOW, "dp_abi_enter_slow_regs", 3 },
	{ DPR_RESUME, "dp_abi_resume_regs", 3 },
};
enum { N_PUSHED = 4 };          /* the entry point reads four words */

tree str(const char *s)
{
	return build_string(strlen(s) + 1, s);
}

void add_clobber(vec<tree, va_gc> **v, const char *reg)
{
	vec_safe_push(*v, build_tree_list(NULL_TREE, str(reg)));
}

/* Whether the x87 or MMX registers may hold a value of the function
 * the pass runs on (fn_x87, set when it starts) */
bool fn_x87;

bool x87_mode(tree t)
{
	if (!t || !TREE_TYPE(t) || TYPE_P(t))
		return false;
	machine_mode m = TYPE_MODE(TREE_TYPE(t));
	return m == XFmode || m == XCmode ||
	       ((ix86_fpmath & FPMATH_387) && (m == SFmode || m == DFmode || m == SCmode || m == DCmode));
}

/* Whether asm A names an x87 or MMX register: an operand's constraint
 * with a letter of theirs (t, u, f, y: any letter so, to be safe), or a
 * clobber (ours name none, but where the function needs them) */
bool asm_x87(gasm *a)
{
	for (unsigned i = 0; i < gimple_asm_ninputs(a) + gimple_asm_noutputs(a); i++) {
		tree op = i < gimple_asm_ninputs(a) ? gimple_asm_input_op(a, i)
						    : gimple_asm_output_op(a, i - gimple_asm_ninputs(a));
		if (strpbrk(TREE_STRING_POINTER(TREE_VALUE(TREE_PURPOSE(op))), "tufy"))
			return true;
	}
	for (unsigned i = 0; i < gimple_asm_nclobbers(a); i++) {
		const char *c = TREE_STRING_POINTER(TREE_VALUE(gimple_asm_clobber_op(a, i)));
		if (!strncmp(c, "st", 2) || !strncmp(c, "mm", 2) || !strncmp(c, "%st", 3) || !strncmp(c, "%mm", 3) ||
		    !strcmp(c, "fpsr") || !strcmp(c, "fpcr"))
			return true;
	}
	return false;
}

/* Whether FUN may keep values in x87 or MMX registers: code for x87 or
 * MMX (-mfpmath=387, no SSE2), a value in long double (or complex long
 * double: GCC computes and returns those on the x87 stack), or an asm
 * that names those registers (asm_x87). Without
 * these GCC allocates none of them on x86-64 (MMX's vector types live in
 * SSE registers there). */
bool uses_x87(function *fun)
{
	if ((ix86_fpmath & FPMATH_387) || (TARGET_MMX && !TARGET_MMX_WITH_SSE) || x87_mode(DECL_RESULT(fun->decl)))
		return true;
	for (tree a = DECL_ARGUMENTS(fun->decl); a; a = DECL_CHAIN(a))
		if (x87_mode(a))
			return true;
	basic_block bb;
	FOR_EACH_BB_FN(bb, fun) {
		for (gphi_iterator p = gsi_start_phis(bb); !gsi_end_p(p); gsi_next(&p))
			if (x87_mode(gimple_phi_result(p.phi())))
				return true;
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
			gimple *st = gsi_stmt(g);
			if (gasm *a = dyn_cast<gasm *>(st))
				if (asm_x87(a))
					return true;
			for (unsigned i = 0; i < gimple_num_ops(st); i++)
				if (x87_mode(gimple_op(st, i)))
					return true;
		}
	}
	return false;
}

/* The clobbers of every such asm: what a SysV call clobbers but the
 * general registers (the entry point restores them but rax, the result) */
vec<tree, va_gc> *clobbers(void)
{
	vec<tree, va_gc> *v = NULL;
	static const char *const fixed[] = {
		"memory", "cc",
		"st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)",
		"mm0", "mm1", "mm2", "mm3", "mm4", "mm5", "mm6", "mm7",
	};
	/* The entry points keep neither: the x87 and MMX registers are
	 * named only where the function may hold a value there (uses_x87;
	 * naming the 16 at every asm cost sqlite3's amalgamation 1.5 s of 22) */
	for (unsigned i = 0; i < (fn_x87 ? ARRAY_SIZE(fixed) : 2); i++)
		add_clobber(&v, fixed[i]);
	/* The entry points keep xmm0-15 (their low 128 bits): all a function
	 * compiled without AVX keeps values in. With AVX the runtime's libc
	 * may clear their upper halves (vzeroupper), so the asm says they
	 * change. Each clobber is an operand of every asm to GCC's passes:
	 * not naming these 16 at every check took 2 s off 24 of sqlite3's
	 * amalgamation (the x87 ones, which stay, cost little). */
	if (!TARGET_AVX)
		return v;
	char name[8];
	unsigned n_xmm = TARGET_AVX512F ? 32 : 16;
	for (unsigned i = 0; i < n_xmm; i++) {
		snprintf(name, sizeof name, "xmm%u", i);
		add_clobber(&v, name);
	}
	if (TARGET_AVX512F)
		for (unsigned i = 0; i < 8; i++) {
			snprintf(name, sizeof name, "k%u", i);
			add_clobber(&v, name);
		}
	return v;
}

/* CALL (a slow call of kind K) as the asm, which takes its place: its
 * arguments pushed (registers of GCC's choice, or constants), so that no
 * register but rax must be free there */
void replace(gcall *call, const struct slow_kind &k)
{
	tree lhs = gimple_call_lhs(call);
	vec<tree, va_gc> *in = NULL, *out = NULL;
	vec_safe_push(out, build_tree_list(build_tree_list(NULL_TREE, str("=a")), lhs));
	for (unsigned i = 0; i < N_PUSHED; i++)
		vec_safe_push(in, build_tree_list(build_tree_list(NULL_TREE, str("re")),
						  i < k.nargs ? gimple_call_arg(call, i) : integer_zero_node));
	char text[256];
	snprintf(text, sizeof text,
		 "lea -128(%%%%rsp), %%%%rsp\n\tpush %%q4\n\tpush %%q3\n\tpush %%q2\n\tpush %%q1\n\t"
		 "call *%s@GOTPCREL(%%%%rip)\n\tlea %d(%%%%rsp), %%%%rsp", k.entry, 128 + 8 * N_PUSHED);
	gasm *a = gimple_build_asm_vec(ggc_strdup(text), in, out, clobbers(), NULL);
	gimple_asm_set_volatile(a, true);
	gimple_set_location(a, gimple_location(call));
	gimple_set_block(a, gimple_block(call));
	gimple_set_vuse(a, gimple_vuse(call));
	gimple_set_vdef(a, gimple_vdef(call));
	if (gimple_vdef(call))
		SSA_NAME_DEF_STMT(gimple_vdef(call)) = a;
	if (TREE_CODE(lhs) == SSA_NAME)
		SSA_NAME_DEF_STMT(lhs) = a;
	gimple_stmt_iterator g = gsi_for_stmt(call);
	gsi_insert_before(&g, a, GSI_SAME_STMT);
	gsi_remove(&g, true);
	update_stmt(a);
}

const pass_data slow_regs_pass_data = {
	GIMPLE_PASS, "deepprof_slow_regs", OPTGROUP_NONE, TV_NONE,
	PROP_cfg | PROP_ssa, 0, 0, 0, 0
};

/* Whether this compilation may have the asms (both passes) */
bool asm_ok(void)
{
	/* (the large code models: the GOT may be out of a 32-bit reach of
	 * the code; -masm=intel: the templates are AT&T's) */
	return dp_opt.abi == 2 && dp_opt.slow_regs && optimize && TARGET_64BIT && !TARGET_X32 &&
	       ix86_cmodel != CM_LARGE && ix86_cmodel != CM_LARGE_PIC && !in_lto_p && !seen_error() &&
	       ix86_asm_dialect == ASM_ATT;
}

class slow_regs_pass : public gimple_opt_pass {
public:
	slow_regs_pass(gcc::context *ctxt) : gimple_opt_pass(slow_regs_pass_data, ctxt) {}
	bool gate(function *) override
	{
		return asm_ok();
	}
	unsigned int execute(function *fun) override;
};

unsigned int slow_regs_pass::execute(function *fun)
{
	fn_x87 = uses_x87(fun);
	basic_block bb;
	FOR_EACH_BB_FN(bb, fun)
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g);) {
			gcall *c = dyn_cast<gcall *>(gsi_stmt(g));
			gsi_next(&g);
			tree fn = c ? gimple_call_fndecl(c) : NULL_TREE;
			if (!fn || !gimple_call_lhs(c))
				continue;
			for (const struct slow_kind &k : kinds)
				if (dp_roots[k.root] == fn && gimple_call_num_args(c) == k.nargs)
					replace(c, k);
		}
	return 0;
}

/*
 * Direct sites' checks without a block of their own. A direct site's
 * check is `n = ++pd's calls word of the site; csd = pd->slot[s]; if (n
 * == 0) csd = dp_abi_count_slow(tu, SITE, 0, pd);` (deepprof-abi.h,
 * DP_PD_COUNT: the word starts at all ones, so the first call through
 * the pd goes slow): a condition, a block for the slow call and a join,
 * at every direct site, inlined bodies' too. GCC's passes walk those
 * blocks and the memory states they merge: with the plugin sqlite3's
 * amalgamation compiled in 2.1x the plain build's time, 1.8x with each
 * check one asm. So right after the plugin's passes that read the
 * diamonds (inlined.cc folds prologues by them), each becomes one asm on
 * the main path (DP_ABI_COUNT_CHECK, deepprof-abi.h): the count, the
 * branch on it to a stub that the asm puts after the function's code
 * (.subsection 1), which calls the entry point as above, keeping rax on
 * the stack, and jumps back; where the site's csd is not used (a leaf's
 * site, a quiet body that makes no call), the count and the branch alone
 * (DP_ABI_COUNT). The asm reads and writes the slot ("+m", the runtime
 * stores the csd there) and clobbers what the call does but memory and
 * rax: the slow path writes only the slot, the counters, the new csd and
 * pds (which no code reads but through the csd it returns) and the
 * runtime's own state; the program's memory stays in registers across
 * the check. A prologue's check (or a split part's) becomes one asm the
 * same way (DP_ABI_ENTER_CHECK), which names dp_cur as written.
 *
 * With site-checks=asm (the default) the asm of a direct site also takes
 * the statements around it: the slot's load, and after it the tag's
 * store to dp_cur or a quiet body's exit in the counters (DP_ABI_COUNT_
 * LOAD, _ENTER, _EXIT, _LOAD_EXIT), and another asm after the call the
 * restore of dp_cur and the increment of the site's exits word
 * (DP_ABI_RESTORE_COUNT; DP_ABI_SITE_RESTORE, _LOAD where an indirect
 * site's csd counts them): the site's code becomes two asms, four
 * instructions before the call and two after it at a site whose callee
 * is no leaf (eight in all with the counts in the csd, sessions before
 * 29). The asms do not name the words they count (schemas/plugin-abi.md,
 * "A site's code as two asms": no other code touches them).
 */
const char restore_named[] = DP_ABI_SITE_RESTORE;
const char restore_load_named[] = DP_ABI_SITE_RESTORE_LOAD;
const char restore_only_named[] = DP_ABI_RESTORE;
const char pending_named[] = DP_ABI_PENDING_EXIT;
const char enter_named[] = DP_ABI_ENTER_CHECK("dp_abi_enter_slow_regs");
const char count_named[] = DP_ABI_COUNT("dp_abi_count_slow_regs");
const char count_exit_named[] = DP_ABI_COUNT_EXIT("dp_abi_count_slow_regs");
const char count_check_named[] = DP_ABI_COUNT_CHECK("dp_abi_count_slow_regs");
const char count_load_named[] = DP_ABI_COUNT_LOAD("dp_abi_count_slow_regs");
const char count_load_exit_named[] = DP_ABI_COUNT_LOAD_EXIT("dp_abi_count_slow_regs");
const char count_enter_named[] = DP_ABI_COUNT_ENTER("dp_abi_count_slow_regs");
const char restore_count_named[] = DP_ABI_RESTORE_COUNT;
const char resume_named[] = DP_ABI_ENTER_CHECK("dp_abi_resume_regs");

/* NAMED with its operand names as numbers (the front end resolves them,
 * not gimple_build_asm_vec): NAMES[i] is operand i's ("[csd]"), NULL for
 * one the template does not name. Kept in *CACHE. */
const char *numbered(const char *named, const char *const *names, unsigned n, char **cache)
{
	if (*cache)
		return *cache;
	char *text = XNEWVEC(char, strlen(named) + 1);  /* (never longer) */
	char *o = text;
	for (const char *p = named; *p;) {
		unsigned i = 0;
		while (i < n && !(names[i] && !strncmp(p, names[i], strlen(names[i]))))
			i++;
		if (i < n) {
			o += sprintf(o, "%u", i);
			p += strlen(names[i]);
		} else {
			*o++ = *p++;
		}
	}
	*o = 0;
	return *cache = text;
}

/* The clobbers of a check's asm: those of the call but memory */
vec<tree, va_gc> *check_clobbers(void)
{
	vec<tree, va_gc> *all = clobbers(), *v = NULL;
	for (tree c : *all)
		if (strcmp(TREE_STRING_POINTER(TREE_VALUE(c)), "memory"))
			vec_safe_push(v, c);
	return v;
}

void add_op(vec<tree, va_gc> **v, const char *constraint, tree t)
{
	vec_safe_push(*v, build_tree_list(build_tree_list(NULL_TREE, str(constraint)), t));
}

/* A check as inline_path.cc makes it: COND (code CODE) enters, when it
 * holds, a block holding SLOW alone, and PHI, where both paths join, is
 * FAST (the value from the other path) or SLOW's result. */
struct diamond {
	gcond *cond;
	edge fall;
	gphi *phi;
	tree fast;
};

bool find_diamond(gcall *slow, enum tree_code code, struct diamond *d)
{
	tree lhs = gimple_call_lhs(slow);
	basic_block bb = gimple_bb(slow);
	if (!lhs || TREE_CODE(lhs) != SSA_NAME || !single_pred_p(bb) || !single_succ_p(bb))
		return false;
	for (gimple_stmt_iterator g = gsi_start_nondebug_bb(bb); !gsi_end_p(g); gsi_next_nondebug(&g))
		if (gsi_stmt(g) != slow)
			return false;
	edge in = single_pred_edge(bb), out = single_succ_edge(bb);
	basic_block cb = in->src;
	d->cond = dyn_cast<gcond *>(last_stmt(cb));
	if (!d->cond || !(in->flags & EDGE_TRUE_VALUE) || gimple_cond_code(d->cond) != code ||
	    EDGE_COUNT(cb->succs) != 2)
		return false;
	d->fall = EDGE_SUCC(cb, 0) == in ? EDGE_SUCC(cb, 1) : EDGE_SUCC(cb, 0);
	if (d->fall->dest != out->dest)
		return false;
	d->phi = NULL;
	for (gphi_iterator p = gsi_start_phis(out->dest); !gsi_end_p(p); gsi_next(&p)) {
		gphi *x = p.phi();
		if (virtual_operand_p(gimple_phi_result(x)))
			continue;
		if (PHI_ARG_DEF_FROM_EDGE(x, out) != lhs || d->phi)
			return false;
		d->phi = x;
	}
	if (!d->phi)
		return false;
	d->fast = PHI_ARG_DEF_FROM_EDGE(d->phi, d->fall);
	return TREE_CODE(d->fast) == SSA_NAME;
}

/* The asm TEXT with outputs OUT (the first the check's result) and
 * inputs IN takes D's place: before the condition, which then never
 * holds (the CFG cleanup removes the slow block), its result where the
 * fast path's value joined */
void replace_diamond(const struct diamond &d, gcall *slow, const char *text, vec<tree, va_gc> *in,
		     vec<tree, va_gc> *out)
{
	tree r = TREE_VALUE((*out)[0]);
	gasm *a = gimple_build_asm_vec(text, in, out, check_clobbers(), NULL);
	gimple_asm_set_volatile(a, true);
	gimple_set_location(a, gimple_location(slow));
	gimple_set_block(a, gimple_block(slow));
	SSA_NAME_DEF_STMT(r) = a;
	gimple_stmt_iterator g = gsi_for_stmt(d.cond);
	gsi_insert_before(&g, a, GSI_SAME_STMT);
	SET_PHI_ARG_DEF(d.phi, d.fall->dest_idx, r);
	gimple_cond_make_false(d.cond);
	update_stmt(d.cond);
}

/* Whether AT[0..2] are an increment as inline_path.cc makes them: a load
 * of the word at *BASE + *OFF (out), one added (or DELTA), the store;
 * USES: of the new value (2 where a condition reads it too) */
bool increment(gimple *const *at, tree *base, HOST_WIDE_INT *off, int delta = 1, unsigned uses = 1)
{
	if (!at[0] || !at[1] || !at[2] || !gimple_assign_single_p(at[0]))
		return false;
	tree m = gimple_assign_rhs1(at[0]), n = gimple_assign_lhs(at[0]);
	if (TREE_CODE(m) != MEM_REF || TREE_CODE(n) != SSA_NAME || !has_single_use(n) ||
	    TREE_CODE(TREE_OPERAND(m, 0)) != SSA_NAME || !is_gimple_assign(at[1]) ||
	    gimple_assign_rhs_code(at[1]) != PLUS_EXPR || gimple_assign_rhs1(at[1]) != n ||
	    TREE_CODE(gimple_assign_rhs2(at[1])) != INTEGER_CST ||
	    !wi::eq_p(wi::to_wide(gimple_assign_rhs2(at[1])),
		      wi::shwi(delta, TYPE_PRECISION(TREE_TYPE(n)))) ||
	    num_imm_uses(gimple_assign_lhs(at[1])) != uses || !gimple_assign_single_p(at[2]) ||
	    !operand_equal_p(gimple_assign_lhs(at[2]), m, 0) ||
	    gimple_assign_rhs1(at[2]) != gimple_assign_lhs(at[1]))
		return false;
	*base = TREE_OPERAND(m, 0);
	*off = mem_ref_offset(m).force_shwi().to_constant();
	return true;
}

/* Whether S, which reads or writes the word at Q + OFF, is in one of the
 * increments a quiet body's pending exits are (+1 or -1, its three
 * statements in a row): the increment's first statement, else NULL */
gimple *pending_at(gimple *s, tree q, HOST_WIDE_INT off)
{
	gimple *at[3] = {};
	gimple_stmt_iterator g = gsi_for_stmt(s);
	bool load = TREE_CODE(gimple_assign_lhs(s)) == SSA_NAME;
	for (int i = 0; i < 3 && !gsi_end_p(g); i++) {
		at[load ? i : 2 - i] = gsi_stmt(g);
		if (load)
			gsi_next_nondebug(&g);
		else
			gsi_prev_nondebug(&g);
	}
	tree b;
	HOST_WIDE_INT o;
	for (int d = -1; d <= 1; d += 2)
		if (increment(at, &b, &o, d) && b == q && o == off)
			return at[0];
	return NULL;
}

/* Whether V's only uses are stores to dp_cur */
bool stored_to_cur(tree v)
{
	imm_use_iterator it;
	gimple *use;
	if (TREE_CODE(v) != SSA_NAME)
		return false;
	FOR_EACH_IMM_USE_STMT(use, it, v)
		if (!gimple_assign_single_p(use) || gimple_assign_lhs(use) != dp_roots[DPR_CUR] ||
		    gimple_assign_rhs1(use) != v)
			return false;
	return true;
}

/* Whether no code reaches the exits of a quiet body's csd, the word at
 * P + EXITS, but the increments of its pending exits (its exit counted
 * before the body is in its pd's counters: another word), which are
 * added to *PENDING (their first statements): every
 * other use of P is a load or store of another of its words (the callee's
 * pd, which the body's own sites read; a loop's count), or makes a
 * pointer at a constant offset from it (the body's me) whose uses are so
 * too, at most DEPTH deep, or (with PENDING) is stored in dp_cur while a
 * part GCC split off the body's function runs (dp_v2_quiet_part: code of
 * another function, whose csds are its own) */
bool exits_alone(tree p, HOST_WIDE_INT exits, vec<gimple *> *pending, int depth = 2)
{
	imm_use_iterator it;
	gimple *use;
	FOR_EACH_IMM_USE_STMT(use, it, p) {
		tree tb;
		HOST_WIDE_INT to;
		if (dp_tick_asm_p(use, &tb, &to) && tb == p && to != exits)
			continue;   /* (a loop's count, ticks.cc's asm) */
		if (!is_gimple_assign(use))
			return false;
		tree l = gimple_assign_lhs(use), r = gimple_assign_rhs1(use);
		if (gimple_assign_rhs_code(use) == POINTER_PLUS_EXPR && r == p && depth > 0 &&
		    TREE_CODE(l) == SSA_NAME && TREE_CODE(gimple_assign_rhs2(use)) == INTEGER_CST) {
			/* (sizetype: -1 is all ones) */
			HOST_WIDE_INT d = (HOST_WIDE_INT)TREE_INT_CST_LOW(gimple_assign_rhs2(use));
			if (!exits_alone(l, exits - d, pending, depth - 1))
				return false;
			continue;
		}
		if (pending && CONVERT_EXPR_CODE_P(gimple_assign_rhs_code(use)) && r == p && stored_to_cur(l))
			continue;   /* (the body's me in dp_cur while a part of it runs) */
		if (!gimple_assign_single_p(use))
			return false;
		tree m = TREE_CODE(l) == MEM_REF && TREE_OPERAND(l, 0) == p ? l : r;
		if (TREE_CODE(m) != MEM_REF || TREE_OPERAND(m, 0) != p || gimple_assign_rhs1(use) == p)
			return false;
		if (!maybe_eq(mem_ref_offset(m), exits))
			continue;
		gimple *first = pending ? pending_at(use, p, exits) : NULL;
		if (!first)
			return false;
		if (!pending->contains(first))
			pending->safe_push(first);
	}
	return true;
}

/* The increment of a pending exit at FIRST (pending_at) as one asm
 * (DP_ABI_PENDING_EXIT), which does not name the word it counts: only
 * when every other code that counts it is such an asm, or the site's */
const char *pending_text(void)
{
	static const char *const names[] = { "[p]", "[d]", "[off]" };
	static char *text;
	return numbered(pending_named, names, 3, &text);
}

void pending_asm(gimple *first)
{
	gimple *at[3] = { first };
	gimple_stmt_iterator g = gsi_for_stmt(first);
	for (int i = 1; i < 3; i++) {
		gsi_next_nondebug(&g);
		at[i] = gsi_stmt(g);
	}
	tree m = gimple_assign_rhs1(first);
	vec<tree, va_gc> *in = NULL;
	add_op(&in, "r", TREE_OPERAND(m, 0));
	add_op(&in, "i", fold_convert(long_integer_type_node, gimple_assign_rhs2(at[1])));
	add_op(&in, "i", build_int_cst(long_integer_type_node, mem_ref_offset(m).force_shwi()));
	gasm *a = gimple_build_asm_vec(pending_text(), in, NULL, NULL, NULL);
	gimple_asm_set_volatile(a, true);
	gimple_set_location(a, gimple_location(at[2]));
	gimple_set_block(a, gimple_block(at[2]));
	g = gsi_for_stmt(first);
	gsi_insert_before(&g, a, GSI_SAME_STMT);
	for (int i = 2; i >= 0; i--)
		dp_remove_stmt(at[i]);
}

bool is_pending_asm(gimple *s)
{
	gasm *a = dyn_cast<gasm *>(s);
	return a && gimple_asm_ninputs(a) == 3 && gimple_asm_noutputs(a) == 0 &&
	       !strcmp(gimple_asm_string(a), pending_text());
}

/* If ST stores to dp_cur (add_set_cur: directly, or through its address
 * as a volatile store, around a call of a function GCC knows), the value
 * stored, else NULL_TREE */
tree cur_store(gimple *st)
{
	if (!st || !gimple_assign_single_p(st))
		return NULL_TREE;
	tree l = gimple_assign_lhs(st);
	if (l == dp_roots[DPR_CUR])
		return gimple_assign_rhs1(st);
	if (TREE_CODE(l) != MEM_REF || !TREE_THIS_VOLATILE(l) || TREE_CODE(TREE_OPERAND(l, 0)) != SSA_NAME ||
	    !integer_zerop(TREE_OPERAND(l, 1)))
		return NULL_TREE;
	gimple *a = SSA_NAME_DEF_STMT(TREE_OPERAND(l, 0));
	tree r = a && gimple_assign_single_p(a) ? gimple_assign_rhs1(a) : NULL_TREE;
	return r && TREE_CODE(r) == ADDR_EXPR && TREE_OPERAND(r, 0) == dp_roots[DPR_CUR] ? gimple_assign_rhs1(st)
											  : NULL_TREE;
}

/*
 * SLOW, a direct site's dp_abi_count_slow (tu, SITE, 0, pd) behind `if
 * (n == 0)`, n one more call in the site's calls word in pd (three
 * statements), then the load of its slot (fast, which the PHI after
 * joins with SLOW's result: the site's csd): all of it as one asm
 * (DP_ABI_COUNT...), with what inline_path.cc puts after it when it is
 * there: a quiet body's exit in the exits word (three statements), the
 * store of the csd to dp_cur. The asm loads the slot only where the csd
 * is used. A quiet body's pending exits (the word at csd + 39, which now
 * only they touch) become asms too where exits_alone finds them all.
 * false if the shape is not the one inline_path.cc makes.
 */
bool merge_count(gcall *slow, tree tu)
{
	tree pd = gimple_call_arg(slow, 3), ta = gimple_call_arg(slow, 0);
	struct diamond d;
	if (!integer_zerop(gimple_call_arg(slow, 2)) || !dp_is_tu_addr(ta, tu) ||
	    !tree_fits_uhwi_p(gimple_call_arg(slow, 1)) || TREE_CODE(pd) != SSA_NAME ||
	    !find_diamond(slow, EQ_EXPR, &d) || !integer_zerop(gimple_cond_rhs(d.cond)))
		return false;
	/* before the condition: the increment of the calls word, the load */
	gimple *at[4] = {};
	gimple_stmt_iterator g = gsi_for_stmt(d.cond);
	for (int i = 3; i >= 0; i--) {
		gsi_prev_nondebug(&g);
		if (gsi_end_p(g))
			return false;
		at[i] = gsi_stmt(g);
	}
	tree base;
	HOST_WIDE_INT cnt;
	gimple *load = at[3];
	if (!increment(at, &base, &cnt, 1, 2) || base != pd || cnt >= 0 ||
	    gimple_cond_lhs(d.cond) != gimple_assign_lhs(at[1]) ||
	    !gimple_assign_single_p(load) || gimple_assign_lhs(load) != d.fast ||
	    TREE_CODE(gimple_assign_rhs1(load)) != MEM_REF || TREE_OPERAND(gimple_assign_rhs1(load), 0) != pd)
		return false;
	tree csd = gimple_phi_result(d.phi);
	/* after the join: the exit's increment, the store to dp_cur */
	auto_vec<gimple *, 6> after;
	gimple_stmt_iterator j = gsi_start_nondebug_after_labels_bb(d.fall->dest);
	gimple *nx[6] = {};
	for (int i = 0; i < 6 && !gsi_end_p(j); i++, gsi_next_nondebug(&j))
		nx[i] = gsi_stmt(j);
	int k = 0;
	bool full = dp_opt.site_asm > 1, exit = false, enter = false;
	HOST_WIDE_INT ex;
	if (full && increment(nx, &base, &ex) && base == pd && ex == cnt + 8) {
		exit = true;
		after.safe_push(nx[0]);
		after.safe_push(nx[1]);
		after.safe_push(nx[2]);
		k = 3;
	}
	if (full && !exit && nx[k] && is_gimple_assign(nx[k]) && CONVERT_EXPR_CODE_P(gimple_assign_rhs_code(nx[k])) &&
	    gimple_assign_rhs1(nx[k]) == csd) {
		for (int i = k + 1; i < k + 3 && i < 6; i++)
			if (cur_store(nx[i]) == gimple_assign_lhs(nx[k])) {
				after.safe_push(nx[i]);     /* (the cast goes as dead code) */
				enter = true;
				break;
			}
	}
	/* the quiet body's pending exits, where nothing else reaches them */
	auto_vec<gimple *> pending;
	if (exit && !exits_alone(csd, DP_CSD_EXITS - 1, &pending))
		pending.truncate(0);
	/* the csd: none (its PHI unused), given (_CHECK), or loaded */
	int has = has_zero_uses(csd) && !enter ? 0 : full ? 2 : 1;
	static const char *const names[][8] = {
		{ "[cur]", "[pd]", "[cnt]", "[site]", "[tu]", NULL, NULL, NULL },
		{ "[csd]", "[slot]", "[cur]", NULL, "[pd]", "[cnt]", "[site]", "[tu]" },
		{ "[csd]", "[slot]", "[cur]", "[pd]", "[cnt]", "[site]", "[tu]", NULL },
	};
	static const char *const named[] = { count_named, count_exit_named, count_check_named, count_check_named,
					     count_load_named, count_load_exit_named, count_enter_named };
	int form = enter ? 6 : 2 * has + exit;
	static char *text[7];
	vec<tree, va_gc> *in = NULL, *out = NULL;
	if (has) {
		add_op(&out, has == 1 ? "=r" : "=&r", make_ssa_name(TREE_TYPE(d.fast)));
		add_op(&out, "+m", unshare_expr(gimple_assign_rhs1(load)));     /* the slot */
	}
	/* dp_cur read (written too, with the store), for the order of the
	 * stores before it: a restore of dp_cur followed by the next site's
	 * tag would be a dead store to GCC, and a clock tick between them
	 * would go to the callee that returned (and the activation's me need
	 * not outlive its calls: libprof's split.c finds it on the stack) */
	add_op(&out, "+m", dp_roots[DPR_CUR]);
	if (has == 1)
		add_op(&in, "0", d.fast);
	add_op(&in, "r", pd);
	add_op(&in, "i", build_int_cst(long_integer_type_node, cnt));
	add_op(&in, "i", gimple_call_arg(slow, 1));
	add_op(&in, "i", ta);
	for (gimple *x : after)
		dp_remove_stmt(x);
	for (gimple *x : pending)
		pending_asm(x);
	const char *t = numbered(named[form], names[has], 8, &text[form]);
	if (has) {
		replace_diamond(d, slow, t, in, out);
	} else {
		/* no csd: the asm before the condition, whose slow block
		 * goes, and the PHI, which nothing uses */
		gasm *a = gimple_build_asm_vec(t, in, out, check_clobbers(), NULL);
		gimple_asm_set_volatile(a, true);
		gimple_set_location(a, gimple_location(slow));
		gimple_set_block(a, gimple_block(slow));
		gimple_stmt_iterator c = gsi_for_stmt(d.cond);
		gsi_insert_before(&c, a, GSI_SAME_STMT);
		gphi_iterator pi = gsi_for_phi(d.phi);
		remove_phi_node(&pi, true);
		gimple_cond_make_false(d.cond);
		update_stmt(d.cond);
	}
	for (int i = 2; i >= 0; i--)
		dp_remove_stmt(at[i]);
	if (has != 1)
		dp_remove_stmt(load);       /* (the asm's is the slot's load, or none is) */
	return true;
}

/* STORE, dp_cur = (uintptr) me, the restore after a site's call as
 * inline_path.cc's post_seq makes it, then the increments of the exits of
 * the quiet bodies the site is in (the word at p + 40: GCC's to see, or
 * pending_asm's asms, stepped over) and of the site's csd (the word at
 * csd + 39: tagged), loaded again from the pd's slot or the one the site
 * had: the restore and the site's increment as one asm; where no such
 * increment follows, the store alone (any store of a value cast to
 * dp_cur: a tag no site's asm took too), unless it is volatile. false
 * if STORE is neither. */
bool merge_restore(gimple *store)
{
	tree u = cur_store(store);
	gimple *cast = u && TREE_CODE(u) == SSA_NAME ? SSA_NAME_DEF_STMT(u) : NULL;
	if (!cast || !is_gimple_assign(cast) || !CONVERT_EXPR_CODE_P(gimple_assign_rhs_code(cast)))
		return false;
	enum { N = 3 * 8 + 4 };
	gimple *at[N + 3] = {};
	gimple_stmt_iterator g = gsi_for_stmt(store);
	gsi_next_nondebug(&g);
	for (int i = 0; i < N && !gsi_end_p(g); i++, gsi_next_nondebug(&g))
		at[i] = gsi_stmt(g);
	gimple *load = NULL, **inc = NULL;
	tree csd = NULL_TREE, base;
	HOST_WIDE_INT off, counter = 0;
	for (int k = 0, step = 3; k + 3 <= N && at[k] && !inc; k += step, step = 3) {
		if (is_pending_asm(at[k])) {
			step = 1;   /* (a quiet body's pending exit, pending_asm's) */
			continue;
		}
		/* the reload: a load of a pointer whose only uses are the
		 * increment's load and store */
		tree l = gimple_assign_single_p(at[k]) ? gimple_assign_lhs(at[k]) : NULL_TREE;
		if (l && TREE_CODE(l) == SSA_NAME && POINTER_TYPE_P(TREE_TYPE(l)) &&
		    TREE_CODE(gimple_assign_rhs1(at[k])) == MEM_REF && num_imm_uses(l) == 2 &&
		    increment(at + k + 1, &base, &off) && base == l && off == DP_CSD_EXITS - 1) {
			load = at[k];
			inc = at + k + 1;
			csd = l;
		} else if (increment(at + k, &base, &off) && (off == DP_CSD_EXITS - 1 || off < 0)) {
			inc = at + k;       /* (off < 0: a direct site's exits word in its pd) */
			csd = base;
			counter = off < 0 ? off : 0;
		} else if (!increment(at + k, &base, &off) || off != DP_CSD_EXITS) {
			break;      /* (not a quiet body's pending exit) */
		}
	}
	/* the restore alone (DP_ABI_RESTORE) where no exit follows it, but
	 * not after a call of a function GCC knows (its volatile store): the
	 * asm kept GCC from trimming a memset before it (gawk's
	 * r_make_number: rep stos instead of four stores, +0.6% of gawk's
	 * instructions), even as "=m" */
	if (!inc && gimple_assign_lhs(store) != dp_roots[DPR_CUR])
		return false;
	int form = !inc ? 2 : load ? 1 : counter ? 3 : 0;
	static const char *const names[4][4] = { { "[cur]", "[me]", "[csd]", NULL },
						  { "[csd]", "[cur]", "[me]", "[slot]" },
						  { "[cur]", "[me]", NULL, NULL },
						  { "[cur]", "[me]", "[pd]", "[ex]" } };
	static const char *const named[] = { restore_named, restore_load_named, restore_only_named,
					     restore_count_named };
	static char *text[4];
	vec<tree, va_gc> *in = NULL, *out = NULL;
	if (load)
		add_op(&out, "=&r", make_ssa_name(TREE_TYPE(csd)));
	add_op(&out, "+m", dp_roots[DPR_CUR]);
	add_op(&in, "r", gimple_assign_rhs1(cast));
	if (inc)
		add_op(&in, load ? "m" : "r", load ? unshare_expr(gimple_assign_rhs1(load)) : csd);
	if (counter)
		add_op(&in, "i", build_int_cst(long_integer_type_node, counter));
	gasm *a = gimple_build_asm_vec(numbered(named[form], names[form], 4, &text[form]), in, out, NULL, NULL);
	gimple_asm_set_volatile(a, true);
	gimple_set_location(a, gimple_location(store));
	gimple_set_block(a, gimple_block(store));
	if (load)
		SSA_NAME_DEF_STMT(TREE_VALUE((*out)[0])) = a;
	gimple_stmt_iterator s = gsi_for_stmt(store);
	gsi_insert_before(&s, a, GSI_SAME_STMT);
	for (int i = 2; inc && i >= 0; i--)
		dp_remove_stmt(inc[i]);
	if (load)
		dp_remove_stmt(load);
	dp_remove_stmt(store);          /* (the cast goes as dead code) */
	return true;
}

/* SLOW, a prologue's dp_abi_enter_slow (tu, PS, c) behind `if (ps !=
 * &tu->ps[PS])`, ps loaded from memory (the word at c + 55, or for a
 * split part's dp_abi_resume, the pd's ps): the check as one asm, which
 * compares with that memory itself. */
bool merge_prologue(gcall *slow, tree tu, bool resume)
{
	tree ta = gimple_call_arg(slow, 0), c = gimple_call_arg(slow, 2);
	struct diamond d;
	if (!dp_is_tu_addr(ta, tu) || !tree_fits_uhwi_p(gimple_call_arg(slow, 1)) || TREE_CODE(c) != SSA_NAME ||
	    !find_diamond(slow, NE_EXPR, &d) || TREE_CODE(gimple_cond_lhs(d.cond)) != SSA_NAME)
		return false;
	gimple *load = dp_def_of(gimple_cond_lhs(d.cond));
	if (!load || !gimple_assign_single_p(load) || TREE_CODE(gimple_assign_rhs1(load)) != MEM_REF)
		return false;
	static const char *const names[] = { "[me]", NULL, NULL, "[c]", "[ps]", "[tu]", "[exp]", "[pps]" };
	static char *text[2];
	vec<tree, va_gc> *in = NULL, *out = NULL;
	add_op(&out, "=r", make_ssa_name(TREE_TYPE(d.fast)));
	add_op(&out, "+m", dp_roots[DPR_CUR]);      /* the slow path sets it */
	add_op(&in, "0", d.fast);
	add_op(&in, "r", c);
	add_op(&in, "i", gimple_call_arg(slow, 1));
	add_op(&in, "i", ta);
	add_op(&in, "r", gimple_cond_rhs(d.cond));
	add_op(&in, "rm", unshare_expr(gimple_assign_rhs1(load)));
	replace_diamond(d, slow, numbered(resume ? resume_named : enter_named, names, ARRAY_SIZE(names),
					  &text[resume]), in, out);
	return true;
}

const pass_data site_asm_pass_data = {
	GIMPLE_PASS, "deepprof_site_asm", OPTGROUP_NONE, TV_NONE,
	PROP_cfg | PROP_ssa, 0, 0, 0, 0
};

class site_asm_pass : public gimple_opt_pass {
public:
	site_asm_pass(gcc::context *ctxt) : gimple_opt_pass(site_asm_pass_data, ctxt) {}
	bool gate(function *) override
	{
		return asm_ok() && dp_opt.site_asm && dp_roots[DPR_TU_DECL] && dp_roots[DPR_CUR];
	}
	unsigned int execute(function *fun) override;
};

unsigned int site_asm_pass::execute(function *fun)
{
	fn_x87 = uses_x87(fun);
	auto_vec<gcall *> slow;
	auto_vec<gimple *> restores;
	basic_block bb;
	FOR_EACH_BB_FN(bb, fun)
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
			gimple *st = gsi_stmt(g);
			if (dp_opt.site_asm > 1 && cur_store(st))
				restores.safe_push(st);
			gcall *c = dyn_cast<gcall *>(st);
			tree fn = c ? gimple_call_fndecl(c) : NULL_TREE;
			if (fn && ((fn == dp_roots[DPR_COUNT_SLOW] && gimple_call_num_args(c) == 4) ||
				   ((fn == dp_roots[DPR_ENTER_SLOW] || fn == dp_roots[DPR_RESUME]) &&
				    gimple_call_num_args(c) == 3)))
				slow.safe_push(c);
		}
	/* The asms hide the stores to dp_cur they take from GCC: first, each
	 * read of dp_cur that reads what such a store wrote (the store's
	 * memory state its own: an inlined body's prologue or its loop's
	 * tick right after a site's tag, a continuation after a restore)
	 * takes the value itself, as GCC's passes would have */
	auto_vec<gimple *> reads;
	for (gimple *st : restores) {
		tree vdef = gimple_vdef(st), val = gimple_assign_rhs1(st);
		imm_use_iterator it;
		gimple *use;
		reads.truncate(0);
		if (vdef)
			FOR_EACH_IMM_USE_STMT(use, it, vdef)
				if (gimple_assign_single_p(use) && gimple_assign_rhs1(use) == dp_roots[DPR_CUR] &&
				    useless_type_conversion_p(TREE_TYPE(gimple_assign_lhs(use)), TREE_TYPE(val)))
					reads.safe_push(use);
		for (gimple *r : reads) {
			gimple_assign_set_rhs1(r, val);
			update_stmt(r);
		}
	}
	bool any = false;
	for (gcall *c : slow) {
		tree fn = gimple_call_fndecl(c);
		if (fn == dp_roots[DPR_COUNT_SLOW])
			any |= merge_count(c, dp_roots[DPR_TU_DECL]);
		else
			any |= merge_prologue(c, dp_roots[DPR_TU_DECL], fn == dp_roots[DPR_RESUME]);
	}
	for (gimple *st : restores)
		if (gimple_bb(st))      /* (not a site's store merge_count took) */
			any |= merge_restore(st);
	if (!any)
		return 0;
	mark_virtual_operands_for_renaming(fun);
	return TODO_cleanup_cfg | TODO_update_ssa_only_virtuals;
}

} /* namespace */

opt_pass *dp_make_slow_regs_pass(gcc::context *ctxt)
{
	return new slow_regs_pass(ctxt);
}

opt_pass *dp_make_site_asm_pass(gcc::context *ctxt)
{
	return new site_asm_pass(ctxt);
}
