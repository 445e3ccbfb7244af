"""An exec replaces the process without running its destructors, where the
runtime writes its profile: a plugin build calls dp_abi_exec() right
before each exec function, and the runtime writes a snapshot (final: no,
main and the exec call running). When the exec fails the program goes
on, and its final profile replaces the snapshot. A vfork child that execs
writes nothing (it shares the parent's memory). Before, a program that
exec'd left no profile at all."""
import glob
import os

from prt import eq, invariants


def calls(p, caller, callee):
    return sum(c["calls"] for c in p.csds(caller, callee))


def run(ctx):
    exe = ctx.build(["s-exec.c"], "execs", opt="-O2")
    ctx.run(exe, ["ok"])
    p = ctx.dump()
    eq(p.h["final"], False, "a snapshot before the exec")
    eq(p.h["lost"], 0, "lost")
    eq(calls(p, "main", "leaf"), 10, "main -> leaf")
    eq(p.counts("main", "execv"), (1, 0, 0), "main -> execv, running")
    ctx.run(exe, ["fail"])
    p = ctx.dump()
    invariants(p)
    eq(p.h["final"], True, "the final profile after a failed exec")
    eq(calls(p, "main", "leaf"), 11, "main -> leaf, after the failed exec too")
    eq(p.counts("main", "execv"), (1, 1, 0), "main -> execv, returned")
    for f in glob.glob(ctx.path("Deep.data*")):
        os.unlink(f)
    r = ctx.run(exe, ["vfork"])
    eq(r.stdout.strip(), "0", "the vfork child's exec ran /bin/true")
    eq(sorted(os.path.basename(f) for f in glob.glob(ctx.path("Deep.data*"))), ["Deep.data"],
       "no profile from the vfork child")
    p = ctx.dump()
    invariants(p)
    eq(p.h["final"], True, "the parent's final profile")
    eq(p.counts("main", "execvp"), (1, 0, 1), "the vfork child's execvp (in the parent's memory)")
