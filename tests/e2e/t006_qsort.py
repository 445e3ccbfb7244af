"""qsort calling an instrumented comparator: a callback css from main."""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-qsort.c")
    r = ctx.run(exe)
    n = int(r.stdout.strip())
    p = ctx.dump()
    p.check_invariants()
    eq(p.counts("main", "cmp"), (n, n, 0), "main -> cmp (the comparator counted %d)" % n)
    c = p.one("main", "cmp")
    css = p.css_of(c)
    eq(css["kind"], "callback", "kind of the css in qsort")
    eq(css["caller_ps"], p.pd[c["caller_pd"] - 1]["ps"], "css caller_ps is main's ps")
    eq(p.h["calls"], 1 + n, "total calls")
