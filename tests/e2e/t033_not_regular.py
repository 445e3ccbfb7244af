"""An output that is not a regular file (a FIFO here; /dev/null and
/dev/stdout on a pipe are the same case) is written in place: the atomic
temporary-file-and-rename would replace it with a regular file (as root,
/dev/null itself). The profile, and what deepprof's commands write with
-o, reach the FIFO's reader, and the FIFO stays one."""
import os
import stat
import subprocess
import threading

from e2e import eq, check


def through_fifo(ctx, name, write):
    """Run write(path) with a reader on the FIFO at path; the bytes read."""
    path = ctx.path(name)
    os.mkfifo(path)
    got = []
    # a daemon: if the FIFO was replaced, its reader waits forever
    reader = threading.Thread(target=lambda: got.append(open(path, "rb").read()), daemon=True)
    reader.start()
    write(path)
    reader.join(30)
    check(stat.S_ISFIFO(os.lstat(path).st_mode), "%s is still a FIFO" % name)
    check(not reader.is_alive(), "%s: the FIFO's reader finished" % name)
    check(not [f for f in os.listdir(ctx.dir) if f.startswith(name + ".tmp")],
          "%s: no temporary file left" % name)
    return got[0]


def run(ctx):
    exe = ctx.compile("s-fib.c")
    data = through_fifo(ctx, "prof.fifo", lambda p: ctx.run(exe, ["10"], env={"DEEPPROF_FILE": p}))
    check(data[:1] != b"" and len(data) > 100, "the profile came through the FIFO (%d bytes)" % len(data))
    ctx.run(exe, ["10"])
    prof = ctx.path("Deep.data")

    def dp(*args):
        def go(path):
            r = subprocess.run([ctx.a.deepprof] + [a if a != "OUT" else path for a in args],
                               capture_output=True, text=True)
            eq(r.returncode, 0, "deepprof %s: %s" % (" ".join(args), r.stderr.strip()))
        return go

    merged = through_fifo(ctx, "merge.fifo", dp("merge", "-o", "OUT", prof, prof))
    check(b"deepprof" in merged[:64] and len(merged) > 100, "merge wrote a profile (%d bytes)" % len(merged))
    text = through_fifo(ctx, "report.fifo", dp("report", prof, "top", "-o", "OUT"))
    check(b"fib" in text, "report top through the FIFO names fib")
    folded = through_fifo(ctx, "export.fifo", dp("export", prof, "-o", "OUT"))
    check(b"fib" in folded, "export through the FIFO has fib's stacks")
