/*
 * plugin.h — what the deepprof GCC plugin's files share: the options, the
 * per-translation-unit record of functions and call sites, the hook decls.
 * Part of deepprof's compiler plugins. MIT licence.
 */
#ifndef DP_PLUGIN_H
#define DP_PLUGIN_H

#include "gcc-plugin.h"
#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "cgraph.h"
#include "stringpool.h"
#include "attribs.h"
#include "diagnostic-core.h"
#include "cfganal.h"
#include "cfgloop.h"
#include "dominance.h"
#include "ssa.h"
#include "tree-ssa-operands.h"
#include "tree-pretty-print.h"
#include "stor-layout.h"
#include "varasm.h"
#include "toplev.h"
#include "langhooks.h"
#include "ggc.h"
#include "output.h"
#include "tree-cfg.h"

#include "deepprof-abi.h"

/* ---- options (plugin_main.cc): set once in plugin_init, read by the passes ---- */
struct dp_options {
	bool progrep;           /* emit the .deepprof.progrep records (default on) */
	bool backedges;         /* tick loop back-edges (default on) */
	bool tick_call;         /* ... by calling dp_abi_backedge() instead of
	                           incrementing dp_loop_ticks (backedges=call) */
	bool tailcalls;         /* keep tail calls: no return hook after a call in tail position */
	bool surviving;         /* count only the calls that survive inlining (calls=surviving) */
	bool late;              /* calls=surviving on abi 2: the instrumentation pass emits abi 1's
	                           hooks, surviving.cc removes the inlined ones, lower.cc turns the
	                           rest into the inline path; the tables are made after IPA */
	int abi;                /* 1: out-of-line hooks; 2: the inline fast path (abi=2) */
	const char *progrep_file;  /* also append the records to this file, or NULL */
	bool instrument;        /* emit hooks, tables and progrep (default on; a use build
	                           without --deepprof-instrument has it off) */
	const char *use;        /* feedback files, ':'-separated (use.cc), or NULL */
	bool remarks;           /* also print the use build's remarks on stderr */
	const char *parallelize;    /* "safe" (default), "checked", "none" or candidate ids "1,2" */
	const char *check;      /* the check build's feedback files, ':'-separated (check.cc), or NULL */
	bool inline_discount;   /* take the instrumentation's size out of GCC's function
	                           summaries (inline-cost=plain, the default; inline_cost.cc) */
	bool slow_regs;         /* abi 2 on x86-64: slow calls keep the caller's registers
	                           (slow_regs.cc; slow-calls=regs, the default, or plain) */
	int tls;                /* how the code reaches dp_cur and dp_loop_ticks (tls=):
	                           -1 not given (local-exec unless compiling for a shared
	                           library), 0 initial-exec, 1 local-exec */
	int site_asm;           /* with slow_regs: direct sites' and prologues' checks as one asm each,
	                           no block of their own (site-checks=, slow_regs.cc): 0 blocks,
	                           1 check (the check alone), 2 asm (the default: a direct
	                           site's asm counts the call and sets dp_cur too) */
	bool lazy_prologue;     /* abi 2: a function only its TU's sites call runs its prologue
	                           where its me or pd is first needed (prologues=lazy, the
	                           default; entry keeps it first: lower.cc) */
};
extern struct dp_options dp_opt;

/* ---- the translation unit's tables, filled by the instrumentation pass ----
 * ps[i] is the i-th function instrumented, css[j] the j-th call site; a
 * function's sites are contiguous. Strings are xstrdup'd; decls are kept by
 * DECL_UID only, so nothing here needs a GC root. */
struct dp_fn_rec {
	char *name, *file;
	unsigned line, end_line;
	unsigned flags;         /* DP_PS_* */
	unsigned first_css, n_css;
	unsigned n_backedges;
	int uid;                /* DECL_UID of the function */
	bool v2_entry;          /* abi=2: may be entered from code that is not its TU's
	                           call sites (public, address taken, constructor): it
	                           gets a prologue even as a leaf */
	bool hooks;             /* its sites were given abi 1's hooks (abi 1, and abi 2
	                           where lower.cc lowers them after inlining) */
	unsigned *extra, n_extra;   /* dp_opt.late: the sites of other functions that its
	                           pds have slots for (after its own n_css), lower.cc */
};
struct dp_site_rec {
	char *callee, *file;    /* callee NULL: indirect */
	unsigned line, col;
	unsigned caller;        /* index into dp_fns */
	int callee_uid;         /* DECL_UID of a direct callee, else -1 */
	unsigned kind, flags;   /* DP_CSS_KIND_*, DP_CSS_* */
	gimple *stmt;           /* abi=2: the call, for progrep.cc (compared, never followed blindly) */
};
extern struct dp_fn_rec *dp_fns;
extern unsigned dp_n_fns;
extern struct dp_site_rec *dp_sites;
extern unsigned dp_n_sites;
extern uint64_t dp_tu_id;

