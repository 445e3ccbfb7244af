/*
 * internal.h — libprof's runtime-wide internals: the node graph's types, the
 * per-thread state, and the hidden functions shared between the runtime's files.
 * Part of deepprof's libprof. MIT licence.
 */
#ifndef DP_INTERNAL_H
#define DP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <sys/types.h>
#include "deepprof-abi.h"

/* ==== compiler helpers ==================================================== */

/* The one export macro: everything else in libprof is hidden (-fvisibility=hidden). */
#define DP_EXPORT       __attribute__((visibility("default")))
#define DP_COLD         __attribute__((cold, noinline))
#define likely(x)       __builtin_expect(!!(x), 1)
#define unlikely(x)     __builtin_expect(!!(x), 0)

#define DP_LINE         64      /* a cache line: mem.c starts objects this big on one */

#define DP_LOAD_ACQ(p)      __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define DP_STORE_REL(p, v)  __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define DP_LOAD(p)          __atomic_load_n((p), __ATOMIC_RELAXED)
#define DP_ADD(p, v)        __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)

/* ==== the node graph ====================================================== */

/*
 * ps: one per function entry address (or, in plugin builds, per static id).
 * Global, shared by all threads; created under dp_rt.lock and never freed.
 * idx is dense from 1 (1 = the synthetic "<root>") and is also the PS record
 * id in Deep.data; threads index their outermost-activation array with it.
 */
enum dp_ps_kind {
	DP_PS_ADDR = 0,             /* -finstrument-functions: fn is the entry address */
	DP_PS_STATIC = 1,           /* plugin table: fn is its struct dp_ps_static record */
	DP_PS_EXTERNAL = 2,         /* an uninstrumented callee known by name only (synthetic) */
	DP_PS_SYNTH = 3,            /* "<root>" */
	DP_PS_REGION = 4,           /* an OpenMP region GCC outlined (omp.c): fn is the outlined
	                               function's entry; a region of a plugin function has
	                               that function's sites (tu, first_css, n_css, layout) */
	DP_PS_SAMPLED = 5,          /* record.c: a function found by unwinding a sampled stack;
	                               fn is its entry address from the unwind tables (0:
	                               none found); made in a signal handler, so no dladdr */
};

struct dp_ps {
	uintptr_t fn;               /* the key: see enum dp_ps_kind */
	uint32_t idx;
	uint32_t kind;              /* enum dp_ps_kind */
	uintptr_t mod_base;         /* dladdr()'s dli_fbase of fn, 0 if unknown */
	const char *name;           /* synthetic, external and static procedures (a copy) */
	const char *file;           /* static procedures (a copy), else NULL */
	uint32_t line;
	uint32_t first_css, n_css;  /* static procedures: the table's site range; pds of
	                               this ps get n_css slots (plugin.c) */
	uint32_t n_extra;           /* ABI v2, calls=surviving: and n_extra more, for the */
	const uint32_t *extra;      /* sites extra[0 .. n_extra) (deepprof-abi.h's dp_tu.extra) */
	const void *tu;             /* static procedures: the struct dp_tu of the table */
	bool uninstrumented;        /* calls into it never see an enter hook (external, or
	                               an indirect target that was not entered) */
	const struct dp_ps_static *layout;  /* DP_PS_REGION of a plugin function: the function's
	                               table record, which its pds' hot part names (plugin2.c) */
	struct dp_ps *hnext;        /* hash chain (under dp_rt.lock) */
	struct dp_ps *next;         /* creation-order list, published with release stores */
};

enum dp_site_kind {   /* Deep.data CSS kinds (deepprof-abi.h uses the same numbers) */
	DP_CSS_DYNAMIC = 0, DP_CSS_NORMAL = 1, DP_CSS_INDIRECT = 2,
	DP_CSS_EXTERNAL = 3, DP_CSS_CALLBACK = 4,
	DP_CSS_PARALLEL = 5,        /* an OpenMP parallel region run by a thread (omp.c) */
	DP_CSS_TASK = 6,            /* an OpenMP task run by a thread (omp.c) */
};
#define DP_CSS_IS_REGION(k) ((k) == DP_CSS_PARALLEL || (k) == DP_CSS_TASK)

/* css: one per (return address, caller ps), or in plugin builds per (address
 * of the site's struct dp_css_static, caller ps). Global, like ps. id is
 * assigned by the writer. callee, file, line, col: plugin sites only. */
struct dp_css {
	uintptr_t site;
	struct dp_ps *caller;
	uint32_t kind;              /* enum dp_site_kind */
	uint32_t id;
	struct dp_ps *callee;       /* the static callee, or NULL */
	const char *file;           /* a copy, or NULL */
	uint32_t line, col;
	/* a plugin site's: its static record's flags and callee name (a
	 * copy), read here and never there: a library's tables are gone
	 * once it is dlclose'd, its csds not */
	uint32_t sflags;
	const char *callee_name;
	struct dp_css *hnext;
	struct dp_css *next;
};

struct dp_pd;

/*
 * csd: one per (caller pd, call site, callee) in one thread's graph. Only the
 * owning thread writes the key fields and counters (the SIGPROF handler runs
 * on that thread too); the writer reads them racily, which is fine for
 * counters. There is no calls counter: every call ends as an exit, a
 * non-local exit, or a frame still on a stack, so the writer computes
 * calls = exits + nonlocal + live frames, and a final profile's invariant
 * calls == exits + nonlocal holds even when a signal interrupts a hook.
 */
