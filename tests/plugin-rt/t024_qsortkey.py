"""qsort (libc) calling an instrumented comparator that calls key(): the
comparator's own calls are made while main's call of qsort is still
pending, so the first of them binds that csd to the uninstrumented qsort
(v1: call_slow) and nothing is lost."""
from prt import eq, invariants, kind


def run(ctx):
    exe = ctx.compile("s-qsort.c", extra=["-DQSORT_KEY"])
    r = ctx.run(exe)
    n = int(r.stdout.strip())
    p = ctx.dump()
    eq(p.h["lost"], 0, "events lost")
    invariants(p)
    q = p.one("main", "qsort")
    eq((q["calls"], q["exits"], q["nonlocal_exits"]), (1, 1, 0), "main -> qsort")
    eq(kind(p, q), "external", "kind of main -> qsort")
    c = p.one("qsort", "cmp")
    eq((c["calls"], c["exits"], c["nonlocal_exits"]), (n, n, 0), "qsort -> cmp")
    ks = p.csds(callee="key")
    eq(len(ks), 2, "csds of key (two sites in cmp)")
    for k in ks:
        eq(k["caller"], "cmp", "caller of key")
        eq((k["calls"], k["exits"], k["nonlocal_exits"]), (n, n, 0), "cmp -> key")
    eq(p.h["calls"], 1 + 1 + n + 2 * n + 1, "total calls (main, qsort, cmp, key, printf)")
