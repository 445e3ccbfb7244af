"""qsort (libc) calling an instrumented comparator: an external csd
main -> qsort, and the comparator's calls as callbacks under qsort's pd."""
from prt import eq, invariants, kind


def run(ctx):
    exe = ctx.compile("s-qsort.c")
    r = ctx.run(exe)
    n = int(r.stdout.strip())
    p = ctx.dump()
    invariants(p)
    q = p.one("main", "qsort")
    eq((q["calls"], q["exits"], q["nonlocal_exits"]), (1, 1, 0), "main -> qsort")
    eq(kind(p, q), "external", "kind of main -> qsort")
    c = p.one("qsort", "cmp")
    eq((c["calls"], c["exits"], c["nonlocal_exits"]), (n, n, 0), "qsort -> cmp")
    eq(kind(p, c), "callback", "kind of qsort -> cmp")
    eq(c["caller_pd"], q["callee_pd"], "cmp hangs from the pd qsort was called into")
    eq(p.total(callee="cmp"), n, "calls of cmp")
    eq(p.h["calls"], 1 + 1 + n + 1, "total calls (main, qsort, cmp, printf)")
