/*
 * pstotals.c — the reference the exports suite checks callgrind_annotate's
 * output against: every procedure's own and total costs as startup computes
 * them (analyses/startup.h), as one JSON document. Test helper, not part of
 * deepprof. Part of deepprof's tests. MIT licence.
 *
 *	pstotals FILE   →  {"ns_per_tick": N, "ps": [{"name", "file", "own": {...},
 *	                    "total": {...}}, ...]}   (measures as `deepprof export`)
 */
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "export.h"

static json_t *costs(const struct dpa_deep *d, uint32_t ps, bool total, uint64_t npt)
{
	json_t *o = json_object();

	for (int m = 0; m < DPA_XM_N; m++) {
		enum dpa_measure b = dpa_xmeasure_base(m);
		uint64_t v = total ? dpa_deep_ps_total(d, ps, b) : dpa_deep_ps_own(d, ps, b);

		if (m == DPA_XM_TIME)
			v *= npt;
		json_object_set_new(o, dpa_xmeasure_name(m), json_integer((json_int_t)v));
	}
	return o;
}

int main(int argc, char **argv)
{
	struct dpa_profile p;
	struct dpa_deep d;
	struct dpa_error err;
	json_t *doc, *arr;
	uint64_t npt;

	if (argc != 2) {
		fprintf(stderr, "usage: pstotals FILE\n");
		return 2;
	}
	if (dpa_profile_read(&p, argv[1], &err) < 0) {
		fprintf(stderr, "pstotals: %s\n", err.msg);
		return 2;
	}
	dpa_profile_symbolize(&p);
	if (dpa_deep_init(&d, &p, &err) < 0) {
		fprintf(stderr, "pstotals: %s\n", err.msg);
		return 2;
	}
	npt = dpa_export_ns_per_tick(&p);
	doc = json_object();
	arr = json_array();
	json_object_set_new(doc, "ns_per_tick", json_integer((json_int_t)npt));
	for (uint32_t ps = 1; ps <= p.n_ps; ps++) {
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(dpa_ps_name(&p, ps)));
		json_object_set_new(o, "file", p.ps[ps].file ? json_string(dpa_str(&p, p.ps[ps].file))
				    : json_null());
		json_object_set_new(o, "own", costs(&d, ps, false, npt));
		json_object_set_new(o, "total", costs(&d, ps, true, npt));
		json_array_append_new(arr, o);
	}
	json_object_set_new(doc, "ps", arr);
	json_dumpf(doc, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(doc);
	dpa_deep_release(&d);
	dpa_profile_release(&p);
	return 0;
}
