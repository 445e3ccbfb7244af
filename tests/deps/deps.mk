# tests/deps — check-deps: does mk/deps.sh --list name every Debian package
# the build and the tests use, and only those? tests/deps/check_deps.py
# finds the headers (every source file preprocessed with -M: make -nB's
# commands, with the real flags), libraries, pkg-config modules, Python
# imports and programs the tree uses, maps each to its Debian package
# (dpkg's file lists) and checks it against the closure of the list (the
# listed packages and their Depends/Pre-Depends, recursively, plus what
# every Debian system has); each listed package must be used, or say why
# on a "# why PACKAGE:" line of mk/deps.sh. run.py then proves it notices a
# package taken out (DEEPPROF_DEPS_DROP) or put in (DEEPPROF_EXTRA_DEPS),
# and what it finds on a made-up tree. Runs in seconds; builds nothing
# (make's command-line variables reach its `make -n` through MAKEFLAGS).
# Last line: "deps: N passed, N failed". Part of deepprof's tests. MIT licence.

.PHONY: check-deps
check-deps:
	@PYTHON=$(PYTHON) $(PYTHON) tests/deps/run.py $(BUILD)

CHECKS += check-deps
