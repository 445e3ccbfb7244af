/*
 * split.c — the split of a recursion: at each clock tick, how many
 * activations on the interrupted thread's stack were called through each
 * self-recursive csd (a call that folded into its own caller's pd: callee
 * pd == caller pd). Summed over the ticks, a csd's `inside` is the run time
 * spent inside its calls, counted once per activation on the stack: fib's
 * two sites come out about φ : 1. (Mutual recursion, whose folded calls go
 * to another pd of the clique, is not measured: the feedback model's split
 * is for one-member cliques.)
 * Part of deepprof's libprof. MIT licence.
 *
 * Two stacks, whichever the thread has (both are looked at):
 *
 * The shadow stack (-finstrument-functions and plugin ABI v1): every frame
 * names its csd; each frame whose csd is self-recursive adds to it.
 *
 * ABI v2 keeps no shadow stack, and the runtime does not know the return
 * address of a plugin site (the inline code calls the callee directly; the
 * site's table record, not a code address, names it: schemas/plugin-abi.md).
 * What it does know: every v2 activation holds `me`, the address of the
 * csd it was called through (&csd->hot), for its whole life, because it
 * stores it back into dp_cur after each of its calls. A value live across
 * calls lives, by the x86-64 ABI, in a callee-saved register (saved on the
 * stack by whichever callee first reuses it) or in the frame: so each
 * activation but the running one leaves its `me` once on the machine stack
 * (measured: GCC 12 at -O0 and -O2 keeps it in r12/r14 and every callee
 * pushes it). The running activation is the one dp_cur names (tag
 * stripped), counted from there, not from the registers: in a callee's
 * prologue its caller's `me` is both pushed and still in its register, and
 * counting registers made fib's first site 0.63-0.65 where 0.62 is right.
 * The tick therefore counts dp_cur's csd and scans the live stack (the
 * ucontext's sp up to the thread's stack top, exclusive of the running
 * activation's own register) for words equal to &c->hot of the
 * self-recursive csds that can be
 * on it: those of a pd on the current chain (the current csd, the csd that
 * made its caller's pd, and so on up) bound back into that pd. A compiler may keep a second copy
 * (a spill): that activation then counts twice, as may a stale word in a
 * live frame; both bias a site's count up by the same share whatever the
 * site, which leaves the split (a ratio) as it is.
 *
 * Bounded cost: at most MAX_FRAMES shadow frames and MAX_WORDS stack words
 * a tick. A deeper stack is sampled: with stride s (the least that fits),
 * one frame (or one block of BLOCK words) at random in each run of s, each
 * found activation counting s. Each activation is then counted with
 * probability 1/s and weight s: the sum's expectation is exact, at the
 * price of variance (a tick of a 10^5-deep recursion looks at 1 frame in
 * 25). A random pick per run, not one phase for all: with one phase, sites
 * alternating on the stack and an even stride made each tick count only
 * one of them (tests/split s-deep.c).
 * The chain walk visits at most MAX_VISIT csds and takes MAX_CANDS
 * candidates: a recursion further up is not counted (biased low, but only
 * past 64 self-recursive sites or 256 csds on one chain).
 */
#include <errno.h>
#include <signal.h>
#include <ucontext.h>
#include "internal.h"

#define MAX_FRAMES  4096u   /* shadow frames looked at per tick */
#define MAX_WORDS   16384u  /* machine stack words scanned per tick (128 KiB) */
#define BLOCK       64u     /* words scanned together when the stack is sampled */
#define MAX_STACK   (1ull << 30)    /* a longer "stack" is not one: do not scan */
#define MAX_VISIT   256u    /* csds visited on the chain per tick */
#define MAX_CANDS   64u     /* self-recursive csds looked for per tick */

/* Ticks that looked at a stack (the header's inside_samples). Atomic: every
 * thread's handler adds; the writer reads; a forked child clears it. */
uint64_t dp_split_samples;

/* A per-thread xorshift state for the random phase (initial-exec TLS: safe
 * in a signal handler). 0 until the thread's first sampled tick. */
static __thread uint64_t rng __attribute__((tls_model("initial-exec")));

/* --- private prototypes --- */
static uint64_t next_random(struct dp_thread *t);
static void shadow(struct dp_thread *t);
static uint32_t candidates(struct dp_csd **cand, struct dp_csd **cur);
static void machine(struct dp_thread *t, const void *uc);

/* A pseudo-random number for the phase of a sampled stack. */
static uint64_t next_random(struct dp_thread *t)
{
	uint64_t x = rng;
	if (!x)
		x = ((uint64_t)(uintptr_t)t * 0x9e3779b97f4a7c15ull) | 1;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng = x;
	return x;
}

