"""An instrumented signal handler that often interrupts libprof's own hooks:
every count stays exact (no frame is clobbered). A handler whose hooks come
while the interrupted hook is making nodes (the runtime is busy) cannot be
recorded: each such enter hook is counted in the header's lost, so handler
calls + lost still account for every handler run. That window is a few
slow paths long, so a run loses at most a handful."""
from e2e import eq, check


def run(ctx):
    exe = ctx.compile("s-sighook.c")
    for _ in range(2):
        r = ctx.run(exe, ["3000000"], env={"DEEPPROF_HZ": "0"})
        n = int(r.stdout.strip())
        check(n > 100, "handler runs: %d" % n)
        p = ctx.dump()
        p.check_invariants(max_lost=10)
        lost = p.h["lost"]
        eq(p.counts("main", "loop"), (1, 1, 0), "main -> loop")
        eq(p.counts("loop", "work"), (3000000, 3000000, 0), "loop -> work")
        on_tick = p.total(callee="on_tick")
        leaf = p.total(callee="tick_leaf")
        check(2 * n - lost <= on_tick + leaf <= 2 * n,
              "handler enters recorded (%d) + lost (%d) account for 2 per run (%d)" % (on_tick + leaf, lost, n))
        eq(p.total(callee="on_tick", field="exits"), on_tick, "exits of on_tick")
        check(n - lost <= on_tick <= n and n - lost <= leaf <= n,
              "on_tick %d, tick_leaf %d: runs %d less at most lost %d" % (on_tick, leaf, n, lost))
        eq(p.total(field="nonlocal_exits"), 0, "non-local exits")
        for c in p.csds(callee="tick_leaf"):
            eq(c["caller"], "on_tick", "caller of tick_leaf")
