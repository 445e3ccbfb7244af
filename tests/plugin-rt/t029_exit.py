"""The process ends without exit's destructors, where the runtime writes
its profile: _exit() and _Exit() (the plugin calls dp_abi_exiting() right
before them) and quick_exit() (the runtime's at_quick_exit handler, run
after the program's) still leave a final profile, the call left running
as a non-local exit; they left none before. A vfork child's _exit does
not write (it shares the parent's memory), a fork child's does, as its
exit() would. A -finstrument-functions build has no call sites: only
quick_exit writes there."""
import glob
import os
import subprocess

from prt import Fail, eq, check, invariants


def calls(p, caller, callee):
    return sum(c["calls"] for c in p.csds(caller, callee))


def run(ctx):
    exe = ctx.build(["s-exits.c"], "exits", opt="-O2")
    libprof = os.path.join(ctx.a.build, "lib", "libprof.a")
    cyg = ctx.path("exits-cyg")
    cmd = ["gcc", "-std=gnu11", "-g", "-O2", "-finstrument-functions", ctx.src("s-exits.c"), "-o", cyg,
           libprof, "-lpthread", "-ldl"] + ctx.a.cflags.split()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise Fail("%s failed:\n%s" % (" ".join(cmd), r.stderr.strip()[-2000:]))
    for how, rc, ended_by in (("_exit", 3, "_exit"), ("_Exit", 6, "_Exit"), ("quick", 4, "quick_exit"),
                              ("exit", 5, "exit"), ("ret", 0, None)):
        ctx.run(exe, [how], rc=rc)
        p = ctx.dump()
        invariants(p)
        eq(p.h["final"], True, "final (%s)" % how)
        eq(calls(p, "main", "leaf"), 10, "main -> leaf (%s)" % how)
        if ended_by:
            eq(p.counts("main", ended_by), (1, 0, 1), "main -> %s, left running" % ended_by)
            eq(p.counts("<root>", "main"), (1, 0, 1), "main left running (%s)" % how)
        handlers = how in ("exit", "ret")
        eq(calls(p, "at_end", "leaf"), 5 if handlers else 0, "the atexit handler's calls (%s)" % how)
    ctx.run(exe, ["vfork"])
    eq(sorted(os.path.basename(f) for f in glob.glob(ctx.path("Deep.data*"))), ["Deep.data"],
       "a vfork child writes no profile")
    p = ctx.dump()
    invariants(p)
    eq(p.counts("main", "_exit"), (1, 0, 1), "the vfork child's _exit (in the parent's memory)")
    for f in glob.glob(ctx.path("Deep.data*")):
        os.unlink(f)
    ctx.run(exe, ["fork"])
    kids = [f for f in glob.glob(ctx.path("Deep.data.*"))]
    eq(len(kids), 3, "each fork child's _exit writes its profile")
    for f in kids:
        os.unlink(f)
    r = subprocess.run([cyg, "quick"], cwd=ctx.dir, capture_output=True, text=True,
                       env=dict(os.environ, DEEPPROF_FILE=ctx.path("cyg.data")))
    eq(r.returncode, 4, "the -finstrument-functions build's exit status")
    check(os.path.exists(ctx.path("cyg.data")), "quick_exit writes the -finstrument-functions build's profile")
