/*
 * parallel.cc — the use build's parallel code: a parallelism candidate of
 * the feedback becomes OpenMP tasks, written into the function's GENERIC
 * body at PLUGIN_PRE_GENERICIZE (before the gimplifier, which then adds
 * the implicit data-sharing clauses as for a programmer's own pragmas;
 * omplower and ompexp outline the task bodies).
 *
 * The candidate's calls are found by file:line:col and callee. Each call
 * is hoisted into a temporary at the start of the stretch of code that
 * holds them (the region), and its place keeps the temporary; hoisting is
 * allowed only where it changes nothing a C program can tell: the calls
 * are evaluated unconditionally in the region, and the rest of the region
 * has no side effects but stores to local variables that no call reads.
 * The region then computes the temporaries one of three ways:
 *
 *     if (GUARD && omp_in_parallel())                      tasks
 *     else if (GUARD && omp_get_max_threads() > 1)         parallel { single { tasks } }
 *     else                                                 the calls in order
 *
 * "tasks" spawns the feedback's tasks 1..K-1 (OMP_TASK, results shared),
 * runs task 0 itself, and waits (GOMP_taskwait): one team, never nested
 * teams; with OMP_NUM_THREADS=1 the program runs its calls in order.
 *
 * GUARD is the candidate's safety. Named by id (--deepprof-parallelize=ID)
 * it is 1. Otherwise (safe) it is a call __deepprof_guard(N) that the
 * guard pass folds to 1 or 0 after GCC's own analyses have run on the
 * callees (the early local passes run callees first: local-pure-const has
 * then marked them const or pure, and ipa-modref has summarised what they
 * write); 0 leaves the serial code alone, and the parallel copies die with
 * the dead branch. At -O0, where those passes do not run, only declared
 * const or pure callees are safe.
 *
 * Divide and conquer (a candidate whose calls are its own function's
 * recursive calls, with a recursion cut-off in the feedback): F's original
 * body is copied into F.dp_serial, whose recursive calls call itself; F's
 * region spawns calls of F while a thread-local depth is below the
 * cut-off, and calls F.dp_serial otherwise, so below the cut-off nothing
 * is spawned and nothing is checked.
 *
 * Part of deepprof's compiler plugins. MIT licence.
 */
#include "plugin.h"
#include "dumpfile.h"
#include "tree-iterator.h"
#include "tree-inline.h"
#include "tree-nested.h"
#include "omp-general.h"
#include "gimplify.h"
#include "calls.h"
#include "ipa-modref-tree.h"
#include "ipa-modref.h"
#include "use_feedback.h"

/* the C front end's (c-family/c-common.h must come before
 * diagnostic-core.h, which plugin.h includes). Weak: lto1, which loads
 * the plugin too, has no front end (and no PRE_GENERICIZE). */
extern tree lookup_name(tree) __attribute__((weak));
extern void c_genericize(tree) __attribute__((weak));

/* ================= what became of each candidate ================= */

enum par_state { PS_NOT, PS_DONE, PS_GUARDED };

struct par_rec {
	const struct dpu_cand *c;
	enum par_state state;
	const char *why;        /* PS_NOT: why not (xstrdup'd) */
	unsigned guard;         /* PS_GUARDED: the guard's number */
	location_t at;          /* the first call */
	unsigned cutoff;        /* divide and conquer: the depth, else 0 */
	vec<tree> callees;      /* the (serial) callees, for the guard */
	vec<int> declared;      /* per callee: ECF_CONST/ECF_PURE as declared */
	bool decided;           /* the guard has been folded */
	const char *safety;     /* PS_DONE: what made it safe, or NULL */
};
static vec<struct par_rec> recs;

static struct par_rec *find_rec(const struct dpu_cand *c)
{
	for (unsigned i = 0; i < recs.length(); i++)
		if (recs[i].c == c)
			return &recs[i];
	return NULL;
}

/* ================= trees the generated code uses ================= */

#define guard_decl dp_roots[DPR_GUARD]
#define depth_decl dp_roots[DPR_DEPTH]

/* A function of the program's: the front end's declaration if the unit
 * has one (omp.h), else an extern one. */
static tree extern_fn(enum dp_root which, const char *name, tree type)
{
	if (dp_roots[which])
		return dp_roots[which];
	tree id = get_identifier(name);
	tree d = lookup_name ? lookup_name(id) : NULL_TREE;
	if (!d || TREE_CODE(d) != FUNCTION_DECL) {
		d = build_fn_decl(name, type);
		DECL_EXTERNAL(d) = 1;
		TREE_PUBLIC(d) = 1;
	}
	return dp_roots[which] = d;
}

static tree call0(tree fn)
{
	return build_call_expr(fn, 0);
}

static tree guard_call(unsigned n, location_t loc)
{
	if (!guard_decl) {
		guard_decl = build_fn_decl("__deepprof_guard",
					   build_function_type_list(integer_type_node, unsigned_type_node,
								    NULL_TREE));
		DECL_EXTERNAL(guard_decl) = 1;
		TREE_PUBLIC(guard_decl) = 1;
		TREE_READONLY(guard_decl) = 1;  /* const: it changes no analysis of its caller */
		TREE_NOTHROW(guard_decl) = 1;
		DECL_ATTRIBUTES(guard_decl) = tree_cons(get_identifier("leaf"), NULL_TREE, NULL_TREE);
	}
	tree c = build_call_expr(guard_decl, 1, build_int_cst(unsigned_type_node, n));
	SET_EXPR_LOCATION(c, loc);
	return c;
}

