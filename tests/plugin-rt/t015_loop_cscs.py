"""Back-edge ticks: a loop running n times costs exactly n more cscs than
the same function whose loop runs 0 times; nested loops multiply; continue
and a backward goto tick once per source iteration; a do-while n - 1 times.
The counts are the same at -O0, -O2 (loops rotated, unrolled, or computed
in closed form by GCC) and -O2 -flto."""
from prt import eq, invariants


def expect(n):
    return {"empty": 0, "while_loop": n, "do_loop": n - 1, "nested": n + 3 * n,
            "with_continue": n, "goto_back": n - 1, "unrolled": n, "counted": n}


def run(ctx):
    for opt in ("-O0", "-O2", "-O2 -funroll-loops", "-O2 -flto"):
        exe = ctx.build(["s-loopcscs.c"], "loopcscs", opt=opt)
        for n in (100, 1000):
            ctx.run(exe, [str(n)])
            p = ctx.dump()
            invariants(p)
            what = "%s, n=%d" % (opt, n)
            for f, ticks in expect(n).items():
                c = p.one("main", f)
                eq((c["calls"], c["cscs"]), (1, 1 + ticks), "main -> %s calls, cscs (%s)" % (f, what))
            fl = sorted((c["calls"], c["cscs"]) for c in p.csds("main", "for_loop"))
            eq(fl, [(1, 1), (1, 1 + n)], "main -> for_loop(0), for_loop(n) (%s)" % what)
            eq(fl[1][1] - fl[0][1], n, "n iterations cost n more cscs (%s)" % what)
