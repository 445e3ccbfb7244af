# mk/demo.mk — `make demo`: build everything, profile the bundled example
# tests/demo/demo.c (compiled -finstrument-functions -g -O0 and linked with
# libprof.a), and show what `deepprof dump` makes of its Deep.data, then
# the top procedures and the recursive cliques (`deepprof report`).
# Each step says which one failed. Part of deepprof's build. MIT licence.

DEMO_DIR  := $(BUILD)/demo
DEMO_BIN  := $(DEMO_DIR)/demo
DEMO_DATA := $(DEMO_DIR)/Deep.data
DEMO_CC    = $(CC) -std=gnu11 -g -O0 -finstrument-functions $(SAN_PROF) \
	-o $(DEMO_BIN) tests/demo/demo.c $(LIB_DIR)/libprof.a $(LIBPROF_LIBS)

demo: deps
	@$(MAKE) --no-print-directory all || { echo "demo: building deepprof failed (see above)" >&2; exit 1; }
	@mkdir -p $(DEMO_DIR)
	@echo "== compile the example with -finstrument-functions, link libprof.a"
	@echo "$(DEMO_CC)"
	@$(DEMO_CC) || { echo "demo: compiling tests/demo/demo.c failed" >&2; exit 1; }
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
	@echo "== done: the profile is $(DEMO_DATA); try: $(BIN_DIR)/deepprof report $(DEMO_DATA) proc parse_expr"
