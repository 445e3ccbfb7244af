#!/usr/bin/python3
"""run.py — the use build (deepprof-cc --deepprof-use=FEEDBACK): a program
with known hot and cold code is profiled, `deepprof feedback` writes its
feedback (JSON and MessagePack), and the program is rebuilt with it. Checks:
the remarks GCC's -fopt-info shows (and -fsave-optimization-record keeps,
and --deepprof-remarks prints alone), hot/cold placement (readelf on the
object: .text.hot, .text.unlikely), an uninstrumented result that prints
what the plain build prints, a stale function's one warning, -MD's
dependency on the feedback, a two-file project built by make, and every
bad feedback file or option: one line naming it, a non-zero exit, never an
internal compiler error. Ends with "use: N passed, N failed".

    run.py --build BUILD_DIR [TEST...]

Part of deepprof's tests. MIT licence.
"""

import gzip
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import dptest  # noqa: E402
from e2e import eq, check, Fail  # noqa: E402

SRC = os.path.join(HERE, "s-hotcold.c")


class Ctx(dptest.BuildCtx):
    def __init__(self, a, name):
        super().__init__(a.build, "use", name)
        self.a = a

    def feedback(self, src=SRC, name="fb.json"):
        """Profile src (plugin build, -O2) and write its feedback: the path."""
        self.run([self.cc, "-O2", "-g", src, "-o", "prof"])
        self.run([self.path("prof")])
        self.run([self.dp, "feedback", "Deep.data", "-o", name])
        return self.path(name)


def sections(obj):
    """{symbol: section name} of the functions of object file obj."""
    r = subprocess.run(["readelf", "-SW", obj], capture_output=True, text=True, check=True)
    names = {}
    for line in r.stdout.splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)", line)
        if m:
            names[int(m.group(1))] = m.group(2)
    r = subprocess.run(["readelf", "-sW", obj], capture_output=True, text=True, check=True)
    out = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[6].isdigit():
            out[f[7]] = names.get(int(f[6]), "?")
    return out


def remarks(stderr):
    return [l for l in stderr.splitlines() if "deepprof:" in l]


def t_remarks_placement(ctx):
    fb = ctx.feedback()
    r = ctx.run([ctx.cc, "-O2", "-g", "--deepprof-use=" + fb, "-fopt-info", "-c", SRC, "-o", "use.o"])
    rs = remarks(r.stderr)
    want = [
        (8, "optimized: deepprof: hot: 8 calls of"),
        (16, "optimized: deepprof: cold: never executed in 1 profile; placed in .text.unlikely"),
        (33, "optimized: deepprof: cold: the call of rescue() never ran in 1 profile"),
    ]
    for line, text in want:
        check(any(":%d:" % line in x and text in x for x in rs),
              "a remark at line %d with %r among:\n%s" % (line, text, "\n".join(rs)))
    check(all(x.startswith(SRC + ":") for x in rs), "remarks at the source's places")
    check(not any("note:" in x for x in rs), "-fopt-info shows no notes")
    # notes with -fopt-info-note, missed ones with -fopt-info-missed
    r = ctx.run([ctx.cc, "-O2", "-g", "--deepprof-use=" + fb, "-fopt-info-note", "-c", SRC, "-o",
                 "note.o"])
    check(any(":22:" in x and "note: deepprof: rarely executed: 1 call" in x for x in remarks(r.stderr)),
          "-fopt-info-note shows the rare note at line 22")
    check(not any("optimized:" in x for x in remarks(r.stderr)), "-fopt-info-note: notes only")
    s = sections(ctx.path("use.o"))
    eq(s.get("work"), ".text.hot", "work's section")
    eq(s.get("rescue"), ".text.unlikely", "rescue's section")
    eq(s.get("report"), ".text", "report's section")
    # without the feedback nothing moves
    ctx.run(["gcc", "-O2", "-g", "-c", SRC, "-o", "plain.o"])
    p = sections(ctx.path("plain.o"))
    eq((p.get("work"), p.get("rescue")), (".text", ".text"), "a plain build's sections")
    # at -O0 GCC moves nothing: the remark says marked, not placed
    r = ctx.run([ctx.cc, "-O0", "--deepprof-use=" + fb, "-fopt-info", "-c", SRC, "-o", "o0.o"])
    check(any("cold: never executed in 1 profile; marked cold" in x for x in remarks(r.stderr)),
          "-O0: marked cold")


def t_uninstrumented_same_output(ctx):
    fb = ctx.feedback()
    ctx.run([ctx.cc, "-O2", "-g", "--deepprof-use=" + fb, SRC, "-o", "use"])
    ctx.run(["gcc", "-O2", "-g", SRC, "-o", "plain"])
    os.unlink(ctx.path("Deep.data"))
    a = ctx.run([ctx.path("use")]).stdout
    b = ctx.run([ctx.path("plain")]).stdout
    eq(a, b, "the use build prints what the plain build prints")
    a = ctx.run([ctx.path("use"), "x"]).stdout
    b = ctx.run([ctx.path("plain"), "x"]).stdout
    eq(a, b, "also on the input that runs the cold path")
    check(not os.path.exists(ctx.path("Deep.data")), "a use build is not instrumented")
    nm = subprocess.run(["nm", ctx.path("use")], capture_output=True, text=True).stdout
    check("dp_abi" not in nm and "__deepprof_tu" not in nm, "no deepprof symbols in a use build")
    # --deepprof-instrument: instrumented too, and still placed
    ctx.run([ctx.cc, "-O2", "-g", "--deepprof-use=" + fb, "--deepprof-instrument", SRC, "-o", "both"])
    ctx.run([ctx.path("both")])
    check(os.path.exists(ctx.path("Deep.data")), "--deepprof-instrument writes a profile")
    ctx.run([ctx.cc, "-O2", "-g", "--deepprof-use=" + fb, "--deepprof-instrument", "-c", SRC, "-o",
             "both.o"])
    eq(sections(ctx.path("both.o")).get("rescue"), ".text.unlikely", "instrumented and placed")


