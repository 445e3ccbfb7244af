/*
 * nooverlap.c — accuracy program: a dependent pair that cannot overlap.
 * produce_late() writes its result through its pointer argument at its very
 * end; consume_early() reads it before any of its work. Known answer: one
 * candidate {produce_late, consume_early} with a dependence on v produced at
 * 1.0 and consumed at 0.0: no gain, so rejected as dependent (or predicted
 * ~1.0). DP_PAR: the transformation applied anyway (future as in overlap.c),
 * to show what it would cost. Part of deepprof's bench. MIT licence.
 */
#include "acc.h"

#ifdef DP_PAR
#include <omp.h>
#include <stdatomic.h>

struct future {
	atomic_int ready;
	unsigned long value;
};
#endif

/* All the work, then *out. */
__attribute__((noinline)) void produce_late(unsigned long seed, long n, unsigned long *out)
{
	*out = crunch(seed, n);
}

/* v first, then all the work. */
__attribute__((noinline)) unsigned long consume_early(unsigned long seed, unsigned long v, long n)
{
	return crunch(seed ^ v, n);
}

#ifdef DP_PAR
static void produce_late_par(unsigned long seed, long n, struct future *f)
{
	f->value = crunch(seed, n);
	atomic_store_explicit(&f->ready, 1, memory_order_release);
}

static unsigned long consume_early_par(unsigned long seed, struct future *f, long n)
{
	while (!atomic_load_explicit(&f->ready, memory_order_acquire))
		__builtin_ia32_pause();
	return crunch(seed ^ f->value, n);
}
#endif

int main(int argc, char **argv)
{
	long n = (long)(ACC_UNIT * acc_scale(argc, argv));
	unsigned long v, c;

#ifdef DP_PAR
	struct future fut = { 0, 0 };
	struct future *f = &fut;

#pragma omp parallel
#pragma omp single
	{
		if (omp_get_num_threads() < 2) {
			produce_late(1, n, &v);
			c = consume_early(2, v, n);
		} else {
#pragma omp task firstprivate(f)
			produce_late_par(1, n, f);
			c = consume_early_par(2, f, n);
#pragma omp taskwait
			v = fut.value;
		}
	}
#else
	produce_late(1, n, &v);
	c = consume_early(2, v, n);
#endif
	printf("nooverlap: %lu\n", v ^ c);
	return 0;
}
