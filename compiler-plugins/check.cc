/*
 * check.cc — the check build (-fplugin-arg-deepprof-check=FILE[:FILE...],
 * deepprof-cc --deepprof-check=FEEDBACK): an instrumented build that also
 * records, inside the calls of the feedback's parallelism candidates only,
 * which memory each call reads and writes (libprof/check.c; the findings
 * go into the profile's "check" entry, schemas/deep-data.md).
 *
 *  - At PRE_GENERICIZE each candidate's calls are found by line, column
 *    and callee (as the use build finds them, parallel.cc) and bracketed:
 *    __deepprof_chk_begin(REGION, k, n); the call; __deepprof_chk_end(REGION, k).
 *    REGION is a string naming the function, its file and the calls
 *    ("line:col:callee" each), the key `deepprof feedback` matches on.
 *  - The bodies' direct calls are noted too; the functions the candidates'
 *    callees reach through them (in this unit) are the checked ones.
 *  - After "cfg" (and before the instrumentation pass, whose inline code
 *    is not the program's and which takes these hooks for hooks), every load and store of a checked function through a
 *    pointer or of a global gets __deepprof_chk_rd/wr(address, size,
 *    "file:line:col<TAB>name") before it: the function's own locals are
 *    its task's and skipped. memcpy, memmove and memset become the ranges
 *    they touch; the malloc family is followed by the runtime, and free
 *    by __deepprof_chk_free(p, place) before it; a call into
 *    a function the check cannot see (no body in the unit, not const, not
 *    an allocator) is __deepprof_chk_call(NAME, place): its call is not
 *    checked, and the profile says so.
 * Part of deepprof's compiler plugins. MIT licence.
 */
#include "plugin.h"
#include "gimplify.h"
#include "gimplify-me.h"
#include "hash-set.h"
#include "tree-iterator.h"
#include "use_feedback.h"

static struct dpu_feedback *cfbs;
static unsigned n_cfbs;

/* A bracketed call: its region's descriptor (for dedup across candidates). */
static hash_set<tree> *wrapped;

/* Direct call edges noted at PRE_GENERICIZE, by DECL_UID. */
struct edge_rec {
	int from, to;
};
static vec<struct edge_rec> edges;
static vec<const char *> seeds;         /* candidate callees' names */
static hash_set<int_hash<int, -1, -2>> *checked_uids;
static bool closure_done;
static bool check_all;          /* a candidate's reach was too long to list */

/* ================= reading ================= */

bool dp_check_init(void)
{
	return !dp_opt.check || dp_read_feedbacks(dp_opt.check, &cfbs, &n_cfbs);
}

/* ================= the hooks ================= */

static tree hook(enum dp_root which)
{
	if (dp_roots[which])
		return dp_roots[which];
	tree cstr = build_pointer_type(build_qualified_type(char_type_node, TYPE_QUAL_CONST));
	tree cvoid = build_pointer_type(build_qualified_type(void_type_node, TYPE_QUAL_CONST));
	tree type;
	const char *name;
	switch (which) {
	case DPR_CHK_BEGIN:
		name = "__deepprof_chk_begin";
		type = build_function_type_list(void_type_node, cstr, unsigned_type_node,
						unsigned_type_node, NULL_TREE);
		break;
	case DPR_CHK_END:
		name = "__deepprof_chk_end";
		type = build_function_type_list(void_type_node, cstr, unsigned_type_node, NULL_TREE);
		break;
	case DPR_CHK_RD:
	case DPR_CHK_WR:
		name = which == DPR_CHK_RD ? "__deepprof_chk_rd" : "__deepprof_chk_wr";
		type = build_function_type_list(void_type_node, cvoid, size_type_node, cstr, NULL_TREE);
		break;
	case DPR_CHK_FREE:
		name = "__deepprof_chk_free";
		type = build_function_type_list(void_type_node, cvoid, cstr, NULL_TREE);
		break;
	case DPR_CHK_BACK:
	case DPR_CHK_ENTRY:
		name = which == DPR_CHK_BACK ? "__deepprof_chk_back" : "__deepprof_chk_entry";
		type = build_function_type_list(void_type_node, NULL_TREE);
		break;
	case DPR_CHK_ITER:
	case DPR_CHK_ITER_END:
	case DPR_CHK_LOOP_END:
		name = which == DPR_CHK_ITER ? "__deepprof_chk_iter" : which == DPR_CHK_ITER_END ?
		       "__deepprof_chk_iter_end" : "__deepprof_chk_loop_end";
		type = build_function_type_list(void_type_node, cstr, NULL_TREE);
		break;
	default:
		name = which == DPR_CHK_MAYBE ? "__deepprof_chk_maybe" : "__deepprof_chk_call";
		type = build_function_type_list(void_type_node, cstr, cstr, NULL_TREE);
		break;
	}
	tree d = build_fn_decl(name, type);
	DECL_EXTERNAL(d) = 1;
	TREE_PUBLIC(d) = 1;
	TREE_NOTHROW(d) = 1;
	DECL_ATTRIBUTES(d) = tree_cons(get_identifier("leaf"), NULL_TREE, NULL_TREE);
	return dp_roots[which] = d;
}

