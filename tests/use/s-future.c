/*
 * s-future.c — dependent calls that overlap, for the use build's futures:
 * produce() stores *out a tenth of the way through its run and consume()
 * needs v only at the end of its own, so they can overlap through a
 * future; produce_twice() stores *out twice (a consumer could see the
 * first value: no future); consume_assign() assigns its parameter (its
 * uses would not be the value: no future). Argument: the scale. Prints
 * what the serial build prints. Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long work(unsigned long seed, long n)
{
	for (long i = 0; i < n; i++) {
		seed ^= seed >> 29;
		seed *= 0xbf58476d1ce4e5b9UL;
		seed += (unsigned long)i;
	}
	return seed;
}

/* a tenth of the work, then *out, then the rest */
static unsigned long produce(unsigned long seed, long n, unsigned long *out)
{
	unsigned long x = work(seed, n / 10);

	*out = x;
	return work(x, n - n / 10);
}

/* nine tenths of the work without v, then the rest with it */
static unsigned long consume(unsigned long seed, unsigned long v, long n)
{
	unsigned long y = work(seed, n - n / 10);

	return work(y ^ v, n / 10);
}

static unsigned long produce_twice(unsigned long seed, long n, unsigned long *out)
{
	unsigned long x = work(seed, n / 10);

	*out = x;
	x = work(x, n - n / 10);
	*out = x ^ 1;
	return x;
}

static unsigned long consume_assign(unsigned long seed, unsigned long v, long n)
{
	unsigned long y = work(seed, n - n / 10);

	v ^= y;
	return work(v, n / 10);
}

/* each pair in a function of its own: one candidate each */
static unsigned long pair_future(long n)
{
	unsigned long v, p, c;

	p = produce(1, n, &v);
	c = consume(2, v, n);
	return p ^ c ^ v;
}

static unsigned long pair_twice(long n)
{
	unsigned long v, p, c;

	p = produce_twice(3, n, &v);
	c = consume(4, v, n);
	return p ^ c ^ v;
}

static unsigned long pair_assign(long n)
{
	unsigned long v, p, c;

	p = produce(5, n, &v);
	c = consume_assign(6, v, n);
	return p ^ c ^ v;
}

int main(int argc, char **argv)
{
	long n = 4000000 * (argc > 1 ? atol(argv[1]) : 1);

	printf("future: %lu\n", pair_future(n));
	printf("twice: %lu\n", pair_twice(n));
	printf("assign: %lu\n", pair_assign(n));
	return 0;
}
