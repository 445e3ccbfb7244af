/*
 * use.cc — the use build (-fplugin-arg-deepprof-use=FILE[:FILE...],
 * deepprof-cc --deepprof-use): what a compiler does with deepprof's
 * feedback files, as GCC does with -fprofile-use.
 *
 *  - Each file is read at start-up through the feedback library's one
 *    reader (use_feedback.c); a file that cannot be read is one error line
 *    naming it, and the compilation fails.
 *  - A function the feedback knows is matched by name, file and line, and
 *    its progrep checksum (the text of its lines) must be the one the
 *    feedback was made from: otherwise one warning names it and its
 *    entries are skipped. Entries for functions this unit does not define
 *    are ignored.
 *  - Hot procedures get the `hot` attribute, procedures never executed in
 *    any profile `cold` (.text.hot / .text.unlikely at -O2, before the
 *    function is compiled: PLUGIN_PRE_GENERICIZE); call sites never
 *    executed are predicted not taken (the path to them is cold).
 *  - A callee hot through one call site only (the feedback's hot site
 *    entries, none elsewhere, not hot as a whole) gets a copy for that call,
 *    NAME.dp_hot, placed in .text.hot; its other calls keep the original:
 *    the deep profile's per-context cost, which a flat profile has not.
 *  - Every decision is a remark through GCC's optimization-info machinery
 *    (dump_printf_loc from the instrumentation pass, at the place: shown
 *    by -fopt-info, recorded by -fsave-optimization-record), starting with
 *    "deepprof:"; remarks=1 also prints them on stderr in -fopt-info's
 *    form, and nothing else (deepprof-cc --deepprof-remarks).
 *  - With -MD/-MMD, each feedback file becomes a dependency of the object.
 * Part of deepprof's compiler plugins. MIT licence.
 */
#include "plugin.h"
#include "dumpfile.h"
#include "predict.h"
#include "gimple-predict.h"
#include "cpplib.h"
#include "use_feedback.h"

/* The C front end's reader and libcpp's dependency list (mkdeps.h is not
 * installed with the plugin headers). Weak: lto1, which loads the plugin
 * too under -flto, has no front end. */
extern struct cpp_reader *parse_in __attribute__((weak));
extern class mkdeps *cpp_get_deps(cpp_reader *) __attribute__((weak));
extern void deps_add_dep(class mkdeps *, const char *) __attribute__((weak));

static struct dpu_feedback *fbs;
static unsigned n_fbs;

/* A remark decided at PRE_GENERICIZE, made by the pass. */
struct pending_remark {
	location_t at;
	int kind;
	char *msg;
};

/* A function of this unit the feedback knows, found at PRE_GENERICIZE. */
struct known_fn {
	int uid;
	const char *name;
	bool stale;             /* its checksum differs: every entry skipped */
	vec<const struct dpu_hot *> hot;   /* its procedure entries */
	vec<struct pending_remark> later;
};
static vec<struct known_fn> known;

/* ================= reading ================= */

/* Read the ':'-separated feedback files of list into a new array (*n
 * read); each that cannot be read is one error. The path strings stay
 * (the dependencies' names). Returns whether all were read. */
bool dp_read_feedbacks(const char *list, struct dpu_feedback **out, unsigned *n)
{
	char *copy = xstrdup(list);
	unsigned cap = 1;
	for (char *p = copy; *p; p++)
		cap += *p == ':';
	*out = XCNEWVEC(struct dpu_feedback, cap);
	*n = 0;
	bool ok = true;
	for (char *f = strtok(copy, ":"); f; f = strtok(NULL, ":")) {
		char err[600];
		if (dpu_read(&(*out)[*n], f, err, sizeof err) < 0) {
			error("deepprof: %s", err);
			ok = false;
			continue;
		}
		(*n)++;
	}
	return ok;
}

bool dp_use_init(void)
{
	return !dp_opt.use || dp_read_feedbacks(dp_opt.use, &fbs, &n_fbs);
}

/* PLUGIN_START_UNIT: with -MD/-MMD the object depends on the feedback. */
void dp_use_deps(void *, void *)
{
	if (!&parse_in || !cpp_get_deps || !deps_add_dep)
		return;
	class mkdeps *d = parse_in ? cpp_get_deps(parse_in) : NULL;
	if (!d)
		return;
	for (unsigned i = 0; i < n_fbs; i++)
		deps_add_dep(d, fbs[i].path);
}

/* ================= matching ================= */

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "";
}

/* Whether place p names function fn defined in file at line. */
static bool same_fn(const struct dpu_place *p, const char *fn, const char *file, unsigned line)
{
	return p->fn && !strcmp(p->fn, fn) && !strcmp(base_name(p->file), base_name(file)) &&
	       (!line || !p->line || p->line == line);
}

