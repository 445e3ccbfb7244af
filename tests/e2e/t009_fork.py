"""fork: the parent's and the child's files, each exact; the child's counts
start at the fork and it writes Deep.data.<pid> (or $DEEPPROF_FILE.<pid>)."""
import os
from e2e import eq


def check_pair(ctx, parent, child, ppid, cpid):
    parent.check_invariants()
    child.check_invariants()
    eq(parent.h["fork_of"], 0, "parent fork_of")
    eq(parent.h["pid"], ppid, "parent pid")
    eq(parent.counts("main", "a"), (2, 2, 0), "parent main -> a")
    eq(parent.counts("main", "c"), (1, 1, 0), "parent main -> c")
    eq(parent.csds("main", "b"), [], "parent main -> b")
    eq(child.h["fork_of"], ppid, "child fork_of")
    eq(child.h["pid"], cpid, "child pid")
    eq(child.h["ppid"], ppid, "child ppid")
    eq(child.counts("main", "b"), (3, 3, 0), "child main -> b")
    eq(child.counts("main", "a"), (0, 0, 0), "child main -> a (before the fork)")
    eq(child.counts("<root>", "main"), (0, 0, 0), "child <root> -> main (called before the fork)")
    eq(child.csds("main", "c"), [], "child main -> c")
    eq(child.h["calls"], 3, "child total calls")
    eq(len(child.threads), 1, "child threads")


def run(ctx):
    exe = ctx.compile("s-fork.c")
    r = ctx.run(exe)
    cpid = int(r.stdout.split()[-1])
    ppid = ctx.dump().h["pid"]
    check_pair(ctx, ctx.dump(), ctx.dump("Deep.data.%d" % cpid), ppid, cpid)
    # $DEEPPROF_FILE without %p: the child appends .<pid>
    r = ctx.run(exe, env={"DEEPPROF_FILE": "fork.dp"})
    cpid = int(r.stdout.split()[-1])
    parent = ctx.dump("fork.dp")
    check_pair(ctx, parent, ctx.dump("fork.dp.%d" % cpid), parent.h["pid"], cpid)
    eq(sorted(f for f in os.listdir(ctx.dir) if f.startswith("fork.dp")),
       sorted(["fork.dp", "fork.dp.%d" % cpid]), "files written")
    # with %p, each process's own pid and no suffix
    r = ctx.run(exe, env={"DEEPPROF_FILE": "f-%p.dp"})
    cpid = int(r.stdout.split()[-1])
    files = sorted(f for f in os.listdir(ctx.dir) if f.startswith("f-"))
    eq(len(files), 2, "files f-*.dp (%s)" % files)
    child = ctx.dump("f-%d.dp" % cpid)
    parent = ctx.dump([f for f in files if f != "f-%d.dp" % cpid][0])
    check_pair(ctx, parent, child, parent.h["pid"], cpid)
