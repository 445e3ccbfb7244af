"""Calls in loops: cyg mode's counts; each csd's cscs adds the back-edge
ticks of its callee's loops (a for loop running n times ticks n times)."""
from prt import eq, invariants


def run(ctx):
    exe = ctx.compile("s-loops.c")
    ctx.run(exe)
    p = ctx.dump()
    invariants(p)
    eq(p.counts("main", "f"), (10, 10, 0), "main -> f")
    eq(p.counts("f", "g"), (45, 45, 0), "f -> g")
    eq(p.counts("main", "g"), (3, 3, 0), "main -> g")
    eq(len(p.pds("g")), 2, "pds of g")
    eq(p.h["calls"], 59, "total calls")
    eq(p.one("main", "f")["cscs"], 10 + 45, "main -> f cscs: 10 calls + 45 iterations")
    eq(p.one("f", "g")["cscs"], 45, "f -> g cscs")
    eq(p.one("<root>", "main")["cscs"], 1 + 10 + 3, "<root> -> main cscs: 1 call + 13 iterations")
    eq(p.h["cscs"], 59 + 45 + 13, "total cscs")
