# tests/e2e — fragment: `make check-e2e` builds small programs with known call
# structure against libprof (static and, through pkg-config, shared), runs them
# and checks exact numbers from `deepprof dump --json`. Scratch: $(BUILD)/e2e.
# Part of deepprof. MIT licence.

CHECKS += check-e2e
.PHONY: check-e2e

check-e2e: $(LIB_DIR)/libprof.a $(LIB_DIR)/libprof.so $(LIB_DIR)/pkgconfig/libprof.pc \
		$(BUILD)/include/deepprof.h $(BIN_DIR)/deepprof
	$(PYTHON) tests/e2e/run.py --build $(BUILD) --deepprof $(BIN_DIR)/deepprof \
		--cc $(CC) --cflags "$(SAN_PROF)"
