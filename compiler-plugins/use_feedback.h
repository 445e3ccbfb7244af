/*
 * use_feedback.h — what the plugin's use build (use.cc) reads of a feedback
 * file, as plain C structures: use_feedback.c fills them through the
 * feedback library's one reader (the same code as `deepprof feedback
 * --to-json`), so the plugin, which GCC's headers make C++, never includes
 * the library's own headers. Strings and arrays live as long as the
 * feedback (dpu_release). Part of deepprof's compiler plugins. MIT licence.
 */
#ifndef DP_USE_FEEDBACK_H
#define DP_USE_FEEDBACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A place (schemas/feedback.md, "Places"). */
struct dpu_place {
	const char *fn, *file;
	unsigned line, col;
	int has_site;
	uint64_t tu;
	unsigned site;
	uint64_t checksum;      /* 0: unknown */
};

enum dpu_temp { DPU_HOT, DPU_RARE, DPU_NEVER };

/* Hot and cold code: a procedure (proc) or a call site. */
struct dpu_hot {
	int proc;
	int temp;               /* enum dpu_temp */
	struct dpu_place at;
	const char *callee;     /* a site's, or NULL */
	uint64_t calls;
	uint64_t outer_calls;   /* the calls mean is over: a recursive procedure's
	                           calls from outside its recursion */
	double mean;            /* total cost per (outer) call, in the basis's unit */
};

struct dpu_call {
	struct dpu_place at;
	const char *callee;
	double cost;
	unsigned task;          /* in the best partition, 0-based */
};

struct dpu_dep {
	unsigned from, to;      /* indexes in calls */
	const char *var;
	double produced, consumed;
	int known;
};

/* A parallelism candidate. */
struct dpu_cand {
	unsigned id;
	struct dpu_place proc;
	unsigned n_calls;
	struct dpu_call *calls;
	unsigned n_tasks;
	unsigned n_deps;
	struct dpu_dep *deps;
	int safe;               /* the feedback's safety verdict */
	int checked;            /* a dependence check saw no conflict (not proved) */
	int conflict;           /* a dependence check saw a conflict: never parallel */
	unsigned check_inputs;  /* inputs the check ran on */
	unsigned n_reach;       /* the procedures that ran beneath the calls */
	const char **reach;
	int reach_all;          /* too many to list: every one */
	const char *safety_why;
	int accepted;
	int too_cheap;          /* verdict too_cheap: never worth a task */
	const char *verdict_why;
	double speedup, program_speedup;
	/* a loop candidate: its one call's iterations are the tasks */
	unsigned loop_line;     /* 0: the calls of one stretch of code */
	double iterations;      /* per execution, mean */
	unsigned loop_cutoff;   /* a recursive call: spawn below this depth; 0: not */
};

/* A recursive clique: its cut-off for divide and conquer. */
struct dpu_rec {
	struct dpu_place at;
	const char *type;       /* the recursion type's name */
	unsigned cutoff_depth;  /* 0: never worth spawning */
	unsigned branching;
	const char *why;
};

struct dpu_feedback {
	const char *path;
	const char *program;
	unsigned n_inputs;      /* profiles behind the file */
	const char *basis;      /* "cscs" or "ticks" */
	unsigned n_hot;
	struct dpu_hot *hot;
	unsigned n_cand;
	struct dpu_cand *cand;
	unsigned n_rec;
	struct dpu_rec *rec;
	void *priv;             /* the library's feedback and this copy's memory */
};

/* Read the feedback file at path (JSON or MessagePack, told apart by its
 * content) into *out. -1 with one line in err ("<path>: ...") when it
 * cannot: missing, empty, truncated, corrupt, another format or too new. */
int dpu_read(struct dpu_feedback *out, const char *path, char *err, size_t errlen);
void dpu_release(struct dpu_feedback *fb);

#ifdef __cplusplus
}
#endif

#endif
