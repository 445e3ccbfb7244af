"""-O2: recursion GCC inlined into itself and exit hooks GCC tail-calls
still give exact counts; a setjmp loop that calls run() again from the same
site after each longjmp does not nest the new call under the dead one."""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-o2.c", opt="-O2")
    ctx.run(exe)
    p = ctx.dump()
    p.check_invariants()
    eq(p.total("main", "make"), 1, "main -> make")
    eq(p.total("make", "make"), 2046, "make -> make")
    eq(p.total("main", "release"), 1, "main -> release")
    eq(p.total("release", "release"), 2046, "release -> release")
    eq(p.total("release", "release", "nonlocal_exits"), 0, "release -> release non-local exits")
    eq(p.counts("main", "run"), (5, 0, 5), "main -> run")
    eq(p.csds("run", "run"), [], "run -> run (a dead run is not a caller)")
    eq(p.counts("run", "deep"), (5, 0, 5), "run -> deep")
    eq(p.total("deep", "deep"), 0 + 1 + 2 + 3 + 4, "deep -> deep")
    eq(p.total("deep", "deep", "nonlocal_exits"), 10, "deep -> deep non-local exits")
    eq(len(p.pds("run")), 1, "pds of run")
