#!/bin/sh
# deps.sh — make sure the Debian packages deepprof needs are installed.
# Quiet and fast when nothing is missing; as root, installs only what is
# missing; otherwise prints the apt-get command to run and fails.
# Part of deepprof's build (mk/). MIT licence.
#
# usage: mk/deps.sh [--bench] [--list]
#   --bench   also require what `make bench` needs (gprof, to compare against)
#   --list    print the required package names, one a line, and exit
# environment:
#   DEEPPROF_EXTRA_DEPS  more package names to require (space separated);
#                        tests use it to pretend a package is missing
#   DEEPPROF_DEPS_DROP   package names to leave out (space separated); the
#                        dependency test (tests/deps) uses it to prove that
#                        it notices a package missing from the list
#   DEEPPROF_APT_GET     the apt-get to run (default apt-get); tests stub it
#   DEEPPROF_DEPS_UID    the user id to act as (default: id -u); tests use it
#                        to take the not-root path
set -eu

# ---- the packages -----------------------------------------------------------
# Everything the build, the tests, `make demo` and `make bench` use must come
# from these packages or their Depends (or be on every Debian system:
# Essential or Priority: required); tests/deps (`make check-deps`) proves it
# and also that each package here is used, so keep this list and its reasons
# in step with the tree.
# build: compiler, make and pkg-config; g++ builds the GCC plugins; libc6-dev
# has the C library's headers, which gcc only recommends (and make deps
# installs no recommends).
# libraries: msgpack-c (Deep.data, feedback files), libdeflate (the crc32 of
# every file the tools read and write, several times zlib's speed), jansson
# (JSON), elfutils (symbols), CUnit (unit tests), libmicrohttpd (the HTTP
# server of `deepprof serve`), libunwind-dev (libprof/record.c includes
# <libunwind.h>: `deepprof record` unwinds each sampled stack; its
# libunwind8 is dlopen'ed at run time).
# tools: valgrind (memory checks; callgrind for the cross-check), python3 +
# jsonschema (schema tests) + msgpack (the fuzz, progrep, feedback and check suites
# read and write MessagePack), dpkg-dev and what unpacks a Debian source
# package (bzip2, xz-utils, patch): the cross-check (part of `make check`)
# and the benchmarks build bzip2 and zlib from `apt-get source`. chromium and
# python3-websocket: the serve suite's browser test (tests/serve/browser.py)
# drives headless chromium over its DevTools protocol, a websocket.
# lighttpd: the web server the cgi suite (tests/cgi) runs deepprof-cgi
# under, with its mod_cgi, as a user's web server would. ninja-build: the
# fbbatch suite (tests/fbbatch) runs the build.ninja that `deepprof batch
# --emit=ninja` writes, as it runs the Makefile of --emit=make with make.
core="gcc libc6-dev g++ make pkg-config libmsgpack-dev libjansson-dev libdw-dev libelf-dev
libdeflate-dev libcunit1-dev libmicrohttpd-dev libunwind-dev gcc-12-plugin-dev valgrind python3
python3-jsonschema python3-msgpack python3-websocket chromium dpkg-dev bzip2 xz-utils patch lighttpd
ninja-build"
# bench, in addition: building bzip2 and minigzip needs only gcc and make
# (above); binutils has size (the text size of each build) and gprofng
# (bench/record.py times `gprofng collect app` beside deepprof record). (Its
# gprof is not run: bench's gprof column times the -pg build.) linux-perf:
# bench/record.py compares deepprof record with `perf record -e cpu-clock`.
# tcl: tclsh runs the generators of sqlite3's amalgamation (the bench's large
# program).
bench="binutils linux-perf tcl"
# Packages that nothing in the tree runs, includes, links or imports itself
# (tests/deps reads these lines: "# why PACKAGE: reason"):
# why bzip2: dpkg-source runs it to unpack bzip2's .debian.tar.bz2 (the source the cross-check fetches)
# why xz-utils: dpkg-source runs xz to unpack .tar.xz sources (gawk, jq and zlib in make bench)
# why patch: dpkg-source runs it to apply the patches of "3.0 (quilt)" source packages

want=$core
list=0
for arg in "$@"; do
	case $arg in
	--bench) want="$want $bench" ;;
	--list) list=1 ;;
	*) echo "deepprof: mk/deps.sh: unknown option '$arg' (usage: mk/deps.sh [--bench] [--list])" >&2
	   exit 2 ;;
	esac
done
want="$want ${DEEPPROF_EXTRA_DEPS:-}"
# one a line, no duplicates, none of DEEPPROF_DEPS_DROP
want=$(printf '%s\n' $want | awk -v drop="${DEEPPROF_DEPS_DROP:-}" '
	BEGIN { n = split(drop, d, " "); for (i = 1; i <= n; i++) gone[d[i]] = 1 }
	NF && !($0 in gone) && !seen[$0]++')

if [ $list = 1 ]; then
	printf '%s\n' "$want"
	exit 0
fi

# ---- which are missing ------------------------------------------------------
if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deepprof: make deps needs Debian (dpkg-query not found); install the equivalents of:" $want >&2
	exit 1
fi
# One dpkg-query for all: it prints a line for each package it knows (even
# removed ones, with a status other than "install ok installed") and stays
# silent, apart from stderr, about names it has never heard of.
installed=$(dpkg-query -W -f='${Package} ${Status}\n' $want 2>/dev/null |
	awk '$2 == "install" && $3 == "ok" && $4 == "installed" { print $1 }') || true
missing=
for p in $want; do
	case " $(echo $installed) " in
	*" $p "*) ;;
	*) missing="$missing $p" ;;
	esac
done
missing=${missing# }
[ -n "$missing" ] || exit 0

# ---- install them, or say how -----------------------------------------------
uid=${DEEPPROF_DEPS_UID:-$(id -u)}
if [ "$uid" != 0 ]; then
	echo "deepprof: missing Debian packages: $missing — run: sudo apt-get install $missing" >&2
	exit 1
fi

apt=${DEEPPROF_APT_GET:-apt-get}
echo "deepprof: installing missing Debian packages: $missing"
export DEBIAN_FRONTEND=noninteractive
if ! $apt update -q </dev/null; then
	echo "deepprof: apt-get update failed; cannot install: $missing" >&2
	exit 1
fi
# word splitting of $missing is wanted: one argument per package
if ! $apt install -y -q --no-install-recommends $missing </dev/null; then
	echo "deepprof: apt-get install failed for: $missing" >&2
	exit 1
fi
