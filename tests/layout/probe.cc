// probe.cc — a stand-in for the GCC plugin that applies feedback: C++, a
// shared object, linked statically with libdpfb.a and libdpa.a, reading a
// feedback file through feedback/feedback_file.h. check-layout (run.py)
// loads it and calls probe(). Part of deepprof's tests. MIT licence.
#include <cstdio>

#include "feedback_file.h"

// The number of candidates in the feedback file `path`, or -1 with the
// error line in msg.
extern "C" int probe(const char *path, char *msg, size_t n);

extern "C" int probe(const char *path, char *msg, size_t n)
{
	struct dpf_feedback fb;
	struct dpa_error err;
	int rc = dpf_feedback_read_file(&fb, path, &err);

	std::snprintf(msg, n, "%s", rc < 0 ? err.msg : "");
	rc = rc < 0 ? -1 : (int)fb.n_cand;
	dpf_feedback_release(&fb);
	return rc;
}
