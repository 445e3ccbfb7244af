#!/bin/sh
# fetch-src.sh — unpack a Debian source package into DESTDIR/PKG (a symlink to
# the unpacked tree), adding deb-src entries derived from the machine's own apt
# sources when there are none. Part of deepprof's bench and xcheck. MIT licence.
#
#   bench/fetch-src.sh PKG DESTDIR
#
# Does nothing when DESTDIR/PKG already exists. Exit 2 on bad usage, 1 when the
# source cannot be had (not root, no network, unknown package).
set -eu

me=fetch-src.sh
die() { echo "$me: $*" >&2; exit "${rc:-1}"; }

[ $# -eq 2 ] || rc=2 die "usage: $me PKG DESTDIR"
pkg=$1
dest=$2
case $pkg in
	''|-*|*/*) rc=2 die "bad package name '$pkg'" ;;
esac

# The environment variables below exist for tests (tests/xcheck/fetch_test.sh).
SRC_FILE=${DEEPPROF_SRC_SOURCES:-/etc/apt/sources.list.d/deepprof-src.sources}
APT_DIR=${DEEPPROF_APT_DIR:-/etc/apt}
APT_GET=${DEEPPROF_APT_GET:-apt-get}
APT_CACHE=${DEEPPROF_APT_CACHE:-apt-cache}
DPKG_SOURCE=${DEEPPROF_DPKG_SOURCE:-dpkg-source}
UID_NOW=${DEEPPROF_FETCH_UID:-$(id -u)}

mkdir -p "$dest" || die "$dest: cannot create directory"
dest=$(cd "$dest" && pwd)

# Cache: the symlink is made last, only after a complete unpack.
if [ -d "$dest/$pkg" ]; then
	exit 0
fi

# Serialize concurrent fetches into the same DESTDIR (bench and xcheck may run together).
exec 9>"$dest/.lock"
if command -v flock >/dev/null 2>&1; then
	flock 9
fi
[ -d "$dest/$pkg" ] && exit 0

# ---------------------------------------------------------------- deb-src entries

# Print "yes" if any enabled apt source already offers deb-src.
have_deb_src() {
	for f in "$APT_DIR/sources.list" "$APT_DIR"/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		if grep -Eq '^[[:space:]]*deb-src[[:space:]]' "$f"; then echo yes; return; fi
	done
	for f in "$APT_DIR"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		if awk 'BEGIN{IGNORECASE=1}
			/^[ \t]*#/ {next}
			/^[Tt]ypes:/ { for (i = 2; i <= NF; i++) if ($i == "deb-src") found = 1 }
			END { exit !found }' "$f"; then echo yes; return; fi
	done
	echo no
}

# Write deb-src stanzas (deb822) for every enabled "deb" source, to stdout.
derive_deb_src() {
	# deb822 files: copy URIs/Suites/Components/Signed-By of each stanza whose
	# Types include "deb" and which is not "Enabled: no".
	for f in "$APT_DIR"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		[ "$f" = "$SRC_FILE" ] && continue
		awk '
		function flush() {
			if (isdeb && enabled && uris != "" && suites != "") {
				printf "Types: deb-src\nURIs: %s\nSuites: %s\n", uris, suites
				if (comps != "") printf "Components: %s\n", comps
				if (signed != "") printf "Signed-By: %s\n", signed
				printf "\n"
			}
			isdeb = 0; enabled = 1; uris = suites = comps = signed = ""; last = ""
		}
		function val(line) { sub(/^[^:]*:[ \t]*/, "", line); return line }
		BEGIN { enabled = 1 }
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		/^[ \t]/ { if (last == "signed") next; next }   # continuation lines (inline keys): skip
		{
			key = tolower($1); last = ""
			if (key == "types:") { for (i = 2; i <= NF; i++) if ($i == "deb") isdeb = 1 }
			else if (key == "uris:") uris = val($0)
			else if (key == "suites:") suites = val($0)
			else if (key == "components:") comps = val($0)
			else if (key == "enabled:") { if (tolower($2) == "no") enabled = 0 }
			else if (key == "signed-by:") { signed = val($0); last = "signed" }
		}
		END { flush() }' "$f"
	done
	# one-line style: deb [options] URI SUITE COMPONENT...
	for f in "$APT_DIR/sources.list" "$APT_DIR"/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '
		/^[ \t]*deb[ \t]/ {
			i = 2; signed = ""
			if ($2 ~ /^\[/) {
				# options in brackets, possibly several words
				while (i <= NF) {
					w = $i; gsub(/[\[\]]/, "", w)
					if (w ~ /^signed-by=/) { sub(/^signed-by=/, "", w); signed = w }
					if ($i ~ /\]$/) { i++; break }
					i++
				}
			}
			uri = $i; suite = $(i + 1); comps = ""
			for (j = i + 2; j <= NF && $j !~ /^#/; j++) comps = comps (comps == "" ? "" : " ") $j
			if (uri == "" || suite == "") next
			printf "Types: deb-src\nURIs: %s\nSuites: %s\n", uri, suite
			if (comps != "") printf "Components: %s\n", comps
			if (signed != "") printf "Signed-By: %s\n", signed
			printf "\n"
		}' "$f"
	done
}

