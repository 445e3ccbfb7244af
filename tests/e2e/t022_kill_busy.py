"""SIGTERM at random moments of a tight loop of calls: the signal often lands
inside a hook, yet every final profile keeps calls == exits + nonlocal_exits."""
import signal
import time
from e2e import eq, check


def run(ctx):
    exe = ctx.compile("s-busy1.c")
    for k in range(12):
        proc = ctx.spawn(exe)
        try:
            eq(proc.stdout.readline(), "ready\n", "program said")
            time.sleep(0.01 + 0.007 * k)
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        eq(proc.returncode, -signal.SIGTERM, "exit status")
        p = ctx.dump()
        p.check_invariants()
        w = p.one("loop", "work")
        check(w["calls"] > 0, "loop -> work calls")
        eq(p.counts("main", "loop"), (1, 0, 1), "main -> loop")