/* The GC-rooted trees (plugin_main.cc registers the roots). */
enum dp_root {
	DPR_TU_DECL,            /* the TU's struct dp_tu variable */
	DPR_TU_TYPE, DPR_PS_TYPE, DPR_CSS_TYPE,
	DPR_CALL, DPR_RETURN, DPR_ENTER, DPR_BACKEDGE, DPR_REGISTER, DPR_UNREGISTER,
	DPR_TICKS,              /* the thread-local dp_loop_ticks */
	DPR_ENTER_SLOW, DPR_CALL_SLOW,  /* abi=2 */
	DPR_CALL_BOUND,         /* abi=2: dp_abi_call_bound, a devirtualized site's slow path */
	DPR_CALL_NOSLOT,        /* abi=2: dp_abi_call_noslot, the path of a site with no slot */
	DPR_COUNT_SLOW,         /* abi=2: dp_abi_count_slow, a direct site's first call through a pd */
	DPR_RESUME,             /* abi=2: a split part's activation, when dp_cur lost it */
	DPR_LAND,               /* abi=2: after each setjmp & co returns */
	DPR_EXITING,            /* before each call of _exit or _Exit */
	DPR_EXEC,               /* before each call of an exec function */
	DPR_CUR,                /* abi=2: the thread-local dp_cur */
	DPR_RT_PTR,             /* abi=2: pointer to the runtime's memory, its own alias set */
	DPR_PS_DECL,            /* __deepprof_ps, once the tables are made */
	DPR_GUARD, DPR_DEPTH,   /* parallel.cc: __deepprof_guard, __deepprof_depth */
	DPR_IN_PARALLEL, DPR_MAX_THREADS,   /* parallel.cc: omp_in_parallel, omp_get_max_threads */
	DPR_CHK_BEGIN, DPR_CHK_END, DPR_CHK_RD, DPR_CHK_WR, DPR_CHK_CALL,  /* check.cc */
	DPR_CHK_MAYBE, DPR_CHK_BACK, DPR_CHK_ENTRY,
	DPR_CHK_ITER, DPR_CHK_ITER_END, DPR_CHK_LOOP_END,  /* check.cc: loop candidates */
	DPR_CHK_FREE,           /* check.cc: before each free() of checked code */
	DPR_N
};
extern tree dp_roots[DPR_N];

/* Offsets in the runtime's structs that the inline path reads and writes
 * (deepprof-abi.h; testrt asserts them): inline_path.cc, inlined.cc. */
#define DP_CSD_CALLS    0
#define DP_CSD_LOOP     8
#define DP_CSD_CALLEE   16
#define DP_CSD_TARGET   24
#define DP_CSD_NEXT     32
#define DP_CSD_EXITS    40
#define DP_CSD_CALLEE_PS 56
#define DP_PD_PS        0
#define DP_PD_SLOT      16

/* tables.cc */
tree dp_tu_decl(void);                  /* created on first use */
tree dp_tu_addr(void);                  /* a fresh &tu */
tree dp_hook_decl(enum dp_root which);  /* the runtime entry points */
bool dp_is_hook(tree fndecl);                /* the runtime's, the check's, the parallel code's */
bool dp_is_probe(tree fndecl);               /* ... the runtime's and the check's only */
tree dp_ticks_decl(void);               /* extern __thread uint64_t dp_loop_ticks */
tree dp_cur_decl(void);                 /* extern __thread uintptr_t dp_cur */
tree dp_tu_ps_ref(void);                /* __deepprof_tu.ps */
void dp_emit_inline(function *fun, unsigned ps, vec<gimple *> &calls, vec<edge> &back,
		    vec<gimple *> &lands, bool entry);
void dp_tables_finish(void *gcc_data, void *user_data);   /* PLUGIN_ALL_IPA_PASSES_START (END: late) */

/* inline_path.cc's pieces, for lower.cc (SSA form): the prologue of
 * procedure ps after statement at (sets *me, *pd); a continuation's me and
 * pd (dp_cur's csd, no check) at the function's start; site's code, the
 * pre-call part before pos, around call, using slot of pd (-1: none, the
 * slow path every time) and fn (the target of an indirect site, else
 * NULL_TREE); a back-edge tick at *gsi. */
