#!/bin/sh
# run.sh — the install suite: `make deps`'s script (mk/deps.sh) on pretended
# missing packages, then `make install` into a scratch PREFIX, a program
# built from the installed files alone (pkg-config libprof) and one built
# with the installed deepprof-cc, profiled and dumped by the installed
# deepprof. Ends with "install: N passed, N failed".
# Part of deepprof's tests. MIT licence.
#
# usage: tests/install/run.sh WORKDIR   (from the top of the tree; make passes
# MAKE, CC, SAN_PROF and PYTHON in the environment)
set -u

work=${1:?usage: tests/install/run.sh WORKDIR}
MAKE=${MAKE:-make}
CC=${CC:-gcc}
PYTHON=${PYTHON:-/usr/bin/python3}
SAN_PROF=${SAN_PROF:-}

passed=0
failed=0
ok()   { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
# show the last lines of a log under a failure
show() { sed -n '1,20s/^/     | /p' "$1"; }

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)

# ---- mk/deps.sh -------------------------------------------------------------

# Everything the build needs is installed by now (check depends on deps):
# the script must say nothing and succeed.
if sh mk/deps.sh >"$work/deps.out" 2>&1 && [ ! -s "$work/deps.out" ]; then
	ok "deps: nothing missing: silent, exit 0"
else
	fail "deps: nothing missing: expected silence and exit 0"; show "$work/deps.out"
fi

# Not root, two packages missing (gcc is installed and must not be named).
DEEPPROF_EXTRA_DEPS="deepprof-test-absent-a gcc deepprof-test-absent-b" DEEPPROF_DEPS_UID=1000 \
	sh mk/deps.sh >"$work/deps.out" 2>&1
rc=$?
want="deepprof: missing Debian packages: deepprof-test-absent-a deepprof-test-absent-b — run: sudo apt-get install deepprof-test-absent-a deepprof-test-absent-b"
if [ $rc = 1 ] && [ "$(cat "$work/deps.out")" = "$want" ]; then
	ok "deps: not root: names the missing packages and the command, exit 1"
else
	fail "deps: not root: exit $rc, expected 1 and: $want"; show "$work/deps.out"
fi

# Root, with apt-get stubbed: one update, then an install of only the missing
# package, non-interactive, without recommends, stdin closed.
cat >"$work/apt-get" <<EOF
#!/bin/sh
echo "\$DEBIAN_FRONTEND \$*" >>"$work/apt.log"
[ "\${STUB_FAIL_INSTALL:-}" = 1 ] && [ "\$1" = install ] && exit 100
read -r line && echo "stdin was open" >>"$work/apt.log"
exit 0
EOF
chmod +x "$work/apt-get"
rm -f "$work/apt.log"
DEEPPROF_EXTRA_DEPS="deepprof-test-absent-a" DEEPPROF_DEPS_UID=0 DEEPPROF_APT_GET="$work/apt-get" \
	sh mk/deps.sh >"$work/deps.out" 2>&1 </dev/zero
rc=$?
printf '%s\n' "noninteractive update -q" \
	"noninteractive install -y -q --no-install-recommends deepprof-test-absent-a" >"$work/apt.want"
if [ $rc = 0 ] && cmp -s "$work/apt.log" "$work/apt.want"; then
	ok "deps: root: apt-get update once, then install only the missing package"
else
	fail "deps: root: exit $rc; apt-get calls were:"; show "$work/apt.log"
fi

rm -f "$work/apt.log"
STUB_FAIL_INSTALL=1 DEEPPROF_EXTRA_DEPS="deepprof-test-absent-a" DEEPPROF_DEPS_UID=0 \
	DEEPPROF_APT_GET="$work/apt-get" sh mk/deps.sh >"$work/deps.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -qx "deepprof: apt-get install failed for: deepprof-test-absent-a" "$work/deps.out"; then
	ok "deps: root: a failing apt-get install fails the step, naming the packages"
else
	fail "deps: root: failing install: exit $rc"; show "$work/deps.out"
fi

sh mk/deps.sh --bogus >"$work/deps.out" 2>&1
rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$work/deps.out")" = 1 ]; then
	ok "deps: unknown option: one line, exit 2"
else
	fail "deps: unknown option: exit $rc"; show "$work/deps.out"
fi

# has "LIST" WORD: is WORD one of the words of LIST?
has() { case " $1 " in *" $2 "*) return 0 ;; esac; return 1; }
plain=$(sh mk/deps.sh --list | tr '\n' ' ')
bench=$(sh mk/deps.sh --bench --list | tr '\n' ' ')
if has "$plain" dpkg-dev && has "$plain" bzip2 && ! has "$plain" binutils &&
   has "$bench" dpkg-dev && has "$bench" binutils; then
	ok "deps: dpkg-dev and bzip2 always; binutils (size) for bench only"
else
	fail "deps: --list: $plain; --bench --list: $bench"
fi

# ---- make install -----------------------------------------------------------

prefix=$work/prefix
if $MAKE --no-print-directory install PREFIX="$prefix" >"$work/install.log" 2>&1; then
	ok "make install PREFIX=$prefix"
else
	fail "make install PREFIX=$prefix"; tail -n 20 "$work/install.log" | sed 's/^/     | /'
