"""A thread per request under the plugin (e2e.churn_runs): 3000 threads, 4
at a time, each with exact counts in its own graph; an ended thread's
shadow stack, outer[] and ABI v2's search stack are given back and reused,
so the process stays small (it held 16 KB per ended thread)."""
from prt import invariants
import e2e  # noqa: E402  (prt puts tests/e2e on the path)


def run(ctx):
    exe = ctx.build(["s-churn.c"], "churn", opt="-O1")
    e2e.churn_runs(ctx, exe, invariants)
