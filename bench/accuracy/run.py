#!/usr/bin/python3
"""run.py --build BUILD [--quick] [--runs N] [--only P,...] [--wait-idle S] — the accuracy bench.

For each program of bench/accuracy (known ideal answers, see each file's
head): build it with BUILD/bin/deepprof-cc (plugin mode), run it (Deep.data),
build the plain -O2 serial program and time it (the median of N runs, after
waiting for idle CPUs like the timings below); run `deepprof calibrate` once
and one `deepprof batch --calibration=... MANIFEST -o BUILD/bench/accuracy/batch`
over all of them (the manifest, batch.json, gives each program its profile
and its --program-time=T, T: that serial time, so that ns per CSC are the
real program's, not the slower instrumented run's; --instrumented-unit
leaves it out), which writes batch/P.json, P's feedback file; and read the
predicted program_speedup of the accepted candidate(s).
Then build the plain -O2 serial program and the parallel one the plugin
generates from the feedback (deepprof-cc -O2 --deepprof-use, the accepted
candidates named by id so that the code is generated whatever the plugin
can prove; a second, default build says what the plugin proves safe by
itself: the "plugin" column), and, for reference, the -O2 -fopenmp
-DDP_PAR one (the recommended transformation written by hand; recursive
programs get the recommended cut-off depth as -DCUTOFF). Time the three
side by side (median of N alternating runs of each) and print predicted
against achieved speedup (serial / plugin-generated), the error, and
whether a recommendation slows a program down. A program with no accepted candidate is predicted 1.0 and achieves 1.0
(nothing changes); its DP_PAR build then shows what the transformation
would have cost had it been applied anyway. Target: within 10% everywhere.
Last, the achieved speedups go into the manifest ("measured") and `deepprof
batch --summarize` prints its summary table of the same feedback files
beside the bench's (batch/summary.txt and summary.json).
The table also goes to BUILD/bench/accuracy/results.txt (and .json).
Part of deepprof's bench. MIT licence.
"""
import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# name, what the ideal answer is (for the table)
PROGRAMS = [
    ("indep2", "two independent equal calls: ~2"),
    ("unbal3", "3:2:1, {A}{B,C}: ~2"),
    ("overlap", "dependent, produced 0.1 / consumed 0.9: ~2"),
    ("nooverlap", "dependent, produced 1.0 / consumed 0.0: reject"),
    ("msort", "divide and conquer: just under 2"),
    ("fib", "divide and conquer, phi:1 split: ~1.62 with libgomp"),
    ("cheap", "pair of 100 ns calls: reject"),
]
TARGET = 0.10


class Fatal(Exception):
    pass


def run(cmd, env=None, quiet=False):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0 and not quiet:
        raise Fatal("%s failed (exit %d): %s" % (" ".join(cmd), p.returncode,
                                                 (p.stderr.strip().splitlines() or [""])[-1]))
    return p


def wall(cmd, env=None):
    """Wall seconds of one run of cmd (its output discarded)."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    t = time.perf_counter() - t0
    if p.returncode != 0:
        raise Fatal("%s failed (exit %d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return t


def cpu_idle(seconds=1.0):
    """The fraction of all CPUs' time that was idle over the next `seconds`."""
    def snap():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return v[3] + v[4], sum(v)        # idle + iowait, total
    i0, t0 = snap()
    time.sleep(seconds)
    i1, t1 = snap()
    return (i1 - i0) / max(1, t1 - t0)


def wait_idle(limit):
    """Wait up to limit seconds until the CPUs are at least 85% idle over a
    second; (seconds waited, the last idle fraction)."""
    t0 = time.monotonic()
    idle = cpu_idle()
    while idle < 0.85 and time.monotonic() - t0 < limit:
        idle = cpu_idle()
    return time.monotonic() - t0, idle


def combined_speedup(speedups):
    """The program speedup of several accepted candidates in different places,
    each saving 1 - 1/s of the program's time independently."""
    saved = sum(1.0 - 1.0 / s for s in speedups if s > 0)
    return 1.0 / (1.0 - saved) if saved < 1.0 else float("inf")


def predict(fb):
    """(predicted program speedup, accepted candidates, the recommended cut-off
    depth or None) from a feedback document."""
    acc = [c for c in fb.get("candidates", []) if c.get("verdict") == "accepted"]
    # one candidate per place: merged over contexts (context null) when present
    merged = [c for c in acc if c.get("context") is None] or acc
    cut = None
    for r in fb.get("recursion", []):
        if r.get("type") in ("divide_and_conquer", "simple") and r.get("cutoff_depth"):
            cut = max(cut or 0, r["cutoff_depth"])
    if not merged:
        return 1.0, [], cut
    return combined_speedup([c["program_speedup"] for c in merged]), merged, cut


