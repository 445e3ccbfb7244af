"""Calls in loops: counts accumulate on one csd per (context, site)."""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-loops.c")
    ctx.run(exe)
    p = ctx.dump()
    p.check_invariants()
    eq(p.counts("main", "f"), (10, 10, 0), "main -> f")
    eq(p.counts("f", "g"), (45, 45, 0), "f -> g")
    eq(p.counts("main", "g"), (3, 3, 0), "main -> g")
    eq(len(p.pds("g")), 2, "pds of g (under f, under main)")
    eq(p.h["calls"], 1 + 10 + 45 + 3, "total calls")
