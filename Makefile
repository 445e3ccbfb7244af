# deepprof — top-level build. Everything is built into $(BUILD)/ (default build/).
#   make            build libprof, the deepprof tool and the pkg-config file
#   make check      install missing Debian packages, build, run every test
#   make demo       build, profile the bundled example, show what deepprof dump shows
#   make bench      benchmarks (not part of check)
#   make install PREFIX=/usr/local
# Variables: WERROR=1 adds -Werror; SAN=1 builds the tools and unit tests with
# AddressSanitizer+UBSan (libprof and profiled test programs with UBSan only:
# libprof interposes malloc itself, which ASan also does).
# Each module has its own fragment, module.mk, included below; a fragment only
# adds to the variables and targets of its own module.

BUILD   ?= build
PREFIX  ?= /usr/local
CC      ?= gcc
ifeq ($(origin CC),default)
CC      := gcc
endif
PYTHON  ?= /usr/bin/python3

WARN      := -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror)
OPT       ?= -O2
comma     := ,
SAN_TOOL  := $(if $(filter 1,$(SAN)),-fsanitize=address$(comma)undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
SAN_PROF  := $(if $(filter 1,$(SAN)),-fsanitize=undefined -fno-sanitize-recover=all)
CFLAGS_COMMON := -std=gnu11 -g $(OPT) $(WARN) -D_GNU_SOURCE -MMD -MP

PKGS_TOOL := msgpack jansson libdw libelf libdeflate
TOOL_CFLAGS := $(CFLAGS_COMMON) $(SAN_TOOL) $(shell pkg-config --cflags $(PKGS_TOOL) 2>/dev/null)
TOOL_LIBS   := $(shell pkg-config --libs $(PKGS_TOOL) 2>/dev/null) -lm -lpthread
TOOL_LDFLAGS := $(SAN_TOOL)

# libdpa.a and libdpfb.a are built from position-independent objects, so that
# a shared object (the GCC plugin, compiler-plugins/) can link them statically.
LIB_PIC := -fPIC

LIB_DIR := $(BUILD)/lib
BIN_DIR := $(BUILD)/bin
OBJ_DIR := $(BUILD)/obj

.PHONY: all deps check demo bench install clean unit e2e
all:

include mk/deps.mk
include libprof/module.mk
include analyses/module.mk
include feedback/module.mk
include cli/module.mk
-include cgi/module.mk
-include compiler-plugins/module.mk
include tests/module.mk
include bench/module.mk

clean:
	rm -rf $(BUILD) build-san

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