/* The shadow stack's self-recursive frames: each adds (the stride) to its csd. */
static void shadow(struct dp_thread *t)
{
	struct dp_frame *lo, *hi;
	if (!dp_graph_frames(t, &lo, &hi))
		return;
	uint64_t depth = (uint64_t)(hi - lo) + 1;
	uint64_t s = depth > MAX_FRAMES ? (depth + MAX_FRAMES - 1) / MAX_FRAMES : 1;
	for (uint64_t k0 = 0; k0 < depth; k0 += s) {
		uint64_t k = s > 1 ? k0 + next_random(t) % s : k0;
		if (k >= depth)
			continue;
		struct dp_frame *f = hi - k;
		if (DP_LOAD(&f->sp) == DP_SP_DEAD)
			continue;
		struct dp_csd *c = DP_LOAD(&f->csd);
		if (c && c != &t->outside && DP_LOAD(&c->callee) == c->caller)
			c->inside += s;
	}
}

/* Add the csds bound to pd from pd itself to cand[0 .. *n) (no duplicates). */
static void visit(struct dp_pd *pd, struct dp_csd **cand, uint32_t *n, uint32_t *seen)
{
	for (struct dp_csd *c = DP_LOAD(&pd->in_head); c && *seen < MAX_VISIT;
	     c = DP_LOAD(&c->in_next), (*seen)++) {
		if (c->caller != pd || !c->v2)
			continue;
		uint32_t i = 0;
		while (i < *n && cand[i] != c)
			i++;
		if (i == *n && *n < MAX_CANDS)
			cand[(*n)++] = c;
	}
}

/* ABI v2: the self-recursive csds whose activations can be on the stack
 * now, found from the chain of the current csd (*cur, NULL for none);
 * their number. */
static uint32_t candidates(struct dp_csd **cand, struct dp_csd **cur)
{
	struct dp_csd *x = dp_plugin2_csd(DP_LOAD(&dp_cur));
	uint32_t n = 0, seen = 0;
	*cur = x;
	if (!x)
		return 0;
	struct dp_pd *pd = DP_LOAD(&x->callee);
	if (pd)
		visit(pd, cand, &n, &seen);
	for (pd = x->caller; pd && seen < MAX_VISIT; ) {
		visit(pd, cand, &n, &seen);
		struct dp_csd *up = DP_LOAD(&pd->parent);
		pd = up ? up->caller : NULL;
		seen++;
	}
	return n;
}

/* Count word w if it is a candidate's &hot. */
static inline void match(uintptr_t w, struct dp_csd **cand, uint32_t n, uintptr_t lo,
			 uintptr_t span, uint64_t weight)
{
	if (w - lo > span)
		return;
	for (uint32_t i = 0; i < n; i++)
		if (w == (uintptr_t)&cand[i]->hot) {
			cand[i]->inside += weight;
			return;
		}
}

/* ABI v2: the running activation (dp_cur) and the live machine stack,
 * scanned for the candidates' addresses (no redzone checks: the words read
 * are the program's live stack, which ASan may have poisoned). */
__attribute__((no_sanitize_address))
static void machine(struct dp_thread *t, const void *uc)
{
#if defined(__x86_64__)
	struct dp_csd *cand[MAX_CANDS], *cur;
	uint32_t n = candidates(cand, &cur);
	if (!n || !uc)
		return;
	for (uint32_t i = 0; i < n; i++)
		if (cand[i] == cur)
			cur->inside++;      /* the running activation */
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (uint32_t i = 0; i < n; i++) {
		uintptr_t a = (uintptr_t)&cand[i]->hot;
		lo = a < lo ? a : lo;
		hi = a > hi ? a : hi;
	}
	uintptr_t span = hi - lo;
	const greg_t *g = ((const ucontext_t *)uc)->uc_mcontext.gregs;
	uintptr_t sp = (uintptr_t)g[REG_RSP] & ~(uintptr_t)7, top = t->stack_hi;
	if (!top || sp >= top || top - sp > MAX_STACK)
		return;     /* on another stack (a handler's alternate one): not scanned */
	const uintptr_t *w = (const uintptr_t *)sp;
	uint64_t words = (top - sp) / sizeof *w;
	if (words <= MAX_WORDS) {
		for (uint64_t i = 0; i < words; i++)
			match(w[i], cand, n, lo, span, 1);
		return;
	}
	uint64_t blocks = (words + BLOCK - 1) / BLOCK;
	uint64_t s = (blocks * BLOCK + MAX_WORDS - 1) / MAX_WORDS;
	for (uint64_t b0 = 0; b0 < blocks; b0 += s) {
		uint64_t b = b0 + next_random(t) % s;
		if (b >= blocks)
			continue;
		uint64_t end = (b + 1) * BLOCK < words ? (b + 1) * BLOCK : words;
		for (uint64_t i = b * BLOCK; i < end; i++)
			match(w[i], cand, n, lo, span, s);
	}
#else
	(void)t; (void)uc;      /* no register names for this architecture: v2 not measured */
#endif
}

/*
 * Called by the SIGPROF handler on t, the interrupted (and calling) thread.
 * Does nothing while the runtime is busy on t or has stopped; never
 * allocates, locks or calls libc.
 */
void dp_split_sample(struct dp_thread *t, const void *uc)
{
	if (DP_LOAD(&t->h->stop))
		return;
	shadow(t);
	if (DP_LOAD(&dp_rt.abi2))
		machine(t, uc);
	DP_ADD(&dp_split_samples, 1);
}
