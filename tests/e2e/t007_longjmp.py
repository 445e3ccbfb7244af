"""longjmp out of depth 50: 50 non-local exits, and calls made after the jump
land on main's csds; a longjmp into a frame that then returns resynchronises
at the exit hook."""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-longjmp.c")
    ctx.run(exe)
    p = ctx.dump()
    p.check_invariants()
    eq(p.counts("main", "deep"), (1, 0, 1), "main -> deep")
    eq(p.counts("deep", "deep"), (49, 0, 49), "deep -> deep")
    eq(p.total(callee="deep", field="nonlocal_exits"), 50, "non-local exits of deep")
    eq(p.counts("main", "after"), (1, 1, 0), "main -> after (called after the longjmp)")
    eq(sorted((c["calls"], c["exits"]) for c in p.csds("after", "leaf")), [(1, 1), (1, 1)],
       "after -> leaf (two sites)")
    eq(p.counts("main", "middle"), (1, 1, 0), "main -> middle")
    eq(p.counts("middle", "deep2"), (1, 0, 1), "middle -> deep2")
    eq(p.counts("deep2", "deep2"), (10, 0, 10), "deep2 -> deep2")
    eq(p.counts("main", "after"), (1, 1, 0), "main -> after")
    eq(p.counts("after", "big"), (1, 1, 0), "after -> big")
    eq(p.counts("middle", "leaf"), (1, 1, 0), "middle -> leaf (after the longjmp into middle)")
    eq(p.counts("middle", "big"), (1, 1, 0), "middle -> big (after the longjmp into middle)")
    eq(p.csds("deep2", "big") + p.csds("deep2", "leaf") + p.csds("deep", "after"), [],
       "calls made after a longjmp hanging from stale frames")
    eq(p.counts("main", "shallow"), (1, 1, 0), "main -> shallow")
    eq(p.counts("shallow", "shallow"), (3, 3, 0), "shallow -> shallow")
    # after() hangs from main's pd, not from a stale deep pd
    eq(p.one("main", "after")["caller_pd"], p.one("<root>", "main")["callee_pd"],
       "caller pd of main -> after")
    eq(p.total(field="nonlocal_exits"), 50 + 11, "non-local exits in all")
