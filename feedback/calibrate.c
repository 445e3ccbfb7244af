/*
 * calibrate.c — `deepprof calibrate`'s measurements: libgomp's task spawn,
 * delay, taskwait, and the signal/wait of a shared value, timed in the code
 * shape feedback/feedback.h assumes. Built with -fopenmp.
 * Part of deepprof's feedback library. MIT licence.
 */
#include <dlfcn.h>
#include <limits.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calibrate.h"

/* ================================================================
 * Clocks, spins, medians
 * ================================================================ */

/* Nanoseconds of CLOCK_MONOTONIC (the same clock on every CPU). */
static inline double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* Spin until *flag is non-zero or `limit` ns have passed; true if it was
 * seen set. The consumer's wait of the assumed code shape is this spin. */
static bool spin_until(atomic_int *flag, double limit)
{
	double t0 = now_ns();
	unsigned n = 0;

	while (!atomic_load_explicit(flag, memory_order_acquire)) {
		cpu_relax();
		if (++n % 64 == 0 && now_ns() - t0 > limit)
			return false;
	}
	return true;
}

/* Spin for about `ns` nanoseconds (the inline group's work). */
static void spin_for(double ns)
{
	double t0 = now_ns();

	while (now_ns() - t0 < ns)
		cpu_relax();
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n) (reordered); 0 when n is 0. */
static double median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const char *dpf_ov_name(int i)
{
	static const char *const names[DPF_OV_N] = {
		"spawn_cost", "spawn_delay", "barrier_cost", "signal_cost", "wait_cost",
		"wakeup_delay",
	};

	return i >= 0 && i < DPF_OV_N ? names[i] : NULL;
}

/* What one now_ns() reading costs: the median gap between two readings. */
static double clock_cost(void)
{
	enum { N = 1001 };
	double d[N];

	for (int i = 0; i < N; i++) {
		double a = now_ns();

		d[i] = now_ns() - a;
	}
	return median(d, N);
}

/* ================================================================
 * One run
 * ================================================================ */

/* A shared value and its flag, on a cache line of their own (two lines
 * apart, so the adjacent-line prefetcher does not bring the next one). */
struct slot {
	_Alignas(128) atomic_int flag;
	long value;
};

enum { NSLOTS = 256 };
/* How long to wait for another thread to take a task before giving up on
 * the sample: 20 ms, 5 ms with --quick. Set by dpf_calibrate(). */
static double timeout_ns = 20e6;

/* When the current run must end (CLOCK_MONOTONIC ns): each measuring loop
 * stops at it after its first repetition. Written by dpf_calibrate() before
 * each run, read by the spawning thread only. */
static double run_end;

/* Past the current run's end, after at least one repetition? */
static bool out_of_time(unsigned r)
{
	return r > 0 && now_ns() > run_end;
}

/* Sample arrays of one run. */
struct samples {
	double *v[DPF_OV_N];
	size_t n[DPF_OV_N];
};

static void add(struct samples *s, int ov, double ns)
{
	s->v[ov][s->n[ov]++] = ns < 0 ? 0 : ns;
}

/*
 * Spawn, delay and taskwait: the spawning thread spawns one task (group 1),
 * runs its own group inline until the task has started and finished on the
 * other thread, then waits for it. Delays and the barrier count only when
 * another thread ran the task. What tasks share, they reach through a
 * pointer (a shared scalar may be copied in at the spawn).
 */
static void measure_spawn(struct samples *s, unsigned reps, double clk)
{
	struct {
		atomic_int started, done;
		double ts;
	} st;
	__typeof__(st) *p = &st;

	for (unsigned r = 0; r < reps && !out_of_time(r); r++) {
		double t0, t1, t2, t3;
		bool stolen;

		atomic_init(&p->started, 0);
		atomic_init(&p->done, 0);
		p->ts = 0;
		t0 = now_ns();
#pragma omp task default(none) firstprivate(p) shared(timeout_ns)
		{
			p->ts = now_ns();
			atomic_store_explicit(&p->started, 1, memory_order_release);
			atomic_store_explicit(&p->done, 1, memory_order_release);
		}
		t1 = now_ns();
		stolen = spin_until(&p->done, timeout_ns);
		if (stolen)
			spin_for(3000);   /* let the runtime finish the task's books */
		t2 = now_ns();
#pragma omp taskwait
		t3 = now_ns();
		add(s, DPF_OV_SPAWN_COST, t1 - t0 - clk);
		if (stolen) {
			add(s, DPF_OV_SPAWN_DELAY, p->ts - t0 - clk);
			add(s, DPF_OV_BARRIER_COST, t3 - t2 - clk);
		}
		spin_for(2000);
	}
}

