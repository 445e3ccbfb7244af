"""A program that moves to another directory (a daemon to /, fts to the
tree it walks) still writes its profile where it started: Deep.data and
a relative $DEEPPROF_FILE are the start directory's. Before, the profile
went to the new directory, or was lost where it could not be written."""
import os
from e2e import eq, check


def run(ctx):
    exe = ctx.compile("s-chdir.c")
    r = ctx.run(exe, ["/proc"])
    eq(r.stderr, "", "stderr (/proc cannot be written)")
    p = ctx.dump()
    p.check_invariants()
    eq(p.total(caller="main", callee="leaf"), 3, "main -> leaf, three sites")
    os.makedirs(ctx.path("sub"))
    os.makedirs(ctx.path("elsewhere", "sub"))
    ctx.run(exe, [ctx.path("elsewhere")], env={"DEEPPROF_FILE": "sub/x.dp"})
    check(os.path.exists(ctx.path("sub", "x.dp")), "the relative $DEEPPROF_FILE in the start directory")
    check(not os.path.exists(ctx.path("elsewhere", "sub", "x.dp")), "not in the directory moved to")
    eq(ctx.dump(os.path.join("sub", "x.dp")).total(caller="main", callee="leaf"), 3, "its counts")
