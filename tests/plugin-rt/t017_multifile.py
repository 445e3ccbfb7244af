"""A two-file program at -O0, -O2 and -O2 -flto: the same exact counts
(sites are the source's calls), calls across files both ways, an indirect
call, and a static function of the same name in each file as two ps."""
from prt import eq, invariants, kind, site


def check(p, what):
    invariants(p)
    eq(p.counts("main", "lib_sum"), (4, 4, 0), "main -> lib_sum " + what)
    eq(p.counts("lib_sum", "helper"), (40, 40, 0), "lib_sum -> helper " + what)
    eq(p.counts("main", "lib_twice"), (1, 1, 0), "main -> lib_twice " + what)
    eq([(c["calls"], c["exits"]) for c in p.csds("lib_twice", "square")], [(1, 1), (1, 1)],
       "lib_twice -> square (two sites) " + what)
    eq(p.counts("main", "helper"), (1, 1, 0), "main -> helper " + what)
    eq(p.one("main", "lib_sum")["cscs"], 4 + 40, "main -> lib_sum own cscs: 4 calls, 40 iterations " + what)
    eq([kind(p, c) for c in p.csds("lib_twice", "square")], ["indirect"] * 2, "kind of f(x) " + what)
    eq(kind(p, p.one("main", "lib_sum")), "normal", "kind of lib_sum() " + what)
    eq(site(p, p.one("main", "lib_sum")), "s-mf-main.c:13:8", "site of lib_sum() " + what)
    eq(site(p, p.one("lib_sum", "helper")), "s-mf-lib.c:8:8", "site of helper() " + what)
    helpers = sorted((s["file"].split("/")[-1], s["line"]) for s in p.ps if s["name"] == "helper")
    eq(helpers, [("s-mf-lib.c", 3), ("s-mf-main.c", 7)], "the two helpers " + what)


def run(ctx):
    for opt in ("-O0", "-O2", "-O2 -flto"):
        exe = ctx.build(["s-mf-main.c", "s-mf-lib.c"], "mf", opt=opt)
        r = ctx.run(exe)
        eq(r.stdout.strip(), "387", "output")
        check(ctx.dump(), opt)
