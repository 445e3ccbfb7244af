/*
 * autopar.h — parallelism candidates (autopar.c), the last analysis
 * analyse.c runs. Private to the feedback library. Part of deepprof's
 * feedback library. MIT licence.
 */
#ifndef DPF_AUTOPAR_H
#define DPF_AUTOPAR_H

#include "context.h"

/* Find the candidates (and the var-use timings of their costly calls) and
 * fill fb->cand / fb->var_use. Returns 0 or -1. */
int dpf_autopar(struct dpf_ctx *c);

#endif
