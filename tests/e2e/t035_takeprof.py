"""A -finstrument-functions program linked with libprof.so (pkg-config)
that takes SIGPROF for itself: resets every signal to SIG_DFL (the
runtime's next tick ended it), ignores SIGPROF, or installs its own
handler (which got the runtime's ticks). libprof.so's sigaction and
signal come before libc's: the clock stops first, one line says so, and
calls are still counted. (Linked with libprof.a, only deepprof-cc's
--wrap puts libprof's in front: tests/plugin-rt t031.)"""
from e2e import eq


def run(ctx):
    exe = ctx.compile("s-takeprof.c", link="pkg-config", opt="-O1")
    for how in ("dfl", "ign", "handler"):
        r = ctx.run(exe, [how])
        eq(r.stdout.splitlines()[-1], "survived", "the program ran to its end (%s)" % how)
        if how == "handler":
            eq(r.stdout.splitlines()[0], "SIGPROFs: 0", "no tick reached the program's handler")
        eq([ln for ln in r.stderr.splitlines() if "SIGPROF" in ln],
           ["deepprof: the program takes SIGPROF for itself: clock ticks stop here "
            "(calls and call sequence counts go on)"], "one line on stderr (%s)" % how)
        p = ctx.dump()
        p.check_invariants()
        eq(p.total(caller="main", callee="burn"), 2, "main -> burn (%s)" % how)
        eq(p.h["timer_hz"], 0, "the header says the clock stopped (%s)" % how)
