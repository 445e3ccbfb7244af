#!/usr/bin/python3
"""tests/fbbatch/run.py BUILD — the check-fbbatch suite: `deepprof batch`.

A suite of programs of known structure, built with BUILD/bin/deepprof-cc:
tests/feedback/fb-pair.c run with three inputs whose region speedups are
2, 4/3 and 3/2 (left/right sizes 3M:3M, 3M:1M, 1M:2M), and bench/accuracy's
indep2 (two equal independent calls: just under 2, one input) and
nooverlap (a dependent pair that cannot overlap: no recommendation); and
feedback files of exactly known speedups (the unit suite's hand-filled
fb-hand.json, as tests/feedback uses it). Checked:

  the directory form and a manifest (schemas/batch.md): one feedback file
  per program, byte for byte what `deepprof feedback` writes for the same
  profiles; summary.json valid against schemas/batch.schema.json with the
  values the programs' structure fixes (inputs, candidates, recommended,
  the best candidate and its stability 3/3, min 4/3, median 3/2, max 2,
  the measured achieved speedups and the error computed from them), and
  summary.txt exactly (derived here from those values); per-program
  options and program times, --calibration relative to the manifest;
  --format=msgpack; --jobs and the progress bar on a terminal;
  --emit=make (and ninja): `make -f DIR/Makefile -j2` produces the same
  feedback files, summary.json and summary.txt as the direct run, and is
  then up to date; bad inputs and options, each exit 2 with one line
  naming the file, nothing on stdout, no crash, nothing half written.
Last line: "fbbatch: N passed, N failed".
Part of deepprof's tests. MIT licence.
"""
import json
import os
import shutil
import stat
import subprocess
import sys

import jsonschema

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import dptest  # noqa: E402  (tests/lib: the runner and tally)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ACC = os.path.join(ROOT, "bench", "accuracy")
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
OUT = os.path.join(BUILD, "tests", "fbbatch")
DEEPPROF = os.path.join(BUILD, "bin", "deepprof")
DPCC = os.path.join(BUILD, "bin", "deepprof-cc")
UNIT = os.path.join(BUILD, "bin", "unit-tests")
UNIT_DIR = os.path.join(BUILD, "tests", "unit")
EXTRA = os.environ.get("DP_TEST_CFLAGS", "").split()
with open(os.path.join(ROOT, "schemas", "batch.schema.json")) as _f:
    SCHEMA = json.load(_f)
with open(os.path.join(ROOT, "schemas", "feedback.schema.json")) as _f:
    FB_SCHEMA = json.load(_f)

T = dptest.Tally("fbbatch")
check = T.check
run = dptest.run


def must(args, cwd=None, env=None):
    return dptest.must(T, args, cwd, env)


def out(*p):
    return os.path.join(OUT, *p)


def crashed(p):
    return p.returncode < 0 or p.returncode >= 128 or "Sanitizer" in p.stderr or \
        "runtime error:" in p.stderr


def near(x, want, rel=0.005):
    return abs(x - want) <= rel * want


def load(path):
    with open(path) as f:
        return json.load(f)


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def valid(path, what):
    """The summary at path, valid against the schema; None if not."""
    try:
        doc = load(path)
        jsonschema.validate(doc, SCHEMA)
    except (OSError, ValueError, jsonschema.ValidationError) as ex:
        check(False, "%s: %s is not a valid summary: %s" % (what, path, str(ex)[:400]))
        return None
    check(True, what)
    return doc


def same_file(a, b):
    try:
        with open(a, "rb") as f, open(b, "rb") as g:
            return f.read() == g.read()
    except OSError:
        return False


def no_temps(d):
    left = []
    for top, _, files in os.walk(d):
        left += [os.path.join(top, n) for n in files if ".tmp" in n]
    return check(not left, "no temporary file left in %s: %r" % (d, left))


# ---------------------------------------------------------------- the programs

def build(name, src, args_list):
    """src built with deepprof-cc, run once per args; the Deep.data paths."""
    exe = out("bin", name)
    os.makedirs(out("bin"), exist_ok=True)
    must([DPCC, "-std=gnu11", "-O2", "-g", "-I" + ACC, "-o", exe, src, "-lm"] + EXTRA)
    datas = []
    for k, args in enumerate(args_list):
        d = out("bin", "%s.%d.data" % (name, k))
        if os.path.exists(d):
            os.unlink(d)
        must([exe] + args, env={"DEEPPROF_FILE": d})
        datas.append(d)
    return datas


PAIR_RUNS = [["3000000", "3000000"], ["3000000", "1000000"], ["1000000", "2000000"]]


