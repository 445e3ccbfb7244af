# analyses — fragment: every analyses/*.c goes into $(LIB_DIR)/libdpa.a, the
# library the tools and the feedback library link (read Deep.data, symbols,
# startup, cliques, ...), built from position-independent objects ($(LIB_PIC)).
# A new analyses/foo.c needs no edit here. Part of deepprof. MIT licence.

DPA_SRCS := $(wildcard analyses/*.c)
DPA_OBJS := $(patsubst analyses/%.c,$(OBJ_DIR)/analyses/%.o,$(DPA_SRCS))
DPA_LIB  := $(LIB_DIR)/libdpa.a
# What a program linking libdpa.a needs after it on the command line.
DPA_LIBS := $(DPA_LIB) $(TOOL_LIBS)

all: $(DPA_LIB)

$(OBJ_DIR)/analyses/%.o: analyses/%.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LIB_PIC) -Ianalyses -c -o $@ $<

$(DPA_LIB): $(DPA_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^
