/*
 * calibrate.h — measuring libgomp's task overheads on this machine for the
 * code shape feedback/feedback.h documents (feedback/calibrate.c, built with
 * -fopenmp). Part of deepprof's feedback library. MIT licence.
 */
#ifndef DPF_CALIBRATE_H
#define DPF_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>

/* The six overheads, in struct dpf_overheads' order and spelling. */
enum dpf_ov { DPF_OV_SPAWN_COST, DPF_OV_SPAWN_DELAY, DPF_OV_BARRIER_COST, DPF_OV_SIGNAL_COST,
	     DPF_OV_WAIT_COST, DPF_OV_WAKEUP_DELAY, DPF_OV_N };

/* One overhead over the runs: ns is the median of the runs' medians, min and
 * max the smallest and largest run median; samples counts every sample. */
struct dpf_calib_stat {
	double ns, min, max;
	unsigned long samples;
};

struct dpf_calibration {
	struct dpf_calib_stat ov[DPF_OV_N];
	unsigned runs;          /* as asked */
	bool quick;
	int threads;            /* the OpenMP team the measures ran in */
	int openmp;             /* _OPENMP of the compiler that built it */
	double clock_ns;        /* what one clock reading costs (subtracted) */
	double seconds;         /* wall time of the whole measurement */
};

/* The name of overhead i ("spawn_cost" ...), NULL outside [0, DPF_OV_N). */
const char *dpf_ov_name(int i);

/* The file libgomp was loaded from (symlinks resolved, so the name shows its
 * version) into buf; NULL if it cannot be told. */
const char *dpf_libgomp_path(char *buf, size_t len);

/*
 * Measure every overhead `runs` times (quick: fewer repetitions per run, the
 * whole under a second) in an OpenMP team of at least two threads and fill
 * *c. Returns 0, or -1 with one line in err (no second thread ever ran a
 * task, so delays cannot be measured).
 */
int dpf_calibrate(struct dpf_calibration *c, unsigned runs, bool quick, char *err, size_t errlen);

#endif
