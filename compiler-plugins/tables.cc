/*
 * tables.cc — the per-TU static tables (struct dp_tu, ps and css arrays of
 * deepprof-abi.h), the hook declarations, and the constructor/destructor
 * that register the tables with the runtime. Part of deepprof. MIT licence.
 */
#include "plugin.h"

struct dp_fn_rec *dp_fns;
unsigned dp_n_fns;
struct dp_site_rec *dp_sites;
unsigned dp_n_sites;
uint64_t dp_tu_id;

/* --- private prototypes --- */
static tree build_record(const char *name, const char *const *names, tree *types, int n);
static void build_types(void);
static tree str_or_null(const char *s);
static tree field(tree type, int i);
static tree emit_array(const char *name, tree elt_type, vec<constructor_elt, va_gc> *elts, unsigned n);

/* ================= types ================= */

/* finish_builtin_struct reverses the chain it is given, so build it backwards. */
static tree build_record(const char *name, const char *const *names, tree *types, int n)
{
	tree type = lang_hooks.types.make_type(RECORD_TYPE);
	tree fields = NULL_TREE;
	for (int i = 0; i < n; i++) {
		tree f = build_decl(BUILTINS_LOCATION, FIELD_DECL, get_identifier(names[i]), types[i]);
		DECL_CHAIN(f) = fields;
		fields = f;
	}
	finish_builtin_struct(type, name, fields, NULL_TREE);
	return type;
}

/* The layouts of struct dp_ps_static, dp_css_static and dp_tu. */
static void build_types(void)
{
	if (dp_roots[DPR_TU_TYPE])
		return;
	tree p = ptr_type_node, u32 = uint32_type_node, u16 = uint16_type_node, u64 = uint64_type_node;
	static const char *const ps_n[] = { "name", "file", "line", "flags", "first_css", "n_css" };
	tree ps_t[] = { p, p, u32, u32, u32, u32 };
	dp_roots[DPR_PS_TYPE] = build_record("dp_ps_static", ps_n, ps_t, 6);

	static const char *const css_n[] = { "callee", "file", "line", "col", "caller",
		"callee_ps", "kind", "flags", "index", "tu_id" };
	tree css_t[] = { p, p, u32, u32, u32, u32, u16, u16, u32, u64 };
	dp_roots[DPR_CSS_TYPE] = build_record("dp_css_static", css_n, css_t, 10);

	static const char *const tu_n[] = { "abi_version", "flags", "tu_id", "file", "n_ps",
		"n_css", "ps", "css", "runtime", "extra" };
	tree tu_t[] = { u32, u32, u64, p, u32, u32, p, p, build_array_type_nelts(p, 4), p };
	dp_roots[DPR_TU_TYPE] = build_record("dp_tu", tu_n, tu_t, 10);
}

static tree field(tree type, int i)
{
	tree f = TYPE_FIELDS(type);
	while (i-- > 0)
		f = DECL_CHAIN(f);
	return f;
}

static tree str_or_null(const char *s)
{
	if (!s)
		return null_pointer_node;
	return fold_convert(ptr_type_node, build_string_literal(strlen(s) + 1, s));
}

/* ================= the TU variable and the hooks ================= */

/* The TU's identity: FNV-1a 64 of the real path of the main input file and
 * of the dump base name (which differs when one source is compiled twice
 * into two objects of one link). */
static uint64_t compute_tu_id(void)
{
	uint64_t h = 14695981039346656037ULL;
	char *real = lrealpath(main_input_filename ? main_input_filename : "");
	h = dp_fnv1a(h, real, strlen(real) + 1);
	free(real);
	const char *dump = dump_base_name ? dump_base_name : "";
	h = dp_fnv1a(h, dump, strlen(dump) + 1);
	return h ? h : 1;
}

