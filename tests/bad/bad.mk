# tests/bad — fragment: `make check-bad` feeds deepprof dump (text and
# --json) missing, empty, truncated, flipped, wrong-version and garbage
# Deep.data files and bad options; each must exit 2 with exactly one line on
# stderr naming the file, never crash. Last line: "bad-input: N passed, N failed".
# Part of deepprof's tests. MIT licence.

.PHONY: check-bad
check-bad: $(DP_CLI) $(DPG_BIN)
	@$(PYTHON) tests/bad/run.py $(BIN_DIR) $(BUILD)/tests/bad
CHECKS += check-bad
