#!/usr/bin/python3
"""run.py — OpenMP programs and a library's thread pool under every route:
the plugin's inline path (ABI v2, the default), its out-of-line hooks (ABI
v1) and -finstrument-functions (cyg), at -O0 and -O2 (cyg at -O0: its hooks
follow GCC's inlining), and the inline path with calls=surviving at -O0. Each program has a known call structure; the
checks are exact counts summed over threads, and the shape OpenMP regions
must have in every thread's graph (schemas/deep-data.md, "OpenMP"): a run
of a region is a call through a css of kind parallel or task, at the
construct's line, from the function that holds it, in its calling context
(main -> work -> work._omp_fn.0 -> f), never from a thread's root. Ends
with "omp: N passed, N failed"; exits 1 if any test failed.

    run.py --build BUILD_DIR [--deepprof BIN] [--cflags FLAGS] [TEST...]

Part of deepprof's tests. MIT licence.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "plugin-rt"))
import dptest  # noqa: E402
import prt  # noqa: E402
from prt import eq, check, Fail  # noqa: E402

# (name, deepprof-cc flags, optimisation levels)
ROUTES = [
    ("v2", [], ("-O0", "-O2")),
    ("v1", ["--deepprof-arg=abi=1"], ("-O0", "-O2")),
    # calls=surviving: the inline path placed after inlining, each region's
    # prologue from its enter hook (lower.cc); at -O0, where nothing is
    # inlined, the same counts (at -O2 the programs' helpers are inlined)
    ("v2-surviving", ["--deepprof-arg=calls=surviving"], ("-O0",)),
    ("cyg", ["--deepprof-mode=cyg"], ("-O0",)),
]


class Ctx(prt.Ctx):
    def __init__(self, args, name, route):
        args.abi = 0
        super().__init__(args, "omp/%s-%s" % (route[0], name))
        self.route = route

    def src(self, name):
        return os.path.join(HERE, name)

    def omp(self, srcs, out, opt, libs=()):
        return self.build(srcs, out, opt=opt, extra=self.route[1] + ["-fopenmp"], libs=libs)


def common(p):
    """What every final profile here satisfies, whatever the route."""
    h = p.h
    eq(h["lost"], 0, "lost events")
    eq(h["calls"], sum(c["calls"] for c in p.csd), "header calls == sum of csd calls")
    for c in p.csd:
        eq(c["calls"], c["exits"] + c["nonlocal_exits"],
           "csd %d (%s -> %s) calls == exits + nonlocal" % (c["id"], c["caller"], c["callee"]))
        eq(c["nonlocal_exits"], 0, "csd %d (%s -> %s) nonlocal exits" % (c["id"], c["caller"], c["callee"]))
    for t in p.threads:
        eq(p.pd[t["root_pd"] - 1]["ps"], 1, "thread %d root pd is a <root> pd" % t["id"])


def path_of(p, c):
    """The names from the thread's root down to csd c's callee, through the
    csds that made each pd (the first csd into it)."""
    into = {}
    for x in p.csd:
        into.setdefault(x["callee_pd"], x)
    names = [c["callee"]]
    pd = c["caller_pd"]
    seen = set()
    while pd in into and pd not in seen:
        seen.add(pd)
        x = into[pd]
        names.append(x["callee"])
        pd = x["caller_pd"]
    names.append(p.pd[pd - 1]["name"])
    return list(reversed(names))


def regions(p, prefix, kind):
    """The csds into outlined functions named prefix._omp_fn.N, checked to
    be of css kind `kind` and never to hang from a thread's root."""
    out = [c for c in p.csd if c["callee"] and c["callee"].startswith(prefix + "._omp_fn.")]
    for c in out:
        eq(p.css_of(c)["kind"], kind, "css kind of %s -> %s" % (c["caller"], c["callee"]))
        check(c["caller"] != "<root>", "%s hangs from a thread's root" % c["callee"])
    return out


def total(p, callee, callers=None):
    return sum(c["calls"] for c in p.csd
               if c["callee"] == callee and (callers is None or c["caller"] in callers))


def t_sections(ctx):
    for opt in ctx.route[2]:
        exe = ctx.omp(["s-omp-sections.c"], "sections", opt)
        for nthreads in ("1", "2"):
            r = ctx.run(exe, env={"OMP_NUM_THREADS": nthreads, "OMP_DYNAMIC": "false"})
            eq(r.stdout.strip(), "2 4 0", "output")
            p = ctx.dump()
            common(p)
            rs = regions(p, "main", "parallel")
            eq(sum(c["calls"] for c in rs), int(nthreads), "region runs (OMP_NUM_THREADS=%s) %s"
               % (nthreads, opt))
            for c in rs:
                eq(path_of(p, c)[-3:], ["<root>", "main", "main._omp_fn.0"],
                   "path to the region " + opt)
                s = p.css_of(c)
                eq((os.path.basename(s["file"] or "?"), s["line"]), ("s-omp-sections.c", 12),
                   "the region's site is the construct")
            for f in ("a", "b", "c"):
                eq(total(p, f, ["main._omp_fn.0"]), 1, "main._omp_fn.0 -> %s %s" % (f, opt))
                eq(total(p, f), 1, "calls of %s" % f)
            eq(total(p, "main"), 1, "main called once (other threads: context only)")


