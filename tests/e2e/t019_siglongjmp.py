"""siglongjmp out of a signal handler 21 activations deep: every frame left
counts a non-local exit, the handler's css is a callback, and the call made
afterwards lands on main."""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-siglongjmp.c")
    ctx.run(exe)
    p = ctx.dump()
    p.check_invariants()
    eq(p.counts("main", "deep"), (1, 0, 1), "main -> deep")
    eq(p.counts("deep", "deep"), (20, 0, 20), "deep -> deep")
    h = p.one("deep", "on_usr1")
    eq((h["calls"], h["exits"], h["nonlocal_exits"]), (1, 0, 1), "deep -> on_usr1")
    eq(p.css_of(h)["kind"], "callback", "css of the signal delivery")
    eq(p.counts("main", "after"), (1, 1, 0), "main -> after")
    eq(p.total(field="nonlocal_exits"), 22, "non-local exits")