/* The unit's thread-local recursion depth of parallel code. */
static tree depth_var(void)
{
	if (depth_decl)
		return depth_decl;
	depth_decl = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier("__deepprof_depth"),
				unsigned_type_node);
	TREE_STATIC(depth_decl) = 1;
	TREE_PUBLIC(depth_decl) = 0;
	DECL_ARTIFICIAL(depth_decl) = 1;
	DECL_IGNORED_P(depth_decl) = 1;
	TREE_USED(depth_decl) = 1;
	DECL_CONTEXT(depth_decl) = NULL_TREE;
	set_decl_tls_model(depth_decl, decl_default_tls_model(depth_decl));
	varpool_node::finalize_decl(depth_decl);
	return depth_decl;
}

/* A temporary of fndecl's outermost scope. */
static tree new_temp(tree fndecl, tree type, const char *name)
{
	tree v = build_decl(DECL_SOURCE_LOCATION(fndecl), VAR_DECL, get_identifier(name), type);
	DECL_CONTEXT(v) = fndecl;
	DECL_ARTIFICIAL(v) = 1;
	DECL_IGNORED_P(v) = 1;
	TREE_USED(v) = 1;
	tree body = DECL_SAVED_TREE(fndecl);
	if (TREE_CODE(body) != BIND_EXPR) {
		body = build3(BIND_EXPR, void_type_node, NULL_TREE, body, NULL_TREE);
		DECL_SAVED_TREE(fndecl) = body;
	}
	tree block = BIND_EXPR_BLOCK(body);
	bool same = block && BLOCK_VARS(block) == BIND_EXPR_VARS(body);
	DECL_CHAIN(v) = BIND_EXPR_VARS(body);
	BIND_EXPR_VARS(body) = v;
	if (same)
		BLOCK_VARS(block) = v;
	return v;
}

static tree omp_clause(enum omp_clause_code code, tree decl, tree chain)
{
	tree c = build_omp_clause(UNKNOWN_LOCATION, code);
	OMP_CLAUSE_DECL(c) = decl;
	OMP_CLAUSE_CHAIN(c) = chain;
	return c;
}

/* A new scope in parent's (the function's tree of BLOCKs must hold every
 * scope: debug information and the outlined functions are made from it). */
static tree new_block(tree parent)
{
	tree b = make_node(BLOCK);
	TREE_USED(b) = 1;
	BLOCK_SUPERCONTEXT(b) = parent;
	if (parent) {
		BLOCK_CHAIN(b) = BLOCK_SUBBLOCKS(parent);
		BLOCK_SUBBLOCKS(parent) = b;
	}
	return b;
}

static tree bind(tree stmts, tree block)
{
	return build3(BIND_EXPR, void_type_node, NULL_TREE, stmts, block);
}

/* ================= finding the calls ================= */

struct found {
	tree *slot;             /* where the call is */
	vec<tree *> path;       /* the slots from the body down to it */
};

struct finder {
	const struct dpu_cand *c;
	struct found *f;        /* c->n_calls */
	vec<tree *> stack;
	unsigned n_found;
	bool twice;             /* a call matched two places */
};

/* A function's name as its source spells it: F.dp_serial is F. */
static const char *shown(tree fn)
{
	static char buf[4][200];
	static unsigned k;
	const char *n = dp_decl_name(fn);
	size_t l = strlen(n), sl = strlen(".dp_serial");
	if (l <= sl || strcmp(n + l - sl, ".dp_serial"))
		return n;
	char *b = buf[k++ % 4];
	snprintf(b, sizeof buf[0], "%.*s", (int)(l - sl), n);
	return b;
}

static const char *callee_name(tree call)
{
	tree fn = get_callee_fndecl(call);
	return fn ? dp_decl_name(fn) : NULL;
}

static void find_calls(struct finder *fd, tree *tp)
{
	tree t = *tp;
	if (!t || TYPE_P(t) || CONSTANT_CLASS_P(t) || TREE_CODE(t) == IDENTIFIER_NODE)
		return;
	if (DECL_P(t))
		return;
	fd->stack.safe_push(tp);
	if (TREE_CODE(t) == CALL_EXPR && EXPR_HAS_LOCATION(t)) {
		expanded_location x = expand_location(EXPR_LOCATION(t));
		const char *name = callee_name(t);
		for (unsigned i = 0; i < fd->c->n_calls; i++) {
			const struct dpu_call *k = &fd->c->calls[i];
			if ((unsigned)x.line != k->at.line || (unsigned)x.column != k->at.col || !name ||
			    !k->callee || strcmp(name, k->callee))
				continue;
			if (fd->f[i].slot) {
				fd->twice = true;
				continue;
			}
			fd->f[i].slot = tp;
			fd->f[i].path = fd->stack.copy();
			fd->n_found++;
			break;
		}
	}
	if (TREE_CODE(t) == STATEMENT_LIST) {
		for (tree_stmt_iterator i = tsi_start(t); !tsi_end_p(i); tsi_next(&i))
			find_calls(fd, tsi_stmt_ptr(i));
	} else if (TREE_CODE(t) == DECL_EXPR) {
		tree d = DECL_EXPR_DECL(t);
		if (VAR_P(d) && !TREE_STATIC(d) && DECL_INITIAL(d))
			find_calls(fd, &DECL_INITIAL(d));
	} else if (EXPR_P(t) || TREE_CODE(t) == BIND_EXPR) {
		int n = TREE_OPERAND_LENGTH(t);
		for (int i = 0; i < n; i++)
			if (TREE_OPERAND(t, i))
				find_calls(fd, &TREE_OPERAND(t, i));
	}
	fd->stack.pop();
}

