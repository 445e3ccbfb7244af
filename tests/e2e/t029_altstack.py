"""A signal handler on an alternate signal stack lying above the frames it
interrupts (a buffer in main's frame): the interrupted activations are not
taken for stale frames, and a siglongjmp out of the handler is a non-local
exit of exactly the frames it skipped."""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-altstack.c")
    ctx.run(exe)
    p = ctx.dump()
    p.check_invariants()
    eq(p.counts("main", "work"), (1, 1, 0), "main -> work")
    eq(p.counts("work", "deep"), (1, 1, 0), "work -> deep")
    eq(p.counts("deep", "on_sig"), (1, 1, 0), "deep -> on_sig (the handler)")
    eq(p.counts("on_sig", "in_handler"), (1, 1, 0), "on_sig -> in_handler")
    eq(p.counts("deep", "leaf"), (1, 1, 0), "deep -> leaf, after the handler")
    eq(p.total(field="nonlocal_exits"), 0, "no non-local exits")

    ctx.run(exe, ["jump"])
    p = ctx.dump()
    p.check_invariants()
    eq(p.counts("main", "work"), (1, 0, 1), "main -> work (jumped over)")
    eq(p.counts("work", "deep"), (1, 0, 1), "work -> deep (jumped over)")
    eq(p.counts("deep", "on_sig"), (1, 0, 1), "deep -> on_sig (left by siglongjmp)")
    eq(p.counts("on_sig", "in_handler"), (1, 1, 0), "on_sig -> in_handler")
    eq(p.counts("main", "after"), (1, 1, 0), "main -> after")
    eq(len(p.csds(callee="leaf")), 0, "leaf never ran")
