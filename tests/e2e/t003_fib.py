"""fib(20): 21891 calls to fib (21890 recursive), folded into one pd; the
graph's size does not depend on the depth."""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-fib.c")
    sizes = {}
    for n, calls in ((20, 21891), (10, 177)):
        r = ctx.run(exe, [str(n)])
        eq(r.stdout.strip(), {20: "6765", 10: "55"}[n], "fib(%d)" % n)
        p = ctx.dump()
        p.check_invariants()
        eq(p.total(callee="fib"), calls, "calls to fib, fib(%d)" % n)
        eq(p.counts("main", "fib"), (1, 1, 0), "main -> fib")
        rec = p.csds("fib", "fib")
        eq(len(rec), 2, "fib -> fib csds (two call sites)")
        eq(sorted(c["calls"] for c in rec), [(calls - 1) // 2] * 2, "calls per recursive site")
        pds = p.pds("fib")
        eq(len(pds), 1, "pds of fib")
        for c in rec:
            eq((c["caller_pd"], c["callee_pd"]), (pds[0]["id"], pds[0]["id"]),
               "recursive csd folded onto the outermost pd")
        rt = len(p.csds(callee="deepprof_runtime"))     # a tick in libprof: a pd and csd more
        sizes[n] = (len(p.pd) - rt, len(p.csd) - rt)
    eq(sizes[10], sizes[20], "graph size (pds, csds) for fib(10) and fib(20)")
