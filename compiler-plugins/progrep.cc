/*
 * progrep.cc — the program representation pass (after "ssa"): for each
 * instrumented function, its parameters, its call sites nested in the
 * control flow with where each parameter is first used and stored through,
 * what feeds each argument, what each result defines, memory effects; one
 * JSON line per function in the .deepprof.progrep section
 * (schemas/progrep.md). Part of deepprof's compiler plugins. MIT licence.
 */
#include "plugin.h"
#include "tree-ssa-loop.h"
#include "ssa-iterators.h"
#include "tree-dfa.h"

/* ================= a growing string ================= */

struct sbuf {
	char *p;
	size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = (char *)xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void sb_puts(struct sbuf *b, const char *s) { sb_add(b, s, strlen(s)); }

static void sb_printf(struct sbuf *b, const char *fmt, ...) ATTRIBUTE_PRINTF_2;
/* Appends the formatted text, however long (a loop's or branch's body is
 * formatted in whole: a fixed buffer cut them and broke the JSON). */
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0) {
		va_end(again);
		return;
	}
	if (n < (int)sizeof tmp) {
		sb_add(b, tmp, (size_t)n);
	} else {
		char *big = (char *)xmalloc((size_t)n + 1);
		vsnprintf(big, (size_t)n + 1, fmt, again);
		sb_add(b, big, (size_t)n);
		free(big);
	}
	va_end(again);
}

/* A JSON string literal. */
static void sb_str(struct sbuf *b, const char *s)
{
	if (!s) {
		sb_puts(b, "null");
		return;
	}
	sb_add(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = *s;
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			sb_add(b, e, 2);
		} else if (c < 0x20) {
			sb_printf(b, "\\u%04x", c);
		} else {
			sb_add(b, (const char *)&c, 1);
		}
	}
	sb_add(b, "\"", 1);
}

/* ================= per-function state ================= */

/* A named parameter and the values derived from it (schemas/progrep.md,
 * "Parameter uses and stores"): SSA names whose value is the parameter's,
 * or a pointer into what it points to (copies, casts, pointer arithmetic,
 * &p->f, phis); and the parameter itself when it lives in memory (address
 * taken, aggregate), whose loads are such values. */
struct pvar {
	tree decl;
	const char *name;
	bool pointer;                   /* "pointer": true: it may have stores */
	bool in_mem;                    /* not a gimple register: read by loads */
	bitmap ssa;                     /* SSA versions derived from it */
};

struct ctx {
	function *fun;
	unsigned ps, first, n;          /* the function's sites: first .. first+n */
	gimple **site_stmt;             /* n entries */
	bool *placed;                   /* n entries: already in "body" */
	bool *visited;                  /* per basic block index */
	bitmap seen;                    /* SSA names walked for the current value */
	int budget;                     /* steps left for the current value */
	unsigned n_pv;                  /* named parameters: pv[0 .. n_pv) */
	struct pvar *pv;
	int *first_use, *last_store;    /* n_pv entries: per block, a statement index or -1 */
};

/* Every walk from one value visits each SSA name once and takes at most
 * WALK_BUDGET steps: phis and binary operations would make it exponential. */
#define WALK_BUDGET 2000

static bool walk_step(struct ctx *c, tree ssa)
{
	if (c->budget-- <= 0)
		return false;
	return bitmap_set_bit(c->seen, SSA_NAME_VERSION(ssa));
}

static void walk_start(struct ctx *c)
{
	bitmap_clear(c->seen);
	c->budget = WALK_BUDGET;
}

/* The pass numbers statements: uid = 1 + site for a site's call, else 0. */
static int site_of(struct ctx *c, gimple *s)
{
	unsigned uid = gimple_uid(s);
	if (uid == 0 || uid > c->n || c->site_stmt[uid - 1] != s)
		return -1;
	return (int)(c->first + uid - 1);
}

static const char *var_kind(tree v)
{
	if (TREE_CODE(v) == PARM_DECL)
		return "param";
	if (is_global_var(v))
		return "global";
	return "local";
}

static bool named(tree v)
{
	return v && DECL_P(v) && DECL_NAME(v) && !DECL_ARTIFICIAL(v) &&
	       (TREE_CODE(v) == VAR_DECL || TREE_CODE(v) == PARM_DECL);
}

