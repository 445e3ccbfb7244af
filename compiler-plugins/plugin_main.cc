/*
 * plugin_main.cc — the deepprof GCC plugin's entry: version check, the
 * -fplugin-arg-deepprof-* options, GC roots and where the passes go.
 * Part of deepprof's compiler plugins. MIT licence.
 */
#include "plugin.h"
#include "plugin-version.h"

/* GCC refuses plugins without this symbol; deepprof's MIT licence is
 * GPL-compatible. */
int plugin_is_GPL_compatible;

/* abi 2 (the inline fast path) is the default; backedges=call selects abi 1
 * unless abi is given, and so does calls=surviving under -flto or in a
 * use or check build (plugin_init) */
struct dp_options dp_opt = { true, true, false, true, false, false, 2, NULL, true, NULL, false, "safe", NULL, true, true, -1, 2,
			     true };
static bool abi_given;          /* -fplugin-arg-deepprof-abi= was given */
tree dp_roots[DPR_N];

static const struct ggc_root_tab dp_root_tab[] = {
	{ dp_roots, DPR_N, sizeof(tree), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	LAST_GGC_ROOT_TAB
};

static struct plugin_info dp_info = {
	"0.1",
	"deepprof instrumentation: static ps/css tables, loop back-edge ticks,\n"
	"program representation (.deepprof.progrep).\n"
	"Arguments: -fplugin-arg-deepprof-progrep=0|1  -fplugin-arg-deepprof-backedges=0|1|call (call: abi 1)\n"
	"           -fplugin-arg-deepprof-tailcalls=0|1 -fplugin-arg-deepprof-progrep-file=PATH\n"
	"           -fplugin-arg-deepprof-calls=source|surviving (surviving: abi 1 under -flto)\n"
	"           -fplugin-arg-deepprof-abi=1|2 (default 2: the inline fast path)\n"
	"           -fplugin-arg-deepprof-inline-cost=plain|counted (default plain: the inliner\n"
	"           does not count the instrumentation's code)\n"
	"           -fplugin-arg-deepprof-tls=local-exec|initial-exec (default local-exec for an\n"
	"           executable's code, initial-exec with -fPIC or -shared)"
};

/* ================= utilities shared by the passes ================= */

uint64_t dp_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

const char *dp_decl_name(tree decl)
{
	if (!decl || !DECL_NAME(decl))
		return "<anon>";
	return IDENTIFIER_POINTER(DECL_NAME(decl));
}

/* A builtin that is an operation, not a call of a function: those spelled
 * __builtin_* (expect, unreachable, va_*, alloca, constant_p ...) and the
 * atomic ones (__atomic_*, __sync_*: C11's atomic_load & co), which GCC
 * expands in place (neither gprof nor callgrind sees a call). printf,
 * memcpy & co are calls. */
bool dp_builtin_op(tree fn)
{
	if (!fndecl_built_in_p(fn))
		return false;
	const char *n = dp_decl_name(fn);
	return !strncmp(n, "__builtin_", 10) || !strncmp(n, "__atomic_", 9) || !strncmp(n, "__sync_", 7);
}

gimple *dp_def_of(tree t)
{
	return t && TREE_CODE(t) == SSA_NAME ? SSA_NAME_DEF_STMT(t) : NULL;
}

bool dp_is_tu_addr(tree a, tree tu)
{
	return a && TREE_CODE(a) == ADDR_EXPR && TREE_OPERAND(a, 0) == tu;
}

void dp_remove_stmt(gimple *s)
{
	gimple_stmt_iterator g = gsi_for_stmt(s);
	unlink_stmt_vdef(s);
	gsi_remove(&g, true);
	release_defs(s);
}

/* After gimplification DECL_NO_INSTRUMENT_FUNCTION_ENTRY_EXIT is set on
 * every function (NOTES.md), so look at the attribute itself. */
bool dp_skip_function(tree fndecl)
{
	if (DECL_ARTIFICIAL(fndecl) || DECL_IS_UNDECLARED_BUILTIN(fndecl))
		return true;
	if (lookup_attribute("no_instrument_function", DECL_ATTRIBUTES(fndecl)) ||
	    lookup_attribute("naked", DECL_ATTRIBUTES(fndecl)))   /* only asm may go there */
		return true;
	if (DECL_IN_SYSTEM_HEADER(fndecl))
		return true;
	return false;
}

/* ================= options ================= */

static bool parse_bool(const struct plugin_argument *a, bool *out)
{
	if (!a->value || !strcmp(a->value, "1") || !strcmp(a->value, "yes")) {
		*out = true;
		return true;
	}
	if (!strcmp(a->value, "0") || !strcmp(a->value, "no")) {
		*out = false;
		return true;
	}
	error("deepprof plugin: %<-fplugin-arg-deepprof-%s=%s%>: expected 0 or 1",
	      a->key, a->value);
	return false;
}

/* KEY=OFF or KEY=ON: *out false or true */
static bool parse_choice(const struct plugin_argument *a, const char *off, const char *on, bool *out)
{
	if (a->value && (!strcmp(a->value, off) || !strcmp(a->value, on))) {
		*out = !strcmp(a->value, on);
		return true;
	}
	error("deepprof plugin: %<-fplugin-arg-deepprof-%s=%s%>: expected %qs or %qs",
	      a->key, a->value ? a->value : "", off, on);
	return false;
}

static bool parse_args(const struct plugin_name_args *info)
{
	bool ok = true;
	for (int i = 0; i < info->argc; i++) {
		const struct plugin_argument *a = &info->argv[i];
		if (!strcmp(a->key, "progrep"))
			ok &= parse_bool(a, &dp_opt.progrep);
		else if (!strcmp(a->key, "backedges")) {
			if (a->value && !strcmp(a->value, "call"))
				dp_opt.backedges = dp_opt.tick_call = true;
			else
				ok &= parse_bool(a, &dp_opt.backedges);
		}
		else if (!strcmp(a->key, "tailcalls"))
			ok &= parse_bool(a, &dp_opt.tailcalls);
		else if (!strcmp(a->key, "progrep-file")) {
			if (!a->value || !*a->value) {
				error("deepprof plugin: %<-fplugin-arg-deepprof-progrep-file%> needs a path");
				ok = false;
				continue;
			}
			FILE *f = fopen(a->value, "a");
			if (!f) {
				error("deepprof plugin: cannot write progrep file %qs: %m", a->value);
				ok = false;
				continue;
			}
			fclose(f);
			dp_opt.progrep_file = a->value;
		} else if (!strcmp(a->key, "abi")) {
			if (a->value && (!strcmp(a->value, "1") || !strcmp(a->value, "2"))) {
				dp_opt.abi = a->value[0] - '0';
				abi_given = true;
			} else {
				error("deepprof plugin: %<-fplugin-arg-deepprof-abi=%s%>: expected 1 or 2",
				      a->value ? a->value : "");
				ok = false;
			}
		} else if (!strcmp(a->key, "calls")) {
			ok &= parse_choice(a, "source", "surviving", &dp_opt.surviving);
		} else if (!strcmp(a->key, "inline-cost")) {
			ok &= parse_choice(a, "counted", "plain", &dp_opt.inline_discount);
		} else if (!strcmp(a->key, "tls")) {
			bool le = false;
			ok &= parse_choice(a, "initial-exec", "local-exec", &le);
			dp_opt.tls = le;
		} else if (!strcmp(a->key, "slow-calls")) {
			ok &= parse_choice(a, "plain", "regs", &dp_opt.slow_regs);
		} else if (!strcmp(a->key, "prologues")) {
			ok &= parse_choice(a, "entry", "lazy", &dp_opt.lazy_prologue);
		} else if (!strcmp(a->key, "site-checks")) {
			static const char *const forms[] = { "blocks", "check", "asm" };
			int i = 0;
			while (i < 3 && !(a->value && !strcmp(a->value, forms[i])))
				i++;
			if (i == 3) {
				error("deepprof plugin: %<-fplugin-arg-deepprof-%s=%s%>: expected %qs, %qs or %qs",
				      a->key, a->value ? a->value : "", forms[0], forms[1], forms[2]);
				ok = false;
			} else {
				dp_opt.site_asm = i;
			}
		} else if (!strcmp(a->key, "instrument")) {
			ok &= parse_bool(a, &dp_opt.instrument);
		} else if (!strcmp(a->key, "remarks")) {
			ok &= parse_bool(a, &dp_opt.remarks);
		} else if (!strcmp(a->key, "use")) {
			if (!a->value || !*a->value) {
				error("deepprof plugin: %<-fplugin-arg-deepprof-use%> needs feedback files");
				ok = false;
				continue;
			}
			dp_opt.use = a->value;
		} else if (!strcmp(a->key, "parallelize")) {
			if (!a->value || !*a->value) {
				error("deepprof plugin: %<-fplugin-arg-deepprof-parallelize%> needs "
				      "%<safe%>, %<none%> or candidate ids");
				ok = false;
				continue;
			}
			dp_opt.parallelize = a->value;
		} else if (!strcmp(a->key, "check")) {
			if (!a->value || !*a->value) {
				error("deepprof plugin: %<-fplugin-arg-deepprof-check%> needs feedback files");
				ok = false;
				continue;
			}
			dp_opt.check = a->value;
		} else {
			error("deepprof plugin: unknown argument %<-fplugin-arg-deepprof-%s%> "
			      "(known: progrep, backedges, tailcalls, progrep-file, calls, abi, inline-cost, tls, slow-calls, "
			      "site-checks, prologues, instrument, "
			      "use, remarks, parallelize, check)", a->key);
			ok = false;
		}
	}
	return ok;
}

/* ================= entry ================= */

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version)
{
	if (!plugin_default_version_check(version, &gcc_version)) {
		error("deepprof plugin %qs was built for GCC %s, but this is GCC %s: "
		      "rebuild deepprof against this compiler",
		      info->full_name, gcc_version.basever, version->basever);
		return 1;
	}
	if (!parse_args(info))
		return 1;
	/* backedges=call ticks through dp_abi_backedge(), which only abi 1
	 * has. calls=surviving removes hooks after inlining: on abi 2 the
	 * hooks are then lowered to the inline path (lower.cc), which needs
	 * the inliner's decisions before the tables are made, so not under
	 * -flto (the tables are streamed before them), and not in the use
	 * and check builds, whose own passes read the inline path's code.
	 * Each selects abi 1 by itself; with an explicit abi=2 it is an error. */
	bool tick_call = dp_opt.backedges && dp_opt.tick_call;
	bool surv1 = dp_opt.surviving && (flag_lto || in_lto_p || dp_opt.use || dp_opt.check);
	if ((surv1 || tick_call) && !abi_given)
		dp_opt.abi = 1;
	if (dp_opt.abi == 2 && (surv1 || tick_call)) {
		if (tick_call)
			error("deepprof plugin: %<-fplugin-arg-deepprof-backedges=call%> needs %<abi=1%>");
		else
			error("deepprof plugin: %<-fplugin-arg-deepprof-calls=surviving%> needs %<abi=1%> "
			      "under %<-flto%> and in use and check builds");
		return 1;
	}
	dp_opt.late = dp_opt.abi == 2 && dp_opt.surviving;
	/* GCC splits -fplugin-arg-NAME-KEY at the first '-', so arguments reach
	 * the plugin only when it is loaded under the name "deepprof"
	 * (build/lib/gcc-plugin/deepprof.so, a link to deepprof-plugin.so). */
	register_callback(info->base_name, PLUGIN_INFO, NULL, &dp_info);
	register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
			  (void *)dp_root_tab);

	struct register_pass_info inst;
	inst.pass = dp_make_instrument_pass(g);
	inst.reference_pass_name = "cfg";
	inst.ref_pass_instance_number = 1;
	inst.pos_op = PASS_POS_INSERT_AFTER;
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &inst);

	/* the check build's pass right before the instrumentation pass (each
	 * insertion after "cfg" goes before the passes already there): the
	 * instrumentation's own inline code is not the program's memory
	 * accesses, and it takes the check's hooks for what they are */
	if (dp_opt.check) {
		if (!dp_check_init())
			return 0;
		struct register_pass_info ck;
		ck.pass = dp_make_check_pass(g);
		ck.reference_pass_name = "cfg";
		ck.ref_pass_instance_number = 1;
		ck.pos_op = PASS_POS_INSERT_AFTER;
		register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &ck);
		register_callback(info->base_name, PLUGIN_PRE_GENERICIZE, dp_check_genericize, NULL);
	}


	struct register_pass_info pr;
	pr.pass = dp_make_progrep_pass(g);
	pr.reference_pass_name = "ssa";
	pr.ref_pass_instance_number = 1;
	pr.pos_op = PASS_POS_INSERT_AFTER;
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &pr);

	/* after inlining: early in all_passes. (Instance numbers other than 1
	 * are not assigned yet when plugins register, so "fixup_cfg" 3 cannot
	 * be named; "ehdisp" follows it and has one instance.) */
	/* Each goes right after ehdisp, so before those registered earlier:
	 * the surviving pass, then (calls=surviving on abi 2) the inline path
	 * made of what it left; abi 2: inlined callees' prologues. */
	struct register_pass_info sv;
	sv.pass = dp_make_site_asm_pass(g);       /* abi 2: after them all, slow_regs.cc */
	sv.reference_pass_name = "ehdisp";
	sv.ref_pass_instance_number = 1;
	sv.pos_op = PASS_POS_INSERT_AFTER;
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &sv);
	sv.pass = dp_make_ticks_pass(g);          /* abi 2: ticks.cc */
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &sv);
	sv.pass = dp_make_lower_pass(g);
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &sv);
	sv.pass = dp_make_surviving_pass(g);
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &sv);
	sv.pass = dp_make_inlined_pass(g);
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &sv);
	sv.pass = dp_make_lower_inlined_pass(g);    /* abi 2's default: first */
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &sv);
	/* abi 2: the slow calls as calls that keep registers, after every
	 * GIMPLE pass (slow_regs.cc) */
	sv.pass = dp_make_slow_regs_pass(g);
	sv.reference_pass_name = "optimized";
	sv.pos_op = PASS_POS_INSERT_BEFORE;
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &sv);

	/* GCC's inliner weighs the program's code only: after each summary
	 * of a function (early), and after the IPA summaries of all */
	struct register_pass_info ic;
	ic.pass = dp_make_inline_cost_pass(g);
	ic.reference_pass_name = "local-fnsummary";
	ic.ref_pass_instance_number = 0;        /* every instance */
	ic.pos_op = PASS_POS_INSERT_AFTER;
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &ic);
	ic.pass = dp_make_inline_cost_ipa_pass(g);
	ic.reference_pass_name = "fnsummary";
	ic.ref_pass_instance_number = 1;
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &ic);

	/* GCC's branch prediction guesses the program's branches, not ours */
	struct register_pass_info es;
	es.pass = dp_make_estimate_pass(g, true);
	es.reference_pass_name = "profile_estimate";
	es.ref_pass_instance_number = 1;
	es.pos_op = PASS_POS_INSERT_BEFORE;
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &es);
	es.pass = dp_make_estimate_pass(g, false);
	es.pos_op = PASS_POS_INSERT_AFTER;
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &es);

	if (!dp_use_init())
		return 0;       /* the errors fail the compilation; nothing more to set up */
	if (dp_opt.use) {
		/* parallel code's guards: after the callees' local-pure-const
		 * (early local passes run callees first), and a fallback that
		 * always runs */
		struct register_pass_info gd;
		gd.pass = dp_make_guard_pass(g, true);
		gd.reference_pass_name = "local-pure-const";
		gd.ref_pass_instance_number = 1;
		gd.pos_op = PASS_POS_INSERT_AFTER;
		register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &gd);
		gd.pass = dp_make_guard_pass(g, false);
		gd.reference_pass_name = "ehdisp";
		register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &gd);
		register_callback(info->base_name, PLUGIN_START_UNIT, dp_use_deps, NULL);
		register_callback(info->base_name, PLUGIN_PRE_GENERICIZE, dp_use_genericize, NULL);
	}
	register_callback(info->base_name, PLUGIN_PRE_GENERICIZE, dp_keep_call_locations, NULL);
	register_callback(info->base_name, PLUGIN_PRE_GENERICIZE, dp_note_taken_addresses, NULL);
	register_callback(info->base_name, dp_opt.late ? PLUGIN_ALL_IPA_PASSES_END : PLUGIN_ALL_IPA_PASSES_START,
			  dp_tables_finish, NULL);
	return 0;
}
