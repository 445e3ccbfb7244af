# tests/record — check-record: `deepprof record` samples unmodified programs
# of known structure (tests/record/s-*.c built with plain gcc): contexts,
# recursion folding, 3:1 shares within a tolerance (and against the
# instrumented profile), threads, fork, exec, SIGTERM/SIGINT, a program that
# takes SIGPROF, reports that say "sampled", bad input (run.py).
# Scratch: $(BUILD)/record. Part of deepprof's tests. MIT licence.

.PHONY: check-record
check-record: $(DP_CLI) $(LIBPROF_REC_SO) $(LIBPROF_A)
	$(PYTHON) tests/record/run.py --build $(BUILD) --cflags "$(SAN_PROF)"

CHECKS += check-record