def t_msgpack_and_remarks_only(ctx):
    ctx.feedback(name="fb.json")
    fbm = ctx.path("fb.msgpack")
    ctx.run([ctx.dp, "feedback", "Deep.data", "-o", fbm])
    r1 = ctx.run([ctx.cc, "-O2", "--deepprof-use=" + ctx.path("fb.json"), "--deepprof-remarks", "-c",
                  SRC, "-o", "a.o"])
    r2 = ctx.run([ctx.cc, "-O2", "--deepprof-use=" + fbm, "--deepprof-remarks", "-c", SRC, "-o",
                  "b.o"])
    eq(r2.stderr, r1.stderr, "MessagePack and JSON feedback give the same remarks")
    lines = [l for l in r1.stderr.splitlines() if l.strip()]
    check(len(lines) >= 4, "--deepprof-remarks prints the remarks")
    check(all(": deepprof: " in l for l in lines), "--deepprof-remarks prints deepprof's only:\n"
          + r1.stderr)
    eq(sections(ctx.path("b.o")).get("work"), ".text.hot", "placed from MessagePack feedback")


def t_opt_record(ctx):
    fb = ctx.feedback()
    ctx.run([ctx.cc, "-O2", "--deepprof-use=" + fb, "-fsave-optimization-record", "-c", SRC, "-o",
             "rec.o"])
    recs = [f for f in os.listdir(ctx.dir) if f.endswith(".opt-record.json.gz")]
    eq(len(recs), 1, "one optimization record")
    with gzip.open(ctx.path(recs[0]), "rt") as f:
        doc = json.load(f)
    msgs = []

    def walk(x):
        if isinstance(x, dict):
            if "message" in x and isinstance(x["message"], list):
                msgs.append(("".join(m if isinstance(m, str) else m.get("expr", "")
                                     for m in x["message"]), x.get("kind"),
                             (x.get("location") or {}).get("line")))
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(doc)
    ours = [m for m in msgs if m[0].startswith("deepprof:")]
    check(any("cold: never executed" in m[0] and m[1] == "success" and m[2] == 16 for m in ours),
          "the record keeps the cold remark at line 16 as a success: %r" % ours[:6])


def t_stale(ctx):
    fb = ctx.feedback()
    with open(SRC) as f:
        text = f.read()
    changed = text.replace("s += i * i % 7;", "s += i * i % 11;")
    check(changed != text, "the test changes work()")
    src2 = ctx.path("s-hotcold.c")
    with open(src2, "w") as f:
        f.write(changed)
    r = ctx.run([ctx.cc, "-O2", "--deepprof-use=" + fb, "-fopt-info", "-c", src2, "-o", "stale.o"])
    warns = [l for l in r.stderr.splitlines() if "warning:" in l]
    eq(len(warns), 1, "one warning: %r" % warns)
    check("'work' has changed since it was profiled" in warns[0].replace("\u2018", "'").replace("\u2019", "'"),
          "the warning names work: " + warns[0])
    s = sections(ctx.path("stale.o"))
    eq(s.get("work"), ".text", "a stale function's entry is skipped")
    eq(s.get("rescue"), ".text.unlikely", "the others still apply")


def t_deps_and_make(ctx):
    fb = ctx.feedback()
    ctx.run([ctx.cc, "-O2", "--deepprof-use=" + fb, "-MMD", "-c", SRC, "-o", "dep.o"])
    with open(ctx.path("dep.d")) as f:
        d = f.read()
    check(fb in d, "-MMD's rule names the feedback file:\n" + d)
    # a two-file project, one feedback: each unit takes what concerns it
    proj = ctx.path("proj")
    os.makedirs(proj)
    with open(SRC) as f:
        text = f.read()
    cut = text.index("int main(")
    with open(os.path.join(proj, "lib.c"), "w") as f:
        f.write(text[:cut])
    with open(os.path.join(proj, "main.c"), "w") as f:
        f.write("#include <stdio.h>\nunsigned long work(unsigned long);\nvoid rescue(const char *);\n"
                "void report(unsigned long);\n" + text[cut:])
    with open(os.path.join(proj, "Makefile"), "w") as f:
        f.write("prog: main.o lib.o\n\t$(CC) $(CFLAGS) -o $@ main.o lib.o\n")
    ctx.run(["make", "-C", proj, "CC=" + ctx.cc, "CFLAGS=-O2 -g"])
    subprocess.run([os.path.join(proj, "prog")], cwd=proj, capture_output=True, check=True)
    ctx.run([ctx.dp, "feedback", os.path.join(proj, "Deep.data"), "-o", os.path.join(proj, "fb.json")])
    for o in ("main.o", "lib.o", "prog"):
        os.unlink(os.path.join(proj, o))
    r = ctx.run(["make", "-C", proj, "CC=" + ctx.cc, "CFLAGS=-O2 -g --deepprof-use=fb.json -fopt-info"])
    s = sections(os.path.join(proj, "lib.o"))
    eq((s.get("work"), s.get("rescue")), (".text.hot", ".text.unlikely"), "lib.o placed")
    check(any("main.c:" in l and "rescue() never ran" in l for l in remarks(r.stderr)),
          "main.c's cold call remarked")
    check(not any("main.c:" in l and "hot: 8 calls" in l for l in remarks(r.stderr)),
          "main.o takes nothing of lib.c's")


