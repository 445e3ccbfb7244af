# tests/plugin — check-plugin: the GCC plugin and deepprof-cc against a tiny
# test runtime (testrt.c) that prints the registered tables and counts the
# ABI v1 hooks; run.py asserts exact tables, counts and progrep records at
# -O0, -O2 and -O2 -flto, multi-TU and with a shared library.
PLUGIN_TEST_DIR := $(BUILD)/tests/plugin

$(PLUGIN_TEST_DIR)/libtestrt.so: tests/plugin/testrt.c compiler-plugins/deepprof-abi.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -g -O1 $(WARN) $(SAN_PROF) -fPIC -shared -Icompiler-plugins $< -o $@

.PHONY: check-plugin
check-plugin: $(PLUGIN_SO) $(PLUGIN_LINK) $(DEEPPROF_CC) $(PLUGIN_TEST_DIR)/libtestrt.so \
		$(LIB_DIR)/libprof.a $(LIBPROF_INC) $(BIN_DIR)/deepprof
	DP_TEST_CFLAGS="$(SAN_PROF)" $(PYTHON) tests/plugin/run.py $(BUILD)

CHECKS += check-plugin
