# libprof — the runtime linked into profiled programs (static and shared),
# its public header and pkg-config files. Never built with -finstrument-functions.

# record.c (sampling for `deepprof record`) uses libunwind (dlopen'ed at run
# time, RTLD_LOCAL): it goes only into libprof-record.so, the object deepprof
# record preloads.
LIBPROF_SRCS := $(filter-out libprof/record.c,$(wildcard libprof/*.c))
LIBPROF_OBJS := $(patsubst libprof/%.c,$(OBJ_DIR)/libprof/%.o,$(LIBPROF_SRCS))
LIBPROF_PICS := $(patsubst libprof/%.c,$(OBJ_DIR)/libprof/pic/%.o,$(LIBPROF_SRCS))
LIBPROF_CFLAGS := $(CFLAGS_COMMON) $(SAN_PROF) -fvisibility=hidden -fno-builtin \
	-fno-omit-frame-pointer -ftls-model=initial-exec -Icompiler-plugins \
	$(shell pkg-config --cflags msgpack 2>/dev/null)
# Nothing beyond libc: msgpack-c's packer is header-only (static inline).
LIBPROF_LIBS_PRIVATE := -lpthread

LIBPROF_A  := $(LIB_DIR)/libprof.a
LIBPROF_SO := $(LIB_DIR)/libprof.so
LIBPROF_PC := $(LIB_DIR)/pkgconfig/libprof.pc
LIBPROF_INC := $(BUILD)/include/deepprof.h

all: $(LIBPROF_A) $(LIBPROF_SO) $(LIBPROF_PC) $(LIBPROF_INC)
.PHONY: libprof install-libprof
libprof: $(LIBPROF_A) $(LIBPROF_SO) $(LIBPROF_PC) $(LIBPROF_INC)

# Every object's code goes to one section, deepprof_text, whose bounds the
# linker names (__start_/__stop_deepprof_text): a clock tick there is the
# runtime's own time, charged apart from the program's (timer.c). The
# compiler's object is $@.tmp, so that a failed objcopy leaves no $@.
OBJCOPY ?= objcopy
LIBPROF_TEXT := $(foreach s,.text .text.unlikely .text.hot .text.startup .text.exit, \
	--rename-section $(s)=deepprof_text)

# sigwrap.c: libprof.a's __wrap_sigaction and __wrap_signal (deepprof-cc
# links with --wrap), libprof.so's sigaction and signal themselves.
$(OBJ_DIR)/libprof/pic/sigwrap.o: LIBPROF_CFLAGS += -DDP_SIGWRAP_SHARED
# dlwrap.c: the same for dlclose (libprof.a's __wrap_dlclose, libprof.so's dlclose).
$(OBJ_DIR)/libprof/pic/dlwrap.o: LIBPROF_CFLAGS += -DDP_DLWRAP_SHARED
# procwrap.c: _exit, _Exit and the exec functions (libprof.a's __wrap_ ones for
# deepprof-cc --deepprof-mode=cyg, libprof.so's own); deepprof record's
# runtime has _exit and _Exit from a third build (record.c has the execs).
$(OBJ_DIR)/libprof/pic/procwrap.o: LIBPROF_CFLAGS += -DDP_PROCWRAP_SHARED
$(OBJ_DIR)/libprof/pic/procwrap-rec.o: LIBPROF_CFLAGS += -DDP_PROCWRAP_SHARED -DDP_PROCWRAP_NO_EXEC
$(OBJ_DIR)/libprof/pic/procwrap-rec.o: libprof/procwrap.c libprof/module.mk
	@mkdir -p $(dir $@)
	$(CC) $(LIBPROF_CFLAGS) -fPIC -MT $@ -MF $(@:.o=.d) -c -o $@.tmp $<
	$(OBJCOPY) $(LIBPROF_TEXT) $@.tmp $@
	rm -f $@.tmp

# alloc.c's malloc & co run at every allocation: GCC's SLP vectorizer made
# the two increments of a csd's allocs and bytes six SSE instructions.
$(OBJ_DIR)/libprof/alloc.o $(OBJ_DIR)/libprof/pic/alloc.o: LIBPROF_CFLAGS += -fno-tree-slp-vectorize

# The -finstrument-functions hooks run at every call: no frame pointer
# (three instructions per hook; their call frame information is exact).
$(OBJ_DIR)/libprof/cyg.o $(OBJ_DIR)/libprof/pic/cyg.o: LIBPROF_CFLAGS += -fomit-frame-pointer

$(OBJ_DIR)/libprof/%.o: libprof/%.c libprof/module.mk
	@mkdir -p $(dir $@)
	$(CC) $(LIBPROF_CFLAGS) -MT $@ -MF $(@:.o=.d) -c -o $@.tmp $<
	$(OBJCOPY) $(LIBPROF_TEXT) $@.tmp $@
	rm -f $@.tmp

$(OBJ_DIR)/libprof/pic/%.o: libprof/%.c libprof/module.mk
	@mkdir -p $(dir $@)
	$(CC) $(LIBPROF_CFLAGS) -fPIC -MT $@ -MF $(@:.o=.d) -c -o $@.tmp $<
	$(OBJCOPY) $(LIBPROF_TEXT) $@.tmp $@
	rm -f $@.tmp

$(LIBPROF_A): $(LIBPROF_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(LIBPROF_SO): $(LIBPROF_PICS)
	@mkdir -p $(dir $@)
	$(CC) -shared $(SAN_PROF) -Wl,-soname,libprof.so -o $@ $^ $(LIBPROF_LIBS_PRIVATE)

# libprof-record.so: the runtime plus record.c, for LD_PRELOAD into an
# unmodified program (cli/cmd_record.c finds it as ../lib/ from deepprof);
# without alloc.c and omp.c, whose malloc and GOMP_* wrappers would add
# frames and cost to every sampled program (record.c stubs dp_alloc_link),
# and sigmask.c and sigwrap.c, whose wrappers record.c has with its own
# checks, and dlwrap.c (record's writes rescan the modules); nor check.c,
# the check build's (write.c's references to it are weak).
LIBPROF_REC_SO := $(LIB_DIR)/libprof-record.so
LIBPROF_REC_PICS := $(filter-out %/alloc.o %/omp.o %/sigmask.o %/sigwrap.o %/dlwrap.o %/procwrap.o \
	%/check.o,$(LIBPROF_PICS)) \
	$(OBJ_DIR)/libprof/pic/record.o $(OBJ_DIR)/libprof/pic/procwrap-rec.o
all: $(LIBPROF_REC_SO)
$(LIBPROF_REC_SO): $(LIBPROF_REC_PICS)
	@mkdir -p $(dir $@)
	$(CC) -shared $(SAN_PROF) -Wl,-soname,libprof-record.so -Wl,-z,defs -o $@ $^ \
		$(LIBPROF_LIBS_PRIVATE) -ldl

$(LIBPROF_INC): libprof/deepprof.h
	@mkdir -p $(dir $@)
	cp $< $@

# pkg-config file for prefix $(1), libdir $(2), includedir $(3), written to $(4).
libprof_pc = printf '%s\n' 'prefix=$(1)' 'libdir=$(2)' 'includedir=$(3)' '' \
	'Name: libprof' \
	'Description: deepprof runtime: deep call-graph profiling of -finstrument-functions programs' \
	'Version: 1.0' \
	'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lprof' \
	'Libs.private: $(LIBPROF_LIBS_PRIVATE)' \
	'Cflags: -I$${includedir}' >$(4)

$(LIBPROF_PC): libprof/module.mk
	@mkdir -p $(dir $@)
	$(call libprof_pc,$(abspath $(BUILD)),$(abspath $(LIB_DIR)),$(abspath $(BUILD)/include),$@)

install: install-libprof
install-libprof: $(LIBPROF_A) $(LIBPROF_SO) $(LIBPROF_REC_SO) libprof/deepprof.h
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 644 $(LIBPROF_A) $(DESTDIR)$(PREFIX)/lib/libprof.a
	install -m 755 $(LIBPROF_SO) $(DESTDIR)$(PREFIX)/lib/libprof.so
	install -m 755 $(LIBPROF_REC_SO) $(DESTDIR)$(PREFIX)/lib/libprof-record.so
	install -m 644 libprof/deepprof.h $(DESTDIR)$(PREFIX)/include/deepprof.h
	$(call libprof_pc,$(PREFIX),$(PREFIX)/lib,$(PREFIX)/include,$(DESTDIR)$(PREFIX)/lib/pkgconfig/libprof.pc)

# What a program linked with $(LIBPROF_A) needs after it (other fragments use this).
LIBPROF_LIBS := $(LIBPROF_LIBS_PRIVATE)
