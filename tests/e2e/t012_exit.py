"""exit() deep in the stack: every activation left counts a non-local exit;
an atexit handler running below them is a callback from c."""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-exit.c")
    ctx.run(exe, rc=3)
    p = ctx.dump()
    p.check_invariants()
    eq(p.h["final"], True, "final")
    for caller, callee in [("<root>", "main"), ("main", "a"), ("a", "b"), ("b", "c")]:
        eq(p.counts(caller, callee), (1, 0, 1), "%s -> %s" % (caller, callee))
    bye = p.one("c", "bye")
    eq((bye["calls"], bye["exits"], bye["nonlocal_exits"]), (1, 1, 0), "c -> bye (atexit)")
    eq(p.css_of(bye)["kind"], "callback", "css of exit() calling bye")
    eq(p.total(field="nonlocal_exits"), 4, "non-local exits")
