#!/usr/bin/python3
"""run.py — `deepprof export` read by the real tools (make check-exports).

    run.py --build BUILD --work DIR --deepprof BIN --pstotals BIN --gen DP_GEN
           --gen-text GEN_TEXT [--cc CC] [--libs LDLIBS] [--cflags FLAGS]
           [--no-bzip2] [TEST...]

Programs from tests/e2e with known call structure are built -O0
-finstrument-functions with libprof and run; their profiles are exported
and checked: folded stacks exactly and by sums (Debian has no flamegraph.pl:
`apt-cache search flamegraph` finds nothing, so its input grammar is checked
here: "frame;frame;... N", N a positive integer, one line per stack);
callgrind files through callgrind_annotate (totals, self and inclusive
costs per function against pstotals, the ps own/total reference) and
tests/xcheck/callgrind.py (arcs against `deepprof dump --json`); speedscope
files against the JSON schema in speedscope's npm package (`npm pack
speedscope`, cached in the work directory) or, when npm cannot fetch it,
against the same structure written down below; bad inputs; and bzip2 at
-O0 against `valgrind --tool=callgrind`: every arc's calls= must equal
callgrind's. Ends with "exports: N passed, N failed"; exit 1 if any failed.
Part of deepprof's tests. MIT licence.
"""

import argparse
import glob
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
E2E = os.path.join(TOP, "tests", "e2e")
sys.path.insert(0, os.path.join(TOP, "tests", "xcheck"))
sys.path.insert(0, os.path.join(TOP, "tests", "lib"))
import callgrind  # noqa: E402  (tests/xcheck's parser)
import dptest     # noqa: E402  (tests/lib: the runner loop and tally)
import xcheck     # noqa: E402  (its bzip2 build and callgrind run)

MEASURES = ["calls", "cscs", "ticks", "time", "allocs", "bytes"]
SPEEDSCOPE_VERSION = "1.25.0"


Fail, eq, check = dptest.Fail, dptest.eq, dptest.check