bool dp_check_is_hook(tree fndecl)
{
	for (int i = DPR_CHK_BEGIN; i <= DPR_CHK_FREE; i++)
		if (dp_roots[i] && dp_roots[i] == fndecl)
			return true;
	return false;
}

static tree cstring(const char *s)
{
	return build_string_literal(strlen(s) + 1, s);
}

/* ================= PRE_GENERICIZE ================= */

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* The function's direct calls, for the closure. */
static tree note_edge(tree *tp, int *walk, void *data)
{
	tree t = *tp;
	if (TYPE_P(t)) {
		*walk = 0;
		return NULL_TREE;
	}
	if (TREE_CODE(t) == CALL_EXPR || TREE_CODE(t) == ADDR_EXPR) {
		tree fn = TREE_CODE(t) == CALL_EXPR ? get_callee_fndecl(t) : TREE_OPERAND(t, 0);
		if (fn && TREE_CODE(fn) == FUNCTION_DECL) {
			struct edge_rec e = { (int)DECL_UID((tree)data), (int)DECL_UID(fn) };
			edges.safe_push(e);
		}
	}
	return NULL_TREE;
}

/* The region descriptor of candidate c: "fn\nfile\nline:col:callee\n...",
 * a loop candidate's ending in "\nloop". */
static char *descriptor(const struct dpu_cand *c)
{
	size_t n = strlen(c->proc.fn) + strlen(c->proc.file ? c->proc.file : "?") + 10;
	for (unsigned i = 0; i < c->n_calls; i++)
		n += strlen(c->calls[i].callee ? c->calls[i].callee : "?") + 32;
	char *s = XNEWVEC(char, n), *e = s;
	e += sprintf(e, "%s\n%s", c->proc.fn, base_name(c->proc.file ? c->proc.file : "?"));
	for (unsigned i = 0; i < c->n_calls; i++)
		e += sprintf(e, "\n%u:%u:%s", c->calls[i].at.line, c->calls[i].at.col,
			     c->calls[i].callee ? c->calls[i].callee : "");     /* "": through a pointer */
	if (c->loop_line)
		strcpy(e, "\nloop");
	return s;
}

/* Whether candidate c can ever be tasks, so the check covers it: two calls
 * or more, or a loop's one, not too cheap. */
static bool checkable(const struct dpu_cand *c)
{
	return (c->n_calls >= 2 || (c->loop_line && c->n_calls == 1)) && !c->too_cheap;
}

/* The innermost loop statement holding the tree at slot. */
struct loop_find {
	tree *slot;
	vec<tree *> loops;
	tree *loop;             /* found: the innermost loop's slot, or NULL */
	bool found;
};

