"""An instrumented signal handler that often interrupts libprof's own hooks:
every count stays exact (no frame is clobbered, nothing is lost)."""
from e2e import eq, check


def run(ctx):
    exe = ctx.compile("s-sighook.c")
    for _ in range(2):
        r = ctx.run(exe, ["3000000"], env={"DEEPPROF_HZ": "0"})
        n = int(r.stdout.strip())
        check(n > 100, "handler runs: %d" % n)
        p = ctx.dump()
        p.check_invariants()          # includes lost == 0
        eq(p.counts("main", "loop"), (1, 1, 0), "main -> loop")
        eq(p.counts("loop", "work"), (3000000, 3000000, 0), "loop -> work")
        eq(p.total(callee="on_tick"), n, "calls of on_tick")
        eq(p.total(callee="on_tick", field="exits"), n, "exits of on_tick")
        eq(p.total(callee="tick_leaf"), n, "calls of tick_leaf")
        eq(p.total(field="nonlocal_exits"), 0, "non-local exits")
        for c in p.csds(callee="tick_leaf"):
            eq(c["caller"], "on_tick", "caller of tick_leaf")
