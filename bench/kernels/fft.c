/*
 * fft.c — kernel: recursive radix-2 decimation-in-time FFT, out of place
 * (the even and odd samples read with a doubled stride, their transforms
 * written to the two halves of out, then the butterflies), twiddles from a
 * table computed once. The two recursive calls write the two halves of
 * one array, which GCC's alias analysis cannot prove disjoint: the plugin
 * parallelizes them when the dependence check saw them independent (or
 * named by id). Every build does the
 * same operations on each element in the same order, so the output is
 * bit for bit the same. DP_PAR: the odd half in a task, the even inline,
 * taskwait, down to depth CUTOFF, serial below. DP_NAIVE: the same at
 * every level. Part of deepprof's bench. MIT licence.
 */
#include <math.h>

#include "kern.h"

#ifndef CUTOFF
#define CUTOFF 6
#endif

struct cpx {
	double re, im;
};

static struct cpx *twiddle;     /* twiddle[k] = exp(-2 pi i k / N), k < N/2 */
static long N;

/* out[0..n) = the DFT of in[0], in[stride], ... (n a power of 2) */
static void fft(const struct cpx *in, struct cpx *out, long n, long stride)
{
	long h = n / 2;

	if (n == 1) {
		out[0] = in[0];
		return;
	}
	fft(in, out, h, 2 * stride);
	fft(in + stride, out + h, h, 2 * stride);
	for (long k = 0; k < h; k++) {
		struct cpx w = twiddle[k * (N / n)], e = out[k], o = out[k + h], t;

		t.re = w.re * o.re - w.im * o.im;
		t.im = w.re * o.im + w.im * o.re;
		out[k].re = e.re + t.re;
		out[k].im = e.im + t.im;
		out[k + h].re = e.re - t.re;
		out[k + h].im = e.im - t.im;
	}
}

#if defined(DP_PAR) || defined(DP_NAIVE)
static void butterflies(struct cpx *out, long n)
{
	long h = n / 2;

	for (long k = 0; k < h; k++) {
		struct cpx w = twiddle[k * (N / n)], e = out[k], o = out[k + h], t;

		t.re = w.re * o.re - w.im * o.im;
		t.im = w.re * o.im + w.im * o.re;
		out[k].re = e.re + t.re;
		out[k].im = e.im + t.im;
		out[k + h].re = e.re - t.re;
		out[k + h].im = e.im - t.im;
	}
}

static void fft_par(const struct cpx *in, struct cpx *out, long n, long stride, int depth)
{
	long h = n / 2;

#ifdef DP_PAR
	if (depth >= CUTOFF) {
		fft(in, out, n, stride);
		return;
	}
#endif
	if (n == 1) {
		fft(in, out, n, stride);
		return;
	}
#pragma omp task
	fft_par(in + stride, out + h, h, 2 * stride, depth + 1);
	fft_par(in, out, h, 2 * stride, depth + 1);
#pragma omp taskwait
	butterflies(out, n);
}
#endif

int main(int argc, char **argv)
{
	/* n log n: scale s multiplies n by about s */
	int lg = 22 + (int)lround(log2(kern_scale(argc, argv)));
	struct cpx *in, *out;
	double re = 0, im = 0;
	unsigned long x = 99;

	if (lg < 4)
		lg = 4;
	N = 1L << lg;
	in = malloc((size_t)N * sizeof(*in));
	out = malloc((size_t)N * sizeof(*out));
	twiddle = malloc((size_t)(N / 2) * sizeof(*twiddle));
	if (!in || !out || !twiddle) {
		fputs("fft: out of memory\n", stderr);
		return 1;
	}
	for (long k = 0; k < N / 2; k++) {
		twiddle[k].re = cos(-2 * M_PI * (double)k / (double)N);
		twiddle[k].im = sin(-2 * M_PI * (double)k / (double)N);
	}
	for (long i = 0; i < N; i++) {
		in[i].re = (double)(kern_next(&x) % 1000) / 1000.0;
		in[i].im = 0;
	}
#if defined(DP_PAR) || defined(DP_NAIVE)
#pragma omp parallel
#pragma omp single
	fft_par(in, out, N, 1, 0);
#else
	fft(in, out, N, 1);
#endif
	for (long i = 0; i < N; i += 3) {
		re += out[i].re * (double)(i % 7);
		im += out[i].im * (double)(i % 5);
	}
	printf("fft(2^%d): %.6e %.6e, X[1] = %.9f %.9f\n", lg, re, im, out[1].re, out[1].im);
	free(in);
	free(out);
	free(twiddle);
	return 0;
}