struct dp_csd {
	uintptr_t site, fn;         /* the key in the caller pd's table */
	struct dp_csd **ctab;       /* callee->tab (its mask in its header word), copied here to
	                               shorten the hot path's chain of loads; refreshed when
	                               found stale */
	struct dp_pd *callee;
	uint32_t psi;               /* callee->ps->idx, kept here for the hot path */
	uint32_t off;               /* fn's frame offset (see dp_frame) when called from site */
	uint32_t id;                /* assigned by the writer */
	uint32_t guess;             /* off is a guess: fn's return address was not found */
	uint64_t exits, nonlocal, ticks, allocs, bytes;
	uint64_t loops;             /* back-edge ticks while current (plugin builds) */
	uint64_t inside;            /* split.c: clock ticks x activations through this self-
	                               recursive csd on the interrupted stack (timer handler) */
	struct dp_css *css;
	struct dp_pd *caller;
	struct dp_csd *next;        /* the thread's csd list, creation order */
	/* plugin builds (plugin.c): callee is NULL until the first enter binds it
	 * (the csd is published on the thread's list only then); an indirect
	 * site's csds, one per target fn, are chained from thead by tnext. */
	struct dp_csd *thead, *tnext;
	uintptr_t frflags;          /* the `at` word of a frame pushed for a call through it */
	uint32_t v2;                /* ABI v2's csd (plugin2.c); 0 for every other csd */
	uint32_t inherited;         /* v2, a forked child: calls through it were running at the fork */
	uint32_t snap;              /* v2: how the write under way counts the calls not seen
	                               returning (dp_plugin2_prepare, plugin2.c) */
	struct dp_csd *in_next;     /* v2: the next csd bound to the same callee pd */
	uint64_t *ctr;              /* v2, a direct site's csd: the counters of its slot in
	                               its caller's pd (deepprof-abi.h, DP_PD_COUNT), calls
	                               and exits the inline code counted there, added to
	                               hot's (plugin2.c: v2_calls, v2_exits); NULL until
	                               dp_abi_count_slow sets it */
	uint32_t ctx;               /* omp.c: a context-only copy, in the graph of a thread that
	                               ran an OpenMP region, of a csd of the thread that made the
	                               region: it counts nothing (fn has DP_CTX_FN set) */
	/* ABI v2 (plugin2.c): what the inline fast path counts; a v2 csd's
	 * calls are hot.calls and its exits calls - nonlocal; dp_cur points
	 * at hot. On a cache line of its own (mem.c starts an object of a
	 * line or more on a line): at offset 184 of a 16-aligned csd three in
	 * four straddled two lines, so a call touched both (calls at 0,
	 * callee at 16, exits at 40). Last, not first: split.c counts the
	 * stack words equal to &hot, and the runtime's own frames (the timer
	 * handler's, the slow paths') leave csd pointers below the program's,
	 * which a later frame's unwritten pad keeps: at offset 0 they were
	 * &hot too, and fib's v2 split came out 0.64-0.66 instead of 0.63. */
	_Alignas(DP_LINE) struct dp_csd_hot hot;
};
/* A v2 csd's magic: DP_CSD_MAGIC less its low bit (the ABI wants only its
 * top byte 0xff), so that dp_plugin2_csd() tells a v2 csd from the
 * runtime's placeholders by its hot line, where the fast path has been,
 * not its cold part's v2 (an allocation's count read it: another line) */
#define DP_CSD_MAGIC_V2 (DP_CSD_MAGIC - 1)

/*
 * pd: a procedure in one calling context of one thread. tab is a small
 * open-addressing table of the csds called from here, keyed by (site, fn);
 * its size is a power of two (mask + 1), kept at most half full. The word
 * before tab[0] holds mask too (dp_tab_mask), so that one pointer, which a
 * signal handler never sees half written, is the whole table for the hot
 * path: a frame's tab, even in a slot being filled, is always safe to probe.
 */
struct dp_pd {
	struct dp_csd **tab;
	uintptr_t mask;
	uint32_t n;                 /* csds in tab */
	uint32_t id;                /* assigned by the writer */
	struct dp_ps *ps;
	struct dp_pd *next;         /* the thread's pd list, creation order */
	struct dp_csd **slot;       /* plugin builds: ps->n_css slots, the csd of each site
	                               (an indirect site's: the last target's) */
	struct dp_pd_hot *hot;      /* ABI v2 (plugin2.c): the slots the inline code reads */
	struct dp_csd *parent;      /* the csd that made this pd (NULL for a root) */
	struct dp_csd *in_head;     /* ABI v2: the csds bound to it, through in_next */
	uint64_t mark;              /* ABI v2: bind2's search stamp */
	uint64_t in_calls, in_exits;/* ABI v2, the writer's: calls into it through sites that
	                               count exits, and their exits (dp_plugin2_prepare) */
};

/*
 * One activation on a thread's shadow stack (72 bytes). sp is the
 * activation's canonical frame address (its CFA: the caller's stack pointer
 * at the call), so two callees called from the same place have the same sp
 * whatever their frame sizes, and every live caller has a larger one. A
 * function GCC inlined is reported with its container's return address as
 * site, and gets the container's sp: see dp_frame_stale().
 */