/* ================= checking the region ================= */

static bool is_cand_call(struct finder *fd, tree t)
{
	for (unsigned i = 0; i < fd->c->n_calls; i++)
		if (fd->f[i].slot && *fd->f[i].slot == t)
			return true;
	return false;
}

/* A local variable a store in the region may write: neither global,
 * volatile nor addressable (so no call can see it). */
static bool plain_local(tree v, tree fndecl)
{
	return (VAR_P(v) || TREE_CODE(v) == PARM_DECL || TREE_CODE(v) == RESULT_DECL) &&
	       !is_global_var(v) && DECL_CONTEXT(v) == fndecl && !TREE_THIS_VOLATILE(v) &&
	       !TREE_ADDRESSABLE(v);
}

struct check {
	struct finder *fd;
	tree fndecl;
	const char *why;        /* the first reason it cannot be done */
	location_t where;
	vec<tree> stored;       /* the locals the region stores */
};

static void fail(struct check *ck, location_t loc, const char *why)
{
	if (!ck->why) {
		ck->why = why;
		ck->where = loc;
	}
}

/* Whether expression t (evaluated unconditionally) has side effects other
 * than the candidate calls in it, and whether those calls are reached
 * only unconditionally from t. */
static void check_expr(struct check *ck, tree t, bool cond)
{
	if (!t || TYPE_P(t) || CONSTANT_CLASS_P(t) || DECL_P(t))
		return;
	if (TREE_CODE(t) == CALL_EXPR) {
		if (!is_cand_call(ck->fd, t)) {
			fail(ck, EXPR_LOCATION(t), "another call is made among the candidate's calls");
			return;
		}
		if (cond)
			fail(ck, EXPR_LOCATION(t), "a call is made only under a condition");
		for (int i = 0; i < call_expr_nargs(t); i++) {
			tree a = CALL_EXPR_ARG(t, i);
			if (TREE_SIDE_EFFECTS(a))
				fail(ck, EXPR_LOCATION(t), "a call's arguments have side effects");
		}
		return;
	}
	if (TREE_THIS_VOLATILE(t)) {
		fail(ck, EXPR_LOCATION(t), "volatile memory is read among the calls");
		return;
	}
	switch (TREE_CODE(t)) {
	case MODIFY_EXPR:
	case INIT_EXPR:
	case PREDECREMENT_EXPR: case PREINCREMENT_EXPR:
	case POSTDECREMENT_EXPR: case POSTINCREMENT_EXPR:
		fail(ck, EXPR_LOCATION(t), "an assignment is nested among the calls");
		return;
	case COND_EXPR:
	case TRUTH_ANDIF_EXPR:
	case TRUTH_ORIF_EXPR:
		check_expr(ck, TREE_OPERAND(t, 0), cond);
		for (int i = 1; i < TREE_OPERAND_LENGTH(t); i++)
			check_expr(ck, TREE_OPERAND(t, i), true);
		return;
	case STATEMENT_LIST:
	case BIND_EXPR:
	case ASM_EXPR:
		fail(ck, EXPR_LOCATION(t), "statements are nested among the calls");
		return;
	default:
		break;
	}
	if (TREE_CODE_CLASS(TREE_CODE(t)) == tcc_statement) {
		fail(ck, EXPR_LOCATION(t), "statements are nested among the calls");
		return;
	}
	if (!EXPR_P(t)) {
		fail(ck, EXPR_LOCATION(t), "the code among the calls has an unknown shape");
		return;
	}
	for (int i = 0; i < TREE_OPERAND_LENGTH(t); i++)
		check_expr(ck, TREE_OPERAND(t, i), cond);
}

/* A statement of the region: `E`, `v = E`, `return E`, or a declaration
 * `T v = E`, where v is a plain local and E is checked as above. */
static void check_stmt(struct check *ck, tree s)
{
	location_t loc = EXPR_P(s) ? EXPR_LOCATION(s) : UNKNOWN_LOCATION;
	switch (TREE_CODE(s)) {
	case DECL_EXPR: {
		tree d = DECL_EXPR_DECL(s);
		if (!VAR_P(d) || TREE_STATIC(d) || !DECL_INITIAL(d))
			return;         /* nothing runs */
		if (!plain_local(d, ck->fndecl))
			fail(ck, DECL_SOURCE_LOCATION(d), "a variable the region stores is addressable or volatile");
		ck->stored.safe_push(d);
		check_expr(ck, DECL_INITIAL(d), false);
		return;
	}
	case RETURN_EXPR:
		s = TREE_OPERAND(s, 0);
		if (!s)
			return;
		/* FALLTHRU */
	case MODIFY_EXPR:
	case INIT_EXPR:
		if (TREE_CODE(s) == MODIFY_EXPR || TREE_CODE(s) == INIT_EXPR) {
			tree lhs = TREE_OPERAND(s, 0);
			if (!plain_local(lhs, ck->fndecl)) {
				fail(ck, loc, "the region stores to memory other than local variables");
				return;
			}
			ck->stored.safe_push(lhs);
			check_expr(ck, TREE_OPERAND(s, 1), false);
			return;
		}
		check_expr(ck, s, false);
		return;
	case DEBUG_BEGIN_STMT:
		return;
	default:
		check_expr(ck, s, false);
	}
}

