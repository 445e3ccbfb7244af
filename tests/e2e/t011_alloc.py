"""Allocations: exact allocs and bytes per csd, for every interposed
allocator; the same with libprof.so through pkg-config."""
from e2e import eq


EXPECT = {                     # callee of main: (allocs, bytes)
    "do_malloc": (2, 300),
    "do_calloc": (1, 80),
    "do_realloc": (2, 80),     # malloc(16), realloc(.., 64)
    "do_aligned": (4, 128 + 256 + 48 + 10),
}


def check(p, n):
    p.check_invariants()
    for f, (allocs, nbytes) in EXPECT.items():
        c = p.one("main", f)
        eq((c["allocs"], c["bytes"]), (allocs, nbytes), "allocs, bytes of main -> %s" % f)
    c = p.one("main", "churn")
    eq((c["allocs"], c["bytes"]), (n, n * (n + 1) // 2), "allocs, bytes of main -> churn")
    eq(p.one("<root>", "main")["allocs"], 0, "allocs in main itself")


def run(ctx):
    exe = ctx.compile("s-alloc.c")
    for n in (50, 100000):
        ctx.run(exe, [str(n)])
        check(ctx.dump(), n)
    exe = ctx.compile("s-alloc.c", out="s-alloc-so", link="pkg-config")
    ctx.run(exe, ["1000"])
    check(ctx.dump(), 1000)