/* The constructor and destructor that register the TU with the runtime.
 * Built while the unit is still being analysed (the first instrumented
 * function's pass): built at PLUGIN_ALL_IPA_PASSES_START they crash
 * free_lang_data under -flto. cgraph_build_static_cdtor switches cfun, so
 * the caller's is restored. */
static void build_cdtors(void)
{
	function *saved_fun = cfun;
	tree saved_decl = current_function_decl;
	location_t saved_loc = input_location;
	/* The gimplifier gives location-less trees input_location. */
	input_location = BUILTINS_LOCATION;
	cgraph_build_static_cdtor('I', build_call_expr(dp_hook_decl(DPR_REGISTER), 1, dp_tu_addr()),
				  DEFAULT_INIT_PRIORITY);
	cgraph_build_static_cdtor('D', build_call_expr(dp_hook_decl(DPR_UNREGISTER), 1, dp_tu_addr()),
				  DEFAULT_INIT_PRIORITY);
	input_location = saved_loc;
	set_cfun(saved_fun);
	current_function_decl = saved_decl;
}

/* Created at the first instrumented function, zero-initialised; its real
 * initialiser is set by dp_tables_finish once every function is known.
 * Cache-line aligned: runtime[] is written by the runtime. */
tree dp_tu_decl(void)
{
	if (dp_roots[DPR_TU_DECL])
		return dp_roots[DPR_TU_DECL];
	build_types();
	dp_tu_id = compute_tu_id();
	tree d = build_decl(BUILTINS_LOCATION, VAR_DECL, get_identifier("__deepprof_tu"),
			    dp_roots[DPR_TU_TYPE]);
	TREE_STATIC(d) = 1;
	TREE_PUBLIC(d) = 0;
	DECL_ARTIFICIAL(d) = 1;
	DECL_IGNORED_P(d) = 1;
	TREE_ADDRESSABLE(d) = 1;
	TREE_USED(d) = 1;
	DECL_PRESERVE_P(d) = 1;
	SET_DECL_ALIGN(d, 64 * BITS_PER_UNIT);
	DECL_USER_ALIGN(d) = 1;
	DECL_INITIAL(d) = build_constructor(dp_roots[DPR_TU_TYPE], NULL);
	varpool_node::finalize_decl(d);
	dp_roots[DPR_TU_DECL] = d;
	build_cdtors();
	return d;
}

/* A fresh &__deepprof_tu for each use, so that no pass can give a shared
 * tree one function's location. */
tree dp_tu_addr(void)
{
	tree d = dp_tu_decl();
	return build1_loc(UNKNOWN_LOCATION, ADDR_EXPR, build_pointer_type(TREE_TYPE(d)), d);
}

static tree make_hook(const char *name, tree type)
{
	tree d = build_fn_decl(name, type);
	TREE_NOTHROW(d) = 1;
	/* leaf: the hook never calls back into this unit, so it needs no
	 * abnormal edges in functions that call setjmp, and does not make
	 * the optimisers forget the values of static variables. */
	DECL_ATTRIBUTES(d) = tree_cons(get_identifier("leaf"), NULL_TREE, DECL_ATTRIBUTES(d));
	DECL_ATTRIBUTES(d) = tree_cons(get_identifier("nothrow"), NULL_TREE, DECL_ATTRIBUTES(d));
	return d;
}

