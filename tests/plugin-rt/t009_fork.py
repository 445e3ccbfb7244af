"""fork in plugin mode: the parent's and the child's files, each exact; the
child's counts start at the fork (its exit() is a call it made)."""
from prt import eq, invariants


def run(ctx):
    exe = ctx.compile("s-fork.c")
    r = ctx.run(exe)
    cpid = int(r.stdout.split()[-1])
    parent, child = ctx.dump(), ctx.dump("Deep.data.%d" % cpid)
    invariants(parent)
    invariants(child)
    eq(parent.h["fork_of"], 0, "parent fork_of")
    eq(parent.counts("main", "a"), (2, 2, 0), "parent main -> a")
    eq(parent.counts("main", "c"), (1, 1, 0), "parent main -> c")
    eq(parent.counts("main", "fork"), (1, 1, 0), "parent main -> fork")
    eq(parent.csds("main", "b"), [], "parent main -> b")
    eq(child.h["fork_of"], parent.h["pid"], "child fork_of")
    eq(child.counts("main", "b"), (3, 3, 0), "child main -> b")
    eq(child.counts("main", "exit"), (1, 0, 1), "child main -> exit")
    eq(child.counts("main", "a"), (0, 0, 0), "child main -> a (before the fork)")
    eq(child.counts("main", "fork"), (0, 0, 0), "child main -> fork (called in the parent)")
    eq(child.counts("<root>", "main"), (0, 0, 0), "child <root> -> main")
    eq(child.csds("main", "c"), [], "child main -> c")
    eq(child.h["calls"], 4, "child total calls")
    eq(child.one("<root>", "main")["cscs"], 0, "child <root> -> main cscs (frames from before the fork charge the sink)")
    eq(len(child.threads), 1, "child threads")