static void find_loop(struct loop_find *lf, tree *tp)
{
	tree t = *tp;
	if (lf->found || !t || TYPE_P(t) || CONSTANT_CLASS_P(t) || DECL_P(t) ||
	    TREE_CODE(t) == IDENTIFIER_NODE)
		return;
	if (tp == lf->slot) {
		lf->found = true;
		lf->loop = lf->loops.is_empty() ? NULL : lf->loops.last();
		return;
	}
	bool loop = TREE_CODE(t) == FOR_STMT || TREE_CODE(t) == WHILE_STMT || TREE_CODE(t) == DO_STMT;
	if (loop)
		lf->loops.safe_push(tp);
	if (TREE_CODE(t) == STATEMENT_LIST) {
		for (tree_stmt_iterator i = tsi_start(t); !tsi_end_p(i); tsi_next(&i))
			find_loop(lf, tsi_stmt_ptr(i));
	} else if (TREE_CODE(t) == DECL_EXPR) {
		tree d = DECL_EXPR_DECL(t);
		if (VAR_P(d) && !TREE_STATIC(d) && DECL_INITIAL(d))
			find_loop(lf, &DECL_INITIAL(d));
	} else if (EXPR_P(t) || TREE_CODE(t) == BIND_EXPR) {
		for (int i = 0; i < TREE_OPERAND_LENGTH(t); i++)
			if (TREE_OPERAND(t, i))
				find_loop(lf, &TREE_OPERAND(t, i));
	}
	if (loop && !lf->found)
		lf->loops.pop();
}

/* Bracket candidate c's calls in fndecl, unless one is bracketed already. */
static void bracket(tree fndecl, const struct dpu_cand *c)
{
	tree **slots = XCNEWVEC(tree *, c->n_calls);
	bool twice = false;
	unsigned found = dp_find_cand_calls(fndecl, c, slots, &twice);
	if (found != c->n_calls || twice) {
		/* a note, not a warning: a -Werror build must not fail for it */
		inform(DECL_SOURCE_LOCATION(fndecl),
		       "deepprof: check: the calls of candidate %u are not where the feedback places "
		       "them: not checked (profile it again)", c->id);
		free(slots);
		return;
	}
	for (unsigned i = 0; i < c->n_calls; i++)
		if (wrapped->contains(*slots[i])) {
			free(slots);
			return;
		}
	char *desc = descriptor(c);
	tree *loop_slot = NULL;
	if (c->loop_line) {
		/* a loop candidate: the loop's end ends its execution */
		struct loop_find lf = { slots[0], vNULL, NULL, false };
		find_loop(&lf, &DECL_SAVED_TREE(fndecl));
		lf.loops.release();
		if (!(loop_slot = lf.loop)) {
			inform(DECL_SOURCE_LOCATION(fndecl), "deepprof: check: the call of loop candidate "
			       "%u is not in a loop: not checked (profile it again)", c->id);
			free(desc);
			free(slots);
			return;
		}
	}
	for (unsigned i = 0; i < c->n_calls; i++) {
		tree call = *slots[i];
		location_t loc = EXPR_LOCATION(call);
		tree k = build_int_cst(unsigned_type_node, i);
		tree begin = c->loop_line ? build_call_expr(hook(DPR_CHK_ITER), 1, cstring(desc))
			     : build_call_expr(hook(DPR_CHK_BEGIN), 3, cstring(desc), k,
					       build_int_cst(unsigned_type_node, c->n_calls));
		tree end = c->loop_line ? build_call_expr(hook(DPR_CHK_ITER_END), 1, cstring(desc))
			   : build_call_expr(hook(DPR_CHK_END), 2, cstring(desc), k);
		SET_EXPR_LOCATION(begin, loc);
		SET_EXPR_LOCATION(end, loc);
		wrapped->add(call);
		tree type = TREE_TYPE(call), x;
		if (VOID_TYPE_P(type)) {
			x = build2(COMPOUND_EXPR, void_type_node, begin,
				   build2(COMPOUND_EXPR, void_type_node, call, end));
		} else {
			tree tmp = create_tmp_var_raw(type, "dp_chk");
			DECL_CONTEXT(tmp) = fndecl;
			tree set = build4(TARGET_EXPR, type, tmp, call, NULL_TREE, NULL_TREE);
			x = build2(COMPOUND_EXPR, type, begin,
				   build2(COMPOUND_EXPR, type, set,
					  build2(COMPOUND_EXPR, type, end, tmp)));
		}
		SET_EXPR_LOCATION(x, loc);
		*slots[i] = x;
	}
	if (loop_slot) {
		tree after = NULL_TREE;
		tree end = build_call_expr(hook(DPR_CHK_LOOP_END), 1, cstring(desc));
		SET_EXPR_LOCATION(end, EXPR_LOCATION(*loop_slot));
		append_to_statement_list(*loop_slot, &after);
		append_to_statement_list(end, &after);
		*loop_slot = after;
	}
	for (unsigned i = 0; i < c->n_calls; i++)
		if (c->calls[i].callee)
			seeds.safe_push(c->calls[i].callee);
	/* what ran beneath the calls when profiled (a function of another
	 * unit is seeded there, where its body is) */
	for (unsigned i = 0; i < c->n_reach; i++)
		seeds.safe_push(c->reach[i]);
	check_all |= c->reach_all;
	free(desc);
	free(slots);
}