tree dp_hook_decl(enum dp_root which)
{
	if (dp_roots[which])
		return dp_roots[which];
	tree p = ptr_type_node, u32 = uint32_type_node, v = void_type_node;
	tree d = NULL_TREE;
	switch (which) {
	case DPR_CALL:
		d = make_hook("dp_abi_call", build_function_type_list(v, p, u32, p, NULL_TREE));
		break;
	case DPR_RETURN:
		d = make_hook("dp_abi_return", build_function_type_list(v, p, u32, NULL_TREE));
		break;
	case DPR_ENTER:
		d = make_hook("dp_abi_enter", build_function_type_list(v, p, u32, NULL_TREE));
		break;
	case DPR_BACKEDGE:
		d = make_hook("dp_abi_backedge", build_function_type_list(v, NULL_TREE));
		break;
	case DPR_REGISTER:
		d = make_hook("dp_register_tu", build_function_type_list(v, p, NULL_TREE));
		break;
	case DPR_UNREGISTER:
		d = make_hook("dp_unregister_tu", build_function_type_list(v, p, NULL_TREE));
		break;
	case DPR_ENTER_SLOW:
		d = make_hook("dp_abi_enter_slow", build_function_type_list(p, p, u32,
								      pointer_sized_int_node, NULL_TREE));
		break;
	case DPR_CALL_SLOW:
		d = make_hook("dp_abi_call_slow", build_function_type_list(p, p, u32, p, p, NULL_TREE));
		break;
	case DPR_CALL_NOSLOT:
		d = make_hook("dp_abi_call_noslot", build_function_type_list(p, p, u32, p, p, NULL_TREE));
		break;
	case DPR_COUNT_SLOW:
		d = make_hook("dp_abi_count_slow", build_function_type_list(p, p, u32, p, p, NULL_TREE));
		break;
	case DPR_CALL_BOUND:
		d = make_hook("dp_abi_call_bound", build_function_type_list(p, p, u32, p, p, u32, NULL_TREE));
		break;
	case DPR_RESUME:
		d = make_hook("dp_abi_resume", build_function_type_list(p, p, u32,
								  pointer_sized_int_node, NULL_TREE));
		break;
	case DPR_LAND:
		d = make_hook("dp_abi_land", build_function_type_list(v, p, p, NULL_TREE));
		break;
	case DPR_EXITING:
		d = make_hook("dp_abi_exiting", build_function_type_list(v, NULL_TREE));
		break;
	case DPR_EXEC:
		d = make_hook("dp_abi_exec", build_function_type_list(v, NULL_TREE));
		break;
	default:
		gcc_unreachable();
	}
	dp_roots[which] = d;
	return d;
}

/* The runtime's thread-local variable name of type, as an extern
 * initial-exec TLS declaration, made once and kept in dp_roots[root]. */
static tree extern_tls(enum dp_root root, const char *name, tree type)
{
	if (dp_roots[root])
		return dp_roots[root];
	tree d = build_decl(BUILTINS_LOCATION, VAR_DECL, get_identifier(name), type);
	TREE_PUBLIC(d) = 1;
	DECL_EXTERNAL(d) = 1;
	TREE_STATIC(d) = 0;
	DECL_ARTIFICIAL(d) = 1;
	DECL_IGNORED_P(d) = 1;
	TREE_USED(d) = 1;
	TREE_ADDRESSABLE(d) = 1;
	/* An executable's code reaches the runtime's TLS (libprof.a's, linked
	 * into it by deepprof-cc) with one %fs-relative access, local-exec;
	 * initial-exec loads its offset first, which GCC keeps in a
	 * callee-saved register, one fewer for the program (sqlite3: 2.6%
	 * fewer instructions run). A shared library's code (-fPIC, not
	 * -fPIE), or an executable's linked with a shared runtime (deepprof-
	 * cc passes tls=initial-exec then), must go through the GOT. */
	bool le = dp_opt.tls < 0 ? !flag_shlib : dp_opt.tls > 0;
	set_decl_tls_model(d, le ? TLS_MODEL_LOCAL_EXEC : TLS_MODEL_INITIAL_EXEC);
	varpool_node::get_create(d);
	dp_roots[root] = d;
	return d;
}

/* The runtime's per-thread back-edge counter: one `addq $1, %fs:...` per tick. */
tree dp_ticks_decl(void)
{
	return extern_tls(DPR_TICKS, "dp_loop_ticks", uint64_type_node);
}

/* ABI v2's current csd, tagged (schemas/plugin-abi.md). */
tree dp_cur_decl(void)
{
	return extern_tls(DPR_CUR, "dp_cur", pointer_sized_int_node);
}

