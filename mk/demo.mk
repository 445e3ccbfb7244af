# mk/demo.mk — `make demo`: the whole path on the bundled example
# tests/demo/demo.c: build it with deepprof-cc (the GCC plugin: call sites,
# loop back-edges, program representation; linked with libprof), run it,
# show what `deepprof dump` makes of its Deep.data, the top procedures and
# the recursive cliques (`deepprof report`), measure this machine's OpenMP
# task overheads (`deepprof calibrate --quick`), write the feedback file
# $(BUILD)/demo/feedback.json (`deepprof feedback`); its candidate needs a
# check, so build the example with --deepprof-check, run it, and write the
# feedback again with its findings (`--checked-by`): print the recommended
# candidates in plain words, then the numbers behind the first one; then
# close the loop: rebuild the example at -O2 with the feedback
# (`deepprof-cc --deepprof-use`, its remarks shown: the candidate becomes
# two OpenMP tasks), build it plainly at -O2, check that both print the
# same, and show the measured speedup beside the predicted one
# (tests/demo/compare.py). Each step says which one failed, and the demo
# fails if nothing is recommended (the example has two independent costly
# calls) or if the outputs differ. Part of deepprof's build. MIT licence.

DEMO_DIR  := $(BUILD)/demo
DEMO_BIN  := $(DEMO_DIR)/demo
DEMO_DATA := $(DEMO_DIR)/Deep.data
DEMO_CAL  := $(DEMO_DIR)/calibration.json
DEMO_FB   := $(DEMO_DIR)/feedback.json
DEMO_PAR  := $(DEMO_DIR)/demo-parallel
DEMO_SER  := $(DEMO_DIR)/demo-serial
DEMO_USE   = $(BIN_DIR)/deepprof-cc -std=gnu11 -O2 --deepprof-use=$(DEMO_FB) --deepprof-remarks \
	-o $(DEMO_PAR) tests/demo/demo.c
DEMO_PLAIN = $(CC) -std=gnu11 -O2 -o $(DEMO_SER) tests/demo/demo.c
DEMO_CHK  := $(DEMO_DIR)/demo-check
DEMO_CHKDATA := $(DEMO_DIR)/check.data
DEMO_CHKCC = $(BIN_DIR)/deepprof-cc -std=gnu11 -g -O2 $(SAN_PROF) --deepprof-check=$(DEMO_FB) \
	-o $(DEMO_CHK) tests/demo/demo.c
DEMO_CC    = $(BIN_DIR)/deepprof-cc -std=gnu11 -g -O2 $(SAN_PROF) \
	-o $(DEMO_BIN) tests/demo/demo.c