def make_profiles():
    pair = build("fb-pair", os.path.join(ROOT, "tests", "feedback", "fb-pair.c"), PAIR_RUNS)
    indep2 = build("indep2", os.path.join(ACC, "indep2.c"), [["0.05"]])
    noov = build("nooverlap", os.path.join(ACC, "nooverlap.c"), [["0.05"]])
    return pair, indep2, noov


def hand(program, speedup, path):
    """The unit suite's hand-filled feedback for program with its first
    candidate's speedups all `speedup` (as tests/feedback makes them)."""
    d = load(os.path.join(UNIT_DIR, "fb-hand.json"))
    d["program"] = program
    d["inputs"][0]["program"] = program
    d["inputs"][0]["path"] = path
    c = d["candidates"][0]
    c["speedup"] = c["speedup_min"] = c["speedup_median"] = c["speedup_max"] = speedup
    c["par_time"] = c["seq_time"] / speedup
    return d


# ---------------------------------------------------------------- the summary, derived

HEAD = ("%-16s %6s %10s %11s %5s %7s %7s %8s %7s  %-16s %5s %6s %6s %6s" %
        ("program", "inputs", "candidates", "recommended", "best", "region", "program",
         "achieved", "error", "safety", "seen", "min", "median", "max"))
LEGEND = ("recommended: accepted, and safe or checked; best: the recommended candidate of "
          "highest predicted\nprogram speedup, else the accepted one that needs a check (safety "
          "says so); region, program: its\npredicted speedups (none accepted: program 1.000); "
          "achieved: "
          "measured; error: (predicted - achieved) / achieved;\nseen: the inputs that have it "
          "/ the inputs; min, median, max: its region speedup over those.\n")


def f3(v):
    return "-" if v is None else "%.3f" % v


def expect_row(name, fb, measured):
    """The summary row (dict) of program name from its feedback document fb
    and its measurements {"program": X, "candidates": {"ID": X}}."""
    acc = [c for c in fb["candidates"] if c["verdict"] == "accepted"]
    rec = [c for c in acc if c["safety"] in ("safe", "checked")]
    best = None
    for c in (rec or acc):
        if best is None or c["program_speedup"] > best["program_speedup"]:
            best = c
    pred = best["program_speedup"] if best else 1.0
    ach, frm = None, None
    if best and str(best["id"]) in measured.get("candidates", {}):
        ach, frm = measured["candidates"][str(best["id"])], "candidate"
    elif "program" in measured:
        ach, frm = measured["program"], "program"
    b = None
    if best:
        b = {"id": best["id"], "fn": best["proc"]["fn"], "file": best["proc"]["file"],
             "line": best["proc"]["line"], "context": best.get("context"),
             "n_tasks": best["n_tasks"], "speedup": best["speedup"],
             "program_speedup": best["program_speedup"], "safety": best["safety"],
             "n_inputs_seen": best["n_inputs_seen"], "speedup_min": best["speedup_min"],
             "speedup_median": best["speedup_median"], "speedup_max": best["speedup_max"]}
    return {"name": name, "program": fb["program"], "inputs": len(fb["inputs"]),
            "candidates": len(fb["candidates"]), "recommended": len(rec), "best": b,
            "predicted": pred, "achieved": ach, "achieved_from": frm,
            "error": None if ach is None else (pred - ach) / ach}


def expect_text(rows):
    lines = [HEAD]
    for r in rows:
        b = r["best"]
        lines.append("%-16s %6d %10d %11d %5s %7s %7s %8s %7s  %-16s %5s %6s %6s %6s" % (
            r["name"], r["inputs"], r["candidates"], r["recommended"],
            "#%d" % b["id"] if b else "-", f3(b and b["speedup"]), f3(r["predicted"]),
            f3(r["achieved"]), "-" if r["error"] is None else "%+.1f%%" % (100 * r["error"]),
            b["safety"] if b else "-", "%d/%d" % (b["n_inputs_seen"], r["inputs"]) if b else "-",
            f3(b and b["speedup_min"]), f3(b and b["speedup_median"]),
            f3(b and b["speedup_max"])))
    n, ins, rec = len(rows), sum(r["inputs"] for r in rows), sum(r["recommended"] for r in rows)
    lines.append("%d program%s, %d input%s, %d recommended candidate%s." % (
        n, "" if n == 1 else "s", ins, "" if ins == 1 else "s", rec, "" if rec == 1 else "s"))
    return "\n".join(lines) + "\n" + LEGEND