def write_manifest(path, profiled, achieved):
    """The `deepprof batch` manifest (schemas/batch.md) of the programs
    profiled [(name, ideal, Deep.data, program time or None)], with the
    achieved program speedups {name: X} measured so far."""
    progs = []
    for name, _, data, ptime in profiled:
        p = {"name": name, "profiles": [data]}
        if ptime:
            p["program_time"] = ptime
        if name in achieved:
            p["measured"] = {"program": achieved[name]}
        progs.append(p)
    with open(path + ".tmp", "w") as f:
        json.dump({"format": "deepprof-batch", "version": 1, "programs": progs}, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)


def describe(c):
    tasks = {}
    for k in c.get("calls", []):
        tasks.setdefault(k.get("task", 0), []).append(k.get("callee") or "?")
    return " | ".join(",".join(v) for _, v in sorted(tasks.items()))


def main():
    ap = argparse.ArgumentParser(description="deepprof feedback accuracy bench")
    ap.add_argument("--build", required=True)
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0,
                    help="work per program (1: ~0.5-1 s serially)")
    ap.add_argument("--quick", action="store_true",
                    help="a small scale and 1 run: checks the machinery, measures little")
    ap.add_argument("--only", default="", help="comma-separated program names")
    ap.add_argument("--wait-idle", type=float, default=0, metavar="SECONDS",
                    help="before timing each program, wait up to SECONDS for the CPUs to be "
                         "85%% idle (a machine shared with others)")
    ap.add_argument("--instrumented-unit", action="store_true",
                    help="do not pass --program-time: ns per CSC from the instrumented run "
                         "(the old behaviour, for comparison)")
    a = ap.parse_args()
    if a.quick:
        a.scale, a.runs = min(a.scale, 0.1), 1
    if a.runs < 1:
        print("accuracy: --runs must be at least 1", file=sys.stderr)
        return 2
    build = os.path.abspath(a.build)
    dpcc = os.path.join(build, "bin", "deepprof-cc")
    deepprof = os.path.join(build, "bin", "deepprof")
    out = os.path.join(build, "bench", "accuracy")
    for path in (dpcc, deepprof):
        if not os.path.exists(path):
            print("accuracy: %s not built (run make first)" % path, file=sys.stderr)
            return 2
    progs = PROGRAMS
    if a.only:
        want = set(a.only.split(","))
        unknown = want - {p for p, _ in PROGRAMS}
        if unknown:
            print("accuracy: unknown program(s): %s" % ", ".join(sorted(unknown)), file=sys.stderr)
            return 2
        progs = [p for p in PROGRAMS if p[0] in want]
    os.makedirs(out, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()[0]
    scale = "%g" % a.scale

    cal = os.path.join(out, "calibration.json")
    p = run([deepprof, "calibrate", "-o", cal])
    with open(cal) as f:
        ov = json.load(f)["overheads"]
    lines = ["Feedback accuracy: predicted against achieved speedup (%s UTC, scale %s, "
             "median of %d alternating runs; load %.2f at start)"
             % (started.strftime("%Y-%m-%d %H:%M"), scale, a.runs, load_before),
             "calibration: " + ", ".join("%s %.0f ns" % (k, v["ns"]) for k, v in ov.items()),
             "ns per CSC: " + ("the instrumented run's (--instrumented-unit)" if
                               a.instrumented_unit else
                               "the serial -O2 program's time (--program-time)"),
             "",
             "%-10s %9s %9s %8s %8s %9s %8s %9s %6s %5s %5s  %-9s %s" % (
                 "program", "predicted", "achieved", "error", "serial", "parallel", "by hand",
                 "if forced", "1 thr", "load", "idle", "plugin", "recommendation"),
             "-" * 120]
    results = []
    worst = 0.0
    slowdowns = []
    # phase 1: profile each program and time its serial build (its
    # --program-time); then one `deepprof batch` makes every feedback file
    # (a manifest: batch_manifest()); then build from them (nothing else timed)
    bdir = os.path.join(out, "batch")
    profiled = []
    for name, ideal in progs:
        src = os.path.join(HERE, name + ".c")
        prof, data = os.path.join(out, name + ".prof"), os.path.join(out, name + ".data")
        ser = os.path.join(out, name + ".serial")
        print("accuracy: %s: profile" % name, file=sys.stderr, flush=True)
        run([dpcc, "-std=gnu11", "-O2", "-g", "-I" + HERE, "-o", prof, src, "-lm"])
        if os.path.exists(data):
            os.unlink(data)
        env = dict(os.environ, DEEPPROF_FILE=data)
        run([prof, scale], env=env)
        run([a.cc, "-std=gnu11", "-O2", "-I" + HERE, "-o", ser, src, "-lm"])
        ptime = None
        if not a.instrumented_unit:
            wait_idle(a.wait_idle)
            ptime = "%.6fs" % statistics.median([wall([ser, scale]) for _ in range(a.runs)])
        profiled.append((name, ideal, data, ptime))
    manifest = os.path.join(out, "batch.json")
    write_manifest(manifest, profiled, {})
    print("accuracy: deepprof batch: the feedback of %d programs" % len(profiled),
          file=sys.stderr, flush=True)
    p = run([deepprof, "batch", "--calibration=" + cal, "--jobs=2", manifest, "-o", bdir],
            quiet=True)
    batch_note = ""
    if p.returncode != 0:
        batch_note = "feedback failed: " + ((p.stderr.strip().splitlines() or ["?"])[-1])
    built = []
    for name, ideal, data, ptime in profiled:
        src = os.path.join(HERE, name + ".c")
        fbf = os.path.join(bdir, name + ".json")
        ser, par = os.path.join(out, name + ".serial"), os.path.join(out, name + ".par")
        print("accuracy: %s: build" % name, file=sys.stderr, flush=True)
        predicted, accepted, cut, note = None, [], None, batch_note
        if not batch_note:
            with open(fbf) as f:
                predicted, accepted, cut = predict(json.load(f))
        pflags = ["-DCUTOFF=%d" % cut] if cut else []
        hand = os.path.join(out, name + ".hand")
        run([a.cc, "-std=gnu11", "-O2", "-fopenmp", "-DDP_PAR", "-I" + HERE] + pflags +
            ["-o", hand, src, "-lm"])
        verdict = "-"
        if predicted is None:
            shutil.copyfile(ser, par)
            shutil.copymode(ser, par)
        else:
            # the accepted candidates, or all when none is (what forcing them does)
            with open(fbf) as f:
                every = [c["id"] for c in json.load(f).get("candidates", [])
                         if c.get("context") is None]
            ids = [c["id"] for c in accepted] or every
            use = [dpcc, "-std=gnu11", "-O2", "-I" + HERE, "--deepprof-use=" + fbf,
                   "--deepprof-remarks", "-o", par, src, "-lm"]
            if ids:
                p = run(use + ["--deepprof-parallelize=" + ",".join(map(str, ids))])
                made = [l for l in p.stderr.splitlines() if "optimized: deepprof: candidate" in l]
                p = run(use)    # the default (safe): what the plugin proves by itself
                proved = [l for l in p.stderr.splitlines() if "optimized: deepprof: candidate" in l]
                p = run(use + ["--deepprof-parallelize=" + ",".join(map(str, ids))])
                verdict = ("safe" if proved else "named") if made else "serial"
                if not made:
                    why = [l for l in p.stderr.splitlines()
                           if "missed: deepprof: candidate %d:" % ids[0] in l]
                    note = (why[0].split("not parallelized: ", 1)[-1] if why else "not generated")
            else:
                run(use)
        # the parallel program must print what the serial one prints
        outs = [subprocess.run([exe, scale], capture_output=True, text=True).stdout
                for exe in (ser, par)]
        if outs[0] != outs[1]:
            raise Fatal("%s: the plugin's parallel build prints %r, the serial build %r"
                        % (name, outs[1][:200], outs[0][:200]))
        built.append((name, ideal, ser, par, hand, predicted, accepted, cut, note, verdict))

    # phase 2: time them, each when the machine is idle enough (--wait-idle)
    for name, ideal, ser, par, hand, predicted, accepted, cut, note, verdict in built:
        print("accuracy: %s: time" % name, file=sys.stderr, flush=True)
        waited, idle = wait_idle(a.wait_idle)
        ts, tp, th, t1 = [], [], [], []
        load = os.getloadavg()[0]
        one = dict(os.environ, OMP_NUM_THREADS="1")
        for _ in range(a.runs):
            ts.append(wall([ser, scale]))
            tp.append(wall([par, scale]))
            th.append(wall([hand, scale]))
            t1.append(wall([par, scale], env=one))
        ms, mp, mh = statistics.median(ts), statistics.median(tp), statistics.median(th)
        m1 = statistics.median(t1)
        forced = ms / mp
        # without a feedback, show the hand-written transformation's speedup
        applied = bool(accepted) or predicted is None
        achieved = forced if applied else 1.0
        if predicted is None:
            err = None
            rec = note
        else:
            err = (predicted - achieved) / achieved
            worst = max(worst, abs(err))
            rec = "; ".join("#%d %s (%s)" % (c["id"], describe(c), c.get("safety", "?"))
                            for c in accepted) or "none accepted"
            if cut:
                rec += "; cut-off depth %d" % cut
            if note:
                rec += "; plugin: " + note
        if applied and achieved < 0.98:
            slowdowns.append(name)
        results.append({"program": name, "ideal": ideal, "predicted": predicted,
                        "achieved": achieved, "error": err, "serial_s": ms, "parallel_s": mp,
                        "hand_s": mh, "plugin": verdict, "one_thread_s": m1,
                        "forced_speedup": forced, "applied": applied, "cutoff": cut, "load": load,
                        "idle_before": idle, "waited_s": waited,
                        "recommendation": rec, "serial_runs": ts, "parallel_runs": tp})
        lines.append("%-10s %9s %9.3f %8s %7.3fs %8.3fs %7.3fs %9s %6.3f %5.1f %4.0f%%  %-9s %s" % (
            name, "n/a" if predicted is None else "%.3f" % predicted, achieved,
            "n/a" if err is None else "%+.1f%%" % (100 * err), ms, mp, mh,
            "" if applied else "%.3f" % forced, m1 / ms, load, 100 * idle, verdict, rec))
    lines.append("-" * 120)
    have = [r for r in results if r["error"] is not None]
    if have:
        lines.append("largest error %.1f%% (target %.0f%%): %s" % (
            100 * worst, 100 * TARGET, "met" if worst <= TARGET else "NOT met"))
    else:
        lines.append("no predictions: `deepprof feedback` did not run (see the notes)")
    lines.append("recommendations that slow a program down: %s" % (", ".join(slowdowns) or "none"))
    worst1 = max([r["one_thread_s"] / r["serial_s"] for r in results if r["applied"]] or [1.0])
    lines.append("with OMP_NUM_THREADS=1 the parallel builds take at most %.3fx the serial time "
                 "(target 1.02x): %s" % (worst1, "met" if worst1 <= 1.02 else "NOT met"))
    # the load average counts this script's own runs: judge by the idle share
    # measured just before each program was timed
    least = min([r["idle_before"] for r in results] or [1.0])
    if least < 0.85:
        lines.append("WARNING: the machine was busy (CPUs only %.0f%% idle before some "
                     "timings): a parallel program could not get a second core to itself, so "
                     "those achieved speedups measure the load as much as the recommendations"
                     % (100 * least))
    lines.append("load: 1-minute load average, idle: CPUs' idle share in the second before "
                 "timing (the table's speedups need a second core free)")
    lines.append("achieved = serial / parallel wall time of the -O2 builds, parallel = the code the "
                 "plugin generates from the feedback (deepprof-cc --deepprof-use); by hand = the "
                 "-DDP_PAR transformation written by hand; 'if forced' = the plugin's code for a "
                 "rejected candidate (what applying it would have done); plugin: safe = proved by "
                 "GCC's analyses in the use build, named = generated only when named by id, serial "
                 "= not generated (why: in the recommendation); 1 thr = the parallel build with "
                 "OMP_NUM_THREADS=1 over the serial time")
    text = "\n".join(lines) + "\n"
    # the same feedback files summarized by deepprof batch, with what was achieved
    summary = None
    if not batch_note:
        write_manifest(manifest, profiled, {r["program"]: r["achieved"] for r in results})
        p = run([deepprof, "batch", "--summarize", manifest, "-o", bdir], quiet=True)
        if p.returncode == 0:
            summary = os.path.join(bdir, "summary.txt")
            text += "\ndeepprof batch --summarize (%s, %s):\n%s" % (
                os.path.relpath(summary, build), "summary.json beside it", p.stdout)
        else:
            text += "\ndeepprof batch --summarize failed: %s\n" % p.stderr.strip()
    sys.stdout.write(text)
    for fn, body in (("results.txt", text),
                     ("results.json", json.dumps({"date": started.isoformat(), "scale": a.scale,
                                                  "runs": a.runs, "load_before": load_before,
                                                  "calibration": ov, "results": results,
                                                  "batch_summary": summary and
                                                  os.path.join(bdir, "summary.json")},
                                                 indent=1) + "\n")):
        path = os.path.join(out, fn)
        with open(path + ".tmp", "w") as f:
            f.write(body)
        os.replace(path + ".tmp", path)
    print("accuracy: table saved in %s" % os.path.join(out, "results.txt"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (Fatal, OSError) as e:
        print("accuracy: %s" % e, file=sys.stderr)
        sys.exit(1)
