"""A longjmp out of a folded recursion (s-ljfold.c), then a call of a
procedure it left from a new context: the calls the longjmp left are no
longer running, so k -> g gets a new pd of g (ABI v1 resynchronises by
stack pointer at its next hook; ABI v2 at the landing after setjmp). The
same counts with both ABIs, at -O0 and -O2."""
from prt import eq, invariants


def run(ctx):
    for opt in ("-O0", "-O2"):      # at -O2 f, g and k are inlined into each other
        exe = ctx.build(["s-ljfold.c"], "ljfold" + opt, opt=opt)
        r = ctx.run(exe)
        eq(r.stdout.strip(), "2", "output " + opt)
        check(ctx.dump())


def check(p):
    invariants(p)
    eq(p.counts("main", "f"), (2, 1, 1), "main -> f (the first call left by the longjmp)")
    eq(p.counts("f", "g"), (1, 0, 1), "f -> g")
    eq(p.counts("g", "f"), (1, 0, 1), "g -> f (folded into f's pd)")
    eq(p.counts("f", "longjmp"), (1, 0, 1), "f -> longjmp")
    eq(p.counts("f", "k"), (1, 1, 0), "f -> k")
    eq(p.counts("k", "g"), (1, 1, 0), "k -> g")
    eq(p.one("g", "f")["callee_pd"], p.one("main", "f")["callee_pd"], "g -> f folds into f's pd")
    eq(len(p.pds("f")), 1, "pds of f")
    eq(len(p.pds("g")), 2, "pds of g: k -> g does not fold into the g the longjmp left")
    eq(p.one("k", "g")["callee_pd"] != p.one("f", "g")["callee_pd"], True, "k -> g has its own pd")
    eq(p.total(field="nonlocal_exits"), 4, "non-local exits")