static tree find_stored(tree *tp, int *walk, void *data)
{
	struct check *ck = (struct check *)data;
	if (TYPE_P(*tp)) {
		*walk = 0;
		return NULL_TREE;
	}
	if (DECL_P(*tp) && ck->stored.contains(*tp))
		return *tp;
	return NULL_TREE;
}

/* ================= building the region ================= */

struct gen {
	tree fndecl;
	const struct dpu_cand *c;
	struct found *f;
	tree *tmp;              /* per call: its temporary, or NULL (void) */
	tree *orig;             /* per call: the call as written */
	tree serial_fn;         /* divide and conquer: F.dp_serial, else NULL */
	unsigned cutoff;
	tree d;                 /* divide and conquer: the depth at the region */
	tree block;             /* the scope the region is in */
};

/* Call i, fresh, calling callee instead when given. */
static tree fresh_call(struct gen *g, unsigned i, tree callee)
{
	tree call = unshare_expr(g->orig[i]);
	if (callee)
		CALL_EXPR_FN(call) = build1(ADDR_EXPR, build_pointer_type(TREE_TYPE(callee)), callee);
	tree e = g->tmp[i] ? build2(MODIFY_EXPR, TREE_TYPE(g->tmp[i]), g->tmp[i], call) : call;
	SET_EXPR_LOCATION(e, EXPR_LOCATION(g->orig[i]));
	return e;
}

static tree set_depth(tree value)
{
	return build2(MODIFY_EXPR, unsigned_type_node, depth_var(), value);
}

static tree depth_plus_one(struct gen *g)
{
	return fold_build2(PLUS_EXPR, unsigned_type_node, g->d, build_int_cst(unsigned_type_node, 1));
}

/* The calls of task k, in order, as statements appended to *list. */
static void task_calls(struct gen *g, unsigned k, tree *list, tree callee)
{
	for (unsigned i = 0; i < g->c->n_calls; i++)
		if (g->c->calls[i].task == k)
			append_to_statement_list(fresh_call(g, i, callee), list);
}

/* The tasks: spawn 1..K-1, run 0, wait. */
static tree tasks(struct gen *g, tree scope)
{
	tree list = NULL_TREE;
	unsigned K = g->c->n_tasks;
	if (g->serial_fn)
		append_to_statement_list(build2(MODIFY_EXPR, unsigned_type_node, g->d, depth_var()), &list);
	for (unsigned k = K; k-- > 1;) {
		tree body = NULL_TREE, clauses = NULL_TREE;
		tree saved = NULL_TREE;
		if (g->serial_fn) {
			saved = new_temp(g->fndecl, unsigned_type_node, "dp_saved");
			append_to_statement_list(build2(MODIFY_EXPR, unsigned_type_node, saved, depth_var()), &body);
			append_to_statement_list(set_depth(depth_plus_one(g)), &body);
			clauses = omp_clause(OMP_CLAUSE_PRIVATE, saved, clauses);
			clauses = omp_clause(OMP_CLAUSE_FIRSTPRIVATE, g->d, clauses);
		}
		task_calls(g, k, &body, NULL_TREE);
		if (saved)
			append_to_statement_list(set_depth(saved), &body);
		for (unsigned i = 0; i < g->c->n_calls; i++)
			if (g->c->calls[i].task == k && g->tmp[i])
				clauses = omp_clause(OMP_CLAUSE_SHARED, g->tmp[i], clauses);
		tree t = build2(OMP_TASK, void_type_node, bind(body, new_block(scope)), clauses);
		SET_EXPR_LOCATION(t, EXPR_LOCATION(g->orig[0]));
		append_to_statement_list(t, &list);
	}
	if (g->serial_fn)
		append_to_statement_list(set_depth(depth_plus_one(g)), &list);
	task_calls(g, 0, &list, NULL_TREE);
	if (g->serial_fn)
		append_to_statement_list(set_depth(g->d), &list);
	append_to_statement_list(call0(builtin_decl_explicit(BUILT_IN_GOMP_TASKWAIT)), &list);
	return list;
}

static tree serial(struct gen *g)
{
	tree list = NULL_TREE;
	for (unsigned i = 0; i < g->c->n_calls; i++)
		append_to_statement_list(fresh_call(g, i, g->serial_fn), &list);
	return list;
}

static tree region(struct gen *g, tree guard)
{
	location_t loc = EXPR_LOCATION(g->orig[0]);
	tree in_par = extern_fn(DPR_IN_PARALLEL, "omp_in_parallel", build_function_type_list(integer_type_node, NULL_TREE));
	tree max_thr = extern_fn(DPR_MAX_THREADS, "omp_get_max_threads",
				 build_function_type_list(integer_type_node, NULL_TREE));
	tree ok = guard;
	if (g->serial_fn)
		ok = build2(TRUTH_ANDIF_EXPR, boolean_type_node, ok,
			    build2(LT_EXPR, boolean_type_node, depth_var(),
				   build_int_cst(unsigned_type_node, g->cutoff)));
	tree c1 = build2(TRUTH_ANDIF_EXPR, boolean_type_node, ok,
			 build2(NE_EXPR, boolean_type_node, call0(in_par), integer_zero_node));
	tree c2 = build2(TRUTH_ANDIF_EXPR, boolean_type_node, unshare_expr(ok),
			 build2(GT_EXPR, boolean_type_node, call0(max_thr), integer_one_node));
	tree rb = new_block(g->block);
	tree b1 = new_block(rb), pb = new_block(rb), sb = new_block(pb), serb = new_block(rb);
	tree single = build2(OMP_SINGLE, void_type_node, bind(tasks(g, sb), sb), NULL_TREE);
	SET_EXPR_LOCATION(single, loc);
	tree par = build2(OMP_PARALLEL, void_type_node, bind(single, pb), NULL_TREE);
	SET_EXPR_LOCATION(par, loc);
	tree inner = build3(COND_EXPR, void_type_node, c2, par, bind(serial(g), serb));
	tree outer = build3(COND_EXPR, void_type_node, c1, bind(tasks(g, b1), b1), inner);
	SET_EXPR_LOCATION(inner, loc);
	SET_EXPR_LOCATION(outer, loc);
	return bind(outer, rb);
}