def t_bad_files(ctx):
    fb = ctx.feedback()
    with open(fb, "rb") as f:
        good = f.read()
    cases = {
        "empty.json": (b"", "is empty"),
        "truncated.json": (good[:len(good) // 2], "not JSON"),
        "corrupt.json": (b"{\"format\": 12, ]", "not JSON"),
        "new.json": (good.replace(b'"min_version": 1', b'"min_version": 99'), "not readable by this"),
        "other.json": (b'{"format": "something-else", "version": 1}', "feedback"),
        "profile.msgpack": (open(ctx.path("Deep.data"), "rb").read(), "feedback"),
    }
    for name, (data, what) in cases.items():
        with open(ctx.path(name), "wb") as f:
            f.write(data)
        r = ctx.run([ctx.cc, "-O2", "--deepprof-use=" + name, "-c", SRC, "-o", "bad.o"], rc=None)
        check(r.returncode != 0, "%s: non-zero exit" % name)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        eq(len(lines), 1, "%s: one line: %r" % (name, lines))
        check(name in lines[0] and what in lines[0], "%s: the line names it and says %r: %s"
              % (name, what, lines[0]))
        check("internal compiler error" not in r.stderr, "%s: no ICE" % name)
    # missing: deepprof-cc says so; the plugin too, given it directly
    r = ctx.run([ctx.cc, "--deepprof-use=missing.json", "-c", SRC, "-o", "m.o"], rc=2)
    check(r.stderr.strip() == "deepprof-cc: cannot read feedback file missing.json: No such file or directory",
          "deepprof-cc on a missing file: " + r.stderr)
    plugin = os.path.abspath(os.path.join(ctx.a.build, "lib", "gcc-plugin", "deepprof.so"))
    r = ctx.run(["gcc", "-fplugin=" + plugin, "-fplugin-arg-deepprof-use=missing.json",
                 "-fplugin-arg-deepprof-instrument=0", "-c", SRC, "-o", "m.o"], rc=None)
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    check(r.returncode != 0 and len(lines) == 1 and "missing.json" in lines[0] and
          "cannot read" in lines[0], "the plugin on a missing file: %r" % lines)
    # a name the plugin's ':'-separated list cannot carry
    shutil.copy(fb, ctx.path("a:b.json"))
    r = ctx.run([ctx.cc, "--deepprof-use=a:b.json", "-c", SRC, "-o", "o.o"], rc=2)
    check("a name with ':' cannot be passed" in r.stderr, "a ':' in the name: " + r.stderr)
    # the plugin's own arguments, given without deepprof-cc
    for arg, msg in [("instrument=maybe", "expected 0 or 1"), ("use", "needs feedback files"),
                     ("parallelize", "needs")]:
        r = ctx.run(["gcc", "-fplugin=" + plugin, "-fplugin-arg-deepprof-" + arg, "-c", SRC,
                     "-o", "o.o"], rc=None)
        check(r.returncode != 0 and msg in r.stderr and "internal compiler error" not in r.stderr,
              "-fplugin-arg-deepprof-%s: %r" % (arg, r.stderr))
    # bad options
    for args, msg in [(["--deepprof-parallelize=bogus"], "expected safe, checked, none or candidate ids"),
                      (["--deepprof-parallelize=1,x"], "expected safe, checked, none or candidate ids"),
                      (["--deepprof-remarks"], "--deepprof-remarks needs --deepprof-use"),
                      (["--deepprof-use="], "expected --deepprof-use=FILE"),
                      (["--deepprof-use=" + fb, "--deepprof-mode=cyg"], "needs the deepprof plugin"),
                      (["--deepprof-instrument"], "--deepprof-instrument needs --deepprof-use"),
                      (["--deepprof-parallelize=safe"], "--deepprof-parallelize needs --deepprof-use"),
                      (["--deepprof-use=" + fb + ",,x.json"], "an empty or too long file name")]:
        r = ctx.run([ctx.cc] + args + ["-c", SRC, "-o", "o.o"], rc=2)
        lines = r.stderr.strip().splitlines()
        check(len(lines) == 1 and msg in lines[0], "%s: one line with %r: %r" % (args, msg, lines))


def t_candidates(ctx):
    """The demo's one parallelism candidate (two functions that nothing
    declares const) becomes two tasks, proved safe by GCC's own analyses,
    with an optimized remark at its first call; the result prints what the
    serial build prints. --deepprof-parallelize=none, and -O0 (where GCC's
    analyses do not run), leave it serial and say why."""
    demo = os.path.join(HERE, "..", "demo", "demo.c")
    fb = ctx.feedback(src=demo)
    r = ctx.run([ctx.cc, "-O2", "--deepprof-use=" + fb, "-fopt-info", demo, "-o", "par"])
    rs = [l for l in remarks(r.stderr) if "candidate" in l]
    eq(len(rs), 1, "one candidate remark: %r" % rs)
    check(re.search(r"demo\.c:291:\d+: optimized: deepprof: candidate 1: collatz_total\(\) and "
                    r"primes_below\(\) run as 2 parallel tasks \(predicted \d\.\d\dx on this region, "
                    r"\d\.\d\dx on the program; safe: collatz_total\(\) and primes_below\(\) are const "
                    r"\(GCC's ipa-pure-const\)\)$", rs[0]) is not None, "the remark: " + rs[0])
    nm = subprocess.run(["nm", ctx.path("par")], capture_output=True, text=True).stdout
    check("main._omp_fn." in nm and "GOMP_task" in nm, "main has outlined tasks")
    ctx.run(["gcc", "-O2", demo, "-o", "serial"])
    for env in ({}, {"OMP_NUM_THREADS": "1"}, {"OMP_NUM_THREADS": "3"}):
        eq(ctx.run([ctx.path("par")], env=env).stdout, ctx.run([ctx.path("serial")]).stdout,
           "the parallel demo prints what the serial one prints (%r)" % env)
    r = ctx.run([ctx.cc, "-O2", "--deepprof-use=" + fb, "-fopt-info-missed", "-c", demo, "-o", "d.o",
                 "--deepprof-parallelize=none"])
    rs = [l for l in remarks(r.stderr) if "candidate" in l]
    check(len(rs) == 1 and rs[0].endswith("not parallelized: --deepprof-parallelize=none"),
          "parallelize=none is the reason given: %r" % rs)
    nm = subprocess.run(["nm", ctx.path("d.o")], capture_output=True, text=True).stdout
    check("GOMP" not in nm and "_omp_fn" not in nm, "no parallel code with none")
    # at -O0 GCC's analyses do not run: deepprof reads the source instead
    r = ctx.run([ctx.cc, "-O0", "--deepprof-use=" + fb, "--deepprof-remarks", demo, "-o", "par0"])
    rs = [l for l in remarks(r.stderr) if "candidate" in l]
    check(len(rs) == 1 and "optimized: deepprof: candidate 1:" in rs[0] and rs[0].endswith(
        "safe: collatz_total() and primes_below() store nothing but their own locals (deepprof's "
        "reading of the source: GCC's analyses cannot be used here))"), "-O0: %r" % rs)
    eq(ctx.run([ctx.path("par0")]).stdout, ctx.run([ctx.path("serial")]).stdout,
       "the -O0 parallel demo prints what the serial one prints")


PAR = os.path.join(HERE, "s-par.c")


def same_output(ctx, src, arg):
    """`par` (built from src) prints what src's plain -O2 build prints, with
    any number of threads and on input arg: the serial output."""
    ctx.run(["gcc", "-O2", src, "-o", "serial"])
    want = ctx.run([ctx.path("serial")]).stdout
    for env in ({}, {"OMP_NUM_THREADS": "1"}, {"OMP_NUM_THREADS": "2"}, {"OMP_NUM_THREADS": "5"}):
        eq(ctx.run([ctx.path("par")], env=env).stdout, want, "same output (%r)" % env)
    eq(ctx.run([ctx.path("par"), arg]).stdout, ctx.run([ctx.path("serial"), arg]).stdout,
       "same output on another input")
    return want


def par_remarks(ctx, fb, *extra, src=None):
    """{candidate id: (line, optimized|missed, text)} of the use build of
    src (s-par.c) with feedback fb, built as `par`."""
    r = ctx.run([ctx.cc, "-O2", "-g", "--deepprof-use=" + fb, "--deepprof-remarks", src or PAR,
                 "-o", "par"] + list(extra))
    out = {}
    for l in remarks(r.stderr):
        m = re.search(r":(\d+):\d+: (optimized|missed): deepprof: candidate (\d+): (.*)$", l)
        if m:
            out[int(m.group(3))] = (int(m.group(1)), m.group(2), m.group(4))
    return out


def par_feedback(ctx):
    """s-par.c profiled at -O2, its feedback: the path. The candidates'
    ids are checked, so that the tests below name the right ones."""
    ctx.run([ctx.cc, "-O2", "-g", PAR, "-o", "prof"])
    ctx.run([ctx.path("prof")])
    # the time per CSC given, not the run's: its ~45 ms of CPU sit where
    # the model's cut-off for leaves() turns from 4 (below ~43 ms) to 5,
    # so the answer followed this machine's load (t011, under make check)
    ctx.run([ctx.dp, "feedback", "Deep.data", "--program-time=80ms", "-o", "fb.json"])
    with open(ctx.path("fb.json")) as f:
        got = {c["id"]: (c["calls"][0]["at"]["line"], c["verdict"]) for c in json.load(f)["candidates"]}
    eq(got, {1: (57, "accepted"), 2: (47, "accepted"), 3: (64, "accepted"), 4: (78, "accepted"),
             5: (98, "accepted"), 6: (88, "accepted"), 7: (42, "accepted")}, "s-par.c's candidates")
    return ctx.path("fb.json")


def t_parallel_shapes(ctx):
    """Every shape of s-par.c: what becomes parallel code, what does not
    and why, the same output with any number of threads, and the same
    again when the unprovable candidate is named by id."""
    fb = par_feedback(ctx)
    rs = par_remarks(ctx, fb)
    tasks = "run as 2 parallel tasks"
    safe = "safe: work() is const (GCC's ipa-pure-const))"
    eq(sorted(rs), [1, 2, 3, 4, 5, 6, 7], "a remark for each candidate")
    for k, line in ((1, 57), (2, 47), (3, 64)):
        check(rs[k][:2] == (line, "optimized") and tasks in rs[k][2] and rs[k][2].endswith(safe),
              "candidate %d: %r" % (k, rs[k]))
    check(rs[7][:2] == (42, "optimized") and
          "leaves() and leaves() run as 2 parallel tasks down to recursion depth" in rs[7][2] and
          rs[7][2].endswith("safe: leaves() is const (GCC's ipa-pure-const))"), "candidate 7: %r" % (rs[7],))
    check(rs[4][:2] == (78, "optimized") and rs[4][2].endswith(
        "safe: the calls write through arguments that point to different objects (ipa-modref and "
        "GCC's alias oracle))"), "candidate 4: %r" % (rs[4],))
    check(rs[5][:2] == (98, "missed") and rs[5][2].endswith(
        "not parallelized: not proved safe: fill() writes through its argument 1, which may point "
        "into what fill() reaches through its argument 1 (alias oracle); name it with "
        "--deepprof-parallelize=5 to parallelize it anyway"), "candidate 5: %r" % (rs[5],))
    check(rs[6][1] == "missed" and rs[6][2].endswith(
        "not parallelized: another call is made among the candidate's calls (line 92)"),
        "candidate 6: %r" % (rs[6],))
    nm = subprocess.run(["nm", ctx.path("par")], capture_output=True, text=True).stdout
    check("leaves.dp_serial" in nm and "main._omp_fn." in nm and "pair_expr._omp_fn." in nm,
          "the serial copy and the outlined tasks are there")
    want = same_output(ctx, PAR, "2")
    # consent: the halves candidate named by id
    rs = par_remarks(ctx, fb, "--deepprof-parallelize=5,7")
    check(rs[5][1] == "optimized" and rs[5][2].endswith("named by --deepprof-parallelize=5,7)"),
          "candidate 5 named: %r" % (rs[5],))
    check(rs[1][1] == "missed" and rs[1][2].endswith("not named by --deepprof-parallelize"),
          "candidate 1 not named: %r" % (rs[1],))
    for env in ({}, {"OMP_NUM_THREADS": "1"}):
        eq(ctx.run([ctx.path("par")], env=env).stdout, want, "same output named (%r)" % env)
    # the same feedback twice (two runs' files): each candidate made once, one remark each
    r = ctx.run([ctx.cc, "-O2", "--deepprof-use=%s,%s" % (fb, fb), "--deepprof-remarks", PAR, "-o", "two"])
    got = sorted(int(m) for m in re.findall(r"deepprof: candidate (\d+):", r.stderr))
    eq(got, [1, 2, 3, 4, 5, 6, 7], "one remark per candidate with the feedback given twice")
    eq(ctx.run([ctx.path("two")]).stdout, want, "same output with the feedback given twice")
    # -flto: the guards are decided before the objects are written
    ctx.run([ctx.cc, "-O2", "-flto", "--deepprof-use=" + fb, PAR, "-o", "lto"])
    eq(ctx.run([ctx.path("lto")]).stdout, want, "same output with -flto")


def t_refused_shapes(ctx):
    """A candidate whose calls cannot be hoisted stays serial, with the
    reason and its line: one call made under a condition; a call whose
    argument reads what the region assigns; calls the feedback places
    where there are none. (The feedback is s-par.c's, its first
    candidate moved onto those calls.)"""
    fb = par_feedback(ctx)
    with open(fb) as f:
        doc = json.load(f)
    cand = doc["candidates"][0]

    def moved(places, name):
        for call, (line, col) in zip(cand["calls"], places):
            call["at"]["line"], call["at"]["col"] = line, col
        path = ctx.path(name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return par_remarks(ctx, path)[1]

    r = moved([(87, 7), (88, 6)], "cond.json")
    check(r[1] == "missed" and r[2].endswith("not parallelized: a call is made only under a condition "
                                             "(line 87)"), "under a condition: %r" % (r,))
    r = moved([(57, 20), (200, 3)], "none.json")
    check(r[1] == "missed" and r[2].endswith("its calls are not found where the feedback places them"),
          "misplaced: %r" % (r,))
    ctx.run(["gcc", "-O2", PAR, "-o", "serial"])
    eq(ctx.run([ctx.path("par")]).stdout, ctx.run([ctx.path("serial")]).stdout,
       "the refusing build prints the same")


def profiled_parallel(ctx, fb, ids, src):
    """src built with feedback fb, candidates ids named, instrumented
    (--deepprof-instrument), run on 2 threads: checks it prints what the
    serial build prints; (its dump --json, {(caller, callee, css kind):
    calls})."""
    ctx.run([ctx.cc, "-O2", "-g", "--deepprof-use=" + fb, "--deepprof-instrument",
             "--deepprof-parallelize=" + ids, src, "-o", "inst"])
    os.unlink(ctx.path("Deep.data"))
    out = ctx.run([ctx.path("inst")], env={"OMP_NUM_THREADS": "2"}).stdout
    ctx.run(["gcc", "-O2", src, "-o", "serial"])
    eq(out, ctx.run([ctx.path("serial")]).stdout, "the instrumented parallel build prints the same")
    d = json.loads(ctx.run([ctx.dp, "dump", "--json", "Deep.data"]).stdout)
    kind = {c["id"]: c["kind"] for c in d["css"]}
    calls = {}
    for c in d["csd"]:
        key = (c["caller"], c["callee"], kind[c["css"]])
        calls[key] = calls.get(key, 0) + c["calls"]
    return d, calls


def t_profile_parallel(ctx):
    """A parallelized build profiled (--deepprof-instrument, candidates
    named, as instrumentation hides their effects from GCC): the same
    output, and the profile shows the divide-and-conquer structure exactly:
    31 spawned tasks (depths 0..4 below cut-off 5 spawn one each), the
    serial copy called 64 times at depth 5, two threads."""
    fb = par_feedback(ctx)
    with open(fb) as f:
        doc = json.load(f)
    cut = [r["cutoff_depth"] for r in doc["recursion"] if r["at"]["fn"] == "leaves"]
    eq(cut, [5], "leaves' cut-off")
    d, calls = profiled_parallel(ctx, fb, "7", PAR)
    serial = sum(v for (f, n, k), v in calls.items() if n == "leaves.dp_serial" and f != n)
    task = sum(v for (f, n, k), v in calls.items() if n.startswith("leaves._omp_fn") and k == "task")
    eq((serial, task), (64, 31), "(calls of leaves.dp_serial, task runs of leaves' tasks)")
    eq(len(d["threads"]), 2, "threads in the profile")
    # unnamed: the hooks hide the callees from GCC, so deepprof reads their source
    r = ctx.run([ctx.cc, "-O2", "--deepprof-use=" + fb, "--deepprof-instrument", "--deepprof-remarks",
                 "-c", PAR, "-o", "inst.o"])
    rs = {int(m.group(1)): m.group(2) for m in
          re.finditer(r"deepprof: candidate (\d+): (.*)", r.stderr)}
    check(rs.get(1, "").endswith("safe: work() stores nothing but its own locals (deepprof's "
                                 "reading of the source: GCC's analyses cannot be used here))"),
          "instrumented, candidate 1: %r" % rs.get(1))
    check(rs.get(4, "").endswith(
        "not proved safe: fill() stores to memory that is not its own locals' (in an instrumented "
        "build the hooks hide the callees from GCC's analyses: the uninstrumented use build says "
        "what they prove; name it with --deepprof-parallelize=4)"), "instrumented, candidate 4: %r"
        % rs.get(4))


FUT = os.path.join(HERE, "s-future.c")


def t_futures(ctx):
    """Dependent calls that overlap (s-future.c): produce() stores v a
    tenth of the way through, consume() needs it at the end: a future, and
    the same output with any number of threads; a producer storing twice
    and a consumer assigning its parameter stay serial, saying why."""
    ctx.run([ctx.cc, "-O2", "-g", FUT, "-o", "prof"])
    ctx.run([ctx.path("prof")])
    ctx.run([ctx.dp, "feedback", "Deep.data", "-o", "fb.json"])
    r = ctx.run([ctx.cc, "-O2", "-g", "--deepprof-use=fb.json", "-fopt-info", FUT, "-o", "par"])
    rs = {}
    for l in remarks(r.stderr):
        m = re.search(r":(\d+):\d+: (optimized|missed): deepprof: candidate \d+: (.*)$", l)
        if m:
            rs[int(m.group(1))] = (m.group(2), m.group(3))
    check(rs.get(63, ("", ""))[0] == "optimized" and rs[63][1].startswith(
        "produce() and consume() run as 2 parallel tasks, consume() waiting for v where it uses it "
        "(a future)") and rs[63][1].endswith(
        "safe: produce() writes only v, consume() is const (GCC's ipa-pure-const and ipa-modref))"),
        "the future: %r" % (rs.get(63),))
    r = ctx.run([ctx.cc, "-O2", "-g", "--deepprof-use=fb.json", "-fopt-info-missed", FUT, "-o", "par"])
    rs = {}
    for l in remarks(r.stderr):
        m = re.search(r":(\d+):\d+: missed: deepprof: candidate \d+: (.*)$", l)
        if m:
            rs[int(m.group(1))] = m.group(2)
    check(rs.get(72, "").endswith("but no future is made: the producer stores the variable more than "
                                   "once"), "stored twice: %r" % rs.get(72))
    check(rs.get(81, "").endswith("but no future is made: the consumer assigns its parameter or takes "
                                   "its address"), "assigned: %r" % rs.get(81))
    nm = subprocess.run(["nm", ctx.path("par")], capture_output=True, text=True).stdout
    check("produce.dp_future" in nm and "consume.dp_future" in nm, "the future's copies are there")
    ctx.run(["gcc", "-O2", FUT, "-o", "serial"])
    want = ctx.run([ctx.path("serial")]).stdout
    for env in ({}, {"OMP_NUM_THREADS": "1"}, {"OMP_NUM_THREADS": "2"}, {"OMP_NUM_THREADS": "4"}):
        eq(ctx.run([ctx.path("par")], env=env).stdout, want, "same output (%r)" % env)


def t_thread_local(ctx):
    """s-tls.c: pure calls that read a thread-local variable stay serial
    (a task elsewhere would read another thread's), with the reason; named
    by id they are the user's consent."""
    src = os.path.join(HERE, "s-tls.c")
    fb = ctx.feedback(src=src)
    r = ctx.run([ctx.cc, "-O2", "--deepprof-use=" + fb, "--deepprof-remarks", src, "-o", "par"])
    rs = [l for l in remarks(r.stderr) if "candidate 1:" in l]
    check(len(rs) == 1 and ":21:" in rs[0] and rs[0].endswith(
        "not parallelized: not proved safe: mix() reads thread-local state (salt), which a task on "
        "another thread would see differently; name it with --deepprof-parallelize=1 to "
        "parallelize it anyway"), "the remark: %r" % rs)
    ctx.run(["gcc", "-O2", src, "-o", "serial"])
    eq(ctx.run([ctx.path("par")]).stdout, ctx.run([ctx.path("serial")]).stdout, "same output")


ACC = os.path.join(HERE, "..", "..", "bench", "accuracy")


def t_accuracy_programs(ctx):
    """Every program of bench/accuracy (small scale), profiled, given its
    feedback, rebuilt with the plugin's parallel code for its candidates
    (named by id, so that each is generated however it is proved), prints
    what its serial build prints with 1, 2 and 3 threads; and the shapes
    the plugin gives each: tasks, divide and conquer, a future, serial."""
    want_kind = {"indep2": "tasks", "unbal3": "tasks", "overlap": "future", "msort": "depth",
                 "fib": "depth", "nooverlap": None, "cheap": None}
    for name, kind in sorted(want_kind.items()):
        src = os.path.join(ACC, name + ".c")
        ctx.run([ctx.cc, "-O2", "-g", "-I" + ACC, src, "-o", name + ".prof", "-lm"])
        ctx.run([ctx.path(name + ".prof"), "0.05"], env={"DEEPPROF_FILE": name + ".data"})
        ctx.run([ctx.dp, "feedback", name + ".data", "-o", name + ".fb.json"])
        with open(ctx.path(name + ".fb.json")) as f:
            ids = [c["id"] for c in json.load(f)["candidates"] if c["verdict"] == "accepted"]
        par = ["--deepprof-parallelize=" + ",".join(map(str, ids))] if ids else []
        r = ctx.run([ctx.cc, "-O2", "-I" + ACC, "--deepprof-use=" + name + ".fb.json",
                     "--deepprof-remarks", src, "-o", name + ".par", "-lm"] + par)
        made = [l for l in remarks(r.stderr) if "optimized: deepprof: candidate" in l]
        got = None
        if made:
            got = "future" if "(a future)" in made[0] else \
                  "depth" if "down to recursion depth" in made[0] else "tasks"
        eq(got, kind, "%s: the parallel code made (%r)" % (name, made))
        ctx.run(["gcc", "-O2", "-I" + ACC, src, "-o", name + ".serial", "-lm"])
        want = ctx.run([ctx.path(name + ".serial"), "0.05"]).stdout
        for threads in ("1", "2", "3"):
            eq(ctx.run([ctx.path(name + ".par"), "0.05"], env={"OMP_NUM_THREADS": threads}).stdout,
               want, "%s with %s threads prints what its serial build prints" % (name, threads))


def t_hot_context(ctx):
    """s-ctx.c: f() costs 5M steps a call from g() and 10 from h(), so it is
    hot in one context only: that call gets a copy, f.dp_hot, placed in
    .text.hot, while h()'s calls keep f() in .text (readelf); a flat view
    (f's mean over all calls) would call f cheap. Same output."""
    src = os.path.join(HERE, "s-ctx.c")
    fb = ctx.feedback(src=src)
    r = ctx.run([ctx.cc, "-O2", "-fno-inline", "--deepprof-use=" + fb, "-fopt-info", "-c", src, "-o",
                 "use.o"])
    rs = [l for l in remarks(r.stderr) if "hot in this context only" in l]
    check(len(rs) == 1 and ":22:8: optimized: deepprof: hot in this context only: f() costs 5e+06 "
          "cscs a call here (4 calls) and is not hot elsewhere: this call uses a copy, f.dp_hot(), "
          "placed in .text.hot; its other calls keep f()" in rs[0], "the remark: %r" % rs)
    s = sections(ctx.path("use.o"))
    hot = [n for n in s if n.startswith("f.dp_hot")]
    plain = [n for n in s if n == "f" or (n.startswith("f.") and not n.startswith("f.dp_hot"))]
    check(len(hot) == 1 and s[hot[0]] == ".text.hot", "the copy's section: %r" % s)
    check(len(plain) == 1 and s[plain[0]] == ".text", "f's own section: %r" % s)
    ctx.run([ctx.cc, "-O2", "--deepprof-use=" + fb, src, "-o", "use"])
    ctx.run(["gcc", "-O2", src, "-o", "plain"])
    eq(ctx.run([ctx.path("use")]).stdout, ctx.run([ctx.path("plain")]).stdout, "same output")


LOOP = os.path.join(HERE, "s-loop.c")


def loop_feedback(ctx):
    """s-loop.c profiled at -O2 and its feedback: the path, with the loop
    candidates checked exactly (ids, call and loop lines, iterations per
    execution, the recursion's cut-off, verdicts)."""
    ctx.run([ctx.cc, "-O2", "-g", LOOP, "-o", "prof"])
    # no clock ticks: tree's branching is then the assumed 4 on any machine
    # (with them it is measured, from the recursion's depth at the ticks)
    ctx.run([ctx.path("prof")], env={"DEEPPROF_HZ": "0"})
    ctx.run([ctx.dp, "feedback", "Deep.data", "-o", "fb.json"])
    with open(ctx.path("fb.json")) as f:
        doc = json.load(f)
    got = {c["id"]: (c["proc"]["fn"], c["calls"][0]["at"]["line"], c["calls"][0]["callee"],
                     c.get("loop"), c["executions"], c["verdict"])
           for c in doc["candidates"] if c.get("loop")}
    eight = lambda line: {"line": line, "iterations": 8.0, "cutoff": 0}  # noqa: E731
    eq(got, {1: ("tree", 42, "tree", {"line": 41, "iterations": 4.0, "cutoff": 3}, 1, "accepted"),
             3: ("sum_loop", 31, "work", eight(30), 1, "accepted"),
             4: ("stores", 60, "work", eight(59), 1, "accepted"),
             5: ("peek", 71, "work", eight(70), 1, "accepted"),
             6: ("early", 85, "work", eight(82), 1, "accepted"),
             7: ("own_team", 96, "work", eight(95), 1, "accepted"),
             # a loop's line is its header's, the do-while's condition
             # (the inline path split that header at the call before)
             8: ("narrow_loop", 122, "work", eight(123), 1, "accepted"),
             9: ("minus_loop", 109, "work", {"line": 108, "iterations": 6.0, "cutoff": 0}, 1,
                 "accepted"),
             10: ("chain", 51, "work", eight(50), 1, "dependent")}, "s-loop.c's loop candidates")
    return ctx.path("fb.json"), doc


def t_loops(ctx):
    """Loops of calls (s-loop.c): the feedback's loop candidates (a call
    per iteration: 8 iterations each; nqueens' recursive shape with its
    cut-off; an iteration that needs the last one's result is dependent),
    the text and --explain, and the use build: the sum (in for, while
    with break and do-while loops; a difference; a narrower type) and the
    recursive loop become a task per iteration, proved const by GCC; a store, a sum
    read in the loop and a return in the loop are refused with their
    reasons; the same output with 1, 2 and 5 threads and on another
    input."""
    fb, doc = loop_feedback(ctx)
    r = ctx.run([ctx.dp, "feedback", "Deep.data", "-o", "again.json"])
    check("  #3 in sum_loop (s-loop.c:26): run work() (line 31) as a task per iteration of the loop "
          "at line 30: the loop 1.99x faster" in r.stdout, "the text's loop line: %r" % r.stdout)
    check("  #1 in tree (s-loop.c:35): run tree() (line 42) as a task per iteration of the loop at "
          "line 41 down to recursion depth 3:" in r.stdout, "the recursive loop's line: %r" % r.stdout)
    r = ctx.run([ctx.dp, "feedback", "Deep.data", "--explain=1"])
    check("Recursion: the call is recursive; tasks are spawned down to depth 3, below which the "
          "calls run serially." in r.stdout and "Partition:" not in r.stdout,
          "--explain of the recursive loop: %r" % r.stdout)
    chain = [c for c in doc["candidates"] if c["id"] == 10][0]
    eq(chain["verdict_why"], "each iteration's call needs x, an earlier iteration's result: the "
       "iterations run in order", "chain's verdict")
    rs = par_remarks(ctx, fb, src=LOOP)
    eq(rs[3], (31, "optimized", "work() in the loop at line 30 run as a task per iteration (predicted "
               "1.99x on this loop, 1.01x on the program; safe: work() is const (GCC's "
               "ipa-pure-const))"), "sum_loop's remark")
    # a difference in a while loop that breaks (6 iterations); a do-while
    # loop's sum in int
    for k, line, loop in ((9, 109, 108), (8, 122, 123)):
        check(rs[k][:2] == (line, "optimized") and rs[k][2].startswith(
            "work() in the loop at line %d run as a task per iteration" % loop),
            "candidate %d: %r" % (k, rs[k]))
    check(rs[1][:2] == (42, "optimized") and rs[1][2].startswith(
        "tree() in the loop at line 41 run as a task per iteration down to recursion depth 3, "
        "serially below (predicted ") and rs[1][2].endswith("safe: tree() is const (GCC's ipa-pure-const))"),
        "tree's remark: %r" % (rs[1],))
    why = {4: "its statement is not `f(...);`, `v += f(...);` or `v -= f(...);` with v an integer "
              "local variable",
           5: "the sum is used elsewhere in the loop (line 70)",
           6: "the loop can return: later iterations' tasks would still run (line 84)",
           7: "the function has OpenMP code of its own, which the team made for the loop would nest",
           10: "each iteration's call needs x, an earlier iteration's result: the iterations run in order"}
    for k, w in why.items():
        check(rs[k][1] == "missed" and rs[k][2].endswith("not parallelized: " + w),
              "candidate %d refused: %r" % (k, rs[k]))
    nm = subprocess.run(["nm", ctx.path("par")], capture_output=True, text=True).stdout
    check("tree.dp_serial" in nm and "tree._omp_fn." in nm and "sum_loop._omp_fn." in nm,
          "the serial copy and the outlined tasks are there")
    want = same_output(ctx, LOOP, "3")
    # at -O0 GCC's analyses do not run: deepprof reads the callees' source
    r = ctx.run([ctx.cc, "-O0", "--deepprof-use=" + fb, "--deepprof-remarks", LOOP, "-o", "o0"])
    check(re.search(r"candidate 3: work\(\) in the loop at line 30 run as a task per iteration .*safe: "
                    r"work\(\) stores nothing but its own locals", r.stderr) is not None,
          "-O0: %r" % r.stderr)
    eq(ctx.run([ctx.path("o0")], env={"OMP_NUM_THREADS": "2"}).stdout, want, "same output at -O0")


def t_loop_profile(ctx):
    """A loop-parallel build profiled (--deepprof-instrument, the
    candidates named): the same output, and the profile shows the tasks
    exactly: tree(4, 4) with cut-off 3 spawns its calls at depths 0..2
    (4 + 16 + 64 = 84 task runs) and calls tree.dp_serial 64 x 4 = 256
    times at depth 3; sum_loop's 8 iterations are 8 task runs; each
    function makes its team once (2 threads)."""
    fb, _ = loop_feedback(ctx)
    d, calls = profiled_parallel(ctx, fb, "1,3", LOOP)
    calls = {(f, n.split("._omp_fn")[0] + ("._omp_fn" if "._omp_fn" in n else ""), k): v
             for (f, n, k), v in calls.items()}
    eq((calls.get(("tree", "tree._omp_fn", "task")), calls.get(("tree", "tree.dp_serial", "normal")),
        calls.get(("tree", "tree._omp_fn", "parallel")), calls.get(("sum_loop", "sum_loop._omp_fn", "task")),
        calls.get(("sum_loop", "sum_loop._omp_fn", "parallel"))), (84, 256, 2, 8, 2),
       "(tree's task runs, tree.dp_serial calls, tree's team, sum_loop's task runs, its team)")
    eq(len(d["threads"]), 2, "threads in the profile")


def t_loop_file(ctx):
    """A loop candidate's entry in the feedback file: MessagePack carries
    it the same, and a bad one (not an object, line 0, a cut-off past 64,
    two calls) is refused with one line naming where, never an ICE; so is
    a bad `nested` in a recursion entry."""
    fb, doc = loop_feedback(ctx)
    ctx.run([ctx.dp, "feedback", "Deep.data", "-o", "fb.msgpack"])
    back = json.loads(ctx.run([ctx.dp, "feedback", "--to-json", "fb.msgpack"]).stdout)
    eq([c.get("loop") for c in back["candidates"]], [c.get("loop") for c in doc["candidates"]],
       "the loop entries through MessagePack")
    i = [c["id"] for c in doc["candidates"]].index(3)

    def bad(name, change, what):
        d = json.loads(json.dumps(doc))
        change(d["candidates"][i])
        with open(ctx.path(name), "w") as f:
            json.dump(d, f)
        r = ctx.run([ctx.cc, "-O2", "--deepprof-use=" + name, "-c", LOOP, "-o", "bad.o"], rc=None)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        check(r.returncode != 0 and len(lines) == 1 and name in lines[0] and what in lines[0] and
              "internal compiler error" not in r.stderr, "%s: one line with %r: %r" % (name, what, lines))

    bad("notobj.json", lambda c: c.update(loop=[30]), "candidates[%d].loop: not an object" % i)
    bad("line0.json", lambda c: c["loop"].update(line=0), "candidates[%d].loop.line: 0 (lines start at 1)" % i)
    bad("cut.json", lambda c: c["loop"].update(cutoff=65), "candidates[%d].loop.cutoff: 65 out of range" % i)
    bad("two.json", lambda c: c.update(calls=c["calls"] * 2),
        "candidates[%d].loop: a loop candidate has one call, not 2" % i)
    # a recursion entry's "nested" (a merge within a sort's levels)
    d = json.loads(json.dumps(doc))
    for name, nested, what in (("nest1.json", [1], "recursion[0].nested: not an object"),
                               ("nest2.json", {"clique": 0, "levels": 3.0},
                                "recursion[0].nested: clique must be at least 1 and levels at least 1"),
                               ("nest3.json", {"clique": 2}, "recursion[0].nested.levels: missing")):
        d["recursion"][0]["nested"] = nested
        with open(ctx.path(name), "w") as f:
            json.dump(d, f)
        r = ctx.run([ctx.cc, "-O2", "--deepprof-use=" + name, "-c", LOOP, "-o", "bad.o"], rc=None)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        check(r.returncode != 0 and len(lines) == 1 and name in lines[0] and what in lines[0] and
              "internal compiler error" not in r.stderr, "%s: one line with %r: %r" % (name, what, lines))


TESTS = [("t001_remarks_placement", t_remarks_placement),
         ("t002_uninstrumented_same_output", t_uninstrumented_same_output),
         ("t003_msgpack_remarks_only", t_msgpack_and_remarks_only),
         ("t004_opt_record", t_opt_record),
         ("t005_stale", t_stale),
         ("t006_deps_and_make", t_deps_and_make),
         ("t007_bad_files", t_bad_files),
         ("t008_candidates", t_candidates),
         ("t009_parallel_shapes", t_parallel_shapes),
         ("t010_refused_shapes", t_refused_shapes),
         ("t011_profile_parallel", t_profile_parallel),
         ("t012_futures", t_futures),
         ("t013_thread_local", t_thread_local),
         ("t014_accuracy_programs", t_accuracy_programs),
         ("t015_hot_context", t_hot_context),
         ("t016_loops", t_loops),
         ("t017_loop_file", t_loop_file),
         ("t018_loop_profile", t_loop_profile)]


def main():
    return dptest.build_suite_main("use", [(name, lambda a, name, fn=fn: fn(Ctx(a, name)))
                                           for name, fn in TESTS])


if __name__ == "__main__":
    sys.exit(main())
