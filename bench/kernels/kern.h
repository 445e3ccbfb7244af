/*
 * kern.h — what the task-parallel kernels share: the scale argument (as
 * bench/accuracy/acc.h) and a seeded generator for their inputs.
 * Part of deepprof's bench. MIT licence.
 */
#ifndef KERN_H
#define KERN_H

#include <stdio.h>
#include <stdlib.h>

/* argv[1]: the scale (1 = the bench's size, ~1-2 s serially; the tests use
 * ~0.01); 1 if absent. Exits 2 on a bad one. */
static double kern_scale(int argc, char **argv)
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

/* A 64-bit LCG: the same input on every build. */
static inline unsigned long kern_next(unsigned long *x)
{
	*x = *x * 6364136223846793005UL + 1442695040888963407UL;
	return *x >> 33;
}

#endif
