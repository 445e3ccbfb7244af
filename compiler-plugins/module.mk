# compiler-plugins — the deepprof GCC plugin (build/lib/deepprof-plugin.so,
# reachable as build/lib/gcc-plugin/deepprof.so so that -fplugin-arg-deepprof-*
# reach it) and the deepprof-cc wrapper (build/bin/deepprof-cc).
# The plugin is C++ only because GCC requires it; it is built with g++
# against the headers of the installed GCC (`gcc -print-file-name=plugin`).
# It runs inside cc1, so it is never built with sanitizers.

PLUGIN_GCC  ?= gcc
PLUGIN_CXX  ?= g++
PLUGIN_INC  := $(shell $(PLUGIN_GCC) -print-file-name=plugin)/include
PLUGIN_GCCV := $(shell $(PLUGIN_GCC) -dumpfullversion 2>/dev/null)
PLUGIN_CXXFLAGS := -std=gnu++14 -fPIC -fno-rtti -fno-exceptions -g -O2 $(WARN) \
	-Wno-unused-parameter -I$(PLUGIN_INC) -Icompiler-plugins
PLUGIN_SRCS := plugin_main.cc tables.cc instrument.cc progrep.cc surviving.cc inlined.cc inline_cost.cc locations.cc inline_path.cc lower.cc ticks.cc slow_regs.cc escapes.cc omp_regions.cc use.cc parallel.cc check.cc
PLUGIN_OBJS := $(PLUGIN_SRCS:%.cc=$(OBJ_DIR)/compiler-plugins/%.o) $(OBJ_DIR)/compiler-plugins/use_feedback.o
# The use build reads feedback files through the feedback library (and
# libdpa under it), linked into the plugin: position-independent and never
# with sanitizers (the plugin runs inside cc1), so a SAN=1 build compiles
# its own copy of them for the plugin.
PLUGIN_LIB_CFLAGS := $(CFLAGS_COMMON) -fPIC $(shell pkg-config --cflags $(PKGS_TOOL) 2>/dev/null) \
	-Ianalyses -Ifeedback -Icompiler-plugins
ifeq ($(SAN),1)
PLUGIN_LIB_SRCS := $(DPF_SRCS) $(DPA_SRCS)
PLUGIN_LIB_OBJS := $(PLUGIN_LIB_SRCS:%.c=$(OBJ_DIR)/plugin-lib/%.o)
PLUGIN_LIBS := $(LIB_DIR)/libdp-plugin-lib.a
$(OBJ_DIR)/plugin-lib/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_LIB_CFLAGS) $(if $(filter %calibrate.c,$<),-fopenmp) -c -o $@ $<
$(PLUGIN_LIBS): $(PLUGIN_LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^
else
PLUGIN_LIBS := $(DPF_LIB) $(DPA_LIB)
endif
PLUGIN_SO   := $(LIB_DIR)/deepprof-plugin.so
PLUGIN_LINK := $(LIB_DIR)/gcc-plugin/deepprof.so
DEEPPROF_CC := $(BIN_DIR)/deepprof-cc

all: $(PLUGIN_SO) $(PLUGIN_LINK) $(DEEPPROF_CC)
.PHONY: plugin install-plugin
plugin: $(PLUGIN_SO) $(PLUGIN_LINK) $(DEEPPROF_CC)

$(OBJ_DIR)/compiler-plugins/%.o: compiler-plugins/%.cc compiler-plugins/plugin.h compiler-plugins/deepprof-abi.h
	@mkdir -p $(@D)
	$(PLUGIN_CXX) $(PLUGIN_CXXFLAGS) -MMD -MP -c $< -o $@

$(OBJ_DIR)/compiler-plugins/use_feedback.o: compiler-plugins/use_feedback.c compiler-plugins/use_feedback.h
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_LIB_CFLAGS) -c $< -o $@

$(PLUGIN_SO): $(PLUGIN_OBJS) $(PLUGIN_LIBS)
	@mkdir -p $(@D)
	$(PLUGIN_CXX) -shared -o $@ $(PLUGIN_OBJS) $(PLUGIN_LIBS) \
	  $(shell pkg-config --libs $(PKGS_TOOL) 2>/dev/null) -lm

$(PLUGIN_LINK): $(PLUGIN_SO)
	@mkdir -p $(@D)
	ln -sf ../deepprof-plugin.so $@

$(DEEPPROF_CC): compiler-plugins/deepprof-cc.c compiler-plugins/module.mk
	@mkdir -p $(@D) $(OBJ_DIR)/compiler-plugins
	$(CC) $(TOOL_CFLAGS) -DDP_PREFIX='"$(PREFIX)"' -DDP_GCC_VERSION='"$(PLUGIN_GCCV)"' \
	  -DDP_DEFAULT_LIBS='"$(strip $(or $(LIBPROF_LIBS),-lpthread) $(SAN_PROF))"' \
	  -MF $(OBJ_DIR)/compiler-plugins/deepprof-cc.d $< -o $@ $(TOOL_LDFLAGS)

install: install-plugin
install-plugin: $(PLUGIN_SO) $(DEEPPROF_CC)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/deepprof/gcc-plugin \
	  $(DESTDIR)$(PREFIX)/include/deepprof
	install -m 755 $(DEEPPROF_CC) $(DESTDIR)$(PREFIX)/bin/deepprof-cc
	install -m 755 $(PLUGIN_SO) $(DESTDIR)$(PREFIX)/lib/deepprof/deepprof-plugin.so
	ln -sf ../deepprof-plugin.so $(DESTDIR)$(PREFIX)/lib/deepprof/gcc-plugin/deepprof.so
	install -m 644 compiler-plugins/deepprof-abi.h $(DESTDIR)$(PREFIX)/include/deepprof/deepprof-abi.h
