/*
 * floor_hooks.c — the least a deep profiler on -finstrument-functions hooks
 * must do per call, as a bench variant ("floor"): find the csd of (current
 * context, site, fn) in the context's hash table, push a frame naming it,
 * pop it and count the exit on return. Recursion folds when the csd is
 * made, as libprof does. Nothing else: no longjmp resync, no signal
 * safety, no clock, no output. Its time against the empty hooks is what
 * the approach itself costs, whoever writes the runtime.
 * Part of deepprof's bench. MIT licence.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define NT __attribute__((no_instrument_function))
#define TAB 256                 /* csds per context: plenty for the bench programs */
#define DEPTH (1 << 20)         /* frames per thread */

struct ctx;
struct csd {
	uintptr_t site, fn;
	struct ctx *callee;
	uint64_t exits;
};
struct ctx {
	struct csd *tab[TAB];
};
struct frame {
	struct csd *csd;
	struct ctx *ctx;
};

static __thread struct frame *top;      /* NULL until the thread's first hook */

/* The first hook of a thread, and every csd not made yet. */
__attribute__((noinline)) NT static void slow(uintptr_t fn, uintptr_t site)
{
	struct frame *f = top;
	if (!f) {
		f = mmap(NULL, DEPTH * sizeof *f, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (f == MAP_FAILED || !(f->ctx = calloc(1, sizeof *f->ctx))) {
			fputs("floor_hooks: out of memory\n", stderr);
			abort();
		}
		top = f;
	}
	uintptr_t i = (site ^ (fn >> 4)) % TAB, n = 0;
	struct csd *c;
	while ((c = f->ctx->tab[i]) && (c->site != site || c->fn != fn)) {
		i = (i + 1) % TAB;
		if (++n == TAB) {
			fputs("floor_hooks: a context has too many call sites\n", stderr);
			abort();
		}
	}
	if (!c) {
		if (!(c = calloc(1, sizeof *c))) {
			fputs("floor_hooks: out of memory\n", stderr);
			abort();
		}
		c->site = site;
		c->fn = fn;
		for (struct frame *g = f; g->csd; g--)     /* fold into fn's outermost activation */
			if (g->csd->fn == fn)
				c->callee = g->ctx;
		if (!c->callee && !(c->callee = calloc(1, sizeof *c->callee))) {
			fputs("floor_hooks: out of memory\n", stderr);
			abort();
		}
		f->ctx->tab[i] = c;
	}
	f[1].csd = c;
	f[1].ctx = c->callee;
	top = f + 1;
}

NT void __cyg_profile_func_enter(void *fnp, void *sitep)
{
	uintptr_t fn = (uintptr_t)fnp, site = (uintptr_t)sitep;
	struct frame *f = top;
	if (__builtin_expect(!f, 0))
		return slow(fn, site);
	struct csd *c = f->ctx->tab[(site ^ (fn >> 4)) % TAB];
	if (__builtin_expect(!c || c->site != site || c->fn != fn, 0))
		return slow(fn, site);
	f[1].csd = c;
	f[1].ctx = c->callee;
	top = f + 1;
}

NT void __cyg_profile_func_exit(void *fnp, void *sitep)
{
	(void)sitep;
	struct frame *f = top;
	if (__builtin_expect(f && f->csd && f->csd->fn == (uintptr_t)fnp, 1)) {
		f->csd->exits++;
		top = f - 1;
	}
}