/* __deepprof_tu.ps: where this TU's ps records start (known at run time
 * before the array exists at compile time). */
tree dp_tu_ps_ref(void)
{
	tree tu = dp_tu_decl();
	return build3(COMPONENT_REF, ptr_type_node, tu, field(TREE_TYPE(tu), 6), NULL_TREE);
}

/* The instrumentation's own entry points: the runtime's and the check's. */
bool dp_is_probe(tree fndecl)
{
	if (!fndecl)
		return false;
	for (int i = DPR_CALL; i <= DPR_UNREGISTER; i++)
		if (dp_roots[i] == fndecl)
			return true;
	if (fndecl == dp_roots[DPR_ENTER_SLOW] || fndecl == dp_roots[DPR_CALL_SLOW] ||
	    fndecl == dp_roots[DPR_CALL_BOUND] || fndecl == dp_roots[DPR_CALL_NOSLOT] ||
	    fndecl == dp_roots[DPR_COUNT_SLOW] ||
	    fndecl == dp_roots[DPR_RESUME] || fndecl == dp_roots[DPR_LAND] || fndecl == dp_roots[DPR_EXITING] ||
	    fndecl == dp_roots[DPR_EXEC])
		return true;
	return dp_check_is_hook(fndecl);
}

bool dp_is_hook(tree fndecl)
{
	/* the use build's parallel code asks these (parallel.cc): not the program's calls */
	return dp_is_probe(fndecl) ||
	       (fndecl && (fndecl == dp_roots[DPR_GUARD] || fndecl == dp_roots[DPR_IN_PARALLEL] ||
			   fndecl == dp_roots[DPR_MAX_THREADS]));
}

/* ================= finishing the tables ================= */

static tree emit_array(const char *name, tree elt_type, vec<constructor_elt, va_gc> *elts, unsigned n)
{
	tree atype = build_array_type_nelts(elt_type, n);
	tree d = build_decl(BUILTINS_LOCATION, VAR_DECL, get_identifier(name), atype);
	TREE_STATIC(d) = 1;
	TREE_PUBLIC(d) = 0;
	TREE_READONLY(d) = 1;
	DECL_ARTIFICIAL(d) = 1;
	DECL_IGNORED_P(d) = 1;
	TREE_ADDRESSABLE(d) = 1;
	TREE_USED(d) = 1;
	DECL_PRESERVE_P(d) = 1;
	DECL_INITIAL(d) = build_constructor(atype, elts);
	TREE_CONSTANT(DECL_INITIAL(d)) = 1;
	TREE_STATIC(DECL_INITIAL(d)) = 1;
	varpool_node::finalize_decl(d);
	varpool_node *node = varpool_node::get(d);
	if (!node->analyzed)
		node->analyze();
	return fold_convert(ptr_type_node, build_fold_addr_expr(d));
}

static void resolve_callees(void)
{
	for (unsigned j = 0; j < dp_n_sites; j++) {
		struct dp_site_rec *s = &dp_sites[j];
		if (s->callee_uid < 0)
			continue;
		for (unsigned i = 0; i < dp_n_fns; i++)
			if (dp_fns[i].uid == s->callee_uid) {
				/* abi=2 decided it when it emitted the site if the
				 * leaf was compiled first; otherwise the site counts
				 * its exits and tags dp_cur, which inlined.cc removes */
				if ((dp_fns[i].flags & DP_PS_LEAF) && (dp_opt.abi == 1 || !dp_fns[i].v2_entry))
					s->flags |= DP_CSS_LEAF_CALLEE;
				/* a leaf with a prologue: its calls all return (the
				 * code made before the tables, at -O0, still counts
				 * them; the runtime goes by the flag) */
				else if ((dp_fns[i].flags & DP_PS_LEAF) && dp_opt.abi == 2 &&
					 s->kind == DP_CSS_KIND_NORMAL &&
					 !(s->flags & (DP_CSS_TAIL | DP_CSS_NORETURN)))
					s->flags |= DP_CSS_LEAF_PROC;
				s->callee_uid = -2 - (int)i;    /* -2 - index: resolved */
				break;
			}
	}
	for (unsigned j = 0; j < dp_n_sites; j++)
		for (unsigned k = 0; k < dp_n_sites; k++)
			if (k != j && dp_sites[k].line && dp_sites[k].line == dp_sites[j].line &&
			    dp_sites[k].col == dp_sites[j].col &&
			    !strcmp(dp_sites[k].file, dp_sites[j].file))
				dp_sites[j].flags |= DP_CSS_SAME_LOC;
}

