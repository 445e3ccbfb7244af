"""Clock ticks: DEEPPROF_HZ=0 gives none; the default on a CPU-bound run
gives ticks, charged mostly to the spinning code, and a plausible
ns_per_tick (measured, not the asked rate)."""
from e2e import eq, check


def run(ctx):
    exe = ctx.compile("s-spin.c")
    ctx.run(exe, ["300"], env={"DEEPPROF_HZ": "0"})
    p = ctx.dump()
    p.check_invariants()
    eq(p.h["timer_hz"], 0, "timer_hz")
    eq(p.h["ticks"], 0, "ticks")
    eq(p.h["ns_per_tick"], 0, "ns_per_tick")
    eq(sum(c["ticks"] for c in p.csd), 0, "csd ticks")

    ctx.run(exe, ["400"])
    p = ctx.dump()
    p.check_invariants()
    h = p.h
    eq(h["timer_hz"], 1000, "timer_hz")
    check(h["cpu_ns"] >= 350e6, "cpu_ns %d >= 350 ms" % h["cpu_ns"])
    check(h["ticks"] >= 20, "ticks %d >= 20 in 400 ms of CPU" % h["ticks"])
    check(abs(h["ns_per_tick"] - h["cpu_ns"] / h["ticks"]) < 1, "ns_per_tick == cpu_ns/ticks")
    check(0.9e6 <= h["ns_per_tick"] <= 20e6,
          "ns_per_tick %.0f between 1 ms and 20 ms" % h["ns_per_tick"])
    inside = sum(c["ticks"] for c in p.csds(callee="step")) + \
        sum(c["ticks"] for c in p.csds(callee="cpu_ms")) + p.one("main", "spin")["ticks"]
    check(inside >= 0.8 * h["ticks"], "ticks in spin and below: %d of %d" % (inside, h["ticks"]))
