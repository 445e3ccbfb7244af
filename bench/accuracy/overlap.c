/*
 * overlap.c — accuracy program: a dependent pair that overlaps. produce()
 * writes its result through its pointer argument after a tenth of its work;
 * consume() takes that value as an argument but first reads it after nine
 * tenths of its own. Known answer: one candidate {produce, consume}, two
 * tasks, a dependence on v produced at ~0.1 and consumed at ~0.9 of the
 * calls' costs; ideal speedup ~2 (the consumer's wait never blocks).
 * DP_PAR: produce in a task signalling v with an atomic flag, consume
 * inline spinning on the flag just before its first read of v.
 * Part of deepprof's bench. MIT licence.
 */
#include "acc.h"

#ifdef DP_PAR
#include <omp.h>
#include <stdatomic.h>

/* v and its flag: the producer stores the value, then the flag (release);
 * the consumer spins on the flag (acquire), then reads the value. */
struct future {
	atomic_int ready;
	unsigned long value;
};

static void future_signal(struct future *f, unsigned long v)
{
	f->value = v;
	atomic_store_explicit(&f->ready, 1, memory_order_release);
}

static unsigned long future_wait(struct future *f)
{
	while (!atomic_load_explicit(&f->ready, memory_order_acquire))
		__builtin_ia32_pause();
	return f->value;
}
#endif

/* A tenth of the work, then *out, then the rest. */
__attribute__((noinline)) unsigned long produce(unsigned long seed, long n, unsigned long *out)
{
	unsigned long x = crunch(seed, n / 10);

	*out = x;
	return crunch(x, n - n / 10);
}

/* Nine tenths of the work without v, then the rest with it. */
__attribute__((noinline)) unsigned long consume(unsigned long seed, unsigned long v, long n)
{
	unsigned long y = crunch(seed, n - n / 10);

	return crunch(y ^ v, n / 10);
}

#ifdef DP_PAR
/* produce() and consume() with v passed through a future. */
static unsigned long produce_par(unsigned long seed, long n, struct future *f)
{
	unsigned long x = crunch(seed, n / 10);

	future_signal(f, x);
	return crunch(x, n - n / 10);
}

static unsigned long consume_par(unsigned long seed, struct future *f, long n)
{
	unsigned long y = crunch(seed, n - n / 10);

	return crunch(y ^ future_wait(f), n / 10);
}
#endif

int main(int argc, char **argv)
{
	long n = (long)(ACC_UNIT * acc_scale(argc, argv));
	unsigned long v, p, c;

#ifdef DP_PAR
	struct future fut = { 0, 0 };
	struct future *f = &fut;

#pragma omp parallel
#pragma omp single
	{
		if (omp_get_num_threads() < 2) {
			/* no second thread would ever run the producer: in order */
			p = produce(1, n, &v);
			c = consume(2, v, n);
		} else {
#pragma omp task shared(p) firstprivate(f)
			p = produce_par(1, n, f);
			c = consume_par(2, f, n);
#pragma omp taskwait
		}
	}
#else
	p = produce(1, n, &v);
	c = consume(2, v, n);
#endif
	printf("overlap: %lu\n", p ^ c);
	return 0;
}
