#!/bin/sh
# run.sh DEEPPROF SHOW PROG DPGEN WORKDIR — the check-batch suite:
# deepprof merge and diff end to end. Profiles of tests/batch/prog.c run with
# n = 3, 5 and 4 have known call counts (see prog.c); merged and diffed
# results are compared with exact expected values. Last line:
# "batch: N passed, N failed". Part of deepprof's tests. MIT licence.
set -u
DP=$1 SHOW=$2 PROG=$3 GEN=$4 W=$5
PY=${PYTHON:-/usr/bin/python3}
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
# same NAME EXPECTED_FILE ACTUAL_FILE
same() {
	if cmp -s "$2" "$3"; then ok "$1"; else ko "$1"; diff -u "$2" "$3" | head -40; fi
}
# runs NAME CMD...: exit 0 expected
runs() {
	name=$1; shift
	if "$@" >"$W/out" 2>"$W/err"; then ok "$name"; else ko "$name (exit $?)"; cat "$W/err"; fi
}
# refuses NAME STATUS NEEDLE CMD...: exit STATUS, exactly one line on stderr
# containing NEEDLE, nothing written to OUT (when -o $W/never.data is used)
refuses() {
	name=$1 want=$2 needle=$3; shift 3
	"$@" >"$W/out" 2>"$W/err"
	st=$?
	lines=$(wc -l <"$W/err")
	if [ "$st" = "$want" ] && [ "$lines" = 1 ] && grep -qF -- "$needle" "$W/err" &&
	   [ ! -e "$W/never.data" ]; then
		ok "$name"
	else
		ko "$name (exit $st, $lines stderr lines)"; cat "$W/err"
	fi
}

rm -rf "$W"
mkdir -p "$W"

CLI=$DP

# ---- profiles of the real program -------------------------------------
nm "$PROG" >"$W/prog.nm"
for n in 3 5 4; do
	DEEPPROF_HZ=0 DEEPPROF_FILE="$W/run$n.data" "$PROG" $n >"$W/run$n.out" ||
		ko "prog $n runs"
done
A=$W/run3.data B=$W/run5.data C=$W/run4.data

cat >"$W/exp-a" <<'EOF'
T1 <root> -> main: calls=1 exits=1 cscs=1
T1 main -> fib: calls=1 exits=1 cscs=1
T1 main -> work: calls=1 exits=1 cscs=1
T1 main>fib -> fib: calls=4 exits=4 cscs=4
T1 main>fib -> leaf: calls=3 exits=3 cscs=3
T1 main>work -> leaf: calls=3 exits=3 cscs=3
T2 <root> -> worker: calls=1 exits=1 cscs=1
T2 worker -> work: calls=1 exits=1 cscs=1
T2 worker>work -> leaf: calls=6 exits=6 cscs=6
header calls=21 cscs=21 threads=2
EOF
cat >"$W/exp-ab" <<'EOF'
T1 <root> -> main: calls=2 exits=2 cscs=2
T1 main -> extra: calls=1 exits=1 cscs=1
T1 main -> fib: calls=2 exits=2 cscs=2
T1 main -> work: calls=2 exits=2 cscs=2
T1 main>extra -> leaf: calls=1 exits=1 cscs=1
T1 main>fib -> fib: calls=18 exits=18 cscs=18
T1 main>fib -> leaf: calls=11 exits=11 cscs=11
T1 main>work -> leaf: calls=8 exits=8 cscs=8
T2 <root> -> worker: calls=2 exits=2 cscs=2
T2 worker -> work: calls=2 exits=2 cscs=2
T2 worker>work -> leaf: calls=16 exits=16 cscs=16
header calls=65 cscs=65 threads=2
EOF
# n=4: work 4; fib(4): 9 calls, 8 through the two recursive sites, 5 leaves;
# no extra; worker's work 8. Added to A and B:
cat >"$W/exp-abc" <<'EOF'
T1 <root> -> main: calls=3 exits=3 cscs=3
T1 main -> extra: calls=1 exits=1 cscs=1
T1 main -> fib: calls=3 exits=3 cscs=3
T1 main -> work: calls=3 exits=3 cscs=3
T1 main>extra -> leaf: calls=1 exits=1 cscs=1
T1 main>fib -> fib: calls=26 exits=26 cscs=26
T1 main>fib -> leaf: calls=16 exits=16 cscs=16
T1 main>work -> leaf: calls=12 exits=12 cscs=12
T2 <root> -> worker: calls=3 exits=3 cscs=3
T2 worker -> work: calls=3 exits=3 cscs=3
T2 worker>work -> leaf: calls=24 exits=24 cscs=24
header calls=95 cscs=95 threads=2
EOF

