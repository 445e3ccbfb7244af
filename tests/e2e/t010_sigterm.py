"""SIGTERM (and SIGINT) in the middle of work: the profile is written and the process
still dies of SIGTERM; a program with its own SIGTERM handler keeps it."""
import os
import signal
from e2e import eq, check, Fail


def signal_when_ready(ctx, exe, args=(), sig=signal.SIGTERM):
    proc = ctx.spawn(exe, args)
    try:
        line = proc.stdout.readline()
        eq(line, "ready\n", "program said")
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out, err


def run(ctx):
    exe = ctx.compile("s-sigterm.c")
    rc, out, err = signal_when_ready(ctx, exe)
    eq(rc, -signal.SIGTERM, "exit status (died of SIGTERM)")
    p = ctx.dump()
    p.check_invariants()
    eq(p.h["final"], True, "final")
    eq(p.counts("<root>", "main"), (1, 0, 1), "<root> -> main")
    eq(p.counts("main", "work"), (1, 0, 1), "main -> work")
    eq(p.counts("work", "wait_here"), (1, 0, 1), "work -> wait_here")
    eq(p.h["calls"], 3, "total calls")

    os.unlink(ctx.path("Deep.data"))
    rc, out, err = signal_when_ready(ctx, exe, sig=signal.SIGINT)
    eq(rc, -signal.SIGINT, "exit status (died of SIGINT)")
    p = ctx.dump()
    p.check_invariants()
    eq(p.counts("work", "wait_here"), (1, 0, 1), "work -> wait_here (SIGINT)")

    os.unlink(ctx.path("Deep.data"))
    rc, out, err = signal_when_ready(ctx, exe, ["handler"])
    eq(rc, 0, "exit status with the program's own handler")
    eq(out, "handled\n", "the program's handler ran")
    p = ctx.dump()
    p.check_invariants()
    eq(p.counts("main", "work"), (1, 1, 0), "main -> work")
    eq(p.counts("work", "wait_here"), (1, 1, 0), "work -> wait_here")
    h = p.one("wait_here", "on_term")
    eq((h["calls"], h["exits"]), (1, 1), "wait_here -> on_term (the signal arrived there)")
    eq(p.css_of(h)["kind"], "callback", "css of the signal delivery")
