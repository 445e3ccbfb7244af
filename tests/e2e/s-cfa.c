/* s-cfa.c — built at -O2: two functions whose stack pointer at a hook is no
 * fixed distance from their frame address, with functions GCC inlines into
 * them (whose hooks report the container's return address).
 *
 * print_all is gawk's do_print in small: put7 takes a stack argument, and
 * GCC calls the enter hook of the inlined unref before popping it (deferred
 * pop), so unref's enter hook runs 16 bytes lower than its exit hook.
 *
 * keeper keeps a copy of its return address in a stack slot below the real
 * one (as a function that passes __builtin_return_address(0) around may),
 * and clears it between the enter hooks of two nested inlined functions:
 * a search for the first stack word that holds the return address finds
 * the copy for the outer one and the real slot for the inner one.
 *
 * Built with -DPROBE and linked with s-cfa-probe.c instead of libprof, the
 * program prints what its hooks saw, so the test knows GCC laid the frames
 * out so. */
#include <stdint.h>

static unsigned long refs[5] = { 1, 2, 1, 1, 3 };
static volatile unsigned long sink;     /* unsigned: no UBSan checks to move hooks */
static volatile int rounds = 3, keeps = 4;     /* volatile: loops GCC keeps */

__attribute__((noinline)) void put7(unsigned long a, unsigned long b, unsigned long c, unsigned long d,
				   unsigned long e, unsigned long f, unsigned long g)
{
	sink += a + b + c + d + e + f + g;
}

static inline void unref(int i)
{
	if (--refs[i] == 0)
		sink++;
}

__attribute__((noinline)) void print_all(int n)
{
	for (int i = 0; i < n; i++) {
		put7(1, 2, 3, 4, 5, 6, (unsigned long)i);
		unref(i);
	}
}

__attribute__((noinline)) void leaf(void) { sink++; }

static volatile uintptr_t *volatile slot;

static inline void inner(void)
{
	leaf();
}

static inline void outer(void)
{
	*slot = 0;              /* the copy is gone before inner's enter hook */
	inner();
}

__attribute__((noinline)) void keeper(void)
{
	volatile uintptr_t copy = (uintptr_t)__builtin_return_address(0);
	slot = &copy;
	outer();
	sink += copy;
}

#ifdef PROBE
void probe_report(void *unref_fn, void *outer_fn, void *inner_fn);     /* s-cfa-probe.c */
#endif

int main(void)
{
	for (int r = 0; r < rounds; r++)
		print_all(5);
	for (int r = 0; r < keeps; r++)
		keeper();
#ifdef PROBE
	probe_report((void *)unref, (void *)outer, (void *)inner);
#endif
	return 0;
}