"$SHOW" "$A" "$W/prog.nm" >"$W/got-a" 2>&1
same "profile of prog 3 has the expected calls" "$W/exp-a" "$W/got-a"

runs "merge A B" "$CLI" merge -o "$W/ab.data" "$A" "$B"
"$SHOW" "$W/ab.data" "$W/prog.nm" >"$W/got-ab" 2>&1
same "merge A B: exact merged counts" "$W/exp-ab" "$W/got-ab"
runs "merged file reads back in deepprof dump" "$DP" dump "$W/ab.data"

runs "merge B A" "$CLI" merge -o "$W/ba.data" "$B" "$A"
same "merge B A is byte-identical to merge A B" "$W/ab.data" "$W/ba.data"

runs "merge (A B) C" "$CLI" merge -o "$W/ab_c.data" "$W/ab.data" "$C"
runs "merge B C" "$CLI" merge -o "$W/bc.data" "$B" "$C"
runs "merge A (B C)" "$CLI" merge -o "$W/a_bc.data" "$A" "$W/bc.data"
runs "merge A B C" "$CLI" merge --output="$W/abc.data" "$A" "$B" "$C"
"$SHOW" "$W/abc.data" "$W/prog.nm" >"$W/got-abc" 2>&1
same "merge A B C: exact merged counts" "$W/exp-abc" "$W/got-abc"
same "merge is associative: (A B) C = A (B C)" "$W/ab_c.data" "$W/a_bc.data"
same "merge of three at once = merge in steps" "$W/ab_c.data" "$W/abc.data"
cp "$A" "$W/inplace.data"
runs "merge may write over an input" "$CLI" merge -o "$W/inplace.data" "$W/inplace.data" "$B"
same "merge over an input = merge A B" "$W/ab.data" "$W/inplace.data"

