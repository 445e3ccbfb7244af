"""Coroutines on stacks of their own (makecontext/swapcontext, as
coroutine libraries make them). ABI v2, the default, keeps no shadow
stack, only the chain of csds, so every count is exact: the coroutine's
body hangs from the swapcontext call that first entered it (a callback
from uninstrumented code), each resume and yield returns. ABI v1 (and
-finstrument-functions) keep one shadow stack per thread, ordered by stack
address: a switch to another stack looks like a longjmp, the coroutine's
calls after its first yield hang from swapcontext and its yields count as
non-local exits (README, "Not yet"); the program still runs and its
profile is written."""
from prt import eq, invariants


def counts_of(c):
    return (c["calls"], c["exits"], c["nonlocal_exits"])


def run(ctx):
    exe = ctx.build(["s-ucontext.c"], "ucontext", opt="-O2")
    r = ctx.run(exe)
    eq(r.stdout.strip(), "4294952140 4294967195", "output")
    p = ctx.dump()
    eq(p.h["final"], True, "final")
    if ctx.a.abi == 1:
        return
    invariants(p)
    eq(sorted(counts_of(c) for c in p.csds("main", "resume")), [(1, 1, 0), (100, 100, 0)],
       "main -> resume (two sites)")
    eq(sorted(counts_of(c) for c in p.csds("resume", "swapcontext")), [(1, 1, 0), (100, 100, 0)],
       "resume -> swapcontext (in the two contexts)")
    eq(p.counts("swapcontext", "co_body"), (1, 1, 0), "swapcontext -> co_body (the coroutine's start)")
    eq(p.counts("co_body", "leaf"), (100, 100, 0), "co_body -> leaf")
    eq(p.counts("co_body", "yield_back"), (100, 100, 0), "co_body -> yield_back")
    eq(p.counts("yield_back", "swapcontext"), (100, 100, 0), "yield_back -> swapcontext")
    eq(p.counts("work", "leaf"), (300, 300, 0), "work -> leaf")