struct dp_frame {
	uintptr_t sp;               /* deeper frames have smaller sp */
	uintptr_t fn;
	struct dp_csd *csd;         /* where exits go; &t->outside for frames inherited over fork */
	struct dp_pd *pd;           /* the activation's pd: calls made from it hang here */
	struct dp_pd *saved;        /* plugin frames (ABI v1) only, which keep outer[] (dp_hot): */
	uint32_t psi;               /* the ps's outermost activation before this call, and the
	                               ps idx to restore it at; -finstrument-functions frames
	                               leave both unwritten (dp_frame_restore_outer) */
	uint32_t off;               /* fn's frame offset: sp = the hook's stack pointer + off */
	struct dp_csd **tab;        /* pd's table (mask in its header), cached for the next call's
	                               lookup; may be stale after growth: then the slow path finds
	                               the csd. Every frame has one: a plugin (ABI v1) frame's
	                               is its callee pd's, or an empty one while the call is
	                               unbound (a -finstrument-functions hook may probe it) */
	uintptr_t mask;             /* plugin frames (ABI v1): the base of their tail records */
	uintptr_t at;               /* -finstrument-functions frames: where the enter hook was
	                               called from (its return address, never with bit 63 set);
	                               plugin frames: DP_FR_PLUGIN | enum dp_fr_flags */
};

/*
 * The sp of a slot that holds no activation (graph.c): every pop of the
 * -finstrument-functions route writes it into the slot it gives up, and
 * dp_graph_refill keeps it there while it writes a frame again. An enter
 * hook fills the slot above the top, pushes it, then checks its sp: an
 * instrumented signal handler that ran in between pushed and popped its own
 * frames there, so the slot is dead. Until the hook writes it again, that
 * dead slot is the top: a hook of a second handler landing then must see a
 * push in progress (its caller is the frame below; the slot is neither a
 * stale frame to pop nor a caller to read), not the first handler's old
 * frame, which would look stale to it. Real frames never have sp 0, so
 * the enter hook's fast path takes a dead top for a stale frame (graph.h,
 * dp_frame_stale) and leaves it to the slow path.
 */
#define DP_SP_DEAD ((uintptr_t)0)

/*
 * Plugin frames (plugin.c). A frame is pushed by dp_abi_call for the call
 * of a site (fn = the address of the site's struct dp_css_static, sp = the
 * caller's stack pointer, PENDING until the callee's dp_abi_enter binds it;
 * a call into uninstrumented code stays PENDING until its return), or by
 * dp_abi_enter for a callback (CB: entered with no matching call pending;
 * fn = 0, sp = the callee's own stack pointer + 1, ended by the next hook
 * from a frame at or above it, since v1 has no function exit hook).
 */
#define DP_FR_PLUGIN (1ull << 63)
/* A frame pushed by omp.c for an OpenMP region run by this thread (ABI v1
 * and -finstrument-functions): the region hangs in the context of the
 * construct that made it, whose pds (pd->parent's chain) count as active
 * for recursion folding. No hook's `at` has it. */
#define DP_FR_REGION (1ull << 62)

/* Undo what pushing frame f did to h->outer[]: only plugin (ABI v1) frames
 * keep outer[]; -finstrument-functions frames never touch it. */
#define dp_frame_restore_outer(h, f) \
	do { if ((f)->at & DP_FR_PLUGIN) (h)->outer[(f)->psi] = (f)->saved; } while (0)
/* A frame's flags (enum dp_fr_flags below): none on a -finstrument-functions
 * frame, whose `at` is a return address (its low bits are no flags). An
 * object built without the plugin puts such frames among plugin ones. */
#define dp_frflags(f) ((f)->at & DP_FR_PLUGIN ? (f)->at : 0)
enum dp_fr_flags {
	DP_FR_PENDING = 1,          /* call made, callee not entered (yet, or never: uninstrumented) */
	DP_FR_CB = 2,               /* a callback activation */
	DP_FR_TAIL = 4,             /* the site is DP_CSS_TAIL: no return hook follows */
	DP_FR_NORET = 8,            /* the site is DP_CSS_NORETURN */
	DP_FR_TAILS = 16,           /* tail calls replaced activations at this frame's place:
	                               their records are t->tails[mask ..] (below) */
	DP_FR_INL = 32,             /* entered at the caller's own stack pointer: the callee was
	                               inlined (or jumps to its enter hook), so its hooks come from
	                               the caller's frame and sp == the frame's sp is not stale */
};

/*
 * An activation replaced by its own tail call (plugin.c): it ends, as an
 * exit or a non-local exit, when the frame that replaced it ends, and its
 * outermost-activation entry (outer[psi] = saved, psi 0 for none) is
 * restored then. One record per csd per frame, with a count, so a tail
 * recursion of any depth keeps a few records. A stack per thread, in frame
 * order: a frame's records are those from its base (kept in its mask) up.
 */
struct dp_tailrec {
	struct dp_csd *csd;         /* NULL: nothing to count (inherited over fork) */
	uint64_t n;
	uint32_t psi;
	struct dp_pd *saved;
};

/* Bits of dp_thread.stop: every reason for a hook to leave the fast path. */
enum dp_stop_bits {
	DP_BUSY = 1,                /* the runtime itself is running on this thread */
	DP_STOPPED = 2,             /* the final profile is written: record nothing more */
	DP_EXITED = 4,              /* the thread has ended (its key destructor ran) */
	DP_UNINIT = 8,              /* the thread has no state yet (the TLS initial value) */
	DP_MAKING = 16,             /* plugin.c is making nodes: a signal handler's hooks may
	                               still push and pop frames, but make nothing */
	DP_ALT = 32,                /* graph.c: frames of a handler running on the alternate
	                               signal stack are on the shadow stack, whose addresses
	                               do not compare with the interrupted ones': every hook
	                               takes the slow path until they are gone */
};

