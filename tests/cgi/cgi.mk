# tests/cgi — fragment: `make check-cgi` runs deepprof-cgi behind a real
# web server, lighttpd's mod_cgi, started as the current user on 127.0.0.1
# and a free port with a generated configuration (run.py): 50 concurrent
# clients across the first start, an idle shutdown and a changed data file;
# a SIGKILLed lock holder; clients that die after sending; quit, restart,
# timeout/N; the first answer's time; bad input. Scratch:
# $(BUILD)/tests/cgi. Last line: "cgi: N passed, N failed".
# Part of deepprof's tests. MIT licence.

CHECKS += check-cgi
.PHONY: check-cgi

check-cgi: $(DP_CGI) $(LIB_DIR)/libprof.a $(BUILD)/include/deepprof.h
	@$(PYTHON) tests/cgi/run.py --build $(BUILD) --cc $(CC) --cflags "$(SAN_PROF)"
