/*
 * fuzz_feedback.c — libFuzzer harness for the feedback-file readers: each
 * input is parsed as JSON and as MessagePack (feedback/file_msgpack.c); what
 * parses is read with dpf_feedback_from_json(); what is read is written
 * again, and writing then reading that must give the same document (and the
 * same through MessagePack). Built by `make fuzz-feedback` with clang (not
 * part of check): BUILD/bin/fuzz-feedback CORPUS_DIR. Part of deepprof's
 * tests. MIT licence.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "file_msgpack.h"
#include "file_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read doc; when it is a feedback, written and read again is a fixed point. */
static void read_write_read(const json_t *doc)
{
	struct dpf_feedback fb, fb2;
	struct dpa_error err;
	json_t *d2, *d3, *d4;
	char *buf, msg[200];
	size_t len;

	if (dpf_feedback_from_json(&fb, doc, "fuzz", &err) < 0) {
		if (strchr(err.msg, '\n'))
			abort();
		dpf_feedback_release(&fb);
		return;
	}
	d2 = dpf_feedback_to_json(&fb, &err);
	if (!d2)
		abort();        /* whatever the reader accepts can be written */
	if (dpf_feedback_from_json(&fb2, d2, "fuzz", &err) < 0)
		abort();
	d3 = dpf_feedback_to_json(&fb2, &err);
	if (!d3 || !json_equal(d2, d3))
		abort();
	if (dpf_msgpack_from_json(d3, &buf, &len) < 0)
		abort();
	d4 = dpf_msgpack_to_json(buf, len, msg, sizeof(msg));
	if (!d4 || !json_equal(d3, d4))
		abort();
	free(buf);
	json_decref(d2);
	json_decref(d3);
	json_decref(d4);
	dpf_feedback_release(&fb);
	dpf_feedback_release(&fb2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	json_t *doc;
	char msg[200];

	doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
	if (doc) {
		read_write_read(doc);
		json_decref(doc);
	}
	doc = dpf_msgpack_to_json((const char *)data, size, msg, sizeof(msg));
	if (doc) {
		read_write_read(doc);
		json_decref(doc);
	} else if (!msg[0] || strchr(msg, '\n')) {
		abort();        /* a refusal always says why, on one line */
	}
	return 0;
}