demo: deps
	@$(MAKE) --no-print-directory all || { echo "demo: building deepprof failed (see above)" >&2; exit 1; }
	@mkdir -p $(DEMO_DIR)
	@echo "== compile the example with deepprof-cc (the deepprof GCC plugin; links libprof)"
	@echo "$(DEMO_CC)"
	@$(DEMO_CC) || { echo "demo: compiling tests/demo/demo.c with deepprof-cc failed" >&2; exit 1; }
	@echo "== run it: DEEPPROF_FILE=$(DEMO_DATA)"
	@rm -f $(DEMO_DATA)
	@DEEPPROF_FILE=$(DEMO_DATA) $(DEMO_BIN) \
		|| { echo "demo: $(DEMO_BIN) exited with status $$?" >&2; exit 1; }
	@test -s $(DEMO_DATA) || { echo "demo: $(DEMO_BIN) ran but wrote no $(DEMO_DATA)" >&2; exit 1; }
	@echo "== $(BIN_DIR)/deepprof dump $(DEMO_DATA)"
	@$(BIN_DIR)/deepprof dump $(DEMO_DATA) \
		|| { echo "demo: deepprof dump $(DEMO_DATA) failed" >&2; exit 1; }
	@echo "== $(BIN_DIR)/deepprof report $(DEMO_DATA) top --limit=8"
	@$(BIN_DIR)/deepprof report $(DEMO_DATA) top --limit=8 \
		|| { echo "demo: deepprof report $(DEMO_DATA) top failed" >&2; exit 1; }
	@echo "== $(BIN_DIR)/deepprof report $(DEMO_DATA) recursion   (the parser is one mutual-recursion clique)"
	@$(BIN_DIR)/deepprof report $(DEMO_DATA) recursion \
		|| { echo "demo: deepprof report $(DEMO_DATA) recursion failed" >&2; exit 1; }
	@echo "== $(BIN_DIR)/deepprof calibrate --quick -o $(DEMO_CAL)   (this machine's OpenMP task overheads)"
	@$(BIN_DIR)/deepprof calibrate --quick -o $(DEMO_CAL) \
		|| { echo "demo: deepprof calibrate failed" >&2; exit 1; }
	@echo "== $(BIN_DIR)/deepprof feedback --calibration=$(DEMO_CAL) $(DEMO_DATA) -o $(DEMO_FB)"
	@rm -f $(DEMO_FB)
	@$(BIN_DIR)/deepprof feedback --calibration=$(DEMO_CAL) $(DEMO_DATA) -o $(DEMO_FB) \
		> $(DEMO_DIR)/feedback.txt \
		|| { echo "demo: deepprof feedback $(DEMO_DATA) failed" >&2; exit 1; }
	@cat $(DEMO_DIR)/feedback.txt
	@echo "== the candidate needs a check: a check build records what its calls read and write"
	@echo "$(DEMO_CHKCC)"
	@$(DEMO_CHKCC) || { echo "demo: the check build (deepprof-cc --deepprof-check) failed" >&2; exit 1; }
	@rm -f $(DEMO_CHKDATA)
	@DEEPPROF_FILE=$(DEMO_CHKDATA) $(DEMO_CHK) > /dev/null \
		|| { echo "demo: $(DEMO_CHK) exited with status $$?" >&2; exit 1; }
	@echo "== $(BIN_DIR)/deepprof feedback --calibration=$(DEMO_CAL) $(DEMO_DATA) --checked-by=$(DEMO_CHKDATA) -o $(DEMO_FB)"
	@$(BIN_DIR)/deepprof feedback --calibration=$(DEMO_CAL) $(DEMO_DATA) \
		--checked-by=$(DEMO_CHKDATA) -o $(DEMO_FB) > $(DEMO_DIR)/feedback.txt \
		|| { echo "demo: deepprof feedback --checked-by=$(DEMO_CHKDATA) failed" >&2; exit 1; }
	@cat $(DEMO_DIR)/feedback.txt
	@grep -q '^recommended:' $(DEMO_DIR)/feedback.txt \
		|| { echo "demo: deepprof feedback recommended nothing (the example's collatz_total() and primes_below() should be, checked)" >&2; exit 1; }
	@id=$$(sed -n 's/^  #\([0-9][0-9]*\) .*/\1/p' $(DEMO_DIR)/feedback.txt | head -1); \
	 echo "== $(BIN_DIR)/deepprof feedback $(DEMO_FB) --explain=$$id   (the numbers behind it)"; \
	 $(BIN_DIR)/deepprof feedback $(DEMO_FB) --explain=$$id \
		|| { echo "demo: deepprof feedback --explain=$$id failed" >&2; exit 1; }
	@echo "== rebuild it with the feedback: uninstrumented, -O2, the candidate as OpenMP tasks"
	@echo "$(DEMO_USE)"
	@$(DEMO_USE) || { echo "demo: the use build (deepprof-cc --deepprof-use) failed" >&2; exit 1; }
	@echo "== and plainly, the serial program: $(DEMO_PLAIN)"
	@$(DEMO_PLAIN) || { echo "demo: the plain build failed" >&2; exit 1; }
	@echo "== same output? how much faster, against the prediction?"
	@$(PYTHON) tests/demo/compare.py $(DEMO_SER) $(DEMO_PAR) $(DEMO_FB) \
		|| { echo "demo: the comparison of $(DEMO_SER) and $(DEMO_PAR) failed" >&2; exit 1; }
	@echo "== done: the profile is $(DEMO_DATA), the feedback $(DEMO_FB); try: $(BIN_DIR)/deepprof report $(DEMO_DATA) proc parse_expr"
