# tests/split — check-split: libprof's split of recursions measured on fib
# (φ : 1), a mergesort (1 : 1) and a 30000-deep recursion (sampled with a
# stride), built with deepprof-cc (ABI v2) and -finstrument-functions, and
# what `deepprof feedback` says of it (run.py). Scratch: $(BUILD)/split.
# Part of deepprof's tests. MIT licence.

.PHONY: check-split
check-split: $(DP_CLI) $(PLUGIN_SO) $(PLUGIN_LINK) $(DEEPPROF_CC) $(LIBPROF_A)
	DP_TEST_CFLAGS="$(SAN_PROF)" CC="$(CC)" $(PYTHON) tests/split/run.py $(BUILD)

CHECKS += check-split
