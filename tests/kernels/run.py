#!/usr/bin/python3
"""run.py — the task-parallel kernels of bench/kernels, built automatically
parallel: each, at a tiny scale, is profiled (deepprof-cc, -O2), given its
feedback (`deepprof feedback`), and rebuilt with the plugin's parallel code,
its candidates named by id (every candidate when none is accepted, so that
the code is generated whatever GCC can prove and whatever the tiny profile
recommends), and through the dependence check (its candidates `checked`,
never in conflict, rebuilt with --deepprof-parallelize=checked); every
parallel build prints what the plain -O2 build prints with
OMP_NUM_THREADS=1 and 2 and at two scales, and the plugin generates code
for every kernel (nqueens' through its loop candidate: a task per
iteration of the loop over a row's free squares, which GCC proves const,
so the default build makes it too). The default (safe) build prints the
same too. No timing. Ends with "kernels: N passed, N failed".

    run.py --build BUILD_DIR [TEST...]

Part of deepprof's tests. MIT licence.
"""

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import dptest  # noqa: E402
from e2e import eq, check, Fail  # noqa: E402

KERN = os.path.abspath(os.path.join(HERE, "..", "..", "bench", "kernels"))
# the kernel, whether the plugin makes parallel code for it when named
KERNELS = [("mergesort", True), ("nqueens", True), ("strassen", True), ("fft", True),
           ("knapsack", True), ("fib", True)]
PROFILE_SCALE = "0.02"
# the kernels whose candidate GCC cannot prove and the check finds independent
CHECKED = ("mergesort", "strassen", "fft")
SCALES = ("0.01", "0.003")


def Ctx(a, name):
    return dptest.BuildCtx(a.build, "kernels", name)


def made(stderr):
    return sorted(int(m) for m in re.findall(r"optimized: deepprof: candidate (\d+):", stderr))


def t_kernel(ctx, name, parallel):
    src = os.path.join(KERN, name + ".c")
    flags = ["-std=gnu11", "-O2", "-I" + KERN]
    ctx.run([ctx.cc] + flags + ["-g", src, "-o", "prof", "-lm"])
    ctx.run([ctx.path("prof"), PROFILE_SCALE], env={"DEEPPROF_FILE": "k.data"})
    ctx.run([ctx.dp, "feedback", "k.data", "-o", "fb.json"])
    with open(ctx.path("fb.json")) as f:
        cands = [c for c in json.load(f)["candidates"] if c.get("context") is None]
    ids = [c["id"] for c in cands if c["verdict"] == "accepted"] or [c["id"] for c in cands]
    use = [ctx.cc] + flags + ["--deepprof-use=fb.json", "--deepprof-remarks", src, "-lm"]
    r = ctx.run(use + ["-o", "named"] + (["--deepprof-parallelize=" + ",".join(map(str, ids))]
                                         if ids else []))
    got = made(r.stderr)
    if parallel:
        check(got, "%s: parallel code made for a named candidate (ids %r; remarks:\n%s)"
              % (name, ids, r.stderr.strip()))
        nm = subprocess.run(["nm", ctx.path("named")], capture_output=True, text=True).stdout
        check("._omp_fn." in nm, "%s: the outlined tasks are in the program" % name)
    else:
        eq(got, [], "%s: no parallel code" % name)
    r = ctx.run(use + ["-o", "safe"])
    if name == "nqueens":
        loops = [c["id"] for c in cands if c.get("loop") and c["verdict"] == "accepted"]
        eq((len(loops), made(r.stderr)), (1, loops), "nqueens: its loop candidate made by default "
           "(GCC proves solve() const):\n" + r.stderr.strip())
    # the dependence check: the recursive halves touch disjoint memory, so
    # every candidate the check covers is checked, none in conflict, and
    # --deepprof-parallelize=checked makes the code
    ctx.run([ctx.cc] + flags + ["-g", "--deepprof-check=fb.json", src, "-o", "chk", "-lm"])
    ctx.run([ctx.path("chk"), SCALES[1]], env={"DEEPPROF_FILE": "c.data"})
    ctx.run([ctx.dp, "feedback", "k.data", "--checked-by=c.data", "-o", "checked.json"])
    with open(ctx.path("checked.json")) as f:
        levels = {c["id"]: c["safety"] for c in json.load(f)["candidates"]
                  if c["verdict"] == "accepted" and c.get("context") is None}
    check("conflict" not in levels.values(), "%s: a conflict in a race-free kernel: %r"
          % (name, levels))
    r = ctx.run([ctx.cc] + flags + ["--deepprof-use=checked.json", "--deepprof-remarks",
                                    "--deepprof-parallelize=checked", src, "-lm", "-o", "checked"])
    if name == "mergesort":
        # the merge, entered at every level of the sort (16383 entries: its
        # top 14 levels), is modelled on its top entry, so it has a cut-off
        # and a candidate of its own
        with open(ctx.path("fb.json")) as f:
            rec = {r["at"]["fn"]: r for r in json.load(f)["recursion"]}
        eq((rec["merge"]["entry_calls"], rec["merge"].get("nested"), rec["merge"]["cutoff_depth"] > 0),
           (16383, {"clique": rec["sort"]["clique"], "levels": 14.0}, True), "mergesort: the nested merge")
        eq(sorted(levels.values()), ["checked", "checked"], "%s: sort's and merge's candidates checked"
           % name)
    elif name in CHECKED:
        eq(sorted(levels.values()), ["checked"], "%s: the accepted candidate checked" % name)
        check(made(r.stderr), "%s: parallel code from the checked feedback:\n%s"
              % (name, r.stderr.strip()))
    ctx.run(["gcc"] + flags + [src, "-o", "serial", "-lm"])
    for scale in SCALES:
        want = ctx.run([ctx.path("serial"), scale]).stdout
        check(want.startswith(name), "%s prints its answer (%r)" % (name, want))
        for threads in ("1", "2"):
            for exe in ("named", "safe", "checked"):
                eq(ctx.run([ctx.path(exe), scale], env={"OMP_NUM_THREADS": threads}).stdout, want,
                   "%s (%s build), %s thread(s), scale %s, prints what its serial build prints"
                   % (name, exe, threads, scale))


TESTS = [("t%03d_%s" % (i + 1, name), name, parallel) for i, (name, parallel) in enumerate(KERNELS)]


def main():
    return dptest.build_suite_main(
        "kernels", [(tn, lambda a, tn, name=name, par=par: t_kernel(Ctx(a, tn), name, par))
                    for tn, name, par in TESTS])


if __name__ == "__main__":
    sys.exit(main())
