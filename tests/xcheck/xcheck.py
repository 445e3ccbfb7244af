"""xcheck.py — cross-check deepprof's call counts on real code.

1. against callgrind ("xcheck"): bzip2 from Debian's sources, built at -O0
   -finstrument-functions with libprof, compresses and decompresses a
   generated text; the same binary on the same input runs again under
   callgrind. Every caller→callee arc between two of bzip2's own (instrumented)
   functions must have the same count in both.
2. against reference hooks ("xcheck-o2"): at -O2 callgrind cannot see calls
   to inlined functions, which still call the hooks; so the same -O2 objects
   (bzip2, bench/alloc.c, bench/fib.c) are linked once with libprof and once
   with refhooks.c, a plain stack-and-table arc counter, and every arc between
   the programs' functions must agree (GCC clones f.constprop.0 etc. count as f).
3. in plugin mode ("xcheck-plugin", with --deepprof-cc): bzip2 built with
   deepprof-cc (the GCC plugin, its default ABI v2, then again with ABI v1:
   "xcheck-plugin-abi1") at -O0, where nothing is inlined, so
   the source-level calls the plugin counts are the calls callgrind sees on
   the same binary; every arc between two of bzip2's functions must agree
   (calls into libc are call sites in plugin mode, so they are left out).

Part of deepprof's cross-check. MIT licence.

    xcheck.py --work DIR --src BZIP2_SRC --cc CC --libprof LIBPROF.a
              --libs "LDLIBS" --deepprof BIN --gen GEN_TEXT [--bytes N]
              [--deepprof-cc DEEPPROF_CC]

Prints each mismatch and a line "xcheck: N passed, N failed" for each check.
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
CFLAGS = ["-g", "-finstrument-functions", "-w", "-D_FILE_OFFSET_BITS=64"]
SEED = 20240531
HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench")


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


def base_name(name):
    """GCC's clones (f.constprop.0, f.part.1, f.isra.0, f.cold) count as f."""
    return name.split(".", 1)[0] if name else name


def compile_objs(a, sources, opt, objdir, compiler=None, cflags=CFLAGS):
    os.makedirs(objdir, exist_ok=True)
    objs = []
    for path in sources:
        if not os.path.exists(path):
            raise Fatal("%s: no such source file" % path)
        obj = os.path.join(objdir, os.path.basename(path)[:-2] + ".o")
        run((compiler or [a.cc]) + [opt] + cflags + ["-c", path, "-o", obj])
        objs.append(obj)
    return objs


def functions(objs):
    """The program's own functions: text symbols defined in its objects (all
    instrumented), clone suffixes removed."""
    r = run(["nm", "--defined-only"] + objs)
    fns = set()
    for line in r.stdout.decode().splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in ("T", "t"):
            fns.add(base_name(f[2]))
    if "main" not in fns:
        raise Fatal("nm found no main in %s" % " ".join(objs))
    return fns


def link_libprof(a, objs, exe):
    run([a.cc, "-g", "-o", exe] + objs + [a.libprof] + shlex.split(a.libs))
    return exe


def our_arcs(a, rundir, normalize=lambda n: n, clock=None):
    """Arcs from the Deep.data the run left in rundir, via deepprof dump --json
    (whose header's clock must be `clock` when given)."""
    files = sorted(glob.glob(os.path.join(rundir, "Deep.data*")))
    if len(files) != 1:
        raise Fatal("%s: expected one Deep.data after the run, found %d" % (rundir, len(files)))
    r = run([a.deepprof, "dump", "--json", files[0]])
    try:
        doc = json.loads(r.stdout)
        csds = doc["csd"]
    except (ValueError, KeyError, TypeError) as e:
        raise Fatal("%s: deepprof dump --json gave no csd array (%s)" % (files[0], e))
    if clock is not None and doc.get("header", {}).get("clock") != clock:
        raise Fatal("%s: clock %r, expected %r" % (files[0], doc.get("header", {}).get("clock"),
                                                   clock))
    arcs = {}
    unnamed = 0
    for c in csds:
        if c.get("caller") is None or c.get("callee") is None:
            unnamed += 1
            continue
        k = (normalize(c["caller"]), normalize(c["callee"]))
        arcs[k] = arcs.get(k, 0) + c["calls"]
    if unnamed:
        print("xcheck: note: %s: %d csds have an unresolved caller or callee name"
              % (files[0], unnamed))
    return arcs


def ref_arcs(rundir, exe):
    """Arcs refhooks.c wrote in rundir/refarcs.txt, named through nm of exe
    (linked -no-pie, so the addresses are the symbols' values)."""
    syms = {}
    for line in run(["nm", "--defined-only", exe]).stdout.decode().splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in ("T", "t"):
            syms[int(f[0], 16)] = base_name(f[2])
    arcs = {}
    path = os.path.join(rundir, "refarcs.txt")
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                if not line.endswith(" overflow 0\n"):
                    raise Fatal("%s: %s" % (path, line.strip()))
                continue
            caller, callee, calls = line.split()
            caller, callee = int(caller, 16), int(callee, 16)
            k = (syms.get(caller, "<root>" if caller == 0 else hex(caller)),
                 syms.get(callee, hex(callee)))
            arcs[k] = arcs.get(k, 0) + int(calls)
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