static int by_calls_desc(const void *a, const void *b)
{
	const struct dpu_cand *x = *(const struct dpu_cand *const *)a;
	const struct dpu_cand *y = *(const struct dpu_cand *const *)b;
	if (x->n_calls != y->n_calls)
		return x->n_calls > y->n_calls ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* `int __deepprof_check_build = 1;` (weak, one per program): the runtime
 * writes the profile's check entry even when no candidate ran. */
static void mark_check_build(void)
{
	tree v = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier("__deepprof_check_build"),
			    integer_type_node);
	TREE_STATIC(v) = 1;
	TREE_PUBLIC(v) = 1;
	TREE_USED(v) = 1;
	DECL_PRESERVE_P(v) = 1;
	DECL_ARTIFICIAL(v) = 1;
	DECL_INITIAL(v) = integer_one_node;
	declare_weak(v);
	varpool_node::finalize_decl(v);
}

void dp_check_genericize(void *gcc_data, void *)
{
	tree fndecl = (tree)gcc_data;
	if (!n_cfbs || !fndecl || TREE_CODE(fndecl) != FUNCTION_DECL || !DECL_SAVED_TREE(fndecl))
		return;
	if (!wrapped) {
		wrapped = new hash_set<tree>;
		mark_check_build();
	}
	walk_tree_without_duplicates(&DECL_SAVED_TREE(fndecl), note_edge, fndecl);
	if (dp_skip_function(fndecl))
		return;
	const char *name = dp_decl_name(fndecl);
	/* beneath a candidate of another unit? */
	for (unsigned i = 0; i < n_cfbs; i++)
		for (unsigned j = 0; j < cfbs[i].n_cand; j++) {
			const struct dpu_cand *c = &cfbs[i].cand[j];
			check_all |= c->reach_all && checkable(c);
			for (unsigned k = 0; k < c->n_reach && checkable(c); k++)
				if (!strcmp(c->reach[k], name)) {
					seeds.safe_push(c->reach[k]);
					break;
				}
		}
	expanded_location xl = expand_location(DECL_SOURCE_LOCATION(fndecl));
	if (!xl.file)
		return;
	/* the longest candidates first: a call is bracketed once */
	vec<const struct dpu_cand *> mine = vNULL;
	for (unsigned i = 0; i < n_cfbs; i++)
		for (unsigned j = 0; j < cfbs[i].n_cand; j++) {
			const struct dpu_cand *c = &cfbs[i].cand[j];
			/* too cheap ever to be tasks: nothing to check */
			if (checkable(c) && c->proc.fn && !strcmp(c->proc.fn, name) &&
			    c->proc.file &&
			    !strcmp(base_name(c->proc.file), base_name(xl.file)))
				mine.safe_push(c);
		}
	if (mine.length() > 1)
		qsort(mine.address(), mine.length(), sizeof(mine[0]), by_calls_desc);
	for (unsigned i = 0; i < mine.length(); i++)
		bracket(fndecl, mine[i]);
	mine.release();
}

/* ================= the closure ================= */

