/*
 * slow_regs.cc — ABI v2 on x86-64: the inline path's slow calls become
 * calls that keep the caller's registers (schemas/plugin-abi.md, "Slow
 * paths that keep registers").
 *
 * A site's slow path (dp_abi_call_slow) and a prologue's (dp_abi_enter_slow,
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
 * result: deepprof-abi.h). The asm clobbers the flags, the vector and x87
 * registers (the runtime's C code and libc may use them) and memory, as
 * the call did; values in the general registers stay there. It moves the
 * stack pointer past the red zone first: GCC does not see a call, so a
 * function with no other may keep data below its stack pointer. (An
 * unwinder stopped inside a slow path then reads the caller's frame 160
 * bytes off where its CFA is the stack pointer: the runtime never unwinds
 * there.)
 *
 * Only when optimising (at -O0 every value lives on the stack anyway),
 * for x86-64's LP64 ABI and not in the large code models;
 * slow-calls=plain keeps the calls.
 * Part of deepprof's compiler plugins. MIT licence.
 */
#include "plugin.h"
#include "stringpool.h"

namespace {

/* A slow call's hook, the entry point that keeps registers, its arguments */
struct slow_kind {
	enum dp_root root;
	const char *entry;
	unsigned nargs;
};
const struct slow_kind kinds[] = {
	{ DPR_CALL_SLOW, "dp_abi_call_slow_regs", 4 },
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
	for (const char *r : fixed)
		add_clobber(&v, r);
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

class slow_regs_pass : public gimple_opt_pass {
public:
	slow_regs_pass(gcc::context *ctxt) : gimple_opt_pass(slow_regs_pass_data, ctxt) {}
	bool gate(function *) override
	{
		/* (the large code models: the GOT may be out of a 32-bit
		 * reach of the code) */
		return dp_opt.abi == 2 && dp_opt.slow_regs && optimize && TARGET_64BIT && !TARGET_X32 &&
		       ix86_cmodel != CM_LARGE && ix86_cmodel != CM_LARGE_PIC && !in_lto_p && !seen_error();
	}
	unsigned int execute(function *fun) override;
};

unsigned int slow_regs_pass::execute(function *fun)
{
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

} /* namespace */

opt_pass *dp_make_slow_regs_pass(gcc::context *ctxt)
{
	return new slow_regs_pass(ctxt);
}