/* dp_tu.extra (DP_TU_EXTRA_SLOTS): each procedure's extra sites. */
static tree emit_extra(void)
{
	vec<constructor_elt, va_gc> *v = NULL;
	unsigned n = 0, at = 0;
	for (unsigned i = 0; i <= dp_n_fns; i++) {
		CONSTRUCTOR_APPEND_ELT(v, build_int_cst(size_type_node, n++), build_int_cst(uint32_type_node, at));
		if (i < dp_n_fns)
			at += dp_fns[i].n_extra;
	}
	for (unsigned i = 0; i < dp_n_fns; i++)
		for (unsigned j = 0; j < dp_fns[i].n_extra; j++)
			CONSTRUCTOR_APPEND_ELT(v, build_int_cst(size_type_node, n++),
					       build_int_cst(uint32_type_node, dp_fns[i].extra[j]));
	return emit_array("__deepprof_extra", uint32_type_node, v, n);
}

/* PLUGIN_ALL_IPA_PASSES_START: every function has been through the
 * instrumentation pass (it runs with the lowering passes), nothing has been
 * streamed for LTO or output yet. Build the arrays, give the TU variable
 * its initialiser and emit the constructor and destructor. With dp_opt.late
 * at PLUGIN_ALL_IPA_PASSES_END instead (never under LTO): the inliner has
 * decided, which the extra slots and the tail flags depend on. */