if [ "${DEEPPROF_DERIVE_ONLY:-}" = 1 ]; then
	# Testing aid: print what would be written and stop.
	derive_deb_src
	exit 0
fi

# The first error or warning line of an apt log, for a one-line message.
first_problem() {
	grep -E '^(E|W|Err):' "$1" | head -n 1 | tr -s ' \t' ' '
}

apt_update() {
	[ "$UID_NOW" = 0 ] || die "not root: cannot run apt-get update to fetch source indexes for '$pkg' (run as root, or unpack it into $dest/$pkg yourself)"
	log=$(mktemp)
	if ! $APT_GET update >"$log" 2>&1; then
		why=$(first_problem "$log"); rm -f "$log"
		die "apt-get update failed (no network?): cannot fetch source of '$pkg'${why:+: $why}"
	fi
	# apt-get update exits 0 on some fetch failures: look for them.
	if grep -Eq '^(W|E): (Failed to fetch|Some index files failed)' "$log"; then
		why=$(first_problem "$log"); rm -f "$log"
		die "apt-get update could not fetch every index (no network?): cannot fetch source of '$pkg'${why:+: $why}"
	fi
	rm -f "$log"
}

if [ "$(have_deb_src)" = no ]; then
	[ "$UID_NOW" = 0 ] || die "not root: no deb-src entry in $APT_DIR and cannot add $SRC_FILE (run as root, or add deb-src sources yourself)"
	tmp="$SRC_FILE.tmp.$$"
	{
		echo "# Written by deepprof bench/fetch-src.sh: deb-src twins of the enabled deb sources."
		echo
		derive_deb_src
	} >"$tmp" || die "$SRC_FILE: cannot write"
	grep -q '^Types: deb-src' "$tmp" || { rm -f "$tmp"; die "no enabled deb source in $APT_DIR to derive a deb-src entry from"; }
	mv "$tmp" "$SRC_FILE"
	echo "$me: added deb-src entries in $SRC_FILE" >&2
	apt_update
fi

# Source indexes may be missing even when the entry exists.
if ! $APT_CACHE showsrc "$pkg" 2>/dev/null | grep -q '^Package:'; then
	apt_update
	$APT_CACHE showsrc "$pkg" 2>/dev/null | grep -q '^Package:' ||
		die "no source package for '$pkg' in the apt sources"
fi

# ---------------------------------------------------------------- download + unpack

work="$dest/.fetch-$pkg.$$"
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
log="$work/log"
# The newest version first; when its files cannot be had (a security
# mirror that keeps binaries only, say), each older one the indexes offer.
fetched=
for want in "$pkg" $($APT_CACHE showsrc "$pkg" 2>/dev/null | awk '/^Version:/ { print $2 }' |
		     sort -r -V | sed "s/^/$pkg=/"); do
	rm -f "$work"/*.dsc
	if (cd "$work" && $APT_GET source --download-only "$want") >>"$log" 2>&1; then
		fetched=$want
		break
	fi
done
if [ -z "$fetched" ]; then
	why=$(first_problem "$log")
	die "apt-get source $pkg failed (no network?)${why:+: $why}"
fi
dsc=$(ls "$work"/*.dsc 2>/dev/null | head -n 1)
[ -n "$dsc" ] || die "apt-get source $pkg left no .dsc file"
if ! (cd "$work" && $DPKG_SOURCE -x "$dsc" tree) >>"$log" 2>&1; then
	why=$(grep -E 'error|failed' "$log" | head -n 1)
	die "dpkg-source -x $dsc failed${why:+: $why}"
fi
name=$(basename "$dsc" .dsc)        # e.g. bzip2_1.0.8-5
name=$(echo "$name" | tr '_' '-')
rm -rf "${dest:?}/$name"
mv "$work/tree" "$dest/$name"
ln -sfn "$name" "$dest/$pkg"
echo "$me: $pkg unpacked in $dest/$name" >&2
