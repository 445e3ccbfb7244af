"""A program and a shared library, both built with deepprof-cc, at -O0,
-O2 and -O2 -flto: the library's tables register when it loads, calls both
ways are exact, and the library's ps lie in its module."""
import os
from prt import eq, invariants, check


def run(ctx):
    for opt in ("-O0", "-O2", "-O2 -flto"):
        lib = ctx.build(["s-mf-lib.c"], "libmf.so", opt=opt, shared=True)
        exe = ctx.build(["s-mf-main.c"], "mfso", opt=opt,
                        libs=["-L" + ctx.dir, "-Wl,-rpath," + ctx.dir, "-lmf"])
        r = ctx.run(exe)
        eq(r.stdout.strip(), "387", "output")
        p = ctx.dump()
        invariants(p)
        eq(p.counts("main", "lib_sum"), (4, 4, 0), "main -> lib_sum " + opt)
        eq(p.counts("lib_sum", "helper"), (40, 40, 0), "lib_sum -> helper " + opt)
        eq([(c["calls"], c["exits"]) for c in p.csds("lib_twice", "square")], [(1, 1), (1, 1)],
           "lib_twice -> square (two sites) " + opt)
        eq(p.counts("main", "helper"), (1, 1, 0), "main -> helper " + opt)
        mods = {m["id"]: m["path"] for m in p.j["modules"]}
        for s in p.ps:
            if s["name"] in ("lib_sum", "lib_twice"):
                eq(os.path.basename(mods[s["module"]]), "libmf.so", "module of " + s["name"])
            if s["name"] == "square":
                eq(os.path.basename(mods[s["module"]]), "mfso", "module of square")
        check(p.h["clock"] == "calls+loops", "clock")