void dp_v2_prologue(function *fun, unsigned ps, gimple *at, tree *me, tree *pd);
void dp_v2_continuation(function *fun, tree *me, tree *pd);
/* code of procedure ps with no prologue of its own (a part GCC split off
 * it), right before statement before (NULL: at the function's entry):
 * dp_cur's csd, checked (dp_abi_resume) */
void dp_v2_resume(function *fun, unsigned ps, gimple *before, tree *me, tree *pd);
/* a site whose call GCC inlined before lower.cc ran: the code before it
 * (before pos, the call hook; returns the site's csd, tagged), and after
 * it (before pos, a return hook); quiet: the code before counts the call
 * and its return and stores no dp_cur, and there is none after (a quiet
 * body, lower.cc), whose me dp_v2_quiet_body gives from the csd, and
 * pd dp_v2_quiet_pd from me before each of its sites;
 * pending: the mes of the quiet bodies a site is in, whose exits it
 * takes back while its call runs; bound: at an indirect site whose target
 * fn is procedure BOUND of this TU (GCC made the call direct and inlined
 * it), the site checks that its csd is bound to it (dp_abi_call_bound) */
tree dp_v2_site_pre(gimple *pos, unsigned site, int slot, tree pd, tree fn, bool quiet, int bound = -1);
void dp_v2_site_post(gimple *pos, unsigned site, int slot, tree me, tree pd);
tree dp_v2_quiet_body(gimple *pos, tree csd);
tree dp_v2_quiet_pd(gimple *pos, tree me);
void dp_v2_quiet_part(gimple *call, tree me, tree owner, const vec<tree> &pending);
void dp_v2_site(gimple *pos, gimple *call, unsigned site, int slot, tree me, tree pd, tree fn,
		const vec<tree> *pending = NULL);
void dp_v2_tick(gimple_stmt_iterator *gsi, tree me, location_t loc);
/* before SSA, for the instrumentation pass's late mode: g placed where a
 * prologue goes (after at, else at the start of at_bb, else at the
 * function's entry); dp_abi_land(&tu, 0) after call (setjmp & co) */
void dp_v2_place_after(gimple *g, gimple *at, basic_block at_bb);
/* seq right after call: in its block or, when the call ends it (abnormal
 * or EH edges), on its one normal successor edge (nowhere if none) */
void dp_insert_after_call(gimple *call, gimple_seq seq);
void dp_v2_land_marker(gimple *call);
/* lower.cc: dp_opt.late */
opt_pass *dp_make_lower_pass(gcc::context *ctxt);
/* lower.cc: abi 2's default where instrument.cc gave hooks, after inlining */
opt_pass *dp_make_lower_inlined_pass(gcc::context *ctxt);
opt_pass *dp_make_ticks_pass(gcc::context *ctxt);       /* ticks.cc */
bool dp_tick_asm_p(gimple *s, tree *base, HOST_WIDE_INT *off); /* ticks.cc: a tick as an asm, its word */
opt_pass *dp_make_slow_regs_pass(gcc::context *ctxt);   /* slow_regs.cc: before "optimized" */
opt_pass *dp_make_site_asm_pass(gcc::context *ctxt);    /* slow_regs.cc: after the plugin's passes after inlining */
void dp_late_extras(void);              /* the extra slots, before the tables (IPA end) */
enum dp_hook_kind { DPH_NONE, DPH_ENTER, DPH_CALL, DPH_RETURN, DPH_BACKEDGE, DPH_LAND, DPH_OTHER };
enum dp_hook_kind dp_hook_of(gimple *s);    /* by name: works in ltrans too */
bool dp_from_inlined_body(gimple *s);
/* The first call after statement h that is not an internal call nor a
 * sanitizer's report, on the path taken when no sanitizer check fails
 * (a call hook and its call may end up in two blocks with a check of the
 * call's arguments between them); NULL if none (surviving.cc). */
gimple *dp_next_call(gimple *h);

/* omp_regions.cc: the OpenMP regions of fun that GCC will outline into
 * functions of their own (parallel, task, host teams, offloaded target),
 * read as omp-expand will read them. scope[bb->index] (last_basic_block
 * entries) becomes 0 for the function's own blocks, k for those of
 * regions[k - 1], the innermost region holding them. A region's code
 * starts in block first, after the statement after (the copy of the
 * pointer to the shared data, which omp-expand looks for there) if any. */
struct dp_omp_region {
	gimple *stmt;           /* the directive */
	basic_block first;      /* the region's first block */
	gimple *after;          /* in first: the shared-data copy, or NULL */
};
void dp_omp_regions(function *fun, int *scope, vec<struct dp_omp_region> &regions);

