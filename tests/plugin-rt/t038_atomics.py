"""Atomic operations are not calls (s-atomic.c): no csd for C11's
atomic_fetch_add & co or GCC's __atomic_* and __sync_* builtins, which GCC
expands in place, at -O0 and -O2, by both ways of counting calls; the
program's calls are counted exactly."""
from prt import eq, invariants


def run(ctx):
    for surv in (False, True):
        for opt in ("-O0", "-O2"):
            what = "%s%s" % (opt, ", calls=surviving" if surv else "")
            exe = ctx.build(["s-atomic.c"], "atomic", opt=opt,
                            dp_args=["calls=surviving"] if surv else [])
            r = ctx.run(exe)
            eq(r.stdout.strip(), "999000 2000 1", "output (%s)" % what)
            p = ctx.dump()
            invariants(p)
            eq(sorted({c["callee"] for c in p.csd if c["callee"].startswith(("__atomic", "__sync", "atomic_"))}),
               [], "csds of atomic operations (%s)" % what)
            eq(sorted(c["calls"] for c in p.csds("work", "bump")), [1000, 1000], "work -> bump (%s)" % what)
            eq(p.csds("bump"), [], "bump calls nothing (%s)" % what)
            eq(p.counts("main", "pthread_join"), (1, 1, 0), "main -> pthread_join (%s)" % what)
