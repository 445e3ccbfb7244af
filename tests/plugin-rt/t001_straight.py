"""Straight-line calls in plugin mode: cyg mode's counts and contexts, and
every call site's file:line:col, kind and static callee from the tables."""
from prt import eq, invariants, site, kind


def run(ctx):
    exe = ctx.compile("s-straight.c")
    ctx.run(exe)
    p = ctx.dump()
    invariants(p)
    eq(p.h["final"], True, "final")
    eq(p.h["calls"], 7, "total calls")
    eq(p.h["cscs"], 7, "total cscs (no loops)")
    for caller, callee, loc in [("main", "a", "s-straight.c:5:18"), ("main", "b", "s-straight.c:5:23"),
                                ("a", "b", "s-straight.c:4:16"), ("a", "c", "s-straight.c:4:21")]:
        c = p.one(caller, callee)
        eq((c["calls"], c["exits"], c["nonlocal_exits"]), (1, 1, 0), "%s -> %s" % (caller, callee))
        eq(site(p, c), loc, "site of %s -> %s" % (caller, callee))
        eq(kind(p, c), "normal", "kind of %s -> %s" % (caller, callee))
        eq(p.ps[p.css_of(c)["callee_ps"] - 1]["name"], callee, "static callee of %s -> %s" % (caller, callee))
    bc = p.csds("b", "c")
    eq(len(bc), 2, "b -> c csds (b under a, b under main)")
    eq([site(p, c) for c in bc], ["s-straight.c:3:16"] * 2, "sites of b -> c")
    eq(len({c["css"] for c in bc}), 1, "b -> c: one css")
    eq((len(p.pds("b")), len(p.pds("c")), len(p.pds("main"))), (2, 3, 1), "pds of b, c, main")
    ab = p.one("a", "b")
    eq(len([c for c in bc if c["caller_pd"] == ab["callee_pd"]]), 1, "b under a calls c")
    root = p.one("<root>", "main")
    eq((root["calls"], root["exits"]), (1, 1), "<root> -> main")
    eq(kind(p, root), "callback", "kind of the css calling main from <root>")
    lines = {s["name"]: s["line"] for s in p.ps[1:]}
    eq(lines, {"main": 5, "a": 4, "b": 3, "c": 2}, "ps lines")
    # a plugin site's offset is its table record, not code: dump names the
    # function it lies in after its caller (deep-data.md, "Plugin builds")
    for s in p.css:
        eq(s["in"], p.ps[s["caller_ps"] - 1]["name"], "in of css %d" % s["id"])