def compare(ours, theirs, fns, other="callgrind"):
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
            lines.append("MISMATCH %s -> %s: deepprof %d, %s %d" % (k[0], k[1], o, other, t))
    return keys, passed, failed, lines


def bzip2_steps(exe, work, text):
    """(name, argv, stdin file, stdout file): compress, then decompress what
    was compressed."""
    comp = os.path.join(work, "input.txt.bz2")
    back = os.path.join(work, "input.back")
    return back, [("compress", [exe, "-c", "-9"], text, comp),
                  ("decompress", [exe, "-d", "-c"], comp, back)]


def report(suite, keys, passed, failed, lines, what):
    if not keys:
        raise Fatal("no arcs between %s in either profile" % what)
    for line in lines:
        print(line)
    print("%s: %d passed, %d failed" % (suite, passed, failed))
    return 1 if failed else 0


def check_callgrind(a, work, text):
    """-O0 bzip2 with libprof against callgrind on the same binary and input."""
    objs = compile_objs(a, [os.path.join(a.src, s) for s in BZIP2_SOURCES], "-O0",
                        os.path.join(work, "obj"))
    fns = functions(objs)
    exe = link_libprof(a, objs, os.path.join(work, "bzip2"))
    back, steps = bzip2_steps(exe, work, text)
    ours, theirs = {}, {}
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
    print("xcheck: bzip2 -O0 vs callgrind: %d arcs, %d calls (deepprof), input %d bytes"
          % (len(keys), sum(ours.get(k, 0) for k in keys), a.bytes))
    return report("xcheck", keys, passed, failed, lines, "bzip2's functions")


def check_plugin(a, work, text, abi=0):
    """-O0 bzip2 built by deepprof-cc (plugin mode; ABI abi, or with 0 the
    plugin's default, v2) against callgrind on the same binary and input."""
    suite = "xcheck-plugin-abi%d" % abi if abi else "xcheck-plugin"
    cc = [a.deepprof_cc, "--deepprof-mode=plugin", "--deepprof-cc=" + a.cc]
    cc += ["--deepprof-arg=abi=%d" % abi] if abi else []
    cflags = [f for f in CFLAGS if f != "-finstrument-functions"]
    objs = compile_objs(a, [os.path.join(a.src, s) for s in BZIP2_SOURCES], "-O0",
                        os.path.join(work, "obj"), cc, cflags)
    fns = functions(objs)
    hook = b" dp_abi_enter\n" if abi == 1 else b" dp_cur\n"    # v1's hook, v2's state
    if hook not in run(["nm"] + objs).stdout:
        raise Fatal("%s: no%s: not built by the plugin (abi %s)" % (objs[0], hook.decode().rstrip(),
                                                                    abi or "default"))
    exe = os.path.join(work, "bzip2")
    run(cc + ["-g", "-o", exe] + objs)
    back, steps = bzip2_steps(exe, work, text)
    ours, theirs = {}, {}
    for name, cmd, inp, outp in steps:
        native = os.path.join(work, "native", name)
        os.makedirs(native)
        with open(inp, "rb") as i, open(outp, "wb") as o:
            run(cmd, cwd=native, stdin=i, stdout=o)
        add(ours, our_arcs(a, native, clock="calls+loops"))
        cg = os.path.join(work, "callgrind", name)
        os.makedirs(cg)
        with open(inp, "rb") as i:
            add(theirs, callgrind_arcs(cg, cmd, i, subprocess.DEVNULL))
    if not filecmp.cmp(text, back, shallow=False):
        raise Fatal("%s: bzip2 round trip did not give back %s" % (back, text))
    keys, passed, failed, lines = compare(ours, theirs, fns)
    print("%s: bzip2 -O0 (deepprof-cc) vs callgrind: %d arcs, %d calls (deepprof), "
          "input %d bytes" % (suite, len(keys), sum(ours.get(k, 0) for k in keys), a.bytes))
    return report(suite, keys, passed, failed, lines, "bzip2's functions")


