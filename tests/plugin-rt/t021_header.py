"""deepprof-cc finds <deepprof.h> itself (no -I): a plugin-mode program
calling dp_write() builds, and its snapshot (calls running then are
neither exits nor non-local exits) and final profile are exact."""
from prt import eq, invariants


def run(ctx):
    exe = ctx.compile("s-snapshot.c")
    r = ctx.run(exe, ["snap.dp"])
    eq(r.stdout, "snapshot 0\nmissing -1\n", "program output")
    s = ctx.dump("snap.dp")
    eq(s.h["final"], False, "snapshot final")
    # calls running at the snapshot are neither exits nor non-local exits
    # (both ABIs; v2 used to count them as non-local exits, and main, a
    # callback of the C library, as an exit)
    eq(s.counts("<root>", "main"), (1, 0, 0), "snapshot: <root> -> main, running")
    eq(s.counts("main", "f"), (1, 0, 0), "snapshot: main -> f, running")
    eq(s.counts("f", "dp_write"), (1, 0, 0), "snapshot: f -> dp_write, running")
    eq(s.counts("f", "leaf"), (1, 1, 0), "snapshot: f -> leaf, returned")
    p = ctx.dump()
    invariants(p)
    eq(p.counts("main", "f"), (2, 2, 0), "main -> f")
    eq(p.counts("f", "leaf"), (2, 2, 0), "f -> leaf")
