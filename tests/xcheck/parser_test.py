"""parser_test.py — tests of callgrind.py: hand-written files for name
compression and malformed input, and a real callgrind run of small.c whose
call counts are known; and of xcheck.py's arc comparison. Part of deepprof's cross-check. MIT licence.

    parser_test.py WORKDIR CC       prints "xcheck-parser: N passed, N failed"
"""

import os
import subprocess
import sys

import callgrind
import xcheck

HERE = os.path.dirname(os.path.abspath(__file__))
passed = failed = 0


def expect(name, got, want):
    global passed, failed
    if got == want:
        passed += 1
    else:
        failed += 1
        print("FAIL %s: got %r, want %r" % (name, got, want))


def parse_text(workdir, name, text):
    path = os.path.join(workdir, name)
    with open(path, "w") as f:
        f.write(text)
    return callgrind.parse(path)


def expect_error(workdir, name, text, fragment):
    global passed, failed
    try:
        parse_text(workdir, name, text)
    except callgrind.CallgrindError as e:
        msg = str(e)
        if fragment in msg and name in msg and "\n" not in msg:
            passed += 1
        else:
            failed += 1
            print("FAIL %s: message %r lacks %r or the file name" % (name, msg, fragment))
        return
    failed += 1
    print("FAIL %s: no error" % name)


HAND = """\
version: 1
creator: hand
pid: 42
cmd:  ./prog arg
part: 1
positions: line
events: Ir

ob=(1) /bin/prog
fl=(1) prog.c
fn=(1) main
3 10
cfn=(2) helper
calls=3 7
3 30
cfn=(2)
calls=2 8
4 20
cob=(2) /lib/libc.so.6
cfi=(2) ???
cfn=(3) malloc
calls=5 0
5 50
+1 2
fn=(2)
7 4
cfn=(2)
calls=4 7
* 3
cfn=(4) helper'2
calls=1 7
* 1
ob=(2)
fl=(2)
fn=(3)
0 9

fn=(5) a name with spaces
1 1
totals: 126
"""


def hand_tests(workdir):
    p = parse_text(workdir, "hand.callgrind", HAND)
    expect("hand arcs", p.arcs, {
        ("main", "helper"): 5,
        ("main", "malloc"): 5,
        ("helper", "helper"): 5,      # 'N recursion suffix folded into the name
    })
    expect("hand cmd", p.cmd, "./prog arg")
    expect("hand objects main", p.objects.get("main"), {"/bin/prog"})
    expect("hand objects malloc", p.objects.get("malloc"), {"/lib/libc.so.6"})
    expect("hand spaces", "a name with spaces" in p.objects, True)

    # uncompressed names (--compress-strings=no)
    p = parse_text(workdir, "plain.callgrind",
                   "version: 1\nevents: Ir\nfn=f\n1 1\ncfn=g\ncalls=2 1\n1 1\n")
    expect("plain arcs", p.arcs, {("f", "g"): 2})

    expect_error(workdir, "notcg.callgrind", "hello world\n", "not a callgrind file")
    expect_error(workdir, "empty.callgrind", "", "empty file")
    expect_error(workdir, "undef.callgrind", "version: 1\nfn=(3)\n", "used before it was defined")
    expect_error(workdir, "badcalls.callgrind", "version: 1\nfn=f\ncfn=g\ncalls=x 1\n1 1\n",
                 "bad calls= line")
    expect_error(workdir, "trunc.callgrind", "version: 1\nfn=f\ncfn=g\ncalls=1 1\n",
                 "truncated")
    expect_error(workdir, "nocost.callgrind", "version: 1\nfn=f\ncfn=g\ncalls=1 1\nfn=h\n",
                 "not followed by a cost line")
    expect_error(workdir, "nofn.callgrind", "version: 1\ncfn=g\ncalls=1 1\n1 1\n",
                 "without fn=")
    expect_error(workdir, "junk.callgrind", "version: 1\nfn=f\n%%%\n", "unrecognised line")


def compare_tests():
    ours = {("a", "b"): 3, ("b", "c"): 2, ("x", "b"): 1, ("a", "a"): 5}
    theirs = {("a", "b"): 3, ("b", "c"): 1, ("a", "c"): 4, ("a", "a"): 5, ("b", "y"): 9}
    keys, p, f, lines = xcheck.compare(ours, theirs, {"a", "b", "c"})
    expect("compare keys", keys, [("a", "a"), ("a", "b"), ("a", "c"), ("b", "c")])
    expect("compare counts", (p, f), (2, 2))
    expect("compare lines", lines, ["MISMATCH a -> c: deepprof 0, callgrind 4",
                                    "MISMATCH b -> c: deepprof 2, callgrind 1"])


def small_test(workdir, cc):
    exe = os.path.abspath(os.path.join(workdir, "small"))
    out = os.path.join(workdir, "small.callgrind")
    subprocess.run([cc, "-O0", "-g", "-o", exe, os.path.join(HERE, "small.c")], check=True)
    subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=no", "--separate-recs=1",
                    "--skip-direct-rec=no", "--callgrind-out-file=" + out, exe],
                   check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    p = callgrind.parse(out)
    mine = {"main", "a", "b", "fib", "even", "odd"}
    arcs = {k: v for k, v in p.arcs.items() if k[0] in mine and k[1] in mine}
    expect("small.c arcs", arcs, {
        ("main", "a"): 3, ("a", "b"): 6, ("main", "fib"): 1, ("fib", "fib"): 176,
        ("main", "even"): 1, ("even", "odd"): 4, ("odd", "even"): 3,
    })
    expect("small.c object", p.objects.get("fib"), {exe})


def main():
    if len(sys.argv) != 3:
        print("usage: parser_test.py WORKDIR CC", file=sys.stderr)
        return 2
    workdir, cc = sys.argv[1], sys.argv[2]
    os.makedirs(workdir, exist_ok=True)
    hand_tests(workdir)
    compare_tests()
    small_test(workdir, cc)
    print("xcheck-parser: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
