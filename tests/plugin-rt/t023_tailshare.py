"""A tail call whose caller's pd is left both ways (s-tailshare.c): ABI v1
sees every return; ABI v2 has no hook after a tail call and gives it the
share of returned calls into its caller's pd (schemas/plugin-abi.md, "The
inline fast path": exact when all or none returned). Here g -> h made 3
calls, 2 returned; the calls into g returned 2 of 4, so v2 gives
g -> h floor(3 * 2 / 4) = 1 exit. Every other count is the same."""
from prt import eq, invariants


def run(ctx):
    exe = ctx.compile("s-tailshare.c")
    r = ctx.run(exe)
    eq(r.stdout.strip(), "5", "output")
    p = ctx.dump()
    invariants(p)
    eq(p.counts("main", "g"), (4, 2, 2), "main -> g")
    eq(p.counts("g", "k"), (1, 0, 1), "g -> k")
    eq(p.counts("k", "longjmp"), (1, 0, 1), "k -> longjmp")
    eq(p.counts("h", "longjmp"), (1, 0, 1), "h -> longjmp")
    want = (3, 2, 1) if ctx.a.abi == 1 else (3, 1, 2)    # v2 (the default): the share
    eq(p.counts("g", "h"), want, "g -> h (a tail call)")