def check_reference(a, work, text):
    """-O2 builds (inlining, clones) with libprof against the same objects
    linked with refhooks.c, on bzip2, bench/alloc.c and bench/fib.c."""
    os.makedirs(work, exist_ok=True)
    hooks = os.path.join(work, "refhooks.o")
    run([a.cc, "-O2", "-w", "-c", os.path.join(HERE, "refhooks.c"), "-o", hooks])
    total = [[], 0, 0, []]
    # Known answers, to check the reference itself: alloc 4 builds, checks and
    # frees 4 trees of depth 16 (2^17-1 nodes: 2^17-2 recursive calls each);
    # fib(22) makes 2*fib(23)-2 = 57312 recursive calls.
    tree = 4 * (2 ** 17 - 2)
    known = {
        "alloc": {("main", "make"): 4, ("main", "check"): 4, ("main", "release"): 4,
                  ("main", "churn"): 4, ("make", "make"): tree, ("check", "check"): tree,
                  ("release", "release"): tree},
        "fib": {("main", "fib"): 1, ("fib", "fib"): 57312},
    }
    for prog, sources, runs in (
            ("bzip2", [os.path.join(a.src, s) for s in BZIP2_SOURCES], None),
            ("alloc", [os.path.join(BENCH, "alloc.c")], [["4"]]),
            ("fib", [os.path.join(BENCH, "fib.c")], [["22"]])):
        pw = os.path.join(work, prog)
        objs = compile_objs(a, sources, "-O2", os.path.join(pw, "obj"))
        fns = functions(objs)
        exe = link_libprof(a, objs, os.path.join(pw, prog))
        ref = os.path.join(pw, prog + "-ref")
        run([a.cc, "-no-pie", "-o", ref] + objs + [hooks])
        if runs is None:
            back, steps = bzip2_steps(exe, pw, text)
        else:
            steps = [("run%d" % i, [exe] + argv, None, os.path.join(pw, "out%d" % i))
                     for i, argv in enumerate(runs)]
        ours, theirs = {}, {}
        for name, cmd, inp, outp in steps:
            for kind, argv in (("libprof", cmd), ("ref", [ref] + cmd[1:])):
                d = os.path.join(pw, kind, name)
                os.makedirs(d)
                with open(inp or os.devnull, "rb") as i, \
                        open(outp if kind == "libprof" else os.devnull, "wb") as o:
                    run(argv, cwd=d, stdin=i, stdout=o)
                if kind == "libprof":
                    add(ours, our_arcs(a, d, base_name))
                else:
                    add(theirs, ref_arcs(d, ref))
        if prog in known:
            mine = {k: v for k, v in theirs.items() if k[0] in fns and k[1] in fns}
            if mine != known[prog]:
                raise Fatal("refhooks.c itself is wrong on %s: %r, want %r"
                            % (prog, sorted(mine.items()), sorted(known[prog].items())))
        keys, passed, failed, lines = compare(ours, theirs, fns, "reference hooks")
        print("xcheck-o2: %s -O2 vs reference hooks: %d arcs, %d calls (deepprof)"
              % (prog, len(keys), sum(ours.get(k, 0) for k in keys)))
        total[0] += keys
        total[1] += passed
        total[2] += failed
        total[3] += ["%s: %s" % (prog, line) for line in lines]
    return report("xcheck-o2", *total, what="the programs' functions")


def run_check(name, fn, a, work, text):
    try:
        return fn(a, work, text)
    except (Fatal, callgrind.CallgrindError, OSError) as e:
        print("%s: %s" % (name, e), file=sys.stderr)
        print("%s: 0 passed, 1 failed" % name)
        return 2


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
    p.add_argument("--deepprof-cc", help="also run the plugin-mode check with this deepprof-cc")
    a = p.parse_args()
    for path, what in ((a.libprof, "libprof"), (a.deepprof, "deepprof"), (a.gen, "gen_text")):
        if not os.path.exists(path):
            print("xcheck: %s: %s not built" % (path, what), file=sys.stderr)
            return 2
    if not shutil.which("valgrind"):
        print("xcheck: valgrind not found (make deps installs it)", file=sys.stderr)
        return 2
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    text = os.path.join(work, "input.txt")
    try:
        run([a.gen, str(SEED), str(a.bytes), text])
    except (Fatal, OSError) as e:
        print("xcheck: %s" % e, file=sys.stderr)
        return 2
    rc1 = run_check("xcheck", check_callgrind, a, os.path.join(work, "callgrind-O0"), text)
    rc2 = run_check("xcheck-o2", check_reference, a, os.path.join(work, "reference-O2"), text)
    rc3 = 0
    if a.deepprof_cc:
        if not os.path.exists(a.deepprof_cc):
            print("xcheck-plugin: %s: deepprof-cc not built" % a.deepprof_cc, file=sys.stderr)
            print("xcheck-plugin: 0 passed, 1 failed")
            rc3 = 2
        else:
            rc3 = run_check("xcheck-plugin", check_plugin, a, os.path.join(work, "plugin-O0"),
                            text)
            rc3 = max(rc3, run_check("xcheck-plugin-abi1", lambda a_, w, t: check_plugin(a_, w, t, 1),
                                     a, os.path.join(work, "plugin-abi1-O0"), text))
    return max(rc1, rc2, rc3)

if __name__ == "__main__":
    sys.exit(main())
