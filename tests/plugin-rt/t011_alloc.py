"""Allocations in plugin mode: each allocator call is an external call site,
and its allocations are that csd's (not the calling function's)."""
from prt import eq, invariants


def check(p, n):
    invariants(p)
    dm = p.csds("do_malloc", "malloc")
    eq(sorted((c["allocs"], c["bytes"]) for c in dm), [(1, 100), (1, 200)], "do_malloc -> malloc")
    for caller, callee, ab in [("do_calloc", "calloc", (1, 80)), ("do_realloc", "malloc", (1, 16)),
                               ("do_realloc", "realloc", (1, 64)),
                               ("do_aligned", "posix_memalign", (1, 128)),
                               ("do_aligned", "aligned_alloc", (1, 256)),
                               ("do_aligned", "memalign", (1, 48)), ("do_aligned", "valloc", (1, 10))]:
        c = p.one(caller, callee)
        eq((c["allocs"], c["bytes"]), ab, "allocs, bytes of %s -> %s" % (caller, callee))
        eq((c["calls"], c["exits"]), (1, 1), "%s -> %s" % (caller, callee))
    c = p.one("churn", "malloc")
    eq((c["calls"], c["allocs"], c["bytes"]), (n, n, n * (n + 1) // 2), "churn -> malloc")
    eq(p.counts("churn", "free"), (n, n, 0), "churn -> free")
    for f in ("do_malloc", "do_calloc", "do_realloc", "do_aligned", "churn"):
        eq(p.one("main", f)["allocs"], 0, "allocs in %s itself" % f)
    eq(p.one("<root>", "main")["allocs"], 0, "allocs in main itself")


def run(ctx):
    exe = ctx.compile("s-alloc.c")
    for n in (50, 100000):
        ctx.run(exe, [str(n)])
        check(ctx.dump(), n)