def run(cmd, rc=0, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if rc is not None and r.returncode != rc:
        raise Fail("`%s` exited with %d, expected %d: %s"
                   % (" ".join(cmd), r.returncode, rc, r.stderr.strip()[-600:]))
    return r


class Suite:
    def __init__(self, a):
        self.a = a
        self.work = os.path.abspath(a.work)
        self.progs = {}

    # ---- programs and profiles ----

    def build(self, name):
        """tests/e2e/s-<name>.c at -O0 -finstrument-functions with libprof.a."""
        exe = os.path.join(self.work, "bin", name)
        if name in self.progs:
            return exe
        os.makedirs(os.path.dirname(exe), exist_ok=True)
        cmd = [self.a.cc, "-std=gnu11", "-O0", "-g", "-finstrument-functions", "-pthread",
               "-I" + os.path.join(self.a.build, "include")]
        cmd += shlex.split(self.a.cflags)
        cmd += [os.path.join(E2E, "s-%s.c" % name), "-o", exe,
                os.path.join(self.a.build, "lib", "libprof.a")] + shlex.split(self.a.libs)
        run(cmd)
        self.progs[name] = exe
        return exe

    def profile(self, name, args=(), tag=None):
        """Run program `name` in its own directory; the Deep.data path."""
        exe = self.build(name)
        d = os.path.join(self.work, "run", tag or name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        env = dict(os.environ)
        for k in ("DEEPPROF_FILE", "DEEPPROF_HZ"):
            env.pop(k, None)
        run([exe] + list(args), cwd=d, env=env)
        files = glob.glob(os.path.join(d, "Deep.data*"))
        eq(len(files), 1, "%s: Deep.data files written" % d)
        return files[0]

    def dump(self, data):
        return json.loads(run([self.a.deepprof, "dump", "--json", data]).stdout)

    def export(self, data, fmt, measure=None, out=None):
        cmd = [self.a.deepprof, "export", "--format=" + fmt]
        if measure:
            cmd.append("--measure=" + measure)
        cmd.append(data)
        if out:
            cmd += ["-o", out]
        r = run(cmd)
        eq(r.stderr, "", "export %s %s: stderr" % (fmt, data))
        return r.stdout

    def pstotals(self, data):
        return json.loads(run([self.a.pstotals, data]).stdout)


def totals(dump):
    """The profile's total of every export measure, from the header."""
    h = dump["header"]
    # C llround(): halves away from 0 (Python round() goes to even)
    npt = int(math.floor(h["ns_per_tick"] + 0.5)) if h["ns_per_tick"] >= 0.5 else 0
    ticks = h["ticks"] - h["ticks_outside"]
    return {"calls": h["calls"], "cscs": h["cscs"], "ticks": ticks, "time": ticks * npt,
            "allocs": h["allocs"] - h["allocs_outside"],
            "bytes": h["bytes"] - h["bytes_outside"]}


# ---------------------------------------------------------------- folded

FOLDED_LINE = re.compile(r"^([^;\n]+(?:;[^;\n]+)*) ([1-9][0-9]*)$")


def parse_folded(text, what):
    """{stack: weight}; checks flamegraph.pl's grammar, one line per stack."""
    stacks = {}
    check(text == "" or text.endswith("\n"), "%s: output ends with a newline" % what)
    for i, line in enumerate(text.splitlines(), 1):
        m = FOLDED_LINE.match(line)
        check(m is not None, "%s:%d: not 'frame;frame;... N': %r" % (what, i, line[:80]))
        check(m.group(1) not in stacks, "%s:%d: stack %r twice" % (what, i, m.group(1)))
        check(all(f == f.strip() for f in m.group(1).split(";")),
              "%s:%d: a frame with surrounding blanks" % (what, i))
        stacks[m.group(1)] = int(m.group(2))
    return stacks


def check_folded_sums(s, data, dump):
    want = totals(dump)
    for m in MEASURES:
        st = parse_folded(s.export(data, "folded", m), "%s --measure=%s" % (data, m))
        eq(sum(st.values()), want[m], "%s: folded %s weights sum" % (data, m))


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def t_folded_fib(s):
    """fib(15): the recursion folds into one frame; exact lines."""
    data = s.profile("fib", ["15"])
    st = parse_folded(s.export(data, "folded", "calls"), data)
    eq(st, {"main": 1, "main;fib": 1, "main;fib;fib": 2 * fib(16) - 2}, "fib folded by calls")
    check_folded_sums(s, data, s.dump(data))
    # default measure: cscs (= calls with clock "calls")
    eq(parse_folded(s.export(data, "folded"), data), st, "default measure")


def t_folded_mutual(s):
    """is_even(11) / is_odd: the clique {is_even, is_odd} as its members."""
    data = s.profile("mutual", ["11"])
    st = parse_folded(s.export(data, "folded", "calls"), data)
    eq(st, {"main": 1, "main;is_even": 1, "main;is_even;is_odd": 6,
            "main;is_even;is_odd;is_even": 5}, "mutual folded by calls")
    check_folded_sums(s, data, s.dump(data))


def t_folded_threads(s):
    """4 threads: stacks start at their start routine; per thread in speedscope."""
    data = s.profile("threads")
    st = parse_folded(s.export(data, "folded", "calls"), data)
    eq(st, {"main": 1, "main;unit": 5, "worker": 4, "worker;work": 4,
            "worker;work;unit": 100}, "threads folded by calls")
    doc = json.loads(s.export(data, "speedscope", "calls"))
    ends = sorted(p["endValue"] for p in doc["profiles"])
    eq(ends, [6, 12, 22, 32, 42], "speedscope: per-thread totals")
    check_folded_sums(s, data, s.dump(data))


def t_folded_alloc_spin(s):
    """Allocation and tick measures add up to the header's (inside) totals."""
    for name, args in (("alloc", ["50"]), ("spin", ["300"]), ("qsort", [])):
        data = s.profile(name, args)
        dump = s.dump(data)
        check_folded_sums(s, data, dump)
        if name == "spin":
            check(totals(dump)["ticks"] > 0, "spin 300: ticks recorded")
        if name == "alloc":
            check(totals(dump)["bytes"] > 0, "alloc: bytes recorded")


def t_folded_deep_recursion(s):
    """A 200000-csd recursive profile (dp-gen): every stack at most 3 frames."""
    data = os.path.join(s.work, "rec.data")
    run([s.a.gen, "--shape=recursive", "--csds=200000", "--seed=3", "-o", data])
    st = parse_folded(s.export(data, "folded", "bytes"), data)
    check(max(k.count(";") for k in st) == 2, "deepest folded stack has 3 frames")
    eq(sum(st.values()), totals(s.dump(data))["bytes"], "weights sum")


# ---------------------------------------------------------------- callgrind

def annotate(path, inclusive):
    """callgrind_annotate's table: (events, totals, {file:function: [costs]})."""
    cmd = ["callgrind_annotate", "--auto=no", "--threshold=100"]
    if inclusive:
        cmd.append("--inclusive=yes")
    cmd.append(path)
    # run where no source path starts: annotate strips the cwd from file names
    r = run(cmd, cwd="/proc")
    events, tot, fns = None, None, {}
    num = r"(?:[0-9][0-9,]*(?: \([ 0-9.]+%\))?|\.)"
    for line in r.stdout.splitlines():
        if line.startswith("Events recorded:"):
            events = line.split(":", 1)[1].split()
            cost = re.compile(r"^\s*((?:%s\s+){%d})(.*)$" % (num, len(events)))
            continue
        if events is None:
            continue
        m = cost.match(line)
        if not m:
            continue
        vals = [int(v.split(" (")[0].replace(",", "")) if v != "." else 0
                for v in re.findall(num, m.group(1))]
        rest = m.group(2).strip()
        if rest == "PROGRAM TOTALS":
            tot = dict(zip(events, vals))
        elif rest:
            name = re.sub(r" \[[^\]]*\]$", "", rest)
            fns[name] = dict(zip(events, vals))
    check(events is not None, "%s: callgrind_annotate printed no events" % path)
    check(tot is not None, "%s: callgrind_annotate printed no PROGRAM TOTALS" % path)
    return events, tot, fns


def check_callgrind(s, data, first="cscs", known=None):
    """callgrind_annotate shows our totals, our ps own costs and, inclusive,
    our ps totals; xcheck's parser reads every arc with dump's calls."""
    out = os.path.join(s.work, os.path.basename(os.path.dirname(data)) + ".callgrind")
    s.export(data, "callgrind", first, out)
    dump = s.dump(data)
    want = totals(dump)
    ref = s.pstotals(data)
    events, tot, self_ = annotate(out, False)
    eq(events[0], first, "%s: first event" % out)
    eq(sorted(events), sorted(MEASURES), "%s: events" % out)
    eq(tot, want, "%s: callgrind_annotate PROGRAM TOTALS" % out)
    _, tot2, incl = annotate(out, True)
    eq(tot2, want, "%s: PROGRAM TOTALS (inclusive)" % out)
    own, total = {}, {}
    for p in ref["ps"]:
        key = "%s:%s" % (p["file"] or "???", p["name"])
        for d, src in ((own, p["own"]), (total, p["total"])):
            acc = d.setdefault(key, dict.fromkeys(MEASURES, 0))
            for m in MEASURES:
                acc[m] += src[m]
    for key, costs in self_.items():
        eq(costs, own.get(key), "%s: self cost of %s" % (out, key))
    for key, costs in incl.items():
        eq(costs, total.get(key), "%s: inclusive cost of %s (our ps total)" % (out, key))
    shown = {k for k, v in total.items() if any(v.values())}
    eq(shown - set(incl), set(), "%s: procedures with costs missing from the inclusive table"
       % out)
    # arcs, through tests/xcheck/callgrind.py, against the csds
    arcs = {}
    for c in dump["csd"]:
        k = (c["caller"], c["callee"])
        arcs[k] = arcs.get(k, 0) + c["calls"]
    # an arc without calls (ticks in uninstrumented code or in the
    # runtime) is written calls=1: callgrind_annotate would take its cost
    # for the caller's own
    arcs = {k: v or 1 for k, v in arcs.items()}
    eq(callgrind.parse(out).arcs, arcs, "%s: arcs read by xcheck's parser" % out)
    if known:
        for fn, costs in known.items():
            got = {k.split(":")[-1]: v for k, v in incl.items()}.get(fn)
            check(got is not None, "%s: %s in the inclusive table" % (out, fn))
            for m, v in costs.items():
                eq(got[m], v, "%s: inclusive %s of %s" % (out, m, fn))
    return out


def t_callgrind_fib(s):
    """fib(15): inclusive calls of fib = all calls to it, main = everything."""
    data = s.profile("fib", ["15"], tag="cg-fib")
    n = 2 * fib(16) - 1
    check_callgrind(s, data, "calls", {"fib": {"calls": n}, "main": {"calls": n + 1}})


def t_callgrind_mutual(s):
    """is_even/is_odd: each member's inclusive is its own ps total."""
    data = s.profile("mutual", ["11"], tag="cg-mutual")
    check_callgrind(s, data, "cscs", {"is_even": {"calls": 6}, "is_odd": {"calls": 6},
                                      "main": {"calls": 13}})


def t_callgrind_others(s):
    """threads, allocations, ticks, qsort callbacks: every measure first."""
    for i, (name, args) in enumerate((("threads", []), ("alloc", ["50"]),
                                      ("spin", ["300"]), ("qsort", []), ("fnptr", []),
                                      ("longjmp", []))):
        data = s.profile(name, args, tag="cg-" + name)
        check_callgrind(s, data, MEASURES[i % len(MEASURES)])
    # arcs without calls: calls() spends most of its time in libprof's
    # hooks, whose ticks hang from deepprof_runtime (calls 0); the self
    # costs above must not count them for their caller
    data = s.profile("hooks", ["300"], tag="cg-hooks")
    rt = [c for c in s.dump(data)["csd"] if c["callee"] == "deepprof_runtime"]
    check(rt and all(c["calls"] == 0 for c in rt) and sum(c["ticks"] for c in rt) > 0,
          "hooks: the runtime's ticks, on arcs without calls")
    check_callgrind(s, data, "ticks")


# ---------------------------------------------------------------- speedscope

# speedscope's file format as its documentation describes it
# (https://www.speedscope.app/file-format-schema.json, FileFormat.File in
# speedscope's src/lib/file-format-spec.ts), for when npm cannot fetch the
# package's own copy. Only the parts our files use are spelled out fully.
FALLBACK_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["$schema", "profiles", "shared"],
    "properties": {
        "$schema": {"const": "https://www.speedscope.app/file-format-schema.json"},
        "name": {"type": "string"},
        "exporter": {"type": "string"},
        "activeProfileIndex": {"type": "number"},
        "shared": {
            "type": "object", "required": ["frames"],
            "properties": {"frames": {"type": "array", "items": {
                "type": "object", "required": ["name"],
                "properties": {"name": {"type": "string"}, "file": {"type": "string"},
                               "line": {"type": "number"}, "col": {"type": "number"}}}}}},
        "profiles": {"type": "array", "items": {
            "type": "object",
            "required": ["type", "name", "unit", "startValue", "endValue", "samples",
                         "weights"],
            "properties": {
                "type": {"const": "sampled"},
                "name": {"type": "string"},
                "unit": {"enum": ["none", "nanoseconds", "microseconds", "milliseconds",
                                  "seconds", "bytes"]},
                "startValue": {"type": "number"},
                "endValue": {"type": "number"},
                "samples": {"type": "array",
                            "items": {"type": "array", "items": {"type": "number"}}},
                "weights": {"type": "array", "items": {"type": "number"}}}}}},
}


def speedscope_schema(s):
    """(schema, where from): the npm package's file-format-schema.json, else
    the fallback above."""
    d = os.path.join(s.work, "..", "npm")
    path = os.path.join(d, "package", "dist", "release", "file-format-schema.json")
    if not os.path.exists(path) and shutil.which("npm"):
        os.makedirs(d, exist_ok=True)
        try:
            r = subprocess.run(["npm", "pack", "--silent", "speedscope@" + SPEEDSCOPE_VERSION],
                               cwd=d, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            r = None
        tgz = os.path.join(d, "speedscope-%s.tgz" % SPEEDSCOPE_VERSION)
        if r is not None and r.returncode == 0 and os.path.exists(tgz):
            with tarfile.open(tgz) as t:
                member = t.getmember("package/dist/release/file-format-schema.json")
                t.extractall(d, members=[member])
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f), "speedscope %s's file-format-schema.json" % SPEEDSCOPE_VERSION
    return FALLBACK_SCHEMA, "the written-down structure (npm could not fetch speedscope)"


def t_speedscope(s):
    """Files validate against speedscope's schema; samples are the folded
    stacks per thread; weights add up."""
    import jsonschema
    schema, where = speedscope_schema(s)
    print("     speedscope schema: %s" % where)
    for name, args in (("fib", ["12"]), ("threads", []), ("alloc", ["20"]), ("spin", ["200"])):
        data = s.profile(name, args, tag="ss-" + name)
        want = totals(s.dump(data))
        for m in MEASURES:
            text = s.export(data, "speedscope", m)
            doc = json.loads(text)
            try:
                jsonschema.validate(doc, schema)
            except jsonschema.ValidationError as e:
                raise Fail("%s --measure=%s: not a speedscope file: %s"
                           % (data, m, str(e).splitlines()[0]))
            frames = doc["shared"]["frames"]
            merged = {}
            for p in doc["profiles"]:
                eq(p["type"], "sampled", "profile type")
                eq(p["unit"], {"time": "nanoseconds", "bytes": "bytes"}.get(m, "none"), "unit")
                eq(len(p["samples"]), len(p["weights"]), "samples vs weights")
                eq(sum(p["weights"]), p["endValue"], "%s: weights sum to endValue" % p["name"])
                for st, w in zip(p["samples"], p["weights"]):
                    k = ";".join(frames[i]["name"] for i in st)
                    merged[k] = merged.get(k, 0) + w
            eq(sum(merged.values()), want[m], "%s %s: speedscope total" % (data, m))
            eq(merged, parse_folded(s.export(data, "folded", m), data),
               "%s %s: speedscope stacks vs folded" % (data, m))


# ---------------------------------------------------------------- bad inputs

def t_bad_inputs(s):
    """Missing, corrupt and truncated files, bad options, an unwritable -o:
    one line on stderr, exit 2, nothing on stdout, no file left behind."""
    good = s.profile("fib", ["5"], tag="bad-good")
    d = os.path.join(s.work, "bad")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    crc = os.path.join(d, "crc.data")
    run([s.a.gen, "--shape=tree", "--csds=50", "--corrupt=crc", "-o", crc])
    trunc = os.path.join(d, "trunc.data")
    with open(good, "rb") as f:
        blob = f.read()
    with open(trunc, "wb") as f:
        f.write(blob[:len(blob) // 2])
    with open(os.path.join(d, "ro-target"), "w") as f:
        f.write("old\n")
    cases = [
        (["export", os.path.join(d, "missing.data")], "missing.data"),
        (["export", crc], "crc.data"),
        (["export", "--format=callgrind", trunc], "trunc.data"),
        (["export", "--format=pprof", good], "pprof"),
        (["export", "--format", good], None),
        (["export", "--measure=exits", good], "exits"),
        (["export", "-m", "wall", good], "wall"),
        (["export", "--frobnicate", good], "frobnicate"),
        (["export"], "no FILE"),
        (["export", good, good], "more than one FILE"),
        (["export", good, "-o", os.path.join(d, "no", "such", "dir", "out")], "out"),
        (["export", good, "-o", d], "is a directory"),
        (["export", good, "-o", ""], "empty"),
    ]
    for args, needle in cases:
        r = run([s.a.deepprof] + args, rc=None)
        what = "deepprof %s" % " ".join(args)
        eq(r.returncode, 2, what + ": exit status")
        eq(r.stdout, "", what + ": stdout")
        eq(len(r.stderr.splitlines()), 1, what + ": one line on stderr (%r)" % r.stderr)
        if needle:
            check(needle in r.stderr, "%s: %r names %r" % (what, r.stderr.strip(), needle))
        check("Sanitizer" not in r.stderr, what + ": sanitizer report")
    eq(sorted(os.listdir(d)), ["crc.data", "ro-target", "trunc.data"],
       "no temporary files left in %s" % d)
    if os.geteuid() != 0:
        os.chmod(d, 0o555)
        r = run([s.a.deepprof, "export", good, "-o", os.path.join(d, "ro-target")], rc=2)
        os.chmod(d, 0o755)
        with open(os.path.join(d, "ro-target")) as f:
            eq(f.read(), "old\n", "unwritable -o leaves the old file")


def t_output_file(s):
    """-o writes what standard output gets, atomically, replacing OUT."""
    data = s.profile("mutual", ["7"], tag="out")
    d = os.path.join(s.work, "out")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for fmt in ("folded", "callgrind", "speedscope"):
        out = os.path.join(d, fmt)
        with open(out, "w") as f:
            f.write("previous content that is longer than any export of this profile\n" * 400)
        os.chmod(out, 0o600)
        s.export(data, fmt, "calls", out)
        with open(out) as f:
            eq(f.read(), s.export(data, fmt, "calls"), "-o %s equals stdout" % fmt)
        eq(os.stat(out).st_mode & 0o777, 0o666 & ~current_umask(), "mode of a new -o file")
    eq(sorted(os.listdir(d)), ["callgrind", "folded", "speedscope"], "no temporary files")
    r = run([s.a.deepprof, "help", "export"])
    check(r.stdout.startswith("usage: deepprof export"), "help export")


def current_umask():
    m = os.umask(0)
    os.umask(m)
    return m


# ---------------------------------------------------------------- bzip2

def t_bzip2_arcs(s):
    """bzip2 -O0 (tests/xcheck's source and build recipe): every arc's calls=
    in our callgrind export equals callgrind's own count on the same binary
    and input; callgrind_annotate reads our file with our totals."""
    src = os.path.join(s.a.build, "src")
    if not os.path.isdir(os.path.join(src, "bzip2")):
        r = subprocess.run(["sh", os.path.join(TOP, "bench", "fetch-src.sh"), "bzip2", src],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise Fail("cannot get bzip2's source: %s" % r.stderr.strip())
    work = os.path.join(s.work, "bzip2")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    class A:
        cc = s.a.cc
        libprof = os.path.join(s.a.build, "lib", "libprof.a")
        libs = s.a.libs
    objs = xcheck.compile_objs(A, [os.path.join(src, "bzip2", f) for f in xcheck.BZIP2_SOURCES],
                               "-O0", os.path.join(work, "obj"))
    fns = xcheck.functions(objs)
    exe = xcheck.link_libprof(A, objs, os.path.join(work, "bzip2"))
    text = os.path.join(work, "input.txt")
    run([s.a.gen_text, "20240601", str(64 * 1024), text])
    back, steps = xcheck.bzip2_steps(exe, work, text)
    total_arcs = 0
    for name, cmd, inp, outp in steps:
        native = os.path.join(work, "native", name)
        os.makedirs(native)
        with open(inp, "rb") as i, open(outp, "wb") as o:
            r = subprocess.run(cmd, cwd=native, stdin=i, stdout=o, stderr=subprocess.PIPE)
        eq(r.returncode, 0, "bzip2 %s" % name)
        data = glob.glob(os.path.join(native, "Deep.data*"))
        eq(len(data), 1, "%s: one Deep.data" % native)
        ours = os.path.join(work, "ours-%s.callgrind" % name)
        s.export(data[0], "callgrind", "calls", ours)
        cgdir = os.path.join(work, "callgrind", name)
        os.makedirs(cgdir)
        with open(inp, "rb") as i:
            theirs = xcheck.callgrind_arcs(cgdir, cmd, i, subprocess.DEVNULL)
        keys, passed, failed, lines = xcheck.compare(callgrind.parse(ours).arcs, theirs, fns)
        check(len(keys) >= 20, "bzip2 %s: only %d arcs between bzip2's functions"
              % (name, len(keys)))
        if failed:
            raise Fail("bzip2 %s: %d of %d arcs differ from callgrind's: %s"
                       % (name, failed, len(keys), "; ".join(lines[:5])))
        total_arcs += len(keys)
        _, tot, _ = annotate(ours, False)
        eq(tot, totals(s.dump(data[0])), "bzip2 %s: callgrind_annotate totals" % name)
        check_callgrind(s, data[0], "calls")
    with open(text, "rb") as f1, open(back, "rb") as f2:
        check(f1.read() == f2.read(), "bzip2 round trip")
    print("     bzip2: %d arcs, calls= equal to callgrind's" % total_arcs)


TESTS = [t_folded_fib, t_folded_mutual, t_folded_threads, t_folded_alloc_spin,
         t_folded_deep_recursion, t_callgrind_fib, t_callgrind_mutual, t_callgrind_others,
         t_speedscope, t_bad_inputs, t_output_file, t_bzip2_arcs]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--work", required=True)
    ap.add_argument("--deepprof", required=True)
    ap.add_argument("--pstotals", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--gen-text", required=True)
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--libs", default="-lmsgpackc -lz -lpthread -lrt -ldl -lm")
    ap.add_argument("--cflags", default="")
    ap.add_argument("--no-bzip2", action="store_true")
    ap.add_argument("tests", nargs="*")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    for k in ("deepprof", "pstotals", "gen", "gen_text"):
        setattr(a, k, os.path.abspath(getattr(a, k)))
    s = Suite(a)
    shutil.rmtree(s.work, ignore_errors=True)
    os.makedirs(s.work)
    tests = [t for t in TESTS if not a.tests or any(t.__name__.startswith(x) or
                                                    t.__name__ == "t_" + x for x in a.tests)]
    if t_bzip2_arcs in tests and a.no_bzip2:
        print("skip t_bzip2_arcs (SAN=1: callgrind over a UBSan build checks nothing new)")
        tests.remove(t_bzip2_arcs)
    T = dptest.Tally("exports")
    dptest.run_each(T, [(t.__name__, lambda t=t: t(s)) for t in tests], fail=Fail)
    return T.end()


if __name__ == "__main__":
    sys.exit(main())
