# tests/reports — fragment: `make check-reports` builds the example programs
# (tests/e2e/s-*.c and tests/reports/r-*.c) with libprof, runs them, and
# checks every `deepprof report` on them: exact numbers from --json (validated
# against schemas/report.schema.json), exact text for some, and bad input for
# each report (one line on stderr, exit 2, never a crash). Scratch:
# $(BUILD)/tests/reports. Last line: "reports: N passed, N failed".
# Part of deepprof's tests. MIT licence.

CHECKS += check-reports
.PHONY: check-reports

check-reports: $(DP_CLI) $(DPG_BIN) $(LIB_DIR)/libprof.a $(BUILD)/include/deepprof.h
	@$(PYTHON) tests/reports/run.py --build $(BUILD) --cc $(CC) --cflags "$(SAN_PROF)"