static void compute_closure(void)
{
	closure_done = true;
	checked_uids = new hash_set<int_hash<int, -1, -2>>;
	vec<int> work = vNULL;
	cgraph_node *node;
	FOR_EACH_FUNCTION(node) {
		tree d = node->decl;
		const char *n = dp_decl_name(d);
		if (check_all && node->definition && !checked_uids->add((int)DECL_UID(d))) {
			work.safe_push((int)DECL_UID(d));
			continue;
		}
		for (unsigned i = 0; i < seeds.length(); i++)
			if (!strcmp(seeds[i], n) && !checked_uids->add((int)DECL_UID(d))) {
				work.safe_push((int)DECL_UID(d));
				break;
			}
	}
	while (!work.is_empty()) {
		int u = work.pop();
		for (unsigned i = 0; i < edges.length(); i++)
			if (edges[i].from == u && !checked_uids->add(edges[i].to))
				work.safe_push(edges[i].to);
	}
	work.release();
}

/* ================= the pass ================= */

/* "file:line:col\tname" for an access of ref at stmt. */
static const char *ref_name(tree ref, gimple *stmt, char *buf, size_t n)
{
	tree base = get_base_address(ref);
	if (!base)
		return "";
	if (DECL_P(base))
		return DECL_NAME(base) && !DECL_ARTIFICIAL(base) ? IDENTIFIER_POINTER(DECL_NAME(base)) : "";
	if (TREE_CODE(base) != MEM_REF && TREE_CODE(base) != TARGET_MEM_REF)
		return "";
	tree p = TREE_OPERAND(base, 0);
	/* a temporary: follow its definitions back in the block */
	gimple_stmt_iterator g = gsi_for_stmt(stmt);
	for (int hops = 0; hops < 6 && p; hops++) {
		if (TREE_CODE(p) == ADDR_EXPR) {
			tree b = get_base_address(TREE_OPERAND(p, 0));
			p = b && DECL_P(b) ? b : NULL_TREE;
			continue;
		}
		if ((VAR_P(p) || TREE_CODE(p) == PARM_DECL) && DECL_NAME(p) && !DECL_ARTIFICIAL(p)) {
			snprintf(buf, n, "%s", IDENTIFIER_POINTER(DECL_NAME(p)));
			return buf;
		}
		if (TREE_CODE(p) == SSA_NAME) {
			tree var = SSA_NAME_VAR(p);
			if (var && DECL_NAME(var) && !DECL_ARTIFICIAL(var)) {
				snprintf(buf, n, "%s", IDENTIFIER_POINTER(DECL_NAME(var)));
				return buf;
			}
			gimple *d = SSA_NAME_DEF_STMT(p);
			if (!d || !is_gimple_assign(d))
				return "";
			p = gimple_assign_rhs1(d);
			continue;
		}
		if (!VAR_P(p))
			return "";
		tree next = NULL_TREE;
		for (gsi_prev(&g); !gsi_end_p(g); gsi_prev(&g)) {
			gimple *s = gsi_stmt(g);
			if (is_gimple_assign(s) && gimple_assign_lhs(s) == p) {
				tree r = gimple_assign_rhs1(s);
				if (gimple_assign_rhs_code(s) == POINTER_PLUS_EXPR || gimple_assign_single_p(s) ||
				    CONVERT_EXPR_CODE_P(gimple_assign_rhs_code(s)))
					next = r;
				break;
			}
		}
		if (!next)
			return "";
		p = next;
	}
	return "";
}

static tree place(gimple *stmt, tree ref)
{
	char name[128], buf[PATH_MAX + 200];
	expanded_location x = expand_location(gimple_location(stmt));
	const char *v = ref ? ref_name(ref, stmt, name, sizeof name) : "";
	if (ref && TREE_CODE(ref) != MEM_REF && POINTER_TYPE_P(TREE_TYPE(ref)) && !DECL_P(ref)) {
		/* a pointer argument (memcpy's): the object it points into */
		tree m = build2(MEM_REF, char_type_node, ref, build_int_cst(ptr_type_node, 0));
		v = ref_name(m, stmt, name, sizeof name);
	} else if (ref && DECL_P(ref) && POINTER_TYPE_P(TREE_TYPE(ref)) && TREE_CODE(ref) != VAR_DECL) {
		v = ref_name(build2(MEM_REF, char_type_node, ref, build_int_cst(ptr_type_node, 0)), stmt,
			     name, sizeof name);
	}
	snprintf(buf, sizeof buf, "%s:%d:%d\t%s", x.file ? base_name(x.file) : "?", x.line, x.column, v);
	return cstring(buf);
}