/*
 * The hot per-thread state, in static TLS so a hook reaches it with one
 * %fs-relative access. Only the owning thread writes it, except stop (the
 * final writer sets DP_STOPPED). Another thread may read it through
 * dp_thread.h only while the owner is alive (the TLS block dies with it).
 */
struct dp_hot {
	uint32_t stop;              /* enum dp_stop_bits; 0 = fast path allowed */
	struct dp_frame *top;       /* current activation; stack[0] is the root frame */
	struct dp_frame *stack_last;/* the last usable frame */
	struct dp_pd **outer;       /* outermost activation per ps idx, outer_cap entries, of the
	                               plugin's ABI v1 frames (dp_graph_active_pd finds the others) */
	uint64_t loops_seen;        /* dp_loop_ticks when back-edges were last charged (plugin.c) */
	struct dp_thread *t;        /* the rest of the thread's state; NULL before its first hook */
};

/*
 * Per-thread state, mmap'ed at the thread's first hook and never freed (the
 * writer reads it after the thread ends). Only the owning thread writes it.
 */
#define DP_CALLMEMO 128            /* entries of dp_thread.callmemo, a power of 2 */

struct dp_thread {
	struct dp_hot *h;           /* the owner's dp_hot */
	uint32_t outer_cap;
	uintptr_t stack_hi;         /* above every frame of this thread's machine stack */
	bool cyg;                   /* has made a csd for -finstrument-functions hooks (graph.c) */
	uint32_t regions;           /* DP_FR_REGION frames on the stack (omp.c) */
	uint32_t alt_from;          /* graph.c: index of the first shadow frame pushed on the
	                               alternate signal stack; 0: none (DP_ALT clear) */
	struct dp_frame *stack;     /* stack[0] is the root frame; its psi holds the array's */
	size_t stack_cap;           /* capacity, so a reader on another thread sees a consistent pair */
	struct dp_csd outside;      /* sink for costs with no activation current */
	uint64_t lost;              /* events dropped (out of memory, re-entry) */
	uint64_t *loop_ticks;       /* the thread's dp_loop_ticks (plugin.c), charged at its end */
	uintptr_t *cur;             /* the thread's dp_cur (plugin2.c, ABI v2) */
	struct dp_pd **seen;        /* plugin2.c's search for an active pd: seen_cap entries */
	uint32_t seen_cap;
	uint64_t stamp;
	/* ABI v2 (plugin2.c): the last callback entered from uninstrumented
	 * code, as enter() found it: dp_cur then (untagged), the procedure's
	 * table record, and the csd the search gave (a library calling the
	 * same callback again gets it without the search) */
	uintptr_t memo_cur;
	const struct dp_ps_static *memo_ps;
	struct dp_csd *memo_r;
	/* ABI v2 (plugin2.c): what the call slow path found lately, by
	 * (pd, site, target): an indirect site whose target changes, and a
	 * site of code GCC split off a function, come back here every call.
	 * DP_CALLMEMO entries, mapped at the first use. */
	struct dp_callmemo {
		const void *pd, *site, *fn;
		uintptr_t csd, *slot;   /* tagged, as slots hold csds */
	} *callmemo;
	uint64_t callmemo_gen;      /* + 1 after each write of callmemo */
	struct dp_tailrec *tails;   /* see struct dp_tailrec; n_tails in use, tails_cap mapped */
	uint64_t n_tails;           /* 64 bits: truncated with dp_cas_local */
	uint32_t tails_cap;
	/* the last callback frame pushed (plugin.c): lets a hook that a signal
	 * handler interrupted count the handler's frame it wrote over */
	struct dp_frame *cb_slot;
	struct dp_csd *cb_csd;
	struct dp_pd *cb_saved;
	uint32_t cb_psi, cb_base;   /* cb_base: its tail records' base when it has some */
	uintptr_t cb_at;
	struct dp_pd *root;
	struct dp_pd *pd_head, *pd_tail;
	struct dp_csd *csd_head, *csd_tail;
	uint32_t n_pd, n_csd;       /* published (release) after the node is linked */
	char *arena, *arena_end;    /* bump allocator for this thread's nodes */
	pid_t tid;
	pthread_t self;
	timer_t timer;
	bool has_timer;
	bool exited;
	uint64_t cpu_ns_end;        /* CPU time when the thread ended */
	uint32_t id;                /* assigned by the writer */
	uint32_t w_pd, w_csd;       /* the writer's snapshot of n_pd, n_csd */
	void *rec;                  /* record.c (sampling mode): the tick handler's scratch
	                               (unwound frames, the path's pds), mapped at thread start */
	struct dp_thread *next;     /* registry, creation order */
};

/* ==== global runtime state (runtime.c) ==================================== */

/*
 * Written at init (constructor or first hook) and at fork in the child;
 * lists are appended under lock and published with release stores so the
 * writer can walk them without the lock (it may run in a signal handler).
 */
