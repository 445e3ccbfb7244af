"""deepprof-cc finds <deepprof.h> itself (no -I): a plugin-mode program
calling dp_write() builds, and its snapshot and final profile are exact."""
from prt import eq, invariants


def run(ctx):
    exe = ctx.compile("s-snapshot.c")
    r = ctx.run(exe, ["snap.dp"])
    eq(r.stdout, "snapshot 0\nmissing -1\n", "program output")
    s = ctx.dump("snap.dp")
    eq(s.h["final"], False, "snapshot final")
    eq(s.counts("main", "f")[0], 1, "snapshot: calls main -> f")
    p = ctx.dump()
    invariants(p)
    eq(p.counts("main", "f"), (2, 2, 0), "main -> f")
    eq(p.counts("f", "leaf"), (2, 2, 0), "f -> leaf")
