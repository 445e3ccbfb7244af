/*
 * escapes.cc — which functions of the TU code other than its own direct
 * calls may enter: public ones, constructors and destructors, and those
 * whose address is taken (in a function body or a variable's initialiser).
 * ABI v2 gives such a leaf a prologue (a callback, a signal handler, an
 * atexit function counts itself); the other leaves are counted by their
 * call sites. And, under ABI v2, no instrumented function is const or pure.
 * Part of deepprof. MIT licence.
 */
#include "plugin.h"

/* DECL_UIDs of the functions whose address is taken; small, searched linearly. */
static int *taken;
static unsigned n_taken, cap_taken;
static bool vars_scanned;

static void note(tree fn)
{
	int uid = (int)DECL_UID(fn);
	for (unsigned i = 0; i < n_taken; i++)
		if (taken[i] == uid)
			return;
	if (n_taken == cap_taken) {
		cap_taken = cap_taken ? 2 * cap_taken : 64;
		taken = (int *)xrealloc(taken, cap_taken * sizeof *taken);
	}
	taken[n_taken++] = uid;
}

/*
 * An instrumented function writes dp_cur in its prologue, so it is neither
 * const nor pure any more: a call to it declared so could be moved across
 * the stores of its call site, and its prologue would not see them.
 */
static int *unconst;             /* DECL_UID, ECF_CONST or ECF_PURE; pairs */
static unsigned n_unconst, cap_unconst;

static void not_const(tree fn)
{
	if (fndecl_built_in_p(fn) || dp_skip_function(fn))
		return;
	int ecf = TREE_READONLY(fn) ? ECF_CONST : DECL_PURE_P(fn) ? ECF_PURE : 0;
	if (!ecf)
		return;
	if (n_unconst == cap_unconst) {
		cap_unconst = cap_unconst ? 2 * cap_unconst : 32;
		unconst = (int *)xrealloc(unconst, 2 * cap_unconst * sizeof *unconst);
	}
	unconst[2 * n_unconst] = (int)DECL_UID(fn);
	unconst[2 * n_unconst + 1] = ecf;
	n_unconst++;
	TREE_READONLY(fn) = 0;
	DECL_PURE_P(fn) = 0;
	DECL_LOOPING_CONST_OR_PURE_P(fn) = 0;
}

/* Every FUNCTION_DECL reached but in a direct call's callee position. */
static tree find_taken(tree *tp, int *walk_subtrees, void *)
{
	tree t = *tp;
	if (TYPE_P(t)) {
		*walk_subtrees = 0;
		return NULL_TREE;
	}
	if (TREE_CODE(t) == FUNCTION_DECL) {
		note(t);
		return NULL_TREE;
	}
	if (TREE_CODE(t) == CALL_EXPR && CALL_EXPR_FN(t) && TREE_CODE(CALL_EXPR_FN(t)) == ADDR_EXPR &&
	    TREE_CODE(TREE_OPERAND(CALL_EXPR_FN(t), 0)) == FUNCTION_DECL) {
		not_const(TREE_OPERAND(CALL_EXPR_FN(t), 0));
		for (int i = 0; i < call_expr_nargs(t); i++)
			walk_tree(&CALL_EXPR_ARG(t, i), find_taken, NULL, NULL);
		*walk_subtrees = 0;
	}
	return NULL_TREE;
}

/* PLUGIN_PRE_GENERICIZE, every function (instrumented or not). */
void dp_note_taken_addresses(void *gcc_data, void *)
{
	tree fndecl = (tree)gcc_data;
	if (dp_opt.abi != 2 || !dp_opt.instrument || !fndecl || TREE_CODE(fndecl) != FUNCTION_DECL ||
	    !DECL_SAVED_TREE(fndecl))
		return;         /* (a use build that does not instrument keeps const and pure) */
	not_const(fndecl);
	walk_tree_without_duplicates(&DECL_SAVED_TREE(fndecl), find_taken, NULL);
}

int dp_declared_effects(tree fndecl)
{
	for (unsigned i = 0; i < n_unconst; i++)
		if (unconst[2 * i] == (int)DECL_UID(fndecl))
			return unconst[2 * i + 1];
	return 0;
}

bool dp_may_be_entered(tree fndecl)
{
	if (TREE_PUBLIC(fndecl) || DECL_STATIC_CONSTRUCTOR(fndecl) || DECL_STATIC_DESTRUCTOR(fndecl) ||
	    lookup_attribute("used", DECL_ATTRIBUTES(fndecl)))
		return true;
	if (!vars_scanned) {    /* file-scope initialisers: all parsed before the first pass */
		vars_scanned = true;
		varpool_node *v;
		FOR_EACH_VARIABLE(v)
			if (DECL_INITIAL(v->decl))
				walk_tree_without_duplicates(&DECL_INITIAL(v->decl), find_taken, NULL);
	}
	int uid = (int)DECL_UID(fndecl);
	for (unsigned i = 0; i < n_taken; i++)
		if (taken[i] == uid)
			return true;
	return false;
}