def check_summary(d, what, rows, fmt="json"):
    """d (the output directory) holds the summary of rows, in both forms,
    and the feedback files they name; returns summary.json's document."""
    doc = valid(os.path.join(d, "summary.json"), what + ": summary.json valid")
    if doc is None:
        return None
    got = [{k: v for k, v in p.items() if k != "feedback"} for p in doc["programs"]]
    check(got == rows, "%s: summary rows\n  got  %r\n  want %r" % (what, got, rows))
    check([p["feedback"] for p in doc["programs"]] == [r["name"] + "." + fmt for r in rows] and
          doc["feedback_format"] == fmt, "%s: feedback file names" % what)
    with open(os.path.join(d, "summary.txt")) as f:
        txt = f.read()
    want = expect_text(rows)
    check(txt == want, "%s: summary.txt\n--- got\n%s--- want\n%s" % (what, txt, want))
    no_temps(d)
    return doc


# ---------------------------------------------------------------- the directory form

def test_dir(pair, indep2, noov):
    suite = out("suite")
    shutil.rmtree(suite, ignore_errors=True)
    for name, datas in (("pair", pair), ("indep2", indep2), ("nooverlap", noov)):
        os.makedirs(os.path.join(suite, name))
        for k, d in enumerate(datas):
            shutil.copyfile(d, os.path.join(suite, name, "in%d.data" % k))
    os.makedirs(os.path.join(suite, ".hidden"))        # left out
    with open(os.path.join(suite, "README"), "w") as f:  # not a program
        f.write("x\n")
    meas = {"pair": {"program": 1.25}, "indep2": {"candidates": {"1": 1.9}, "program": 1.5},
            "nooverlap": {"program": 1.0}}
    for name, m in meas.items():
        write_json(os.path.join(suite, name, "measured.json"), m)
    o = out("dir-out")
    shutil.rmtree(o, ignore_errors=True)
    p = run([DEEPPROF, "batch", "--jobs=2", suite, "-o", o])
    if not check(p.returncode == 0 and p.stderr == "" and not crashed(p),
                 "dir: rc %d %r" % (p.returncode, p.stderr)):
        return None
    names = ["indep2", "nooverlap", "pair"]
    fbs = {}
    for n in names:
        profs = sorted(os.path.join(suite, n, x) for x in os.listdir(os.path.join(suite, n))
                       if x.endswith(".data"))
        ref = out("ref-%s.json" % n)
        must([DEEPPROF, "feedback"] + profs + ["-o", ref])
        check(same_file(ref, os.path.join(o, n + ".json")),
              "dir: %s.json is what `deepprof feedback` writes for its profiles" % n)
        fbs[n] = load(os.path.join(o, n + ".json"))
        try:
            jsonschema.validate(fbs[n], FB_SCHEMA)
            check(True, "")
        except jsonschema.ValidationError as ex:
            check(False, "dir: %s.json a valid feedback file: %s" % (n, ex.message))
    rows = [expect_row(n, fbs[n], meas[n]) for n in names]
    doc = check_summary(o, "dir", rows)
    # what the programs' structure fixes
    ind, noo, pr = rows
    check(ind["inputs"] == 1 and ind["recommended"] == 1 and ind["best"]["n_tasks"] == 2 and
          1.95 < ind["best"]["speedup"] <= 2.0 and ind["best"]["n_inputs_seen"] == 1 and
          ind["best"]["speedup_min"] == ind["best"]["speedup_max"] == ind["best"]["speedup"],
          "dir: indep2: one input, two equal calls, just under 2 (%r)" % ind["best"])
    check(ind["achieved"] == 1.9 and ind["achieved_from"] == "candidate" and
          ind["error"] == (ind["predicted"] - 1.9) / 1.9,
          "dir: indep2: achieved from the measured candidate 1, not the program's (%r)" % ind)
    check(noo["inputs"] == 1 and noo["candidates"] >= 1 and noo["recommended"] == 0 and
          noo["best"] is None and noo["predicted"] == 1.0 and noo["achieved"] == 1.0 and
          noo["error"] == 0.0, "dir: nooverlap: nothing recommended, predicted 1.0 (%r)" % noo)
    b = pr["best"]
    check(pr["inputs"] == 3 and pr["recommended"] == 0 and b["safety"] == "unknown_memory" and
          b["fn"] == "main" and
          b["n_tasks"] == 2 and b["n_inputs_seen"] == 3 and near(b["speedup_min"], 4 / 3) and
          near(b["speedup_median"], 1.5) and near(b["speedup_max"], 2.0) and
          b["speedup"] == b["speedup_median"],
          "dir: pair: 3/3 inputs, min 4/3, median 3/2, max 2 (%r)" % b)
    check(pr["achieved"] == 1.25 and pr["achieved_from"] == "program" and
          pr["error"] == (pr["predicted"] - 1.25) / 1.25, "dir: pair: achieved 1.25 (%r)" % pr)
    if doc:
        check(doc["input"] == os.path.realpath(suite), "dir: input %r" % doc["input"])
    # stdout: the table, then where it went
    with open(os.path.join(o, "summary.txt")) as f:
        txt = f.read()
    check(p.stdout == txt + "batch: wrote 3 feedback files, summary.txt and summary.json in "
          "%s\n" % o, "dir: stdout %r" % p.stdout[-300:])
    # the output directory inside the input one is no program
    p = run([DEEPPROF, "batch", suite, "-o", os.path.join(suite, "out")])
    p2 = run([DEEPPROF, "batch", suite, "-o", os.path.join(suite, "out")])
    check(p.returncode == p2.returncode == 0 and p2.stdout == p.stdout and
          sorted(os.listdir(os.path.join(suite, "out"))) ==
          ["indep2.json", "nooverlap.json", "pair.json", "summary.json", "summary.txt"],
          "dir: an output directory inside the input is not a program (%r)" % p2.stderr)
    shutil.rmtree(os.path.join(suite, "out"))
    # --summarize reads them back into the same table
    p = run([DEEPPROF, "batch", "--summarize", suite, "-o", o])
    check(p.returncode == 0 and p.stdout == txt, "dir: --summarize prints the same table")
    check_summary(o, "dir --summarize", rows)
    return suite, o, rows