# ---- synthetic profiles (dp-gen): recursion, mutual recursion, threads --
for shape in recursive mutual threads tree; do
	"$GEN" --shape=$shape --csds=150 --seed=1 -o "$W/g1.data" &&
	"$GEN" --shape=$shape --csds=199 --seed=2 -o "$W/g2.data" &&
	"$GEN" --shape=$shape --csds=120 --seed=3 -o "$W/g3.data" || ko "dp-gen $shape"
	"$CLI" merge -o "$W/g12.data" "$W/g1.data" "$W/g2.data" &&
	"$CLI" merge -o "$W/g21.data" "$W/g2.data" "$W/g1.data" &&
	"$CLI" merge -o "$W/g12_3.data" "$W/g12.data" "$W/g3.data" &&
	"$CLI" merge -o "$W/g23.data" "$W/g2.data" "$W/g3.data" &&
	"$CLI" merge -o "$W/g1_23.data" "$W/g1.data" "$W/g23.data" || ko "dp-gen $shape: merges run"
	same "dp-gen $shape: merge commutes" "$W/g12.data" "$W/g21.data"
	same "dp-gen $shape: merge associates" "$W/g12_3.data" "$W/g1_23.data"
	c1=$("$SHOW" "$W/g1.data" | tail -1 | sed 's/ threads=.*//')
	c2=$("$SHOW" "$W/g2.data" | tail -1 | sed 's/ threads=.*//')
	c12=$("$SHOW" "$W/g12.data" | tail -1 | sed 's/ threads=.*//')
	s1=${c1#header calls=}; s1=${s1%% *}
	s2=${c2#header calls=}; s2=${s2%% *}
	s12=${c12#header calls=}; s12=${s12%% *}
	if [ "$((s1 + s2))" = "$s12" ]; then ok "dp-gen $shape: merged calls $s12 = $s1 + $s2"
	else ko "dp-gen $shape: merged calls $s12 != $s1 + $s2"; fi
done

# ---- diff ------------------------------------------------------------------
runs "diff A B (text)" "$CLI" diff "$A" "$B"
cp "$W/out" "$W/diff.txt"
if grep -q '^procedures: 6 (2 changed, 1 new, 0 gone, 3 same), by |delta cscs|' "$W/diff.txt" &&
   grep -q '^contexts: 10 (4 changed, 2 new, 0 gone, 4 same), by |delta cscs|' "$W/diff.txt" &&
   grep -q '^calls  *21  *44  *+23  *+109.5%$' "$W/diff.txt"; then
	ok "diff A B: text summary lines"
else
	ko "diff A B: text summary lines"; cat "$W/diff.txt"
fi
runs "diff A B --json" "$CLI" diff --json "$A" "$B"
cp "$W/out" "$W/diff.json"
runs "diff B A --json --sort=calls --limit=3" "$CLI" diff --json --sort=calls --limit=3 "$B" "$A"
cp "$W/out" "$W/diff-rev.json"
if "$PY" tests/batch/check_diff.py "$W/prog.nm" "$W/diff.json" "$W/diff-rev.json" >"$W/py.out" 2>&1; then
	ok "diff JSON: exact per-procedure and per-context changes"
else
	ko "diff JSON: exact per-procedure and per-context changes"; cat "$W/py.out"
fi
runs "diff --sort=time --limit=0" "$CLI" diff --sort=time --limit=0 "$A" "$B"

# ---- bad inputs: one line naming the problem, exit 2 ---------------------
head -c 300 "$A" >"$W/trunc.data"
printf 'not a profile at all\n' >"$W/junk.data"
cp "$PROG" "$W/other-prog"
DEEPPROF_HZ=0 DEEPPROF_FILE="$W/other.data" "$W/other-prog" 3 >/dev/null
refuses "merge: missing file" 2 "$W/nope.data" "$CLI" merge -o "$W/never.data" "$A" "$W/nope.data"
refuses "merge: truncated file" 2 "$W/trunc.data" "$CLI" merge -o "$W/never.data" "$W/trunc.data" "$A"
refuses "merge: not a profile" 2 "$W/junk.data" "$CLI" merge -o "$W/never.data" "$A" "$W/junk.data"
refuses "merge: different programs name both files" 2 "$A, $W/other.data: different programs" \
	"$CLI" merge -o "$W/never.data" "$A" "$W/other.data"
refuses "merge: a third file of another program is named" 2 "$A, $W/other.data: different programs" \
	"$CLI" merge -o "$W/never.data" "$A" "$B" "$W/other.data"
refuses "merge: a bad third file is named" 2 "$W/trunc.data" \
	"$CLI" merge -o "$W/never.data" "$A" "$B" "$W/trunc.data"
runs "merge --force: different programs" "$CLI" merge --force -o "$W/forced.data" "$A" "$W/other.data"
refuses "merge: no -o" 2 "no output file" "$CLI" merge "$A" "$B"
refuses "merge: no inputs" 2 "no profiles" "$CLI" merge -o "$W/never.data"
refuses "merge: unknown option" 2 "unknown option '--frobnicate'" "$CLI" merge --frobnicate -o "$W/never.data" "$A"
refuses "merge: -o needs a name" 2 "needs a file name" "$CLI" merge "$A" -o
refuses "merge: unwritable output, exit 1" 1 "$W/no/dir/x.data" "$CLI" merge -o "$W/no/dir/x.data" "$A" "$B"
refuses "diff: missing file" 2 "$W/nope.data" "$CLI" diff "$A" "$W/nope.data"
refuses "diff: truncated file" 2 "$W/trunc.data" "$CLI" diff "$W/trunc.data" "$A"
refuses "diff: different programs name both files" 2 "$A, $W/other.data: different programs" \
	"$CLI" diff "$A" "$W/other.data"
refuses "diff: different programs, names unresolvable: still one line" 2 "different programs" \
	"$CLI" diff "$A" "$W/g1.data"
runs "diff --force: different programs" "$CLI" diff --force "$A" "$W/other.data"
refuses "diff: bad --sort" 2 "unknown measure 'speed'" "$CLI" diff --sort=speed "$A" "$B"
refuses "diff: bad --limit" 2 "bad --limit 'x'" "$CLI" diff --limit=x "$A" "$B"
refuses "diff: negative --limit" 2 "bad --limit '-1'" "$CLI" diff --limit=-1 "$A" "$B"
refuses "diff: one file" 2 "want two profiles" "$CLI" diff "$A"
refuses "diff: three files" 2 "too many arguments" "$CLI" diff "$A" "$B" "$C"
refuses "diff: unknown option" 2 "unknown option '-x'" "$CLI" diff -x "$A" "$B"

echo "batch: $pass passed, $fail failed"
[ "$fail" = 0 ]
