# tests/fuzz — fragment: `make check-fuzz` mutates the decoded records of
# dp-gen profiles (counts and crc32 made to match, so the mutants reach the
# reader's checks of meaning and the analyses) and runs dump, report,
# export, merge, diff and feedback on each: exit 0 or a one-line exit 2,
# never a crash or a hang. DP_FUZZ_MUTANTS=N for a longer run.
# Last line: "fuzz: N passed, N failed". Part of deepprof's tests. MIT licence.

.PHONY: check-fuzz
check-fuzz: $(DP_CLI) $(DPG_BIN)
	@$(PYTHON) tests/fuzz/run.py $(BIN_DIR) $(BUILD)/tests/fuzz
CHECKS += check-fuzz
