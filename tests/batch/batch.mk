# tests/batch — fragment: `make check-batch` runs deepprof merge and diff end
# to end on profiles of a real program (tests/batch/prog.c, built with
# -finstrument-functions and libprof.a) run with different inputs, and on
# dp-gen's synthetic profiles; exact expected counts; the last line is
# "batch: N passed, N failed". Part of deepprof's tests. MIT licence.

BATCH_DIR    := $(BUILD)/tests/batch
BATCH_SHOW   := $(BATCH_DIR)/dp-batch-show
BATCH_PROG   := $(BATCH_DIR)/prog

$(BATCH_SHOW): tests/batch/show.c $(DPA_LIB)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Ianalyses -o $@ $< $(TOOL_LDFLAGS) $(DPA_LIBS)

# The profiled program: no sanitizer but UBSan (libprof interposes malloc).
$(BATCH_PROG): tests/batch/prog.c $(LIBPROF_A)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -g -O0 -finstrument-functions $(SAN_PROF) -o $@ $< $(LIBPROF_A) $(LIBPROF_LIBS)

.PHONY: check-batch
check-batch: $(DP_CLI) $(BATCH_SHOW) $(BATCH_PROG) $(DPG_BIN)
	@PYTHON=$(PYTHON) sh tests/batch/run.sh $(DP_CLI) $(BATCH_SHOW) \
	  $(BATCH_PROG) $(DPG_BIN) $(BATCH_DIR)/work
CHECKS += check-batch
