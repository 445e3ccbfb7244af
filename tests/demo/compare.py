#!/usr/bin/python3
"""compare.py SERIAL PARALLEL FEEDBACK [--runs N] — the last step of `make
demo`: the program rebuilt from its feedback must print what its serial
build prints, and runs how much faster? Runs both (alternating, N times
each, default 3), with all threads and with OMP_NUM_THREADS=1, and prints
the medians beside the speedup the feedback predicted for the program
(its accepted candidates' program_speedup, multiplied). Exit 1 when the
outputs differ, 2 on bad usage. Part of deepprof's tests. MIT licence.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def run(exe, env):
    t0 = time.perf_counter()
    p = subprocess.run([exe], capture_output=True, env=env)
    t = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("demo: %s exited with status %d" % (exe, p.returncode))
    return p.stdout, t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("serial")
    ap.add_argument("parallel")
    ap.add_argument("feedback")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    try:
        with open(a.feedback) as f:
            fb = json.load(f)
    except (OSError, ValueError) as e:
        print("demo: cannot read %s: %s" % (a.feedback, e), file=sys.stderr)
        return 2
    predicted = 1.0
    for c in fb.get("candidates", []):
        if c.get("verdict") == "accepted":
            predicted *= c.get("program_speedup", 1.0)
    rows = []
    for label, threads in (("all threads", None), ("OMP_NUM_THREADS=1", "1")):
        env = dict(os.environ)
        env.pop("DEEPPROF_FILE", None)
        if threads:
            env["OMP_NUM_THREADS"] = threads
        ts, tp = [], []
        for _ in range(a.runs):
            out_s, t = run(a.serial, env)
            ts.append(t)
            out_p, t = run(a.parallel, env)
            tp.append(t)
            if out_s != out_p:
                print("demo: %s and %s print different things (%s)" % (a.serial, a.parallel, label),
                      file=sys.stderr)
                return 1
        rows.append((label, statistics.median(ts), statistics.median(tp)))
    print("same output: the parallel build prints exactly what the serial build prints")
    print("%-20s %10s %10s %8s %10s" % ("", "serial", "parallel", "speedup", "predicted"))
    for i, (label, s, p) in enumerate(rows):
        pred = "%.2fx" % predicted if i == 0 else "1.00x"
        print("%-20s %8.3f s %8.3f s %7.2fx %10s" % (label, s, p, s / p, pred))
    print("(medians of %d alternating runs; predicted: the feedback's program speedup)" % a.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
