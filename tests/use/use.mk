# tests/use — check-use: the use build (deepprof-cc --deepprof-use): remarks
# under -fopt-info, hot/cold placement (readelf), same output as the plain
# build, stale functions, -MD, a two-file make project, bad feedback files
# and options, and its parallel code: every shape of s-par.c (what
# becomes tasks, what stays serial and why, the same output with any
# number of threads, -flto, a profiled parallel build's exact task counts)
# and the demo's candidate proved safe by GCC (tests/use/run.py). Scratch: $(BUILD)/use. Part of deepprof.
# MIT licence.

CHECKS += check-use
.PHONY: check-use

check-use: $(BIN_DIR)/deepprof $(PLUGIN_SO) $(PLUGIN_LINK) $(DEEPPROF_CC) $(LIB_DIR)/libprof.a
	$(PYTHON) tests/use/run.py --build $(BUILD)
