/*
 * file_json.h — a feedback (struct dpa_feedback, feedback.h) as the JSON
 * document of a feedback file and back (schemas/feedback.md, the one spec:
 * schemas/feedback.schema.json). Part of deepprof's feedback library.
 * MIT licence.
 */
#ifndef DPA_FEEDBACK_IO_H
#define DPA_FEEDBACK_IO_H

#include <jansson.h>

#include "feedback.h"

/* The "format" of a feedback file's header. */
#define DPA_FEEDBACK_FORMAT "deepprof-feedback"
/* The oldest reader version that can read what this writer writes. */
#define DPA_FEEDBACK_MIN_VERSION 1

/*
 * The feedback file document of *fb: a new json_t the caller owns (free with
 * json_decref). Every cost stays in the basis's unit; integers are JSON
 * integers, costs and times JSON reals. Returns NULL with one line in *err
 * when out of memory or when a real is not finite (naming the field).
 */
json_t *dpa_feedback_to_json(const struct dpa_feedback *fb, struct dpa_error *err);

/*
 * Read a feedback file's document into *fb (the caller's, uninitialised;
 * everything it gets lives in fb's arena: release with
 * dpa_feedback_release() whatever this returns). `path` names the file in
 * messages. Rejects a document that is not a feedback file (its "format"),
 * whose "min_version" is newer than DPA_FEEDBACK_VERSION, or that lacks a
 * field or has one of the wrong type: -1 with one line in *err,
 * "<path>: feedback: <where>: <what>". The doc is not modified.
 */
int dpa_feedback_from_json(struct dpa_feedback *fb, const json_t *doc, const char *path,
			   struct dpa_error *err);

/* A candidate by its id, or NULL. */
const struct dpa_fb_candidate *dpa_feedback_candidate(const struct dpa_feedback *fb, uint32_t id);

#endif
