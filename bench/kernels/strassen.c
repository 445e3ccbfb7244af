/*
 * strassen.c — kernel: Strassen's matrix multiplication as textbooks
 * (CLRS 4.2) give it: split A and B into quadrants, form the ten sums
 * S1..S10, the seven products P1..P7 recursively, then combine; below
 * BASE the classic triple loop (i-k-j). Each level works in one malloc'ed
 * block, so the seven products write disjoint parts of one object, which
 * GCC's alias analysis cannot prove: the plugin parallelizes them when the
 * dependence check saw them independent (or named by id). The matrices
 * hold small integers, so every build
 * computes the exact same doubles. DP_PAR: P2..P7 in tasks, P1 inline,
 * taskwait, down to depth CUTOFF, serial below. DP_NAIVE: the same at every
 * level. Part of deepprof's bench. MIT licence.
 */
#include <math.h>
#include <string.h>

#include "kern.h"

#ifndef CUTOFF
#define CUTOFF 2
#endif
#define BASE 64

/* C = A B, all n x n, row-major, contiguous */
static void classic(const double *A, const double *B, double *C, int n)
{
	memset(C, 0, (size_t)n * n * sizeof(*C));
	for (int i = 0; i < n; i++)
		for (int k = 0; k < n; k++) {
			double a = A[i * n + k];

			for (int j = 0; j < n; j++)
				C[i * n + j] += a * B[k * n + j];
		}
}

/* Z = X + sign * Y (h x h) */
static void add(const double *X, const double *Y, double *Z, int h, double sign)
{
	for (int i = 0; i < h * h; i++)
		Z[i] = X[i] + sign * Y[i];
}

/* The quadrant (r, c) of the n x n M, copied into Q (h x h), and back. */
static void get_quad(const double *M, double *Q, int n, int r, int c)
{
	int h = n / 2;

	for (int i = 0; i < h; i++)
		memcpy(Q + i * h, M + (r * h + i) * n + c * h, (size_t)h * sizeof(*Q));
}

static void put_quad(double *M, const double *Q, int n, int r, int c)
{
	int h = n / 2;

	for (int i = 0; i < h; i++)
		memcpy(M + (r * h + i) * n + c * h, Q + i * h, (size_t)h * sizeof(*Q));
}

/* The block of the level (quadrants, sums, products, results): 29 h x h. */
#define BLOCKS 29

static void strassen(const double *A, const double *B, double *C, int n)
{
	int h = n / 2;
	size_t q = (size_t)h * h;
	double *w, *a11, *a12, *a21, *a22, *b11, *b12, *b21, *b22, *s[10], *p[7], *c[4];

	if (n <= BASE) {
		classic(A, B, C, n);
		return;
	}
	w = malloc(BLOCKS * q * sizeof(*w));
	if (!w) {
		fputs("strassen: out of memory\n", stderr);
		exit(1);
	}
	a11 = w, a12 = w + q, a21 = w + 2 * q, a22 = w + 3 * q;
	b11 = w + 4 * q, b12 = w + 5 * q, b21 = w + 6 * q, b22 = w + 7 * q;
	for (int i = 0; i < 10; i++)
		s[i] = w + (8 + i) * q;
	for (int i = 0; i < 7; i++)
		p[i] = w + (18 + i) * q;
	for (int i = 0; i < 4; i++)
		c[i] = w + (25 + i) * q;
	get_quad(A, a11, n, 0, 0), get_quad(A, a12, n, 0, 1);
	get_quad(A, a21, n, 1, 0), get_quad(A, a22, n, 1, 1);
	get_quad(B, b11, n, 0, 0), get_quad(B, b12, n, 0, 1);
	get_quad(B, b21, n, 1, 0), get_quad(B, b22, n, 1, 1);
	add(b12, b22, s[0], h, -1);     /* S1 = B12 - B22 */
	add(a11, a12, s[1], h, 1);      /* S2 = A11 + A12 */
	add(a21, a22, s[2], h, 1);      /* S3 = A21 + A22 */
	add(b21, b11, s[3], h, -1);     /* S4 = B21 - B11 */
	add(a11, a22, s[4], h, 1);      /* S5 = A11 + A22 */
	add(b11, b22, s[5], h, 1);      /* S6 = B11 + B22 */
	add(a12, a22, s[6], h, -1);     /* S7 = A12 - A22 */
	add(b21, b22, s[7], h, 1);      /* S8 = B21 + B22 */
	add(a11, a21, s[8], h, -1);     /* S9 = A11 - A21 */
	add(b11, b12, s[9], h, 1);      /* S10 = B11 + B12 */
	strassen(a11, s[0], p[0], h);   /* P1 = A11 S1 */
	strassen(s[1], b22, p[1], h);   /* P2 = S2 B22 */
	strassen(s[2], b11, p[2], h);   /* P3 = S3 B11 */
	strassen(a22, s[3], p[3], h);   /* P4 = A22 S4 */
	strassen(s[4], s[5], p[4], h);  /* P5 = S5 S6 */
	strassen(s[6], s[7], p[5], h);  /* P6 = S7 S8 */
	strassen(s[8], s[9], p[6], h);  /* P7 = S9 S10 */
	add(p[4], p[3], c[0], h, 1);    /* C11 = P5 + P4 - P2 + P6 */
	add(c[0], p[1], c[0], h, -1);
	add(c[0], p[5], c[0], h, 1);
	add(p[0], p[1], c[1], h, 1);    /* C12 = P1 + P2 */
	add(p[2], p[3], c[2], h, 1);    /* C21 = P3 + P4 */
	add(p[4], p[0], c[3], h, 1);    /* C22 = P5 + P1 - P3 - P7 */
	add(c[3], p[2], c[3], h, -1);
	add(c[3], p[6], c[3], h, -1);
	put_quad(C, c[0], n, 0, 0), put_quad(C, c[1], n, 0, 1);
	put_quad(C, c[2], n, 1, 0), put_quad(C, c[3], n, 1, 1);
	free(w);
}

