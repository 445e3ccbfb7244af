"""A program that takes SIGPROF for itself: resets every signal to SIG_DFL
(whose action for SIGPROF ends the process: the runtime's next tick killed
it, "Profiling timer expired"), ignores it, or installs its own handler
(which got the runtime's ticks). deepprof-cc links the program's
sigaction and signal through libprof's (--wrap, libprof/sigwrap.c): the
clock stops first, with one line on stderr, and calls are still counted;
the ticks before count for the CPU time until then. A static program
too."""
from prt import invariants
import e2e  # noqa: E402  (prt puts tests/e2e on the path)


def run(ctx):
    for static in (False, True):
        exe = ctx.build(["s-takeprof.c"], "takeprof" + ("-static" if static else ""), opt="-O1",
                        extra=["-static"] if static else [])
        e2e.takeprof_runs(ctx, exe, invariants)
