# tests — `make check` runs every suite. Each suite has its own fragment that
# defines a target check-<suite> and appends it to CHECKS.
CHECKS :=
include tests/unit/unit.mk
include tests/bad/bad.mk
include tests/fuzz/fuzz.mk
include tests/e2e/e2e.mk
include tests/xcheck/xcheck.mk
-include tests/install/install.mk
-include tests/batch/batch.mk
-include tests/plugin/plugin.mk
-include tests/reports/reports.mk
-include tests/html/html.mk
-include tests/serve/serve.mk
-include tests/cgi/cgi.mk
-include tests/exports/exports.mk
-include tests/plugin-rt/plugin-rt.mk
-include tests/omp/omp.mk
-include tests/use/use.mk
-include tests/check/check.mk
-include tests/kernels/kernels.mk
-include tests/progrep/progrep.mk
-include tests/feedback/feedback.mk
-include tests/fbprogs/fbprogs.mk
-include tests/fbbatch/fbbatch.mk
-include tests/split/split.mk
-include tests/deps/deps.mk
-include tests/layout/layout.mk
-include tests/record/record.mk

check: deps
	@$(MAKE) --no-print-directory all
	@fail=0; for c in $(CHECKS); do \
	  echo "== $$c"; $(MAKE) --no-print-directory $$c || fail=1; done; \
	if [ $$fail = 0 ]; then echo "check: all suites passed"; else echo "check: FAILED"; exit 1; fi