/* A set of JSON items, kept as one string "a,b,c" with no duplicates. */
static void set_add(struct sbuf *set, const char *item)
{
	size_t n = strlen(item);
	for (const char *p = set->p; p && (p = strstr(p, item)); p++)
		if ((p == set->p || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
			return;
	if (set->len)
		sb_add(set, ",", 1);
	sb_add(set, item, n);
}

static void set_var(struct sbuf *set, tree v)
{
	struct sbuf t = { NULL, 0, 0 };
	sb_printf(&t, "{\"%s\":", var_kind(v));
	sb_str(&t, dp_decl_name(v));
	sb_puts(&t, "}");
	set_add(set, t.p);
	free(t.p);
}

static void sources(struct ctx *c, tree t, int depth, struct sbuf *set);

/* The last store to the memory `ref` before `stmt`, following the virtual
 * use-def chain: enough for locals that live in memory. */
static void reaching_store(struct ctx *c, gimple *stmt, tree ref, int depth, struct sbuf *set)
{
	tree vuse = gimple_vuse(stmt);
	for (int steps = 0; vuse && TREE_CODE(vuse) == SSA_NAME && steps < 32; steps++) {
		if (!walk_step(c, vuse))
			return;
		gimple *d = SSA_NAME_DEF_STMT(vuse);
		if (gimple_nop_p(d) || gimple_code(d) == GIMPLE_PHI)
			return;
		if (is_gimple_call(d)) {
			tree l = gimple_call_lhs(d);
			if (l && operand_equal_p(l, ref, 0)) {
				int s = site_of(c, d);
				if (s >= 0) {
					char item[48];
					snprintf(item, sizeof item, "{\"call\":%d}", s);
					set_add(set, item);
				}
				return;
			}
			if (DECL_P(ref) && !TREE_ADDRESSABLE(ref) && !is_global_var(ref)) {
				vuse = gimple_vuse(d);
				continue;
			}
			return;         /* may have written it */
		}
		if (gimple_assign_single_p(d) && gimple_vdef(d)) {
			tree l = gimple_assign_lhs(d);
			if (operand_equal_p(l, ref, 0)) {
				if (!gimple_clobber_p(d))
					sources(c, gimple_assign_rhs1(d), depth + 1, set);
				return;
			}
			if (DECL_P(ref) && (DECL_P(l) || !TREE_ADDRESSABLE(ref))) {
				vuse = gimple_vuse(d);
				continue;
			}
			return;
		}
		vuse = gimple_vuse(d);
	}
}

/* What feeds the value t: parameters, locals, globals, earlier calls'
 * results, constants. Stops at call results (what feeds those is the
 * earlier call's own business). */
static void sources(struct ctx *c, tree t, int depth, struct sbuf *set)
{
	if (!t || depth > 16)
		return;
	switch (TREE_CODE(t)) {
	case SSA_NAME: {
		if (!walk_step(c, t))
			return;
		tree v = SSA_NAME_VAR(t);
		if (named(v))
			set_var(set, v);
		if (SSA_NAME_IS_DEFAULT_DEF(t))
			return;
		gimple *d = SSA_NAME_DEF_STMT(t);
		if (is_gimple_call(d)) {
			int s = site_of(c, d);
			char item[48];
			if (s >= 0)
				snprintf(item, sizeof item, "{\"call\":%d}", s);
			else
				snprintf(item, sizeof item, "{\"call\":null}");
			set_add(set, item);
			return;
		}
		if (gimple_code(d) == GIMPLE_PHI) {
			for (unsigned i = 0; i < gimple_phi_num_args(d); i++)
				sources(c, gimple_phi_arg_def(d, i), depth + 1, set);
			return;
		}
		if (is_gimple_assign(d)) {
			if (gimple_assign_single_p(d) && gimple_vuse(d) &&
			    !is_gimple_min_invariant(gimple_assign_rhs1(d))) {
				tree r = gimple_assign_rhs1(d);
				sources(c, r, depth + 1, set);
				if (DECL_P(r) && !is_global_var(r))
					reaching_store(c, d, r, depth + 1, set);
				return;
			}
			for (unsigned i = 1; i < gimple_num_ops(d); i++)
				sources(c, gimple_op(d, i), depth + 1, set);
		}
		return;
	}
	case VAR_DECL:
	case PARM_DECL:
		if (named(t))
			set_var(set, t);
		return;
	case ADDR_EXPR: {
		tree base = get_base_address(TREE_OPERAND(t, 0));
		if (base && named(base)) {
			struct sbuf it = { NULL, 0, 0 };
			sb_printf(&it, "{\"addr_of\":{\"%s\":", var_kind(base));
			sb_str(&it, dp_decl_name(base));
			sb_puts(&it, "}}");
			set_add(set, it.p);
			free(it.p);
		} else if (base && TREE_CODE(base) == FUNCTION_DECL) {
			struct sbuf it = { NULL, 0, 0 };
			sb_puts(&it, "{\"function\":");
			sb_str(&it, dp_decl_name(base));
			sb_puts(&it, "}");
			set_add(set, it.p);
			free(it.p);
		} else if (base && TREE_CODE(base) == STRING_CST) {
			set_add(set, "{\"const\":\"string\"}");
		}
		return;
	}
	case MEM_REF:
	case TARGET_MEM_REF:
		set_add(set, "{\"memory\":true}");
		sources(c, TREE_OPERAND(t, 0), depth + 1, set);
		return;
	case COMPONENT_REF:
	case ARRAY_REF:
	case BIT_FIELD_REF:
	case REALPART_EXPR:
	case IMAGPART_EXPR:
	case VIEW_CONVERT_EXPR:
		sources(c, get_base_address(t), depth + 1, set);
		if (TREE_CODE(t) == ARRAY_REF)
			sources(c, TREE_OPERAND(t, 1), depth + 1, set);
		return;
	default:
		if (CONSTANT_CLASS_P(t))
			set_add(set, "{\"const\":true}");
		return;
	}
}

/* Where a pointer value points, when the compiler can tell syntactically. */
static void points_to(struct ctx *c, tree t, int depth, struct sbuf *set)
{
	if (!t || depth > 16) {
		set_add(set, "\"unknown\"");
		return;
	}
	if (TREE_CODE(t) == ADDR_EXPR) {
		tree base = get_base_address(TREE_OPERAND(t, 0));
		if (base && named(base))
			set_var(set, base);
		else if (base && TREE_CODE(base) == STRING_CST)
			set_add(set, "\"string\"");
		else if (base && TREE_CODE(base) == FUNCTION_DECL)
			set_add(set, "\"function\"");
		else
			set_add(set, "\"unknown\"");
		return;
	}
	if (integer_zerop(t)) {
		set_add(set, "\"null\"");
		return;
	}
	if (TREE_CODE(t) != SSA_NAME) {
		set_add(set, "\"unknown\"");
		return;
	}
	if (!walk_step(c, t))
		return;
	tree v = SSA_NAME_VAR(t);
	if (SSA_NAME_IS_DEFAULT_DEF(t)) {
		if (v && TREE_CODE(v) == PARM_DECL) {
			struct sbuf it = { NULL, 0, 0 };
			sb_puts(&it, "{\"via_param\":");
			sb_str(&it, dp_decl_name(v));
			sb_puts(&it, "}");
			set_add(set, it.p);
			free(it.p);
		} else {
			set_add(set, "\"unknown\"");
		}
		return;
	}
	gimple *d = SSA_NAME_DEF_STMT(t);
	if (is_gimple_call(d)) {
		int s = site_of(c, d);
		if ((gimple_call_flags(d) & ECF_MALLOC) && s >= 0) {
			char item[48];
			snprintf(item, sizeof item, "{\"heap\":%d}", s);
			set_add(set, item);
		} else {        /* (an allocation that is no numbered site: unknown) */
			set_add(set, "\"unknown\"");
		}
		return;
	}
	if (gimple_code(d) == GIMPLE_PHI) {
		for (unsigned i = 0; i < gimple_phi_num_args(d); i++)
			points_to(c, gimple_phi_arg_def(d, i), depth + 1, set);
		return;
	}
	if (is_gimple_assign(d)) {
		enum tree_code code = gimple_assign_rhs_code(d);
		if (code == POINTER_PLUS_EXPR || CONVERT_EXPR_CODE_P(code) ||
		    code == SSA_NAME || code == ADDR_EXPR) {
			points_to(c, gimple_assign_rhs1(d), depth + 1, set);
			return;
		}
	}
	set_add(set, "\"unknown\"");
}

/* ================= the call records ================= */

static void emit_result(struct ctx *c, gimple *call, struct sbuf *b)
{
	tree l = gimple_call_lhs(call);
	if (!l) {
		sb_puts(b, "null");
		return;
	}
	tree v = TREE_CODE(l) == SSA_NAME ? SSA_NAME_VAR(l) : get_base_address(l);
	if (TREE_CODE(l) == SSA_NAME && !named(v)) {
		/* A temporary: if its one use computes a named variable (a copy,
		 * or r += f()), that variable is what the call defines. */
		use_operand_p use;
		gimple *u;
		if (single_imm_use(l, &use, &u) && is_gimple_assign(u)) {
			tree ul = gimple_assign_lhs(u);
			v = TREE_CODE(ul) == SSA_NAME ? SSA_NAME_VAR(ul) : get_base_address(ul);
		}
	}
	if (named(v)) {
		sb_printf(b, "{\"%s\":", var_kind(v));
		sb_str(b, dp_decl_name(v));
		sb_puts(b, "}");
	} else {
		sb_puts(b, "\"temp\"");
	}
	(void)c;
}

static void emit_call(struct ctx *c, unsigned site, struct sbuf *b)
{
	struct dp_site_rec *s = &dp_sites[site];
	gimple *call = c->site_stmt[site - c->first];
	static const char *const kinds[] = { "dynamic", "normal", "indirect", "external" };
	sb_printf(b, "{\"site\":%u,\"id\":\"%016llx:%u\",\"callee\":", site,
		  (unsigned long long)dp_tu_id, site);
	sb_str(b, s->callee);
	sb_printf(b, ",\"kind\":\"%s\",\"line\":%u,\"col\":%u", kinds[s->kind & 3], s->line, s->col);
	if (!call) {
		sb_puts(b, ",\"lost\":true}");
		return;
	}
	int flags = gimple_call_flags(call);
	if (gimple_call_fndecl(call))
		flags |= dp_declared_effects(gimple_call_fndecl(call));    /* as the source says */
	sb_printf(b, ",\"effects\":\"%s\"", (flags & ECF_CONST) ? "const" :
		  (flags & ECF_PURE) ? "pure" : "memory");
	if (s->flags & DP_CSS_TAIL)
		sb_puts(b, ",\"tail\":true");
	if (s->flags & DP_CSS_NORETURN)
		sb_puts(b, ",\"noreturn\":true");
	if (!gimple_call_fndecl(call)) {
		struct sbuf set = { NULL, 0, 0 };
		walk_start(c);
		sources(c, gimple_call_fn(call), 0, &set);
		sb_printf(b, ",\"target_from\":[%s]", set.p ? set.p : "");
		free(set.p);
	}
	sb_puts(b, ",\"args\":[");
	for (unsigned i = 0; i < gimple_call_num_args(call); i++) {
		tree a = gimple_call_arg(call, i);
		struct sbuf set = { NULL, 0, 0 };
		walk_start(c);
		sources(c, a, 0, &set);
		sb_printf(b, "%s{\"from\":[%s]", i ? "," : "", set.p ? set.p : "");
		free(set.p);
		if (POINTER_TYPE_P(TREE_TYPE(a))) {
			struct sbuf pt = { NULL, 0, 0 };
			walk_start(c);
			points_to(c, a, 0, &pt);
			sb_printf(b, ",\"points_to\":[%s]", pt.p ? pt.p : "");
			free(pt.p);
		}
		sb_puts(b, "}");
	}
	sb_puts(b, "],\"result\":");
	emit_result(c, call, b);
	sb_puts(b, "}");
}

/* ================= parameter uses and stores ================= */

enum { PV_USE = 1, PV_STORE = 2 };

static bool derived(const struct pvar *v, tree t)
{
	return t && TREE_CODE(t) == SSA_NAME && bitmap_bit_p(v->ssa, SSA_NAME_VERSION(t));
}

/* Does the value or reference t read v (a derived SSA name, or v itself
 * when it lives in memory, anywhere inside t)? */
static bool mentions(const struct pvar *v, tree t)
{
	if (!t)
		return false;
	if (TREE_CODE(t) == SSA_NAME)
		return derived(v, t);
	if (t == v->decl)
		return v->in_mem;
	if (TREE_CODE(t) == TREE_LIST)          /* an asm's operand */
		return mentions(v, TREE_VALUE(t)) || mentions(v, TREE_CHAIN(t));
	if (!EXPR_P(t))
		return false;
	for (int i = 0; i < TREE_OPERAND_LENGTH(t); i++)
		if (mentions(v, TREE_OPERAND(t, i)))
			return true;
	return false;
}

/* Is the memory reference t (a store's destination) through a pointer
 * derived from v? */
static bool through(const struct pvar *v, tree t)
{
	tree base = t ? get_base_address(t) : NULL_TREE;
	return base && (TREE_CODE(base) == MEM_REF || TREE_CODE(base) == TARGET_MEM_REF) &&
	       derived(v, TREE_OPERAND(base, 0));
}

/* Does the destination t read v other than as the pointer stored through
 * (an index, say)? A variable written is not read. */
static bool mentions_dest(const struct pvar *v, tree t)
{
	if (!t || TREE_CODE(t) == SSA_NAME || DECL_P(t) || !EXPR_P(t))
		return false;
	bool mem = TREE_CODE(t) == MEM_REF || TREE_CODE(t) == TARGET_MEM_REF;
	for (int i = 0; i < TREE_OPERAND_LENGTH(t); i++) {
		tree op = TREE_OPERAND(t, i);
		if (i == 0 ? (mem ? !derived(v, op) && mentions(v, op) : mentions_dest(v, op))
			   : mentions(v, op))
			return true;
	}
	return false;
}

/* Is a pointer derived from v as an address: the name, or &v->f? */
static bool derived_pointer(const struct pvar *v, tree t)
{
	if (derived(v, t))
		return true;
	if (t && TREE_CODE(t) == ADDR_EXPR) {
		tree base = get_base_address(TREE_OPERAND(t, 0));
		return base && (TREE_CODE(base) == MEM_REF || TREE_CODE(base) == TARGET_MEM_REF) &&
		       derived(v, TREE_OPERAND(base, 0));
	}
	return false;
}

/* Does the assignment s only compute a value derived from v (a copy, cast,
 * pointer arithmetic on it, &v->f, or a load of v living in memory)? */
static bool derives(const struct pvar *v, gimple *s)
{
	if (!is_gimple_assign(s) || TREE_CODE(gimple_assign_lhs(s)) != SSA_NAME)
		return false;
	enum tree_code code = gimple_assign_rhs_code(s);
	tree r = gimple_assign_rhs1(s);
	if (code == SSA_NAME || CONVERT_EXPR_CODE_P(code) || code == POINTER_PLUS_EXPR)
		return derived(v, r);
	if (code == ADDR_EXPR)
		return derived_pointer(v, r);
	return v->in_mem && r == v->decl;
}

/* Marks every SSA name derived from v, to a fixed point over the function
 * (phis and loops; at most 32 sweeps). */
static void derive(function *fun, struct pvar *v)
{
	tree def = ssa_default_def(fun, v->decl);
	if (def)
		bitmap_set_bit(v->ssa, SSA_NAME_VERSION(def));
	bool changed = true;
	for (int sweep = 0; changed && sweep < 32; sweep++) {
		changed = false;
		basic_block bb;
		FOR_EACH_BB_FN(bb, fun) {
			for (gphi_iterator g = gsi_start_phis(bb); !gsi_end_p(g); gsi_next(&g)) {
				gphi *phi = g.phi();
				tree res = gimple_phi_result(phi);
				if (virtual_operand_p(res) || derived(v, res))
					continue;
				for (unsigned i = 0; i < gimple_phi_num_args(phi); i++)
					if (derived(v, gimple_phi_arg_def(phi, i))) {
						bitmap_set_bit(v->ssa, SSA_NAME_VERSION(res));
						changed = true;
						break;
					}
			}
			for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
				gimple *s = gsi_stmt(g);
				if (derives(v, s) && bitmap_set_bit(v->ssa,
					SSA_NAME_VERSION(gimple_assign_lhs(s))))
					changed = true;
			}
		}
	}
}

/* May the call s write what its pointer argument i points to: a callee
 * not declared const or pure, and a pointee (of the prototype's parameter
 * type when there is one) that is not const? */
static bool call_may_write(gimple *s, unsigned i)
{
	int flags = gimple_call_flags(s);
	if (gimple_call_fndecl(s))
		flags |= dp_declared_effects(gimple_call_fndecl(s));
	if (flags & (ECF_CONST | ECF_PURE))
		return false;
	tree ptr = TREE_TYPE(gimple_call_arg(s, i));
	tree fntype = gimple_call_fntype(s);
	tree at = fntype ? TYPE_ARG_TYPES(fntype) : NULL_TREE;
	for (unsigned k = 0; at && k < i; k++)
		at = TREE_CHAIN(at);
	if (at && TREE_VALUE(at) && POINTER_TYPE_P(TREE_VALUE(at)))
		ptr = TREE_VALUE(at);
	return POINTER_TYPE_P(ptr) && !TYPE_READONLY(TREE_TYPE(ptr));
}

/* Is t a temporary of the plugin's instrumentation (a "dp_" register
 * made by instrument.cc or inline_path.cc; a user's variable so named has a
 * non-artificial decl)? */
static bool dp_temp(tree t)
{
	if (!t || TREE_CODE(t) != SSA_NAME || !SSA_NAME_IDENTIFIER(t))
		return false;
	tree var = SSA_NAME_VAR(t);
	return (!var || DECL_ARTIFICIAL(var)) &&
	       !strncmp(IDENTIFIER_POINTER(SSA_NAME_IDENTIFIER(t)), "dp_", 3);
}

/* Is s code the instrumentation added (a hook call, or a statement on its
 * temporaries: the inline fast path's test of an indirect call's target
 * reads the function pointer, and must not count as a use of it)? */
static bool instrumentation(gimple *s)
{
	if (is_gimple_call(s) && dp_is_hook(gimple_call_fndecl(s)))
		return true;
	for (unsigned i = 0; i < gimple_num_ops(s); i++)
		if (dp_temp(gimple_op(s, i)))
			return true;
	return false;
}

/* What statement s does with parameter v: PV_USE (reads it, or memory
 * through it; for a call, before it) and PV_STORE (stores through it; for
 * a call, after it). */
static int stmt_effect(const struct pvar *v, gimple *s)
{
	int fx = 0;
	if (is_gimple_debug(s) || instrumentation(s))
		return 0;
	switch (gimple_code(s)) {
	case GIMPLE_ASSIGN: {
		if (gimple_clobber_p(s) || derives(v, s))
			return 0;
		tree lhs = gimple_assign_lhs(s);
		if (through(v, lhs))    /* an integer made a pointer: its value is read */
			fx |= v->pointer ? PV_STORE : PV_USE;
		if (mentions_dest(v, lhs))
			fx |= PV_USE;
		for (unsigned i = 1; i < gimple_num_ops(s); i++)
			if (mentions(v, gimple_op(s, i)))
				fx |= PV_USE;
		return fx;
	}
	case GIMPLE_CALL: {
		if (gimple_call_internal_p(s) || dp_is_hook(gimple_call_fndecl(s)))
			return 0;
		tree lhs = gimple_call_lhs(s);
		if (through(v, lhs))
			fx |= v->pointer ? PV_STORE : PV_USE;
		if (mentions_dest(v, lhs) || mentions(v, gimple_call_fn(s)))
			fx |= PV_USE;
		for (unsigned i = 0; i < gimple_call_num_args(s); i++) {
			tree a = gimple_call_arg(s, i);
			if (!mentions(v, a))
				continue;
			fx |= PV_USE;
			if (v->pointer && derived_pointer(v, a) && call_may_write(s, i))
				fx |= PV_STORE;
		}
		return fx;
	}
	case GIMPLE_COND:
	case GIMPLE_SWITCH:
	case GIMPLE_RETURN:
	case GIMPLE_ASM:
		for (unsigned i = 0; i < gimple_num_ops(s); i++)
			if (mentions(v, gimple_op(s, i)))
				return PV_USE;
		return 0;
	default:
		return 0;
	}
}

/* The join block after bb when bb ends in the inline fast path's test
 * (abi=2 splits a source block there: bb, an unlikely block of
 * instrumentation only, and the join, which goes on with the call); else
 * NULL. */
static basic_block fast_path_join(basic_block bb)
{
	gimple *last = last_stmt(bb);
	if (!last || gimple_code(last) != GIMPLE_COND || !instrumentation(last) ||
	    EDGE_COUNT(bb->succs) != 2)
		return NULL;
	for (int i = 0; i < 2; i++) {
		basic_block slow = EDGE_SUCC(bb, i)->dest, join = EDGE_SUCC(bb, 1 - i)->dest;
		if (!single_succ_p(slow) || single_succ(slow) != join)
			continue;
		bool only = true;
		for (gimple_stmt_iterator g = gsi_start_bb(slow); !gsi_end_p(g) && only; gsi_next(&g))
			only = is_gimple_debug(gsi_stmt(g)) || instrumentation(gsi_stmt(g));
		if (only)
			return join;
	}
	return NULL;
}

/* The stretch of blocks from bb that the source has as one block: bb and
 * the joins of the fast paths in it, while they are in lp, not stop, not
 * visited and not lp's header. */
static void stretch(struct ctx *c, basic_block bb, basic_block stop, class loop *lp,
		    vec<basic_block> *out)
{
	out->safe_push(bb);
	for (basic_block j = fast_path_join(bb); j && j != stop && !c->visited[j->index] &&
	     flow_bb_inside_loop_p(lp, j) && j != lp->header && j->loop_father == lp &&
	     out->length() < 100000; j = fast_path_join(j))
		out->safe_push(j);
}

/* For the stretch of blocks: the index of the first statement using each
 * parameter and of the last storing through it (-1: none), counted over the
 * stretch's statements, in c->first_use, c->last_store. */
static void block_uses(struct ctx *c, const vec<basic_block> &blocks)
{
	for (unsigned i = 0; i < c->n_pv; i++)
		c->first_use[i] = c->last_store[i] = -1;
	int k = 0;
	for (unsigned j = 0; j < blocks.length(); j++)
		for (gimple_stmt_iterator g = gsi_start_bb(blocks[j]); !gsi_end_p(g); gsi_next(&g), k++)
			for (unsigned i = 0; i < c->n_pv; i++) {
				int fx = stmt_effect(&c->pv[i], gsi_stmt(g));
				if ((fx & PV_USE) && c->first_use[i] < 0)
					c->first_use[i] = k;
				if (fx & PV_STORE)
					c->last_store[i] = k;
			}
}

/* Appends {"use"|"store": name} of parameter i to b; returns 1 (an item). */
static unsigned param_item(struct ctx *c, const char *kind, unsigned i, struct sbuf *b,
			   bool *first_item)
{
	sb_printf(b, "%s{\"%s\":", *first_item ? "" : ",", kind);
	sb_str(b, c->pv[i].name);
	sb_puts(b, "}");
	*first_item = false;
	return 1;
}

/* ================= the control-flow nesting ================= */

static unsigned stmt_line(gimple *s)
{
	return s && gimple_location(s) != UNKNOWN_LOCATION ?
	       (unsigned)LOCATION_LINE(gimple_location(s)) : 0;
}

static unsigned bb_line(basic_block bb)
{
	gimple *last = last_stmt(bb);
	if (stmt_line(last))
		return stmt_line(last);
	for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g))
		if (stmt_line(gsi_stmt(g)))
			return stmt_line(gsi_stmt(g));
	return 0;
}

