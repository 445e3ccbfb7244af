"""A thread per request: 3000 threads, 4 at a time. Every thread's graph is
in the profile with exact counts, and what an ended thread no longer needs
is given back (e2e.churn_runs): the runtime maps a few shadow stacks, not
one per thread (mem_bytes), and the process stays small (it held 16 KB per
ended thread: 51 MB here)."""
import e2e


def run(ctx):
    exe = ctx.compile("s-churn.c", opt="-O1")
    e2e.churn_runs(ctx, exe, lambda p: p.check_invariants())
