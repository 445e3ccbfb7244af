# feedback — fragment: the command-line tool $(BIN_DIR)/deepprof, built from
# every feedback/*.c (main.c holds the subcommand table) over libdpa.a.
# calibrate.c measures libgomp's task overheads: it alone is compiled with
# -fopenmp, and the tool links libgomp.
# Part of deepprof. MIT licence.

DP_CLI_SRCS := $(wildcard feedback/*.c)
DP_CLI_OBJS := $(patsubst feedback/%.c,$(OBJ_DIR)/feedback/%.o,$(DP_CLI_SRCS))
DP_CLI      := $(BIN_DIR)/deepprof

all: $(DP_CLI)

$(OBJ_DIR)/feedback/%.o: feedback/%.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Ianalyses -Ifeedback -c -o $@ $<

$(OBJ_DIR)/feedback/calibrate.o: feedback/calibrate.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -fopenmp -Ianalyses -Ifeedback -c -o $@ $<

$(DP_CLI): $(DP_CLI_OBJS) $(DPA_LIB)
	@mkdir -p $(@D)
	$(CC) $(TOOL_LDFLAGS) -fopenmp -o $@ $(DP_CLI_OBJS) $(DPA_LIBS)