struct dp_runtime {
	pthread_mutex_t lock;       /* ps/css tables, thread registry, global arena */
	int inited;
	struct dp_ps *root_ps;
	struct dp_ps **ps_hash;  uint32_t ps_hmask;
	struct dp_ps *ps_head, *ps_tail;   uint32_t n_ps;
	struct dp_css **css_hash; uint32_t css_hmask;
	struct dp_css *css_head, *css_tail; uint32_t n_css;
	struct dp_thread *threads, *threads_tail; uint32_t n_threads;
	/* the shadow stacks and outer[] arrays of ended threads, their pages
	 * given back, for the next threads to start with (runtime.c) */
	struct dp_spare { struct dp_frame *stack; size_t stack_cap;
	                  struct dp_pd **outer; uint32_t outer_cap;
	                  struct dp_pd **seen; uint32_t seen_cap;
	                  struct dp_callmemo *callmemo; } spare[64];
	uint32_t n_spare;
	char *arena, *arena_end;
	uint64_t mem_bytes;         /* atomic: bytes mmap'ed by the runtime */
	uint64_t allocs_outside, bytes_outside;  /* atomic: allocations with no thread state */
	uint64_t lost;              /* atomic */
	uint64_t start_ns, start_mono_ns;
	unsigned timer_hz;          /* 0: no clock ticks (DEEPPROF_HZ=0, or the program took SIGPROF) */
	uint64_t given_up_cpu_ns;   /* the process's CPU time when the program took SIGPROF (0: never):
	                               the ticks counted cover that much */
	const char *file_env;       /* $DEEPPROF_FILE or NULL */
	int argc;
	char **argv;
	pid_t fork_of;
	const char *start_dir;      /* the working directory at start, or NULL: a relative
	                               DEEPPROF_FILE (or Deep.data) is written there, whatever
	                               directory the program has moved to since */
	pid_t pid;                  /* this process's, set at start and in a forked child (a
	                               vfork child, which shares our memory, has another) */
	pthread_key_t key;
	uint32_t stopped;           /* set once the final profile is written */
	uint32_t final_done;
	uint32_t clock_loops;       /* a registered plugin TU ticks back-edges: clock "calls+loops" */
	uint32_t abi2;              /* a plugin ABI v2 TU registered: dp_cur names the current csd */
	uint32_t abi1;              /* a plugin ABI v1 TU registered (timer.c) */
	uint32_t normal_end;        /* the final write runs at a normal process end (main returned
	                               or exit()), not from a fatal signal */
	/* Sampling mode (record.c, `deepprof record`): set at init from the
	 * environment, only in libprof-record.so; the rest written by record.c. */
	uint32_t sampling;          /* ticks are charged to unwound stacks: no hooks, no calls */
	uint32_t rec_flags;         /* atomic: enum dp_rec_flags, what disturbed the sampling */
	uint64_t rec_truncated;     /* atomic: ticks whose stack was deeper than the bound */
	uint64_t rec_failed;        /* atomic: ticks whose stack could not be unwound at all */
	unsigned rec_gen;           /* how many execs since `deepprof record` started the program */
	uint32_t unwind;            /* libunwind loaded for the timer (timer.c): a tick in
	                               uninstrumented code goes to its frames below the
	                               innermost instrumented one; off with $DEEPPROF_UNWIND=0 */
	uint32_t unwind_cyg;        /* and in -finstrument-functions builds: DEEPPROF_UNWIND=1 */
	pid_t rec_root;             /* the pid `deepprof record` started */
};

/* What a sampled profile is marked with (record.c; Deep.data "record_flags"). */
enum dp_rec_flags {
	DP_REC_HANDLER = 1,         /* the program installed its own SIGPROF handler */
	DP_REC_BLOCKED = 2,         /* the program blocked SIGPROF in some thread */
	DP_REC_ITIMER = 4,          /* the program started an ITIMER_PROF timer (more SIGPROFs) */
};

extern struct dp_runtime dp_rt;
extern __thread uint64_t dp_loop_ticks __attribute__((tls_model("initial-exec")));  /* plugin.c */
/* dp_rt.lock, taken and given back through these: dp_locked counts this
 * thread's holds (and a hold being taken), so that a clock tick's handler
 * never makes nodes (which takes the lock) over code that holds it; the
 * slow paths take it without marking the thread busy (runtime.c). */
extern __thread uint32_t dp_locked __attribute__((tls_model("initial-exec")));
static inline void dp_lock(void)
{
	dp_locked++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pthread_mutex_lock(&dp_rt.lock);
}
static inline void dp_unlock(void)
{
	pthread_mutex_unlock(&dp_rt.lock);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	dp_locked--;
}
/* libprof.a's objects (compiled for an executable, -fPIE or not PIC) reach
 * dp_hot with one %fs-relative access (local-exec); libprof.so's (-fPIC)
 * through the offset the loader put in the GOT (initial-exec). So libprof.a
 * links into executables only: a shared library uses libprof.so. */
#if defined(__PIC__) && !defined(__PIE__)
#define DP_TLS_HOT __attribute__((tls_model("initial-exec")))
#else
#define DP_TLS_HOT __attribute__((tls_model("local-exec")))
#endif
extern __thread struct dp_hot dp_hot DP_TLS_HOT;
#define dp_self (dp_hot.t)

/* ==== ABI v2 (plugin2.c) ================================================= */

extern __thread uintptr_t dp_cur __attribute__((tls_model("initial-exec")));
/* The csd dp_cur names (the running activation's, or the call being made),
 * or NULL when it is one of the runtime's placeholders. */
static inline struct dp_csd *dp_plugin2_csd(uintptr_t cur)
{
	struct dp_csd *c = (struct dp_csd *)((char *)(cur & ~(uintptr_t)1) - offsetof(struct dp_csd, hot));
	return c->hot.magic == DP_CSD_MAGIC_V2 ? c : NULL;   /* c->v2, from the hot line */
}
/* The csd costs go to now on t: the top frame's, ABI v2's dp_cur, or t's
 * sink. (dp_cur names a v2 csd only once a v2 TU has made one: until then
 * it is root_csd, no v2 csd, so no test of dp_rt.abi2 first.) */
