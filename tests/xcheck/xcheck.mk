# tests/xcheck — fragment: `make check-xcheck`, the callgrind cross-check.
# bzip2 from Debian's sources (fetched into $(BUILD)/src at test time) is
# built at -O0 -finstrument-functions with libprof; its caller→callee call
# counts must equal callgrind's on the same binary and input; at -O2 (where
# callgrind cannot see inlined calls) libprof must agree with refhooks.c, a
# plain reference counter linked into the same objects; and in plugin mode
# ("xcheck-plugin", the default ABI v2; "xcheck-plugin-abi1"), bzip2 built by deepprof-cc (the GCC plugin) at -O0 must
# give callgrind's counts on every arc between two of its functions. Skipped under
# SAN=1: the sanitizer pass re-runs every suite, and callgrind over a UBSan
# build would check nothing new. Part of deepprof. MIT licence.

XCHECK_DIR := $(BUILD)/xcheck
XCHECK_GEN := $(XCHECK_DIR)/gen_text
# What a program linked with libprof.a needs after it (libprof's fragment may
# say so in LIBPROF_LIBS; otherwise what libprof is known to use).
XCHECK_PROF_LIBS = $(if $(LIBPROF_LIBS),$(LIBPROF_LIBS),-lmsgpackc -lz -lpthread -lrt -ldl -lm)

CHECKS += check-xcheck
.PHONY: check-xcheck

$(XCHECK_GEN): bench/gen_text.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 $(WARN) -o $@ $<

ifeq ($(SAN),1)
check-xcheck:
	@echo "xcheck: skipped under SAN=1 (callgrind over a UBSan build would cross-check nothing new; the plain 'make check' runs it)"
else
check-xcheck: $(LIB_DIR)/libprof.a $(BIN_DIR)/deepprof $(XCHECK_GEN) $(DEEPPROF_CC) $(PLUGIN_SO) $(PLUGIN_LINK)
	@rc=0; \
	sh tests/xcheck/fetch_test.sh $(XCHECK_DIR)/fetch || rc=1; \
	sh bench/fetch-src.sh bzip2 $(BUILD)/src || { echo "xcheck: 0 passed, 1 failed"; exit 2; }; \
	$(PYTHON) tests/xcheck/parser_test.py $(XCHECK_DIR)/parser $(CC) || rc=1; \
	$(PYTHON) tests/xcheck/xcheck.py --work $(XCHECK_DIR)/work --src $(BUILD)/src/bzip2 \
	  --cc $(CC) --libprof $(LIB_DIR)/libprof.a --libs="$(XCHECK_PROF_LIBS)" \
	  --deepprof $(BIN_DIR)/deepprof --gen $(XCHECK_GEN) \
	  $(if $(DEEPPROF_CC),--deepprof-cc $(DEEPPROF_CC)) || rc=$$?; \
	exit $$rc
endif
