"""fork while other threads live: the child's profile has only the forking
thread, counted from the fork; the parent's has all three."""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-forkthreads.c")
    r = ctx.run(exe)
    cpid = int(r.stdout.split()[-1])
    parent = ctx.dump()
    parent.check_invariants()
    eq(len(parent.threads), 3, "parent threads")
    eq(sorted(parent.one("worker", "work", t["id"])["calls"] for t in parent.threads[1:]),
       [5, 5], "parent worker -> work")
    eq(parent.csds("main", "b"), [], "parent main -> b")
    child = ctx.dump("Deep.data.%d" % cpid)
    child.check_invariants()
    eq(child.h["fork_of"], parent.h["pid"], "child fork_of")
    eq(len(child.threads), 1, "child threads")
    eq(child.counts("main", "b"), (2, 2, 0), "child main -> b")
    eq(child.csds(callee="work") + child.csds(callee="worker"), [], "child has no worker graphs")
    eq(child.h["calls"], 2, "child total calls")
