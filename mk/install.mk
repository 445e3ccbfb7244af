# mk/install.mk — `make install PREFIX=... [DESTDIR=...]` installs what each
# module's fragment hangs on `install` (libprof/module.mk: install-libprof);
# this file adds the deepprof command, which cli/module.mk builds.
# Part of deepprof's build. MIT licence.

.PHONY: install-bin

install: install-bin
install-bin: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN_DIR)/deepprof $(DESTDIR)$(PREFIX)/bin/deepprof
