# tests/plugin-rt — check-plugin-rt: libprof's plugin-mode runtime, each
# test built with the plugin's default ABI (v2, the inline fast path) and
# again for ABI v1 (out-of-line hooks, --abi 1): the same exact counts.
# Programs with known call structure (this directory and tests/e2e) are
# built with $(DEEPPROF_CC) (the GCC plugin) and libprof, run, and checked
# for exact counts, cscs and call-site locations with `deepprof dump --json`.
# Scratch: $(BUILD)/plugin-rt. Part of deepprof. MIT licence.

CHECKS += check-plugin-rt
.PHONY: check-plugin-rt

check-plugin-rt: $(LIB_DIR)/libprof.a $(LIBPROF_INC) $(BIN_DIR)/deepprof $(PLUGIN_SO) $(PLUGIN_LINK) $(DEEPPROF_CC)
	$(PYTHON) tests/plugin-rt/run.py --build $(BUILD) --deepprof $(BIN_DIR)/deepprof \
		--cflags "$(SAN_PROF)"
	$(PYTHON) tests/plugin-rt/run.py --build $(BUILD) --deepprof $(BIN_DIR)/deepprof \
		--cflags "$(SAN_PROF)" --abi 1
