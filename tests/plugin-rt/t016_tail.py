"""Deep tail recursion at -O2 (10^7 calls, far more than the 8 MiB stack
holds as ordinary calls): the calls stay real tail calls, the counts are
exact and the graph stays small (recursion through tail calls folds). The
same counts at -O0 (no tail calls there) with a depth the stack holds."""
import resource
from prt import eq, invariants


def check(p, n):
    invariants(p)
    eq(p.counts("main", "count"), (1, 1, 0), "main -> count")
    eq(p.counts("count", "count"), (n, n, 0), "count -> count")
    eq(p.counts("main", "is_even"), (1, 1, 0), "main -> is_even")
    eq(p.counts("is_even", "is_odd"), (n // 2, n // 2, 0), "is_even -> is_odd")
    eq(p.counts("is_odd", "is_even"), (n // 2, n // 2, 0), "is_odd -> is_even")
    eq((len(p.pds("count")), len(p.pds("is_even")), len(p.pds("is_odd"))), (1, 1, 1), "pds")
    # a clock tick that lands in libc makes csds of no calls for the frames
    # it finds there (printf -> __vfprintf_internal: seen under load)
    eq(len([c for c in p.csd if c["callee"] != "deepprof_runtime" and c["calls"]]), 8,
       "csds (with main's calls of atol and printf; ticks in the runtime and libc apart)")


def run(ctx):
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    if soft == resource.RLIM_INFINITY or soft > 64 << 20:
        resource.setrlimit(resource.RLIMIT_STACK, (8 << 20, hard))  # inherited by the program
    try:
        exe = ctx.build(["s-tail.c"], "tail-O2", opt="-O2")
        n = 10 ** 7
        r = ctx.run(exe, [str(n)])
        eq(r.stdout.split(), [str(n), "1"], "output")
        check(ctx.dump(), n)
        exe = ctx.build(["s-tail.c"], "tail-O0", opt="-O0")
        n = 20000
        r = ctx.run(exe, [str(n)])
        eq(r.stdout.split(), [str(n), "1"], "output at -O0")
        check(ctx.dump(), n)
    finally:
        resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))
