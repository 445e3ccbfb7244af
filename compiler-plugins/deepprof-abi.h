/*
 * deepprof-abi.h — the contract between the code the deepprof GCC plugin
 * emits and the runtime that implements it (libprof): per-translation-unit
 * static tables, their registration, and the hook entry points.
 * Specified in schemas/plugin-abi.md. Part of deepprof. MIT licence.
 */
#ifndef DEEPPROF_ABI_H
#define DEEPPROF_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dp_tu.abi_version is what the TU's code calls: 2, the inline fast path
 * (the plugin's default, DP_ABI_VERSION), or 1, the out-of-line hooks
 * (-fplugin-arg-deepprof-abi=1, and what backedges=call selects, or
 * calls=surviving under -flto);
 * the tables below are the same for both. A runtime ignores (counting it as
 * lost) a table whose abi_version it does not implement. */
#define DP_ABI_VERSION          2
#define DP_ABI_MIN_VERSION      1

/* Call-site kinds: the same numbers as Deep.data's CSS kind. */
enum dp_css_kind {
	DP_CSS_KIND_NORMAL   = 1,   /* direct call to a function presumed instrumented */
	DP_CSS_KIND_INDIRECT = 2,   /* call through a pointer; target known at run time */
	DP_CSS_KIND_EXTERNAL = 3    /* direct call into uninstrumented code (libc, builtins,
	                               system headers, no_instrument_function) */
};

/* dp_css_static.flags (bits) */
enum dp_css_flags {
	DP_CSS_TAIL        = 1u << 0,  /* in tail position: no dp_abi_return follows */
	DP_CSS_LEAF_CALLEE = 1u << 1,  /* the callee is a leaf of this TU (DP_PS_LEAF) */
	DP_CSS_NORETURN    = 1u << 2,  /* the callee never returns (exit, abort, longjmp) */
	DP_CSS_SAME_LOC    = 1u << 3,  /* another site has the same file:line:col */
	DP_CSS_RETURNS     = 1u << 4,  /* kind external, its callee declared leaf (glibc's
	                                  __THROW): it cannot reach this program's code,
	                                  so it returns to the site; ABI v2 counts no exits
	                                  there, and the runtime takes its calls for exits.
	                                  Never with DP_CSS_NORETURN, nor for an exec
	                                  function; with DP_CSS_TAIL in tail position
	                                  (no restore: the runtime knows the call has
	                                  returned when a prologue finds its csd) */
	DP_CSS_LEAF_PROC   = 1u << 5   /* abi 2, kind normal, not in tail position: the
	                                  callee is a leaf of this TU (DP_PS_LEAF) with a
	                                  prologue; nothing in it can leave it but its
	                                  return (it makes no call), so the inline code
	                                  need count no exits there, and the runtime
	                                  takes its calls for exits (as for
	                                  DP_CSS_LEAF_CALLEE and DP_CSS_RETURNS) */
};

/* dp_ps_static.flags (bits) */
enum dp_ps_flags {
	DP_PS_LEAF    = 1u << 0,    /* no call sites and no loop back-edges */
	DP_PS_PUBLIC  = 1u << 1,    /* externally visible (not static) */
	DP_PS_LOOPS   = 1u << 2     /* has at least one back-edge tick */
};

/* dp_tu.flags (bits) */
enum dp_tu_flags {
	DP_TU_BACKEDGES     = 1u << 0,  /* back-edges are ticked: Deep.data clock "calls+loops" */
	DP_TU_SOURCE_CALLS  = 1u << 1,  /* sites are source-level calls, instrumented before inlining */
	DP_TU_PROGREP       = 1u << 2,  /* the object has .deepprof.progrep records for this TU */
	DP_TU_TICK_CALLS    = 1u << 3,  /* back-edges call dp_abi_backedge() (backedges=call)
	                                   instead of incrementing dp_loop_ticks */
	DP_TU_EXTRA_SLOTS   = 1u << 4,  /* ABI v2, calls=surviving: dp_tu.extra lists, per
	                                   procedure, the sites of functions inlined into it
	                                   that have a slot of its pd (below) */
	DP_TU_V2_TAGGED     = 1u << 5   /* ABI v2 code whose slots hold csds tagged and whose
	                                   prologues check callee_ps (below), set by every
	                                   plugin since; a runtime refuses a v2 TU without it,
	                                   an older plugin's, whose code would count at the
	                                   wrong addresses */
};

/* A procedure (ProcStatic). 32 bytes. */
struct dp_ps_static {
	const char *name;           /* source name */
	const char *file;           /* as the compiler saw it */
	uint32_t line;              /* of the function's name in its definition */
	uint32_t flags;             /* enum dp_ps_flags */
	uint32_t first_css;         /* its sites are css[first_css .. first_css + n_css) */
	uint32_t n_css;             /* = the length of its pd's slot array */
};

/* A call site (CallSiteStatic). 48 bytes. A site's identity is
 * (tu_id, index), never file:line:col: two sites may share a location. */
struct dp_css_static {
	const char *callee;         /* callee's source name; NULL for an indirect call */
	const char *file;
	uint32_t line, col;         /* 0: unknown */
	uint32_t caller;            /* index of the calling function in tu->ps */
	uint32_t callee_ps;         /* 1 + index of the callee in tu->ps if defined (and
	                               instrumented) in this TU, else 0 */
	uint16_t kind;              /* enum dp_css_kind */
	uint16_t flags;             /* enum dp_css_flags */
	uint32_t index;             /* its own index in tu->css */
	uint64_t tu_id;             /* = tu->tu_id; lets a reader map a record's address back to its id */
};

/* One per instrumented translation unit (object file, or per TU inside an
 * -flto link). The plugin emits it writable: runtime[] belongs to the
 * runtime, zero until dp_register_tu() sees the table. */
struct dp_tu {
	uint32_t abi_version;       /* 1 or 2: what the code of the TU calls (above) */
	uint32_t flags;             /* enum dp_tu_flags */
	uint64_t tu_id;             /* FNV-1a of source path + dump name (schemas/plugin-abi.md) */
	const char *file;           /* main input file */
	uint32_t n_ps, n_css;
	const struct dp_ps_static *ps;
	const struct dp_css_static *css;
	void *runtime[4];
	/* Only with DP_TU_EXTRA_SLOTS (older tables end before it): procedure
	 * i's pds have slots n_css, n_css + 1, ... after its own sites', for
	 * the sites extra[n_ps + 1 + k], k from extra[i] to extra[i + 1]
	 * (exclusive): sites of functions GCC inlined into it, which run in
	 * its activation (ABI v2 with calls=surviving) */
	const uint32_t *extra;
};

/* ---- registration: emitted constructor / destructor of every TU ----
 * dp_register_tu runs from a constructor, possibly before the runtime's own
 * constructor and before main, in any order across TUs and shared objects;
 * dp_unregister_tu from the matching destructor (dlclose, exit). Hooks may
 * see a table before its registration (another TU's constructor calling
 * into this TU): the runtime registers it lazily then. */
void dp_register_tu(struct dp_tu *tu);
void dp_unregister_tu(struct dp_tu *tu);

/* ---- out-of-line hooks: what plugin ABI v1 code calls ----
 * All are nothrow and "leaf" (they never call back into the program), keep
 * errno, and take the table of the TU that emitted the call.
 *
 * dp_abi_enter(tu, ps)        first thing in every instrumented function
 * dp_abi_call(tu, site, fn)   just before the call of site; fn is the target
 *                             of an indirect call, NULL otherwise
 * dp_abi_return(tu, site)     just after that call returned normally; absent
 *                             after DP_CSS_TAIL and DP_CSS_NORETURN sites
 * dp_abi_backedge()           on each traversal of a loop back-edge, only in
 *                             TUs with DP_TU_TICK_CALLS; the others do
 *                             dp_loop_ticks++ instead (below)
 */
void dp_abi_enter(struct dp_tu *tu, uint32_t ps);
void dp_abi_call(struct dp_tu *tu, uint32_t site, void *fn);
void dp_abi_return(struct dp_tu *tu, uint32_t site);
void dp_abi_backedge(void);

/* Back-edge ticks of this thread not yet charged: every TU without
 * DP_TU_TICK_CALLS increments it on each back-edge (local-exec TLS in an
 * executable's code, initial-exec in a shared library's: schemas/plugin-
 * abi.md "TLS"; the runtime defining it must be loaded at startup). Each hook, and the
 * timer, first charges it to the csd that was current and zeroes it:
 * between two hooks the current csd does not change. */
extern __thread uint64_t dp_loop_ticks;

/* ---- ABI v2 (-fplugin-arg-deepprof-abi=2): the inline fast path ----
 * Code emitted for v2 reads and writes these directly (offsets fixed:
 * csd calls 0, loop_cscs 8, callee 16, target 24, exits 40, callee_ps 56;
 * pd ps 0, slot 16) and calls the two slow paths only when the fast path
 * cannot go on. schemas/plugin-abi.md, "The inline fast path", says what
 * each does. Runtime rules: a csd's callee is never NULL (a dummy pd whose
 * ps is NULL until bound), and its callee_ps is its callee's ps, set after
 * callee (or NULL); every csd's magic has DP_CSD_MAGIC's top byte; a slot of an
 * indirect site is never NULL (a dummy csd whose target is NULL); dp_cur
 * is never 0 (initialise it to a dummy csd). */
#define DP_CSD_MAGIC (~(uint64_t)0)
struct dp_pd_hot;
struct dp_csd_hot {
	uint64_t calls;             /* calls made through this csd (each also one CSC) */
	uint64_t loop_cscs;         /* back-edge ticks while it was current */
	struct dp_pd_hot *callee;   /* the callee's pd (after recursion folding) */
	const void *target;         /* indirect sites: the function this csd is for */
	uintptr_t next;             /* indirect sites: a csd of the same slot (as a slot
	                               holds it, | 1), the runtime's choice, or a
	                               placeholder whose target is NULL; never 0. When
	                               the slot's csd is for another target, the site
	                               tries this one before its slow path and, if it is
	                               for the target, makes it the slot's and the slot's
	                               old csd its next (two targets in turn: no slow
	                               path) */
	uint64_t exits;             /* calls that returned normally to a site that is not
	                               DP_CSS_TAIL, DP_CSS_NORETURN, DP_CSS_LEAF_CALLEE
	                               nor DP_CSS_RETURNS */
	uint64_t magic;             /* DP_CSD_MAGIC's top byte (0xff; the rest is the
	                               runtime's): right before callee_ps, it is what a
	                               prologue's one load finds when dp_cur is untagged
	                               (below), never a ps's low byte */
	const struct dp_ps_static *callee_ps;  /* callee->ps (NULL while unbound): a
	                               prologue loads the word at dp_cur + 55, which is
	                               this when dp_cur is tagged (csd | 1), and compares
	                               it with its own ps: one load tells both checks */
};
struct dp_pd_hot {
	const struct dp_ps_static *ps;  /* compared by the prologue with &tu->ps[PS] */
	uint32_t n_slot;
	uint32_t active;            /* for the runtime: activations on this thread's stack */
	uintptr_t slot[];           /* one per site of ps, by site index - ps->first_css:
	                               a csd's hot part | 1, the value a site stores in
	                               dp_cur as it is, or 0 */
};
/*
 * Below a pd's hot part, two words per slot: a direct site's counters
 * (the slot i's at DP_PD_COUNT(i) from the pd's address: its calls, then
 * 8 bytes on its exits), which the inline code adds to with no load of
 * the slot. The calls word starts at all ones, so the first call made
 * through the slot takes it to 0, which sends the site to
 * dp_abi_count_slow (below): the runtime makes the slot's csd there,
 * whose calls and exits are then its hot part's and those words' sums.
 * The exits word starts at 0.
 */
#define DP_PD_COUNT(i) (-16 * ((long)(i) + 2))

/* The running activation's csd, packed with a flag: bit 0 is set by a call
 * site (the csd it counted), so one load tells a prologue both who called
 * and whether it is that call (a callback from uninstrumented code finds
 * bit 0 clear, or a csd meant for another procedure). The prologue does
 * not clear it (a store on every call): until the activation's first call
 * the tagged csd is the running one. TLS as dp_loop_ticks. */
extern __thread uintptr_t dp_cur;

/* Prologue's slow path: `cur` is dp_cur as the prologue found it. Binds an
 * unbound csd to this procedure's pd, or makes a callback csd; sets dp_cur
 * to the csd of the new activation (untagged) and returns it. */
void *dp_abi_enter_slow(struct dp_tu *tu, uint32_t ps, uintptr_t cur);
/* Site's slow path: the csd for (pd, site, fn) — fn the target of an
 * indirect call, else NULL — made if new, stored in pd's slot, returned as
 * the slot holds it (its hot part | 1). */
void *dp_abi_call_slow(struct dp_tu *tu, uint32_t site, void *fn, void *pd);
/* A direct site's slow path at its first call through a pd (its calls
 * word went from all ones to 0, DP_PD_COUNT): the slot's csd, made if new
 * (as dp_abi_call_slow makes it), the word set to 1 and tied to the csd;
 * returned as the slot holds it. fn is 0. */
void *dp_abi_count_slow(struct dp_tu *tu, uint32_t site, void *fn, void *pd);
/* The same for an indirect site whose target fn is procedure ps of tu (the
 * compiler found it constant and inlined its body): the csd is bound to
 * ps too, made so if it was not (the site checks its callee_ps). */
void *dp_abi_call_bound(struct dp_tu *tu, uint32_t site, void *fn, void *pd, uint32_t ps);
/* A part GCC split off procedure `ps` (f.part.0) runs in the activation
 * that called it, whose csd dp_cur names; when dp_cur's csd does not run
 * `ps` (a signal handler ran since the activation last set it, and left
 * its own), the part asks here: the activation of `ps` found up the
 * thread's chain from `cur`, or the sink. Sets dp_cur to it (untagged)
 * and returns it. */
void *dp_abi_resume(struct dp_tu *tu, uint32_t ps, uintptr_t cur);
/*
 * The same slow paths as the optimised code on x86-64 calls them
 * (compiler-plugins/slow_regs.cc), dp_abi_enter_slow_regs,
 * dp_abi_call_slow_regs, dp_abi_count_slow_regs and dp_abi_resume_regs:
 * entry points of their
 * own convention, not C functions (so no prototypes here): from an asm
 * that moves the stack
 * pointer past the red zone, pushes four words (the arguments, last
 * first; a three-argument path's fourth is 0) and calls through the GOT
 * (bound when the module is loaded: no lazy PLT binding, which may use
 * r10 and r11); the result is in rax, every other general register is
 * kept, and so are the SSE registers (xmm0-15, their low 128 bits; not
 * the flags, the x87 and MMX registers, nor the upper halves of AVX's
 * registers: the asm declares those clobbered, the vector registers
 * too in a function compiled for AVX), and the caller drops the four
 * words. DP_ABI_REGS_ENTRY(name, target) defines one (the runtime, and
 * tests/plugin's testrt.c): it saves the registers a SysV call may change
 * but rax (the general ones by push, the SSE ones by movaps: fxsave64,
 * tried first, made calls=surviving's frequent slow paths of sqlite3 40%
 * slower), loads the arguments, and calls target on a stack it aligns
 * (endbr64 first: the call through the GOT is an indirect one where the
 * runtime is a shared library, which IBT would check).
 */
#if defined(__x86_64__) && !defined(__ILP32__)
/* xmm0-15 to the 256 bytes at the stack pointer, and back */
#define DP_ABI_XMM_SAVE                                                     \
	"movaps %xmm0, 0(%rsp)\n\tmovaps %xmm1, 16(%rsp)\n\t"                      \
	"movaps %xmm2, 32(%rsp)\n\tmovaps %xmm3, 48(%rsp)\n\t"                     \
	"movaps %xmm4, 64(%rsp)\n\tmovaps %xmm5, 80(%rsp)\n\t"                     \
	"movaps %xmm6, 96(%rsp)\n\tmovaps %xmm7, 112(%rsp)\n\t"                    \
	"movaps %xmm8, 128(%rsp)\n\tmovaps %xmm9, 144(%rsp)\n\t"                   \
	"movaps %xmm10, 160(%rsp)\n\tmovaps %xmm11, 176(%rsp)\n\t"                 \
	"movaps %xmm12, 192(%rsp)\n\tmovaps %xmm13, 208(%rsp)\n\t"                 \
	"movaps %xmm14, 224(%rsp)\n\tmovaps %xmm15, 240(%rsp)\n\t"
#define DP_ABI_XMM_LOAD                                                     \
	"movaps 0(%rsp), %xmm0\n\tmovaps 16(%rsp), %xmm1\n\t"                      \
	"movaps 32(%rsp), %xmm2\n\tmovaps 48(%rsp), %xmm3\n\t"                     \
	"movaps 64(%rsp), %xmm4\n\tmovaps 80(%rsp), %xmm5\n\t"                     \
	"movaps 96(%rsp), %xmm6\n\tmovaps 112(%rsp), %xmm7\n\t"                    \
	"movaps 128(%rsp), %xmm8\n\tmovaps 144(%rsp), %xmm9\n\t"                   \
	"movaps 160(%rsp), %xmm10\n\tmovaps 176(%rsp), %xmm11\n\t"                 \
	"movaps 192(%rsp), %xmm12\n\tmovaps 208(%rsp), %xmm13\n\t"                 \
	"movaps 224(%rsp), %xmm14\n\tmovaps 240(%rsp), %xmm15\n\t"
#define DP_ABI_REGS_ENTRY(name, target)                                         \
	__asm__(".text\n\t.p2align 4\n\t.globl " #name "\n\t"                \
		".type " #name ", @function\n" #name ":\n\t"                   \
		".cfi_startproc\n\tendbr64\n\tpushq %rbp\n\t"                  \
		".cfi_def_cfa_offset 16\n\t"                                      \
		".cfi_offset %rbp, -16\n\tmovq %rsp, %rbp\n\t"                  \
		".cfi_def_cfa_register %rbp\n\t"                                  \
		"pushq %rdi\n\tpushq %rsi\n\tpushq %rdx\n\tpushq %rcx\n\t"      \
		"pushq %r8\n\tpushq %r9\n\tpushq %r10\n\tpushq %r11\n\t"        \
		"movq 16(%rbp), %rdi\n\tmovq 24(%rbp), %rsi\n\t"                 \
		"movq 32(%rbp), %rdx\n\tmovq 40(%rbp), %rcx\n\t"                 \
		"andq $-16, %rsp\n\tsubq $256, %rsp\n\t"                        \
		DP_ABI_XMM_SAVE "call " #target "@PLT\n\t" DP_ABI_XMM_LOAD        \
		"leaq -64(%rbp), %rsp\n\tpopq %r11\n\tpopq %r10\n\t"             \
		"popq %r9\n\tpopq %r8\n\tpopq %rcx\n\tpopq %rdx\n\t"            \
		"popq %rsi\n\tpopq %rdi\n\tpopq %rbp\n\t.cfi_def_cfa %rsp, 8\n\t" \
		"ret\n\t.cfi_endproc\n\t.size " #name ", .-" #name "\n\t.previous")
/*
 * A direct site's code before its call as one asm (compiler-plugins/
 * slow_regs.cc), so that its check makes no block of its own: one more
 * call in its calls word in its pd's counters (DP_PD_COUNT; operands pd
 * "r" and cnt "i", the word's offset); when that made the word 0 (the
 * first call through the pd), a stub the asm puts after the function's
 * code (.subsection 1) calls ENTRY, a string (dp_abi_count_slow_regs), as
 * above with (tu, site, 0, pd), operands tu ("i", the TU's record) and
 * site ("i"), keeping every general register but csd (rax too, through
 * the stack) and the red zone. DP_ABI_COUNT_EXIT: a quiet body's site
 * (one whose call GCC inlined), its exit too (the word 8 bytes on).
 * _CHECK: the site's csd too (csd "=r", given the slot's value as its
 * input), or at the first call what the stub returns; _LOAD: the same,
 * the asm loading the slot (slot "+m", csd "=&r", written before pd is
 * read); _ENTER: and dp_cur set to it (cur "+m"; not at a site whose
 * callee is a leaf). The asms name dp_cur "+m" (for the order of the
 * stores to it around them) and clobber the flags (and the x87 and MMX
 * registers in a function that may use them, the vector registers in a
 * function compiled for AVX), not memory: no code touches the counters
 * but these asms and the runtime, which is why they need not name them.
 */
#define DP_ABI_COUNT_STUB(entry, ret)                                           \
	"\n86422:\n\t.subsection 1\n86421:\n\t"                                    \
	"lea -128(%%rsp), %%rsp\n\tpush %%rax\n\tpush %[pd]\n\tpush $0\n\t"      \
	"push %[site]\n\tlea %c[tu](%%rip), %%rax\n\tpush %%rax\n\t"               \
	"call *" entry "@GOTPCREL(%%rip)\n\tlea 32(%%rsp), %%rsp\n\t" ret           \
	"lea 128(%%rsp), %%rsp\n\tjmp 86422b\n\t.subsection 0"
#define DP_ABI_COUNT(entry)                                                     \
	"addq $1, %c[cnt](%[pd])\n\tje 86421f" DP_ABI_COUNT_STUB(entry, "pop %%rax\n\t")
#define DP_ABI_COUNT_EXIT(entry)                                                \
	DP_ABI_COUNT(entry) "\n\taddq $1, 8+%c[cnt](%[pd])"
#define DP_ABI_COUNT_CHECK(entry)                                               \
	"addq $1, %c[cnt](%[pd])\n\tje 86421f"                                   \
	DP_ABI_COUNT_STUB(entry, "xchg %%rax, (%%rsp)\n\tpop %[csd]\n\t")
#define DP_ABI_COUNT_LOAD(entry)                                                \
	"addq $1, %c[cnt](%[pd])\n\tmov %[slot], %[csd]\n\tje 86421f"             \
	DP_ABI_COUNT_STUB(entry, "xchg %%rax, (%%rsp)\n\tpop %[csd]\n\t")
#define DP_ABI_COUNT_LOAD_EXIT(entry)                                           \
	DP_ABI_COUNT_LOAD(entry) "\n\taddq $1, 8+%c[cnt](%[pd])"
#define DP_ABI_COUNT_ENTER(entry)                                               \
	DP_ABI_COUNT_LOAD(entry) "\n\tmov %[csd], %[cur]"
/*
 * After a site's call returned: dp_cur (cur, "+m") set back to the
 * caller's csd me ("r") and one more exit of the site's csd, the one
 * it had (csd, "r", tagged) or, for a direct site, the one its slot
 * ("m") holds (csd then a scratch register, "=&r"). As above, the asm
 * need not name the exits' word, which only these asms and the runtime
 * touch. DP_ABI_RESTORE alone where no exit is counted after the call
 * (a leaf with a prologue, a library function declared leaf, a tail
 * site in an inlined body).
 */
#define DP_ABI_RESTORE "mov %[me], %[cur]"
#define DP_ABI_SITE_RESTORE DP_ABI_RESTORE "\n\taddq $1, 39(%[csd])"
#define DP_ABI_SITE_RESTORE_LOAD                                                \
	DP_ABI_RESTORE "\n\tmov %[slot], %[csd]\n\taddq $1, 39(%[csd])"
/* a direct site's exit in its pd's counters (pd "r", ex "i": the exits
 * word's offset, DP_PD_COUNT + 8) */
#define DP_ABI_RESTORE_COUNT DP_ABI_RESTORE "\n\taddq $1, %c[ex](%[pd])"
/*
 * A quiet body's pending exit (schemas/plugin-abi.md, "Quiet bodies"):
 * the word at p + off ("i", printed bare) gains d ("i": 1 after a call
 * made in the body, -1 before it), p ("r") the body's csd or its me. Only
 * where every other such increment of that word is one too (GCC must see
 * all or none of them).
 */
#define DP_ABI_PENDING_EXIT "addq %[d], %c[off](%[p])"
/*
 * A back-edge tick in a loop that makes a call (compiler-plugins/ticks.cc):
 * the csd's loop count, named as the asm's operand n ("+m"), gains 1 in
 * one instruction. GCC sees the word read and written, so its other
 * accesses (a call-free loop's count kept in a register) keep their order
 * with it; as a load, an add and a store its value would be kept in a
 * register across a loop where no call intervenes.
 */
#define DP_ABI_TICK "addq $1, %[n]"
/*
 * A prologue's check the same way: me ("=r", given c - 1 as its input) is
 * that, or when the word pps ("rm": the one at c + 55, or for a split
 * part its pd's ps) is not exp ("r": &tu->ps[PS]) what ENTRY
 * (dp_abi_enter_slow_regs, dp_abi_resume_regs) returns for (tu, ps, c,
 * 0); operands c ("r"), ps ("i"), tu ("i"). The asm also names dp_cur
 * "+m" (the slow path sets it).
 */
#define DP_ABI_ENTER_CHECK(entry)                                               \
	"cmp %[exp], %[pps]\n\tjne 86423f\n86424:\n\t.subsection 1\n86423:\n\t"   \
	"lea -128(%%rsp), %%rsp\n\tpush %%rax\n\tpush $0\n\tpush %[c]\n\t"       \
	"push %[ps]\n\tlea %c[tu](%%rip), %%rax\n\tpush %%rax\n\t"                \
	"call *" entry "@GOTPCREL(%%rip)\n\tlea 32(%%rsp), %%rsp\n\t"            \
	"xchg %%rax, (%%rsp)\n\tpop %[me]\n\tlea 128(%%rsp), %%rsp\n\t"           \
	"jmp 86424b\n\t.subsection 0"
#endif
/* After each return of a call of setjmp & co (returns_twice) in a function
 * with a prologue: `me` is that function's csd (what its prologue found).
 * dp_cur naming another csd means a longjmp landed here: the runtime
 * forgets the calls it left and sets dp_cur to me. Out of line: setjmp
 * costs more than this call. */
void dp_abi_land(struct dp_tu *tu, void *me);
/* Right before a call of _exit or _Exit (both ABIs): the process ends
 * without exit's destructors, so the runtime writes the final profile
 * now (not in a vfork child). */
void dp_abi_exiting(void);
/* Right before a call of an exec function (execve & co, both ABIs): the
 * runtime writes the profile as a snapshot (the exec may fail). */
void dp_abi_exec(void);

#ifdef __cplusplus
}
#endif
#endif