static inline struct dp_csd *dp_cur_csd(struct dp_thread *t)
{
	if (t->h->stop & ~(uint32_t)DP_ALT)
		return &t->outside;
	struct dp_csd *c = dp_plugin2_csd(dp_cur);
	if (c)
		return c;
	const struct dp_frame *f = __atomic_load_n(&t->h->top, __ATOMIC_RELAXED);
	while (f->sp == DP_SP_DEAD)         /* a push in progress: its caller's */
		f--;
	return f->csd;
}
/* Thread t ends (returned: its start routine or main returned) or the final
 * profile is written: count the v2 activations still running as non-local
 * exits (or exits, for a callback that returned), and bind the csds whose
 * callee never entered (uninstrumented) when t is the calling thread. */
void dp_plugin2_unwind(struct dp_thread *t, bool returned);
/* The timer's tick landed outside instrumented code (timer.c), on the
 * calling thread t, not busy: the csd of the call into the uninstrumented
 * code running, bound to its callee if it was not yet (a call made at a
 * site of kind external), climbing over callbacks that have returned into
 * it; NULL when there is none, with *root set when the climb reached the
 * thread's root (the thread's own start code runs). */
struct dp_csd *dp_plugin2_outside(struct dp_thread *t, bool *root);
/* The same for ABI v1's shadow stack (plugin.c): sp is the interrupted
 * stack pointer, which tells the frames of callbacks that have returned
 * (not popped until a hook runs) from running ones. */
struct dp_csd *dp_plugin_outside(struct dp_thread *t, uintptr_t sp, bool *root);
/* dp_register_tu of a v2 table (before any runtime init, like v1's). */
void dp_plugin2_register(struct dp_tu *tu);
/* plugin.c's static nodes, shared with plugin2.c: made if new, NULL when
 * out of memory. */
struct dp_ps *dp_plugin_static_ps(struct dp_tu *tu, uint32_t i);
/* The ps of csd c's callee when its call never entered instrumented code:
 * by target address for an indirect call, else by the site's callee name. */
struct dp_ps *dp_plugin_uninstrumented_ps(const struct dp_csd *c);
struct dp_css *dp_plugin_site_css(struct dp_tu *tu, uint32_t site, struct dp_ps *caller);
/* The writer: before reading the counts of t's csds, and for each v2 csd c
 * (c->v2) its calls, exits and non-local exits (calls = exits + nonlocal). */
void dp_plugin2_prepare(struct dp_thread *t);
void dp_plugin2_counts(const struct dp_csd *c, uint64_t *calls, uint64_t *exits, uint64_t *nonlocal);
/* A forked child: clear the v2 counters of t's csds. */
void dp_plugin2_fork_child(struct dp_thread *t);

/* ==== signal-atomic updates =============================================== */

/*
 * *p += n in one instruction, so that a signal handler whose hooks update
 * the same counter cannot run between the load and the store (not atomic
 * between threads: only the owning thread writes these counters).
 */
static inline void dp_add_local(uint64_t *p, uint64_t n)
{
#if defined(__x86_64__)
	__asm__ volatile("addq %1, %0" : "+m"(*p) : "er"(n));
#else
	__atomic_fetch_add(p, n, __ATOMIC_RELAXED);
#endif
}

