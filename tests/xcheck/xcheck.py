"""xcheck.py — cross-check deepprof's call counts against callgrind's on a real
program: bzip2 from Debian's sources, built at -O0 -finstrument-functions
with libprof, compresses and decompresses a generated text; the same binary
on the same input runs again under callgrind. Every caller→callee arc between
two of bzip2's own (instrumented) functions must have the same count in both.
Part of deepprof's cross-check. MIT licence.

    xcheck.py --work DIR --src BZIP2_SRC --cc CC --libprof LIBPROF.a
              --libs "LDLIBS" --deepprof BIN --gen GEN_TEXT [--bytes N]

Prints each mismatch and ends with "xcheck: N passed, N failed".
Exit 0 if all passed, 1 if an arc differs, 2 if the check could not run.
"""

import argparse
import filecmp
import glob
import json
import os
import shlex
import shutil
import subprocess
import sys

import callgrind

BZIP2_SOURCES = ["blocksort.c", "huffman.c", "crctable.c", "randtable.c",
                 "compress.c", "decompress.c", "bzlib.c", "bzip2.c"]
CFLAGS = ["-O0", "-g", "-finstrument-functions", "-w", "-D_FILE_OFFSET_BITS=64"]
SEED = 20240531


class Fatal(Exception):
    pass


def run(cmd, **kw):
    """Run cmd; raise Fatal with its stderr tail on failure."""
    r = subprocess.run(cmd, stdout=kw.pop("stdout", subprocess.PIPE),
                       stderr=subprocess.PIPE, **kw)
    if r.returncode != 0:
        tail = (r.stderr or b"").decode(errors="replace").strip().splitlines()[-5:]
        raise Fatal("`%s` exited with %d%s" % (" ".join(map(str, cmd)), r.returncode,
                                               (": " + " | ".join(tail)) if tail else ""))
    return r


def build(a, work):
    """Compile bzip2 into work/bzip2; return (binary, set of its function names)."""
    objdir = os.path.join(work, "obj")
    os.makedirs(objdir, exist_ok=True)
    objs = []
    for src in BZIP2_SOURCES:
        path = os.path.join(a.src, src)
        if not os.path.exists(path):
            raise Fatal("%s: missing from the bzip2 source tree" % path)
        obj = os.path.join(objdir, src[:-2] + ".o")
        run([a.cc] + CFLAGS + ["-c", path, "-o", obj])
        objs.append(obj)
    exe = os.path.join(work, "bzip2")
    run([a.cc, "-g", "-o", exe] + objs + [a.libprof] + shlex.split(a.libs))
    # bzip2's own functions: text symbols defined in its objects (all instrumented)
    r = run(["nm", "--defined-only"] + objs)
    fns = set()
    for line in r.stdout.decode().splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in ("T", "t"):
            fns.add(f[2])
    if "main" not in fns or "BZ2_compressBlock" not in fns:
        raise Fatal("nm found no bzip2 functions in %s" % objdir)
    return exe, fns


def our_arcs(a, rundir):
    """Arcs from the Deep.data the run left in rundir, via deepprof dump --json."""
    files = sorted(glob.glob(os.path.join(rundir, "Deep.data*")))
    if len(files) != 1:
        raise Fatal("%s: expected one Deep.data after the run, found %d" % (rundir, len(files)))
    r = run([a.deepprof, "dump", "--json", files[0]])
    try:
        doc = json.loads(r.stdout)
        csds = doc["csd"]
    except (ValueError, KeyError, TypeError) as e:
        raise Fatal("%s: deepprof dump --json gave no csd array (%s)" % (files[0], e))
    arcs = {}
    unnamed = 0
    for c in csds:
        if c.get("caller") is None or c.get("callee") is None:
            unnamed += 1
            continue
        k = (c["caller"], c["callee"])
        arcs[k] = arcs.get(k, 0) + c["calls"]
    if unnamed:
        print("xcheck: note: %s: %d csds have an unresolved caller or callee name"
              % (files[0], unnamed))
    return arcs


