#!/bin/sh
# fetch_test.sh — tests of bench/fetch-src.sh that need no network: the
# deb-src entries it derives from deb822 and one-line apt sources, and its
# usage errors. Prints "xcheck-fetch: N passed, N failed".
# Part of deepprof's cross-check. MIT licence.
#
#   fetch_test.sh WORKDIR
set -u
work=${1:?usage: fetch_test.sh WORKDIR}
here=$(cd "$(dirname "$0")" && pwd)
fetch="$here/../../bench/fetch-src.sh"
passed=0 failed=0

check() {   # NAME EXPECTED-FILE ACTUAL-FILE
	if cmp -s "$2" "$3"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL $1:"; diff "$2" "$3" | head -n 20
	fi
}

rm -rf "$work"
mkdir -p "$work/apt/sources.list.d" "$work/dest"

# deb822: two stanzas, one disabled, one deb-src only, a comment, an inline key
cat >"$work/apt/sources.list.d/debian.sources" <<'X'
Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://example.org/off
Suites: x
Components: main
Enabled: no

Types: deb-src
URIs: http://example.org/src-only
Suites: y
X
# one-line style, with options in brackets and a trailing comment
cat >"$work/apt/sources.list" <<'X'
# comment
deb [arch=amd64 signed-by=/k.gpg] http://deb.example.org/debian bookworm main contrib
deb http://security.example.org/ bookworm-security main # trailing
deb-src http://ignored.example.org/ z main
X
cat >"$work/want" <<'X'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.example.org/debian
Suites: bookworm
Components: main contrib
Signed-By: /k.gpg

Types: deb-src
URIs: http://security.example.org/
Suites: bookworm-security
Components: main

X
DEEPPROF_APT_DIR="$work/apt" DEEPPROF_DERIVE_ONLY=1 sh "$fetch" bzip2 "$work/dest" >"$work/got" 2>&1
check "derived deb-src entries" "$work/want" "$work/got"

# usage errors: exit 2 and one line naming the problem
expect_usage() {    # NAME WANT-FRAGMENT ARGS...
	name=$1 frag=$2; shift 2
	out=$(sh "$fetch" "$@" 2>&1); rc=$?
	if [ $rc = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		printf '%s' "$out" | grep -q "$frag"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1)); echo "FAIL $name: exit $rc, output: $out"
	fi
}
expect_usage "no arguments" "usage:"
expect_usage "three arguments" "usage:" a b c
expect_usage "bad package name" "bad package name" ../x "$work/dest"

# cache: an existing DESTDIR/PKG is left alone, with no apt call at all
mkdir -p "$work/dest/cached-1.0"
ln -s cached-1.0 "$work/dest/cachedpkg"
if DEEPPROF_APT_DIR=/nonexistent sh "$fetch" cachedpkg "$work/dest" >"$work/out" 2>&1 &&
	[ ! -s "$work/out" ]; then
	passed=$((passed + 1))
else
	failed=$((failed + 1)); echo "FAIL cache: $(cat "$work/out")"
fi

# errors that end the fetch: exit 1, one line on stderr naming the problem
expect_fail() {     # NAME WANT-FRAGMENT (environment set by the caller)
	if [ "$rc" = 1 ] && [ "$(wc -l <"$work/err")" = 1 ] && grep -q "$2" "$work/err"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1)); echo "FAIL $1: exit $rc, stderr: $(cat "$work/err")"
	fi
}
mkdir -p "$work/apt2/sources.list.d"
printf 'deb http://deb.example.org/debian bookworm main\n' >"$work/apt2/sources.list"

DEEPPROF_APT_DIR="$work/apt2" DEEPPROF_FETCH_UID=1000 \
	sh "$fetch" bzip2 "$work/dest" >/dev/null 2>"$work/err"; rc=$?
expect_fail "not root" "not root: no deb-src entry"

# no network: a stand-in apt-get whose update fails as apt's does offline
cat >"$work/apt-get" <<'X'
#!/bin/sh
echo "Err:1 http://deb.example.org/debian bookworm InRelease"
echo "  Temporary failure resolving 'deb.example.org'"
echo "W: Failed to fetch http://deb.example.org/debian/dists/bookworm/InRelease"
echo "W: Some index files failed to download. They have been ignored, or old ones used instead."
exit 0
X
chmod +x "$work/apt-get"
DEEPPROF_APT_DIR="$work/apt2" DEEPPROF_FETCH_UID=0 DEEPPROF_APT_GET="$work/apt-get" \
	DEEPPROF_SRC_SOURCES="$work/apt2/sources.list.d/deepprof-src.sources" \
	sh "$fetch" bzip2 "$work/dest" >/dev/null 2>"$work/err.all"; rc=$?
grep -v '^fetch-src.sh: added deb-src' "$work/err.all" >"$work/err"
expect_fail "no network" "no network?.*Temporary failure\|no network?.*Err:1"
printf 'Types: deb-src\nURIs: http://deb.example.org/debian\nSuites: bookworm\nComponents: main\n\n' >"$work/want2"
grep -v '^#' "$work/apt2/sources.list.d/deepprof-src.sources" | sed '1{/^$/d}' >"$work/got2" 2>/dev/null
check "deb-src file written before the update" "$work/want2" "$work/got2"

# the newest source version's files are gone (a security mirror that keeps
# binaries only): the next older version the indexes offer is fetched
mkdir -p "$work/apt3"
printf 'deb-src http://deb.example.org/debian bookworm main\n' >"$work/apt3/sources.list"
cat >"$work/apt-get" <<'X'
#!/bin/sh
for last; do :; done
case "$*" in
*source*) [ "$last" = "jq=1.6-2" ] && { : >jq_1.6-2.dsc; exit 0; }
	echo "E: Failed to fetch http://deb.example.org/debian/pool/main/j/jq/jq_1.6-3.dsc  404  Not Found"
	exit 100 ;;
esac
exit 0
X
cat >"$work/apt-cache" <<'X'
#!/bin/sh
printf 'Package: jq\nVersion: 1.6-2\n\nPackage: jq\nVersion: 1.6-3\n\n'
X
cat >"$work/dpkg-source" <<'X'
#!/bin/sh
mkdir "$3" && : >"$3/configure.ac"
X
chmod +x "$work/apt-get" "$work/apt-cache" "$work/dpkg-source"
abs=$(cd "$work" && pwd)     # fetch-src.sh runs apt-get and dpkg-source in a directory of its own
DEEPPROF_APT_DIR="$work/apt3" DEEPPROF_FETCH_UID=0 DEEPPROF_APT_GET="$abs/apt-get" \
	DEEPPROF_APT_CACHE="$abs/apt-cache" DEEPPROF_DPKG_SOURCE="$abs/dpkg-source" \
	sh "$fetch" jq "$work/dest" >/dev/null 2>"$work/err"; rc=$?
if [ "$rc" = 0 ] && [ "$(readlink "$work/dest/jq")" = jq-1.6-2 ] && [ -f "$work/dest/jq/configure.ac" ]; then
	passed=$((passed + 1))
else
	failed=$((failed + 1)); echo "FAIL older version: exit $rc, jq -> $(readlink "$work/dest/jq"), stderr: $(cat "$work/err")"
fi

echo "xcheck-fetch: $passed passed, $failed failed"
[ $failed = 0 ]
