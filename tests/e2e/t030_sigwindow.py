"""Instrumented signal handlers landing in chosen windows of libprof's
-finstrument-functions hooks, on purpose: a stress build of libprof
(-DDP_STRESS, graph.h) raises SIGALRM at the hook points $DEEPPROF_STRESS
names. The old race: a handler while an enter hook fills the new frame
writes the slot over; a second one right after the push took the first
handler's dead frame there for a stale one and popped it (a phantom
non-local exit of on_sig, the pushed call of work lost, a hook lost).
Each handler's call is charged to the frame on top when it lands; one that
lands while a push is in progress hangs from that call's caller."""

import e2e
from e2e import eq, check

N = 1000                                # loop -> work calls
FILLED, PUSHED, SLOW_FILLED, SLOW_PUSHED, REFILL, POPPED, EXIT = range(1, 8)


def profile(ctx, exe, points, grow=False):
    mask = sum(1 << p for p in points)
    r = ctx.run(exe, [str(N)] + (["grow"] if grow else []),
                env={"DEEPPROF_HZ": "0", "DEEPPROF_STRESS": str(mask)})
    p = ctx.dump()
    p.check_invariants()                # lost == 0: no hook may be dropped
    eq(p.counts("main", "loop"), (1, 1, 0), "main -> loop")
    eq(p.counts("loop", "work"), (N, N, 0), "loop -> work")
    eq(p.total(field="nonlocal_exits"), 0, "non-local exits")
    runs = int(r.stdout.strip())
    eq(p.total(callee="on_sig"), runs, "on_sig calls (handler runs)")
    eq(p.total(callee="on_sig", field="exits"), runs, "on_sig exits")
    eq(p.total(callee="sig_leaf"), runs, "sig_leaf calls")
    for c in p.csds(callee="sig_leaf"):
        eq(c["caller"], "on_sig", "caller of sig_leaf")
    return p, runs


def by_caller(p):
    return {c: p.total(caller=c, callee="on_sig") for c in ("main", "loop", "work")}


def run(ctx):
    objs = e2e.stress_objects(ctx)
    exe = ctx.compile("s-sigwindow.c", extra=objs)

    # no stress points: no signal at all
    p, runs = profile(ctx, exe, [])
    eq(runs, 0, "handler runs without stress points")

    # the race: a handler while work's frame is filled (before its push),
    # then one right after the push, before the hook finds the slot
    # written over. The first work call takes the slow path (new csd).
    p, runs = profile(ctx, exe, [FILLED, PUSHED])
    eq(runs, 2 * (N - 1), "handler runs")
    eq(by_caller(p), {"main": 0, "loop": 2 * (N - 1), "work": 0}, "on_sig calls by caller")

    # the same with loop's csd table grown twice before work's csd is made
    # (a table's mask lives in its header word, graph.h): every call of work
    # after the first still takes the fast path, whose points fire
    p, runs = profile(ctx, exe, [FILLED, PUSHED], grow=True)
    for g in ("grow1", "grow2", "grow3", "grow4"):
        eq(p.counts("loop", g), (1, 1, 0), "loop -> " + g)
    eq(runs, 2 * (N - 1), "handler runs (grown table)")
    eq(by_caller(p), {"main": 0, "loop": 2 * (N - 1), "work": 0}, "on_sig calls by caller (grown table)")

    # the same windows of the slow path: loop's first call and work's first
    p, runs = profile(ctx, exe, [SLOW_FILLED, SLOW_PUSHED, REFILL])
    # each slow enter: filled (caller on top), pushed (push in progress:
    # the caller), refill (the same)
    eq(by_caller(p), {"main": 3, "loop": 3, "work": 0}, "on_sig calls by caller (slow path)")

    # every point: each fast enter of work gets 3 handlers (filled, pushed
    # and refill, all charged to loop), each exit 2 (before the pop: the
    # returning function; after: its caller); loop's enter and work's
    # first enter take the slow path (3 each), loop's exit 2. main returns
    # after the handler is gone. A refill's handler lands with the dead
    # slot's tab already work's table, where the exit handlers' on_sig csd
    # is: the fast path finds it, and the dead slot must still send it to
    # the slow path (else on_sig hangs from work).
    p, runs = profile(ctx, exe, range(1, 8))
    eq(by_caller(p), {"main": 3 + 1, "loop": 3 + 3 * (N - 1) + N + 1, "work": N},
       "on_sig calls by caller (every point)")
    eq(runs, 5 * N + 5, "handler runs (every point)")
