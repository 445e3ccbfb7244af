"""dp_write(): a snapshot while f is running (final false), then the final
profile; a write into a missing directory fails with one message."""
from e2e import eq, check


def run(ctx):
    exe = ctx.compile("s-snapshot.c")
    r = ctx.run(exe, ["snap.dp"])
    eq(r.stdout, "snapshot 0\nmissing -1\n", "program output")
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    eq(len(lines), 1, "stderr lines (%r)" % r.stderr)
    check(lines[0].startswith("deepprof: ") and "no/such/dir/x.data" in lines[0],
          "message names the file: %r" % lines[0])
    s = ctx.dump("snap.dp")
    s.check_invariants()
    eq(s.h["final"], False, "snapshot final")
    eq(s.counts("<root>", "main"), (1, 0, 0), "snapshot <root> -> main")
    eq(s.counts("main", "f"), (1, 0, 0), "snapshot main -> f")
    eq(s.counts("f", "leaf"), (1, 1, 0), "snapshot f -> leaf")
    p = ctx.dump()
    p.check_invariants()
    eq(p.h["final"], True, "final")
    eq(p.counts("main", "f"), (2, 2, 0), "main -> f")
    eq(p.counts("f", "leaf"), (2, 2, 0), "f -> leaf")
