#!/usr/bin/python3
"""run.py --build BUILD [--quick] [--runs N] [--only K,...] [--wait-idle S] — the kernels bench.

Six task-parallel kernels written serially (bench/kernels: mergesort with a
divide-and-conquer merge, nqueens, strassen, fft, knapsack, fib; each
file's head says its shape and what the plugin can make of it), each
compared side by side in one run against:

  serial     its plain -O2 build;
  hand       -O2 -fopenmp -DDP_PAR: OpenMP tasks written by hand with a good
             cut-off (the file's CUTOFF);
  naive      -O2 -fopenmp -DDP_NAIVE: the same with no cut-off (a run that
             takes more than --naive-limit times the serial time is stopped
             and shown as "<x");
  auto-safe  deepprof-cc -O2 --deepprof-use: what the plugin does by itself
             (only what GCC's analyses prove safe), with what it said;
  auto-checked where GCC proves nothing: the dependence check
             (deepprof-cc --deepprof-check) run on a small input
             (--check-scale), its findings joined to the profile's costs
             (deepprof feedback --checked-by), and the use build with
             --deepprof-parallelize=checked.

The feedback comes from a deepprof-cc (plugin) build run at --profile-scale
(default: the timing scale), `deepprof calibrate` once, and `deepprof
feedback --calibration=... --program-time=T` (T: the serial -O2 build's
time at the profiling scale, so costs convert to the uninstrumented
program's time, as bench/accuracy/run.py). Every build must print what the
serial build prints (checked on every timed run). N rounds, each running
every build once back to back; a speedup is the median of the rounds'
serial / build ratios (a slow stretch of the machine falls on both sides
of a ratio), after waiting (--wait-idle) for idle CPUs. "auto" is the
automatic version this bench judges: auto-safe where the plugin proved the
candidates safe, else auto-checked. Targets on 2 cores: auto >= 0.95x the
best hand-written speedup, auto never below 1.0x serial, predicted within
10% of auto's achieved speedup. Beside it, that speedup's two factors:
"1 thr", GCC's different code for the serial work in a -fopenmp build
(which no profile of the serial program can see), and "par", auto's
speedup over itself on one thread (auto = par / 1 thr). The table also goes to
BUILD/bench/kernels/results.txt (and .json), written atomically.
Part of deepprof's bench. MIT licence.
"""
import argparse
import datetime
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# what bench/accuracy/run.py already does: running a command, waiting for
# idle CPUs, reading a feedback's prediction
_spec = importlib.util.spec_from_file_location("accuracy_run",
                                               os.path.join(HERE, "..", "accuracy", "run.py"))
_acc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_acc)
Fatal, run, wait_idle, predict = _acc.Fatal, _acc.run, _acc.wait_idle, _acc.predict

KERNELS = [
    ("mergesort", "12M ints, D&C merge"),
    ("nqueens", "n = 15, bitmasks, a loop of calls"),
    ("strassen", "1024x1024, base 64, 7 products"),
    ("fft", "2^22 points, radix 2"),
    ("knapsack", "29 items, plain recursion"),
    ("fib", "fib(44)"),
]
RATIO, ERROR = 0.95, 0.10


