# tests/fbprogs — check-fbprogs: `deepprof calibrate` (schema, sane values,
# bad options, unwritable output) and `deepprof feedback` on the accuracy
# programs of bench/accuracy (scaled down to ~50 ms) and a list walk, built
# with deepprof-cc: exact candidates, partitions, dependences, variable-use
# fractions and recursion types derived from the programs' structure
# (run.py). Part of deepprof's tests. MIT licence.

.PHONY: check-fbprogs
check-fbprogs: $(DP_CLI) $(PLUGIN_SO) $(PLUGIN_LINK) $(DEEPPROF_CC) $(LIBPROF_A)
	DP_TEST_CFLAGS="$(SAN_PROF)" $(PYTHON) tests/fbprogs/run.py $(BUILD)

CHECKS += check-fbprogs
