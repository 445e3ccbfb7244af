"""longjmp in plugin mode: cyg mode's counts (the recursive calls of deep
are tail calls: the activations they replaced end as non-local exits too)."""
from prt import eq, invariants


def run(ctx):
    exe = ctx.compile("s-longjmp.c")
    ctx.run(exe)
    p = ctx.dump()
    invariants(p)
    eq(p.counts("main", "deep"), (1, 0, 1), "main -> deep")
    eq(p.counts("deep", "deep"), (49, 0, 49), "deep -> deep")
    eq(p.counts("deep", "longjmp"), (1, 0, 1), "deep -> longjmp")
    eq(p.counts("main", "after"), (1, 1, 0), "main -> after")
    eq(sorted((c["calls"], c["exits"]) for c in p.csds("after", "leaf")), [(1, 1), (1, 1)], "after -> leaf")
    eq(p.counts("main", "middle"), (1, 1, 0), "main -> middle")
    eq(p.counts("middle", "deep2"), (1, 0, 1), "middle -> deep2")
    eq(p.counts("deep2", "deep2"), (10, 0, 10), "deep2 -> deep2")
    eq(p.counts("after", "big"), (1, 1, 0), "after -> big")
    eq(p.counts("middle", "leaf"), (1, 1, 0), "middle -> leaf")
    eq(p.counts("middle", "big"), (1, 1, 0), "middle -> big")
    eq(p.counts("main", "shallow"), (1, 1, 0), "main -> shallow")
    eq(p.counts("shallow", "shallow"), (3, 3, 0), "shallow -> shallow")
    eq(p.one("main", "after")["caller_pd"], p.one("<root>", "main")["callee_pd"], "caller pd of main -> after")
    eq(p.total(field="nonlocal_exits"), 50 + 11 + 2, "non-local exits (with the two longjmp calls)")
