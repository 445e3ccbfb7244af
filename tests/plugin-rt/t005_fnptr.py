"""One indirect call site with three callees: one csd per callee, all on
the same css, of kind indirect, with its file:line:col."""
from prt import eq, invariants, site, kind


def run(ctx):
    exe = ctx.compile("s-fnptr.c")
    ctx.run(exe)
    p = ctx.dump()
    invariants(p)
    eq(p.counts("main", "f1"), (1, 1, 0), "main -> f1")
    eq(p.counts("main", "f2"), (2, 2, 0), "main -> f2")
    eq(p.counts("main", "f3"), (3, 3, 0), "main -> f3")
    cs = [p.one("main", f) for f in ("f1", "f2", "f3")]
    eq(len({c["css"] for c in cs}), 1, "css of the three csds")
    eq(len({c["callee_pd"] for c in cs}), 3, "callee pds")
    eq(kind(p, cs[0]), "indirect", "kind")
    eq(p.css_of(cs[0])["callee_ps"], 0, "no static callee")
    eq(site(p, cs[0]), "s-fnptr.c:12:8", "site")
    eq(p.one("<root>", "main")["cscs"], 1 + 6, "<root> -> main cscs (6 iterations)")
