# feedback — fragment: every feedback/*.c goes into $(LIB_DIR)/libdpfb.a, the
# feedback library that the deepprof command (cli/) and the GCC plugin link.
# calibrate.c measures libgomp's task overheads: it alone is compiled with
# -fopenmp, so whatever links libdpfb.a and calls dpf_calibrate() links libgomp.
# A new feedback/foo.c needs no edit here. Part of deepprof. MIT licence.

DPF_SRCS := $(wildcard feedback/*.c)
DPF_OBJS := $(patsubst feedback/%.c,$(OBJ_DIR)/feedback/%.o,$(DPF_SRCS))
DPF_LIB  := $(LIB_DIR)/libdpfb.a
# What a program linking libdpfb.a needs after it on the command line.
DPF_LIBS := $(DPF_LIB) $(DPA_LIBS)

all: $(DPF_LIB)

$(OBJ_DIR)/feedback/%.o: feedback/%.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LIB_PIC) -Ianalyses -Ifeedback -c -o $@ $<

$(OBJ_DIR)/feedback/calibrate.o: feedback/calibrate.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LIB_PIC) -fopenmp -Ianalyses -Ifeedback -c -o $@ $<

$(DPF_LIB): $(DPF_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^
