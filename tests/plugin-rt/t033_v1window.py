"""Instrumented signal handlers landing in chosen windows of ABI v1's hooks,
on purpose: a stress build of libprof (-DDP_STRESS, graph.h, as e2e t030
for the -finstrument-functions hooks) raises SIGALRM at the v1 points
$DEEPPROF_STRESS names, alone and together, once or twice in a row. Every
handler run is counted once (on_sig and sig_leaf), loop -> work exactly,
nothing lost, and sig_leaf never calls on_sig. The window that failed: a
second handler in reclaim() (a push that a first handler's callback frame
beat) wrote its record over the first's, and reclaim counted the second,
dropped both frames and lost the first, one handler run per visit; a
handler's callers were then misfiled under sig_leaf. reclaim() now runs
with signals blocked."""
import os
import subprocess

import e2e
from prt import Fail, eq, check, invariants

N = 1000
PUSH, FAILED, PUSHED, ENTER, RETURN, POPPED, RECLAIM = range(8, 15)
CASES = ([PUSH, FAILED], [PUSH, RECLAIM], [PUSH, FAILED, RECLAIM], [PUSH, PUSHED], [PUSHED, ENTER],
         [ENTER, RETURN], [RETURN, POPPED], list(range(PUSH, RECLAIM + 1)))


def run(ctx):
    if ctx.a.abi == 1:
        return          # the same builds as the default run's: abi=1 by itself
    objs = e2e.stress_objects(ctx)
    lib = ctx.path("libstress.a")
    r = subprocess.run(["ar", "rcs", lib] + objs, capture_output=True, text=True)
    if r.returncode != 0:
        raise Fail("ar: " + r.stderr)
    exe = ctx.build(["s-sigwindow.c"], "sigwindow", opt="-O1",
                    dp_args=["abi=1"], extra=["--deepprof-runtime=" + lib], libs=["-ldl"])
    for points in CASES:
        for twice in (False, True):
            env = {"DEEPPROF_HZ": "0", "DEEPPROF_STRESS": str(sum(1 << p for p in points))}
            if twice:
                env["DEEPPROF_STRESS_TWICE"] = "1"
            tag = "points %s%s" % (points, ", twice" if twice else "")
            r = ctx.run(exe, [str(N)], env=env, timeout=60)
            runs = int(r.stdout.strip())
            p = ctx.dump()
            invariants(p)
            check(runs > 0, "handler runs (%s): %d" % (tag, runs))
            eq(p.counts("loop", "work"), (N, N, 0), "loop -> work (%s)" % tag)
            eq(p.total(callee="on_sig"), runs, "on_sig calls: one per handler run (%s)" % tag)
            eq(p.total(callee="on_sig", field="exits"), runs, "on_sig exits (%s)" % tag)
            eq(p.total(callee="sig_leaf"), runs, "sig_leaf calls (%s)" % tag)
            eq(p.total(caller="sig_leaf", callee="on_sig"), 0, "on_sig under sig_leaf (%s)" % tag)
