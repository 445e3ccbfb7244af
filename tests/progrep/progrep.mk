# tests/progrep — check-progrep: `deepprof progrep` and analyses/progrep.c on
# objects, a shared library and a program built by deepprof-cc from flow.c
# (exact structure in flow.expect.json), checksum states, bad inputs, and a
# Deep.data whose ps and css map to progrep records (run.py). Linking uses
# the plugin suite's test runtime; a real run of a program linked with
# libprof checks the mapping of the profile it writes.
# Part of deepprof's tests. MIT licence.

.PHONY: check-progrep
check-progrep: $(DP_CLI) $(PLUGIN_SO) $(PLUGIN_LINK) $(DEEPPROF_CC) $(BUILD)/tests/plugin/libtestrt.so $(LIBPROF_A)
	DP_TEST_CFLAGS="$(SAN_PROF)" $(PYTHON) tests/progrep/run.py $(BUILD)

CHECKS += check-progrep
