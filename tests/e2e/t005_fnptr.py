"""One function-pointer call site with three callees: one csd per callee,
all on the same css."""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-fnptr.c")
    ctx.run(exe)
    p = ctx.dump()
    p.check_invariants()
    eq(p.counts("main", "f1"), (1, 1, 0), "main -> f1")
    eq(p.counts("main", "f2"), (2, 2, 0), "main -> f2")
    eq(p.counts("main", "f3"), (3, 3, 0), "main -> f3")
    sites = {p.one("main", f)["css"] for f in ("f1", "f2", "f3")}
    eq(len(sites), 1, "css of the three csds")
    eq(len({p.one("main", f)["callee_pd"] for f in ("f1", "f2", "f3")}), 3, "callee pds")
