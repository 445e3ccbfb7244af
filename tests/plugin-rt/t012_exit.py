"""exit() deep in the stack: every activation counts a non-local exit, the
call of exit too; the atexit handler is a callback from exit."""
from prt import eq, invariants, kind


def run(ctx):
    exe = ctx.compile("s-exit.c")
    ctx.run(exe, rc=3)
    p = ctx.dump()
    invariants(p)
    eq(p.h["final"], True, "final")
    for caller, callee in [("<root>", "main"), ("main", "a"), ("a", "b"), ("b", "c"), ("c", "exit")]:
        eq(p.counts(caller, callee), (1, 0, 1), "%s -> %s" % (caller, callee))
    eq(p.counts("main", "atexit"), (1, 1, 0), "main -> atexit")
    bye = p.one("exit", "bye")
    eq((bye["calls"], bye["exits"], bye["nonlocal_exits"]), (1, 1, 0), "exit -> bye")
    eq(kind(p, bye), "callback", "css of exit() calling bye")
    eq(p.total(field="nonlocal_exits"), 5, "non-local exits")
