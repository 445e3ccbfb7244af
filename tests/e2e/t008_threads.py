"""4 threads with different work: 5 thread graphs, each with exact counts."""
from e2e import eq, check


def run(ctx):
    exe = ctx.compile("s-threads.c")
    ctx.run(exe)
    p = ctx.dump()
    p.check_invariants()
    eq(len(p.threads), 5, "threads")
    main_t = p.pd[p.one("<root>", "main")["caller_pd"] - 1]["thread"]
    eq(main_t, p.threads[0]["id"], "the main thread is the first")
    eq(p.threads[0]["exited"], False, "main thread exited")
    eq(p.counts("main", "unit", main_t), (5, 5, 0), "main -> unit")
    seen = []
    for t in p.threads[1:]:
        tid = t["id"]
        eq(t["exited"], True, "thread %d exited" % tid)
        w = p.one("<root>", "worker", tid)
        eq((w["calls"], w["exits"]), (1, 1), "<root> -> worker in thread %d" % tid)
        eq(w["caller_pd"], t["root_pd"], "worker hangs from thread %d's root" % tid)
        eq(p.css_of(w)["kind"], "callback", "css of start_thread -> worker")
        eq(p.counts("worker", "work", tid), (1, 1, 0), "worker -> work")
        n = p.one("work", "unit", tid)["calls"]
        eq(p.one("work", "unit", tid)["exits"], n, "work -> unit exits")
        seen.append(n)
        eq(len(p.csds(thread=tid)), 3, "csds in thread %d" % tid)
    eq(sorted(seen), [10, 20, 30, 40], "unit calls per worker thread")
    check(len({t["tid"] for t in p.threads}) == 5, "distinct tids")
    # every pd belongs to exactly one thread's graph
    eq(sum(len([d for d in p.pd if d["thread"] == t["id"]]) for t in p.threads), len(p.pd),
       "pds split between threads")