/*
 * Signal and wait: a consumer task reads every slot (its cache holds their
 * lines), then the producer signals each (value store + release flag
 * store); then the consumer finds each already signalled (acquire load +
 * value load). Per slot: the batch's time over NSLOTS.
 */
static void measure_signal_wait(struct samples *s, unsigned reps, struct slot *slots, double clk)
{
	struct {
		atomic_int ready, go, seen;
		double tw;
		long sum;
		struct slot *slots;
		double clk;
	} st;
	__typeof__(st) *p = &st;

	p->slots = slots;
	p->clk = clk;
	for (unsigned r = 0; r < reps && !out_of_time(r); r++) {
		double t0, t1;

		atomic_init(&p->ready, 0);
		atomic_init(&p->go, 0);
		atomic_init(&p->seen, 0);
		p->tw = 0;
		p->sum = 0;
		for (int i = 0; i < NSLOTS; i++) {
			atomic_store_explicit(&slots[i].flag, 0, memory_order_relaxed);
			slots[i].value = 0;
		}
#pragma omp task default(none) firstprivate(p) shared(timeout_ns)
		{
			long acc = 0;

			for (int i = 0; i < NSLOTS; i++)
				acc += atomic_load_explicit(&p->slots[i].flag, memory_order_acquire);
			atomic_store_explicit(&p->ready, 1, memory_order_release);
			if (spin_until(&p->go, timeout_ns)) {
				double a = now_ns();

				for (int i = 0; i < NSLOTS; i++) {
					while (!atomic_load_explicit(&p->slots[i].flag,
								     memory_order_acquire))
						cpu_relax();
					acc += p->slots[i].value;
				}
				p->tw = now_ns() - a - p->clk;
				atomic_store_explicit(&p->seen, 1, memory_order_release);
			}
			p->sum = acc;
		}
		if (spin_until(&p->ready, timeout_ns)) {
			t0 = now_ns();
			for (int i = 0; i < NSLOTS; i++) {
				slots[i].value = i + 1;
				atomic_store_explicit(&slots[i].flag, 1, memory_order_release);
			}
			t1 = now_ns();
			add(s, DPF_OV_SIGNAL_COST, (t1 - t0 - clk) / NSLOTS);
		} else {
			/* nobody took the task: it runs at the taskwait; let it
			 * through without a measure */
			for (int i = 0; i < NSLOTS; i++)
				atomic_store_explicit(&slots[i].flag, 1, memory_order_release);
		}
		atomic_store_explicit(&p->go, 1, memory_order_release);
#pragma omp taskwait
		/* the consumer saw every value (1 + .. + NSLOTS): a real wait */
		if (atomic_load(&p->seen) && p->sum == (long)NSLOTS * (NSLOTS + 1) / 2)
			add(s, DPF_OV_WAIT_COST, p->tw / NSLOTS);
		spin_for(2000);
	}
}

/*
 * Wake-up: a consumer task is already spinning on the flag when the
 * producer signals; from the signal to the consumer running on.
 */
static void measure_wakeup(struct samples *s, unsigned reps, double clk)
{
	struct {
		atomic_int ready, flag, ok;
		double tseen;
		long value, got;
	} st;
	__typeof__(st) *p = &st;

	for (unsigned r = 0; r < reps && !out_of_time(r); r++) {
		double tsig = 0;
		bool waited;

		atomic_init(&p->ready, 0);
		atomic_init(&p->flag, 0);
		atomic_init(&p->ok, 0);
		p->tseen = 0;
		p->value = p->got = 0;
#pragma omp task default(none) firstprivate(p) shared(timeout_ns)
		{
			atomic_store_explicit(&p->ready, 1, memory_order_release);
			if (spin_until(&p->flag, timeout_ns)) {
				p->tseen = now_ns();
				p->got = p->value;
				atomic_store_explicit(&p->ok, 1, memory_order_release);
			}
		}
		waited = spin_until(&p->ready, timeout_ns);
		if (waited) {
			spin_for(3000);   /* the consumer is in its wait now */
			tsig = now_ns();
		}
		p->value = 42;
		atomic_store_explicit(&p->flag, 1, memory_order_release);
#pragma omp taskwait
		if (waited && atomic_load(&p->ok) && p->got == 42)
			add(s, DPF_OV_WAKEUP_DELAY, p->tseen - tsig - clk);
		spin_for(2000);
	}
}