/* ================= divide and conquer: the serial copy ================= */

static tree redirect(tree *tp, int *walk, void *data)
{
	tree *fns = (tree *)data;
	if (TYPE_P(*tp)) {
		*walk = 0;
		return NULL_TREE;
	}
	if (TREE_CODE(*tp) == ADDR_EXPR && TREE_OPERAND(*tp, 0) == fns[0])
		*tp = build1(ADDR_EXPR, build_pointer_type(TREE_TYPE(fns[1])), fns[1]);
	return NULL_TREE;
}

/* F.dp_serial: fndecl's body as written, its recursive calls its own. */
static tree serial_copy(tree fndecl, const char **why)
{
	cgraph_node *node = cgraph_node::get(fndecl);
	if (node && first_nested_function(node)) {
		*why = "the function has nested functions";
		return NULL_TREE;
	}
	if (stdarg_p(TREE_TYPE(fndecl))) {
		*why = "the function is variadic";
		return NULL_TREE;
	}
	if (!c_genericize) {
		*why = "no C front end";
		return NULL_TREE;
	}
	tree s = copy_node(fndecl);
	char *name = concat(dp_decl_name(fndecl), ".dp_serial", NULL);
	DECL_NAME(s) = get_identifier(name);
	SET_DECL_ASSEMBLER_NAME(s, get_identifier(name));
	free(name);
	TREE_PUBLIC(s) = 0;
	DECL_EXTERNAL(s) = 0;
	DECL_WEAK(s) = 0;
	DECL_COMDAT(s) = 0;
	DECL_STATIC_CONSTRUCTOR(s) = DECL_STATIC_DESTRUCTOR(s) = 0;
	TREE_ADDRESSABLE(s) = 0;
	DECL_STRUCT_FUNCTION(s) = NULL;
	DECL_SAVED_TREE(s) = NULL_TREE;
	DECL_ATTRIBUTES(s) = remove_attribute("alias", copy_list(DECL_ATTRIBUTES(fndecl)));
	DECL_ATTRIBUTES(s) = remove_attribute("used", DECL_ATTRIBUTES(s));
	DECL_ATTRIBUTES(s) = remove_attribute("externally_visible", DECL_ATTRIBUTES(s));
	tree parms, result;
	tree saved_fn = current_function_decl;
	current_function_decl = s;
	tree body = copy_fn(fndecl, parms, result);
	current_function_decl = saved_fn;
	DECL_ARGUMENTS(s) = parms;
	for (tree p = parms; p; p = DECL_CHAIN(p))
		DECL_CONTEXT(p) = s;
	DECL_RESULT(s) = result;
	if (result)
		DECL_CONTEXT(result) = s;
	DECL_SAVED_TREE(s) = body;
	DECL_INITIAL(s) = TREE_CODE(body) == BIND_EXPR && BIND_EXPR_BLOCK(body) ? BIND_EXPR_BLOCK(body)
										 : make_node(BLOCK);
	BLOCK_SUPERCONTEXT(DECL_INITIAL(s)) = s;
	tree fns[2] = { fndecl, s };
	walk_tree(&DECL_SAVED_TREE(s), redirect, fns, NULL);
	push_struct_function(s);
	cfun->function_end_locus = DECL_STRUCT_FUNCTION(fndecl)->function_end_locus;
	pop_cfun();
	c_genericize(s);
	cgraph_node::finalize_function(s, true);
	return s;
}

/* ================= the transformation ================= */