def test_progress(suite):
    """A progress bar on stderr when it is a terminal (feedback's)."""
    p, tty = dptest.run_stderr_on_tty([DEEPPROF, "batch", "--jobs=2", suite, "-o", out("tty-out")])
    check(p.returncode == 0 and b"] 5/5 profiles" in tty and b"\x1b[K" in tty and
          p.stdout.startswith("program "), "progress bar on a terminal: %r" % tty[-200:])


def test_fifo_summary(suite, direct):
    """A summary.json that is a FIFO gets the summary, written in place:
    the output directory's writability check does not open it (an open
    with no reader blocks; with one, the reader got an empty file)."""
    o = out("fifo-out")
    shutil.rmtree(o, ignore_errors=True)
    os.makedirs(o)
    fifo = os.path.join(o, "summary.json")
    p, got = dptest.run_into_fifo([DEEPPROF, "batch", suite, "-o", o], fifo)
    if not check(p is not None, "batch with a FIFO summary.json returns (blocked for 60 s)"):
        return
    with open(os.path.join(direct, "summary.json"), "rb") as f:
        want = f.read()
    check(p.returncode == 0 and got == [want] and stat.S_ISFIFO(os.stat(fifo).st_mode),
          "a FIFO summary.json gets the summary and stays a FIFO (rc %d %r, read %r)"
          % (p.returncode, p.stderr, [g[:60] for g in got]))


# ---------------------------------------------------------------- manifests