/* Does an access of ref touch memory another task could see? */
static bool shared_ref(tree ref, tree fndecl)
{
	if (!ref || TREE_CODE(ref) == SSA_NAME || CONSTANT_CLASS_P(ref) || TREE_CODE(ref) == ADDR_EXPR)
		return false;
	if (TREE_CODE(ref) == BIT_FIELD_REF)
		return false;
	if (TREE_CODE(ref) == COMPONENT_REF && DECL_BIT_FIELD(TREE_OPERAND(ref, 1)))
		return false;
	if (!handled_component_p(ref) && !DECL_P(ref) && TREE_CODE(ref) != MEM_REF &&
	    TREE_CODE(ref) != TARGET_MEM_REF)
		return false;
	tree base = get_base_address(ref);
	if (!base)
		return false;
	if (DECL_P(base)) {
		if (TREE_CODE(base) == FUNCTION_DECL || TREE_CODE(base) == LABEL_DECL ||
		    TREE_CODE(base) == CONST_DECL)
			return false;
		/* the function's own locals are its task's */
		if (!is_global_var(base))
			return false;
		if (TREE_READONLY(base))
			return false;
		(void)fndecl;
		return true;
	}
	return TREE_CODE(base) == MEM_REF || TREE_CODE(base) == TARGET_MEM_REF;
}

static void emit(gimple_stmt_iterator *gsi, enum dp_root which, tree addr, tree size, tree loc)
{
	addr = force_gimple_operand_gsi(gsi, fold_convert(ptr_type_node, addr), true, NULL_TREE,
					true, GSI_SAME_STMT);
	size = force_gimple_operand_gsi(gsi, fold_convert(size_type_node, size), true, NULL_TREE,
					true, GSI_SAME_STMT);
	gcall *c = gimple_build_call(hook(which), 3, addr, size, loc);
	gimple_set_location(c, gimple_location(gsi_stmt(*gsi)));
	gsi_insert_before(gsi, c, GSI_SAME_STMT);
}

static void access_of(gimple_stmt_iterator *gsi, tree ref, bool write, tree fndecl)
{
	if (!shared_ref(ref, fndecl))
		return;
	tree size = TYPE_SIZE_UNIT(TREE_TYPE(ref));
	if (!size || TREE_CODE(size) != INTEGER_CST || integer_zerop(size))
		return;
	tree addr = build_fold_addr_expr(unshare_expr(ref));
	emit(gsi, write ? DPR_CHK_WR : DPR_CHK_RD, addr, size, place(gsi_stmt(*gsi), ref));
}

static bool allocator(tree fn)
{
	if (!fndecl_built_in_p(fn, BUILT_IN_NORMAL))
		return false;
	switch (DECL_FUNCTION_CODE(fn)) {
	case BUILT_IN_MALLOC: case BUILT_IN_CALLOC: case BUILT_IN_REALLOC: case BUILT_IN_FREE:
	case BUILT_IN_ALIGNED_ALLOC: case BUILT_IN_POSIX_MEMALIGN:
	case BUILT_IN_ALLOCA: case BUILT_IN_ALLOCA_WITH_ALIGN:
	case BUILT_IN_STACK_SAVE: case BUILT_IN_STACK_RESTORE:
	case BUILT_IN_UNREACHABLE: case BUILT_IN_TRAP: case BUILT_IN_EXPECT:
	case BUILT_IN_VA_START: case BUILT_IN_VA_END: case BUILT_IN_VA_COPY:
	case BUILT_IN_PREFETCH: case BUILT_IN_CONSTANT_P: case BUILT_IN_OBJECT_SIZE:
		return true;
	default:
		return false;
	}
}

