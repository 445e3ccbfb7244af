# tests/omp — check-omp: OpenMP programs (parallel, sections, for with a
# reduction, single, nested parallel, task/taskwait/taskgroup) and a thread
# pool in an uninstrumented library, built with deepprof-cc under each route
# (ABI v2, ABI v1, -finstrument-functions) and checked for exact counts and
# the calling context of every region (tests/omp/run.py).
# Scratch: $(BUILD)/plugin-rt/omp. Part of deepprof. MIT licence.

CHECKS += check-omp
.PHONY: check-omp

check-omp: $(LIB_DIR)/libprof.a $(LIBPROF_INC) $(BIN_DIR)/deepprof $(PLUGIN_SO) $(PLUGIN_LINK) $(DEEPPROF_CC)
	$(PYTHON) tests/omp/run.py --build $(BUILD) --deepprof $(BIN_DIR)/deepprof --cflags "$(SAN_PROF)"