/* ================================================================
 * The calibration
 * ================================================================ */

const char *dpf_libgomp_path(char *buf, size_t len)
{
	Dl_info info;
	char real[PATH_MAX];

	if (!dladdr((void *)omp_get_wtime, &info) || !info.dli_fname || !info.dli_fname[0])
		return NULL;
	if (!realpath(info.dli_fname, real))
		snprintf(real, sizeof(real), "%s", info.dli_fname);
	snprintf(buf, len, "%s", real);
	return buf;
}

int dpf_calibrate(struct dpf_calibration *c, unsigned runs, bool quick, char *err, size_t errlen)
{
	unsigned spawn_reps = quick ? 200 : 2000;
	unsigned batch_reps = quick ? 10 : 60;
	unsigned wake_reps = quick ? 100 : 600;
	unsigned reps[DPF_OV_N] = { spawn_reps, spawn_reps, spawn_reps, batch_reps, batch_reps,
				   wake_reps };
	double *run_med[DPF_OV_N] = { NULL };
	struct samples s = { { NULL }, { 0 } };
	unsigned nmed[DPF_OV_N] = { 0 };
	struct slot *slots = NULL;
	double *run_clk = NULL;         /* the clock's cost, run by run */
	double t_start = now_ns(), clk;
	int threads = omp_get_max_threads();
	int rc = -1;

	memset(c, 0, sizeof(*c));
	if (!runs)
		runs = 1;
	if (threads < 2)
		threads = 2;
	c->runs = runs;
	c->quick = quick;
	c->threads = threads;
	c->openmp = _OPENMP;
	run_clk = malloc(runs * sizeof(double));
	slots = aligned_alloc(_Alignof(struct slot), NSLOTS * sizeof(*slots));
	if (!slots || !run_clk)
		goto oom;
	for (int i = 0; i < DPF_OV_N; i++) {
		s.v[i] = malloc(reps[i] * sizeof(double));
		run_med[i] = malloc(runs * sizeof(double));
		if (!s.v[i] || !run_med[i])
			goto oom;
	}
	timeout_ns = quick ? 5e6 : 20e6;
	omp_set_dynamic(0);
	for (unsigned run = 0; run < runs; run++) {
		/* quick: the whole in 0.8 s; else 10 s a run at most (a machine
		 * too busy to give a second thread a task for long) */
		double budget = quick ? 0.8e9 / runs : 10e9;
		double t = now_ns();

		memset(s.n, 0, sizeof(s.n));
		/* the clock's cost in this run: read once at the start, a slow
		 * moment (a frequency step, a busy neighbour) was subtracted from
		 * every run, and a taskwait's ~40 ns came out as 0 */
		run_clk[run] = clk = clock_cost();
#pragma omp parallel num_threads(threads) default(none) \
	shared(s, slots, spawn_reps, batch_reps, wake_reps, clk, t, budget, run_end)
#pragma omp single
		{
			run_end = t + budget / 3;
			measure_spawn(&s, spawn_reps, clk);
			run_end = t + budget * 2 / 3;
			measure_signal_wait(&s, batch_reps, slots, clk);
			run_end = t + budget;
			measure_wakeup(&s, wake_reps, clk);
		}
		/* a run where no other thread took a task (the machine busy
		 * with other work) has no median for the delays: it is left out */
		for (int i = 0; i < DPF_OV_N; i++) {
			if (!s.n[i])
				continue;
			c->ov[i].samples += s.n[i];
			run_med[i][nmed[i]++] = median(s.v[i], s.n[i]);
		}
	}
	c->clock_ns = median(run_clk, runs);
	for (int i = 0; i < DPF_OV_N; i++) {
		if (!nmed[i]) {
			snprintf(err, errlen, "calibrate: no second thread ran a task within "
				 "%.0f ms in any run (one CPU, or a machine too busy?): cannot "
				 "measure %s", timeout_ns / 1e6, dpf_ov_name(i));
			goto out;
		}
		qsort(run_med[i], nmed[i], sizeof(double), cmp_double);
		c->ov[i].min = run_med[i][0];
		c->ov[i].max = run_med[i][nmed[i] - 1];
		c->ov[i].ns = median(run_med[i], nmed[i]);
	}
	c->seconds = (now_ns() - t_start) / 1e9;
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "calibrate: out of memory");
out:
	for (int i = 0; i < DPF_OV_N; i++) {
		free(s.v[i]);
		free(run_med[i]);
	}
	free(slots);
	free(run_clk);
	return rc;
}
