/*
 * locations.cc — keeps the location of a call written as another call's
 * argument. The gimplifier gives each argument its call's location, so in
 * f(g(x)) both calls would share f's file:line:col; wrapping g(x) in a
 * conversion to its own type (which gimplification strips) makes the
 * wrapper take f's location instead of g. Part of deepprof. MIT licence.
 */
#include "plugin.h"

static bool builtin_spelled(tree call)
{
	tree fn = get_callee_fndecl(call);
	return fn && dp_builtin_op(fn);
}

static tree wrap_nested(tree *tp, int *walk_subtrees, void *)
{
	tree t = *tp;
	if (TYPE_P(t)) {
		*walk_subtrees = 0;
		return NULL_TREE;
	}
	if (TREE_CODE(t) != CALL_EXPR || CALL_EXPR_FN(t) == NULL_TREE || builtin_spelled(t))
		return NULL_TREE;
	for (int i = 0; i < call_expr_nargs(t); i++) {
		tree a = CALL_EXPR_ARG(t, i);
		if (TREE_CODE(a) == CALL_EXPR && EXPR_HAS_LOCATION(a) &&
		    EXPR_LOCATION(a) != EXPR_LOCATION(t) && !VOID_TYPE_P(TREE_TYPE(a)) &&
		    is_gimple_reg_type(TREE_TYPE(a)))
			CALL_EXPR_ARG(t, i) = build1_loc(EXPR_LOCATION(a), NOP_EXPR, TREE_TYPE(a), a);
	}
	return NULL_TREE;
}

/* PLUGIN_PRE_GENERICIZE: the C front end has finished the function. */
void dp_keep_call_locations(void *gcc_data, void *)
{
	tree fndecl = (tree)gcc_data;
	if (!lang_GNU_C() || !fndecl || TREE_CODE(fndecl) != FUNCTION_DECL ||
	    !DECL_SAVED_TREE(fndecl) || dp_skip_function(fndecl))
		return;
	walk_tree_without_duplicates(&DECL_SAVED_TREE(fndecl), wrap_nested, NULL);
}
