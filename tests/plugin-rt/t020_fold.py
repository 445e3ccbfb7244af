"""Recursion folding to a procedure active on the stack though not on the
chain of pds that made the caller's (s-fold.c): one pd each of f, g, h."""
from prt import eq, invariants


def run(ctx):
    exe = ctx.compile("s-fold.c")
    r = ctx.run(exe)
    eq(r.stdout.strip(), "5", "output")
    p = ctx.dump()
    invariants(p)
    for fn in ("f", "g", "h"):
        eq(len(p.pds(fn)), 1, "pds of " + fn)
    eq(p.counts("main", "f"), (1, 1, 0), "main -> f")
    eq(p.counts("f", "g"), (3, 3, 0), "f -> g")
    eq(p.counts("g", "f"), (4, 4, 0), "g -> f")
    eq(p.counts("f", "h"), (1, 1, 0), "f -> h")
    eq(p.counts("h", "g"), (1, 1, 0), "h -> g")
    g = p.pds("g")[0]["id"]
    eq(p.one("h", "g")["callee_pd"], g, "h -> g folds into g's pd")
    rt = len(p.pds("deepprof_runtime"))     # a tick in libprof: a pd more
    eq(len(p.pd) - rt, 6, "pds (root, main, f, g, h, printf)")