static bool wanted_by_id(unsigned id)
{
	const char *p = dp_opt.parallelize;
	if (!p || !strcmp(p, "safe") || !strcmp(p, "none"))
		return false;
	while (*p) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (v == id)
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

static const char *declared_effects(tree fn)
{
	int f = flags_from_decl_or_type(fn);
	return (f & ECF_CONST) ? "const" : (f & ECF_PURE) ? "pure" : NULL;
}

static const struct dpu_rec *find_dc(const struct dpu_feedback *fb, const char *fn)
{
	for (unsigned i = 0; i < fb->n_rec; i++)
		if (fb->rec[i].at.fn && !strcmp(fb->rec[i].at.fn, fn) && fb->rec[i].type &&
		    !strcmp(fb->rec[i].type, "divide_and_conquer"))
			return &fb->rec[i];
	return NULL;
}

static void not_done(struct par_rec *r, const char *why)
{
	r->state = PS_NOT;
	r->why = xstrdup(why);
}

static void transform(tree fndecl, const struct dpu_feedback *fb, struct par_rec *r)
{
	const struct dpu_cand *c = r->c;
	const char *fname = dp_decl_name(fndecl);
	for (unsigned i = 0; i < c->n_deps; i++)
		if (c->deps[i].known) {
			const struct dpu_dep *d = &c->deps[i];
			char why[400];
			snprintf(why, sizeof why, "%s() uses %s, which %s() produces at %.0f%% of its run: "
				 "dependent calls need futures, which this deepprof does not generate yet",
				 c->calls[d->to].callee ? c->calls[d->to].callee : "?", d->var ? d->var : "?",
				 c->calls[d->from].callee ? c->calls[d->from].callee : "?", 100 * d->produced);
			not_done(r, why);
			return;
		}
	if (c->n_tasks < 2 || c->n_calls < 2) {
		not_done(r, "fewer than two tasks");
		return;
	}
	for (unsigned i = 0; i < c->n_calls; i++)
		if (c->calls[i].task >= c->n_tasks) {
			not_done(r, "the feedback's partition names a task that does not exist");
			return;
		}
	if (!flag_openmp || !builtin_decl_explicit(BUILT_IN_GOMP_TASKWAIT)) {
		not_done(r, "parallel code needs -fopenmp (deepprof-cc adds it)");
		return;
	}
	bool consent = wanted_by_id(c->id);

	/* divide and conquer? */
	bool dc = true;
	for (unsigned i = 0; i < c->n_calls; i++)
		dc &= c->calls[i].callee && !strcmp(c->calls[i].callee, fname);
	const struct dpu_rec *rec = dc ? find_dc(fb, fname) : NULL;
	if (dc && (!rec || !rec->cutoff_depth)) {
		not_done(r, rec ? "the feedback's recursion cut-off is 0: spawning never pays"
			 : "a recursive candidate without the recursion's cut-off in the feedback");
		return;
	}

	struct finder fd = { c, XCNEWVEC(struct found, c->n_calls), vNULL, 0, false };
	find_calls(&fd, &DECL_SAVED_TREE(fndecl));
	fd.stack.release();
	struct check ck = { &fd, fndecl, NULL, UNKNOWN_LOCATION, vNULL };
	if (fd.n_found != c->n_calls || fd.twice) {
		not_done(r, fd.twice ? "two calls of the source share one place"
			 : "its calls are not found where the feedback places them");
		goto out;
	}
	r->at = EXPR_LOCATION(*fd.f[0].slot);
	{
		/* the lowest node holding every call */
		unsigned lca = 0;
		for (;; lca++) {
			bool same = lca < fd.f[0].path.length();
			for (unsigned i = 1; i < c->n_calls && same; i++)
				same = lca < fd.f[i].path.length() && fd.f[i].path[lca] == fd.f[0].path[lca];
			if (!same)
				break;
		}
		if (lca == 0) {
			not_done(r, "its calls are not in one body");
			goto out;
		}
		tree *top = fd.f[0].path[lca - 1];
		bool stmts = TREE_CODE(*top) == STATEMENT_LIST;
		tree_stmt_iterator first = {}, last = {};
		if (stmts) {
			/* the statements from the first call's to the last's */
			bool in = false;
			for (tree_stmt_iterator it = tsi_start(*top); !tsi_end_p(it); tsi_next(&it)) {
				bool has = false;
				for (unsigned i = 0; i < c->n_calls; i++)
					has |= fd.f[i].path[lca] == tsi_stmt_ptr(it);
				if (has && !in) {
					first = it;
					in = true;
				}
				if (has)
					last = it;
			}
			for (tree_stmt_iterator it = first;; tsi_next(&it)) {
				check_stmt(&ck, tsi_stmt(it));
				if (tsi_stmt_ptr(it) == tsi_stmt_ptr(last))
					break;
			}
		} else {
			check_expr(&ck, *top, false);
		}
		for (unsigned i = 0; i < c->n_calls && !ck.why; i++) {
			tree call = *fd.f[i].slot;
			for (int a = 0; a < call_expr_nargs(call); a++)
				if (walk_tree_without_duplicates(&CALL_EXPR_ARG(call, a), find_stored, &ck))
					fail(&ck, EXPR_LOCATION(call),
					     "a call's argument reads a variable the region assigns");
		}
		/* a call under a condition is the reason to give first */
		for (unsigned i = 0; i < c->n_calls; i++)
			for (unsigned k = lca - 1; k + 1 < fd.f[i].path.length(); k++) {
				tree p = *fd.f[i].path[k];
				tree *child = fd.f[i].path[k + 1];
				bool cond = (TREE_CODE(p) == COND_EXPR && child != &TREE_OPERAND(p, 0)) ||
					    ((TREE_CODE(p) == TRUTH_ANDIF_EXPR || TREE_CODE(p) == TRUTH_ORIF_EXPR) &&
					     child == &TREE_OPERAND(p, 1));
				if (cond) {
					ck.why = NULL;
					fail(&ck, EXPR_LOCATION(*fd.f[i].slot), "a call is made only under a condition");
				}
			}
		if (ck.why) {
			expanded_location x = expand_location(ck.where);
			char why[300];
			if (x.line)
				snprintf(why, sizeof why, "%s (line %d)", ck.why, x.line);
			else
				snprintf(why, sizeof why, "%s", ck.why);
			not_done(r, why);
			goto out;
		}

		/* safety */
		tree serial_fn = NULL_TREE;
		if (dc) {
			const char *why = NULL;
			serial_fn = serial_copy(fndecl, &why);
			if (!serial_fn) {
				not_done(r, why);
				goto out;
			}
			r->cutoff = rec->cutoff_depth;
		}
		for (unsigned i = 0; i < c->n_calls; i++) {
			tree fn = serial_fn ? serial_fn : get_callee_fndecl(*fd.f[i].slot);
			if (!r->callees.contains(fn)) {
				r->callees.safe_push(fn);
				r->declared.safe_push(flags_from_decl_or_type(fn) & (ECF_CONST | ECF_PURE));
			}
		}
		tree guard;
		if (consent) {
			guard = integer_one_node;
			r->state = PS_DONE;
			r->safety = NULL;
		} else if (!optimize) {
			/* GCC's analyses do not run: what the source declares */
			const char *eff = NULL;
			for (unsigned i = 0; i < r->callees.length(); i++) {
				const char *e = declared_effects(r->callees[i]);
				if (!e) {
					char why[300];
					snprintf(why, sizeof why, "not proved safe: %s() is not declared const or pure, "
						 "and at -O0 GCC's analyses do not run (optimize, or name it with "
						 "--deepprof-parallelize=%u)", shown(r->callees[i]), c->id);
					not_done(r, why);
					goto out;
				}
				eff = !eff || !strcmp(e, "pure") ? e : eff;
			}
			guard = integer_one_node;
			r->state = PS_DONE;
			r->safety = eff && !strcmp(eff, "const") ? "declared const" : "declared pure";
		} else {
			r->guard = recs.length();       /* any unique number */
			guard = build2(NE_EXPR, boolean_type_node, guard_call(r->guard, r->at), integer_zero_node);
			r->state = PS_GUARDED;
		}

		/* hoist: temporaries in the calls' places */
		struct gen g = { fndecl, c, fd.f, XCNEWVEC(tree, c->n_calls), XCNEWVEC(tree, c->n_calls),
				 serial_fn, r->cutoff, NULL_TREE, NULL_TREE };
		for (unsigned i = 0; i < c->n_calls; i++) {
			tree call = *fd.f[i].slot;
			g.orig[i] = call;
			bool whole = stmts && fd.f[i].path.length() == lca + 1;
			if (VOID_TYPE_P(TREE_TYPE(call)) || whole) {
				*fd.f[i].slot = build_empty_stmt(EXPR_LOCATION(call));
			} else {
				char nm[16];
				snprintf(nm, sizeof nm, "dp_r%u", i);
				g.tmp[i] = new_temp(fndecl, TREE_TYPE(call), nm);
				*fd.f[i].slot = g.tmp[i];
			}
		}
		if (dc)
			g.d = new_temp(fndecl, unsigned_type_node, "dp_depth");
		g.block = DECL_INITIAL(fndecl);
		for (unsigned i = 0; i < lca; i++)
			if (TREE_CODE(*fd.f[0].path[i]) == BIND_EXPR && BIND_EXPR_BLOCK(*fd.f[0].path[i]))
				g.block = BIND_EXPR_BLOCK(*fd.f[0].path[i]);
		tree reg = region(&g, guard);
		if (stmts)
			tsi_link_before(&first, reg, TSI_SAME_STMT);
		else
			*top = build2(COMPOUND_EXPR, TREE_TYPE(*top), reg, *top);
		free(g.tmp);
		free(g.orig);
	}
out:
	ck.stored.release();
	for (unsigned i = 0; i < c->n_calls; i++)
		fd.f[i].path.release();
	free(fd.f);
}

/* PLUGIN_PRE_GENERICIZE (from use.cc), for a function of the feedback's
 * that has not changed: its candidates. */
void dp_par_genericize(tree fndecl, const struct dpu_feedback *fb, const struct dpu_cand *c)
{
	struct par_rec r = {};
	r.c = c;
	r.state = PS_NOT;
	r.at = DECL_SOURCE_LOCATION(fndecl);
	if (!strcmp(dp_opt.parallelize, "none"))
		r.why = "--deepprof-parallelize=none";
	else if (!c->accepted && !wanted_by_id(c->id))
		r.why = c->verdict_why ? c->verdict_why : "the feedback does not recommend it";
	else if (strcmp(dp_opt.parallelize, "safe") && !wanted_by_id(c->id))
		r.why = "not named by --deepprof-parallelize";
	else
		transform(fndecl, fb, &r);
	recs.safe_push(r);
}

/* ================= remarks ================= */

/* "a() and b()" */
static void call_list(const struct dpu_cand *c, char *buf, size_t n)
{
	size_t w = 0;
	buf[0] = 0;
	for (unsigned q = 0; q < c->n_calls && w + 40 < n; q++)
		w += snprintf(buf + w, n - w, "%s%s()", q == 0 ? "" : q + 1 == c->n_calls ? " and " : ", ",
			      c->calls[q].callee ? c->calls[q].callee : "?");
}

static void remark_done(const struct par_rec *r, const char *safety)
{
	const struct dpu_cand *c = r->c;
	char what[400], depth[80] = "";
	call_list(c, what, sizeof what);
	if (r->cutoff)
		snprintf(depth, sizeof depth, " down to recursion depth %u, serially below", r->cutoff);
	char why[200];
	if (safety)
		snprintf(why, sizeof why, "safe: %s", safety);
	else
		snprintf(why, sizeof why, "named by --deepprof-parallelize=%s", dp_opt.parallelize);
	dp_use_remark(0, r->at, "candidate %u: %s run as %u parallel tasks%s (predicted %.2fx on this region, "
		      "%.2fx on the program; %s)", c->id, what, c->n_tasks, depth, c->speedup,
		      c->program_speedup, why);
}

static void remark_not(const struct par_rec *r, const char *why)
{
	const struct dpu_cand *c = r->c;
	char what[400];
	call_list(c, what, sizeof what);
	dp_use_remark(1, r->at, "candidate %u: %s as %u tasks (predicted %.2fx on this region): "
		      "not parallelized: %s", c->id, what, c->n_tasks, c->speedup, why ? why : "?");
}

/* From the instrumentation pass (use.cc): the remarks decided at
 * PRE_GENERICIZE, for fun's candidates. */
void dp_par_remarks(function *fun, vec<gimple *> &calls, const struct dpu_cand *c)
{
	struct par_rec *r = find_rec(c);
	if (!r)
		return;
	if (r->at == DECL_SOURCE_LOCATION(fun->decl))      /* at the first call, if it is here */
		for (unsigned q = 0; q < calls.length(); q++) {
			expanded_location cx = expand_location(gimple_location(calls[q]));
			if ((unsigned)cx.line == c->calls[0].at.line && (unsigned)cx.column == c->calls[0].at.col) {
				r->at = gimple_location(calls[q]);
				break;
			}
		}
	if (r->state == PS_NOT)
		remark_not(r, r->why);
	else if (r->state == PS_DONE)
		remark_done(r, r->safety);
	/* PS_GUARDED: the guard pass says */
}

/* ================= the guard pass ================= */

/* Why calls of fn may not run at the same time as each other, or NULL
 * when GCC's analyses find fn writes no memory. *eff: "const" or "pure". */
static const char *unsafe(tree fn, const char **eff, char *buf, size_t n)
{
	int f = flags_from_decl_or_type(fn);
	if (f & ECF_CONST) {
		*eff = "const";
		return NULL;
	}
	if (f & ECF_PURE) {
		*eff = "pure";
		return NULL;
	}
	cgraph_node *node = cgraph_node::get(fn);
	modref_summary *s = node ? get_modref_function_summary(node) : NULL;
	if (!node || !node->definition)
		snprintf(buf, n, "%s() is defined in another unit and not declared const or pure", shown(fn));
	else if (!s || !s->stores || s->stores->every_base)
		snprintf(buf, n, "%s() may write any memory (GCC's ipa-pure-const and ipa-modref find no "
			 "bound)", shown(fn));
	else if (s->global_memory_written)
		snprintf(buf, n, "%s() writes global memory (ipa-modref)", shown(fn));
	else
		snprintf(buf, n, "%s() writes memory through its arguments (ipa-modref), which GCC "
			 "cannot prove disjoint", shown(fn));
	return buf;
}

static void decide(struct par_rec *r, gimple *stmt, gimple_stmt_iterator *gsi, bool analysed)
{
	char buf[300], why[500];
	const char *bad = NULL, *eff = "const";
	bool declared = true;
	if (!analysed) {
		bad = "GCC's analyses did not run on its callees";
	} else {
		for (unsigned i = 0; i < r->callees.length() && !bad; i++) {
			const char *e = NULL;
			bad = unsafe(r->callees[i], &e, buf, sizeof buf);
			if (e && !strcmp(e, "pure"))
				eff = "pure";
			declared &= r->declared[i] != 0;
		}
	}
	tree lhs = gimple_call_lhs(stmt);
	bool yes = !bad;
	if (!r->decided) {
		r->decided = true;
		if (yes) {
			char what[300];
			size_t w = 0;
			for (unsigned i = 0; i < r->callees.length() && w + 40 < sizeof what; i++)
				w += snprintf(what + w, sizeof what - w, "%s%s()", i ? (i + 1 == r->callees.length()
											  ? " and " : ", ") : "",
					      shown(r->callees[i]));
			snprintf(why, sizeof why, "%s %s %s%s%s", what, r->callees.length() > 1 ? "are" : "is",
				 declared ? "declared " : "", eff, declared ? "" : " (GCC's ipa-pure-const)");
			remark_done(r, why);
		} else {
			snprintf(why, sizeof why, "not proved safe: %s; name it with --deepprof-parallelize=%u "
				 "to parallelize it anyway", bad, r->c->id);
			remark_not(r, why);
		}
	}
	if (lhs)
		gsi_replace(gsi, gimple_build_assign(lhs, yes ? integer_one_node : integer_zero_node), true);
	else
		gsi_remove(gsi, true);
}

namespace {
const pass_data guard_data = {
	GIMPLE_PASS, "deepprof-par", OPTGROUP_OTHER, TV_NONE, PROP_cfg, 0, 0, 0,
	TODO_update_ssa | TODO_cleanup_cfg,
};

class guard_pass : public gimple_opt_pass {
	bool analysed;
public:
	guard_pass(gcc::context *ctxt, bool a) : gimple_opt_pass(guard_data, ctxt), analysed(a) {}
	opt_pass *clone() final override { return new guard_pass(m_ctxt, analysed); }
	bool gate(function *) final override { return guard_decl != NULL_TREE; }
	unsigned int execute(function *fun) final override
	{
		basic_block bb;
		bool any = false;
		FOR_EACH_BB_FN(bb, fun)
			for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g);) {
				gimple *s = gsi_stmt(g);
				if (!is_gimple_call(s) || gimple_call_fndecl(s) != guard_decl) {
					gsi_next(&g);
					continue;
				}
				tree n = gimple_call_arg(s, 0);
				struct par_rec *r = NULL;
				for (unsigned i = 0; i < recs.length() && !r; i++)
					if (recs[i].state == PS_GUARDED && recs[i].guard == TREE_INT_CST_LOW(n))
						r = &recs[i];
				if (!r) {
					gsi_next(&g);
					continue;
				}
				decide(r, s, &g, analysed);
				any = true;
			}
		return any ? TODO_update_ssa | TODO_cleanup_cfg : 0;
	}
};
}

opt_pass *dp_make_guard_pass(gcc::context *ctxt, bool analysed)
{
	return new guard_pass(ctxt, analysed);
}
