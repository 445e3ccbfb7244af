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
 *     else if (GUARD && omp_get_max_threads() > 1)         parallel { master { tasks } }
 *     else                                                 the calls in order
 *
 * "tasks" spawns the feedback's tasks 1..K-1 (OMP_TASK, results shared),
 * runs task 0 itself, and waits (GOMP_taskwait): one team, never nested
 * teams; with OMP_NUM_THREADS=1 the program runs its calls in order. A
 * team made here runs the region on its master, the thread that came in
 * (what the program keeps per thread stays its own), the others taking
 * the tasks at the team's end barrier.
 *
 * GUARD is the candidate's safety. Named by id (--deepprof-parallelize=ID)
 * it is 1. Otherwise (safe) it is a call __deepprof_guard(N) that the
 * guard pass folds to 1 or 0 after GCC's own analyses have run on the
 * callees (the early local passes run callees first: local-pure-const has
 * then marked them const or pure, and ipa-modref has summarised what they
 * read and write) and on the caller (its points-to sets). Safe: every
 * callee const or pure or free of stores; or each call writes only
 * through its arguments, and the alias oracle finds those arguments point
 * to other objects than what the other calls read or write. 0 leaves the
 * serial code alone, and the parallel copies die with the dead branch. At
 * -O0, where those passes do not run, and in an instrumented use build,
 * whose hooks hide the callees from them, the callees' GENERIC bodies are
 * read instead (facts noted at each function's PRE_GENERICIZE): safe when
 * they and what they call store nothing but their own locals. Callees
 * that read thread-local state are never safe.
 *
 * Divide and conquer (a candidate whose calls are its own function's
 * recursive calls, with a recursion cut-off in the feedback): F's original
 * body is copied into F.dp_serial, whose recursive calls call itself; F's
 * region spawns calls of F while a thread-local depth is below the
 * cut-off, and calls F.dp_serial otherwise, so below the cut-off nothing
 * is spawned and nothing is checked.
 *
 * Dependent calls that overlap (a candidate with one value passed, the
 * shape of bench/accuracy/overlap.c: P(..., &v) stores v early, C(..., v)
 * needs it late): Mercury's futures. P.dp_future raises a flag after its
 * one store of *out, C.dp_future waits for the flag where it uses v and
 * reads it through a pointer; the consumer is spawned and the producer
 * runs on the spawning thread, so a waiting consumer always has a running
 * producer. Safe when GCC finds that C writes no memory and that P writes
 * only through that pointer (ipa-modref).
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
#include "memmodel.h"
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
	const struct dpu_dep *dep;  /* a future's: the value passed, else NULL */
	int future_out;         /* a future's: the producer's argument &v */
	bool oracle;            /* proved by the alias oracle on the arguments */
	int fn_uid;             /* the function's DECL_UID */
	bool dup;               /* another feedback file's same candidate: no remark */
	bool checked_ok;        /* --deepprof-parallelize=checked and the feedback says
				   checked: made even when GCC proves nothing */
	const char *unproved;   /* then what GCC could not prove (xstrdup'd), or NULL */
	bool loop;              /* a loop candidate: a task per iteration */
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

static tree signal_flag(tree flag);
static const char *thread_state(tree fn, int depth, hash_set<tree> &seen);
static const char *stores_in_source(tree fn, int depth, hash_set<tree> &seen, char *buf, size_t n);

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
			if ((unsigned)x.line != k->at.line || (unsigned)x.column != k->at.col)
				continue;
			/* a call through a pointer has no callee on either side */
			if ((name || k->callee) && (!name || !k->callee || strcmp(name, k->callee)))
				continue;
			if (fd->f[i].slot == tp)
				break;  /* one place reached twice (a shared SAVE_EXPR: s += f()) */
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

unsigned dp_find_cand_calls(tree fndecl, const struct dpu_cand *c, tree **slots, bool *twice)
{
	struct finder fd = { c, XCNEWVEC(struct found, c->n_calls), vNULL, 0, false };
	find_calls(&fd, &DECL_SAVED_TREE(fndecl));
	fd.stack.release();
	for (unsigned i = 0; i < c->n_calls; i++) {
		slots[i] = fd.f[i].slot;
		fd.f[i].path.release();
	}
	free(fd.f);
	*twice = fd.twice;
	return fd.n_found;
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

struct future {
	int out;                /* P's argument &v */
	int vin;                /* C's argument v */
	tree v;                 /* the caller's variable */
	tree p_fn, c_fn;        /* the copies */
	tree flag;              /* the caller's int flag */
};

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
	struct future *fu;      /* dependent calls: the future's copies, else NULL */
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
/* Call i of a future's pair, calling its copy with the future's arguments. */
static tree future_call(struct gen *g, unsigned i)
{
	struct future *fu = g->fu;
	tree call = unshare_expr(g->orig[i]);
	tree fn = i == 0 ? fu->p_fn : fu->c_fn;
	int n = call_expr_nargs(call);
	vec<tree, va_gc> *args = NULL;
	for (int a = 0; a < n; a++)
		vec_safe_push(args, i == 1 && a == fu->vin ? build_zero_cst(TREE_TYPE(CALL_EXPR_ARG(call, a)))
			      : CALL_EXPR_ARG(call, a));
	tree flag = build_fold_addr_expr(fu->flag);
	if (i == 1)
		vec_safe_push(args, build_fold_addr_expr(fu->v));
	vec_safe_push(args, flag);
	tree nc = build_call_vec(TREE_TYPE(TREE_TYPE(fn)), build_fold_addr_expr(fn), args);
	SET_EXPR_LOCATION(nc, EXPR_LOCATION(g->orig[i]));
	return g->tmp[i] ? build2(MODIFY_EXPR, TREE_TYPE(g->tmp[i]), g->tmp[i], nc) : nc;
}

/* The future's region: the consumer spawned, the producer run here (it
 * never waits), its flag raised again in case it never stored, wait. */
static tree future_tasks(struct gen *g, tree scope)
{
	tree list = NULL_TREE, body = NULL_TREE, clauses = NULL_TREE;
	struct future *fu = g->fu;
	append_to_statement_list(build2(MODIFY_EXPR, integer_type_node, fu->flag, integer_zero_node), &list);
	append_to_statement_list(future_call(g, 1), &body);
	clauses = omp_clause(OMP_CLAUSE_SHARED, fu->flag, clauses);
	clauses = omp_clause(OMP_CLAUSE_SHARED, fu->v, clauses);
	if (g->tmp[1])
		clauses = omp_clause(OMP_CLAUSE_SHARED, g->tmp[1], clauses);
	tree t = build2(OMP_TASK, void_type_node, bind(body, new_block(scope)), clauses);
	SET_EXPR_LOCATION(t, EXPR_LOCATION(g->orig[1]));
	append_to_statement_list(t, &list);
	append_to_statement_list(future_call(g, 0), &list);
	append_to_statement_list(signal_flag(build_fold_addr_expr(fu->flag)), &list);
	append_to_statement_list(call0(builtin_decl_explicit(BUILT_IN_GOMP_TASKWAIT)), &list);
	return list;
}

static tree tasks(struct gen *g, tree scope)
{
	if (g->fu)
		return future_tasks(g, scope);
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
	tree single = build1(OMP_MASTER, void_type_node, bind(tasks(g, sb), sb));
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

/* A static copy of fndecl named NAME.SUFFIX, its body as written (the
 * front end's GENERIC, remapped by tree-inline's copy_fn), with parameters
 * of the types in the TREE_LIST extra appended; NULL with *why when it
 * cannot be made. */
tree dp_clone_fn(tree fndecl, const char *suffix, tree extra, const char **why)
{
	cgraph_node *node = cgraph_node::get(fndecl);
	if (!DECL_SAVED_TREE(fndecl) || !DECL_STRUCT_FUNCTION(fndecl)) {
		*why = "its body is not known here (defined later, or in another unit)";
		return NULL_TREE;
	}
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
	char *name = concat(dp_decl_name(fndecl), suffix, NULL);
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
	if (extra) {
		/* the type gets the new parameters' types before its closing void */
		tree types = NULL_TREE;
		for (tree t = TYPE_ARG_TYPES(TREE_TYPE(fndecl)); t && t != void_list_node; t = TREE_CHAIN(t))
			types = tree_cons(NULL_TREE, TREE_VALUE(t), types);
		tree *tail = &parms;
		while (*tail)
			tail = &DECL_CHAIN(*tail);
		unsigned k = 0;
		for (tree e = extra; e; e = TREE_CHAIN(e), k++) {
			char pn[16];
			snprintf(pn, sizeof pn, "dp_arg%u", k);
			tree p = build_decl(DECL_SOURCE_LOCATION(fndecl), PARM_DECL, get_identifier(pn),
					    TREE_VALUE(e));
			DECL_ARG_TYPE(p) = TREE_VALUE(e);
			DECL_ARTIFICIAL(p) = 1;
			TREE_USED(p) = 1;
			*tail = p;
			tail = &DECL_CHAIN(p);
			types = tree_cons(NULL_TREE, TREE_VALUE(e), types);
		}
		types = nreverse(types);
		types = chainon(types, void_list_node);
		TREE_TYPE(s) = build_function_type(TREE_TYPE(TREE_TYPE(fndecl)), types);
	}
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
	return s;
}

/* The front end's last steps for a copy: a struct function, the lowering
 * of its loops (c_genericize), and the call graph. */
void dp_finish_clone(tree fndecl, tree s)
{
	push_struct_function(s);
	cfun->function_end_locus = DECL_STRUCT_FUNCTION(fndecl)->function_end_locus;
	pop_cfun();
	dp_par_note(s);
	c_genericize(s);
	cgraph_node::finalize_function(s, true);
}

/* F.dp_serial: fndecl's body as written, its recursive calls its own. */
static tree serial_copy(tree fndecl, const char **why)
{
	tree s = dp_clone_fn(fndecl, ".dp_serial", NULL_TREE, why);
	if (!s)
		return NULL_TREE;
	tree fns[2] = { fndecl, s };
	walk_tree(&DECL_SAVED_TREE(s), redirect, fns, NULL);
	dp_finish_clone(fndecl, s);
	return s;
}

/* ================= futures: dependent calls that overlap ================= */

/* The shape: P(..., &v, ...) then C(..., v, ...), where P stores *out (its
 * parameter for &v) once, at a statement, and uses out for nothing else,
 * and C never assigns v or takes its address. Then P.dp_future(..., int
 * *flag) signals after that store, C.dp_future(..., T *vp, int *flag)
 * waits for the signal at each use of v (then reads *vp), and the region
 * spawns the consumer and runs the producer itself: the producer never
 * waits, so nothing can wait for ever. */

/* Each use of decl, with its parent's slot */
struct uses {
	tree decl;
	vec<tree *> parents;    /* the slot of each use's parent (NULL at the root) */
	vec<tree *> slots;
};

static void find_uses(struct uses *u, tree *tp, tree *parent)
{
	tree t = *tp;
	if (!t || TYPE_P(t) || CONSTANT_CLASS_P(t) || TREE_CODE(t) == IDENTIFIER_NODE)
		return;
	if (t == u->decl) {
		u->parents.safe_push(parent);
		u->slots.safe_push(tp);
		return;
	}
	if (DECL_P(t))
		return;
	if (TREE_CODE(t) == STATEMENT_LIST) {
		for (tree_stmt_iterator i = tsi_start(t); !tsi_end_p(i); tsi_next(&i))
			find_uses(u, tsi_stmt_ptr(i), tp);
	} else if (TREE_CODE(t) == DECL_EXPR) {
		tree d = DECL_EXPR_DECL(t);
		if (VAR_P(d) && DECL_INITIAL(d))
			find_uses(u, &DECL_INITIAL(d), tp);
	} else if (EXPR_P(t) || TREE_CODE(t) == BIND_EXPR) {
		for (int i = 0; i < TREE_OPERAND_LENGTH(t); i++)
			if (TREE_OPERAND(t, i))
				find_uses(u, &TREE_OPERAND(t, i), tp);
	}
}

static tree nth_parm(tree fn, int n)
{
	tree p = DECL_ARGUMENTS(fn);
	while (p && n-- > 0)
		p = DECL_CHAIN(p);
	return p;
}

/* The one statement of P's copy that stores through out, or NULL with *why. */
static tree *producer_store(tree fn, tree out, const char **why)
{
	struct uses u = { out, vNULL, vNULL };
	find_uses(&u, &DECL_SAVED_TREE(fn), NULL);
	tree *store = NULL;
	*why = NULL;
	for (unsigned i = 0; i < u.slots.length() && !*why; i++) {
		tree *ps = u.parents[i];
		tree p = ps ? *ps : NULL_TREE;
		/* *out = E: INDIRECT_REF(out) or MEM_REF(out, 0) as a MODIFY's left side */
		bool deref = p && (TREE_CODE(p) == INDIRECT_REF ||
				   (TREE_CODE(p) == MEM_REF && integer_zerop(TREE_OPERAND(p, 1))));
		if (!deref) {
			*why = "the producer uses the pointer to the variable for more than one store";
			break;
		}
		/* find the MODIFY_EXPR statement holding it: its parent must be */
		tree *m = NULL;
		struct uses s2 = { p, vNULL, vNULL };
		find_uses(&s2, &DECL_SAVED_TREE(fn), NULL);
		if (s2.slots.length() == 1 && s2.parents[0] && TREE_CODE(*s2.parents[0]) == MODIFY_EXPR &&
		    TREE_OPERAND(*s2.parents[0], 0) == p)
			m = s2.parents[0];
		s2.parents.release();
		s2.slots.release();
		if (!m) {
			*why = "the producer reads the variable through its pointer, or stores it in an expression";
			break;
		}
		if (store) {
			*why = "the producer stores the variable more than once";
			break;
		}
		store = m;
	}
	if (!store && !*why)
		*why = "the producer never stores the variable";
	u.parents.release();
	u.slots.release();
	return *why ? NULL : store;
}

/* Whether the statement at slot is a statement (its parent a list or a
 * scope), outside any loop of fn's body. */
static bool stmt_outside_loops(tree *tp, tree *slot, bool in_loop, bool *found)
{
	tree t = *tp;
	if (tp == slot) {
		*found = true;
		return !in_loop;
	}
	if (!t || TYPE_P(t) || CONSTANT_CLASS_P(t) || DECL_P(t))
		return true;
	bool loop = in_loop || TREE_CODE(t) == LOOP_EXPR;
	if (TREE_CODE(t) == STATEMENT_LIST) {
		for (tree_stmt_iterator i = tsi_start(t); !tsi_end_p(i) && !*found; tsi_next(&i))
			if (!stmt_outside_loops(tsi_stmt_ptr(i), slot, loop, found))
				return false;
		return true;
	}
	if (EXPR_P(t) || TREE_CODE(t) == BIND_EXPR)
		for (int i = 0; i < TREE_OPERAND_LENGTH(t) && !*found; i++)
			if (TREE_OPERAND(t, i) && !stmt_outside_loops(&TREE_OPERAND(t, i), slot, loop, found))
				return false;
	return true;
}

/* Whether code of fn (and what it calls in this unit) can reach a task
 * scheduling point: OpenMP, parallel code of ours, or calls we cannot see.
 * Then a producer run inline could run the consumer's task under itself,
 * and wait for ever. */
static hash_set<tree> *quiet_fns;
static vec<tree> par_fns;       /* functions given parallel code */

static bool may_schedule(tree fn, int depth);

static tree scan_sched(tree *tp, int *walk, void *data)
{
	int depth = *(int *)data;
	tree t = *tp;
	if (TYPE_P(t)) {
		*walk = 0;
		return NULL_TREE;
	}
	if (TREE_CODE(t) >= OMP_PARALLEL && TREE_CODE(t) <= OMP_TARGET_EXIT_DATA)
		return t;
	if (TREE_CODE(t) == CALL_EXPR && CALL_EXPR_FN(t)) {
		tree callee = get_callee_fndecl(t);
		if (!callee)
			return t;               /* through a pointer */
		if (may_schedule(callee, depth + 1))
			return t;
	}
	return NULL_TREE;
}

static bool may_schedule(tree fn, int depth)
{
	if (fndecl_built_in_p(fn)) {
		const char *n = dp_decl_name(fn);
		return !strncmp(n, "GOMP_", 5) || !strncmp(n, "omp_", 4) || !strncmp(n, "__builtin_GOMP", 14);
	}
	if (par_fns.contains(fn))
		return true;
	if (!DECL_SAVED_TREE(fn))
		return !DECL_IN_SYSTEM_HEADER(fn) || !strncmp(dp_decl_name(fn), "omp_", 4);
	if (!quiet_fns)
		quiet_fns = new hash_set<tree>;
	if (quiet_fns->contains(fn) || depth > 20)
		return depth > 20;
	quiet_fns->add(fn);     /* recursion: assumed quiet while it is looked at */
	int d = depth;
	if (walk_tree_without_duplicates(&DECL_SAVED_TREE(fn), scan_sched, &d)) {
		quiet_fns->remove(fn);
		return true;
	}
	return false;
}

static tree wait_then(tree flag, tree value)
{
	/* while (!__atomic_load_n(flag, acquire)) __builtin_ia32_pause(); value */
	tree load = build_call_expr(builtin_decl_explicit(BUILT_IN_ATOMIC_LOAD_4), 2, flag,
				    build_int_cst(integer_type_node, MEMMODEL_ACQUIRE));
	tree ready = build2(NE_EXPR, boolean_type_node, fold_convert(integer_type_node, load),
			    integer_zero_node);
	tree loop = build1(LOOP_EXPR, void_type_node, build1(EXIT_EXPR, void_type_node, ready));
	return build2(COMPOUND_EXPR, TREE_TYPE(value), loop, value);
}

static tree signal_flag(tree flag)
{
	return build_call_expr(builtin_decl_explicit(BUILT_IN_ATOMIC_STORE_4), 3, flag, integer_one_node,
			       build_int_cst(integer_type_node, MEMMODEL_RELEASE));
}

static tree find_decl(tree *tp, int *walk, void *data)
{
	if (TYPE_P(*tp))
		*walk = 0;
	return *tp == (tree)data ? *tp : NULL_TREE;
}

static tree replace_v(tree *tp, int *walk, void *data)
{
	tree *m = (tree *)data;         /* { v, vp, flag } */
	if (TYPE_P(*tp)) {
		*walk = 0;
		return NULL_TREE;
	}
	if (*tp == m[0]) {
		*tp = wait_then(m[2], build1(INDIRECT_REF, TREE_TYPE(m[0]), m[1]));
		*walk = 0;
	}
	return NULL_TREE;
}

/* Checks the shape and makes the two copies; NULL when done, else why not. */
static const char *make_future(tree fndecl, const struct dpu_cand *c, const struct dpu_dep *d,
			       struct found *f, struct future *fu)
{
	if (c->n_calls != 2 || d->from != 0 || d->to != 1 || c->calls[0].task == c->calls[1].task)
		return "futures are made for one producer and one consumer after it, in two tasks";
	tree pc = *f[0].slot, cc = *f[1].slot;
	fu->out = fu->vin = -1;
	fu->v = NULL_TREE;
	for (int i = 0; i < call_expr_nargs(pc); i++) {
		tree a = CALL_EXPR_ARG(pc, i);
		STRIP_NOPS(a);
		if (TREE_CODE(a) == ADDR_EXPR && VAR_P(TREE_OPERAND(a, 0)) && d->var &&
		    !strcmp(dp_decl_name(TREE_OPERAND(a, 0)), d->var)) {
			fu->out = i;
			fu->v = TREE_OPERAND(a, 0);
		}
	}
	if (!fu->v || is_global_var(fu->v) || DECL_CONTEXT(fu->v) != fndecl)
		return "the producer is not given the address of a local variable the consumer reads";
	for (int i = 0; i < call_expr_nargs(cc); i++) {
		tree a = CALL_EXPR_ARG(cc, i);
		STRIP_NOPS(a);
		if (a == fu->v)
			fu->vin = fu->vin < 0 ? i : -2;
		else if (walk_tree_without_duplicates(&CALL_EXPR_ARG(cc, i), find_decl, fu->v))
			return "the consumer's arguments use the variable in an expression";
	}
	if (fu->vin < 0)
		return "the consumer is not given the variable as one argument";
	tree pf = get_callee_fndecl(pc), cf = get_callee_fndecl(cc);
	if (!pf || !cf || pf == cf)
		return "the producer and the consumer must be two known functions";
	if (may_schedule(pf, 0))
		return "the producer may reach OpenMP code or unknown calls, where it could wait for its "
		       "own consumer";
	const char *why = NULL;
	/* the producer's copy: signal after its store */
	tree ptr_int = build_pointer_type(integer_type_node);
	tree p = dp_clone_fn(pf, ".dp_future", tree_cons(NULL_TREE, ptr_int, NULL_TREE), &why);
	if (!p)
		return why;
	tree out = nth_parm(p, fu->out);
	tree *store = out ? producer_store(p, out, &why) : NULL;
	bool found = false;
	if (store && !stmt_outside_loops(&DECL_SAVED_TREE(p), store, false, &found))
		why = "the producer stores the variable in a loop";
	if (!store || why)
		return why ? why : "the producer's parameter is not found";
	tree pflag = nth_parm(p, list_length(DECL_ARGUMENTS(pf)));
	*store = build2(COMPOUND_EXPR, void_type_node, *store, signal_flag(pflag));
	/* the consumer's copy: wait at each use of v */
	tree vt = TREE_TYPE(nth_parm(cf, fu->vin) ? nth_parm(cf, fu->vin) : fu->v);
	tree cq = dp_clone_fn(cf, ".dp_future", tree_cons(NULL_TREE, build_pointer_type(vt),
						       tree_cons(NULL_TREE, ptr_int, NULL_TREE)), &why);
	if (!cq)
		return why;
	tree vparm = nth_parm(cq, fu->vin);
	struct uses u = { vparm, vNULL, vNULL };
	find_uses(&u, &DECL_SAVED_TREE(cq), NULL);
	for (unsigned i = 0; i < u.slots.length() && !why; i++) {
		tree par = u.parents[i] ? *u.parents[i] : NULL_TREE;
		if (par && (TREE_CODE(par) == ADDR_EXPR ||
			    ((TREE_CODE(par) == MODIFY_EXPR || TREE_CODE(par) == INIT_EXPR) &&
			     TREE_OPERAND(par, 0) == vparm) ||
			    TREE_CODE(par) == PREINCREMENT_EXPR || TREE_CODE(par) == POSTINCREMENT_EXPR ||
			    TREE_CODE(par) == PREDECREMENT_EXPR || TREE_CODE(par) == POSTDECREMENT_EXPR))
			why = "the consumer assigns its parameter or takes its address";
	}
	u.parents.release();
	u.slots.release();
	if (why)
		return why;
	tree vp = nth_parm(cq, list_length(DECL_ARGUMENTS(cf)));
	tree m[3] = { vparm, vp, DECL_CHAIN(vp) };
	walk_tree(&DECL_SAVED_TREE(cq), replace_v, m, NULL);
	dp_finish_clone(pf, p);
	dp_finish_clone(cf, cq);
	fu->p_fn = p;
	fu->c_fn = cq;
	return NULL;
}

/* ================= the transformation ================= */

static bool wanted_by_id(unsigned id)
{
	const char *p = dp_opt.parallelize;
	if (!p || !strcmp(p, "safe") || !strcmp(p, "none") || !strcmp(p, "checked"))
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

/* not_done, with the line of where when it has one: "why (line N)". */
static void not_done_at(struct par_rec *r, const char *why, location_t where)
{
	expanded_location x = expand_location(where);
	char buf[300];
	if (x.line)
		snprintf(buf, sizeof buf, "%s (line %d)", why, x.line);
	else
		snprintf(buf, sizeof buf, "%s", why);
	not_done(r, buf);
}

/* A recursive candidate's F.dp_serial, r's cut-off set; NULL when it
 * cannot be made (r says why). */
static tree serial_for(tree fndecl, struct par_rec *r, unsigned cutoff)
{
	const char *why = NULL;
	tree s = serial_copy(fndecl, &why);
	if (!s)
		not_done(r, why);
	else
		r->cutoff = cutoff;
	return s;
}

static void transform(tree fndecl, const struct dpu_feedback *fb, struct par_rec *r)
{
	const struct dpu_cand *c = r->c;
	const char *fname = dp_decl_name(fndecl);
	const struct dpu_dep *dep = NULL;
	for (unsigned i = 0; i < c->n_deps; i++)
		if (c->deps[i].known) {
			if (dep) {
				not_done(r, "more than one value passes between the calls: futures are made for one");
				return;
			}
			dep = &c->deps[i];
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
	for (unsigned i = 0; i < c->n_calls; i++)
		if (!c->calls[i].callee) {
			not_done(r, "a call through a pointer: its callee is not known here");
			return;
		}
	if (!flag_openmp || !builtin_decl_explicit(BUILT_IN_GOMP_TASKWAIT)) {
		not_done(r, "parallel code needs -fopenmp (deepprof-cc adds it)");
		return;
	}
	/* naming it is consent; --deepprof-parallelize=checked is consent for
	 * what a dependence check saw independent, once GCC has had its say
	 * (so a candidate it proves is remarked proved) */
	bool consent = wanted_by_id(c->id);
	r->checked_ok = c->checked && !strcmp(dp_opt.parallelize, "checked");

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
			not_done_at(r, ck.why, ck.where);
			goto out;
		}

		/* safety */
		tree serial_fn = NULL_TREE;
		if (dc && !(serial_fn = serial_for(fndecl, r, rec->cutoff_depth)))
			goto out;
		for (unsigned i = 0; i < c->n_calls; i++) {
			tree fn = serial_fn ? serial_fn : get_callee_fndecl(*fd.f[i].slot);
			if (!r->callees.contains(fn)) {
				r->callees.safe_push(fn);
				r->declared.safe_push(flags_from_decl_or_type(fn) & (ECF_CONST | ECF_PURE));
			}
		}
		tree guard = NULL_TREE;
		if (consent) {
			guard = integer_one_node;
			r->state = PS_DONE;
			r->safety = NULL;
		} else if (!optimize || dp_opt.instrument) {
			/* GCC's analyses do not run, or see the hooks instead of
			 * the program: what the source says */
			char buf[300];
			const char *why = NULL, *tls = NULL;
			for (unsigned i = 0; i < r->callees.length() && !why && !tls; i++) {
				hash_set<tree> seen, seen2;
				tls = thread_state(r->callees[i], 0, seen2);
				if (tls)
					snprintf(buf, sizeof buf, "%s() reads thread-local state (%s), which a task on "
						 "another thread would see differently", shown(r->callees[i]), tls);
				else
					why = stores_in_source(r->callees[i], 0, seen, buf, sizeof buf);
			}
			if ((why || tls) && r->checked_ok) {
				guard = integer_one_node;
				r->state = PS_DONE;
				r->safety = NULL;
				r->unproved = xstrdup(buf);
			} else if (why || tls) {
				char msg[600];
				snprintf(msg, sizeof msg, "not proved safe: %s (%s; name it with "
					 "--deepprof-parallelize=%u)", buf, !optimize ? "at -O0 GCC's analyses do not "
					 "run" : "in an instrumented build the hooks hide the callees from GCC's "
					 "analyses: the uninstrumented use build says what they prove", c->id);
				not_done(r, msg);
				goto out;
			}
			if (r->state != PS_DONE) {
				bool declared = true;
				char names[300];
				size_t w = 0;
				names[0] = 0;
				for (unsigned i = 0; i < r->callees.length() && w + 40 < sizeof names; i++) {
					declared &= declared_effects(r->callees[i]) != NULL;
					w += snprintf(names + w, sizeof names - w, "%s%s()", i ? (i + 1 == r->callees.length()
											 ? " and " : ", ") : "",
						      shown(r->callees[i]));
				}
				guard = integer_one_node;
				r->state = PS_DONE;
				char safety[500];
				snprintf(safety, sizeof safety, declared ? "%s declared const or pure" :
					 "%s store%s nothing but %s own locals (deepprof's reading of the source: GCC's "
					 "analyses cannot be used here)", names, r->callees.length() > 1 ? "" : "s",
					 r->callees.length() > 1 ? "their" : "its");
				r->safety = xstrdup(safety);
			}
		} else {
			r->guard = recs.length();       /* any unique number */
			guard = build2(NE_EXPR, boolean_type_node, guard_call(r->guard, r->at), integer_zero_node);
			r->state = PS_GUARDED;
		}

		/* dependent calls: the future's copies */
		struct future fu = {};
		if (dep) {
			const char *why = make_future(fndecl, c, dep, fd.f, &fu);
			if (why) {
				char msg[500];
				snprintf(msg, sizeof msg, "%s() uses %s, which %s() produces at %.0f%% of its run, "
					 "but no future is made: %s",
					 c->calls[dep->to].callee ? c->calls[dep->to].callee : "?",
					 dep->var ? dep->var : "?",
					 c->calls[dep->from].callee ? c->calls[dep->from].callee : "?",
					 100 * dep->produced, why);
				not_done(r, msg);
				goto out;
			}
			fu.flag = new_temp(fndecl, integer_type_node, "dp_flag");
			TREE_ADDRESSABLE(fu.flag) = 1;
			r->future_out = fu.out;
			r->dep = dep;
		}

		/* hoist: temporaries in the calls' places */
		struct gen g = { fndecl, c, fd.f, XCNEWVEC(tree, c->n_calls), XCNEWVEC(tree, c->n_calls),
				 serial_fn, r->cutoff, NULL_TREE, NULL_TREE, dep ? &fu : NULL };
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

/* ================= loops of calls: a task per iteration ================= */

/*
 * A loop candidate (schemas/feedback-model.md, "Loops of calls"): the
 * loop's one call, made in a statement `F(...);`, `v += F(...);` or
 * `v -= F(...);` with v an integer local the loop uses nowhere else,
 * becomes a task per iteration, its arguments evaluated when it is
 * spawned, its result added to v atomically; a taskwait follows the loop.
 * The rest of the loop may only assign local variables and call const or
 * pure functions, and may leave only by its condition or break (a return
 * or goto would leave tasks of later iterations running). The statement:
 *
 *     if (GUARD && omp_in_parallel() [&& depth < CUTOFF])
 *         { a_i = args; task firstprivate(a_i) shared(v) { v += F(a_i...) atomically } }
 *     else
 *         the statement as written [calling F.dp_serial]
 *
 * and a team is made where the function starts, when it is called
 * outside one: if (GUARD && !omp_in_parallel() && omp_get_max_threads() >
 * 1) { parallel { master { r = F(params) } } return r; } (the master is
 * the thread that came in). A recursive call (CUTOFF from the feedback)
 * spawns while the thread-local depth is below the cut-off, each task at
 * its parent's depth + 1, and calls F.dp_serial otherwise.
 */
struct loop_check {
	tree fndecl;
	tree stmt;              /* the call's statement: checked apart */
	tree v;                 /* the sum, or NULL */
	tree loop;
	const char *why;
	location_t where;
	hash_set<tree> *labels; /* the labels inside the loop */
};

static tree loop_labels(tree *tp, int *walk, void *data)
{
	struct loop_check *lc = (struct loop_check *)data;
	if (TYPE_P(*tp)) {
		*walk = 0;
		return NULL_TREE;
	}
	if (TREE_CODE(*tp) == LABEL_EXPR)
		lc->labels->add(LABEL_EXPR_LABEL(*tp));
	return NULL_TREE;
}

static void loop_fail(struct loop_check *lc, tree t, const char *why)
{
	if (!lc->why) {
		lc->why = why;
		lc->where = EXPR_P(t) ? EXPR_LOCATION(t) : UNKNOWN_LOCATION;
	}
}

static tree loop_scan(tree *tp, int *walk, void *data)
{
	struct loop_check *lc = (struct loop_check *)data;
	tree t = *tp;
	if (TYPE_P(t)) {
		*walk = 0;
		return NULL_TREE;
	}
	if (t == lc->stmt) {
		*walk = 0;
		return NULL_TREE;
	}
	if (lc->v && t == lc->v) {
		loop_fail(lc, lc->loop, "the sum is used elsewhere in the loop");
		return NULL_TREE;
	}
	switch (TREE_CODE(t)) {
	case CALL_EXPR: {
		tree fn = get_callee_fndecl(t);
		if (!fn || !(flags_from_decl_or_type(fn) & (ECF_CONST | ECF_PURE)) ||
		    (flags_from_decl_or_type(fn) & ECF_LOOPING_CONST_OR_PURE))
			loop_fail(lc, t, "the loop makes another call, not declared const or pure");
		break;
	}
	case MODIFY_EXPR:
	case INIT_EXPR:
	case PREDECREMENT_EXPR: case PREINCREMENT_EXPR:
	case POSTDECREMENT_EXPR: case POSTINCREMENT_EXPR:
		if (!plain_local(TREE_OPERAND(t, 0), lc->fndecl))
			loop_fail(lc, t, "the loop stores to memory other than local variables");
		break;
	case DECL_EXPR: {
		tree d = DECL_EXPR_DECL(t);
		if (VAR_P(d) && !TREE_STATIC(d) && DECL_INITIAL(d) && !plain_local(d, lc->fndecl))
			loop_fail(lc, t, "a variable of the loop is addressable or volatile");
		break;
	}
	case RETURN_EXPR:
		loop_fail(lc, t, "the loop can return: later iterations' tasks would still run");
		break;
	case GOTO_EXPR:
		if (TREE_CODE(GOTO_DESTINATION(t)) != LABEL_DECL || !lc->labels->contains(GOTO_DESTINATION(t)))
			loop_fail(lc, t, "a goto leaves the loop: later iterations' tasks would still run");
		break;
	case ASM_EXPR:
		loop_fail(lc, t, "the loop has an asm statement");
		break;
	default:
		if (TREE_THIS_VOLATILE(t) && EXPR_P(t))
			loop_fail(lc, t, "the loop reads volatile memory");
		break;
	}
	return NULL_TREE;
}

/* OpenMP code of the function's own: under the team the loop's function
 * makes where it starts, a parallel region of its would be nested (one
 * thread). */
static tree own_omp(tree *tp, int *walk, void *)
{
	if (TYPE_P(*tp)) {
		*walk = 0;
		return NULL_TREE;
	}
	switch (TREE_CODE(*tp)) {
	case OMP_PARALLEL: case OMP_TASK: case OMP_FOR: case OMP_SIMD: case OMP_DISTRIBUTE:
	case OMP_TASKLOOP: case OMP_TEAMS: case OMP_SECTIONS: case OMP_SINGLE: case OMP_MASTER:
	case OMP_CRITICAL: case OMP_TASKGROUP: case OMP_ORDERED: case OMP_TARGET:
		return *tp;
	default:
		return NULL_TREE;
	}
}

/* An address of a local variable inside the arguments: each task would
 * read it after the loop has moved on. */
static tree local_address(tree *tp, int *walk, void *data)
{
	tree fndecl = (tree)data;
	if (TYPE_P(*tp)) {
		*walk = 0;
		return NULL_TREE;
	}
	if (TREE_CODE(*tp) == ADDR_EXPR) {
		tree b = get_base_address(TREE_OPERAND(*tp, 0));
		if (b && DECL_P(b) && !is_global_var(b) && DECL_CONTEXT(b) == fndecl)
			return *tp;
	}
	return NULL_TREE;
}

static tree strip_conv(tree t)
{
	while (t && (CONVERT_EXPR_P(t) || TREE_CODE(t) == NON_LVALUE_EXPR))
		t = TREE_OPERAND(t, 0);
	return t;
}

/* The statement holding call (at *slot): `call;`, or v = v + call,
 * v = call + v, v = v - call (sign -1), the call maybe in a SAVE_EXPR
 * the statement evaluates first. Sets *v (NULL: no sum) and *minus;
 * false when it is none of these. */
static bool loop_stmt_shape(tree stmt, tree call, tree fndecl, tree *v, bool *minus)
{
	*v = NULL_TREE;
	*minus = false;
	tree s = stmt;
	if (TREE_CODE(s) == CONVERT_EXPR && VOID_TYPE_P(TREE_TYPE(s)))
		s = TREE_OPERAND(s, 0);
	if (s == call)
		return true;
	tree save = NULL_TREE;
	if (TREE_CODE(s) == COMPOUND_EXPR && TREE_CODE(TREE_OPERAND(s, 0)) == SAVE_EXPR &&
	    strip_conv(TREE_OPERAND(TREE_OPERAND(s, 0), 0)) == call) {
		save = TREE_OPERAND(s, 0);
		s = TREE_OPERAND(s, 1);
	}
	if (TREE_CODE(s) != MODIFY_EXPR)
		return false;
	tree lhs = TREE_OPERAND(s, 0), rhs = TREE_OPERAND(s, 1);
	if (!VAR_P(lhs) || !plain_local(lhs, fndecl) || !INTEGRAL_TYPE_P(TREE_TYPE(lhs)) ||
	    TREE_CODE(TREE_TYPE(lhs)) == BOOLEAN_TYPE || TREE_CODE(TREE_TYPE(lhs)) == ENUMERAL_TYPE)
		return false;
	/* the sum in an integer type at least as wide as v's: truncated to v,
	 * it is the sum of the truncated terms (arithmetic modulo 2^n) */
	if (CONVERT_EXPR_P(rhs) && INTEGRAL_TYPE_P(TREE_TYPE(TREE_OPERAND(rhs, 0))))
		rhs = TREE_OPERAND(rhs, 0);
	if ((TREE_CODE(rhs) != PLUS_EXPR && TREE_CODE(rhs) != MINUS_EXPR) ||
	    !INTEGRAL_TYPE_P(TREE_TYPE(rhs)) ||
	    TYPE_PRECISION(TREE_TYPE(rhs)) < TYPE_PRECISION(TREE_TYPE(lhs)))
		return false;
	tree a = strip_conv(TREE_OPERAND(rhs, 0)), b = strip_conv(TREE_OPERAND(rhs, 1));
	bool is_call_a = a == call || (save && a == save), is_call_b = b == call || (save && b == save);
	if (a == lhs && is_call_b) {
		*minus = TREE_CODE(rhs) == MINUS_EXPR;
	} else if (b == lhs && is_call_a && TREE_CODE(rhs) == PLUS_EXPR) {
		*minus = false;
	} else {
		return false;
	}
	*v = lhs;
	return true;
}

/* __atomic_fetch_add/sub (&v, x, relaxed) for integer v of 1-8 bytes. */
static tree atomic_update(tree v, tree x, bool minus)
{
	unsigned bytes = tree_to_uhwi(TYPE_SIZE_UNIT(TREE_TYPE(v)));
	int k = bytes == 1 ? 1 : bytes == 2 ? 2 : bytes == 4 ? 3 : bytes == 8 ? 4 : 0;
	if (!k)
		return NULL_TREE;
	tree fn = builtin_decl_explicit((enum built_in_function)((minus ? BUILT_IN_ATOMIC_FETCH_SUB_N
								   : BUILT_IN_ATOMIC_FETCH_ADD_N) + k));
	if (!fn)
		return NULL_TREE;
	tree itype = TREE_VALUE(TREE_CHAIN(TYPE_ARG_TYPES(TREE_TYPE(fn))));
	return build_call_expr(fn, 3, build_fold_addr_expr(v), fold_convert(itype, x),
			       build_int_cst(integer_type_node, MEMMODEL_RELAXED));
}

static void transform_loop(tree fndecl, const struct dpu_feedback *fb, struct par_rec *r)
{
	const struct dpu_cand *c = r->c;
	const char *fname = dp_decl_name(fndecl);
	r->loop = true;
	if (c->n_calls != 1 || !c->calls[0].callee) {
		not_done(r, c->n_calls != 1 ? "a loop candidate has one call" :
			 "a call through a pointer: its callee is not known here");
		return;
	}
	if (!flag_openmp || !builtin_decl_explicit(BUILT_IN_GOMP_TASKWAIT)) {
		not_done(r, "parallel code needs -fopenmp (deepprof-cc adds it)");
		return;
	}
	bool consent = wanted_by_id(c->id);
	r->checked_ok = c->checked && !strcmp(dp_opt.parallelize, "checked");
	bool rec = !strcmp(c->calls[0].callee, fname);
	if (rec && !c->loop_cutoff) {
		not_done(r, "a recursive call in a loop without a cut-off depth in the feedback");
		return;
	}
	if (stdarg_p(TREE_TYPE(fndecl))) {
		not_done(r, "the function is variadic");
		return;
	}

	hash_set<tree> labels;
	struct loop_check lc = { fndecl, NULL_TREE, NULL_TREE, NULL_TREE, NULL, UNKNOWN_LOCATION, &labels };
	if (walk_tree_without_duplicates(&DECL_SAVED_TREE(fndecl), own_omp, NULL)) {
		not_done(r, "the function has OpenMP code of its own, which the team made for the "
			 "loop would nest");
		return;
	}
	struct finder fd = { c, XCNEWVEC(struct found, 1), vNULL, 0, false };
	find_calls(&fd, &DECL_SAVED_TREE(fndecl));
	fd.stack.release();
	if (fd.n_found != 1 || fd.twice) {
		not_done(r, fd.twice ? "two calls of the source share one place"
			 : "its call is not found where the feedback places it");
		goto out;
	}
	r->at = EXPR_LOCATION(*fd.f[0].slot);
	{
		vec<tree *> &path = fd.f[0].path;
		tree call = *fd.f[0].slot;
		/* the innermost loop holding the call, and the call's statement:
		 * the child of the innermost statement container below it */
		int li = -1, si = -1;
		for (int k = (int)path.length() - 1; k >= 0 && li < 0; k--) {
			enum tree_code code = TREE_CODE(*path[k]);
			if (code == FOR_STMT || code == WHILE_STMT || code == DO_STMT)
				li = k;
		}
		if (li < 0) {
			not_done(r, "its call is not in a loop");
			goto out;
		}
		for (int k = li; k + 1 < (int)path.length(); k++) {
			tree p = *path[k];
			enum tree_code code = TREE_CODE(p);
			if (code == STATEMENT_LIST || code == BIND_EXPR || code == FOR_STMT ||
			    code == WHILE_STMT || code == DO_STMT ||
			    (code == COND_EXPR && path[k + 1] != &TREE_OPERAND(p, 0)))
				si = k + 1;
		}
		if (si < 0 || si == (int)path.length()) {
			not_done(r, "its call is not a statement of the loop's body");
			goto out;
		}
		for (int k = li + 1; k < si; k++)
			if (TREE_CODE(*path[k]) == FOR_STMT || TREE_CODE(*path[k]) == WHILE_STMT ||
			    TREE_CODE(*path[k]) == DO_STMT) {
				not_done(r, "its call is in an inner loop");
				goto out;
			}
		tree *stmt_slot = path[si];
		tree *loop_slot = path[li];
		bool minus = false;
		tree v = NULL_TREE;
		if (!loop_stmt_shape(*stmt_slot, call, fndecl, &v, &minus)) {
			not_done(r, "its statement is not `f(...);`, `v += f(...);` or `v -= f(...);` with "
				 "v an integer local variable");
			goto out;
		}
		for (int a = 0; a < call_expr_nargs(call); a++) {
			tree arg = CALL_EXPR_ARG(call, a);
			if (TREE_SIDE_EFFECTS(arg)) {
				not_done(r, "the call's arguments have side effects");
				goto out;
			}
			if (walk_tree_without_duplicates(&CALL_EXPR_ARG(call, a), local_address, fndecl)) {
				not_done(r, "the call is passed the address of a local variable, which the "
					 "next iteration may change while the task reads it");
				goto out;
			}
		}
		lc.stmt = *stmt_slot;
		lc.v = v;
		lc.loop = *loop_slot;
		walk_tree_without_duplicates(loop_slot, loop_labels, &lc);
		walk_tree_without_duplicates(loop_slot, loop_scan, &lc);
		if (lc.why) {
			not_done_at(r, lc.why, lc.where);
			goto out;
		}

		/* safety, as for a stretch of calls: what GCC proves of the callee */
		tree serial_fn = NULL_TREE;
		if (rec && !(serial_fn = serial_for(fndecl, r, c->loop_cutoff)))
			goto out;
		tree callee = serial_fn ? serial_fn : get_callee_fndecl(call);
		if (!callee) {
			not_done(r, "a call through a pointer: its callee is not known here");
			goto out;
		}
		r->callees.safe_push(callee);
		r->declared.safe_push(flags_from_decl_or_type(callee) & (ECF_CONST | ECF_PURE));
		tree guard = NULL_TREE;
		if (consent) {
			guard = integer_one_node;
			r->state = PS_DONE;
		} else if (!optimize || dp_opt.instrument) {
			char buf[300];
			hash_set<tree> seen, seen2;
			const char *tls = thread_state(callee, 0, seen2);
			const char *why = tls ? buf : stores_in_source(callee, 0, seen, buf, sizeof buf);
			if (tls)
				snprintf(buf, sizeof buf, "%s() reads thread-local state (%s)", shown(callee), tls);
			if (why && !r->checked_ok) {
				char msg[600];
				snprintf(msg, sizeof msg, "not proved safe: %s (name it with "
					 "--deepprof-parallelize=%u)", buf, c->id);
				not_done(r, msg);
				goto out;
			}
			guard = integer_one_node;
			r->state = PS_DONE;
			if (why) {
				r->unproved = xstrdup(buf);
			} else {
				char safety[300];
				snprintf(safety, sizeof safety, "%s() %s", shown(callee),
					 declared_effects(callee) ? "is declared const or pure" :
					 "stores nothing but its own locals (deepprof's reading of the source)");
				r->safety = xstrdup(safety);
			}
		} else {
			r->guard = recs.length();
			guard = build2(NE_EXPR, boolean_type_node, guard_call(r->guard, r->at), integer_zero_node);
			r->state = PS_GUARDED;
		}
		if (v && !atomic_update(v, integer_zero_node, minus)) {
			not_done(r, "the sum's type has no atomic update");
			goto out;
		}

		/* the spawning statement */
		location_t loc = EXPR_LOCATION(call);
		tree in_par = extern_fn(DPR_IN_PARALLEL, "omp_in_parallel",
					build_function_type_list(integer_type_node, NULL_TREE));
		tree max_thr = extern_fn(DPR_MAX_THREADS, "omp_get_max_threads",
					 build_function_type_list(integer_type_node, NULL_TREE));
		tree scope = DECL_INITIAL(fndecl);
		for (int k = 0; k < si; k++)
			if (TREE_CODE(*path[k]) == BIND_EXPR && BIND_EXPR_BLOCK(*path[k]))
				scope = BIND_EXPR_BLOCK(*path[k]);
		tree sb = new_block(scope), tb = new_block(sb);
		tree spawn = NULL_TREE, body = NULL_TREE, clauses = NULL_TREE;
		vec<tree, va_gc> *args = NULL;
		for (int a = 0; a < call_expr_nargs(call); a++) {
			tree arg = CALL_EXPR_ARG(call, a);
			char nm[24];
			snprintf(nm, sizeof nm, "dp_a%d", a);
			tree t = new_temp(fndecl, TREE_TYPE(arg), nm);
			append_to_statement_list(build2(MODIFY_EXPR, TREE_TYPE(t), t, unshare_expr(arg)), &spawn);
			clauses = omp_clause(OMP_CLAUSE_FIRSTPRIVATE, t, clauses);
			vec_safe_push(args, t);
		}
		tree d = NULL_TREE, saved = NULL_TREE;
		if (rec) {
			d = new_temp(fndecl, unsigned_type_node, "dp_depth");
			saved = new_temp(fndecl, unsigned_type_node, "dp_saved");
			append_to_statement_list(build2(MODIFY_EXPR, unsigned_type_node, d, depth_var()), &spawn);
			clauses = omp_clause(OMP_CLAUSE_FIRSTPRIVATE, d, clauses);
			clauses = omp_clause(OMP_CLAUSE_PRIVATE, saved, clauses);
			append_to_statement_list(build2(MODIFY_EXPR, unsigned_type_node, saved, depth_var()), &body);
			append_to_statement_list(set_depth(fold_build2(PLUS_EXPR, unsigned_type_node, d,
								       build_int_cst(unsigned_type_node, 1))), &body);
		}
		tree fn = get_callee_fndecl(call);
		tree nc = build_call_vec(TREE_TYPE(call), build_fold_addr_expr(fn), args);
		SET_EXPR_LOCATION(nc, loc);
		if (v) {
			tree res = new_temp(fndecl, TREE_TYPE(call), "dp_res");
			clauses = omp_clause(OMP_CLAUSE_PRIVATE, res, clauses);
			append_to_statement_list(build2(MODIFY_EXPR, TREE_TYPE(res), res, nc), &body);
			append_to_statement_list(atomic_update(v, fold_convert(TREE_TYPE(v), res), minus), &body);
			clauses = omp_clause(OMP_CLAUSE_SHARED, v, clauses);
			TREE_ADDRESSABLE(v) = 1;
		} else {
			append_to_statement_list(nc, &body);
		}
		if (rec)
			append_to_statement_list(set_depth(saved), &body);
		tree task = build2(OMP_TASK, void_type_node, bind(body, tb), clauses);
		SET_EXPR_LOCATION(task, loc);
		append_to_statement_list(task, &spawn);
		tree ok = build2(TRUTH_ANDIF_EXPR, boolean_type_node, guard,
				 build2(NE_EXPR, boolean_type_node, call0(in_par), integer_zero_node));
		if (rec)
			ok = build2(TRUTH_ANDIF_EXPR, boolean_type_node, ok,
				    build2(LT_EXPR, boolean_type_node, depth_var(),
					   build_int_cst(unsigned_type_node, r->cutoff)));
		tree orig = *stmt_slot;
		if (serial_fn)
			CALL_EXPR_FN(call) = build1(ADDR_EXPR, build_pointer_type(TREE_TYPE(serial_fn)), serial_fn);
		tree ifs = build3(COND_EXPR, void_type_node, ok, bind(spawn, sb), orig);
		SET_EXPR_LOCATION(ifs, loc);
		*stmt_slot = ifs;

		/* the taskwait after the loop */
		tree after = NULL_TREE;
		append_to_statement_list(*loop_slot, &after);
		append_to_statement_list(call0(builtin_decl_explicit(BUILT_IN_GOMP_TASKWAIT)), &after);
		*loop_slot = after;

		/* the team, where the function starts */
		tree fbody = DECL_SAVED_TREE(fndecl);
		if (TREE_CODE(fbody) != BIND_EXPR) {
			fbody = build3(BIND_EXPR, void_type_node, NULL_TREE, fbody, NULL_TREE);
			DECL_SAVED_TREE(fndecl) = fbody;
		}
		tree top = BIND_EXPR_BLOCK(fbody) ? BIND_EXPR_BLOCK(fbody) : DECL_INITIAL(fndecl);
		tree rb = new_block(top), pb = new_block(rb), mb = new_block(pb);
		vec<tree, va_gc> *params = NULL;
		for (tree p = DECL_ARGUMENTS(fndecl); p; p = DECL_CHAIN(p))
			vec_safe_push(params, p);
		tree self = build_call_vec(TREE_TYPE(TREE_TYPE(fndecl)), build_fold_addr_expr(fndecl), params);
		SET_EXPR_LOCATION(self, loc);
		tree ret = NULL_TREE, inner = NULL_TREE;
		tree rtype = TREE_TYPE(TREE_TYPE(fndecl));
		if (VOID_TYPE_P(rtype)) {
			append_to_statement_list(self, &inner);
		} else {
			ret = new_temp(fndecl, rtype, "dp_ret");
			append_to_statement_list(build2(MODIFY_EXPR, rtype, ret, self), &inner);
		}
		tree master = build1(OMP_MASTER, void_type_node, bind(inner, mb));
		SET_EXPR_LOCATION(master, loc);
		tree pclauses = NULL_TREE;
		for (tree p = DECL_ARGUMENTS(fndecl); p; p = DECL_CHAIN(p))
			pclauses = omp_clause(OMP_CLAUSE_SHARED, p, pclauses);
		if (ret)
			pclauses = omp_clause(OMP_CLAUSE_SHARED, ret, pclauses);
		tree par = build2(OMP_PARALLEL, void_type_node, bind(master, pb), pclauses);
		SET_EXPR_LOCATION(par, loc);
		tree team = NULL_TREE;
		append_to_statement_list(par, &team);
		tree rexpr = ret ? build2(MODIFY_EXPR, rtype, DECL_RESULT(fndecl), ret) : NULL_TREE;
		append_to_statement_list(build1(RETURN_EXPR, void_type_node, rexpr), &team);
		tree want = build2(TRUTH_ANDIF_EXPR, boolean_type_node, unshare_expr(guard),
				   build2(EQ_EXPR, boolean_type_node, call0(in_par), integer_zero_node));
		want = build2(TRUTH_ANDIF_EXPR, boolean_type_node, want,
			      build2(GT_EXPR, boolean_type_node, call0(max_thr), integer_one_node));
		tree pro = build3(COND_EXPR, void_type_node, want, bind(team, rb), NULL_TREE);
		SET_EXPR_LOCATION(pro, loc);
		tree nb = NULL_TREE;
		append_to_statement_list(pro, &nb);
		append_to_statement_list(BIND_EXPR_BODY(fbody), &nb);
		BIND_EXPR_BODY(fbody) = nb;
		if (!par_fns.contains(fndecl))
			par_fns.safe_push(fndecl);
	}
out:
	fd.f[0].path.release();
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
	r.fn_uid = (int)DECL_UID(fndecl);
	const struct par_rec *same = NULL;
	for (unsigned i = 0; i < recs.length() && !same; i++) {
		const struct dpu_cand *o = recs[i].c;
		if (recs[i].fn_uid != r.fn_uid || o->n_calls != c->n_calls)
			continue;
		bool eq = true;
		for (unsigned k = 0; k < c->n_calls && eq; k++)
			eq = o->calls[k].at.line == c->calls[k].at.line && o->calls[k].at.col == c->calls[k].at.col;
		if (eq)
			same = &recs[i];
	}
	if (same) {
		char why[200];
		snprintf(why, sizeof why, "its calls are candidate %u's of another feedback file, "
			 "already taken", same->c->id);
		r.why = xstrdup(why);
		r.dup = true;
	} else if (!strcmp(dp_opt.parallelize, "none"))
		r.why = "--deepprof-parallelize=none";
	else if (c->conflict)
		r.why = c->safety_why ? c->safety_why : "the dependence check saw a conflict";
	else if (!c->accepted && !wanted_by_id(c->id))
		r.why = c->verdict_why ? c->verdict_why : "the feedback does not recommend it";
	else if (strcmp(dp_opt.parallelize, "safe") && strcmp(dp_opt.parallelize, "checked") &&
		 !wanted_by_id(c->id))
		r.why = "not named by --deepprof-parallelize";
	else if (c->loop_line)
		transform_loop(fndecl, fb, &r);
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
	if (r->dep)
		snprintf(depth, sizeof depth, ", %s() waiting for %s where it uses it (a future)",
			 c->calls[r->dep->to].callee ? c->calls[r->dep->to].callee : "?",
			 r->dep->var ? r->dep->var : "?");
	char why[200];
	if (safety)
		snprintf(why, sizeof why, "safe: %s", safety);
	else if (r->checked_ok && !wanted_by_id(c->id))
		snprintf(why, sizeof why, "checked on %u input%s, not proved: "
			 "--deepprof-parallelize=checked%s%.100s", c->check_inputs,
			 c->check_inputs == 1 ? "" : "s", r->unproved ? "; GCC: " : "",
			 r->unproved ? r->unproved : "");
	else
		snprintf(why, sizeof why, "named by --deepprof-parallelize=%s", dp_opt.parallelize);
	if (c->loop_line)
		dp_use_remark(0, r->at, "candidate %u: %s in the loop at line %u run as a task per iteration%s "
			      "(predicted %.2fx on this loop, %.2fx on the program; %s)", c->id, what,
			      c->loop_line, depth, c->speedup, c->program_speedup, why);
	else
		dp_use_remark(0, r->at, "candidate %u: %s run as %u parallel tasks%s (predicted %.2fx on this "
			      "region, %.2fx on the program; %s)", c->id, what, c->n_tasks, depth, c->speedup,
			      c->program_speedup, why);
}

static void remark_not(const struct par_rec *r, const char *why)
{
	const struct dpu_cand *c = r->c;
	char what[400];
	call_list(c, what, sizeof what);
	if (c->loop_line)
		dp_use_remark(1, r->at, "candidate %u: %s in the loop at line %u as a task per iteration "
			      "(predicted %.2fx on this loop): not parallelized: %s", c->id, what, c->loop_line,
			      c->speedup, why ? why : "?");
	else
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
	if (r->dup)
		return;
	if (r->state == PS_NOT)
		remark_not(r, r->why);
	else if (r->state == PS_DONE)
		remark_done(r, r->safety);
	/* PS_GUARDED: the guard pass says */
}

/* ================= the guard pass ================= */

/* Thread-local state: what each function of the unit reads of it
 * directly, and whom it calls, noted from its GENERIC body at
 * PRE_GENERICIZE (by the guard pass, a callee may be inlined everywhere
 * and gone). A task on another thread would see another thread's. */
struct fn_facts {
	tree decl;
	const char *tls;        /* a thread-local variable or thread-identity call, or NULL */
	vec<tree> callees;
	bool stores;            /* stores to memory other than its own locals' */
	bool opaque;            /* asm, volatile, or calls through pointers */
};
static vec<struct fn_facts> facts;

static const char *const thread_ids[] = { "__errno_location", "pthread_self", "gettid",
					  "omp_get_thread_num", "sched_getcpu" };

/* Whether a store to ref writes only the function's own locals. */
static bool local_ref(tree ref, tree fn)
{
	while (handled_component_p(ref))
		ref = TREE_OPERAND(ref, 0);
	return (VAR_P(ref) || TREE_CODE(ref) == PARM_DECL || TREE_CODE(ref) == RESULT_DECL) &&
	       !is_global_var(ref) && DECL_CONTEXT(ref) == fn;
}

static tree note_op(tree *tp, int *walk, void *data)
{
	struct fn_facts *f = (struct fn_facts *)data;
	tree t = *tp;
	if (TYPE_P(t)) {
		*walk = 0;
		return NULL_TREE;
	}
	switch (TREE_CODE(t)) {
	case MODIFY_EXPR: case INIT_EXPR:
	case PREDECREMENT_EXPR: case PREINCREMENT_EXPR:
	case POSTDECREMENT_EXPR: case POSTINCREMENT_EXPR:
		if (!local_ref(TREE_OPERAND(t, 0), f->decl))
			f->stores = true;
		break;
	case ASM_EXPR:
		f->opaque = true;
		break;
	default:
		break;
	}
	if ((REFERENCE_CLASS_P(t) || DECL_P(t)) && TREE_THIS_VOLATILE(t))
		f->opaque = true;
	if (TREE_CODE(t) == CALL_EXPR && !get_callee_fndecl(t) && CALL_EXPR_FN(t))
		f->opaque = true;
	if (VAR_P(t) && DECL_THREAD_LOCAL_P(t) && !f->tls && t != depth_decl)
		f->tls = dp_decl_name(t);
	if (TREE_CODE(t) == CALL_EXPR) {
		tree callee = get_callee_fndecl(t);
		if (callee) {
			for (unsigned k = 0; k < sizeof thread_ids / sizeof thread_ids[0] && !f->tls; k++)
				if (!strcmp(dp_decl_name(callee), thread_ids[k]))
					f->tls = thread_ids[k];
			if (!f->callees.contains(callee))
				f->callees.safe_push(callee);
		}
	}
	return NULL_TREE;
}

void dp_par_note(tree fndecl)
{
	if (!DECL_SAVED_TREE(fndecl))
		return;
	struct fn_facts f = { fndecl, NULL, vNULL, false, false };
	walk_tree_without_duplicates(&DECL_SAVED_TREE(fndecl), note_op, &f);
	facts.safe_push(f);
}

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
	if (s && s->stores && !s->stores->every_base && vec_safe_is_empty(s->stores->bases) &&
	    !s->global_memory_written && !s->side_effects && !s->writes_errno) {
		*eff = "free of stores (ipa-modref)";
		return NULL;
	}
	bool here = false;
	for (unsigned i = 0; i < facts.length() && !here; i++)
		here = facts[i].decl == fn;
	if ((!node || !node->definition) && here)
		snprintf(buf, n, "%s() is neither const nor pure, and GCC inlined it everywhere before "
			 "ipa-modref's summary could be read", shown(fn));
	else if (!node || !node->definition)
		snprintf(buf, n, "%s() is defined in another unit and not declared const or pure", shown(fn));
	else if (!s || !s->stores || s->stores->every_base)
		snprintf(buf, n, "%s() may write any memory (GCC's ipa-pure-const and ipa-modref find no "
			 "bound)", shown(fn));
	else if (s->global_memory_written)
		snprintf(buf, n, "%s() may write memory ipa-modref cannot tie to its arguments (global "
			 "memory, or through a call it could not map)", shown(fn));
	else if (s->side_effects && vec_safe_is_empty(s->stores->bases))
		snprintf(buf, n, "%s() has side effects (ipa-modref)", shown(fn));
	else
		snprintf(buf, n, "%s() writes memory through its arguments (ipa-modref), which GCC "
			 "cannot prove disjoint", shown(fn));
	return buf;
}

static bool param_accesses(modref_records *t, vec<int> &parms, bool *global);

/* Whether fn's stores all go through its parameter n, by ipa-modref. */
static bool stores_only_through(tree fn, int n)
{
	cgraph_node *node = cgraph_node::get(fn);
	modref_summary *s = node ? get_modref_function_summary(node) : NULL;
	if (!s || !s->stores || s->global_memory_written)
		return false;
	vec<int> parms = vNULL;
	bool global = false;
	bool ok = param_accesses(s->stores, parms, &global) && !global;
	for (unsigned i = 0; i < parms.length() && ok; i++)
		ok = parms[i] == n;
	parms.release();
	return ok;
}

/* Whether fn stores nothing but its own locals, by its source and its
 * callees' (declared const or pure, or themselves so): what a build whose
 * instrumentation hides the program from GCC's analyses, or -O0, can know.
 * Recursion is assumed to keep the property. NULL, or the reason not. */
static const char *stores_in_source(tree fn, int depth, hash_set<tree> &seen, char *buf, size_t n)
{
	if (flags_from_decl_or_type(fn) & (ECF_CONST | ECF_PURE))
		return NULL;
	if (depth > 32 || seen.add(fn))
		return NULL;
	for (unsigned i = 0; i < facts.length(); i++) {
		if (facts[i].decl != fn)
			continue;
		if (facts[i].stores || facts[i].opaque) {
			snprintf(buf, n, "%s() %s", shown(fn), facts[i].stores ? "stores to memory that is not "
				 "its own locals'" : "has asm, volatile accesses or calls through pointers");
			return buf;
		}
		for (unsigned k = 0; k < facts[i].callees.length(); k++) {
			const char *why = stores_in_source(facts[i].callees[k], depth + 1, seen, buf, n);
			if (why)
				return why;
		}
		return NULL;
	}
	snprintf(buf, n, "%s() is defined elsewhere and not declared const or pure", shown(fn));
	return buf;
}

static const char *thread_state(tree fn, int depth, hash_set<tree> &seen)
{
	if (depth > 32 || seen.add(fn))
		return NULL;
	for (unsigned i = 0; i < facts.length(); i++) {
		if (facts[i].decl != fn)
			continue;
		if (facts[i].tls)
			return facts[i].tls;
		for (unsigned k = 0; k < facts[i].callees.length(); k++) {
			const char *n = thread_state(facts[i].callees[k], depth + 1, seen);
			if (n)
				return n;
		}
		return NULL;
	}
	return NULL;
}

/* The accesses of a modref tree, relative to parameters: false when some
 * access is not (global, unknown, or the tree collapsed). */
static bool param_accesses(modref_records *t, vec<int> &parms, bool *global)
{
	if (!t)
		return true;
	if (t->every_base)
		return false;
	modref_base_node<alias_set_type> *b;
	unsigned i, j, k;
	FOR_EACH_VEC_SAFE_ELT(t->bases, i, b) {
		if (b->every_ref)
			return false;
		modref_ref_node<alias_set_type> *rn;
		FOR_EACH_VEC_SAFE_ELT(b->refs, j, rn) {
			if (rn->every_access)
				return false;
			for (k = 0; k < vec_safe_length(rn->accesses); k++) {
				int pi = (*rn->accesses)[k].parm_index;
				if (pi == MODREF_GLOBAL_MEMORY_PARM)
					*global = true;
				else if (pi < 0)
					return false;
				else if (!parms.contains(pi))
					parms.safe_push(pi);
			}
		}
	}
	return true;
}

/* GCC's alias oracle on the serial calls of r in fun (the caller, after
 * its points-to analysis): whether no call writes memory another call
 * reads or writes, each callee's accesses being relative to its
 * arguments (ipa-modref). why: what it found. */
static bool disjoint_by_oracle(struct par_rec *r, function *fun, char *why, size_t n)
{
	const struct dpu_cand *c = r->c;
	vec<gcall *> calls = vNULL;
	basic_block bb;
	for (unsigned i = 0; i < c->n_calls; i++) {
		gcall *found = NULL;
		FOR_EACH_BB_FN(bb, fun)
			for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g) && !found; gsi_next(&g)) {
				gcall *call = dyn_cast<gcall *>(gsi_stmt(g));
				if (!call || !gimple_call_fndecl(call) || !r->callees.contains(gimple_call_fndecl(call)))
					continue;
				expanded_location x = expand_location(gimple_location(call));
				if ((unsigned)x.line == c->calls[i].at.line && (unsigned)x.column == c->calls[i].at.col)
					found = call;
			}
		if (!found) {
			snprintf(why, n, "the serial calls are not found after GCC's early inlining");
			calls.release();
			return false;
		}
		calls.safe_push(found);
	}
	bool ok = true;
	for (unsigned i = 0; i < calls.length() && ok; i++) {
		cgraph_node *ni = cgraph_node::get(gimple_call_fndecl(calls[i]));
		modref_summary *si = ni ? get_modref_function_summary(ni) : NULL;
		vec<int> st = vNULL;
		bool sglob = false;
		if (!si || si->side_effects || si->global_memory_written ||
		    !param_accesses(si->stores, st, &sglob) || sglob) {
			snprintf(why, n, "%s() may write memory ipa-modref cannot tie to its arguments",
				 shown(gimple_call_fndecl(calls[i])));
			ok = false;
		}
		for (unsigned j = 0; j < calls.length() && ok; j++) {
			if (j == i)
				continue;
			cgraph_node *nj = cgraph_node::get(gimple_call_fndecl(calls[j]));
			modref_summary *sj = nj ? get_modref_function_summary(nj) : NULL;
			vec<int> acc = vNULL;
			bool glob = false;
			if (!sj || !param_accesses(sj->loads, acc, &glob) || !param_accesses(sj->stores, acc, &glob)) {
				snprintf(why, n, "%s() reads memory ipa-modref cannot bound",
					 shown(gimple_call_fndecl(calls[j])));
				ok = false;
			}
			glob |= sj && sj->global_memory_read;
			for (unsigned a = 0; a < st.length() && ok; a++) {
				if ((unsigned)st[a] >= gimple_call_num_args(calls[i]))
					continue;
				tree pi = gimple_call_arg(calls[i], st[a]);
				if (glob && (!POINTER_TYPE_P(TREE_TYPE(pi)) || ptr_deref_may_alias_global_p(pi, false))) {
					snprintf(why, n, "%s() may write global memory %s() reads (alias oracle)",
						 shown(gimple_call_fndecl(calls[i])), shown(gimple_call_fndecl(calls[j])));
					ok = false;
				}
				for (unsigned b = 0; b < acc.length() && ok; b++) {
					if ((unsigned)acc[b] >= gimple_call_num_args(calls[j]))
						continue;
					tree pj = gimple_call_arg(calls[j], acc[b]);
					if (!POINTER_TYPE_P(TREE_TYPE(pi)) || !POINTER_TYPE_P(TREE_TYPE(pj)) ||
					    ptr_derefs_may_alias_p(pi, pj)) {
						snprintf(why, n, "%s() writes through its argument %d, which may point into "
							 "what %s() reaches through its argument %d (alias oracle)",
							 shown(gimple_call_fndecl(calls[i])), st[a] + 1,
							 shown(gimple_call_fndecl(calls[j])), acc[b] + 1);
						ok = false;
					}
				}
			}
			acc.release();
		}
		st.release();
	}
	calls.release();
	if (ok)
		snprintf(why, n, "the calls write through arguments that point to different objects "
			 "(ipa-modref and GCC's alias oracle)");
	return ok;
}

static void decide(struct par_rec *r, gimple *stmt, gimple_stmt_iterator *gsi, bool analysed)
{
	char buf[500], why[1200];
	const char *bad = NULL, *eff = "const";
	bool declared = true;
	if (!analysed) {
		bad = "GCC's analyses did not run on its callees";
	} else if (r->dep) {
		/* a future: the consumer writes nothing; the producer writes
		 * only the variable, through its pointer */
		tree p = r->callees[0], c = r->callees.length() > 1 ? r->callees[1] : NULL_TREE;
		const char *e = NULL;
		if (c && (bad = unsafe(c, &e, buf, sizeof buf)) == NULL) {
			if (!stores_only_through(p, r->future_out)) {
				snprintf(buf, sizeof buf, "%s() may write memory other than %s (ipa-modref)",
					 shown(p), r->dep->var ? r->dep->var : "the variable");
				bad = buf;
			} else {
				snprintf(buf, sizeof buf, "%s() writes only %s, %s() is %s", shown(p),
					 r->dep->var ? r->dep->var : "the variable", shown(c), e);
				eff = buf;
				declared = false;
			}
		}
	} else {
		for (unsigned i = 0; i < r->callees.length() && !bad; i++) {
			const char *e = NULL;
			hash_set<tree> seen;
			const char *tls = thread_state(r->callees[i], 0, seen);
			if (tls) {
				snprintf(buf, sizeof buf, "%s() reads thread-local state (%s), which a task on "
					 "another thread would see differently", shown(r->callees[i]), tls);
				bad = buf;
				break;
			}
			bad = unsafe(r->callees[i], &e, buf, sizeof buf);
			if (e && strcmp(e, "const"))
				eff = e;
			declared &= r->declared[i] != 0;
		}
		static char oracle[400];
		if (bad && !r->cutoff && !r->loop) {
			if (disjoint_by_oracle(r, cfun, oracle, sizeof oracle)) {
				bad = NULL;
				declared = false;
				eff = oracle;
				r->oracle = true;
			} else if (strstr(bad, "through its arguments")) {
				snprintf(buf, sizeof buf, "%s", oracle);
				bad = buf;
			}
		}
	}
	tree lhs = gimple_call_lhs(stmt);
	bool yes = !bad;
	if (bad && r->checked_ok && !r->decided) {
		/* not proved, but the dependence check saw it independent and
		 * --deepprof-parallelize=checked consents */
		r->decided = true;
		r->unproved = xstrdup(bad);
		remark_done(r, NULL);
		yes = true;
	}
	if (!r->decided && yes && r->dep) {
		r->decided = true;
		snprintf(why, sizeof why, "%s (GCC's ipa-pure-const and ipa-modref)", eff);
		remark_done(r, why);
	}
	if (!r->decided) {
		r->decided = true;
		if (yes) {
			char what[300];
			size_t w = 0;
			for (unsigned i = 0; i < r->callees.length() && w + 40 < sizeof what; i++)
				w += snprintf(what + w, sizeof what - w, "%s%s()", i ? (i + 1 == r->callees.length()
											  ? " and " : ", ") : "",
					      shown(r->callees[i]));
			bool modref = strchr(eff, '(') != NULL;
			if (r->oracle)
				snprintf(why, sizeof why, "%s", eff);
			else
				snprintf(why, sizeof why, "%s %s %s%s%s", what,
					 r->callees.length() > 1 ? "are" : "is", declared ? "declared " : "", eff,
					 declared || modref ? "" : " (GCC's ipa-pure-const)");
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
