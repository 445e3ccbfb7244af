"""fib(20) in plugin mode: cyg mode's counts, folded into one pd; calls to
libc (atoi, printf) are external call sites with their own csds."""
from prt import eq, invariants, kind


def run(ctx):
    exe = ctx.compile("s-fib.c")
    sizes = {}
    for n, calls in ((20, 21891), (10, 177)):
        r = ctx.run(exe, [str(n)])
        eq(r.stdout.strip(), {20: "6765", 10: "55"}[n], "fib(%d)" % n)
        p = ctx.dump()
        invariants(p)
        eq(p.total(callee="fib"), calls, "calls to fib, fib(%d)" % n)
        eq(p.counts("main", "fib"), (1, 1, 0), "main -> fib")
        rec = p.csds("fib", "fib")
        eq(sorted(c["calls"] for c in rec), [(calls - 1) // 2] * 2, "calls per recursive site")
        pds = p.pds("fib")
        eq(len(pds), 1, "pds of fib")
        for c in rec:
            eq((c["caller_pd"], c["callee_pd"]), (pds[0]["id"], pds[0]["id"]), "folded")
        for ext in ("atoi", "printf"):
            c = p.one("main", ext)
            eq((c["calls"], c["exits"]), (1, 1), "main -> " + ext)
            eq(kind(p, c), "external", "kind of main -> " + ext)
            eq(p.ps[p.pd[c["callee_pd"] - 1]["ps"] - 1]["module"], 0, ext + " is a synthetic ps")
        eq(p.h["calls"], calls + 1 + 2, "total calls")
        rt = len(p.csds(callee="deepprof_runtime"))     # a tick in libprof: a pd and csd more
        sizes[n] = (len(p.pd) - rt, len(p.csd) - rt)
    eq(sizes[10], sizes[20], "graph size (pds, csds) for fib(10) and fib(20)")
