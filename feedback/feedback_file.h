/*
 * feedback_file.h — reading a feedback file (schemas/feedback.md), JSON or
 * MessagePack, into the model of feedback.h: the one reader, shared by the
 * deepprof command and the GCC plugin that applies the feedback. The
 * public header for those who only read feedback files; C and C++.
 * Link libdpfb.a, libdpa.a and `pkg-config --libs jansson msgpack
 * libdeflate` (feedback/README.md, "Linking").
 * Part of deepprof's feedback library. MIT licence.
 */
#ifndef DPF_FEEDBACK_FILE_H
#define DPF_FEEDBACK_FILE_H

#include "feedback.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Read the feedback file `path` into *fb (the caller's, uninitialised;
 * everything it gets lives in fb's arena: release it with
 * dpf_feedback_release() whatever this returns).
 *
 * The encoding is told by the content, not the name: a file whose first
 * byte after JSON white space is '{' is JSON, one that starts with a
 * MessagePack map is MessagePack. Anything else (an empty file, a file cut
 * or corrupted at its first byte) is reported in the terms of the encoding
 * its name claims: MessagePack for a name ending in ".msgpack", else JSON.
 *
 * Returns 0, or -1 with one line in *err that names the file and says what
 * is wrong: it cannot be read (missing, unreadable), it is empty, truncated
 * or corrupt (not JSON, not MessagePack), it is not a feedback file, it
 * lacks a field or has one of the wrong type, or its min_version is newer
 * than DPF_FEEDBACK_VERSION. Control characters in the line are replaced
 * by '?'.
 */
int dpf_feedback_read_file(struct dpf_feedback *fb, const char *path, struct dpa_error *err);

#ifdef __cplusplus
}
#endif

#endif
