"""4 threads in plugin mode: 5 thread graphs with cyg mode's counts; each
start routine is a callback from its thread's root."""
from prt import eq, check, invariants, kind


def run(ctx):
    exe = ctx.compile("s-threads.c")
    ctx.run(exe)
    p = ctx.dump()
    invariants(p)
    eq(len(p.threads), 5, "threads")
    m = p.threads[0]["id"]
    eq(p.counts("main", "unit", m), (5, 5, 0), "main -> unit")
    eq(p.counts("main", "pthread_create", m), (4, 4, 0), "main -> pthread_create")
    eq(p.counts("main", "pthread_join", m), (4, 4, 0), "main -> pthread_join")
    seen = []
    for t in p.threads[1:]:
        tid = t["id"]
        eq(t["exited"], True, "thread %d exited" % tid)
        w = p.one("<root>", "worker", tid)
        eq((w["calls"], w["exits"], w["nonlocal_exits"]), (1, 1, 0), "<root> -> worker")
        eq(w["caller_pd"], t["root_pd"], "worker hangs from the thread's root")
        eq(kind(p, w), "callback", "css of start_thread -> worker")
        eq(p.counts("worker", "work", tid), (1, 1, 0), "worker -> work")
        n = p.one("work", "unit", tid)["calls"]
        eq(p.one("work", "unit", tid)["exits"], n, "work -> unit exits")
        eq(p.one("worker", "work", tid)["cscs"], 1 + n, "worker -> work cscs (n iterations)")
        seen.append(n)
        eq(len(p.csds(thread=tid)), 3, "csds in thread %d" % tid)
    eq(sorted(seen), [10, 20, 30, 40], "unit calls per worker thread")
    check(len({t["tid"] for t in p.threads}) == 5, "distinct tids")
