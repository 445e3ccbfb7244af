# bench — fragment: `make bench`, deepprof's overhead against the plain -O2
# build, empty -finstrument-functions hooks, the least a deep profiler on them
# does (bench/floor_hooks.c), gprof and callgrind, on fib, an
# allocation-heavy program, and bzip2, zlib's minigzip, gawk and jq from
# Debian's sources (fetched into $(BUILD)/src by bench/fetch-src.sh), in the cyg route
# and the plugin route (deepprof-cc: its default ABI v2, abi=1 and
# calls=surviving), with compile time and text size, and the CPU time of
# `deepprof progrep` and `deepprof feedback` on every plugin build and its
# Deep.data (median of max(3, --runs)); then the
# analyses benchmark (bench/analyses.py: deepprof report/export and
# callgrind_annotate on dp-gen profiles of 10^5..10^7 csds). Not part of
# `make check`. The table also goes to $(BUILD)/bench/results.txt.
# Then the use build's step (run.py --pgo, alone: make bench-pgo): bzip2,
# minigzip, gawk and jq each rebuilt with deepprof-cc --deepprof-use and the
# feedback of its own workload, timed against plain -O2 and GCC's
# -fprofile-generate/-fprofile-use; table in $(BUILD)/bench/pgo.txt (.json).
# Then the feedback accuracy step (bench/accuracy/run.py): predicted against
# achieved speedup of deepprof feedback's recommendations on programs with
# known answers; table in $(BUILD)/bench/accuracy/results.txt. Then the
# kernels step (bench/kernels/run.py): six task-parallel kernels written
# serially, against their hand-written OpenMP-task versions (with and
# without a cut-off) and deepprof's automatic parallel code; table in
# $(BUILD)/bench/kernels/results.txt.
#   make bench BENCH_ARGS=--quick          one tiny run: checks the machinery
#   make bench BENCH_ARGS="--only fib,bzip2 --runs 3 --pin 1"
#   make bench BENCH_ARGS="--only analyses"
#   make bench ACCURACY=0                  without the accuracy step
#   make bench PGO=0                       without the use build's step
#   make bench-pgo BENCH_ARGS="--only gawk --runs 9"
#   make bench KERNELS=0                   without the kernels step
#   make bench-accuracy ACCURACY_ARGS="--only fib,overlap --runs 9"
#   make bench-kernels KERNELS_ARGS="--only fft,strassen --runs 3"
# Part of deepprof. MIT licence.

BENCH_ARGS ?=
PGO ?= 1
PGO_ARGS ?=
ACCURACY ?= 1
ACCURACY_ARGS ?=
KERNELS ?= 1
KERNELS_ARGS ?=
# What a program linked with libprof.a needs after it (libprof's fragment may
# say so in LIBPROF_LIBS; otherwise what libprof is known to use).
BENCH_PROF_LIBS = $(if $(LIBPROF_LIBS),$(LIBPROF_LIBS),-lmsgpackc -lz -lpthread -lrt -ldl -lm)

BENCH_RUN = $(PYTHON) bench/run.py --build $(BUILD) --cc $(CC) --warn="$(WARN)" \
	  --libprof $(LIB_DIR)/libprof.a --libs="$(BENCH_PROF_LIBS) $(SAN_PROF)" \
	  --deepprof $(BIN_DIR)/deepprof $(if $(DEEPPROF_CC),--deepprof-cc $(DEEPPROF_CC))

bench: deps
	@$(MAKE) --no-print-directory all
	@$(BENCH_RUN) --dpgen $(BIN_DIR)/dp-gen $(BENCH_ARGS)
	@$(if $(filter 1,$(PGO)),$(if $(DEEPPROF_CC),$(MAKE) --no-print-directory bench-pgo))
	@$(if $(filter 1,$(ACCURACY)),$(MAKE) --no-print-directory bench-accuracy)
	@$(if $(filter 1,$(KERNELS)),$(MAKE) --no-print-directory bench-kernels)

# the use build against plain -O2 and GCC's -fprofile-use alone (run.py
# --pgo; BENCH_ARGS apply: --quick, --runs, and --only among the real programs)
.PHONY: bench-pgo
bench-pgo: deps
	@$(MAKE) --no-print-directory all
	@$(BENCH_RUN) --pgo $(BENCH_ARGS) $(PGO_ARGS)

# the accuracy step alone (--quick in BENCH_ARGS makes it quick too; else it
# waits up to a minute per program for the CPUs to be idle before timing it)
.PHONY: bench-accuracy
bench-accuracy: deps
	@$(MAKE) --no-print-directory all
	@$(PYTHON) bench/accuracy/run.py --build $(BUILD) --cc $(CC) \
	  $(if $(filter --quick,$(BENCH_ARGS)),--quick,--wait-idle 60) $(ACCURACY_ARGS)

# the kernels step alone (--quick in BENCH_ARGS makes it quick too; else it
# waits up to a minute per kernel for the CPUs to be idle before timing it)
.PHONY: bench-kernels
bench-kernels: deps
	@$(MAKE) --no-print-directory all
	@$(PYTHON) bench/kernels/run.py --build $(BUILD) --cc $(CC) \
	  $(if $(filter --quick,$(BENCH_ARGS)),--quick,--wait-idle 60) $(KERNELS_ARGS)