def test_manifest(pair, indep2):
    """Hand-made feedback files of exact speedups, and real profiles with
    per-program options, program times and a calibration file named
    relative to the manifest."""
    m = out("man")
    shutil.rmtree(m, ignore_errors=True)
    os.makedirs(os.path.join(m, "in"))
    for n, sp in (("a", 1.75), ("b", 1.25), ("c", 1.5)):
        write_json(os.path.join(m, "in", n + ".json"), hand("/w/fib2", sp, n + ".data"))
    write_json(os.path.join(m, "in", "s.json"), hand("/w/sort", 1.2, "s.data"))
    must([DEEPPROF, "calibrate", "--quick", "-o", os.path.join(m, "cal.json")])
    manifest = {
        "format": "deepprof-batch", "version": 1,
        "options": ["--spawn-cost=1000ns"],
        "programs": [
            {"name": "fib2", "profiles": ["in/a.json", "in/b.json", "in/c.json"],
             "measured": {"program": 1.2, "candidates": {"2": 1.1}}},
            {"name": "sort", "profiles": [os.path.join(m, "in", "s.json")],
             "measured": {"candidates": {"1": 1.6}}},
            {"name": "pair-t", "profiles": pair, "program_time": ["30ms", "20ms", "15ms"],
             "options": ["--per-context", "--calibration", "cal.json"]},
            {"name": "indep2", "profiles": indep2, "program_time": "50ms"},
        ]}
    try:
        jsonschema.validate(manifest, SCHEMA)
        check(True, "")
    except jsonschema.ValidationError as ex:
        check(False, "the test's manifest is valid against the schema: %s" % ex.message)
    mf = os.path.join(m, "suite.json")
    write_json(mf, manifest)
    o = out("man-out")
    shutil.rmtree(o, ignore_errors=True)
    # from another directory: the manifest's paths are its directory's
    p = run([DEEPPROF, "batch", "-j", "3", os.path.relpath(mf, OUT), "-o", "man-out"], cwd=OUT)
    if not check(p.returncode == 0 and p.stderr == "", "manifest: rc %d %r" % (p.returncode,
                                                                           p.stderr)):
        return None
    fbs = {n: load(os.path.join(o, n + ".json")) for n in ("fib2", "sort", "pair-t", "indep2")}
    f = fbs["fib2"]
    c = f["candidates"][0]
    check((c["n_inputs_seen"], c["speedup_min"], c["speedup_median"], c["speedup_max"]) ==
          (3, 1.25, 1.5, 1.75), "manifest: fib2 combined from three feedback files")
    pt = fbs["pair-t"]
    check(pt["options"]["per_context"] is True and pt["ns_per_unit_source"] == "program time" and
          pt["overheads"]["source"] == os.path.join(m, "cal.json") + "; spawn_cost from the "
          "command line" and pt["overheads"]["spawn_cost_ns"] == 1000.0,
          "manifest: pair-t's options, the batch's --spawn-cost and cal.json read from the "
          "manifest's directory (%r %r)" % (pt["options"], pt["overheads"]))
    ind = fbs["indep2"]
    check(ind["options"]["program_time_ns"] == 50e6 and
          abs(ind["ns_per_unit"] * ind["program_cost"] - 50e6) < 1e-3,
          "manifest: indep2: --program-time=50ms: ns per CSC = 50 ms / its cost")
    meas = [p_.get("measured", {}) for p_ in manifest["programs"]]
    rows = [expect_row(p_["name"], fbs[p_["name"]], ms)
            for p_, ms in zip(manifest["programs"], meas)]
    check_summary(o, "manifest", rows)
    r = rows[0]
    # fib2's best is candidate 1 (accepted); the measured candidate 2 is not it
    check(r["best"]["id"] == 1 and r["achieved"] == 1.2 and r["achieved_from"] == "program" and
          r["best"]["speedup_min"] == 1.25 and r["best"]["speedup_max"] == 1.75 and
          r["best"]["n_inputs_seen"] == 3, "manifest: fib2's row %r" % r)
    check(rows[1]["achieved"] == 1.6 and rows[1]["achieved_from"] == "candidate" and
          rows[1]["error"] == (rows[1]["predicted"] - 1.6) / 1.6, "manifest: sort's row")
    line = [x for x in open(os.path.join(o, "summary.txt")).read().splitlines()
            if x.startswith("fib2 ")]
    check(len(line) == 1 and line[0].split()[4:6] == ["#1", "1.500"] and
          line[0].split()[-4:] == ["3/3", "1.250", "1.500", "1.750"],
          "manifest: fib2's line, exact: %r" % line)
    # per-input program times: each input's own
    for k, t in enumerate((30e6, 20e6, 15e6)):
        one = out("pt%d.json" % k)
        must([DEEPPROF, "feedback", "--spawn-cost=1000ns", "--per-context",
              "--calibration=" + os.path.join(m, "cal.json"), "--program-time=%gms" % (t / 1e6),
              pair[k], "-o", one])
    must([DEEPPROF, "feedback", out("pt0.json"), out("pt1.json"), out("pt2.json"), "-o",
          out("pt.json")])
    check(same_file(out("pt.json"), os.path.join(o, "pair-t.json")),
          "manifest: pair-t, each input with its program time, is feedback's combination of "
          "the inputs analysed one by one")
    # msgpack
    om = out("man-msgpack")
    shutil.rmtree(om, ignore_errors=True)
    p = run([DEEPPROF, "batch", "--format=msgpack", mf, "-o", om])
    check(p.returncode == 0 and sorted(os.listdir(om)) ==
          ["fib2.msgpack", "indep2.msgpack", "pair-t.msgpack", "sort.msgpack", "summary.json",
           "summary.txt"], "msgpack: files %r" % (os.listdir(om) if os.path.isdir(om) else None))
    for n in fbs:
        q = run([DEEPPROF, "feedback", "--to-json", os.path.join(om, n + ".msgpack")])
        check(q.returncode == 0 and json.loads(q.stdout) == fbs[n],
              "msgpack: %s.msgpack holds %s.json's document" % (n, n))
    check_summary(om, "msgpack", rows, "msgpack")
    return mf, o, om


# ---------------------------------------------------------------- build actions

