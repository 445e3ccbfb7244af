# tests/fbbatch — check-fbbatch: `deepprof batch` (run.py): a suite of
# programs of known structure (tests/feedback's fb-pair with three inputs,
# bench/accuracy's indep2 and nooverlap, built with deepprof-cc) and
# hand-made feedback files of exact speedups, as a directory and as a
# manifest: the feedback files (feedback's own), summary.txt and
# summary.json exactly, --format, --jobs and the progress bar, --emit=make
# and ninja (their builds give the same files), bad inputs (exit 2, one
# line naming the file). Scratch: $(BUILD)/tests/fbbatch.
# Part of deepprof's tests. MIT licence.

.PHONY: check-fbbatch
check-fbbatch: $(DP_CLI) $(UNIT_BIN) $(PLUGIN_SO) $(PLUGIN_LINK) $(DEEPPROF_CC) $(LIBPROF_A)
	DP_TEST_CFLAGS="$(SAN_PROF)" $(PYTHON) tests/fbbatch/run.py $(BUILD)

CHECKS += check-fbbatch
