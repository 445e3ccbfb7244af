"""The e2e programs at -O2 and -O2 -flto (inlining, tail calls, rotated
loops): the same exact counts and cscs as at -O0, since the plugin's sites
are the source's calls and inlined callees keep their hooks."""
from prt import eq, invariants


def run(ctx):
    for opt in ("-O2", "-O2 -flto"):
        def prof(src, args=()):
            exe = ctx.build([src], src[:-2] + opt.replace(" ", ""), opt=opt)
            ctx.run(exe, args)
            p = ctx.dump()
            invariants(p)
            return p
        p = prof("s-straight.c")
        for caller, callee in [("main", "a"), ("main", "b"), ("a", "b"), ("a", "c")]:
            eq(p.counts(caller, callee), (1, 1, 0), "%s -> %s %s" % (caller, callee, opt))
        eq((len(p.pds("b")), len(p.pds("c"))), (2, 3), "pds of b, c " + opt)
        p = prof("s-loops.c")
        eq((p.counts("main", "f"), p.one("main", "f")["cscs"]), ((10, 10, 0), 55), "main -> f " + opt)
        eq(p.counts("f", "g"), (45, 45, 0), "f -> g " + opt)
        eq(p.one("<root>", "main")["cscs"], 14, "<root> -> main cscs " + opt)
        p = prof("s-fib.c", ["20"])
        eq(p.total(callee="fib"), 21891, "calls to fib " + opt)
        eq(len(p.pds("fib")), 1, "pds of fib " + opt)
        p = prof("s-fnptr.c")
        eq([p.counts("main", f) for f in ("f1", "f2", "f3")], [(1, 1, 0), (2, 2, 0), (3, 3, 0)],
           "main -> f1, f2, f3 " + opt)
        p = prof("s-longjmp.c")
        eq(p.counts("deep", "deep"), (49, 0, 49), "deep -> deep " + opt)
        eq(p.counts("deep2", "deep2"), (10, 0, 10), "deep2 -> deep2 " + opt)
        eq(p.counts("shallow", "shallow"), (3, 3, 0), "shallow -> shallow " + opt)
        if opt == "-O2":
            # with -flto, deep's whole tail recursion is inlined into main's
            # frame: main's later calls cannot tell that frame was left by
            # longjmp, and hang from deep's pd (counts stay exact)
            eq(p.one("main", "after")["caller_pd"], p.one("<root>", "main")["callee_pd"],
               "main -> after " + opt)
        eq(p.total(callee="after"), 1, "calls of after " + opt)
        p = prof("s-qsort.c")
        eq(p.counts("main", "qsort"), (1, 1, 0), "main -> qsort " + opt)
        eq(p.one("qsort", "cmp")["calls"], p.one("qsort", "cmp")["exits"], "qsort -> cmp " + opt)