static struct known_fn *find_known(int uid)
{
	for (unsigned i = 0; i < known.length(); i++)
		if (known[i].uid == uid)
			return &known[i];
	return NULL;
}

/* ================= remarks ================= */

enum remark_kind { R_OPTIMIZED, R_MISSED, R_NOTE };

/* One remark at loc (a statement's, or a function's): through -fopt-info's
 * machinery when it is on for the current pass, and on stderr in its form
 * with remarks=1. */
void dp_use_remark(int kind, location_t loc, const char *fmt, ...)
{
	enum remark_kind k = (enum remark_kind)kind;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	static const dump_flags_t kinds[] = { MSG_OPTIMIZED_LOCATIONS, MSG_MISSED_OPTIMIZATION, MSG_NOTE };
	if (dump_enabled_p())
		dump_printf_loc(kinds[k], dump_user_location_t::from_location_t(loc), "deepprof: %s\n", msg);
	if (dp_opt.remarks) {
		static const char *const names[] = { "optimized", "missed", "note" };
		expanded_location x = expand_location(loc);
		fprintf(stderr, "%s:%d:%d: %s: deepprof: %s\n", x.file ? x.file : "?", x.line, x.column,
			names[k], msg);
	}
}

/* ================= hot and cold procedures ================= */

static void add_attribute(tree fndecl, const char *name)
{
	if (lookup_attribute(name, DECL_ATTRIBUTES(fndecl)))
		return;
	tree decl = fndecl;
	decl_attributes(&decl, build_tree_list(get_identifier(name), NULL_TREE), 0);
}

/* ================= a callee hot in one context only ================= */

/* The feedback's hot call sites say where a callee is costly per call.
 * A callee hot through one site of this function and nowhere else (no
 * other hot site, not hot as a whole) gets a copy for that call, placed in
 * .text.hot and compiled for speed, while its other calls keep the
 * original: what a flat profile (-fprofile-use's, one count per function)
 * cannot tell apart. */

struct ctx_find {
	unsigned line, col;
	const char *callee;
	vec<tree *> calls;
};

static tree find_ctx_call(tree *tp, int *walk, void *data)
{
	struct ctx_find *cf = (struct ctx_find *)data;
	tree t = *tp;
	if (TYPE_P(t)) {
		*walk = 0;
		return NULL_TREE;
	}
	if (TREE_CODE(t) == CALL_EXPR && EXPR_HAS_LOCATION(t)) {
		tree fn = get_callee_fndecl(t);
		expanded_location x = expand_location(EXPR_LOCATION(t));
		if (fn && (unsigned)x.line == cf->line && (unsigned)x.column == cf->col &&
		    !strcmp(dp_decl_name(fn), cf->callee))
			cf->calls.safe_push(tp);
	}
	return NULL_TREE;
}

static bool hot_elsewhere(const struct dpu_hot *h)
{
	for (unsigned i = 0; i < n_fbs; i++)
		for (unsigned j = 0; j < fbs[i].n_hot; j++) {
			const struct dpu_hot *e = &fbs[i].hot[j];
			if (e->temp != DPU_HOT)
				continue;
			if (e->proc && e->at.fn && !strcmp(e->at.fn, h->callee))
				return true;
			if (!e->proc && e->callee && !strcmp(e->callee, h->callee) &&
			    (e->at.line != h->at.line || e->at.col != h->at.col ||
			     !e->at.fn || !h->at.fn || strcmp(e->at.fn, h->at.fn)))
				return true;
		}
	return false;
}

static void later(struct known_fn *k, location_t at, int kind, const char *fmt, ...)
	ATTRIBUTE_PRINTF(4, 5);
static void later(struct known_fn *k, location_t at, int kind, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	struct pending_remark r = { at, kind, xstrdup(msg) };
	k->later.safe_push(r);
}

