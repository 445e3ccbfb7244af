"""A program that takes SIGPROF for itself: resets every signal to SIG_DFL
(whose action for SIGPROF ends the process: the runtime's next tick killed
it, "Profiling timer expired"), ignores it, or installs its own handler
(which got the runtime's ticks). deepprof-cc links the program's
sigaction and signal through libprof's (--wrap, libprof/sigwrap.c): the
clock stops first, with one line on stderr, and calls are still counted;
the ticks before count for the CPU time until then. A static program
too."""
from prt import eq, check, invariants


def run(ctx):
    for static in (False, True):
        exe = ctx.build(["s-takeprof.c"], "takeprof" + ("-static" if static else ""), opt="-O1",
                        extra=["-static"] if static else [])
        for how in ("dfl", "ign", "handler"):
            what = "%s%s" % (how, ", static" if static else "")
            r = ctx.run(exe, [how])
            eq(r.stdout.splitlines()[-1], "survived", "the program ran to its end (%s)" % what)
            if how == "handler":
                eq(r.stdout.splitlines()[0], "SIGPROFs: 0", "no tick reached the program's handler")
            eq([ln for ln in r.stderr.splitlines() if "SIGPROF" in ln],
               ["deepprof: the program takes SIGPROF for itself: clock ticks stop here "
                "(calls and call sequence counts go on)"], "one line on stderr (%s)" % what)
            p = ctx.dump()
            invariants(p)
            eq(p.total(caller="main", callee="burn"), 2, "main -> burn (%s)" % what)
            eq(p.h["timer_hz"], 0, "the header says the clock stopped (%s)" % what)
            check(p.h["ticks"] < 40, "few ticks, from before the program took SIGPROF (%s): %d"
                  % (what, p.h["ticks"]))