def t_for(ctx):
    for opt in ctx.route[2]:
        exe = ctx.omp(["s-omp-for.c"], "for", opt)
        r = ctx.run(exe, env={"OMP_DYNAMIC": "false"})
        eq(r.stdout.strip(), "2997 5 8", "output")
        p = ctx.dump()
        common(p)
        w = regions(p, "work", "parallel")
        eq(sum(c["calls"] for c in w), 2, "work's region runs " + opt)
        for c in w:
            eq(path_of(p, c)[-3:], ["main", "work", c["callee"]], "path to work's region")
        eq(total(p, "f"), 1000, "f calls " + opt)
        eq(total(p, "f", [c["callee"] for c in w]), 1000, "f from work's region " + opt)
        eq(total(p, "work"), 1, "work calls")
        m = regions(p, "main", "parallel")
        names = {c["callee"] for c in m}
        eq(len(names), 3, "main's regions: single, outer, inner " + opt)
        eq(total(p, "g"), 1, "g (single) " + opt)
        (gc,) = [c for c in p.csd if c["callee"] == "g"]
        single = gc["caller"]
        check(single.startswith("main._omp_fn."), "g from main's region: " + single)
        eq(sum(c["calls"] for c in m if c["callee"] == single), 2, "single's region runs")
        eq(total(p, "h"), 4, "h (2 x 2 nested) " + opt)
        inner = {c["caller"] for c in p.csd if c["callee"] == "h"}
        eq(len(inner), 1, "h from one region")
        (inner,) = inner
        eq(sum(c["calls"] for c in m if c["callee"] == inner), 4, "inner region runs " + opt)
        outer = (names - {single, inner}).pop()
        eq(sum(c["calls"] for c in m if c["callee"] == outer), 2, "outer region runs")
        for c in m:
            if c["callee"] == inner:
                eq(path_of(p, c)[-4:], ["<root>", "main", outer, inner], "nested path " + opt)


def t_msort(ctx):
    for opt in ctx.route[2]:
        exe = ctx.omp(["s-omp-msort.c"], "msort", opt)
        for how in ("wait", "group"):
            r = ctx.run(exe, [how], env={"OMP_DYNAMIC": "false"})
            eq(r.stdout.strip(), "sorted", "output")
            p = ctx.dump()
            common(p)
            t = regions(p, "msort", "task")
            eq(sum(c["calls"] for c in t), 2046, "task runs %s %s" % (how, opt))
            eq(total(p, "msort"), 2047, "msort calls %s %s" % (how, opt))
            eq(total(p, "merge"), 1023, "merge calls %s %s" % (how, opt))
            for th in p.threads:
                n = len(p.pds("msort", th["id"]))
                check(n <= 1, "msort folded into one pd per thread (thread %d has %d) %s"
                      % (th["id"], n, how))
            for c in t:
                check("msort" in path_of(p, c)[:-1], "a task runs under msort")
            tops = [c for c in p.csd if c["callee"] == "msort" and c["caller"].startswith("main._omp_fn.")]
            eq(sum(c["calls"] for c in tops), 1, "the single's call of msort")
        if ctx.route[0] != "cyg":
            # feedback reads the program representation, whose region calls
            # are "lost" (in the outlined functions), and finds the recursion
            r = subprocess.run([ctx.a.deepprof, "feedback", ctx.path("Deep.data"), "-o",
                                ctx.path("fb.json")], capture_output=True, text=True)
            eq(r.returncode, 0, "deepprof feedback on an OpenMP program: " + r.stderr.strip())
            with open(ctx.path("fb.json")) as f:
                fb = json.load(f)
            check(any(x["at"]["fn"] == "msort" for x in fb["recursion"]),
                  "feedback finds msort's recursion " + opt)


def t_pool(ctx):
    for opt in ctx.route[2]:
        lib = ctx.path("libpool.so")
        cmd = ["gcc", "-std=gnu11", "-g", opt, "-shared", "-fPIC", "-pthread",
               ctx.src("s-pool-lib.c"), "-o", lib]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            raise Fail("building the pool library failed: " + r.stderr[-1000:])
        exe = ctx.build(["s-pool-main.c"], "pool", opt=opt, extra=ctx.route[1],
                        libs=["-L" + ctx.dir, "-Wl,-rpath," + ctx.dir, "-lpool"])
        r = ctx.run(exe)
        eq(r.stdout.strip(), "135", "output")
        p = ctx.dump()
        common(p)
        eq(len(p.threads), 4, "threads")
        if ctx.route[0] != "cyg":   # -finstrument-functions sees no uninstrumented callee
            eq(p.counts("main", "pool_run"), (1, 1, 0), "main -> pool_run " + opt)
        for th in p.threads[1:]:
            tid = th["id"]
            c = p.one("<root>", "task", tid)
            eq((c["calls"], c["exits"]), (10, 10), "<root> -> task in thread %d %s" % (tid, opt))
            eq(p.css_of(c)["kind"], "callback", "a pool thread's call is a callback")
            eq(p.counts("task", "leaf", tid), (10, 10, 0), "task -> leaf " + opt)


TESTS = [("t001_sections", t_sections), ("t002_for_single_nested", t_for),
         ("t003_task_msort", t_msort), ("t004_library_pool", t_pool)]


def main():
    T = dptest.Tally("omp")
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--deepprof", default=None)
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--cflags", default="", help="extra flags for test programs (sanitizers)")
    ap.add_argument("tests", nargs="*", help="run only these (e.g. t003)")
    a = ap.parse_args()
    if a.deepprof is None:
        a.deepprof = os.path.join(a.build, "bin", "deepprof")
    a.deepprof = os.path.abspath(a.deepprof)
    if not os.access(a.deepprof, os.X_OK):
        T.abort("%s: missing or not executable (build it first)" % a.deepprof)
    tests = []
    for route in ROUTES:
        for name, fn in TESTS:
            if dptest.selected(name, a.tests):
                tests.append(("%s (%s)" % (name, route[0]),
                              lambda fn=fn, name=name, route=route: fn(Ctx(a, name, route))))
    dptest.run_each(T, tests, fail=Fail, timed=True)
    return T.end()


if __name__ == "__main__":
    sys.exit(main())