static void hot_contexts(tree fndecl, const char *name, const char *file, struct known_fn *k)
{
	hash_set<tree> done;
	for (unsigned i = 0; i < n_fbs; i++)
		for (unsigned j = 0; j < fbs[i].n_hot; j++) {
			const struct dpu_hot *h = &fbs[i].hot[j];
			if (h->proc || h->temp != DPU_HOT || !h->callee || !same_fn(&h->at, name, file, 0) ||
			    hot_elsewhere(h))
				continue;
			struct ctx_find cf = { h->at.line, h->at.col, h->callee, vNULL };
			walk_tree(&DECL_SAVED_TREE(fndecl), find_ctx_call, &cf, NULL);
			if (!cf.calls.length()) {
				cf.calls.release();
				continue;
			}
			tree call = *cf.calls[0];
			tree callee = get_callee_fndecl(call);
			location_t at = EXPR_LOCATION(call);
			const char *why = NULL;
			tree copy = done.contains(callee) ? NULL_TREE : dp_clone_fn(callee, ".dp_hot", NULL_TREE, &why);
			const char *basis = fbs[i].basis ? fbs[i].basis : "cscs";
			unsigned long long n = h->calls;
			if (!copy) {
				if (why)
					later(k, at, 1, "hot in this context only: %s() costs %.3g %s a call here "
					      "(%llu call%s), but no copy is made for it: %s", h->callee, h->mean, basis,
					      n, n == 1 ? "" : "s", why);
				cf.calls.release();
				continue;
			}
			done.add(callee);
			tree c = copy;
			decl_attributes(&c, build_tree_list(get_identifier("hot"), NULL_TREE), 0);
			dp_finish_clone(callee, copy);
			for (unsigned q = 0; q < cf.calls.length(); q++)
				CALL_EXPR_FN(*cf.calls[q]) = build1(ADDR_EXPR, build_pointer_type(TREE_TYPE(copy)), copy);
			later(k, at, 0, "hot in this context only: %s() costs %.3g %s a call here (%llu call%s) and "
			      "is not hot elsewhere: this call uses a copy, %s.dp_hot(), %s; its other calls keep "
			      "%s()", h->callee, h->mean, basis, n, n == 1 ? "" : "s", h->callee,
			      flag_reorder_functions ? "placed in .text.hot" : "marked hot", h->callee);
			cf.calls.release();
		}
}

/* PLUGIN_PRE_GENERICIZE: a function the feedback knows gets its place. */
void dp_use_genericize(void *gcc_data, void *)
{
	tree fndecl = (tree)gcc_data;
	if (!n_fbs || !fndecl || TREE_CODE(fndecl) != FUNCTION_DECL)
		return;
	dp_par_note(fndecl);
	if (dp_skip_function(fndecl))
		return;
	const char *name = dp_decl_name(fndecl);
	expanded_location xl = expand_location(DECL_SOURCE_LOCATION(fndecl));
	if (!xl.file)
		return;
	struct function *f = DECL_STRUCT_FUNCTION(fndecl);
	unsigned end = f ? expand_location(f->function_end_locus).line : 0;
	if (end < (unsigned)xl.line)
		end = xl.line;
	uint64_t sum = 0;
	bool have_sum = false;
	struct known_fn k = { (int)DECL_UID(fndecl), name, false, vNULL, vNULL };
	bool any = false;
	for (unsigned i = 0; i < n_fbs; i++)
		for (unsigned j = 0; j < fbs[i].n_hot; j++) {
			const struct dpu_hot *h = &fbs[i].hot[j];
			if (!h->proc || !same_fn(&h->at, name, xl.file, xl.line))
				continue;
			any = true;
			if (!have_sum) {
				sum = dp_source_checksum(xl.file, xl.line, end);
				have_sum = true;
			}
			if (h->at.checksum && sum && h->at.checksum != sum)
				k.stale = true;
			else
				k.hot.safe_push(h);
		}
	/* the functions of candidates and sites need the check too */
	for (unsigned i = 0; i < n_fbs && !any; i++) {
		for (unsigned j = 0; j < fbs[i].n_cand && !any; j++)
			any = same_fn(&fbs[i].cand[j].proc, name, xl.file, 0);
		for (unsigned j = 0; j < fbs[i].n_hot && !any; j++)
			any = !fbs[i].hot[j].proc && same_fn(&fbs[i].hot[j].at, name, xl.file, 0);
	}
	if (!any)
		return;
	if (!have_sum)
		sum = dp_source_checksum(xl.file, xl.line, end);
	for (unsigned i = 0; i < n_fbs && !k.stale; i++) {
		for (unsigned j = 0; j < fbs[i].n_cand; j++) {
			const struct dpu_place *p = &fbs[i].cand[j].proc;
			if (same_fn(p, name, xl.file, 0) && p->checksum && sum && p->checksum != sum)
				k.stale = true;
		}
		for (unsigned j = 0; j < fbs[i].n_hot; j++) {
			const struct dpu_place *p = &fbs[i].hot[j].at;
			if (!fbs[i].hot[j].proc && same_fn(p, name, xl.file, 0) && p->checksum && sum &&
			    p->checksum != sum)
				k.stale = true;
		}
	}
	if (k.stale) {
		k.hot.release();
		warning_at(DECL_SOURCE_LOCATION(fndecl), 0,
			   "deepprof: %qs has changed since it was profiled: its feedback is skipped "
			   "(profile it again)", name);
		known.safe_push(k);
		return;
	}
	bool hot = false, never = k.hot.length() > 0;
	for (unsigned i = 0; i < k.hot.length(); i++) {
		hot |= k.hot[i]->temp == DPU_HOT;
		never &= k.hot[i]->temp == DPU_NEVER;
	}
	if (hot)
		add_attribute(fndecl, "hot");
	else if (never)
		add_attribute(fndecl, "cold");
	known.safe_push(k);
	for (unsigned i = 0; i < n_fbs; i++)
		for (unsigned j = 0; j < fbs[i].n_cand; j++)
			if (same_fn(&fbs[i].cand[j].proc, name, xl.file, 0) && fbs[i].cand[j].n_calls)
				dp_par_genericize(fndecl, &fbs[i], &fbs[i].cand[j]);
	hot_contexts(fndecl, name, xl.file, &known.last());
}