fi

missing=
for f in bin/deepprof bin/deepprof-cgi lib/libprof.a lib/libprof.so include/deepprof.h lib/pkgconfig/libprof.pc; do
	[ -f "$prefix/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then
	ok "installed: bin/deepprof, bin/deepprof-cgi, libprof.a, libprof.so, deepprof.h, libprof.pc"
else
	fail "not installed:$missing"
fi

# A staged install (packagers): files under DESTDIR, paths inside them
# naming PREFIX alone.
dest=$work/dest
if $MAKE --no-print-directory install PREFIX=/opt/deepprof DESTDIR="$dest" >"$work/destdir.log" 2>&1 &&
   [ -x "$dest/opt/deepprof/bin/deepprof" ] && [ -f "$dest/opt/deepprof/lib/libprof.a" ] &&
   grep -qx 'prefix=/opt/deepprof' "$dest/opt/deepprof/lib/pkgconfig/libprof.pc" &&
   ! grep -q "$dest" "$dest/opt/deepprof/lib/pkgconfig/libprof.pc"; then
	ok "make install DESTDIR=... PREFIX=/opt/deepprof: staged, .pc says prefix=/opt/deepprof"
else
	fail "make install DESTDIR=$dest PREFIX=/opt/deepprof"; tail -n 20 "$work/destdir.log" | sed 's/^/     | /'
fi

# The installed .pc must point into PREFIX, not back into the build tree.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
flags=$(pkg-config --cflags --libs libprof 2>"$work/pc.err")
case "$flags" in
*"-I$prefix/include"*"-L$prefix/lib"*) ok "pkg-config libprof: $flags" ;;
*) fail "pkg-config --cflags --libs libprof: '$flags'"; show "$work/pc.err" ;;
esac

# Build from the installed files alone: the build tree's headers and
# libraries are nowhere on the command line.
prog=$work/hello
# shellcheck disable=SC2086  # $flags and $SAN_PROF are lists of words
if $CC -std=gnu11 -g -O0 -finstrument-functions $SAN_PROF -o "$prog" tests/install/hello.c \
	$flags >"$work/cc.log" 2>&1; then
	ok "hello.c compiles and links with pkg-config libprof"
else
	fail "hello.c with pkg-config libprof"; show "$work/cc.log"
fi

data=$work/Deep.data
snap=$work/snapshot.data
rm -f "$data" "$snap"
out=$(DEEPPROF_FILE="$data" "$prog" "$snap" 2>"$work/run.err")
rc=$?
if [ $rc = 0 ] && [ "$out" = 21 ] && [ -s "$data" ] && [ -s "$snap" ]; then
	ok "hello runs (prints 21) and leaves Deep.data and its dp_write() snapshot"
else
	fail "hello: exit $rc, printed '$out'; Deep.data $( [ -s "$data" ] && echo present || echo missing), snapshot $( [ -s "$snap" ] && echo present || echo missing)"
	show "$work/run.err"
fi

if "$prefix/bin/deepprof" dump "$data" >"$work/dump.txt" 2>&1 && grep -q leaf "$work/dump.txt"; then
	ok "installed deepprof dump reads it and names leaf"
else
	fail "installed deepprof dump $data"; show "$work/dump.txt"
fi

# checks ARGS...: run check_dump.py ARGS and add its ok/FAIL lines to the counts
# (a crash or a usage error, which print no "ok" line, counts as one FAIL).
checks() {
	"$PYTHON" tests/install/check_dump.py "$@" >"$work/checks.out" 2>&1
	n_ok=$(grep -c '^ok ' "$work/checks.out")
	n_fail=$(grep -vc '^ok ' "$work/checks.out")
	passed=$((passed + n_ok))
	failed=$((failed + n_fail))
	sed 's/^ok  */ok   dump --json: /; s/^FAIL */FAIL dump --json: /' "$work/checks.out"
}

if "$prefix/bin/deepprof" dump --json "$data" >"$work/final.json" 2>"$work/json.err" &&
   "$prefix/bin/deepprof" dump --json "$snap" >"$work/snap.json" 2>>"$work/json.err"; then
	checks hello "$work/final.json" "$work/snap.json"
else
	fail "installed deepprof dump --json"; show "$work/json.err"
fi

# ---- the installed deepprof-cc (GCC plugin mode) ----------------------------

# It finds its plugin and libprof relative to itself, under PREFIX.
loops=$work/loops
if "$prefix/bin/deepprof-cc" -g -O0 $SAN_PROF -o "$loops" tests/install/loops.c >"$work/dpcc.log" 2>&1; then
	ok "installed deepprof-cc builds loops.c"
else
	fail "installed deepprof-cc -o $loops tests/install/loops.c"; show "$work/dpcc.log"
fi
rm -f "$work/loops.data"
if DEEPPROF_FILE="$work/loops.data" "$loops" 2>"$work/run.err" &&
   "$prefix/bin/deepprof" dump --json "$work/loops.data" >"$work/loops.json" 2>>"$work/run.err"; then
	checks loops "$work/loops.json"
else
	fail "loops (deepprof-cc build) run and dump --json"; show "$work/run.err"
fi

echo "install: $passed passed, $failed failed"
[ $failed = 0 ]
