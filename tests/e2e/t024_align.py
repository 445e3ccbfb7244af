"""Over-aligned frames (GCC realigns the stack, so a function's frame offset
changes from call to call): nesting stays exact at -O0 and -O2."""
from e2e import eq


def run(ctx):
    for opt in ("-O0", "-O2"):
        exe = ctx.compile("s-align.c", out="s-align" + opt, opt=opt)
        ctx.run(exe)
        p = ctx.dump()
        p.check_invariants()
        eq(p.counts("main", "rec"), (1, 1, 0), "main -> rec " + opt)
        eq(p.counts("rec", "rec"), (20, 20, 0), "rec -> rec " + opt)
        eq(p.counts("rec", "f"), (21, 21, 0), "rec -> f " + opt)
        eq(p.counts("f", "leaf"), (21, 21, 0), "f -> leaf " + opt)
        eq(p.total(field="nonlocal_exits"), 0, "non-local exits " + opt)
        eq(p.h["calls"], 1 + 1 + 20 + 21 + 21, "total calls " + opt)