/* Emits the items of the region starting at bb, up to (not including) stop,
 * inside loop lp, as JSON array elements. Returns how many calls, uses and
 * stores it placed (a branch is kept only if its arms hold some). */
static unsigned region(struct ctx *c, basic_block bb, basic_block stop, class loop *lp,
		       struct sbuf *b, bool *first_item)
{
	unsigned placed = 0;
	/* used[i]: parameter i has a use item in this sequence since its last
	 * call, branch or loop item (a later one would say nothing new) */
	bool *used = XCNEWVEC(bool, c->n_pv + 1);
	bool at_header = lp->num != 0 && bb == lp->header;
	for (int steps = 0; bb && bb != stop && steps < 100000; steps++) {
		if (bb == EXIT_BLOCK_PTR_FOR_FN(c->fun) || c->visited[bb->index])
			break;
		if (!flow_bb_inside_loop_p(lp, bb))
			break;
		if (lp->num != 0 && bb == lp->header && !at_header)
			break;                  /* back at the top: the next iteration */
		class loop *inner = bb->loop_father;
		if (inner != lp && inner->header == bb && loop_outer(inner) == lp) {
			struct sbuf body = { NULL, 0, 0 };
			bool fi = true;
			unsigned n = region(c, bb, NULL, inner, &body, &fi);
			memset(used, 0, c->n_pv * sizeof(*used));
			sb_printf(b, "%s{\"loop\":{\"line\":%u,\"body\":[%s]}}",
				  *first_item ? "" : ",", bb_line(bb), body.p ? body.p : "");
			*first_item = false;
			free(body.p);
			placed += n;
			/* continue where the loop goes on: the first post-dominator
			 * of its header outside it */
			basic_block next = bb;
			do
				next = get_immediate_dominator(CDI_POST_DOMINATORS, next);
			while (next && next != EXIT_BLOCK_PTR_FOR_FN(c->fun) &&
			       flow_bb_inside_loop_p(inner, next));
			bb = next;
			continue;
		}
		at_header = false;
		auto_vec<basic_block> blocks;
		stretch(c, bb, stop, lp, &blocks);
		block_uses(c, blocks);
		int k = 0;
		for (unsigned j = 0; j < blocks.length(); j++) {
			c->visited[blocks[j]->index] = true;
			for (gimple_stmt_iterator g = gsi_start_bb(blocks[j]); !gsi_end_p(g);
			     gsi_next(&g), k++) {
				for (unsigned i = 0; i < c->n_pv; i++)
					if (c->first_use[i] == k && !used[i]) {
						placed += param_item(c, "use", i, b, first_item);
						used[i] = true;
					}
				int s = site_of(c, gsi_stmt(g));
				if (s >= 0 && !c->placed[s - c->first]) {
					c->placed[s - c->first] = true;
					sb_printf(b, "%s{\"call\":%d}", *first_item ? "" : ",", s);
					memset(used, 0, c->n_pv * sizeof(*used));
					*first_item = false;
					placed++;
				}
				for (unsigned i = 0; i < c->n_pv; i++)
					if (c->last_store[i] == k)
						placed += param_item(c, "store", i, b, first_item);
			}
		}
		bb = blocks.last();
		auto_vec<basic_block> succ;
		edge e;
		edge_iterator ei;
		FOR_EACH_EDGE(e, ei, bb->succs)
			/* leaving the loop is its exit test, not a branch arm */
			if (!(e->flags & (EDGE_EH | EDGE_ABNORMAL | EDGE_FAKE)) &&
			    (lp->num == 0 || flow_bb_inside_loop_p(lp, e->dest)))
				succ.safe_push(e->dest);
		if (succ.length() == 0)
			break;
		if (succ.length() == 1) {
			bb = succ[0];
			continue;
		}
		basic_block join = get_immediate_dominator(CDI_POST_DOMINATORS, bb);
		struct sbuf arms = { NULL, 0, 0 };
		unsigned n = 0;
		for (unsigned i = 0; i < succ.length(); i++) {
			struct sbuf arm = { NULL, 0, 0 };
			bool fi = true;
			n += region(c, succ[i], join, lp, &arm, &fi);
			sb_printf(&arms, "%s[%s]", i ? "," : "", arm.p ? arm.p : "");
			free(arm.p);
		}
		if (n) {
			gimple *last = last_stmt(bb);
			memset(used, 0, c->n_pv * sizeof(*used));
			sb_printf(b, "%s{\"branch\":{\"kind\":\"%s\",\"line\":%u,\"arms\":[%s]}}",
				  *first_item ? "" : ",",
				  last && gimple_code(last) == GIMPLE_SWITCH ? "switch" : "if",
				  bb_line(bb), arms.p);
			*first_item = false;
		}
		free(arms.p);
		placed += n;
		bb = join;
	}
	free(used);
	return placed;
}

