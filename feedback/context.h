/*
 * context.h — what the feedback analyses of one profile share (context.c):
 * the profile, its program representation, the measure and thresholds in
 * basis units, and the maps between progrep records and profile nodes.
 * analyse.c sets it up; var_use.c and autopar.c use it. Private to the
 * feedback library. Part of deepprof's feedback library. MIT licence.
 */
#ifndef DPF_CONTEXT_H
#define DPF_CONTEXT_H

#include "feedback.h"
#include "progrep.h"
#include "startup.h"

/* A function of the program representation: its module and record. */
struct dpf_fn {
	uint32_t mod;
	const struct dpa_pr_fn *fn;
	uint32_t ps;            /* the profile's ps, 0: none */
};

struct dpf_ctx {
	struct dpf_feedback *fb;
	const struct dpa_deep *d;
	const struct dpa_profile *p;
	const struct dpa_progreps *pr;  /* NULL: no program representation */
	struct dpa_error *err;
	enum dpa_measure m;     /* DPA_CSCS or DPA_TICKS */
	double call_thr, proc_thr;      /* basis units */
	double list_thr;        /* basis units over the whole run */
	struct dpf_overheads ov;             /* basis units */
	/* per module: fn index -> first slot in site_css / its ps */
	uint32_t **fn_base;     /* [n_module+1][n_fn] */
	uint32_t **fn_ps;       /* [n_module+1][n_fn] */
	uint32_t *site_css;     /* slot -> css, 0: never ran here */
	uint32_t *css_csd;      /* css -> its first csd, 0: none */
	uint32_t *rec_of_clique;        /* autopar.c: clique -> 1 + its index in
					 * fb->rec, 0: none */
	/* var_use.c: the timings found so far (copied into fb's arena at the
	 * end), and the css each belongs to */
	struct dpf_var_use *vu;
	uint32_t *vu_css;
	uint32_t n_vu, cap_vu;
};

/* Set up *c for fb over *d and *pr (may be NULL): the site -> css and
 * fn -> ps maps. Returns 0, or -1 (out of memory) with *err set. */
int dpf_ctx_init(struct dpf_ctx *c, struct dpf_feedback *fb, const struct dpa_deep *d,
		 const struct dpa_progreps *pr, struct dpa_error *err);
/* Free what *c owns (not the feedback). */
void dpf_ctx_release(struct dpf_ctx *c);

/* The css of site number `local` (0-based, in fn->calls) of f; 0: none. */
uint32_t dpf_site_css(const struct dpf_ctx *c, const struct dpf_fn *f, uint32_t local);
/* The function record of ps (f->fn NULL when it has none). */
struct dpf_fn dpf_fn_of_ps(const struct dpf_ctx *c, uint32_t ps);
/* The callee of call record `call` of f: through the css it ran as, else by
 * name in f's module. f->fn NULL when unknown. */
struct dpf_fn dpf_callee(const struct dpf_ctx *c, const struct dpf_fn *f, const struct dpa_pr_call *call);

#endif