#if defined(DP_PAR) || defined(DP_NAIVE)
static void strassen_par(const double *A, const double *B, double *C, int n, int depth)
{
	int h = n / 2;
	size_t q = (size_t)h * h;
	double *w, *a11, *a12, *a21, *a22, *b11, *b12, *b21, *b22, *s[10], *p[7], *c[4];

#ifdef DP_PAR
	if (depth >= CUTOFF) {
		strassen(A, B, C, n);
		return;
	}
#endif
	if (n <= BASE) {
		strassen(A, B, C, n);
		return;
	}
	w = malloc(BLOCKS * q * sizeof(*w));
	if (!w) {
		fputs("strassen: out of memory\n", stderr);
		exit(1);
	}
	a11 = w, a12 = w + q, a21 = w + 2 * q, a22 = w + 3 * q;
	b11 = w + 4 * q, b12 = w + 5 * q, b21 = w + 6 * q, b22 = w + 7 * q;
	for (int i = 0; i < 10; i++)
		s[i] = w + (8 + i) * q;
	for (int i = 0; i < 7; i++)
		p[i] = w + (18 + i) * q;
	for (int i = 0; i < 4; i++)
		c[i] = w + (25 + i) * q;
	get_quad(A, a11, n, 0, 0), get_quad(A, a12, n, 0, 1);
	get_quad(A, a21, n, 1, 0), get_quad(A, a22, n, 1, 1);
	get_quad(B, b11, n, 0, 0), get_quad(B, b12, n, 0, 1);
	get_quad(B, b21, n, 1, 0), get_quad(B, b22, n, 1, 1);
	add(b12, b22, s[0], h, -1);
	add(a11, a12, s[1], h, 1);
	add(a21, a22, s[2], h, 1);
	add(b21, b11, s[3], h, -1);
	add(a11, a22, s[4], h, 1);
	add(b11, b22, s[5], h, 1);
	add(a12, a22, s[6], h, -1);
	add(b21, b22, s[7], h, 1);
	add(a11, a21, s[8], h, -1);
	add(b11, b12, s[9], h, 1);
#pragma omp task
	strassen_par(s[1], b22, p[1], h, depth + 1);
#pragma omp task
	strassen_par(s[2], b11, p[2], h, depth + 1);
#pragma omp task
	strassen_par(a22, s[3], p[3], h, depth + 1);
#pragma omp task
	strassen_par(s[4], s[5], p[4], h, depth + 1);
#pragma omp task
	strassen_par(s[6], s[7], p[5], h, depth + 1);
#pragma omp task
	strassen_par(s[8], s[9], p[6], h, depth + 1);
	strassen_par(a11, s[0], p[0], h, depth + 1);
#pragma omp taskwait
	add(p[4], p[3], c[0], h, 1);
	add(c[0], p[1], c[0], h, -1);
	add(c[0], p[5], c[0], h, 1);
	add(p[0], p[1], c[1], h, 1);
	add(p[2], p[3], c[2], h, 1);
	add(p[4], p[0], c[3], h, 1);
	add(c[3], p[2], c[3], h, -1);
	add(c[3], p[6], c[3], h, -1);
	put_quad(C, c[0], n, 0, 0), put_quad(C, c[1], n, 0, 1);
	put_quad(C, c[2], n, 1, 0), put_quad(C, c[3], n, 1, 1);
	free(w);
}
#endif

int main(int argc, char **argv)
{
	/* each doubling of n costs ~7x: scale s adds log(s)/log(7) doublings */
	int k = 4 + (int)lround(log(kern_scale(argc, argv)) / log(7.0));
	int n = BASE << (k < 1 ? 1 : k);
	double *A = malloc((size_t)n * n * sizeof(*A)), *B = malloc((size_t)n * n * sizeof(*B));
	double *C = malloc((size_t)n * n * sizeof(*C)), trace = 0, sum = 0;
	unsigned long x = 777;

	if (!A || !B || !C) {
		fputs("strassen: out of memory\n", stderr);
		return 1;
	}
	for (long i = 0; i < (long)n * n; i++) {
		A[i] = (double)((long)(kern_next(&x) % 5) - 2);
		B[i] = (double)((long)(kern_next(&x) % 5) - 2);
	}
#if defined(DP_PAR) || defined(DP_NAIVE)
#pragma omp parallel
#pragma omp single
	strassen_par(A, B, C, n, 0);
#else
	strassen(A, B, C, n);
#endif
	for (int i = 0; i < n; i++)
		trace += C[i * n + i];
	for (long i = 0; i < (long)n * n; i += 7)
		sum += C[i] * (double)(i % 13);
	printf("strassen(%d): trace %.0f, checksum %.0f\n", n, trace, sum);
	free(A);
	free(B);
	free(C);
	return 0;
}
