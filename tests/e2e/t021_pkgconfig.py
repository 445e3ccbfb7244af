"""libprof.so through build/lib/pkgconfig/libprof.pc: the program runs
without LD_LIBRARY_PATH (rpath), loads the build tree's libprof.so, and
its threads and recursion come out exact."""
import os
from e2e import eq, check


def run(ctx):
    exe = ctx.compile("s-threads.c", out="s-threads-so", link="pkg-config")
    env = {"LD_LIBRARY_PATH": ""}
    ctx.run(exe, env=env)
    p = ctx.dump()
    p.check_invariants()
    so = os.path.realpath(os.path.join(ctx.lib, "libprof.so"))
    paths = [os.path.realpath(m["path"]) for m in p.j["modules"]]
    check(so in paths, "%s among the modules %s" % (so, paths))
    eq(len(p.threads), 5, "threads")
    eq(sorted(p.one("work", "unit", t["id"])["calls"] for t in p.threads[1:]),
       [10, 20, 30, 40], "unit calls per worker thread")
    exe = ctx.compile("s-fib.c", out="s-fib-so", link="pkg-config")
    ctx.run(exe, ["15"], env=env)
    p = ctx.dump()
    p.check_invariants()
    eq(p.total(callee="fib"), 1973, "calls to fib(15)")
    eq(len(p.pds("fib")), 1, "pds of fib")