/* ================= checksum and output ================= */

/* FNV-1a of the function's source lines, so feedback made for an older
 * version of the function can be told apart: the bytes from the start of
 * line `from` to the end of line `to`, its newline included. 0 when the
 * file is unreadable. The last file read is kept with where each of its
 * lines starts (a TU's functions mostly share one file: scanning it from
 * its start for each function took a tenth of the compile of sqlite3's
 * 240k-line amalgamation). */
uint64_t dp_source_checksum(const char *file, unsigned from, unsigned to)
{
	static char *cached_name, *text;
	static size_t len, *line_at, n_lines;     /* line k starts at line_at[k - 1] */
	if (!cached_name || strcmp(cached_name, file)) {
		free(cached_name);
		free(text);
		free(line_at);
		cached_name = xstrdup(file);
		text = NULL;
		line_at = NULL;
		len = n_lines = 0;
		FILE *f = fopen(file, "rb");
		if (f) {
			size_t cap = 0;
			for (;;) {
				if (len == cap) {
					cap = cap ? cap * 2 : 65536;
					text = (char *)xrealloc(text, cap);
				}
				size_t n = fread(text + len, 1, cap - len, f);
				if (n == 0)
					break;
				len += n;
			}
			fclose(f);
			if (!text)
				text = xstrdup("");
			size_t nl = 0;
			for (size_t i = 0; i < len; i++)
				nl += text[i] == '\n';
			line_at = (size_t *)xmalloc((nl + 1) * sizeof(*line_at));
			line_at[n_lines++] = 0;
			for (size_t i = 0; i < len; i++)
				if (text[i] == '\n' && i + 1 < len)
					line_at[n_lines++] = i + 1;
		}
	}
	if (!text)
		return 0;
	uint64_t h = 14695981039346656037ULL;
	if (from < 1)
		from = 1;
	if (from > to || from > n_lines)
		return h;
	size_t lo = line_at[from - 1], hi = to < n_lines ? line_at[to] : len;
	return hi > lo ? dp_fnv1a(h, text + lo, hi - lo) : h;
}