/* instrument.cc, progrep.cc, surviving.cc */
opt_pass *dp_make_instrument_pass(gcc::context *ctxt);
opt_pass *dp_make_progrep_pass(gcc::context *ctxt);
opt_pass *dp_make_surviving_pass(gcc::context *ctxt);
opt_pass *dp_make_inlined_pass(gcc::context *ctxt);     /* inlined.cc */
opt_pass *dp_make_inline_cost_pass(gcc::context *ctxt); /* inline_cost.cc: after local-fnsummary */
opt_pass *dp_make_inline_cost_ipa_pass(gcc::context *ctxt);    /* ... and after IPA fnsummary */
/* inline_cost.cc: the hooks inexpensive while profile_estimate runs
 * (before: the pass before it, else the one after) */
opt_pass *dp_make_estimate_pass(gcc::context *ctxt, bool before);
void dp_keep_call_locations(void *gcc_data, void *user_data);  /* PLUGIN_PRE_GENERICIZE */
/* escapes.cc: whether code other than the TU's direct calls may enter fndecl */
void dp_note_taken_addresses(void *gcc_data, void *user_data); /* PLUGIN_PRE_GENERICIZE */
bool dp_may_be_entered(tree fndecl);
/* ECF_CONST or ECF_PURE if fndecl was declared so (abi=2 clears both), else 0 */
int dp_declared_effects(tree fndecl);

/* use.cc: the use build (dp_opt.use) */
bool dp_use_init(void);                 /* read the feedback files (errors reported) */
struct dpu_feedback;
bool dp_read_feedbacks(const char *list, struct dpu_feedback **out, unsigned *n);
void dp_use_deps(void *gcc_data, void *user_data);       /* PLUGIN_START_UNIT */
void dp_use_genericize(void *gcc_data, void *user_data); /* PLUGIN_PRE_GENERICIZE */
void dp_use_function(function *fun, vec<gimple *> &calls);   /* from the pass */
/* a remark (0 optimized, 1 missed, 2 note) at loc, starting "deepprof: " */
void dp_use_remark(int kind, location_t loc, const char *fmt, ...) ATTRIBUTE_PRINTF(3, 4);

/* parallel.cc: the use build's parallel code */
struct dpu_feedback;
struct dpu_cand;
void dp_par_genericize(tree fndecl, const struct dpu_feedback *fb, const struct dpu_cand *c);
void dp_par_note(tree fndecl);          /* PRE_GENERICIZE, every function: its thread-local reads */
/* A static copy NAME.SUFFIX of fndecl's GENERIC body (at PRE_GENERICIZE,
 * fndecl defined earlier in the unit), parameters of the types in the
 * TREE_LIST extra appended; NULL with *why when it cannot be made. Then
 * dp_finish_clone gives it to the call graph. */
tree dp_clone_fn(tree fndecl, const char *suffix, tree extra, const char **why);
void dp_finish_clone(tree fndecl, tree clone);
/* The calls of candidate c in fndecl's GENERIC body (slots[c->n_calls]),
 * found by line, column and callee; *twice when one matched two places. */
unsigned dp_find_cand_calls(tree fndecl, const struct dpu_cand *c, tree **slots, bool *twice);
void dp_par_remarks(function *fun, vec<gimple *> &calls, const struct dpu_cand *c);
opt_pass *dp_make_guard_pass(gcc::context *ctxt, bool analysed);

/* check.cc: the check build (dp_opt.check) */
bool dp_check_init(void);               /* read the feedback files (errors reported) */
void dp_check_genericize(void *gcc_data, void *user_data);   /* PLUGIN_PRE_GENERICIZE */
bool dp_check_is_hook(tree fndecl);
opt_pass *dp_make_check_pass(gcc::context *ctxt);

/* progrep.cc: FNV-1a of the lines from..to of file (the function checksum
 * of progrep records and feedback places); 0 when unreadable */
uint64_t dp_source_checksum(const char *file, unsigned from, unsigned to);

/* util */
uint64_t dp_fnv1a(uint64_t h, const void *p, size_t n);
bool dp_skip_function(tree fndecl);     /* not instrumented: artificial, no_instrument_function, system header */
const char *dp_decl_name(tree decl);
bool dp_builtin_op(tree fn);           /* a builtin that is no call: __builtin_*, __atomic_*, __sync_* */
gimple *dp_def_of(tree t);              /* an SSA name's defining statement, else NULL */
bool dp_is_tu_addr(tree a, tree tu);    /* A is &TU (the TU's record, a hook's first argument) */
void dp_remove_stmt(gimple *s);         /* in SSA form, its virtual definition unlinked */

#endif