/* *p = to if it is still from, in one instruction (see dp_add_local). */
static inline bool dp_cas_local(uint64_t *p, uint64_t from, uint64_t to)
{
#if defined(__x86_64__)
	bool ok;
	__asm__ volatile("cmpxchgq %3, %1" : "=@ccz"(ok), "+m"(*p), "+a"(from) : "r"(to) : "memory");
	return ok;
#else
	return __atomic_compare_exchange_n(p, &from, to, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
#endif
}

/*
 * The back-edge ticks of this thread not charged yet. Instrumented code
 * only ever increments dp_loop_ticks; this takes the increase since the
 * last charge. If a signal handler's hooks ran in the middle of an
 * increment, the interrupted store can set the counter back: the
 * difference is then not positive and nothing is charged (at most one
 * tick of the interrupted code is lost, and only if the handler ran loops).
 */
static inline uint64_t dp_loops_take(struct dp_hot *h, uint64_t now)
{
	for (;;) {
		uint64_t seen = h->loops_seen;
		if (dp_cas_local(&h->loops_seen, seen, now))
			return (int64_t)(now - seen) > 0 ? now - seen : 0;
	}
}

/* ==== hidden functions shared across files ================================ */

/* mem.c: all runtime memory comes from mmap (never malloc). Zeroed. NULL on failure. */
void *dp_mem_map(size_t size);
void *dp_mem_thread(struct dp_thread *t, size_t size);
void *dp_mem_global(size_t size);       /* caller holds dp_rt.lock */
/* Mark c a v2 csd (ABI v2's, plugin2.c): its v2 and its magic */
static inline void dp_csd_set_v2(struct dp_csd *c)
{
	c->v2 = 1;
	c->hot.magic = DP_CSD_MAGIC_V2;
}
/* A zeroed csd of thread t, its hot part's magic set (deepprof-abi.h); NULL
 * when out of memory. Every csd is made here or is a static one with the
 * same magic. */
static inline struct dp_csd *dp_csd_new(struct dp_thread *t)
{
	struct dp_csd *c = dp_mem_thread(t, sizeof *c);
	if (c)
		c->hot.magic = DP_CSD_MAGIC;
	return c;
}
/* Bind csd hot part h to callee pd hot part p (ABI v2): callee first, then
 * the callee_ps a prologue checks, so that one interrupted between them
 * (a signal handler's) finds the csd unbound and goes slow. */
static inline void dp_csd_bind_hot(struct dp_csd_hot *h, struct dp_pd_hot *p)
{
	DP_STORE_REL(&h->callee, p);
	DP_STORE_REL(&h->callee_ps, p->ps);
}

/* Only the owning thread calls these; the final writer may set DP_STOPPED at the same time. */
static inline void dp_busy_on(struct dp_thread *t)  { __atomic_fetch_or(&t->h->stop, DP_BUSY, __ATOMIC_RELAXED); }
static inline void dp_busy_off(struct dp_thread *t) { __atomic_fetch_and(&t->h->stop, ~(uint32_t)DP_BUSY, __ATOMIC_RELAXED); }

/* graph.c: the core, independent of how sites and functions are named. */
struct dp_csd *dp_graph_csd_miss(struct dp_thread *t, struct dp_pd *pd, uintptr_t fn, uintptr_t site,
				 uint32_t off);
void dp_graph_enter_slow(uintptr_t fn, uintptr_t site, uintptr_t hook_sp, uintptr_t at);
void dp_graph_exit_slow(uintptr_t fn, uintptr_t site, uintptr_t hook_sp, bool tail);
void dp_graph_cfa_init(void);
int dp_graph_grow_stack(struct dp_thread *t);
void dp_graph_refill(struct dp_frame *f, uintptr_t sp, uintptr_t fn, struct dp_csd *c, uintptr_t at);
/* Count every frame still on t's stack as a non-local exit; with returned
 * (t ended normally: its start routine or main returned), plugin callback
 * frames on top, and pending tail calls above them, count as exits. */
void dp_graph_unwind_all(struct dp_thread *t, bool returned);
/* Node makers shared with plugin.c. ps/css: found by key or made from
 * *init (strings copied); NULL when out of memory. */
struct dp_ps *dp_graph_ps_get(uintptr_t key, const struct dp_ps *init);
struct dp_css *dp_graph_css_get(uintptr_t site, struct dp_ps *caller, const struct dp_css *init);
struct dp_pd *dp_graph_pd_new(struct dp_thread *t, struct dp_ps *ps);
/* Recursion folding: the pd of ps's outermost activation on t's stack, or
 * NULL when ps has none. Walks the stack (ABI v1 frames: outer[]); only t
 * calls it, from a slow path that makes a csd. */
struct dp_pd *dp_graph_active_pd(struct dp_thread *t, const struct dp_ps *ps);
int dp_graph_outer_reserve(struct dp_thread *t, uint32_t idx);
int dp_graph_tab_insert(struct dp_thread *t, struct dp_pd *pd, struct dp_csd *c);
/* The csd of (site, fn) in pd's table, or NULL. */
struct dp_csd *dp_graph_tab_find(const struct dp_pd *pd, uintptr_t site, uintptr_t fn);
void dp_graph_csd_publish(struct dp_thread *t, struct dp_csd *c);
/* End the tail-replaced activations recorded in t->tails[base .. upto):
 * count them as exits or non-local exits and, if restore, restore their
 * outermost-activation entries (the caller then drops the records). */
void dp_graph_tails_end(struct dp_thread *t, uint32_t base, uint32_t upto, bool exit, bool restore);
bool dp_graph_frames(struct dp_thread *t, struct dp_frame **lo, struct dp_frame **hi);
struct dp_ps *dp_graph_root_ps(void);

/* omp.c's access to the three routes. The pd current on t (its caller's
 * for a call being made), to hang an OpenMP region made now under: ABI
 * v2's dp_cur, or NULL when that names no csd. */
struct dp_pd *dp_plugin2_context(struct dp_thread *t);
/* ABI v2: make c (a region csd of omp.c, caller set) call ps, folding
 * recursion as a call would; a new pd gets its hot part. -1: no memory. */
int dp_plugin2_region_bind(struct dp_thread *t, struct dp_csd *c, struct dp_ps *ps);
/* A pd of ps made by parent, with a hot part when hot (ABI v2). */
struct dp_pd *dp_plugin2_pd_new(struct dp_thread *t, struct dp_ps *ps, struct dp_csd *parent, bool hot);
/* ABI v1 and -finstrument-functions: push a DP_FR_REGION frame for a run
 * of region csd c at stack address sp (above the region's frames), pop it
 * (with every frame above it, which the region left). False: no room. */
bool dp_graph_region_push(struct dp_thread *t, struct dp_csd *c, uintptr_t sp);
void dp_graph_region_pop(struct dp_thread *t, uintptr_t sp);
bool dp_plugin_region_push(struct dp_thread *t, struct dp_csd *c, uintptr_t sp);
void dp_plugin_region_pop(struct dp_thread *t, uintptr_t sp);

/* runtime.c: lifecycle. */
/* check.c: the targeted dependence check (deepprof-cc --deepprof-check).
 * check.o is linked from libprof.a only into a check build (its program
 * calls the __deepprof_chk_ hooks): the references from alloc.c and
 * write.c are weak, so elsewhere these are NULL. dp_ck_on, nonzero only
 * inside a check build's candidate call, is alloc.c's. */
extern __thread unsigned dp_ck_on __attribute__((tls_model("initial-exec")));
void dp_check_alloc(void *p, size_t n) __attribute__((weak));
void dp_check_free(void *p) __attribute__((weak));
uint32_t dp_check_regions(void) __attribute__((weak));
struct msgpack_packer;
void dp_check_pack(struct msgpack_packer *pk) __attribute__((weak));

void dp_runtime_init(void);
struct dp_thread *dp_thread_init(void);
void dp_thread_end(struct dp_thread *t);
uint64_t dp_thread_cpu_ns(struct dp_thread *t);
uint64_t dp_now_ns(clockid_t clk);
void *dp_next_sym(const char *name, void **cache);   /* the next definition after ours, or NULL */
void dp_log(const char *a, const char *b, const char *c);  /* "deepprof: a b c" on stderr */

/* record.c, linked only into libprof-record.so: these are weak, NULL in
 * libprof.a and libprof.so. dp_record_wanted: whether this process is to be
 * sampled (reads the environment); dp_record_install: the tick handler;
 * dp_record_thread: t's scratch, before its timer starts. */
int dp_record_wanted(void) __attribute__((weak));
void dp_record_install(void) __attribute__((weak));
int dp_record_thread(struct dp_thread *t) __attribute__((weak));
/* At a write: notice a SIGPROF handler replaced behind the sampler's back. */
void dp_record_check(void) __attribute__((weak));

/* unwind.c: libunwind, dlopen'ed. dp_unwind_init loads it (once, outside
 * any handler; -1 after a "deepprof: WHO cannot load ..." line when it is
 * missing); dp_unwind walks a signal context's stack (see unwind.c). */
struct dp_uframe {
	uintptr_t ip;               /* the interrupted pc (frame 0) or a return address */
	uintptr_t fn;               /* the entry of the function holding ip; 0: unknown */
};
int dp_unwind_init(const char *who);
int dp_unwind(void *uc, struct dp_uframe *out, int max, bool *deeper);
/* unwind.c: the modules holding instrumented code. dp_code_note(addr)
 * notes the module addr lies in (a TU's table, libprof's own code; not in
 * a signal handler); dp_code_instrumented(pc): pc is in the executable
 * segments of a noted module (async-signal-safe). */
void dp_code_note(const void *addr);
bool dp_code_instrumented(uintptr_t pc);
/* the dynamic loader's code (noted once at init, before any tick): a tick
 * there is not unwound */
void dp_code_note_loader(void);
bool dp_code_in_loader(uintptr_t pc);

/* graph.c: the csd of a call from path[n-1] (path[0 .. n): the pds of a
 * sampled context, outermost first) through return address site into the
 * function at fn (ps known, or found by fn), made if new with recursion
 * folded along path. Its table key is site | tag: a tag keeps csds of
 * sampled frames apart from the hooks' (DP_SITE_SAMPLED). NULL: out of
 * memory. The caller has t busy. */
#define DP_SITE_SAMPLED (1ull << 63)
/* The ps of entry address fn, or NULL (never makes one). */
struct dp_ps *dp_graph_ps_find(uintptr_t fn);
struct dp_csd *dp_graph_sample_step(struct dp_thread *t, struct dp_pd *const *path, int n,
				    uintptr_t site, uintptr_t fn, struct dp_ps *known, uintptr_t tag);

/* timer.c */
bool dp_runtime_ps(uintptr_t fn, const char **name, const char **file, uint32_t *line);
void dp_timer_install(void);
void dp_timer_start(struct dp_thread *t);
const sigset_t *dp_sigmask_keep_prof(int how, const sigset_t *set, sigset_t *copy,
				     void (*ours)(int, siginfo_t *, void *));
void dp_timer_stop(struct dp_thread *t);
bool dp_timer_handler_is_ours(const struct sigaction *act, void (*ours)(int, siginfo_t *, void *));
void dp_timer_give_up(void);

/* split.c: at a clock tick on t (the interrupted thread, uc its ucontext),
 * add to each recursive csd the activations through it on t's stack. */
void dp_split_sample(struct dp_thread *t, const void *uc);
extern uint64_t dp_split_samples;  /* split.c: ticks that looked at a stack (atomic) */

/* alloc.c */
void dp_alloc_link(void);

/* write.c */
int dp_write_profile(const char *path, bool final, bool in_signal);
/* Add the modules loaded now to the writer's list (which only grows), outside
 * any signal handler: at start-up and before each dlclose (dlwrap.c). */
void dp_write_modules_scan(void);
void dp_write_reset_child(void);   /* a forked child: forget a write in progress */
/* The writer lock: held while a profile is written, and by a thread while it
 * ends, so the writer never reads the TLS of a thread that is going away.
 * dp_write_lock fails (-1) only when the calling thread already holds it. */
int dp_write_lock(void);
void dp_write_unlock(void);

/* crc32.c */
uint32_t dp_crc32(uint32_t crc, const void *buf, size_t len);

/* fmt helpers (runtime.c): async-signal-safe number formatting */
char *dp_fmt_u64(char *out, uint64_t v);   /* writes digits + NUL, returns the end */

/*
 * A pd's table (internal.h, struct dp_pd): mask in the header word, then
 * mask + 1 slots. dp_tab_words: the words to allocate for it and extra
 * slots after it; dp_tab_init: the table in mem (zeroed), header set.
 */
static inline uintptr_t dp_tab_mask(struct dp_csd *const *tab)
{
	return ((const uintptr_t *)tab)[-1];
}
#define dp_tab_words(mask, extra) ((mask) + 2 + (extra))
static inline struct dp_csd **dp_tab_init(void *mem, uintptr_t mask)
{
	*(uintptr_t *)mem = mask;
	return (struct dp_csd **)mem + 1;
}

/*
 * The hot hash of a (site, fn) key into a pd's table (masked by the caller).
 */
static inline uintptr_t dp_hash(uintptr_t site, uintptr_t fn)
{
	return site ^ (fn >> 4);    /* sites in one function differ in their low bits */
}

#endif