/*
 * A call out of checked code into code that may not be: a function of this
 * unit that is checked needs nothing; one that is not (it did not run
 * beneath the candidate when profiled), or a library function (a system
 * header's, a builtin), is a call the check cannot see into:
 * __deepprof_chk_call. A function of another unit, or a call through a
 * pointer, is checked if its code is: __deepprof_chk_maybe before it and
 * __deepprof_chk_back after, and a checked function says so on entry
 * (__deepprof_chk_entry), so the runtime tells them apart.
 */
static void unseen_call(gimple_stmt_iterator *gsi, gcall *call, tree fn)
{
	cgraph_node *n = fn ? cgraph_node::get(fn) : NULL;
	if (n && n->definition && checked_uids->contains((int)DECL_UID(fn)))
		return;
	bool library = fn && (DECL_IN_SYSTEM_HEADER(fn) || fndecl_built_in_p(fn) ||
			      DECL_IS_UNDECLARED_BUILTIN(fn));
	bool here = n && n->definition;
	bool dynamic = !library && !here && !(gimple_call_flags(call) & ECF_NORETURN) &&
		       !stmt_ends_bb_p(call);
	const char *name = fn ? dp_decl_name(fn) : "(a call through a pointer)";
	gcall *c = gimple_build_call(hook(dynamic ? DPR_CHK_MAYBE : DPR_CHK_CALL), 2, cstring(name),
				     place(call, NULL_TREE));
	gimple_set_location(c, gimple_location(call));
	gsi_insert_before(gsi, c, GSI_SAME_STMT);
	if (dynamic) {
		gcall *b = gimple_build_call(hook(DPR_CHK_BACK), 0);
		gimple_set_location(b, gimple_location(call));
		gimple_stmt_iterator after = *gsi;
		gsi_insert_after(&after, b, GSI_SAME_STMT);
	}
}

static void call_of(gimple_stmt_iterator *gsi, gcall *call, tree fndecl)
{
	tree fn = gimple_call_fndecl(call);
	if (gimple_call_internal_p(call))
		return;
	if (fn && (dp_is_hook(fn) || dp_check_is_hook(fn)))
		return;
	/* the result stored to memory, aggregates passed by value */
	if (gimple_call_lhs(call))
		access_of(gsi, gimple_call_lhs(call), true, fndecl);
	for (unsigned i = 0; i < gimple_call_num_args(call); i++) {
		tree a = gimple_call_arg(call, i);
		if (AGGREGATE_TYPE_P(TREE_TYPE(a)))
			access_of(gsi, a, false, fndecl);
	}
	if (fn && fndecl_built_in_p(fn, BUILT_IN_NORMAL)) {
		enum built_in_function b = DECL_FUNCTION_CODE(fn);
		tree loc;
		switch (b) {
		case BUILT_IN_MEMCPY: case BUILT_IN_MEMMOVE: case BUILT_IN_MEMPCPY:
			loc = place(call, gimple_call_arg(call, 1));
			emit(gsi, DPR_CHK_RD, gimple_call_arg(call, 1), gimple_call_arg(call, 2), loc);
			loc = place(call, gimple_call_arg(call, 0));
			emit(gsi, DPR_CHK_WR, gimple_call_arg(call, 0), gimple_call_arg(call, 2), loc);
			return;
		case BUILT_IN_MEMSET:
			emit(gsi, DPR_CHK_WR, gimple_call_arg(call, 0), gimple_call_arg(call, 2),
			     place(call, gimple_call_arg(call, 0)));
			return;
		default:
			break;
		}
	}
	/* free(p): the block is the call's (it was allocated in it) or a
	 * write of all of it; libprof does not interpose free() */
	if (fn && fndecl_built_in_p(fn, BUILT_IN_FREE) && gimple_call_num_args(call) == 1) {
		tree p = gimple_call_arg(call, 0);
		tree loc = place(call, p);
		p = force_gimple_operand_gsi(gsi, fold_convert(ptr_type_node, p), true, NULL_TREE,
					     true, GSI_SAME_STMT);
		gcall *c = gimple_build_call(hook(DPR_CHK_FREE), 2, p, loc);
		gimple_set_location(c, gimple_location(call));
		gsi_insert_before(gsi, c, GSI_SAME_STMT);
		return;
	}
	if (fn && allocator(fn))
		return;
	int flags = gimple_call_flags(call);
	if (flags & (ECF_CONST | ECF_NOVOPS))
		return;
	if (fn) {
		const char *name = dp_decl_name(fn);
		if (!strncmp(name, "omp_", 4) || !strncmp(name, "GOMP_", 5) ||
		    !strncmp(name, "__deepprof", 10) || !strncmp(name, "dp_", 3))
			return;
	}
	unseen_call(gsi, call, fn);
}

