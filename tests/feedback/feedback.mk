# tests/feedback — check-feedback: `deepprof feedback` and feedback files
# (run.py): the unit suite feedback_io's documents, combining feedback files
# of known speedups, JSON = MessagePack (types too), --to-json, --explain,
# --separate, --jobs, fb-pair.c end to end with deepprof-cc, bad inputs and
# options (exit 2, one line). Every JSON written is validated against
# schemas/feedback.schema.json. Scratch: $(BUILD)/tests/feedback.
# Part of deepprof's tests. MIT licence.

.PHONY: check-feedback
check-feedback: $(DP_CLI) $(UNIT_BIN) $(PLUGIN_SO) $(PLUGIN_LINK) $(DEEPPROF_CC) $(LIBPROF_A)
	CC="$(CC)" DP_TEST_CFLAGS="$(SAN_PROF)" $(PYTHON) tests/feedback/run.py $(BUILD)

CHECKS += check-feedback