static void emit_asm(const char *json)
{
	struct sbuf a = { NULL, 0, 0 };
	sb_puts(&a, "\t.pushsection .deepprof.progrep,\"\",@progbits\n");
	size_t n = strlen(json);
	for (size_t i = 0; i <= n; i += 96) {
		sb_puts(&a, "\t.ascii \"");
		for (size_t j = i; j < i + 96 && j <= n; j++) {
			unsigned char ch = j < n ? json[j] : '\n';
			if (ch == '"' || ch == '\\') {
				char e[2] = { '\\', (char)ch };
				sb_add(&a, e, 2);
			} else if (ch < 0x20 || ch >= 0x7f) {
				sb_printf(&a, "\\%03o", ch);
			} else {
				sb_add(&a, (const char *)&ch, 1);
			}
		}
		sb_puts(&a, "\"\n");
	}
	sb_puts(&a, "\t.popsection\n");
	symtab->finalize_toplevel_asm(build_string(a.len, a.p));
	free(a.p);
}

static void output_record(const char *json)
{
	emit_asm(json);
	if (dp_opt.progrep_file) {
		FILE *f = fopen(dp_opt.progrep_file, "a");
		if (!f || fprintf(f, "%s\n", json) < 0 || fclose(f) != 0)
			error("deepprof plugin: cannot write progrep file %qs: %m",
			      dp_opt.progrep_file);
	}
}

