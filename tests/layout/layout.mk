# tests/layout — check-layout: the folders keep to their parts (run.py):
# analyses/ calls nothing of feedback/, neither library calls cli/, the
# calls between feedback/'s files are a DAG drawn in feedback/README.md;
# and a C++ shared object like the GCC plugin, linked with -z defs against
# libdpfb.a, libdpa.a and what LAYOUT_PROBE_LIBS says, reads feedback
# files through feedback_file.h. Part of deepprof's tests. MIT licence.

LAYOUT_DIR   := $(BUILD)/tests/layout
LAYOUT_PROBE := $(LAYOUT_DIR)/probe.so
# What a shared object that reads feedback files links after the two
# libraries (the plugin's link line; feedback/README.md).
LAYOUT_PROBE_LIBS := $(shell pkg-config --libs jansson msgpack libdeflate 2>/dev/null)

$(LAYOUT_PROBE): tests/layout/probe.cc feedback/feedback_file.h feedback/feedback.h \
		analyses/errors.h $(DPF_LIB) $(DPA_LIB)
	@mkdir -p $(@D)
	$(or $(PLUGIN_CXX),g++) -std=gnu++14 -fPIC $(WARN) $(SAN_TOOL) -shared -Wl,-z,defs -Ifeedback \
	  -Ianalyses -o $@ $< $(DPF_LIB) $(DPA_LIB) $(LAYOUT_PROBE_LIBS)

.PHONY: check-layout
check-layout: $(LAYOUT_PROBE) $(DPF_LIB) $(DPA_LIB) $(DP_CLI) $(UNIT_BIN)
	$(PYTHON) tests/layout/run.py $(BUILD) $(if $(filter 1,$(SAN)),san)

CHECKS += check-layout
