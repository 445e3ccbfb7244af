# tests/html — fragment: `make check-html` builds tests/html/h-prog.c with
# libprof, and checks `deepprof report --html` pages and the `--html-dir`
# site on its profile: well-formed pages, exact numbers, links that resolve,
# escaping, --html-limit, bad options (run.py, which imports the reports
# suite's helpers). Scratch: $(BUILD)/tests/html. Last line:
# "html: N passed, N failed". Part of deepprof's tests. MIT licence.

CHECKS += check-html
.PHONY: check-html

check-html: $(DP_CLI) $(LIB_DIR)/libprof.a $(BUILD)/include/deepprof.h
	@$(PYTHON) tests/html/run.py --build $(BUILD) --cc $(CC) --cflags "$(SAN_PROF)"
