"""SIGTERM while the program waits in pause(): every activation, the pending
call into libc included, counts a non-local exit; with the program's own
handler, the handler is a callback from pause."""
import signal
from prt import eq, invariants, kind


def signal_when_ready(ctx, exe, args=()):
    proc = ctx.spawn(exe, args)
    try:
        eq(proc.stdout.readline(), "ready\n", "program said")
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out


def run(ctx):
    exe = ctx.compile("s-sigterm.c")
    rc, out = signal_when_ready(ctx, exe)
    eq(rc, -signal.SIGTERM, "exit status (died of SIGTERM)")
    p = ctx.dump()
    invariants(p)
    for caller, callee in [("<root>", "main"), ("main", "work"), ("work", "wait_here")]:
        eq(p.counts(caller, callee), (1, 0, 1), "%s -> %s" % (caller, callee))
    # the signal may come before write() has returned to wait_here, or
    # before pause() is called
    w = p.one("wait_here", "write")
    eq((w["calls"], w["exits"] + w["nonlocal_exits"]), (1, 1), "wait_here -> write")
    paused = len(p.csds("wait_here", "pause"))
    if paused:
        eq(w["exits"], 1, "wait_here -> write returned before pause")
    if paused:
        eq(p.counts("wait_here", "pause"), (1, 0, 1), "wait_here -> pause")
    eq(p.h["calls"], 4 + paused, "total calls")
    rc, out = signal_when_ready(ctx, exe, ["handler"])
    eq((rc, out), (0, "handled\n"), "exit status and output with the program's handler")
    p = ctx.dump()
    invariants(p)
    eq(p.counts("main", "work"), (1, 1, 0), "main -> work")
    eq(p.counts("work", "wait_here"), (1, 1, 0), "work -> wait_here")
    eq(p.total(callee="on_term"), 1, "calls of on_term")
    h = p.csds(callee="on_term")[0]
    eq(h["exits"], 1, "on_term returned")
    eq(kind(p, h), "callback", "css of the signal delivery")
    if p.csds("wait_here", "pause"):    # it came while the program waited in pause()
        eq(p.counts("wait_here", "pause"), (1, 1, 0), "wait_here -> pause")
        eq(p.one("wait_here", "pause")["callee_pd"], h["caller_pd"], "on_term hangs from pause's pd")
