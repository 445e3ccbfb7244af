/*
 * file_json.h — a feedback (struct dpf_feedback, feedback.h) as the JSON
 * document of a feedback file and back (schemas/feedback.md, the one spec:
 * schemas/feedback.schema.json). Part of deepprof's feedback library.
 * MIT licence.
 */
#ifndef DPF_FILE_JSON_H
#define DPF_FILE_JSON_H

#include <jansson.h>

#include "feedback.h"

/* The "format" of a feedback file's header. */
#define DPF_FEEDBACK_FORMAT "deepprof-feedback"
/* The oldest reader version that can read what this writer writes. */
#define DPF_FEEDBACK_MIN_VERSION 1

/*
 * The feedback file document of *fb: a new json_t the caller owns (free with
 * json_decref). Every cost stays in the basis's unit; integers are JSON
 * integers, costs and times JSON reals. Returns NULL with one line in *err
 * when out of memory or when a real is not finite (naming the field).
 */
json_t *dpf_feedback_to_json(const struct dpf_feedback *fb, struct dpa_error *err);

/*
 * Read a feedback file's document into *fb (the caller's, uninitialised;
 * everything it gets lives in fb's arena: release with
 * dpf_feedback_release() whatever this returns). `path` names the file in
 * messages. Rejects a document that is not a feedback file (its "format"),
 * whose "min_version" is newer than DPF_FEEDBACK_VERSION, or that lacks a
 * field or has one of the wrong type: -1 with one line in *err,
 * "<path>: feedback: <where>: <what>". The doc is not modified.
 */
int dpf_feedback_from_json(struct dpf_feedback *fb, const json_t *doc, const char *path,
			   struct dpa_error *err);

/*
 * The JSON document of the feedback file `path` (file_read.c), whichever
 * its encoding (feedback_file.h says how it is told): a new json_t the
 * caller owns, not yet checked to be a feedback (dpf_feedback_from_json()
 * does that). NULL with one line in *err naming the file when it cannot be
 * read or is not JSON or MessagePack. dpf_feedback_read_file() is this and
 * dpf_feedback_from_json().
 */
json_t *dpf_feedback_load_doc(const char *path, struct dpa_error *err);

#endif
