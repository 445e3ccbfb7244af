/*
 * var_use.h — variable-use timing (var_use.c): whether a call writes
 * through an argument, when it consumes or produces one, and the list of
 * timings of costly calls that autopar.c asks for. Private to the feedback
 * library. Part of deepprof's feedback library. MIT licence.
 */
#ifndef DPF_VAR_USE_H
#define DPF_VAR_USE_H

#include "context.h"

/* Does a call to f write through its parameter `param`? */
enum dpf_write { DPF_WRITES_NOT, DPF_WRITES, DPF_WRITES_MAYBE };
enum dpf_write dpf_writes_param(const struct dpf_ctx *c, const struct dpf_fn *f, uint32_t param,
				unsigned depth);

/* Does call record `call` of f write through its argument k? NOT for a
 * non-pointer argument or a const/pure callee; MAYBE when the callee's
 * stores are not known. */
enum dpf_write dpf_call_writes_arg(const struct dpf_ctx *c, const struct dpf_fn *f,
				   const struct dpa_pr_call *call, uint32_t k, unsigned depth);

/*
 * When a call to f (merged over its contexts) first consumes parameter
 * `param` (use DPF_CONSUMED) or last produces the object it points to
 * (DPF_PRODUCED), as a fraction of the call's cost in [0, 1]. Returns
 * whether it is known; *why says how, or why not (a static string).
 * Unknown: consumed at 0, produced at 1.
 */
bool dpf_use_fraction(const struct dpf_ctx *c, const struct dpf_fn *f, uint32_t param,
		      enum dpf_use use, unsigned depth, double *fraction, const char **why);

/*
 * Add the variable-use timings of a costly call (call record `call` of f,
 * css `css`, mean cost `cost` units) to fb->var_use, unless that css is
 * already there: the return value's production, each written pointer
 * argument's, each argument's consumption. Returns 0 or -1 (out of memory).
 */
int dpf_var_use_add(struct dpf_ctx *c, const struct dpf_fn *f, const struct dpa_pr_call *call,
		    uint32_t css, double cost);

/* Copy the timings found into fb->var_use, in the order found. 0 or -1. */
int dpf_var_use_finish(struct dpf_ctx *c);

#endif