void dp_tables_finish(void *, void *)
{
	static bool done;
	if (done || in_lto_p || seen_error() || !dp_roots[DPR_TU_DECL])
		return;
	done = true;
	if (dp_opt.late)
		dp_late_extras();
	resolve_callees();

	tree pst = dp_roots[DPR_PS_TYPE], csst = dp_roots[DPR_CSS_TYPE], tut = dp_roots[DPR_TU_TYPE];
	vec<constructor_elt, va_gc> *pv = NULL;
	for (unsigned i = 0; i < dp_n_fns; i++) {
		struct dp_fn_rec *f = &dp_fns[i];
		vec<constructor_elt, va_gc> *e = NULL;
		CONSTRUCTOR_APPEND_ELT(e, field(pst, 0), str_or_null(f->name));
		CONSTRUCTOR_APPEND_ELT(e, field(pst, 1), str_or_null(f->file));
		CONSTRUCTOR_APPEND_ELT(e, field(pst, 2), build_int_cst(uint32_type_node, f->line));
		CONSTRUCTOR_APPEND_ELT(e, field(pst, 3), build_int_cst(uint32_type_node, f->flags));
		CONSTRUCTOR_APPEND_ELT(e, field(pst, 4), build_int_cst(uint32_type_node, f->first_css));
		CONSTRUCTOR_APPEND_ELT(e, field(pst, 5), build_int_cst(uint32_type_node, f->n_css));
		CONSTRUCTOR_APPEND_ELT(pv, build_int_cst(size_type_node, i), build_constructor(pst, e));
	}
	tree ps_addr = emit_array("__deepprof_ps", pst, pv, dp_n_fns);
	dp_roots[DPR_PS_DECL] = TREE_OPERAND(TREE_OPERAND(ps_addr, 0), 0);     /* (void *) &decl */

	tree css_addr = null_pointer_node;
	if (dp_n_sites) {
		vec<constructor_elt, va_gc> *cv = NULL;
		for (unsigned j = 0; j < dp_n_sites; j++) {
			struct dp_site_rec *s = &dp_sites[j];
			unsigned callee_ps = s->callee_uid <= -2 ? (unsigned)(-2 - s->callee_uid) + 1 : 0;
			vec<constructor_elt, va_gc> *e = NULL;
			CONSTRUCTOR_APPEND_ELT(e, field(csst, 0), str_or_null(s->callee));
			CONSTRUCTOR_APPEND_ELT(e, field(csst, 1), str_or_null(s->file));
			CONSTRUCTOR_APPEND_ELT(e, field(csst, 2), build_int_cst(uint32_type_node, s->line));
			CONSTRUCTOR_APPEND_ELT(e, field(csst, 3), build_int_cst(uint32_type_node, s->col));
			CONSTRUCTOR_APPEND_ELT(e, field(csst, 4), build_int_cst(uint32_type_node, s->caller));
			CONSTRUCTOR_APPEND_ELT(e, field(csst, 5), build_int_cst(uint32_type_node, callee_ps));
			CONSTRUCTOR_APPEND_ELT(e, field(csst, 6), build_int_cst(uint16_type_node, s->kind));
			CONSTRUCTOR_APPEND_ELT(e, field(csst, 7), build_int_cst(uint16_type_node, s->flags));
			CONSTRUCTOR_APPEND_ELT(e, field(csst, 8), build_int_cst(uint32_type_node, j));
			CONSTRUCTOR_APPEND_ELT(e, field(csst, 9), build_int_cst(uint64_type_node, dp_tu_id));
			CONSTRUCTOR_APPEND_ELT(cv, build_int_cst(size_type_node, j), build_constructor(csst, e));
		}
		css_addr = emit_array("__deepprof_css", csst, cv, dp_n_sites);
	}

	unsigned tflags = (dp_opt.surviving ? 0 : DP_TU_SOURCE_CALLS) | (dp_opt.backedges ? DP_TU_BACKEDGES : 0) |
			  (dp_opt.backedges && dp_opt.tick_call ? DP_TU_TICK_CALLS : 0) |
			  (dp_opt.progrep ? DP_TU_PROGREP : 0) | (dp_opt.late ? DP_TU_EXTRA_SLOTS : 0) |
			  (dp_opt.abi == 2 ? DP_TU_V2_TAGGED : 0);
	vec<constructor_elt, va_gc> *tv = NULL;
	CONSTRUCTOR_APPEND_ELT(tv, field(tut, 0), build_int_cst(uint32_type_node, dp_opt.abi));
	CONSTRUCTOR_APPEND_ELT(tv, field(tut, 1), build_int_cst(uint32_type_node, tflags));
	CONSTRUCTOR_APPEND_ELT(tv, field(tut, 2), build_int_cst(uint64_type_node, dp_tu_id));
	CONSTRUCTOR_APPEND_ELT(tv, field(tut, 3), str_or_null(main_input_filename));
	CONSTRUCTOR_APPEND_ELT(tv, field(tut, 4), build_int_cst(uint32_type_node, dp_n_fns));
	CONSTRUCTOR_APPEND_ELT(tv, field(tut, 5), build_int_cst(uint32_type_node, dp_n_sites));
	CONSTRUCTOR_APPEND_ELT(tv, field(tut, 6), ps_addr);
	CONSTRUCTOR_APPEND_ELT(tv, field(tut, 7), css_addr);
	if (dp_opt.late)
		CONSTRUCTOR_APPEND_ELT(tv, field(tut, 9), emit_extra());
	tree tu = dp_roots[DPR_TU_DECL];
	DECL_INITIAL(tu) = build_constructor(tut, tv);
	TREE_STATIC(DECL_INITIAL(tu)) = 1;
	record_references_in_initializer(tu, false);

}
