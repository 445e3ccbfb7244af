# tests/unit — fragment: CUnit suites, run by `make check-unit`.
#
# To add a suite: create tests/unit/test_<name>.c that includes "unit.h" and
# ends with DPA_TEST_SUITE(<name>, DPA_TEST(test_a), DPA_TEST(test_b), ...)
# (see unit.h); tests/unit/build_profile.h makes hand-built profiles from
# arc lists. Every tests/unit/test_*.c is compiled into one runner,
# $(BIN_DIR)/unit-tests, linked with libdpfb.a, libdpa.a and the Deep.data
# generator (tests/gen/gen.h): nothing here needs editing. `unit-tests
# SUITE...` runs only those suites; the runner's last line is "unit: N
# passed, N failed".
# Fixtures (small programs for the symbol tests) are built into
# $(UNIT_DIR); tests find it with dpa_test_dir().
# `make fuzz` builds the libFuzzer harness for the reader with clang (not
# part of check): $(BIN_DIR)/fuzz-read CORPUS_DIR.
# Part of deepprof's tests. MIT licence.

include tests/gen/gen.mk

UNIT_DIR   := $(BUILD)/tests/unit
UNIT_SRCS  := tests/unit/unit_main.c tests/unit/build_profile.c $(wildcard tests/unit/test_*.c)
UNIT_OBJS  := $(patsubst tests/unit/%.c,$(OBJ_DIR)/tests/unit/%.o,$(UNIT_SRCS))
UNIT_BIN   := $(BIN_DIR)/unit-tests
UNIT_FIXTURES := $(UNIT_DIR)/symprog $(UNIT_DIR)/symprog-nopie $(UNIT_DIR)/libsym.so

$(OBJ_DIR)/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Ianalyses -Ifeedback -Itests/unit -Itests/gen \
	  -DDPA_UNIT_DIR='"$(abspath $(UNIT_DIR))"' -c -o $@ $<

# libprof's CRC-32 (test_libprof_crc.c checks it against libdeflate's)
UNIT_LIBPROF := $(OBJ_DIR)/libprof/crc32.o

$(UNIT_BIN): $(UNIT_OBJS) $(DPG_OBJ) $(UNIT_LIBPROF) $(DPF_LIB) $(DPA_LIB)
	@mkdir -p $(@D)
	$(CC) $(TOOL_LDFLAGS) -o $@ $(UNIT_OBJS) $(DPG_OBJ) $(UNIT_LIBPROF) $(DPF_LIBS) -lcunit

# Symbol fixtures: a PIE program, the same as a non-PIE one, and a shared
# library, all with debug info, no sanitizers (they are data for libdw).
$(UNIT_DIR)/libsym.so: tests/unit/fixtures/symlib.c
	@mkdir -p $(@D)
	$(CC) -g -O0 -fPIC -shared -o $@ $<
$(UNIT_DIR)/symprog: tests/unit/fixtures/symprog.c $(UNIT_DIR)/libsym.so
	@mkdir -p $(@D)
	$(CC) -g -O0 -fPIE -pie -o $@ $< -L$(UNIT_DIR) -lsym -Wl,-rpath,'$$ORIGIN'
$(UNIT_DIR)/symprog-nopie: tests/unit/fixtures/symprog.c $(UNIT_DIR)/libsym.so
	@mkdir -p $(@D)
	$(CC) -g -O0 -fno-PIE -no-pie -o $@ $< -L$(UNIT_DIR) -lsym -Wl,-rpath,'$$ORIGIN'

.PHONY: check-unit fuzz
check-unit: $(UNIT_BIN) $(UNIT_FIXTURES) $(DPG_BIN)
	$(UNIT_BIN)
CHECKS += check-unit

FUZZ_CC := $(shell command -v clang 2>/dev/null)
fuzz: $(BIN_DIR)/fuzz-read
$(BIN_DIR)/fuzz-read: tests/unit/fuzz_read.c $(DPA_SRCS)
	@test -n "$(FUZZ_CC)" || { echo "fuzz: clang not found (apt-get install clang)"; exit 1; }
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=gnu11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	  -Ianalyses $(shell pkg-config --cflags $(PKGS_TOOL)) -o $@ $^ $(TOOL_LIBS)
