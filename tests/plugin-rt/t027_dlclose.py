"""A program that dlopens a library built with deepprof-cc, calls into it
(a direct site, an indirect one calling back into the program) and
dlcloses it, three times: the profile, written at exit when the library's
tables are unmapped, is complete. The runtime read a v2 csd's site flags
(and, binding a pending call, its callee's name) from the library's table:
the default ABI crashed at exit (SIGSEGV in the writer) and left no
profile. The css node now keeps copies of both. And the same with the
library built without instrumentation: its functions are named from its
module, which the writer's list adds before each dlclose (deepprof-cc's
--wrap=dlclose, libprof/dlwrap.c); they were <unknown>. Its lib_twice,
called through a pointer, calls square back: the indirect site's target
lies outside instrumented code, so square is a callback under
lib_twice, not the site's callee (it was: round_trip -> square)."""
import subprocess

from prt import Fail, eq, invariants


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
    plain = ctx.path("libplain.so")
    cmd = ["gcc", "-std=gnu11", "-g", "-O2", "-shared", "-fPIC", ctx.src("s-mf-lib.c"), "-o", plain]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise Fail("%s failed:\n%s" % (" ".join(cmd), r.stderr.strip()[-2000:]))
    r = ctx.run(exe, [plain])
    eq(r.stdout.strip(), "345", "output (uninstrumented library)")
    p = ctx.dump()
    invariants(p)
    eq(p.counts("round_trip", "lib_sum"), (3, 3, 0), "round_trip -> lib_sum, named after dlclose")
    eq(p.counts("round_trip", "lib_twice"), (3, 3, 0), "round_trip -> lib_twice, named after dlclose")
    eq(p.counts("lib_twice", "square"), (6, 6, 0), "lib_twice -> square, called back")