/* The calls bracketed in fun whose callee the check cannot see into (no
 * body in this unit, or a call through a pointer): each gets
 * __deepprof_chk_call after its begin hook. */
static void opaque_candidates(function *fun)
{
	basic_block bb;
	FOR_EACH_BB_FN(bb, fun) {
		bool after_begin = false;
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
			gcall *c = dyn_cast<gcall *>(gsi_stmt(gsi));
			if (!c || gimple_call_internal_p(c))
				continue;
			tree fn = gimple_call_fndecl(c);
			if (fn && fn == dp_roots[DPR_CHK_BEGIN]) {
				after_begin = true;
				continue;
			}
			if (fn && (dp_is_hook(fn) || dp_check_is_hook(fn)))
				continue;
			if (!after_begin)
				continue;
			after_begin = false;
			unseen_call(&gsi, c, fn);
		}
	}
}

static unsigned int check_execute(function *fun)
{
	if (!closure_done)
		compute_closure();
	tree fndecl = fun->decl;
	bool checked = checked_uids->contains((int)DECL_UID(fndecl));
	/* (a checked function's candidate calls are seen with its other calls) */
	if (dp_roots[DPR_CHK_BEGIN] && !checked)
		opaque_candidates(fun);
	if (!checked)
		return 0;
	{
		/* a checked function says so on entry (see unseen_call) */
		gimple_stmt_iterator g = gsi_after_labels(single_succ(ENTRY_BLOCK_PTR_FOR_FN(fun)));
		gcall *e = gimple_build_call(hook(DPR_CHK_ENTRY), 0);
		gimple_set_location(e, DECL_SOURCE_LOCATION(fndecl));
		gsi_insert_before(&g, e, GSI_SAME_STMT);
	}
	basic_block bb;
	FOR_EACH_BB_FN(bb, fun) {
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
			gimple *s = gsi_stmt(gsi);
			if (is_gimple_debug(s) || gimple_clobber_p(s))
				continue;
			if (is_gimple_assign(s)) {
				if (gimple_assign_single_p(s) || gimple_assign_load_p(s))
					access_of(&gsi, gimple_assign_rhs1(s), false, fndecl);
				access_of(&gsi, gimple_assign_lhs(s), true, fndecl);
			} else if (gcall *c = dyn_cast<gcall *>(s)) {
				call_of(&gsi, c, fndecl);
			} else if (greturn *r = dyn_cast<greturn *>(s)) {
				tree v = gimple_return_retval(r);
				if (v && AGGREGATE_TYPE_P(TREE_TYPE(v)))
					access_of(&gsi, v, false, fndecl);
			}
		}
	}
	return 0;
}

namespace {
const pass_data check_data = {
	GIMPLE_PASS, "deepprof_check", OPTGROUP_NONE, TV_NONE,
	PROP_cfg, 0, 0, 0, 0,
};
class check_pass : public gimple_opt_pass {
public:
	check_pass(gcc::context *c) : gimple_opt_pass(check_data, c) {}
	bool gate(function *) final override { return n_cfbs > 0; }
	unsigned int execute(function *f) final override { return check_execute(f); }
};
}

opt_pass *dp_make_check_pass(gcc::context *ctxt)
{
	return new check_pass(ctxt);
}
