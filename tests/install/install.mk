# tests/install — check-install: mk/deps.sh on pretended missing packages,
# then `make install` into a scratch PREFIX under $(BUILD) (and a staged
# DESTDIR one); a program built with `pkg-config libprof` from the installed
# files and one built with the installed deepprof-cc, run and dumped by the
# installed deepprof with exact counts. Part of deepprof's tests. MIT licence.

.PHONY: check-install
CHECKS += check-install

check-install:
	@MAKE="$(MAKE)" CC="$(CC)" SAN_PROF="$(SAN_PROF)" PYTHON="$(PYTHON)" \
		sh tests/install/run.sh $(BUILD)/install-test
