/*
 * surviving.cc — -fplugin-arg-deepprof-calls=surviving: a pass after
 * inlining that removes the hooks of the calls GCC inlined, so that only the
 * calls that survive inlining are counted. Part of deepprof. MIT licence.
 */
#include "plugin.h"

/* By name: under -flto this runs in ltrans, where the hook decls are not
 * the trees tables.cc made. */
enum dp_hook_kind dp_hook_of(gimple *s)
{
	if (!is_gimple_call(s))
		return DPH_NONE;
	tree fn = gimple_call_fndecl(s);
	if (!fn || !DECL_NAME(fn))
		return DPH_NONE;
	const char *n = IDENTIFIER_POINTER(DECL_NAME(fn));
	if (strncmp(n, "dp_abi_", 7))
		return DPH_NONE;
	n += 7;
	return !strcmp(n, "enter") ? DPH_ENTER : !strcmp(n, "call") ? DPH_CALL :
	       !strcmp(n, "return") ? DPH_RETURN : !strcmp(n, "backedge") ? DPH_BACKEDGE :
	       !strcmp(n, "land") ? DPH_LAND : DPH_OTHER;
}

static bool real_call(gimple *s)
{
	enum dp_hook_kind k = dp_hook_of(s);
	return is_gimple_call(s) && !gimple_call_internal_p(s) && k != DPH_ENTER && k != DPH_CALL &&
	       k != DPH_RETURN && k != DPH_BACKEDGE && k != DPH_LAND;
}

/* A statement copied from an inlined body sits in (a block nested in) the
 * block the inliner made for that call. */
bool dp_from_inlined_body(gimple *s)
{
	for (tree b = gimple_block(s); b && TREE_CODE(b) == BLOCK; b = BLOCK_SUPERCONTEXT(b))
		if (inlined_function_outer_scope_p(b))
			return true;
	return false;
}

/* A sanitizer's report (__ubsan_handle_*, __asan_report_*...): the
 * sanitizers check a call's arguments between its call hook and the call. */
static bool sanitizer_call(gimple *s)
{
	tree fn = is_gimple_call(s) ? gimple_call_fndecl(s) : NULL_TREE;
	const char *n = fn && DECL_NAME(fn) ? IDENTIFIER_POINTER(DECL_NAME(fn)) : "";
	return strstr(n, "__ubsan_") || strstr(n, "__asan_") || strstr(n, "__tsan_");
}

static bool sanitizer_block(basic_block bb)
{
	for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g))
		if (sanitizer_call(gsi_stmt(g)))
			return true;
	return false;
}

gimple *dp_next_call(gimple *h)
{
	basic_block bb = gimple_bb(h);
	gimple_stmt_iterator g = gsi_for_stmt(h);
	gsi_next(&g);
	for (int hops = 0; hops < 8; hops++) {
		for (; !gsi_end_p(g); gsi_next(&g)) {
			gimple *s = gsi_stmt(g);
			if (is_gimple_call(s) && !gimple_call_internal_p(s) && !sanitizer_call(s))
				return s;
		}
		basic_block next = NULL;
		if (single_succ_p(bb) && !(single_succ_edge(bb)->flags & (EDGE_ABNORMAL | EDGE_EH))) {
			next = single_succ(bb);
		} else if (EDGE_COUNT(bb->succs) == 2) {
			basic_block a = EDGE_SUCC(bb, 0)->dest, b = EDGE_SUCC(bb, 1)->dest;
			if (sanitizer_block(a) != sanitizer_block(b))
				next = sanitizer_block(a) ? b : a;
		}
		if (!next || next == EXIT_BLOCK_PTR_FOR_FN(cfun))
			return NULL;
		bb = next;
		g = gsi_start_bb(bb);
	}
	return NULL;
}

/* The call hook of a site that survived is followed by the call itself
 * before any other call (but _exit's and exec's notices, dp_next_call's
 * sanitizer checks). */
static bool call_survived(gimple_stmt_iterator g)
{
	gimple *c = dp_next_call(gsi_stmt(g));
	while (c && dp_hook_of(c) == DPH_OTHER)
		c = dp_next_call(c);
	return c && real_call(c);
}

/* The return hook of a site that survived follows the call, in its block
 * or, when the call ended its block, at the start of the block after it. */
static bool return_survived(gimple_stmt_iterator g)
{
	basic_block bb = gsi_bb(g);
	for (gsi_prev(&g); !gsi_end_p(g); gsi_prev(&g)) {
		gimple *s = gsi_stmt(g);
		if (is_gimple_call(s))
			return real_call(s);
	}
	if (!single_pred_p(bb))
		return false;
	gimple *last = last_stmt(single_pred(bb));
	return last && real_call(last);
}

namespace {

const pass_data surviving_pass_data = {
	GIMPLE_PASS, "deepprof_surviving", OPTGROUP_NONE, TV_NONE,
	PROP_cfg | PROP_ssa, 0, 0, 0, 0
};

class surviving_pass : public gimple_opt_pass {
public:
	surviving_pass(gcc::context *ctxt) : gimple_opt_pass(surviving_pass_data, ctxt) {}
	bool gate(function *) override { return dp_opt.surviving && !seen_error(); }
	unsigned int execute(function *fun) override;
};

unsigned int surviving_pass::execute(function *fun)
{
	auto_vec<gimple *> dead;
	basic_block bb;
	FOR_EACH_BB_FN(bb, fun)
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
			gimple *s = gsi_stmt(g);
			switch (dp_hook_of(s)) {
			case DPH_ENTER:
				if (dp_from_inlined_body(s))
					dead.safe_push(s);
				break;
			case DPH_CALL:
				if (!call_survived(g))
					dead.safe_push(s);
				break;
			case DPH_RETURN:
				if (!return_survived(g))
					dead.safe_push(s);
				break;
			default:
				break;
			}
		}
	for (unsigned i = 0; i < dead.length(); i++)
		dp_remove_stmt(dead[i]);
	return 0;
}

} /* namespace */

opt_pass *dp_make_surviving_pass(gcc::context *ctxt)
{
	return new surviving_pass(ctxt);
}
