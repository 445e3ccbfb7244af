"""exit() while other threads keep calling: the file is valid and complete
(deepprof dump reads and checks it), the exiting thread's numbers are exact
and the running threads' graphs are in it."""
from e2e import eq, check


def run(ctx):
    exe = ctx.compile("s-busy.c")
    for _ in range(3):
        ctx.run(exe)
        p = ctx.dump()
        p.check_invariants()        # calls == exits + nonlocal_exits everywhere, too
        eq(p.h["final"], True, "final")
        eq(len(p.threads), 3, "threads")
        m = p.threads[0]["id"]
        eq(p.counts("<root>", "main", m), (1, 0, 1), "<root> -> main")
        eq(p.counts("main", "finish", m), (1, 0, 1), "main -> finish")
        for t in p.threads[1:]:
            eq(t["exited"], False, "spinning thread %d exited" % t["id"])
            eq(p.counts("<root>", "spin", t["id"]), (1, 0, 1), "<root> -> spin")
            w = p.one("spin", "work", t["id"])
            check(w["calls"] > 1000, "spin -> work calls %d > 1000" % w["calls"])
