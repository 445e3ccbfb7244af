"""An instrumented signal handler interrupting the program (and so, most of
the time, libprof's hooks) every 50 us: every count stays exact; each
handler run is a callback. A handler that comes while the thread makes
nodes and needs new nodes itself is dropped and counted as lost: its three
hooks (enter on_tick, call and enter tick_leaf) are exactly what is missing."""
from prt import eq, check, invariants

RACE = 5    # calls the residual race may gain or lose in one run (ABI v2)
# ABI v1's known race (KNOWN in libprof/plugin.c) is bound to the handler
# runs: a handler run is lost, counted instead as one more call of the
# interrupted site (loop -> work), left as a non-local exit. On a VM with a
# precise 50 us timer (3,500 to 12,000 handler runs) that was 0 to 20 runs
# in one, every run of the suite failing at RACE; with reclaim()'s window
# closed (t033), 0 to 14 in about 5,000. Up to 1% of the handler runs is
# accepted here.
RACE_V1_PER = 100


def run(ctx):
    exe = ctx.compile("s-sighook.c")
    for _ in range(3):
        r = ctx.run(exe, ["3000000"], env={"DEEPPROF_HZ": "0"})
        n = int(r.stdout.strip())
        check(n > 100, "handler runs: %d" % n)
        p = ctx.dump()
        lost = p.h["lost"]
        p.h["lost"] = 0
        invariants(p)
        # ABI v1 drops a handler's three hooks together; v2's inline code
        # drops only what reaches the runtime (seen: 2), so no multiple of 3
        # (up to 2% of the handler runs: on a VM with a precise 50 us
        # timer, 1.3% of about 1,000 were dropped, lost 33)
        check(lost <= max(30, 3 * n // 50), "handlers dropped: %d of %d" % (lost // 3, n))
        got = n - lost // 3
        race = max(RACE, n // RACE_V1_PER) if ctx.a.abi == 1 else RACE
        eq(p.counts("main", "loop"), (1, 1, 0), "main -> loop")
        w = p.one("loop", "work")
        # known residual race (KNOWN in libprof/plugin.c): with a handler
        # every 50 us, about one run in two loses or misfiles one of these
        # 3000000 calls (or counts one twice); two in one run were seen once
        # in 30 runs. RACE bounds what `make check` accepts so that it does
        # not fail one CI run in ten; the race itself is an open defect.
        check(abs(w["calls"] - 3000000) <= race, "loop -> work calls: %d" % w["calls"])
        check(w["nonlocal_exits"] <= race, "loop -> work non-local exits: %d" % w["nonlocal_exits"])
        # exact but for the residual race below (one call, either way)
        for f in ("on_tick", "tick_leaf"):
            for m in ("calls", "exits"):
                v = p.total(callee=f, field=m)
                check(abs(v - got) <= race, "%s of %s: %d, handler ran %d times" % (m, f, v, got))
        other = p.total(field="nonlocal_exits") - w["nonlocal_exits"]
        if ctx.a.abi == 1:
            check(other <= race, "other non-local exits: %d" % other)
        else:
            eq(other, 0, "other non-local exits")
        rooted = 0
        for c in p.csds(callee="on_tick"):
            # a handler that interrupts libprof's hook right after another
            # handler can hang from the earlier one (v1 has no function exit hook)
            if c["caller"] == "<root>" and ctx.a.abi != 1:
                rooted += c["calls"]    # below
                continue
            check(c["caller"] in ("loop", "work", "main", "setitimer", "atol", "on_tick", "tick_leaf"),
                  "on_tick called back from %s" % c["caller"])
        # ABI v2: a handler run whose prologue finds no activation of the
        # thread in dp_cur's chain hangs from <root> (the same VM: in 2 runs
        # of 40, 3 calls each); its calls are counted all the same
        check(rooted <= race, "on_tick called back from <root>: %d calls" % rooted)
        # 1 call + 3000000 back-edges; a handler running in the middle of a
        # hook or of an increment of dp_loop_ticks may move a few ticks to
        # its own csd (rare: a handler every 50 us, several thousand in all)
        cscs = p.one("main", "loop")["cscs"]
        check(abs(cscs - 3000001) <= 2 * race, "main -> loop cscs (3000000 iterations): %d" % cscs)
        eq(p.h["cscs"] - sum(c["cscs"] for c in p.csd), 0, "cscs add up")