def test_emit(tool, src, direct, names, parts=(), fmt="json"):
    """--emit=tool for src: its build gives direct's files, byte for byte."""
    d = out("emit-%s-%s" % (tool, os.path.basename(direct)))
    shutil.rmtree(d, ignore_errors=True)
    p = run([DEEPPROF, "batch", "--emit=" + tool, "--format=" + fmt, src, "-o", d])
    bf = os.path.join(d, "Makefile" if tool == "make" else "build.ninja")
    if not check(p.returncode == 0 and os.path.exists(bf) and
                 sorted(os.listdir(d)) == [os.path.basename(bf)],
                 "emit %s: rc %d %r, only the build file written" % (tool, p.returncode,
                                                                     p.stderr)):
        return
    with open(bf) as f:
        text = f.read()
    # one `deepprof feedback` action per program, or per input and one more
    # for a program with per-input times; one summary action
    nfb = text.count(" feedback ") + text.count(" feedback\n")
    want = len(names) + sum(n for _, n in parts) if tool == "make" else None
    if want is not None:
        check(text.count("$(DEEPPROF) feedback") == want and
              text.count("$(DEEPPROF) batch --summarize") == 1,
              "emit make: %d feedback actions and one summary (%r)" % (want, nfb))
    cmd = ["make", "-f", bf, "-j2"] if tool == "make" else ["ninja", "-f", bf, "-j", "2"]
    p = run(cmd, cwd="/")
    if not check(p.returncode == 0, "emit %s: the build runs: %s" % (tool, p.stderr[-600:])):
        return
    for n in ["summary.json", "summary.txt"] + [x + "." + fmt for x in names]:
        check(same_file(os.path.join(direct, n), os.path.join(d, n)),
              "emit %s: %s is the direct run's" % (tool, n))
    for n, k in parts:
        check(sorted(os.listdir(os.path.join(d, n + ".inputs"))) ==
              ["%d.json" % (i + 1) for i in range(k)], "emit %s: %s's inputs" % (tool, n))
    no_temps(d)
    if tool == "make":
        p = run(["make", "-f", bf, "-q"])
        check(p.returncode == 0, "emit make: up to date after the build (make -q: %d)" %
              p.returncode)
    else:
        p = run(["ninja", "-f", bf, "-n"])
        check(p.returncode == 0 and "no work to do" in p.stdout,
              "emit ninja: up to date after the build: %r" % p.stdout)


# ---------------------------------------------------------------- bad input

def bad(args, want, what, cwd=None):
    """deepprof fails with exit 2, one line on stderr containing want, nothing on stdout."""
    p = run([DEEPPROF] + args, cwd)
    lines = p.stderr.splitlines()
    ok = (not crashed(p) and p.returncode == 2 and len(lines) == 1 and want in p.stderr and
          p.stdout == "")
    check(ok, "%s: rc %d, stderr %r, stdout %r (want one line with %r)" %
          (what, p.returncode, p.stderr[:400], p.stdout[:200], want))


