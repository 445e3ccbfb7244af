"""Indirect calls whose target changes from call to call, and the sites of
a part GCC split off a function (s-poly.c), by both ways of counting calls,
at -O0 and -O2: apply()'s one site calls two targets in turn, then 200 in
turn (more than the runtime's memo of the slow path holds, ABI v2's
dp_thread.callmemo), each target one csd per context of apply, in each of
two threads; rare()'s cold tail (rare.part.0 at -O2) calls 14 times, 70
and 10 times from its two callers: its csds hang from rare, or with
calls=surviving from the caller its head was inlined into. Exact counts.
On ABI v2, callgrind sees the slow path search (call_slow) only for what
the memo cannot answer (libprof/plugin2.c's call()), not every slow call,
and at -O2 two targets in turn take no slow path after the first call of
each (the site tries its csd's next)."""
import os
import re
import subprocess
import sys

from prt import eq, check, invariants, Fail

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "xcheck"))
import callgrind  # noqa: E402

N = 200


def contexts(p, name, thread):
    """{caller of the context: {callee: (calls, exits)}} for name's pds in
    thread. Csds of no calls are left out: a clock tick landing in libprof
    or libc makes them (deepprof_runtime's, under the sanitizers on ABI v1)."""
    out = {}
    for pd in p.pds(name, thread):
        into = [c for c in p.csd if c["callee_pd"] == pd["id"] and c["calls"]]
        eq(len(into), 1, "csds into %s's pd %d" % (name, pd["id"]))
        calls = {}
        for c in p.csd:
            if c["caller_pd"] == pd["id"] and c["calls"]:
                a, b = calls.get(c["callee"], (0, 0))
                calls[c["callee"]] = (a + c["calls"], b + c["exits"])
        out[into[0]["caller"]] = calls
    return out


def sums(p, caller, thread):
    """{callee: calls} of caller's csds in thread."""
    out = {}
    for c in p.csds(caller, None, thread):
        out[c["callee"]] = out.get(c["callee"], 0) + c["calls"]
    return out


def run(ctx):
    sanitized = "-fsanitize" in (ctx.a.cflags or "")
    for surv in (False, True):
        for opt in ("-O0", "-O2"):
            what = "%s%s" % (opt, ", calls=surviving" if surv else "")
            exe = ctx.build(["s-poly.c"], "poly", opt=opt,
                            dp_args=["calls=surviving"] if surv else [])
            syms = subprocess.run(["nm", exe], capture_output=True, text=True).stdout
            split = re.search(r"\srare\.part\.\d+$", syms, re.M) is not None
            if opt == "-O2" and surv:
                check(split, "GCC split rare's cold tail off (%s)" % what)
            ctx.run(exe)
            p = ctx.dump()
            invariants(p)
            threads = sorted({pd["thread"] for pd in p.pd if pd["name"] == "work"})
            eq(len(threads), 2, "threads that ran work (%s)" % what)
            for t in threads:
                at = "%s, thread %d" % (what, t)
                eq(p.counts("pairs", "apply", t), (1000, 1000, 0), "pairs -> apply (%s)" % at)
                eq(p.counts("rounds", "apply", t), (3 * N, 3 * N, 0), "rounds -> apply (%s)" % at)
                ctxs = contexts(p, "apply", t)
                eq(ctxs.get("pairs"), {"f0": (500, 500), "f1": (500, 500)},
                   "apply called by pairs: its targets (%s)" % at)
                eq(ctxs.get("rounds"), {"f%d" % i: (3, 3) for i in range(N)},
                   "apply called by rounds: its targets (%s)" % at)
                tails = {"cold": 10, "snprintf": 2, "atoi": 2}
                if surv and split:
                    # rare's head is inlined: its tail's calls are its callers'
                    eq(p.csds("split", "rare", t) + p.csds("split2", "rare", t), [],
                       "no call of rare, inlined (%s)" % at)
                    eq({k: v for k, v in sums(p, "split", t).items() if k in tails},
                       {k: 70 * v for k, v in tails.items()}, "split's calls of rare's tail (%s)" % at)
                    eq({k: v for k, v in sums(p, "split2", t).items() if k in tails},
                       {k: 10 * v for k, v in tails.items()}, "split2's calls of rare's tail (%s)" % at)
                else:
                    eq(p.counts("split", "rare", t), (490, 490, 0), "split -> rare (%s)" % at)
                    eq(p.counts("split2", "rare", t), (70, 70, 0), "split2 -> rare (%s)" % at)
                    rc = contexts(p, "rare", t)
                    eq({k: v[0] for k, v in rc.get("split", {}).items()},
                       {k: 70 * v for k, v in tails.items()}, "rare called by split (%s)" % at)
                    eq({k: v[0] for k, v in rc.get("split2", {}).items()},
                       {k: 10 * v for k, v in tails.items()}, "rare called by split2 (%s)" % at)
            if ctx.a.abi == 1 or sanitized or opt != "-O2":
                continue
            out = ctx.path("cg.out")
            r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, exe],
                               capture_output=True, text=True, cwd=ctx.dir)
            if r.returncode != 0:
                raise Fail("callgrind failed: " + r.stderr[-500:])
            arcs = callgrind.parse(out).arcs
            slow = sum(v for (a, b), v in arcs.items() if b == "dp_abi_call_slow")
            search = sum(v for (a, b), v in arcs.items()
                         if b == "call" and a in ("dp_abi_call_slow", "call_slow"))
            # per thread: pairs' 1000 calls miss the slot 999 times, but the
            # site finds the other target's csd in its csd's next (deepprof-abi.h)
            # after the first call of each; rounds' 600 miss every time (a
            # next is one target back); the memo answers all but the first of
            # each target (and what 200 targets evict of each other in 128
            # entries)
            check(slow >= 2 * 3 * N, "slow path calls: %d (%s)" % (slow, what))
            from_apply = sum(v for (a, b), v in arcs.items() if a == "apply" and b == "dp_abi_call_slow_regs")
            eq(from_apply, 2 * (2 + 3 * N), "apply's slow path calls (%s)" % what)
            check(search <= 2 * (2 + 3 * N) + 20,
                  "slow path searches: %d of %d calls (%s)" % (search, slow, what))
