# tests/serve — fragment: `make check-serve` builds tests/serve/v-serve.c
# with libprof and checks `deepprof serve` through HTTP against the real
# server (run.py: JSON twins byte for byte, contexts told apart, URLs that
# survive a new run, flame graph, root/P, modules, diff, bad requests and
# starts, idle timeout, SIGTERM, 50 concurrent clients, test-pages, the
# times on a 10^6-csd profile), then drives headless chromium through the
# pages (browser.py). Scratch: $(BUILD)/tests/serve. Last line:
# "serve: N passed, N failed". Part of deepprof's tests. MIT licence.

CHECKS += check-serve
.PHONY: check-serve

check-serve: $(DP_CLI) $(DPG_BIN) $(LIB_DIR)/libprof.a $(BUILD)/include/deepprof.h
	@$(PYTHON) tests/serve/run.py --build $(BUILD) --cc $(CC) --cflags "$(SAN_PROF)"