def test_bad_manifest(pair, indep2):
    d = out("badm")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    o = out("badm-out")
    good = {"format": "deepprof-batch", "version": 1,
            "programs": [{"name": "pair", "profiles": pair[:1]}]}

    def case(doc, want, what, raw=None, args=()):
        path = os.path.join(d, what.replace(" ", "-").replace("/", "_") + ".json")
        with open(path, "w") as f:
            f.write(raw if raw is not None else json.dumps(doc))
        bad(["batch"] + list(args) + [path, "-o", o], want.replace("@", path), "manifest: " + what)

    def prog(**kw):
        doc = json.loads(json.dumps(good))
        for k, v in kw.items():
            if v is None:
                del doc["programs"][0][k]
            else:
                doc["programs"][0][k] = v
        return doc

    def top(**kw):
        doc = json.loads(json.dumps(good))
        for k, v in kw.items():
            if v is None:
                del doc[k]
            else:
                doc[k] = v
        return doc

    case(None, "@:2:", "not json", raw='{\n    "format" ]')
    case(None, "@: not a batch manifest (want an object)", "array", raw="[1]")
    case(top(format="deepprof-feedback"), "@: not a batch manifest (format is not "
         "\"deepprof-batch\")", "wrong format")
    case(top(format=None), "not a batch manifest", "no format")
    case(top(version=2), "@: version 2 is not readable (this deepprof reads version 1)",
         "version 2")
    case(top(version="1"), "@: version: want an integer", "version string")
    case(top(extra=1), "@: unknown key 'extra'", "unknown top key")
    case(top(programs=None), "@: programs: want a non-empty array", "no programs")
    case(top(programs=[]), "@: programs: want a non-empty array", "empty programs")
    case(top(programs={}), "@: programs: want a non-empty array", "programs object")
    case(top(programs=[1]), "@: programs[0]: want an object", "program not object")
    case(top(options="--per-context"), "@: options: want an array", "options string")
    case(top(options=[3]), "@: options[0]: want a non-empty string", "option number")
    case(top(options=["--frobnicate"]), "deepprof feedback: @: options: unknown option "
         "'--frobnicate'", "unknown option")
    case(top(options=["--jobs=2"]), "@: options: option '--jobs=2' is not for a batch",
         "--jobs in options")
    case(top(options=["-o", "x.json"]), "@: options: option '-o' is not for a batch",
         "-o in options")
    case(top(options=["a\nb"]), "a control character", "control character")
    case(prog(name=None), "@: programs[0].name: want a string", "no name")
    case(prog(name=7), "@: programs[0].name: want a string", "name number")
    case(prog(name="a/b"), "@: programs[0].name 'a/b': want letters", "name with slash")
    case(prog(name="summary"), "name 'summary'", "name summary")
    case(prog(name=".x"), "name '.x'", "name dot")
    case(prog(bogus=1), "@: programs[0]: unknown key 'bogus'", "unknown program key")
    case(prog(profiles=None), "@: programs[0] 'pair': no profiles", "no profiles key")
    case(prog(profiles=[]), "@: programs[0] 'pair': no profiles", "no profiles")
    case(prog(profiles="x.data"), "@: programs[0].profiles: want an array", "profiles string")
    case(prog(profiles=[""]), "@: programs[0].profiles[0]: want a non-empty string",
         "empty profile name")
    case(prog(profiles=["missing.data"]), "@: programs[0] 'pair': %s: No such file"
         % os.path.join(d, "missing.data"), "missing profile")
    case(prog(program_time=5), "@: programs[0].program_time: want a time", "time number")
    case(prog(program_time=["1s", "2s"]), "@: programs[0].program_time: 2 times for 1 "
         "profiles", "time count")
    case(prog(program_time="fast"), "@: programs[0] 'pair': bad --program-time 'fast'",
         "bad time")
    case(prog(measured=1.5), "@: programs[0].measured: want an object", "measured number")
    case(prog(measured={"program": 0}), "@: programs[0].measured.program: want a speedup",
         "measured 0")
    case(prog(measured={"program": "2"}), "@: programs[0].measured.program: want a speedup",
         "measured string")
    case(prog(measured={"candidates": {"x": 1.5}}), "@: programs[0].measured.candidates: 'x' "
         "is not a candidate id", "measured bad id")
    case(prog(measured={"candidates": {"1": -1}}), "@: programs[0].measured.candidates.1: "
         "want a speedup", "measured negative")
    case(prog(measured={"achieved": 2}), "@: programs[0].measured: unknown key 'achieved'",
         "measured unknown key")
    case(prog(measured={"candidates": {"9": 1.5}}), "@: programs[0] 'pair': measured: no "
         "candidate 9 in the feedback", "measured unknown candidate")
    case(prog(options=["--max-tasks=1"]), "@: programs[0] 'pair': bad --max-tasks '1'",
         "bad program option")
    case(prog(options=["stray"]), "@: programs[0] 'pair': 'stray' is not an option",
         "a word among the options")
    case(prog(options=["--calibration=nope.json"]), os.path.join(d, "nope.json"),
         "missing calibration")
    two = json.loads(json.dumps(good))
    two["programs"].append({"name": "pair", "profiles": pair[1:2]})
    case(two, "@: programs[1] 'pair': the name 'pair' is taken", "duplicate name")
    mixed = prog(profiles=[pair[0], indep2[0]])
    case(mixed, "%s: a profile of 'indep2', not of 'fb-pair' like %s (program 'pair')"
         % (indep2[0], pair[0]), "profile of another program")
    with open(os.path.join(d, "garbage.data"), "wb") as f:
        f.write(bytes((i * 37 + 11) % 256 for i in range(4096)))
    case(prog(profiles=[pair[0], "garbage.data"]), os.path.join(d, "garbage.data"),
         "corrupt profile")
    check(not os.path.exists(os.path.join(o, "summary.json")),
          "bad manifests: no summary written")
    no_temps(d)


