# tests/gen — fragment (included from tests/unit/unit.mk): $(BIN_DIR)/dp-gen,
# the synthetic Deep.data generator, and gen.o, its library half that unit
# tests link. Part of deepprof's tests. MIT licence.

DPG_OBJ := $(OBJ_DIR)/tests/gen/gen.o
DPG_BIN := $(BIN_DIR)/dp-gen

all: $(DPG_BIN)

$(OBJ_DIR)/tests/gen/%.o: tests/gen/%.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itests/gen -c -o $@ $<

$(DPG_BIN): $(OBJ_DIR)/tests/gen/main.o $(DPG_OBJ)
	@mkdir -p $(@D)
	$(CC) $(TOOL_LDFLAGS) -o $@ $^ $(TOOL_LIBS)