def timed(cmd, want, env=None, limit=None):
    """Wall seconds of one run of cmd, its output checked against want;
    None when it ran past limit seconds (killed)."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=limit)
    except subprocess.TimeoutExpired:
        return None
    t = time.perf_counter() - t0
    if p.returncode != 0:
        raise Fatal("%s failed (exit %d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    if want is not None and p.stdout != want:
        raise Fatal("%s prints %r, the serial build %r" % (" ".join(cmd), p.stdout[:200], want[:200]))
    return t


def remarks(stderr):
    """{candidate id: (optimized|missed, the remark's text after the id)}"""
    out = {}
    for l in stderr.splitlines():
        m = re.search(r" (optimized|missed): deepprof: candidate (\d+): (.*)$", l)
        if m:
            out[int(m.group(2))] = (m.group(1), m.group(3))
    return out


def short_why(text):
    """The reason of a remark, without its numbers and advice."""
    why = text.split("not parallelized: ", 1)[-1] if "not parallelized: " in text else text
    why = re.sub(r"; name it with --deepprof-parallelize=\S+ to parallelize it anyway", "", why)
    m = re.search(r"; (safe: .*)\)$", text)
    return m.group(1) if m else why


def main():
    ap = argparse.ArgumentParser(description="deepprof task-parallel kernels bench")
    ap.add_argument("--build", required=True)
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0, help="work per kernel (1: ~1-2 s serially)")
    ap.add_argument("--profile-scale", type=float, default=0,
                    help="the scale of the profiled run (default: --scale)")
    ap.add_argument("--check-scale", type=float, default=0.05,
                    help="the scale of the dependence check's run (default 0.05; the check "
                         "build runs 10-30x slower inside the candidates' calls)")
    ap.add_argument("--naive-limit", type=float, default=5.0, metavar="X",
                    help="stop a naive run after X times the serial time (default 5)")
    ap.add_argument("--quick", action="store_true",
                    help="a small scale and 1 run: checks the machinery, measures little")
    ap.add_argument("--only", default="", help="comma-separated kernel names")
    ap.add_argument("--wait-idle", type=float, default=0, metavar="SECONDS",
                    help="before timing each kernel, wait up to SECONDS for the CPUs to be "
                         "85%% idle (a machine shared with others)")
    a = ap.parse_args()
    if a.quick:
        a.scale, a.runs = min(a.scale, 0.02), 1
    if a.runs < 1:
        print("kernels: --runs must be at least 1", file=sys.stderr)
        return 2
    pscale = "%g" % (a.profile_scale or a.scale)
    cscale = "%g" % min(a.check_scale, a.profile_scale or a.scale)
    scale = "%g" % a.scale
    build = os.path.abspath(a.build)
    dpcc = os.path.join(build, "bin", "deepprof-cc")
    deepprof = os.path.join(build, "bin", "deepprof")
    out = os.path.join(build, "bench", "kernels")
    for path in (dpcc, deepprof):
        if not os.path.exists(path):
            print("kernels: %s not built (run make first)" % path, file=sys.stderr)
            return 2
    kernels = KERNELS
    if a.only:
        want = set(a.only.split(","))
        unknown = want - {k for k, _ in KERNELS}
        if unknown:
            print("kernels: unknown kernel(s): %s" % ", ".join(sorted(unknown)), file=sys.stderr)
            return 2
        kernels = [k for k in KERNELS if k[0] in want]
    os.makedirs(out, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()[0]
    cal = os.path.join(out, "calibration.json")
    run([deepprof, "calibrate", "-o", cal])
    with open(cal) as f:
        ov = json.load(f)["overheads"]

    # phase 1: profile, feedback, build (nothing timed but the serial
    # program at the profiling scale, for --program-time)
    built = []
    for name, what in kernels:
        src = os.path.join(HERE, name + ".c")
        exe = {v: os.path.join(out, "%s.%s" % (name, v))
               for v in ("serial", "hand", "naive", "safe", "checked", "prof", "chk")}
        data, fbf = os.path.join(out, name + ".data"), os.path.join(out, name + ".feedback.json")
        print("kernels: %s: profile, feedback, build" % name, file=sys.stderr, flush=True)
        cflags = ["-std=gnu11", "-O2", "-I" + HERE]
        run([a.cc] + cflags + ["-o", exe["serial"], src, "-lm"])
        run([a.cc] + cflags + ["-fopenmp", "-DDP_PAR", "-o", exe["hand"], src, "-lm"])
        run([a.cc] + cflags + ["-fopenmp", "-DDP_NAIVE", "-o", exe["naive"], src, "-lm"])
        run([dpcc] + cflags + ["-g", "-o", exe["prof"], src, "-lm"])
        if os.path.exists(data):
            os.unlink(data)
        run([exe["prof"], pscale], env=dict(os.environ, DEEPPROF_FILE=data))
        wait_idle(a.wait_idle)
        ptime = statistics.median([timed([exe["serial"], pscale], None) for _ in range(a.runs)])
        p = run([deepprof, "feedback", "--calibration=" + cal, "--program-time=%.6fs" % ptime,
                 "-o", fbf, data], quiet=True)
        if p.returncode != 0:
            raise Fatal("%s: deepprof feedback failed: %s" % (name, (p.stderr.strip().splitlines()
                                                                      or ["?"])[-1]))
        with open(fbf) as f:
            fb = json.load(f)
        predicted, accepted, cut = predict(fb)
        ids = [c["id"] for c in accepted]
        use = [dpcc] + cflags + ["--deepprof-use=" + fbf, "--deepprof-remarks"]
        p = run(use + ["-o", exe["safe"], src, "-lm"])
        rs = remarks(p.stderr)
        if not ids:
            rej = [c for c in fb.get("candidates", []) if c.get("context") is None]
            plugin = "serial"
            why = ("no candidate" if not rej else "rejected: " +
                   "; ".join("#%d %s" % (c["id"], c.get("verdict_why") or c.get("verdict"))
                             for c in rej))
        else:
            made = [i for i in ids if rs.get(i, ("",))[0] == "optimized"]
            plugin = "safe" if len(made) == len(ids) else "partly" if made else "serial"
            why = "; ".join("#%d %s" % (i, short_why(rs[i][1]) if i in rs else "no remark")
                            for i in ids)
        checked_why = ""
        if ids and plugin != "safe":
            # the dependence check on a small input; its findings join the
            # profile's costs; the checked candidates become parallel code
            cdata = os.path.join(out, name + ".check.data")
            fbc = os.path.join(out, name + ".checked.json")
            run([dpcc] + cflags + ["-g", "--deepprof-check=" + fbf, "-o", exe["chk"], src, "-lm"])
            if os.path.exists(cdata):
                os.unlink(cdata)
            print("kernels: %s: dependence check at scale %s" % (name, cscale), file=sys.stderr,
                  flush=True)
            run([exe["chk"], cscale], env=dict(os.environ, DEEPPROF_FILE=cdata))
            p = run([deepprof, "feedback", "--calibration=" + cal, "--program-time=%.6fs" % ptime,
                     "--checked-by=" + cdata, "-o", fbc, data], quiet=True)
            if p.returncode != 0:
                raise Fatal("%s: deepprof feedback --checked-by failed: %s" % (
                    name, (p.stderr.strip().splitlines() or ["?"])[-1]))
            with open(fbc) as f:
                fbx = json.load(f)
            predicted, accepted, cut = predict(fbx)
            levels = {c["id"]: c.get("safety") for c in accepted}
            p = run([dpcc] + cflags + ["--deepprof-use=" + fbc, "--deepprof-remarks",
                                       "--deepprof-parallelize=checked", "-o", exe["checked"],
                                       src, "-lm"])
            rn = remarks(p.stderr)
            checked_why = "; ".join(
                "#%d %s: %s" % (c["id"], levels[c["id"]],
                                "made" if rn.get(c["id"], ("",))[0] == "optimized" else
                                short_why(rn[c["id"]][1]) if c["id"] in rn else "no remark")
                for c in accepted) or "no candidate accepted"
            conflicts = [c for c in fbx.get("candidates", []) if c.get("safety") == "conflict"]
            if conflicts:
                checked_why += "; " + "; ".join("#%d conflict: %s" % (c["id"], c["safety_why"])
                                                for c in conflicts)
            ids = [c["id"] for c in accepted]
        else:
            shutil.copyfile(exe["safe"], exe["checked"])
            shutil.copymode(exe["safe"], exe["checked"])
        # the answer every build must print (and the auto builds with 1 thread)
        want = subprocess.run([exe["serial"], scale], capture_output=True, text=True).stdout
        one = dict(os.environ, OMP_NUM_THREADS="1")
        for v in ("safe", "checked"):
            timed([exe[v], scale], want, env=one)
        built.append(dict(name=name, what=what, exe=exe, want=want, predicted=predicted, ids=ids,
                          cut=cut, plugin=plugin, why=why, checked_why=checked_why,
                          candidates=[{"id": c["id"], "program_speedup": c["program_speedup"],
                                       "safety": c.get("safety"), "tasks": c.get("n_tasks")}
                                      for c in accepted]))

    # phase 2: time them side by side, each kernel when the machine is idle enough
    results = []
    one = dict(os.environ, OMP_NUM_THREADS="1")
    for k in built:
        name, exe, want = k["name"], k["exe"], k["want"]
        print("kernels: %s: time" % name, file=sys.stderr, flush=True)
        waited, idle = wait_idle(a.wait_idle)
        load = os.getloadavg()[0]
        t = {v: [] for v in ("serial", "hand", "naive", "safe", "checked", "auto1")}
        naive_cut = None
        same = k["plugin"] == "safe" or not k["checked_why"]    # checked is the safe build
        for _ in range(a.runs):
            t["serial"].append(timed([exe["serial"], scale], want))
            t["hand"].append(timed([exe["hand"], scale], want))
            if naive_cut is None:
                limit = a.naive_limit * statistics.median(t["serial"])
                s = timed([exe["naive"], scale], want, limit=limit)
                if s is None:
                    naive_cut = limit
                else:
                    t["naive"].append(s)
            t["safe"].append(timed([exe["safe"], scale], want))
            if not same:
                t["checked"].append(timed([exe["checked"], scale], want))
            t["auto1"].append(timed([exe["safe" if same else "checked"], scale], want, env=one))
        m = {v: statistics.median(x) for v, x in t.items() if x}
        ms = m["serial"]
        # a speedup is the median of the rounds' own ratios: a round runs
        # every build back to back, so a slow stretch of the machine (its
        # identical runs vary by up to 60% over minutes) falls on both
        # sides of a ratio instead of on one median
        sp = {v: statistics.median(s / x for s, x in zip(t["serial"], t[v]))
              for v in m if len(t[v]) == len(t["serial"])}
        if naive_cut is not None:
            sp["naive"] = ms / naive_cut        # an upper bound
        if same:
            sp["checked"] = sp["safe"]
        best_hand = max(sp["hand"], sp["naive"])
        auto = sp["safe"] if same else sp["checked"]
        err = (k["predicted"] - auto) / auto
        one_thread = 1 / sp["auto1"]
        # auto's speedup is two factors: serial / auto1, GCC's code for the
        # serial work in the -fopenmp build against the plain build's (the
        # profile cannot see it: knapsack's fnsplit, note in the README),
        # and auto1 / auto, what the parallel code gives (shown beside the
        # target's error: noisier, as a ratio of two timed builds)
        parallel = statistics.median(a / x for a, x in zip(t["auto1"],
                                                           t["safe" if same else "checked"]))
        err_par = (k["predicted"] - parallel) / parallel
        ratio = auto / best_hand
        results.append(dict(kernel=name, size=k["what"], serial_s=ms, speedups=sp, medians=m,
                            runs=t, naive_stopped_after_s=naive_cut, predicted=k["predicted"],
                            auto=auto, error=err, parallel=parallel, error_parallel=err_par,
                            ratio=ratio, plugin=k["plugin"], why=k["why"],
                            checked_why=k["checked_why"], candidates=k["candidates"], ids=k["ids"],
                            one_thread=one_thread, cutoff=k["cut"], load=load, idle_before=idle, waited_s=waited,
                            met={"ratio": ratio >= RATIO, "not_slower": auto >= 1.0,
                                 "error": abs(err) <= ERROR}))

    lines = ["Task-parallel kernels: serial, by hand, and deepprof's automatic parallel code "
             "(%s UTC, scale %s, profiled at %s, checked at %s, %d rounds, speedups the median of the rounds' ratios; load %.2f at start)"
             % (started.strftime("%Y-%m-%d %H:%M"), scale, pscale, cscale, a.runs, load_before),
             "calibration: " + ", ".join("%s %.0f ns" % (k, v["ns"]) for k, v in ov.items()),
             "",
             "%-9s %7s %7s %7s %7s %7s %6s %7s %5s %6s %7s %5s %9s %-4s %5s %4s  %s" % (
                 "kernel", "serial", "hand", "naive", "safe", "checked", "pred", "error",
                 "1 thr", "par", "err par", "ratio", "targets", "cut", "load", "idle",
                 "plugin (default build): why"),
             "-" * 140]

    def x(v):
        return "%.2fx" % v

    for r in results:
        sp = r["speedups"]
        naive = ("<" + x(sp["naive"])) if r["naive_stopped_after_s"] else x(sp["naive"])
        checked = x(sp["checked"]) if r["checked_why"] else "=safe" if r["ids"] else "-"
        met = "".join("y" if r["met"][t] else "n" for t in ("ratio", "not_slower", "error"))
        lines.append("%-9s %6.2fs %7s %7s %7s %7s %5.2fx %+6.1f%% %5.2f %5.2fx %+6.1f%% %5.2f %9s %-4s %5.1f %3.0f%%  %s: %s%s" % (
            r["kernel"], r["serial_s"], x(sp["hand"]), naive, x(sp["safe"]), checked,
            r["predicted"], 100 * r["error"], r["one_thread"], r["parallel"],
            100 * r["error_parallel"], r["ratio"], met,
            r["cutoff"] if r["cutoff"] else "-", r["load"], 100 * r["idle_before"], r["plugin"],
            r["why"], ("; checked: " + r["checked_why"]) if r["checked_why"] else ""))
    lines.append("-" * 140)
    for t, what in (("ratio", "auto >= %.2fx the best hand-written speedup" % RATIO),
                    ("not_slower", "auto never below 1.0x serial"),
                    ("error", "predicted within %.0f%% of auto" % (100 * ERROR))):
        miss = [r["kernel"] for r in results if not r["met"][t]]
        lines.append("%s: %s" % (what, "met" if not miss else "NOT met on " + ", ".join(miss)))
    least = min([r["idle_before"] for r in results] or [1.0])
    if least < 0.85:
        lines.append("WARNING: the machine was busy (CPUs only %.0f%% idle before some timings): "
                     "the parallel builds could not get a second core to themselves, so these "
                     "speedups measure the load as much as the code: provisional" % (100 * least))
    lines.append("speedup = the median over the rounds of serial / build wall time (a round runs every build once, back to back); hand = -DDP_PAR (good cut-off), "
                 "naive = -DDP_NAIVE (no cut-off; '<' = stopped after %gx the serial time), "
                 "safe = deepprof-cc --deepprof-use (default: only what GCC proves safe), checked = "
                 "the dependence check's findings (its run at --check-scale) joined to the profile, "
                 "rebuilt with --deepprof-parallelize=checked; auto = safe where proved, else checked; "
                 "pred = deepprof feedback's predicted program speedup; error = (pred - auto) / "
                 "auto; 1 thr = auto with OMP_NUM_THREADS=1 over the serial time (away from 1: "
                 "GCC compiled the serial work differently in the -fopenmp build, which no "
                 "profile of the serial program can see); par = auto's speedup over itself "
                 "with one thread (auto = par / 1 thr), what the parallel code gives; err par = "
                 "(pred - par) / par; ratio = auto / best hand-written; targets = ratio, not "
                 "slower, error (y/n); cut = the feedback's recursion cut-off depth; load: 1-minute load "
                 "average, idle: CPUs' idle share in the second before timing" % a.naive_limit)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    for fn, body in (("results.txt", text),
                     ("results.json", json.dumps({"date": started.isoformat(), "scale": a.scale,
                                                  "profile_scale": float(pscale),
                                                  "check_scale": float(cscale), "runs": a.runs,
                                                  "load_before": load_before, "calibration": ov,
                                                  "results": results}, indent=1) + "\n")):
        path = os.path.join(out, fn)
        with open(path + ".tmp", "w") as f:
            f.write(body)
        os.replace(path + ".tmp", path)
    print("kernels: table saved in %s" % os.path.join(out, "results.txt"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (Fatal, OSError) as e:
        print("kernels: %s" % e, file=sys.stderr)
        sys.exit(1)