def test_bad_dir(pair, indep2):
    d = out("badd")
    shutil.rmtree(d, ignore_errors=True)
    o = out("badd-out")
    os.makedirs(d)
    bad(["batch", d, "-o", o], "%s: no programs" % d, "dir without programs")
    os.makedirs(os.path.join(d, "p"))
    bad(["batch", d, "-o", o], "%s/p: no profiles (no *.data file)" % d, "program without "
        "profiles")
    shutil.copyfile(pair[0], os.path.join(d, "p", "a.data"))
    shutil.copyfile(indep2[0], os.path.join(d, "p", "b.data"))
    bad(["batch", d, "-o", o], "%s/p/b.data: a profile of 'indep2', not of 'fb-pair' like "
        "%s/p/a.data (program 'p')" % (d, d), "dir: profile of another program")
    os.unlink(os.path.join(d, "p", "b.data"))
    with open(os.path.join(d, "p", "measured.json"), "w") as f:
        f.write("{\"program\": 1.5,}")
    bad(["batch", d, "-o", o], "%s/p/measured.json:1:" % d, "dir: measured.json not JSON")
    write_json(os.path.join(d, "p", "measured.json"), {"program": -2})
    bad(["batch", d, "-o", o], "%s/p/measured.json.program: want a speedup" % d,
        "dir: bad measured.json")
    os.unlink(os.path.join(d, "p", "measured.json"))
    os.makedirs(os.path.join(d, "bad name"))
    bad(["batch", d, "-o", o], "%s/bad name: 'bad name' cannot name a program" % d,
        "dir: a subdirectory that cannot name a program")
    os.rmdir(os.path.join(d, "bad name"))
    # outputs
    with open(out("afile"), "w") as f:
        f.write("x")
    bad(["batch", d, "-o", out("afile")], "%s: cannot write: not a directory" % out("afile"),
        "-o a file")
    bad(["batch", d, "-o", out("afile", "sub")], "%s: cannot make the output directory: Not a "
        "directory" % out("afile", "sub"), "-o under a file")
    bad(["batch", d, "-o", out("no", "such", "dir")], "cannot make the output directory: No "
        "such file", "-o in a missing directory")
    # --summarize without the feedback files
    os.makedirs(out("empty-out"), exist_ok=True)
    bad(["batch", "--summarize", d, "-o", out("empty-out")], out("empty-out", "p.json"),
        "--summarize without feedback files")
    # a path a build file cannot name
    sp = out("has space")
    shutil.rmtree(sp, ignore_errors=True)
    os.makedirs(os.path.join(sp, "p"))
    shutil.copyfile(pair[0], os.path.join(sp, "p", "a.data"))
    bad(["batch", "--emit=make", sp, "-o", out("emit-sp")], "the character ' ' cannot be "
        "named in a build file", "emit: a path with a space")
    p = run([DEEPPROF, "batch", sp, "-o", out("sp-out")])
    check(p.returncode == 0, "without --emit a path with a space is fine (%r)" % p.stderr)


def test_bad_usage():
    s = out("suite")
    bad(["batch"], "no INPUT given", "no input")
    bad(["batch", s], "no output directory given (-o DIR)", "no -o")
    bad(["batch", s, s, "-o", out("x")], "one INPUT only", "two inputs")
    bad(["batch", out("nosuch"), "-o", out("x")], "%s: cannot read: No such file or directory"
        % out("nosuch"), "missing input")
    bad(["batch", "--emit=cmake", s, "-o", out("x")], "bad --emit 'cmake': want make or ninja",
        "bad --emit")
    bad(["batch", "--format=xml", s, "-o", out("x")], "bad --format 'xml'", "bad --format")
    bad(["batch", "--jobs=0", s, "-o", out("x")], "bad --jobs '0'", "--jobs 0")
    bad(["batch", "--emit=make", "--summarize", s, "-o", out("x")], "do not go together",
        "--emit and --summarize")
    bad(["batch", "--frobnicate", s, "-o", out("x")], "deepprof feedback: batch: unknown "
        "option '--frobnicate'", "unknown option")
    bad(["batch", "--call-threshold=-5us", s, "-o", out("x")], "a time cannot be negative",
        "bad feedback option")
    bad(["batch", "--separate", s, "-o", out("x")], "'--separate' is not for a batch",
        "--separate")
    p = run([DEEPPROF, "help", "batch"])
    check(p.returncode == 0 and p.stdout.startswith("usage: deepprof batch"), "help batch")
    p = run([DEEPPROF, "--help"])
    check(" batch " in p.stdout, "batch in the command list")


def main():
    os.makedirs(OUT, exist_ok=True)
    p = run([UNIT, "feedback_file"])      # writes fb-hand.json
    if not check(p.returncode == 0 and os.path.exists(os.path.join(UNIT_DIR, "fb-hand.json")),
                 "unit suite feedback_file writes fb-hand.json: %s" % p.stdout[-300:]):
        sys.exit(T.end())
    pair, indep2, noov = make_profiles()
    r = test_dir(pair, indep2, noov)
    if r:
        suite, direct, rows = r
        test_progress(suite)
        test_fifo_summary(suite, direct)
        test_emit("make", suite, direct, [x["name"] for x in rows])
        if shutil.which("ninja"):
            test_emit("ninja", suite, direct, [x["name"] for x in rows])
        else:
            print("note: ninja is not installed: --emit=ninja's build is not run")
    m = test_manifest(pair, indep2)
    if m:
        mf, direct, direct_mp = m
        names = ["fib2", "sort", "pair-t", "indep2"]
        test_emit("make", mf, direct, names, parts=[("pair-t", 3)])
        test_emit("make", mf, direct_mp, names, parts=[("pair-t", 3)], fmt="msgpack")
        if shutil.which("ninja"):
            test_emit("ninja", mf, direct, names, parts=[("pair-t", 3)])
    test_bad_manifest(pair, indep2)
    test_bad_dir(pair, indep2)
    test_bad_usage()
    sys.exit(T.end())


main()
