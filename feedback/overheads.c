/*
 * overheads.c — dpf_overheads_read(): the calibration file `deepprof
 * calibrate` writes (schemas/calibration.md), read into the six overheads
 * of struct dpf_overheads. Part of deepprof's feedback library. MIT licence.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "feedback.h"

#define CALIBRATION_FORMAT "deepprof-calibration"
#define CALIBRATION_VERSION 1   /* the newest this reader knows */

/*
 * Read path's calibration into *ov, which is left untouched on failure.
 * Every overhead must be there as {"ns": finite number >= 0, ...}.
 */
int dpf_overheads_read(struct dpf_overheads *ov, const char *path, struct dpa_error *err)
{
	static const char *const names[] = { "spawn_cost", "spawn_delay", "barrier_cost",
					     "signal_cost", "wait_cost", "wakeup_delay" };
	double v[6];
	json_error_t je;
	json_t *doc, *fmt, *ver, *ovs;
	int rc = -1;

	errno = 0;
	doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		if (json_error_code(&je) == json_error_cannot_open_file)
			return dpa_fail_at(err, path, "cannot read the calibration file: %s",
					strerror(errno ? errno : EIO));
		return dpa_fail_at(err, path, "not a calibration file: not JSON (line %d: %s)",
				je.line, je.text);
	}
	fmt = json_is_object(doc) ? json_object_get(doc, "format") : NULL;
	if (!json_is_string(fmt) || strcmp(json_string_value(fmt), CALIBRATION_FORMAT)) {
		dpa_fail_at(err, path, "not a calibration file (no \"format\": \"%s\"; "
			 "`deepprof calibrate` writes one)", CALIBRATION_FORMAT);
		goto out;
	}
	ver = json_object_get(doc, "version");
	if (!json_is_integer(ver) || json_integer_value(ver) < 1) {
		dpa_fail_at(err, path, "calibration file without a valid \"version\"");
		goto out;
	}
	if (json_integer_value(ver) > CALIBRATION_VERSION) {
		dpa_fail_at(err, path, "calibration file version %lld is newer than this "
			 "deepprof reads (%d)", (long long)json_integer_value(ver),
			 CALIBRATION_VERSION);
		goto out;
	}
	ovs = json_object_get(doc, "overheads");
	if (!json_is_object(ovs)) {
		dpa_fail_at(err, path, "calibration file without \"overheads\"");
		goto out;
	}
	for (int i = 0; i < 6; i++) {
		json_t *o = json_object_get(ovs, names[i]);
		json_t *ns = json_is_object(o) ? json_object_get(o, "ns") : NULL;

		if (!o || !ns) {
			dpa_fail_at(err, path, "calibration file: overhead %s has no value in ns",
				 names[i]);
			goto out;
		}
		v[i] = json_number_value(ns);
		if (!json_is_number(ns) || !isfinite(v[i]) || v[i] < 0) {
			dpa_fail_at(err, path, "calibration file: overhead %s is not a finite "
				 "non-negative number of ns", names[i]);
			goto out;
		}
	}
	ov->spawn_cost = v[0];
	ov->spawn_delay = v[1];
	ov->barrier_cost = v[2];
	ov->signal_cost = v[3];
	ov->wait_cost = v[4];
	ov->wakeup_delay = v[5];
	snprintf(ov->source, sizeof(ov->source), "%s", path);
	rc = 0;
out:
	json_decref(doc);
	return rc;
}