/* The first record of a TU says what the TU holds. */
static void output_tu_record(void)
{
	struct sbuf b = { NULL, 0, 0 };
	sb_printf(&b, "{\"progrep\":2,\"record\":\"tu\",\"tu\":\"%016llx\",\"file\":",
		  (unsigned long long)dp_tu_id);
	sb_str(&b, main_input_filename);
	sb_printf(&b, ",\"n_ps\":%u,\"n_css\":%u,\"abi\":%d}", dp_n_fns, dp_n_sites, dp_opt.abi);
	output_record(b.p);
	free(b.p);
}

/* The type as GCC prints it, without the <Tnnn> of anonymous types. */
static char *type_string(tree type)
{
	char *t = print_generic_expr_to_str(type);
	char *w = t;
	for (char *r = t; *r;) {
		if (r[0] == '<' && r[1] == 'T') {
			char *end = strchr(r, '>');
			if (end) {
				r = end + 1;
				continue;
			}
		}
		*w++ = *r++;
	}
	*w = 0;
	return t;
}

/* ================= the pass ================= */

namespace {

const pass_data progrep_pass_data = {
	GIMPLE_PASS, "deepprof_progrep", OPTGROUP_NONE, TV_NONE,
	PROP_cfg | PROP_ssa, 0, 0, 0, 0
};

class progrep_pass : public gimple_opt_pass {
public:
	progrep_pass(gcc::context *ctxt) : gimple_opt_pass(progrep_pass_data, ctxt) {}
	bool gate(function *) override
	{
		return dp_opt.progrep && dp_opt.instrument && !in_lto_p && !seen_error();
	}
	unsigned int execute(function *fun) override;
};

unsigned int progrep_pass::execute(function *fun)
{
	static bool tu_done;
	tree fndecl = fun->decl;
	if (dp_skip_function(fndecl))
		return 0;
	unsigned ps;
	for (ps = 0; ps < dp_n_fns; ps++)
		if (dp_fns[ps].uid == (int)DECL_UID(fndecl))
			break;
	if (ps == dp_n_fns)
		return 0;
	if (!tu_done) {
		tu_done = true;
		output_tu_record();
	}
	struct dp_fn_rec *f = &dp_fns[ps];
	struct ctx c;
	c.fun = fun;
	c.ps = ps;
	c.first = f->first_css;
	c.n = f->n_css;
	c.site_stmt = XCNEWVEC(gimple *, c.n + 1);
	c.placed = XCNEWVEC(bool, c.n + 1);
	c.visited = XCNEWVEC(bool, last_basic_block_for_fn(fun) + 1);
	auto_bitmap seen;
	c.seen = seen;
	c.budget = WALK_BUDGET;

	/* Each site is the first real call after its dp_abi_call hook. */
	basic_block bb;
	FOR_EACH_BB_FN(bb, fun) {
		int pending = -1;
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
			gimple *s = gsi_stmt(g);
			gimple_set_uid(s, 0);
			if (!is_gimple_call(s))
				continue;
			tree fn = gimple_call_fndecl(s);
			if (fn && fn == dp_roots[DPR_CALL]) {
				pending = (int)tree_to_uhwi(gimple_call_arg(s, 1));
				continue;
			}
			if (dp_is_hook(fn) || gimple_call_internal_p(s))
				continue;
			if (!f->hooks) {  /* no marker: the call itself was recorded */
				for (unsigned k = 0; k < c.n; k++)
					if (dp_sites[c.first + k].stmt == s) {
						c.site_stmt[k] = s;
						gimple_set_uid(s, k + 1);
					}
				continue;
			}
			if (pending >= (int)c.first && pending < (int)(c.first + c.n)) {
				c.site_stmt[pending - c.first] = s;
				gimple_set_uid(s, pending - c.first + 1);
			}
			pending = -1;
		}
	}

