# feedback — fragment: every feedback/*.c goes into $(LIB_DIR)/libdpfb.a, the
# feedback library that the deepprof command (cli/) and the GCC plugin link,
# before libdpa.a. Its objects are position-independent ($(LIB_PIC)) so that
# the plugin, a shared object, can link it. calibrate.c measures libgomp's
# task overheads: it alone is compiled with -fopenmp, so whatever calls
# dpf_calibrate() links libgomp. feedback/README.md has the headers and the
# graph of which file calls which (a DAG, checked by check-layout).
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