def callgrind_arcs(rundir, cmd, stdin, stdout):
    out = os.path.join(rundir, "callgrind.out")
    run(["valgrind", "--tool=callgrind", "--dump-instr=no", "--separate-recs=1",
         "--skip-direct-rec=no", "--callgrind-out-file=" + out] + cmd,
        cwd=rundir, stdin=stdin, stdout=stdout)
    return callgrind.parse(out).arcs


def add(total, arcs):
    for k, v in arcs.items():
        total[k] = total.get(k, 0) + v


def compare(ours, theirs, fns):
    """Compare the arcs whose two ends are both in fns (an arc missing on one
    side counts 0 there). Returns (keys, passed, failed, mismatch lines)."""
    keys = sorted(k for k in set(ours) | set(theirs) if k[0] in fns and k[1] in fns)
    passed = failed = 0
    lines = []
    for k in keys:
        o, t = ours.get(k, 0), theirs.get(k, 0)
        if o == t:
            passed += 1
        else:
            failed += 1
            lines.append("MISMATCH %s -> %s: deepprof %d, callgrind %d" % (k[0], k[1], o, t))
    return keys, passed, failed, lines


def xcheck(a):
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    exe, fns = build(a, work)
    text = os.path.join(work, "input.txt")
    run([a.gen, str(SEED), str(a.bytes), text])

    ours, theirs = {}, {}
    # (name, argv, stdin file): compress then decompress what was compressed
    comp = os.path.join(work, "input.txt.bz2")
    back = os.path.join(work, "input.back")
    steps = [("compress", [exe, "-c", "-9"], text, comp),
             ("decompress", [exe, "-d", "-c"], comp, back)]
    for name, cmd, inp, outp in steps:
        native = os.path.join(work, "native", name)
        os.makedirs(native)
        with open(inp, "rb") as i, open(outp, "wb") as o:
            run(cmd, cwd=native, stdin=i, stdout=o)
        add(ours, our_arcs(a, native))
        cg = os.path.join(work, "callgrind", name)
        os.makedirs(cg)
        with open(inp, "rb") as i:
            add(theirs, callgrind_arcs(cg, cmd, i, subprocess.DEVNULL))
    if not filecmp.cmp(text, back, shallow=False):
        raise Fatal("%s: bzip2 round trip did not give back %s" % (back, text))

    keys, passed, failed, lines = compare(ours, theirs, fns)
    if not keys:
        raise Fatal("no arcs between bzip2's functions in either profile")
    for line in lines:
        print(line)
    total = sum(ours.get(k, 0) for k in keys)
    print("xcheck: %d arcs between bzip2's functions, %d calls (deepprof), input %d bytes"
          % (len(keys), total, a.bytes))
    print("xcheck: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def main():
    p = argparse.ArgumentParser(description="cross-check deepprof against callgrind")
    p.add_argument("--work", required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--cc", default="gcc")
    p.add_argument("--libprof", required=True)
    p.add_argument("--libs", default="")
    p.add_argument("--deepprof", required=True)
    p.add_argument("--gen", required=True)
    p.add_argument("--bytes", type=int, default=200 * 1024)
    a = p.parse_args()
    for path, what in ((a.libprof, "libprof"), (a.deepprof, "deepprof"), (a.gen, "gen_text")):
        if not os.path.exists(path):
            print("xcheck: %s: %s not built" % (path, what), file=sys.stderr)
            return 2
    if not shutil.which("valgrind"):
        print("xcheck: valgrind not found (make deps installs it)", file=sys.stderr)
        return 2
    try:
        return xcheck(a)
    except (Fatal, callgrind.CallgrindError, OSError) as e:
        print("xcheck: %s" % e, file=sys.stderr)
        print("xcheck: 0 passed, 1 failed")
        return 2


if __name__ == "__main__":
    sys.exit(main())
