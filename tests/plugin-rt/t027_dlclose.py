"""A program that dlopens a library built with deepprof-cc, calls into it
(a direct site, an indirect one calling back into the program) and
dlcloses it, three times: the profile, written at exit when the library's
tables are unmapped, is complete. The runtime read a v2 csd's site flags
(and, binding a pending call, its callee's name) from the library's table:
the default ABI crashed at exit (SIGSEGV in the writer) and left no
profile. The css node now keeps copies of both."""
from prt import eq, invariants


def run(ctx):
    ctx.build(["s-mf-lib.c"], "libdl.so", opt="-O2", shared=True)
    exe = ctx.build(["s-dlclose.c"], "dlclose", opt="-O2", libs=["-ldl"])
    r = ctx.run(exe, [ctx.path("libdl.so")])
    eq(r.stdout.strip(), "345", "output")
    p = ctx.dump()
    invariants(p)
    eq(p.h["final"], True, "final")
    eq(p.counts("round_trip", "lib_sum"), (3, 3, 0), "round_trip -> lib_sum")
    eq(p.counts("lib_sum", "helper"), (30, 30, 0), "lib_sum -> helper")
    eq(p.counts("round_trip", "lib_twice"), (3, 3, 0), "round_trip -> lib_twice")
    eq(sorted((c["calls"], c["exits"]) for c in p.csds("lib_twice", "square")), [(3, 3), (3, 3)],
       "lib_twice -> square (two sites)")
    eq(p.counts("round_trip", "dlclose"), (3, 3, 0), "round_trip -> dlclose")