	bool own_loops = false;
	if (!loops_for_fn(fun)) {
		loop_optimizer_init(AVOID_CFG_MODIFICATIONS);
		own_loops = true;
	}
	calculate_dominance_info(CDI_POST_DOMINATORS);

	/* the named parameters and what derives from each */
	c.n_pv = 0;
	for (tree p = DECL_ARGUMENTS(fndecl); p; p = DECL_CHAIN(p))
		c.n_pv++;
	c.pv = XCNEWVEC(struct pvar, c.n_pv + 1);
	c.first_use = XCNEWVEC(int, c.n_pv + 1);
	c.last_store = XCNEWVEC(int, c.n_pv + 1);
	c.n_pv = 0;
	for (tree p = DECL_ARGUMENTS(fndecl); p; p = DECL_CHAIN(p)) {
		if (!DECL_NAME(p))
			continue;
		struct pvar *v = &c.pv[c.n_pv++];
		v->decl = p;
		v->name = dp_decl_name(p);
		v->pointer = POINTER_TYPE_P(TREE_TYPE(p));
		v->in_mem = !is_gimple_reg(p);
		v->ssa = BITMAP_ALLOC(NULL);
		derive(fun, v);
	}

	struct sbuf b = { NULL, 0, 0 };
	sb_printf(&b, "{\"progrep\":2,\"record\":\"fn\",\"tu\":\"%016llx\",\"ps\":%u,\"fn\":",
		  (unsigned long long)dp_tu_id, ps);
	sb_str(&b, f->name);
	sb_puts(&b, ",\"file\":");
	sb_str(&b, f->file);
	uint64_t sum = dp_source_checksum(f->file, f->line, f->end_line);
	sb_printf(&b, ",\"line\":%u,\"end_line\":%u,\"checksum\":\"%016llx\",\"public\":%s",
		  f->line, f->end_line, (unsigned long long)sum,
		  (f->flags & DP_PS_PUBLIC) ? "true" : "false");
	sb_printf(&b, ",\"first_site\":%u,\"n_sites\":%u,\"backedges\":%u,\"params\":[",
		  f->first_css, f->n_css, f->n_backedges);
	int i = 0;
	for (tree p = DECL_ARGUMENTS(fndecl); p; p = DECL_CHAIN(p), i++) {
		char *ty = type_string(TREE_TYPE(p));
		sb_puts(&b, i ? ",{\"name\":" : "{\"name\":");
		sb_str(&b, DECL_NAME(p) ? dp_decl_name(p) : NULL);
		sb_puts(&b, ",\"type\":");
		sb_str(&b, ty);
		sb_printf(&b, ",\"pointer\":%s}", POINTER_TYPE_P(TREE_TYPE(p)) ? "true" : "false");
		free(ty);
	}
	sb_puts(&b, "],\"body\":[");
	bool fi = true;
	region(&c, single_succ(ENTRY_BLOCK_PTR_FOR_FN(fun)), NULL, fun->x_current_loops->tree_root,
	       &b, &fi);
	sb_puts(&b, "],\"unplaced\":[");
	bool first = true;
	for (unsigned k = 0; k < c.n; k++)
		if (!c.placed[k]) {
			sb_printf(&b, "%s%u", first ? "" : ",", c.first + k);
			first = false;
		}
	sb_puts(&b, "],\"calls\":[");
	for (unsigned k = 0; k < c.n; k++) {
		if (k)
			sb_puts(&b, ",");
		emit_call(&c, c.first + k, &b);
	}
	sb_puts(&b, "]}");
	output_record(b.p);

	free(b.p);
	free_dominance_info(CDI_POST_DOMINATORS);
	if (own_loops)
		loop_optimizer_finalize();
	for (unsigned i = 0; i < c.n_pv; i++)
		BITMAP_FREE(c.pv[i].ssa);
	free(c.pv);
	free(c.first_use);
	free(c.last_store);
	free(c.site_stmt);
	free(c.placed);
	free(c.visited);
	return 0;
}

} /* namespace */

opt_pass *dp_make_progrep_pass(gcc::context *ctxt)
{
	return new progrep_pass(ctxt);
}