/* ================= in the instrumentation pass ================= */

/* Remarks for function fun and its sites CALLS (the pass's, numbered as an
 * instrumented build numbers them), and never-executed sites predicted not
 * taken. Called by the pass in a use build, for every function. */
void dp_use_function(function *fun, vec<gimple *> &calls)
{
	if (!n_fbs)
		return;
	struct known_fn *k = find_known((int)DECL_UID(fun->decl));
	if (!k || k->stale)
		return;
	location_t floc = DECL_SOURCE_LOCATION(fun->decl);
	/* placement happens with -freorder-functions (-O2), main aside
	 * (.text.startup) */
	bool placed = flag_reorder_functions && !MAIN_NAME_P(DECL_NAME(fun->decl));
	const char *basis = fbs[0].basis ? fbs[0].basis : "cscs";
	for (unsigned i = 0; i < k->hot.length(); i++) {
		const struct dpu_hot *h = k->hot[i];
		unsigned long long n = h->calls;
		if (h->temp == DPU_HOT && h->outer_calls && h->outer_calls != h->calls)
			dp_use_remark(R_OPTIMIZED, floc, "hot: %llu call%s, %llu from outside its recursion, "
				      "%.3g %s each of those; %s", n, n == 1 ? "" : "s",
				      (unsigned long long)h->outer_calls, h->mean, basis,
				      placed ? "placed in .text.hot" : "marked hot");
		else if (h->temp == DPU_HOT)
			dp_use_remark(R_OPTIMIZED, floc, "hot: %llu call%s of %.3g %s each; %s", n, n == 1 ? "" : "s",
			       h->mean, basis, placed ? "placed in .text.hot" : "marked hot");
		else if (h->temp == DPU_NEVER && !lookup_attribute("hot", DECL_ATTRIBUTES(fun->decl)))
			dp_use_remark(R_OPTIMIZED, floc, "cold: never executed in %u profile%s; %s", fbs[0].n_inputs,
			       fbs[0].n_inputs == 1 ? "" : "s",
			       placed ? "placed in .text.unlikely" : "marked cold");
		else if (h->temp == DPU_RARE)
			dp_use_remark(R_NOTE, floc, "rarely executed: %llu call%s", n, n == 1 ? "" : "s");
	}
	for (unsigned i = 0; i < k->later.length(); i++)
		dp_use_remark(k->later[i].kind, k->later[i].at, "%s", k->later[i].msg);
	/* never-executed call sites: the path to them is cold (once a call,
	 * however many entries name its place) */
	expanded_location fx = expand_location(floc);
	hash_set<gimple *> predicted;
	for (unsigned i = 0; i < n_fbs; i++)
		for (unsigned j = 0; j < fbs[i].n_hot; j++) {
			const struct dpu_hot *h = &fbs[i].hot[j];
			if (h->proc || h->temp != DPU_NEVER || !same_fn(&h->at, k->name, fx.file, 0))
				continue;
			for (unsigned c = 0; c < calls.length(); c++) {
				expanded_location cx = expand_location(gimple_location(calls[c]));
				if ((unsigned)cx.line != h->at.line || (unsigned)cx.column != h->at.col)
					continue;
				if (predicted.add(calls[c]))
					break;
				gimple_stmt_iterator g = gsi_for_stmt(calls[c]);
				gimple *pr = gimple_build_predict(PRED_COLD_LABEL, NOT_TAKEN);
				gsi_insert_before(&g, pr, GSI_SAME_STMT);
				dp_use_remark(R_OPTIMIZED, gimple_location(calls[c]),
				       "cold: the call of %s() never ran in %u profile%s; its path is predicted not taken",
				       h->callee ? h->callee : "?", fbs[i].n_inputs, fbs[i].n_inputs == 1 ? "" : "s");
				break;
			}
		}
	/* parallelism candidates in this function */
	for (unsigned i = 0; i < n_fbs; i++)
		for (unsigned j = 0; j < fbs[i].n_cand; j++)
			if (same_fn(&fbs[i].cand[j].proc, k->name, fx.file, 0))
				dp_par_remarks(fun, calls, &fbs[i].cand[j]);
}
