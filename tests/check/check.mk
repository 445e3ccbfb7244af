# tests/check — check-check: the dependence check (deepprof-cc
# --deepprof-check): exact findings on programs with known memory
# behaviour, the feedback's safety levels and the partition that respects
# them, --deepprof-parallelize=checked, bad options (tests/check/run.py).
# Scratch: $(BUILD)/check. Part of deepprof. MIT licence.

CHECKS += check-check
.PHONY: check-check

check-check: $(BIN_DIR)/deepprof $(PLUGIN_SO) $(PLUGIN_LINK) $(DEEPPROF_CC) $(LIB_DIR)/libprof.a
	$(PYTHON) tests/check/run.py --build $(BUILD)
