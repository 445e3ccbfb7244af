"""A recursion 50000 deep: the shadow stack grows; counts stay exact."""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-deep.c")
    ctx.run(exe, ["50000"])
    p = ctx.dump()
    p.check_invariants()
    eq(p.counts("main", "down"), (1, 1, 0), "main -> down")
    eq(p.counts("down", "down"), (50000, 50000, 0), "down -> down")
    eq(len(p.pds("down")), 1, "pds of down")
