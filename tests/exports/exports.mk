# tests/exports — fragment: `make check-exports`, `deepprof export` read by the
# real tools. Small programs from tests/e2e (known call structure) built with
# libprof: folded stacks (grammar, exact lines, sums per measure; flamegraph.pl
# is not packaged by Debian), callgrind (callgrind_annotate prints our totals
# and, with --inclusive=yes, every procedure's ps total; xcheck's parser reads
# every arc), speedscope (validated against the file-format schema shipped in
# speedscope's npm package, or the structure written down in run.py when npm
# cannot fetch it); bad inputs; and bzip2 at -O0 (the source tests/xcheck
# fetches, into $(BUILD)/src): every arc's calls= in our export equals
# callgrind's own count on the same binary and input (skipped under SAN=1,
# like check-xcheck). Ends with "exports: N passed, N failed".
# Part of deepprof. MIT licence.

EXPORTS_DIR := $(BUILD)/exports
EXPORTS_PSTOTALS := $(EXPORTS_DIR)/pstotals
EXPORTS_PROF_LIBS = $(if $(LIBPROF_LIBS),$(LIBPROF_LIBS),-lmsgpackc -lz -lpthread -lrt -ldl -lm)
EXPORTS_GEN := $(EXPORTS_DIR)/gen_text

CHECKS += check-exports
.PHONY: check-exports

$(EXPORTS_PSTOTALS): tests/exports/pstotals.c $(DPA_LIB)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Ianalyses -o $@ $< $(DPA_LIBS) $(TOOL_LDFLAGS)

$(EXPORTS_GEN): bench/gen_text.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 $(WARN) -o $@ $<

check-exports: $(LIB_DIR)/libprof.a $(BUILD)/include/deepprof.h $(BIN_DIR)/deepprof \
		$(EXPORTS_PSTOTALS) $(EXPORTS_GEN) $(DPG_BIN)
	@$(PYTHON) tests/exports/run.py --build $(BUILD) --work $(EXPORTS_DIR)/work \
	  --deepprof $(BIN_DIR)/deepprof --pstotals $(EXPORTS_PSTOTALS) --gen $(DPG_BIN) \
	  --gen-text $(EXPORTS_GEN) --cc $(CC) --libs="$(EXPORTS_PROF_LIBS)" \
	  --cflags="$(SAN_PROF)" $(if $(filter 1,$(SAN)),--no-bzip2)
