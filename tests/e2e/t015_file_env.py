"""$DEEPPROF_FILE with %p names the file after the pid; an unwritable
$DEEPPROF_FILE gives one message and leaves the program's status alone."""
import os
from e2e import eq, check


def run(ctx):
    exe = ctx.compile("s-straight.c")
    ctx.run(exe, env={"DEEPPROF_FILE": "out-%p.dp"})
    files = [f for f in os.listdir(ctx.dir) if f.startswith("out-") and f.endswith(".dp")]
    eq(len(files), 1, "files out-*.dp")
    check(not os.path.exists(ctx.path("Deep.data")), "no Deep.data")
    p = ctx.dump(files[0])
    p.check_invariants()
    eq(files[0], "out-%d.dp" % p.h["pid"], "file name")
    eq(p.h["calls"], 7, "total calls")
    eq(p.h["argv"], [exe], "argv")
    r = ctx.run(exe, env={"DEEPPROF_FILE": "missing/dir/x.dp"})
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    eq(len(lines), 1, "stderr lines")
    check(lines[0].startswith("deepprof: ") and "missing/dir/x.dp" in lines[0],
          "message names the file: %r" % lines[0])
    check(not any(".tmp." in f for f in os.listdir(ctx.dir)), "no temporary file left")
