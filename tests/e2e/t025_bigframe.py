"""A 100 KB frame: its frame address is a guess, yet nesting stays exact
and the run stays fast (the guess is remembered, not searched again)."""
import time
from e2e import eq, check


def run(ctx):
    exe = ctx.compile("s-bigframe.c")
    t0 = time.time()
    ctx.run(exe)
    check(time.time() - t0 < 5, "20000 calls of a big-frame function took %.1fs" % (time.time() - t0))
    p = ctx.dump()
    p.check_invariants()
    eq(p.counts("main", "big"), (20000, 20000, 0), "main -> big")
    eq(p.counts("big", "leaf"), (20000, 20000, 0), "big -> leaf")
