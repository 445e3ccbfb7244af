"""Mutual recursion is_even/is_odd: one pd each, a two-pd cycle (a clique)."""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-mutual.c")
    sizes = {}
    for n in (1001, 51):
        r = ctx.run(exe, [str(n)])
        eq(r.stdout.strip(), "0", "is_even(%d)" % n)
        p = ctx.dump()
        p.check_invariants()
        k = (n + 1) // 2
        eq(p.counts("main", "is_even"), (1, 1, 0), "main -> is_even")
        eq(p.counts("is_even", "is_odd"), (k, k, 0), "is_even -> is_odd")
        eq(p.counts("is_odd", "is_even"), (k - 1, k - 1, 0), "is_odd -> is_even")
        ev, od = p.pds("is_even"), p.pds("is_odd")
        eq((len(ev), len(od)), (1, 1), "pds of is_even, is_odd")
        back = p.one("is_odd", "is_even")
        eq(back["callee_pd"], ev[0]["id"], "is_odd -> is_even folds onto the outer is_even pd")
        rt = len(p.csds(callee="deepprof_runtime"))     # a tick in libprof: a pd and csd more
        sizes[n] = (len(p.pd) - rt, len(p.csd) - rt)
    eq(sizes[51], sizes[1001], "graph size for n=51 and n=1001")
