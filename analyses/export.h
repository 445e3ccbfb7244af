/*
 * export.h — a deep profile in other tools' formats: folded stacks
 * (flamegraph.pl, speedscope, inferno), callgrind (callgrind_annotate,
 * KCachegrind) and speedscope's JSON file format.
 * Part of deepprof's analyses library. MIT licence.
 */
#ifndef DPA_EXPORT_H
#define DPA_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"
#include "startup.h"

/*
 * The measures an export can weigh by. time is ticks × the profile's
 * ns_per_tick rounded to a whole number of nanoseconds (rounded once, so
 * that times add up exactly: the time of a sum is the sum of the times).
 */
enum dpa_xmeasure {
	DPA_XM_CALLS,
	DPA_XM_CSCS,
	DPA_XM_TICKS,
	DPA_XM_TIME,
	DPA_XM_ALLOCS,
	DPA_XM_BYTES,
	DPA_XM_N
};

/* "calls", "cscs", "ticks", "time", "allocs", "bytes"; parse: -1 if unknown. */
const char *dpa_xmeasure_name(enum dpa_xmeasure m);
int dpa_xmeasure_parse(const char *name);

/* The whole nanoseconds one tick stands for in *p: ns_per_tick rounded (0 if
 * the timer was off or the value is not a finite non-negative number). */
uint64_t dpa_export_ns_per_tick(const struct dpa_profile *p);

/*
 * Scale a value of measure `base` (calls, cscs, ticks, allocs, bytes) into
 * export measure m: the identity except time (ticks × ns per tick).
 * Returns 0, or -1 when the result overflows 64 bits.
 */
int dpa_xmeasure_scale(enum dpa_xmeasure m, uint64_t ns_per_tick, uint64_t v, uint64_t *out);

/* The profile measure an export measure is computed from (time: ticks). */
enum dpa_measure dpa_xmeasure_base(enum dpa_xmeasure m);

/*
 * The writers. Each reads *d (which must have totals for every measure:
 * dpa_deep_init) and writes one document to `out`. They return 0, or -1
 * with one line in *err (out of memory, a cost too large for 64 bits, a
 * write error on `out`). Names come from dpa_ps_name(): call
 * dpa_profile_symbolize() first to get function names instead of addresses.
 *
 * Folded stacks: one line "f1;f2;...;fn W" per distinct calling context
 * with a nonzero weight W in measure m; the lines' weights add up to the
 * profile's total of m (the sum of every csd's own cost). Every csd's own
 * cost is charged to one line: the stack of its caller's context followed by
 * its callee. A context's stack is the chain of calls from its thread's
 * root (which is not shown; the threads' stacks are merged) by which it was
 * entered: for a clique's entry context, its primary entry; for the other
 * members of a recursive clique, the shortest chain of calls inside the
 * clique from the entry context (first found, calls in csd id order). So a
 * recursive clique appears once, as its members, and the own cost of every
 * call back into the clique, at any depth, sits on one line ending in the
 * called member: `main;fib;fib` holds all of fib's recursive calls. Lines
 * are in depth-first order with siblings sorted by name (bytewise). In names
 * ';' becomes ':' and control characters become '?'.
 */
int dpa_export_folded(FILE *out, const struct dpa_deep *d, enum dpa_xmeasure m,
		      struct dpa_error *err);

/*
 * The callgrind format (version 1, positions: line), one function per ps
 * (ob= module path, fl= source file or "???", fn= name; names compressed:
 * "fn=(id) name" once, "fn=(id)" after, ids being ps ids). events: every
 * measure, `first` first. A function's self cost is its ps own cost;
 * summary: and totals: are the profile's totals (the sum of the self costs).
 * Each caller→callee arc has calls= equal to the calls of all csds between
 * the two procedures, and an inclusive cost: a procedure P's total (its ps
 * total, startup.h) is divided among the calls into P, so that the costs of
 * all calls into P add up to P's total exactly, as callgrind_annotate
 * --inclusive=yes and KCachegrind add them. Each outermost context of P
 * (startup.h: those whose cost is not already inside another context of P)
 * gives its total to its entry calls, or if it has none (a member of a
 * recursive clique other than the entry) to its calls from inside the
 * clique, in proportion to their calls; other calls carry 0. A recursive
 * call back to the procedure that entered the clique therefore costs 0, and
 * no cost is counted twice.
 */
int dpa_export_callgrind(FILE *out, const struct dpa_deep *d, enum dpa_xmeasure first,
			 struct dpa_error *err);

/*
 * speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * one "sampled" profile per thread, named "<program> thread <tid>", with a
 * sample per stack of the folded export (the same stacks and weights, per
 * thread) and shared frames (name, file, line) per distinct name.
 * Unit: "nanoseconds" for time, "bytes" for bytes, else "none".
 */
int dpa_export_speedscope(FILE *out, const struct dpa_deep *d, enum dpa_xmeasure m,
			  struct dpa_error *err);

/* ===================================================================== */
/* { ==== the stack tree, shared by the folded and speedscope writers ==== */

/*
 * Every distinct stack, as a tree of nodes. Node 0 is the empty stack (the
 * thread roots, merged); with per_thread, node t (1 <= t <= n_thread) is
 * thread t's root and its stacks hang below it. Other nodes are a frame
 * (a distinct procedure name) below their parent. order[] lists the nodes
 * depth first (node 0 first), siblings by frame name; depth[v] is the
 * number of frames on v's stack (thread nodes: 0).
 */
struct dpa_stacks {
	uint32_t n;                     /* nodes 0 .. n-1 */
	uint32_t n_thread;              /* thread nodes 1 .. n_thread, or 0 */
	uint32_t *parent, *frame;       /* [n] */
	uint64_t *weight;               /* [n]: the own cost charged to this stack */
	uint32_t *order, *depth;        /* [n] */
	uint32_t n_frames;
	const char **frame_name;        /* [n_frames] */
	uint32_t *frame_ps;             /* [n_frames]: the first ps of that name */
	uint64_t total;                 /* the sum of all weights */
	uint64_t *thread_total;         /* [n_thread+1] (per_thread only) */
};

/* Build the tree for measure m. Returns 0 or -1 with *err set; on failure
 * *s holds nothing to release. */
int dpa_stacks_init(struct dpa_stacks *s, const struct dpa_deep *d, enum dpa_xmeasure m,
		    bool per_thread, struct dpa_error *err);
void dpa_stacks_release(struct dpa_stacks *s);

/* } */

#endif
