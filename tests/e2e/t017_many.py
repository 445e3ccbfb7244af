"""2048 procedures behind one indirect site, called again from a recursive
activation: per-thread arrays and pd tables grow while frames are live,
and folding still finds the outermost driver."""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-many.c")
    ctx.run(exe)
    p = ctx.dump()
    p.check_invariants()
    ps = [q for q in p.ps if q["name"] != "deepprof_runtime"]  # a tick in libprof adds it
    eq(len(ps), 2048 + 3, "procedures (f_*, driver, main, <root>)")
    eq(p.counts("main", "driver"), (1, 1, 0), "main -> driver")
    eq(p.counts("driver", "driver"), (1, 1, 0), "driver -> driver")
    eq(len(p.pds("driver")), 1, "pds of driver (the recursive call folds)")
    fs = [c for c in p.csd if c["callee"] and c["callee"].startswith("f_")]
    eq(len(fs), 2048, "driver -> f_* csds")
    eq(sorted({(c["calls"], c["exits"]) for c in fs}), [(2, 2)], "calls, exits of each f_*")
    eq(len({c["css"] for c in fs}), 1, "one css for the indirect site")
