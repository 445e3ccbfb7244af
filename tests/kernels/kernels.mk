# tests/kernels — check-kernels: every task-parallel kernel of bench/kernels
# at a tiny scale, profiled with deepprof-cc, given its feedback and rebuilt
# with the plugin's parallel code (its candidates named by id, so that the
# code is generated whatever GCC can prove), prints what its plain -O2
# build prints with OMP_NUM_THREADS=1 and 2, and the expected kernels get
# parallel code (tests/kernels/run.py). No timing. Scratch:
# $(BUILD)/kernels. Part of deepprof's tests. MIT licence.

CHECKS += check-kernels
.PHONY: check-kernels

check-kernels: $(BIN_DIR)/deepprof $(PLUGIN_SO) $(PLUGIN_LINK) $(DEEPPROF_CC) $(LIB_DIR)/libprof.a
	$(PYTHON) tests/kernels/run.py --build $(BUILD)
