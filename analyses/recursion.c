/*
 * recursion.c — recursion types of cliques from their call counts (see
 * recursion.h): what the report says about a clique's recursion.
 * Part of deepprof's analyses library. MIT licence.
 */
#include <math.h>
#include <stdbool.h>

#include "recursion.h"

static const char *const type_names[DPA_REC_NTYPES] = {
	"none", "simple", "mutual", "divide_and_conquer", "other",
};

const char *dpa_rec_type_name(enum dpa_rec_type t)
{
	return (unsigned)t < DPA_REC_NTYPES ? type_names[t] : "?";
}

/* Is css already among the first n entries of seen? (Recursive sites per
 * clique are few: a linear scan is cheapest.) */
static bool seen_css(const uint32_t *seen, uint32_t n, uint32_t css)
{
	for (uint32_t i = 0; i < n; i++)
		if (seen[i] == css)
			return true;
	return false;
}

/* Clique c's type by its recursive call sites and its counts and per-level
 * costs for measure m (recursion.h). */
void dpa_recursion_of(const struct dpa_deep *d, uint32_t c, enum dpa_measure m,
		      struct dpa_recursion *out)
{
	const struct dpa_profile *p = d->p;
	const struct dpa_cliques *cl = &d->cl;
	const uint32_t *mem, *ent;
	uint32_t n_mem, n_ent, seen[4], n_seen = 0;
	uint64_t own;

	*out = (struct dpa_recursion){ 0 };
	mem = dpa_clique_members(cl, c, &n_mem);
	out->members = n_mem;
	ent = dpa_clique_entries(cl, c, &n_ent);
	for (uint32_t i = 0; i < n_ent; i++)
		out->entry_calls += dpa_own(p, ent[i], DPA_CALLS);
	for (uint32_t i = 0; i < n_mem; i++) {
		const struct dpa_pd *pd = &p->pd[mem[i]];

		for (uint32_t k = 0; k < dpa_pd_out_n(pd); k++) {
			uint32_t x = dpa_out_csd(p, pd->out_first + k);

			if (dpa_clique_of(cl, p->csd[x].callee_pd) != c)
				continue;
			out->internal_calls += dpa_own(p, x, DPA_CALLS);
			if (!seen_css(seen, n_seen, p->csd[x].css)) {
				if (n_seen < 4)
					seen[n_seen++] = p->csd[x].css;
				out->rec_sites++;
			}
		}
	}
	if (n_mem >= 2)
		out->type = DPA_REC_MUTUAL;
	else if (out->rec_sites == 0)
		out->type = DPA_REC_NONE;
	else if (out->rec_sites == 1)
		out->type = DPA_REC_SIMPLE;
	else if (out->rec_sites == 2)
		out->type = DPA_REC_DIVIDE;
	else
		out->type = DPA_REC_OTHER;
	/* rec_sites stops counting exactly past 4 distinct sites: more than
	 * enough to tell the types apart. */
	own = dpa_deep_clique_own(d, c, m);
	if (out->entry_calls == 0)
		return;
	double acts = (double)out->entry_calls + (double)out->internal_calls;
	out->calls_per_entry = acts / (double)out->entry_calls;
	out->depth = out->type == DPA_REC_DIVIDE ? log2(out->calls_per_entry + 1.0)
						   : out->calls_per_entry;
	out->own_per_call = (double)own / acts;
	out->per_level = (double)own / ((double)out->entry_calls * out->depth);
}
