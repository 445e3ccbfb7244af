# tests/feedback — check-feedback: `deepprof feedback` and feedback files
# (run.py): the unit suite feedback_file's documents, combining feedback files
# of known speedups, JSON = MessagePack (types too), --to-json, --explain,
# --separate, --jobs, fb-pair.c end to end with deepprof-cc, bad inputs and
# options (exit 2, one line). Every JSON written is validated against
# schemas/feedback.schema.json. Scratch: $(BUILD)/tests/feedback.
# Part of deepprof's tests. MIT licence.

.PHONY: check-feedback
check-feedback: $(DP_CLI) $(UNIT_BIN) $(PLUGIN_SO) $(PLUGIN_LINK) $(DEEPPROF_CC) $(LIBPROF_A)
	CC="$(CC)" DP_TEST_CFLAGS="$(SAN_PROF)" $(PYTHON) tests/feedback/run.py $(BUILD)

CHECKS += check-feedback

# `make fuzz-feedback` builds the libFuzzer harness for the feedback-file
# readers with clang (not part of check): $(BIN_DIR)/fuzz-feedback CORPUS_DIR
# (seed it with the suite's $(BUILD)/tests/feedback/*.json and *.msgpack).
.PHONY: fuzz-feedback
fuzz-feedback: $(BIN_DIR)/fuzz-feedback
$(BIN_DIR)/fuzz-feedback: tests/feedback/fuzz_feedback.c \
		$(filter-out feedback/calibrate.c,$(DPF_SRCS)) $(DPA_SRCS)
	@test -n "$(FUZZ_CC)" || { echo "fuzz-feedback: clang not found (apt-get install clang)"; exit 1; }
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=gnu11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	  -Ianalyses -Ifeedback $(shell pkg-config --cflags $(PKGS_TOOL)) -o $@ $^ $(TOOL_LIBS)
