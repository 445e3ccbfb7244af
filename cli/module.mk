# cli — fragment: the command-line tool $(BIN_DIR)/deepprof, built from
# every cli/*.c (main.c holds the subcommand table, one cmd_*.c per
# subcommand) over libdpfb.a (feedback/) and libdpa.a (analyses/). It links
# libgomp (-fopenmp) for `deepprof calibrate` (feedback/calibrate.c), and
# libmicrohttpd for `deepprof serve` (cmd_serve.c).
# Part of deepprof. MIT licence.

DP_CLI_SRCS := $(wildcard cli/*.c)
DP_CLI_OBJS := $(patsubst cli/%.c,$(OBJ_DIR)/cli/%.o,$(DP_CLI_SRCS))
DP_CLI      := $(BIN_DIR)/deepprof
DP_CLI_MHD_CFLAGS := $(shell pkg-config --cflags libmicrohttpd 2>/dev/null)
DP_CLI_MHD_LIBS   := $(shell pkg-config --libs libmicrohttpd 2>/dev/null)

all: $(DP_CLI)

$(OBJ_DIR)/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(DP_CLI_MHD_CFLAGS) -Ianalyses -Ifeedback -Icli -c -o $@ $<

$(DP_CLI): $(DP_CLI_OBJS) $(DPF_LIB) $(DPA_LIB)
	@mkdir -p $(@D)
	$(CC) $(TOOL_LDFLAGS) -fopenmp -o $@ $(DP_CLI_OBJS) $(DPF_LIBS) $(DP_CLI_MHD_LIBS)
