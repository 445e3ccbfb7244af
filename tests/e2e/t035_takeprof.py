"""A -finstrument-functions program linked with libprof.so (pkg-config)
that takes SIGPROF for itself: resets every signal to SIG_DFL (the
runtime's next tick ended it), ignores SIGPROF, or installs its own
handler (which got the runtime's ticks). libprof.so's sigaction and
signal come before libc's: the clock stops first, one line says so, and
calls are still counted. (Linked with libprof.a, only deepprof-cc's
--wrap puts libprof's in front: tests/plugin-rt t031.)"""
from e2e import takeprof_runs


def run(ctx):
    exe = ctx.compile("s-takeprof.c", link="pkg-config", opt="-O1")
    takeprof_runs(ctx, exe, lambda p: p.check_invariants())
