/*
 * acc.h — what the accuracy programs share: the scale argument and the unit
 * of work (a loop calling a small noinline function, so that CSCs see it:
 * the plugin ticks calls and loop back-edges). Part of deepprof's bench.
 * MIT licence.
 */
#ifndef ACC_H
#define ACC_H

#include <stdio.h>
#include <stdlib.h>

/* argv[1]: the scale (1 = the bench's size, ~0.5-1 s serially; the tests
 * use ~0.05); 1 if absent. Exits 2 on a bad one. */
static double acc_scale(int argc, char **argv)
{
	char *end;
	double s;

	if (argc < 2)
		return 1.0;
	s = strtod(argv[1], &end);
	if (end == argv[1] || *end || !(s > 0) || s > 100) {
		fprintf(stderr, "%s: the scale must be a number in (0, 100], not '%s'\n", argv[0],
			argv[1]);
		exit(2);
	}
	return s;
}

/* One step of work: a few rounds of a 64-bit mixer (~10 ns). */
__attribute__((noinline, const)) unsigned long acc_step(unsigned long x);
__attribute__((noinline, const)) unsigned long acc_step(unsigned long x)
{
	/* straight-line: no loop, so one CSC (the call) per step */
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdUL;
	x ^= x >> 29;
	x *= 0xc4ceb9fe1a85ec53UL;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdUL;
	x ^= x >> 29;
	x *= 0xc4ceb9fe1a85ec53UL;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdUL;
	x ^= x >> 29;
	x *= 0xc4ceb9fe1a85ec53UL;
	return x ^ (x >> 31);
}

/* n steps from seed: a cost proportional to n and nothing else. */
__attribute__((noinline, const)) unsigned long crunch(unsigned long seed, long n);
__attribute__((noinline, const)) unsigned long crunch(unsigned long seed, long n)
{
	for (long i = 0; i < n; i++)
		seed = acc_step(seed + (unsigned long)i);
	return seed;
}

/* Steps per scale unit: about 0.5 s of crunch() at -O2 on the bench machine
 * (measured: see bench/accuracy/README). */
#ifndef ACC_UNIT
#define ACC_UNIT 40000000L
#endif

#endif
