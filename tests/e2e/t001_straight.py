"""Straight-line calls: every csd once, one pd per calling context."""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-straight.c")
    ctx.run(exe)
    p = ctx.dump()
    p.check_invariants()
    eq(p.h["final"], True, "final")
    eq(p.h["calls"], 7, "total calls")
    eq(len(p.threads), 1, "threads")
    for caller, callee in [("<root>", "main"), ("main", "a"), ("main", "b"),
                           ("a", "b"), ("a", "c")]:
        eq(p.counts(caller, callee), (1, 1, 0), "%s -> %s" % (caller, callee))
    bc = p.csds("b", "c")
    eq(len(bc), 2, "b -> c csds (b under a, b under main)")
    eq(sorted((c["calls"], c["exits"]) for c in bc), [(1, 1), (1, 1)], "b -> c counts")
    eq(len(p.pds("b")), 2, "pds of b")
    eq(len(p.pds("c")), 3, "pds of c")
    eq(len(p.pds("main")), 1, "pds of main")
    # the callee pd of a -> b is the caller pd of exactly one b -> c
    ab = p.one("a", "b")
    eq(len([c for c in bc if c["caller_pd"] == ab["callee_pd"]]), 1, "b under a calls c")
    root = p.one("<root>", "main")
    eq(p.css_of(root)["kind"], "callback", "kind of the css calling main from <root>")
