# cgi — fragment: $(BIN_DIR)/deepprof-cgi, the deep profiler's pages behind
# an existing web server (Mercury's mdprof_cgi protocol; cgi_main.c), built
# from every cgi/cgi_*.c over libdpa.a, whose pages.c makes the pages;
# `make install` puts it beside deepprof. Part of deepprof. MIT licence.

DP_CGI_SRCS := $(wildcard cgi/cgi_*.c)
DP_CGI_OBJS := $(patsubst cgi/%.c,$(OBJ_DIR)/cgi/%.o,$(DP_CGI_SRCS))
DP_CGI      := $(BIN_DIR)/deepprof-cgi

all: $(DP_CGI)

$(OBJ_DIR)/cgi/%.o: cgi/%.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -pthread -Icgi -Ianalyses -c -o $@ $<

$(DP_CGI): $(DP_CGI_OBJS) $(DPA_LIB)
	@mkdir -p $(@D)
	$(CC) $(TOOL_LDFLAGS) -pthread -o $@ $(DP_CGI_OBJS) $(DPA_LIBS)

.PHONY: install-cgi
install: install-cgi
install-cgi: $(DP_CGI)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(DP_CGI) $(DESTDIR)$(PREFIX)/bin/deepprof-cgi
