/*
 * refhooks.c — reference -finstrument-functions hooks for the cross-check:
 * the simplest correct counter of caller→callee calls (a stack of function
 * addresses and a table of arcs), written at exit as text lines
 * "CALLER CALLEE CALLS" (hex addresses, caller 0 = no caller) to
 * $XCHECK_REF_OUT (default refarcs.txt). Single-threaded programs only.
 * Linked instead of libprof into the same objects, it gives counts that
 * libprof must equal even where callgrind cannot see the calls (inlined
 * functions at -O2 still call the hooks). Part of deepprof's cross-check. MIT licence.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define STACK_MAX 100000
#define TABLE_SIZE (1u << 16)     /* power of two; arcs of test programs fit easily */

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

static void *stack[STACK_MAX];
static unsigned long depth;     /* activations entered and not exited */
static unsigned long overflow;  /* enters not counted: stack or table full */

static struct arc {
	uintptr_t caller, callee;
	unsigned long calls;
} table[TABLE_SIZE];

__attribute__((no_instrument_function)) static void write_arcs(void)
{
	const char *path = getenv("XCHECK_REF_OUT");
	FILE *f = fopen(path ? path : "refarcs.txt", "w");

	if (!f)
		return;
	fprintf(f, "# refhooks overflow %lu\n", overflow);
	for (unsigned i = 0; i < TABLE_SIZE; i++)
		if (table[i].calls)
			fprintf(f, "%lx %lx %lu\n", (unsigned long)table[i].caller,
				(unsigned long)table[i].callee, table[i].calls);
	fclose(f);
}

__attribute__((constructor, no_instrument_function)) static void refhooks_init(void)
{
	atexit(write_arcs);
}

__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site)
{
	uintptr_t caller, callee = (uintptr_t)fn;
	unsigned h;

	(void)site;
	if (depth >= STACK_MAX) {       /* too deep: keep depth right, count nothing */
		depth++;
		overflow++;
		return;
	}
	caller = depth ? (uintptr_t)stack[depth - 1] : 0;
	stack[depth++] = fn;
	h = (unsigned)((caller * 0x9E3779B97F4A7C15ULL ^ callee) >> 17) & (TABLE_SIZE - 1);
	for (unsigned probe = 0; probe < TABLE_SIZE; probe++, h = (h + 1) & (TABLE_SIZE - 1)) {
		if (!table[h].calls) {
			table[h].caller = caller;
			table[h].callee = callee;
		} else if (table[h].caller != caller || table[h].callee != callee) {
			continue;
		}
		table[h].calls++;
		return;
	}
	overflow++;
}

__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
	if (depth)
		depth--;
}
