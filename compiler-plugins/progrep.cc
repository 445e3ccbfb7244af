/*
 * progrep.cc — the program representation pass (after "ssa"): for each
 * instrumented function, its parameters, its call sites nested in the
 * control flow, what feeds each argument, what each result defines, memory
 * effects; one JSON line per function in the .deepprof.progrep section
 * (schemas/progrep.md). Part of deepprof's compiler plugins. MIT licence.
 */
#include "plugin.h"
#include "tree-ssa-loop.h"
#include "ssa-iterators.h"

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
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	sb_add(b, tmp, n < (int)sizeof tmp ? (size_t)n : sizeof tmp - 1);
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

struct ctx {
	function *fun;
	unsigned ps, first, n;          /* the function's sites: first .. first+n */
	gimple **site_stmt;             /* n entries */
	bool *placed;                   /* n entries: already in "body" */
	bool *visited;                  /* per basic block index */
	bitmap seen;                    /* SSA names walked for the current value */
	int budget;                     /* steps left for the current value */
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
		if (gimple_call_flags(d) & ECF_MALLOC) {
			int s = site_of(c, d);
			char item[48];
			snprintf(item, sizeof item, "{\"heap\":%d}", s);
			set_add(set, item);
		} else {
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
 * inside loop lp, as JSON array elements. Returns how many calls it placed. */
static unsigned region(struct ctx *c, basic_block bb, basic_block stop, class loop *lp,
		       struct sbuf *b, bool *first_item)
{
	unsigned placed = 0;
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
		c->visited[bb->index] = true;
		for (gimple_stmt_iterator g = gsi_start_bb(bb); !gsi_end_p(g); gsi_next(&g)) {
			int s = site_of(c, gsi_stmt(g));
			if (s < 0 || c->placed[s - c->first])
				continue;
			c->placed[s - c->first] = true;
			sb_printf(b, "%s{\"call\":%d}", *first_item ? "" : ",", s);
			*first_item = false;
			placed++;
		}
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
	return placed;
}

/* ================= checksum and output ================= */

/* FNV-1a of the function's source lines, so feedback made for an older
 * version of the function can be told apart. 0 when the file is unreadable.
 * The last file read is kept: a TU's functions mostly share one. */
static uint64_t source_checksum(const char *file, unsigned from, unsigned to)
{
	static char *cached_name, *text;
	static size_t len;
	if (!cached_name || strcmp(cached_name, file)) {
		free(cached_name);
		free(text);
		cached_name = xstrdup(file);
		text = NULL;
		len = 0;
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
		}
	}
	if (!text)
		return 0;
	uint64_t h = 14695981039346656037ULL;
	unsigned line = 1;
	for (size_t i = 0; i < len && line <= to; i++) {
		if (line >= from)
			h = dp_fnv1a(h, &text[i], 1);
		if (text[i] == '\n')
			line++;
	}
	return h;
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
	sb_printf(&b, "{\"progrep\":1,\"record\":\"tu\",\"tu\":\"%016llx\",\"file\":",
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
	bool gate(function *) override { return dp_opt.progrep && !in_lto_p && !seen_error(); }
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
			if (dp_opt.abi == 2) {  /* no marker: the call itself was recorded */
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

	struct sbuf b = { NULL, 0, 0 };
	sb_printf(&b, "{\"progrep\":1,\"record\":\"fn\",\"tu\":\"%016llx\",\"ps\":%u,\"fn\":",
		  (unsigned long long)dp_tu_id, ps);
	sb_str(&b, f->name);
	sb_puts(&b, ",\"file\":");
	sb_str(&b, f->file);
	uint64_t sum = source_checksum(f->file, f->line, f->end_line);
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
