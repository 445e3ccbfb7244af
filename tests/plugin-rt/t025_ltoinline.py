"""An instrumented function inlined by LTO into an uninstrumented one, with
calls=surviving (ABI v1): the inlined copy keeps its call hooks but loses
its enter hook, so h()'s calls are made while main's call of u() is still
pending and nothing entered it. The first of them binds that csd to the
uninstrumented u (call_slow's bind) and hangs h below it; nothing is lost.
calls=surviving needs ABI v1: under --abi 2 there is nothing to test."""
import subprocess

from prt import eq, invariants, kind, Fail


def run(ctx):
    if ctx.a.abi == 2:
        return
    obj = ctx.path("s-inl-u.o")
    cmd = [ctx.a.cc, "-std=gnu11", "-g", "-O2", "-flto", "-c", ctx.src("s-inl-u.c"), "-o", obj]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise Fail("%s failed:\n%s" % (" ".join(cmd), r.stderr.strip()))
    exe = ctx.build(["s-inl-main.c", "s-inl-lib.c", obj], "inl", opt="-O2 -flto",
                    dp_args=["calls=surviving"])
    r = ctx.run(exe)
    eq(r.stdout.strip(), "170", "output")
    p = ctx.dump()
    invariants(p)
    eq(p.counts("main", "u"), (5, 5, 0), "main -> u (bound as uninstrumented)")
    eq(kind(p, p.one("main", "u")), "normal", "kind of u()")
    hs = p.csds("u", "h")
    eq(len(hs), 2, "csds u -> h (g's two sites, inlined into u)")
    for c in hs:
        eq((c["calls"], c["exits"], c["nonlocal_exits"]), (5, 5, 0), "u -> h")
    eq(p.csds(callee="g"), [], "g: inlined, no calls of its own")
    eq(p.h["calls"], 1 + 5 + 10 + 1, "total calls (main, u, h, printf)")
