#!/usr/bin/python3
"""tests/reports/run.py — the reports suite (make check-reports).

Builds the example programs of the libprof issue (tests/e2e/s-*.c) and
tests/reports/r-shapes.c with -finstrument-functions and libprof.a, runs
them, and checks `deepprof report` on their profiles: every report, exact
numbers from --json (each document validated against
schemas/report.schema.json), exact text for some, and bad input for every
report (exit 2, one line on stderr naming the file or the option, nothing on
stdout, no crash). Last line: "reports: N passed, N failed".

usage: run.py --build BUILD [--cc CC] [--cflags FLAGS] [TEST...]
Part of deepprof's tests. MIT licence.
"""
import json
import math
import os
import shlex
import shutil
import subprocess
import sys

import jsonschema

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import dptest  # noqa: E402  (tests/lib: the runner loop and tally)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
E2E = os.path.join(ROOT, "tests", "e2e")


Fail, eq, check = dptest.Fail, dptest.eq, dptest.check


def close(actual, expected, what, rel=1e-8):
    if not math.isclose(actual, expected, rel_tol=rel, abs_tol=1e-12):
        raise Fail("%s: expected %r, got %r" % (what, expected, actual))



class Suite:
    def __init__(self, a):
        self.a = a
        self.build = os.path.abspath(a.build)
        self.bin = os.path.join(self.build, "bin")
        self.dp = os.path.join(self.bin, "deepprof")
        self.work = os.path.join(self.build, "tests", "reports")
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        with open(os.path.join(ROOT, "schemas", "report.schema.json")) as f:
            schema = json.load(f)
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        self.validator = cls(schema)
        self.profiles = {}
        self.validated = 0

    # ---- programs and profiles ----

    def profile(self, name, srcs, args=()):
        """Build srcs into <work>/<name>/prog, run it there with args;
        returns the path of its Deep.data (cached by name)."""
        if name in self.profiles:
            return self.profiles[name]
        d = os.path.join(self.work, name)
        os.makedirs(d, exist_ok=True)
        exe = os.path.join(d, "prog")
        lib = os.path.join(self.build, "lib")
        cmd = [self.a.cc, "-std=gnu11", "-O0", "-g", "-finstrument-functions", "-pthread",
               "-I" + os.path.join(self.build, "include")] + shlex.split(self.a.cflags)
        cmd += srcs + ["-o", exe, os.path.join(lib, "libprof.a"), "-lpthread"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            raise Fail("build of %s failed: %s" % (name, r.stderr.strip()[-600:]))
        env = dict(os.environ)
        for k in ("DEEPPROF_FILE", "DEEPPROF_HZ"):
            env.pop(k, None)
        r = subprocess.run([exe] + list(args), cwd=d, env=env, capture_output=True, text=True,
                           timeout=120)
        if r.returncode:
            raise Fail("%s exited %d: %s" % (name, r.returncode, r.stderr.strip()[-400:]))
        path = os.path.join(d, "Deep.data")
        check(os.path.exists(path), "%s wrote no Deep.data" % name)
        self.profiles[name] = path
        self.stdout_of = getattr(self, "stdout_of", {})
        self.stdout_of[name] = r.stdout
        return path

    def e2e(self, name, args=()):
        return self.profile(name, [os.path.join(E2E, name + ".c")], args)

    def shapes(self):
        return self.profile("r-shapes", [os.path.join(HERE, "r-shapes.c"),
                                         os.path.join(HERE, "r-other.c")])

    def gen(self, name, *opts):
        path = os.path.join(self.work, name + ".data")
        r = subprocess.run([os.path.join(self.bin, "dp-gen")] + list(opts) + ["--stats", "-o", path],
                           capture_output=True, text=True)
        if r.returncode:
            raise Fail("dp-gen %s: %s" % (" ".join(opts), r.stderr.strip()))
        return path, r.stdout

    # ---- running deepprof ----

    def run(self, args):
        r = subprocess.run([self.dp, "report"] + list(args), capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=120)
        bad = crashed(r)
        if bad:
            raise Fail("deepprof report %s: %s" % (" ".join(args), bad))
        return r

    def json(self, *args):
        """deepprof report ARGS --json, checked: exit 0, valid against the schema."""
        r = self.run(list(args) + ["--json"])
        if r.returncode:
            raise Fail("deepprof report %s --json: exit %d: %s"
                       % (" ".join(args), r.returncode, r.stderr.strip()))
        try:
            doc = json.loads(r.stdout)
        except ValueError as e:
            raise Fail("deepprof report %s --json: not JSON: %s" % (" ".join(args), e))
        errs = sorted(self.validator.iter_errors(doc), key=lambda e: list(e.path))
        if errs:
            raise Fail("deepprof report %s --json: schema: %s at %s"
                       % (" ".join(args), errs[0].message[:300], list(errs[0].path)))
        self.validated += 1
        return doc

    def text(self, *args):
        r = self.run(list(args))
        if r.returncode:
            raise Fail("deepprof report %s: exit %d: %s"
                       % (" ".join(args), r.returncode, r.stderr.strip()))
        check(r.stdout.endswith("\n"), "text output ends with a newline")
        return r.stdout


def crashed(r):
    if r.returncode < 0 or r.returncode >= 128:
        return "killed or crashed (status %d)" % r.returncode
    if "Sanitizer" in r.stderr or "runtime error:" in r.stderr:
        return "sanitizer report: " + r.stderr.strip().splitlines()[0]
    return None


def by(rows, key="name"):
    """rows as a dict key -> row (fails on duplicates)."""
    out = {}
    for w in rows:
        check(w[key] not in out, "duplicate row %r" % w[key])
        out[w[key]] = w
    return out


def body(text):
    """Text output without its first three lines (title, file paths, tick)."""
    return text.split("\n", 3)[3]


# ================================================================
# Tests on the libprof issue's example programs
# ================================================================

def t_straight(s):
    """main -> a -> {b -> c, c}, main -> b -> c."""
    p = s.e2e("s-straight")
    d = s.json(p)
    sm = d["summary"]
    eq((sm["calls"], sm["cscs"], sm["threads"]), (7, 7, 1), "calls, cscs, threads")
    eq((sm["procedures"], sm["contexts"], sm["call_site_contexts"]), (5, 8, 7), "ps, pd, csd")
    eq((sm["cliques"], sm["recursive_cliques"]), (8, 0), "cliques")
    eq(sm["clock"], "calls", "clock")
    eq(sm["ticks_ns"], sm["ticks"] * d["ns_per_tick"], "ticks_ns")
    top = by(s.json(p, "top", "--sort=calls")["procedures"])
    eq({k: w["calls"] for k, w in top.items()}, {"main": 1, "a": 1, "b": 2, "c": 3}, "calls")
    eq([w["name"] for w in s.json(p, "top", "--sort=calls")["procedures"]][:2], ["c", "b"],
       "ranking by calls")
    top = by(s.json(p, "top", "--total", "--sort=calls")["procedures"])
    eq({k: w["total_calls"] for k, w in top.items()}, {"main": 7, "a": 4, "b": 4, "c": 3},
       "total calls")
    eq({k: w["contexts"] for k, w in top.items()}, {"main": 1, "a": 1, "b": 2, "c": 3},
       "contexts")
    close(top["main"]["pct"], 100.0, "main's total %")
    pr = s.json(p, "proc", "b")
    eq((pr["procedure"]["calls"], pr["procedure"]["contexts"]), (2, 2), "proc b")
    eq(sorted(w["caller_name"] for w in pr["contexts"]), ["a", "main"], "b's contexts")
    eq(len(pr["call_sites"]), 1, "b's call sites")
    cs = pr["call_sites"][0]
    eq((cs["callee_name"], cs["calls"], cs["contexts"], cs["recursive"]), ("c", 2, 2, False),
       "b's site")
    cl = s.json(p, "callers", "c", "--by=proc")["callers"]
    eq([(w["caller_name"], w["calls"], w["csds"]) for w in cl], [("b", 2, 2), ("a", 1, 1)],
       "callers of c by proc")
    cl = s.json(p, "callers", "c", "--by=site")["callers"]
    eq([(w["caller_name"], w["calls"], w["csds"]) for w in cl], [("b", 2, 2), ("a", 1, 1)],
       "callers of c by site")
    site = cl[0]["css"]
    st = s.json(p, "site", str(site))
    eq((st["site"]["caller_name"], st["site"]["calls"], st["site"]["contexts"]), ("b", 2, 2),
       "site b -> c")
    eq([(w["callee_name"], w["calls"], w["contexts"]) for w in st["callees"]], [("c", 2, 2)],
       "callees of site b -> c")
    cl = s.json(p, "callers", "c", "--by=file")["callers"]
    eq([(os.path.basename(w["file"]), w["calls"], w["csds"]) for w in cl],
       [("s-straight.c", 3, 3)], "callers of c by file")
    # the c under b under a: its ancestors are b, a, main
    pr = s.json(p, "proc", "c")
    deepest = None
    for w in pr["contexts"]:
        c = s.json(p, "clique", str(w["clique"]))
        chain = [a["caller_name"] for a in c["ancestors"]]
        if len(chain) == 3:
            deepest = c
            eq(chain, ["b", "a", "main"], "ancestors of c in a -> b -> c")
    check(deepest is not None, "a context of c three calls below main")
    eq((deepest["clique"]["members"], deepest["clique"]["recursion"], deepest["call_sites"],
        deepest["children"]), (1, "none", [], []), "clique of c")
    r = s.json(p, "recursion")
    eq(r["types"], {"none": 7, "simple": 0, "mutual": 0, "divide_and_conquer": 0, "other": 0,
                    "cliques": 7}, "recursion types")
    eq(r["cliques"], [], "recursive cliques")


def t_loops(s):
    """main calls f 10 times, f(i) calls g i times; main calls g 3 times."""
    p = s.e2e("s-loops")
    top = s.json(p, "top", "--sort=calls")["procedures"]
    eq([(w["name"], w["calls"]) for w in top], [("g", 48), ("f", 10), ("main", 1)], "top calls")
    top = by(s.json(p, "top", "--sort=calls", "--total")["procedures"])
    eq((top["f"]["total_calls"], top["main"]["total_calls"]), (55, 59), "total calls")
    pr = s.json(p, "proc", "f")
    eq([(w["callee_name"], w["calls"]) for w in pr["call_sites"]], [("g", 45)], "f's sites")
    cl = s.json(p, "callers", "g", "--by=proc")["callers"]
    eq([(w["caller_name"], w["calls"]) for w in cl], [("f", 45), ("main", 3)], "callers of g")
    pc = s.json(p, "top", "--sort=calls", "--total", "--per-call")["procedures"]
    eq([(w["name"], w["total_cscs_per_call"]) for w in pc],
       [("main", 59.0), ("f", 5.5), ("g", 1.0)], "total cscs per call")


def t_fib(s):
    """fib(20): 21891 calls folded into one clique, two recursive sites."""
    p = s.e2e("s-fib", ["20"])
    pr = s.json(p, "proc", "fib")
    eq((pr["procedure"]["calls"], pr["procedure"]["contexts"]), (21891, 1), "fib")
    eq(pr["procedure"]["self_cscs"], 21891, "fib's own cscs")
    eq([(w["callee_name"], w["calls"], w["recursive"]) for w in pr["call_sites"]],
       [("fib", 10945, True)] * 2, "fib's sites")
    cq = pr["contexts"][0]["clique"]
    c = s.json(p, "clique", str(cq))
    eq((c["clique"]["members"], c["clique"]["recursion"], c["clique"]["calls"]),
       (1, "divide_and_conquer", 1), "fib's clique")
    eq([a["caller_name"] for a in c["ancestors"]], ["main"], "fib's ancestors")
    eq([(w["calls"], w["self_cscs"], w["total_cscs"], w["recursive"], w["callee_clique"])
        for w in c["call_sites"]], [(10945, 10945, 10945, True, cq)] * 2, "fib's csds")
    eq(c["children"], [], "fib's child cliques")
    r = s.json(p, "recursion")
    eq(r["types"]["divide_and_conquer"], 1, "one divide-and-conquer clique")
    w = r["cliques"][0]
    eq((w["type"], w["entry_calls"], w["internal_calls"], w["recursive_sites"], w["name"]),
       ("divide_and_conquer", 1, 21890, 2, "fib"), "fib's recursion")
    close(w["calls_per_entry"], 21891.0, "calls per entry")
    close(w["depth"], math.log2(21892.0), "estimated depth")
    close(w["own_per_call"], 1.0, "cscs per call")
    close(w["per_level"], 21891.0 / math.log2(21892.0), "cscs per level")
    cl = s.json(p, "callers", "fib", "--by=clique")["callers"]
    eq(sorted((w["caller_name"], w["calls"], w["recursive"]) for w in cl),
       [("fib", 21890, True), ("main", 1, False)], "callers of fib by clique")


def t_mutual(s):
    """is_even(1001)/is_odd: one mutual clique of two pds."""
    p = s.e2e("s-mutual", ["1001"])
    r = s.json(p, "recursion")
    eq(r["types"], {"none": 1, "simple": 0, "mutual": 1, "divide_and_conquer": 0, "other": 0,
                    "cliques": 2}, "types")
    w = r["cliques"][0]
    eq((w["type"], w["members"], w["entry_calls"], w["internal_calls"]), ("mutual", 2, 1, 1001),
       "mutual clique")
    close(w["depth"], 1002.0, "depth")
    c = s.json(p, "clique", str(w["clique"]))
    eq(sorted(m["name"] for m in c["members"]), ["is_even", "is_odd"], "members")
    eq(sorted((x["caller_name"], x["callee_name"], x["calls"]) for x in c["call_sites"]),
       [("is_even", "is_odd", 501), ("is_odd", "is_even", 500)], "call sites")
    eq(c["clique"]["total_cscs"], 1002, "clique total")
    cl = s.json(p, "callers", "is_even", "--by=proc")["callers"]
    eq([(x["caller_name"], x["calls"], x["recursive"]) for x in cl],
       [("is_odd", 500, True), ("main", 1, False)], "callers of is_even")


def t_fnptr(s):
    """One indirect call site with callees f1 x1, f2 x2, f3 x3."""
    p = s.e2e("s-fnptr")
    pr = s.json(p, "proc", "main")
    sites = {w["css"] for w in pr["call_sites"]}
    rows = [(w["callee_name"], w["calls"]) for w in pr["call_sites"]]
    eq(rows, [("f3", 3), ("f2", 2), ("f1", 1)], "main's sites, ranked")
    eq(len(sites), 1, "one site")
    st = s.json(p, "site", str(sites.pop()))
    eq([(w["callee_name"], w["calls"], w["contexts"]) for w in st["callees"]],
       [("f3", 3, 1), ("f2", 2, 1), ("f1", 1, 1)], "callees of the site, ranked")
    eq((st["site"]["calls"], st["site"]["caller_name"], st["site"]["static_callee"]),
       (6, "main", None), "site")
    t = body(s.text(p, "site", str(st["site"]["css"])))
    check("Callees (3)" in t, "text: 'Callees (3)' in %r" % t)
    # cut to the limit like every ranked section, and said so
    lim = s.json(p, "site", str(st["site"]["css"]), "--limit=2")
    eq(([w["callee_name"] for w in lim["callees"]], lim["rows"]["callees"]),
       (["f3", "f2"], {"shown": 2, "total": 3}), "callees cut to --limit=2")
    pl = s.json(p, "proc", "main", "--limit=1")
    eq(([w["callee_name"] for w in pl["call_sites"]], pl["rows"]["call_sites"]),
       (["f3"], {"shown": 1, "total": 3}), "main's sites cut to --limit=1")


def t_qsort(s):
    """qsort calling back cmp: callers of cmp is one callback site in main."""
    p = s.e2e("s-qsort")
    n = int(s.stdout_of["s-qsort"].strip())
    cl = s.json(p, "callers", "cmp")["callers"]
    eq([(w["caller_name"], w["calls"], w["site_kind"]) for w in cl], [("main", n, "callback")],
       "callers of cmp")
    top = by(s.json(p, "top", "--sort=calls")["procedures"])
    eq(top["cmp"]["calls"], n, "cmp calls")


def t_threads(s):
    """4 threads: worker -> work(i) -> unit x 10(i+1); main -> unit x 5."""
    p = s.e2e("s-threads")
    sm = s.json(p)["summary"]
    eq((sm["threads"], sm["calls"]), (5, 1 + 4 + 4 + 105), "threads, calls")
    top = s.json(p, "top", "--sort=calls", "--limit=1")
    eq([(w["name"], w["calls"], w["contexts"]) for w in top["procedures"]], [("unit", 105, 5)],
       "top 1")
    eq(top["rows"]["procedures"], {"shown": 1, "total": 4}, "rows")
    cl = s.json(p, "callers", "unit", "--by=proc")["callers"]
    eq([(w["caller_name"], w["calls"], w["csds"]) for w in cl], [("work", 100, 4), ("main", 5, 1)],
       "callers of unit")
    pr = s.json(p, "proc", "work")
    eq(sorted((w["calls"], w["total_calls"]) for w in pr["contexts"]),
       [(1, 11), (1, 21), (1, 31), (1, 41)], "work's contexts")
    eq(sorted(w["thread"] for w in pr["contexts"]), [2, 3, 4, 5], "one context per thread")
    eq([(w["callee_name"], w["calls"], w["contexts"]) for w in pr["call_sites"]],
       [("unit", 100, 4)], "work's sites")


def t_alloc(s):
    """Allocations per function (s-alloc 50)."""
    p = s.e2e("s-alloc", ["50"])
    top = s.json(p, "top", "--sort=allocs")["procedures"]
    eq([(w["name"], w["self_allocs"]) for w in top[:5]],
       [("churn", 50), ("do_aligned", 4), ("do_malloc", 2), ("do_realloc", 2), ("do_calloc", 1)],
       "top allocs")
    top = s.json(p, "top", "--sort=bytes")["procedures"]
    eq([(w["name"], w["self_bytes"]) for w in top[:3]],
       [("churn", 1275), ("do_aligned", 442), ("do_malloc", 300)], "top bytes")
    m = by(top)["main"]
    eq((m["self_allocs"], m["total_allocs"], m["total_bytes"]),
       (0, 59, 1275 + 442 + 300 + 80 + 80), "main's allocations")
    t = body(s.text(p, "top", "--sort=bytes", "--limit=1"))
    check("1.28 kB" in t or "1.27 kB" in t, "text: bytes in kB: %r" % t)


# ================================================================
# r-shapes: every recursion type, names, ranking options, exact text
# ================================================================

SHAPES_TOP = """
Procedures (12)
   # calls cscs time allocs   bytes %calls procedure    location
   1   177  177    0      0     0 B  50.1% fib          r-shapes.c:24
   2   101  101    0      0     0 B  28.6% down         r-shapes.c:10
   3    31   31    0      0     0 B   8.8% t3           r-shapes.c:12
   4    22   22    0      0     0 B   6.2% leaf         r-shapes.c:26
   5     6    6    0      0     0 B   1.7% is_even      r-shapes.c:22
   6     5    5    0      0     0 B   1.4% is_odd       r-shapes.c:23
   7     4    4    0      0     0 B   1.1% middle       r-shapes.c:28
   8     3    3    0      3 3.00 kB   0.8% grab         r-shapes.c:25
   9     1    1    0      0     0 B   0.3% main         r-shapes.c:35
  10     1    1    0      0     0 B   0.3% helper       r-shapes.c:9
  11     1    1    0      0     0 B   0.3% helper_other r-other.c:4
  12     1    1    0      0     0 B   0.3% helper       r-other.c:3
"""

SHAPES_TYPES = """
Cliques by recursion type (thread roots left out)
  none                 9
  simple               1
  mutual               1
  divide_and_conquer   1
  other                1
  all cliques          13
"""


def t_shapes_top(s):
    p = s.shapes()
    t = body(s.text(p, "top", "--sort=calls"))
    eq(t, SHAPES_TOP, "text of top --sort=calls")
    d = s.json(p, "top", "--sort=calls", "--limit=5%")
    eq([w["name"] for w in d["procedures"]], ["fib", "down", "t3", "leaf"], "--limit=5%")
    eq(d["rows"]["procedures"], {"shown": 4, "total": 12}, "rows with a threshold")
    eq(d["options"]["threshold"], 5.0, "threshold")
    d = s.json(p, "--threshold=28", "top", "--sort=calls")
    eq([w["name"] for w in d["procedures"]], ["fib", "down"], "--threshold=28")
    d = s.json(p, "top", "--sort=calls", "--limit", "3")
    eq([w["name"] for w in d["procedures"]], ["fib", "down", "t3"], "--limit 3")
    t = s.text(p, "top")
    check("Procedures (12 shown)" not in t and "Procedures (12)" in t, "default limit 20")
    d = s.json(p, "top", "--total", "--per-call", "--sort=calls")
    eq([(w["name"], w["total_calls_per_call"]) for w in d["procedures"][:2]],
       [("main", 353.0), ("middle", 6.0)], "per call ranking")
    eq(d["procedures"][0]["total_calls"], 353, "main's total calls")
    d = s.json(p, "top", "--total", "--per-call", "--sort=calls", "--limit=5%")
    eq([w["name"] for w in d["procedures"]], ["main", "middle", "down", "t3", "fib", "leaf"],
       "per call with a threshold on the share (is_even: 3.1%, not kept)")
    r = s.run(["--help"])
    check(r.returncode == 0 and r.stdout.startswith("usage: deepprof report"), "--help")
    d = s.json(p)
    eq((d["summary"]["calls"], d["summary"]["allocs"], d["summary"]["bytes"]), (353, 3, 3000),
       "summary")
    eq(d["summary"]["recursive_cliques"], 4, "recursive cliques")


def t_shapes_recursion(s):
    p = s.shapes()
    t = s.text(p, "recursion")
    check(SHAPES_TYPES in t, "text of the types: %r" % t)
    d = s.json(p, "recursion")
    eq(d["types"], {"none": 9, "simple": 1, "mutual": 1, "divide_and_conquer": 1, "other": 1,
                    "cliques": 13}, "types")
    rows = {w["name"]: w for w in d["cliques"]}
    want = {  # type, members, sites, entry, internal, calls/entry
        "fib": ("divide_and_conquer", 1, 2, 1, 176, 177.0),
        "down": ("simple", 1, 1, 1, 100, 101.0),
        "t3": ("other", 1, 3, 1, 30, 31.0),
        "is_even": ("mutual", 2, 2, 1, 10, 11.0),
    }
    for n, x in want.items():
        w = rows[n]
        eq((w["type"], w["members"], w["recursive_sites"], w["entry_calls"], w["internal_calls"],
            w["calls_per_entry"]), x, "recursion of " + n)
    close(rows["down"]["depth"], 101.0, "down's depth")
    close(rows["down"]["per_level"], 1.0, "down's cscs per level")
    close(rows["fib"]["depth"], math.log2(178.0), "fib's depth")
    close(rows["fib"]["per_level"], 177.0 / math.log2(178.0), "fib's cscs per level")
    eq([w["name"] for w in d["cliques"]], ["fib", "down", "t3", "is_even"], "ranked by cscs")
    d = s.json(p, "recursion", "--limit=2")
    eq(len(d["cliques"]), 2, "recursion --limit=2")


def t_shapes_names(s):
    p = s.shapes()
    d = s.json(p, "proc", "r-other.c:helper")
    eq((d["procedure"]["name"], os.path.basename(d["procedure"]["file"]),
        d["procedure"]["calls"]), ("helper", "r-other.c", 1), "r-other.c:helper")
    eq([w["caller_name"] for w in d["contexts"]], ["helper_other"], "its caller")
    d = s.json(p, "proc", os.path.join(HERE, "r-shapes.c") + ":helper")
    eq(os.path.basename(d["procedure"]["file"]), "r-shapes.c", "full path:helper")
    d = s.json(p, "callers", "r-shapes.c:helper")
    eq([(w["caller_name"], w["calls"]) for w in d["callers"]], [("main", 1)], "callers of helper")
    d = s.json(p, "callers", "leaf")
    eq([(w["caller_name"], w["calls"]) for w in d["callers"]],
       [("middle", 20), ("main", 1), ("main", 1)], "callers of leaf by site")
    eq(d["procedure"]["contexts"], 3, "leaf's contexts")
    d = s.json(p, "callers", "leaf", "--by", "clique")
    eq([(w["caller_name"], w["calls"], w["csds"]) for w in d["callers"]],
       [("middle", 20, 1), ("main", 2, 2)], "callers of leaf by clique")
    d = s.json(p, "proc", "middle")
    cq = d["contexts"][0]["clique"]
    c = s.json(p, "clique", str(cq))
    eq([(w["name"], w["entries"], w["calls"], w["total_cscs"]) for w in c["children"]],
       [("leaf", 1, 20, 20)], "middle's child cliques")
    eq((c["clique"]["calls"], c["clique"]["self_cscs"], c["clique"]["total_cscs"]), (4, 4, 24),
       "middle's clique")


def t_gen_time(s):
    """Time = ticks x ns_per_tick (dp-gen writes 4 ms per tick)."""
    p, stats = s.gen("tree", "--shape=tree", "--csds=200", "--seed=7")
    ticks = int([l for l in stats.split("\n") if "ticks" in l][0].split("ticks")[1].split()[0]
                .strip("=:,"))
    d = s.json(p)
    eq(d["summary"]["ticks"], ticks, "ticks")
    close(d["summary"]["ticks_ns"], ticks * 4e6, "ticks_ns")
    close(d["ns_per_tick"], 4e6, "ns_per_tick")
    top = s.json(p, "top", "--sort=time")["procedures"]
    vals = [w["self_ticks"] for w in top]
    eq(vals, sorted(vals, reverse=True), "ranked by ticks")
    close(top[0]["self_ticks_ns"], top[0]["self_ticks"] * 4e6, "self_ticks_ns")
    t = s.text(p)
    secs = ticks * 4e6 / 1e9
    want = "%.2f s" % secs if secs < 9.995 else "%.1f s" % secs
    check("time (profiled)" in t and want in t, "text time %r in %r" % (want, t))
    check("time = timer ticks x 4.00 ms per tick" in t, "tick length in the text")


def t_gen_sweep(s):
    """Every report, every clique, call site and procedure of small generated
    profiles of each shape: valid JSON, exit 0, totals consistent."""
    for shape in ("chain", "tree", "wide", "recursive", "mutual", "threads"):
        p, _ = s.gen("sweep-" + shape, "--shape=" + shape, "--csds=24", "--seed=3")
        sm = s.json(p)["summary"]
        for k in ("top", "recursion"):
            for mode in ("--self", "--total"):
                s.json(p, k, mode, "--sort=bytes", "--per-call")
        for c in range(1, sm["cliques"] + 1):
            d = s.json(p, "clique", str(c))
            kids = sum(w["calls"] for w in d["children"])
            out = sum(w["calls"] for w in d["call_sites"] if not w["recursive"])
            eq(kids, out, "%s clique %d: calls into child cliques" % (shape, c))
        for css in range(1, sm["call_sites"] + 1):
            d = s.json(p, "site", str(css))
            eq(sum(w["calls"] for w in d["callees"]), d["site"]["calls"],
               "%s site %d: calls of its callees" % (shape, css))
        names = {w["name"] for w in s.json(p, "top", "--limit=0")["procedures"]}
        names.add("<root>")
        for n in sorted(names):
            d = s.json(p, "proc", n)
            eq(sum(w["calls"] for w in d["contexts"]), d["procedure"]["calls"],
               "%s proc %s: calls of its contexts" % (shape, n))
            for g in ("site", "proc", "file", "clique"):
                d = s.json(p, "callers", n, "--by=" + g)
                eq(sum(w["calls"] for w in d["callers"]), d["procedure"]["calls"],
                   "%s callers of %s by %s" % (shape, n, g))


def t_clique_limit(s):
    """A clique's tables are ranked and cut by --limit (issue 3: a clique
    calling 10^6 others built every row). dp-gen's wide shape: main (clique
    2) calls M-1 = 1999 procedures, each its own child clique, through one
    indirect site; chain: the last of main -> f1 -> ... -> f49 has 49
    ancestors."""
    p, _ = s.gen("wide-limit", "--shape=wide", "--csds=2000", "--seed=5")
    full = s.json(p, "clique", "2", "--sort=calls", "--limit=0")
    eq((len(full["call_sites"]), len(full["children"])), (1999, 1999), "all rows with --limit=0")
    for sec in ("call_sites", "children"):
        calls = [w["calls"] for w in full[sec]]
        eq(calls, sorted(calls, reverse=True), sec + " ranked by calls")
    eq(sum(w["calls"] for w in full["children"]), sum(w["calls"] for w in full["call_sites"]),
       "children's calls are the sites' calls")
    eq((full["clique"]["members"], full["clique"]["calls"]), (1, 1), "clique 2 is main: 1 pd, 1 call")
    lim = s.json(p, "clique", "2", "--sort=calls", "--limit=5")
    eq(lim["call_sites"], full["call_sites"][:5], "the 5 busiest call sites")
    eq(lim["children"], full["children"][:5], "the 5 busiest children")
    eq(lim["members"], full["members"], "main's one member")
    eq(lim["clique"], full["clique"], "the clique's own row is never cut")
    # text: the default limit of 20 (rows are the lines starting with a csd id)
    p, _ = s.gen("wide-big", "--shape=wide", "--csds=100000", "--seed=5")
    t = s.text(p, "clique", "2")
    check(len(t.split("\n")) < 120, "text clique of 99999 children is cut: %d lines"
          % len(t.split("\n")))
    check("Call sites (own and inherited costs) (20 of 99999 shown)" in t
          and "Child cliques (20 of 99999 shown)" in t,
          "20 of 99999 call sites and children shown, and the cut said")
    p, _ = s.gen("chain-limit", "--shape=chain", "--csds=50", "--seed=5")
    a = s.json(p, "clique", "51", "--limit=0")["ancestors"]
    eq([w["clique"] for w in a], list(range(50, 1, -1)), "49 ancestors, nearest first")
    a = s.json(p, "clique", "51", "--limit=3")["ancestors"]
    eq([w["clique"] for w in a], [50, 49, 48], "the 3 nearest ancestors")


# ================================================================
# Bad input: every report
# ================================================================

REPORTS = [[], ["summary"], ["top"], ["proc", "main"], ["clique", "1"], ["site", "1"],
           ["callers", "main"], ["recursion"]]


def bad_cases(s):
    """(label, args, file-the-message-must-start-with or None)"""
    p = s.shapes()
    w = s.work
    missing = os.path.join(w, "missing.data")
    empty = os.path.join(w, "empty.data")
    open(empty, "wb").close()
    data = open(p, "rb").read()
    trunc = os.path.join(w, "truncated.data")
    with open(trunc, "wb") as f:
        f.write(data[:len(data) // 2])
    flip = os.path.join(w, "flipped.data")
    b = bytearray(data)
    b[len(b) // 2] ^= 0x40
    with open(flip, "wb") as f:
        f.write(b)
    garbage = os.path.join(w, "garbage.data")
    with open(garbage, "wb") as f:
        f.write(b"hello, this is not a profile\n" * 10)
    cases = []
    for f in (missing, empty, trunc, flip, garbage, w):
        for r in REPORTS:
            for j in ([], ["--json"]):
                cases.append(("%s %s%s" % (os.path.basename(f), " ".join(r) or "(default)",
                                           " --json" if j else ""), [f] + r + j, f))
    for corrupt in ("crc", "no-end", "version", "ref"):
        g, _ = s.gen("bad-" + corrupt, "--shape=recursive", "--csds=20", "--corrupt=" + corrupt)
        for r in REPORTS:
            cases.append(("dp-gen %s %s" % (corrupt, " ".join(r)), [g] + r, g))
    usage = [
        ["--sort=foo", p, "top"], ["--sort", p], [p, "top", "--limit=x"], [p, "top", "--limit=-1"],
        [p, "top", "--limit=101%"], [p, "top", "--threshold=abc"], [p, "top", "--limit"],
        [p, "callers", "leaf", "--by=nothing"], [p, "--frobnicate"], [p, "--self", "--total"],
        [p, "sumary"], [p, "proc"], [p, "callers"], [p, "clique"], [p, "site"],
        [p, "clique", "abc"], [p, "site", "-1"], [p, "site", "1x"], [p, "top", "extra"],
        [p, "proc", "a", "b"], [], ["--json"], [p, "clique", "99999999999"],
    ]
    for u in usage:
        cases.append(("usage: " + " ".join(x if x != p else "FILE" for x in u), u, None))
    lookups = [
        [p, "proc", "nosuchfunction"], [p, "proc", "hepler"], [p, "proc", "helper"],
        [p, "proc", "nofile.c:fib"], [p, "proc", ":fib"], [p, "proc", "r-shapes.c:"],
        [p, "callers", "fbi"], [p, "callers", "helper"], [p, "clique", "0"], [p, "clique", "9999"],
        [p, "site", "0"], [p, "site", "4000000000"],
    ]
    for u in lookups:
        for j in ([], ["--json"]):
            cases.append(("lookup: " + " ".join(u[1:] + j), u + j, p))
    return cases


def run_bad(s, label, args, path):
    r = s.run(args)
    lines = r.stderr.splitlines()
    why = None
    if r.returncode != 2:
        why = "exit %d, not 2 (stderr %r)" % (r.returncode, r.stderr[:300])
    elif len(lines) != 1 or not r.stderr.endswith("\n"):
        why = "%d lines on stderr, not 1: %r" % (len(lines), r.stderr[:400])
    elif path is not None and not lines[0].startswith(path + ": "):
        why = "message does not start with the file name: %r" % lines[0]
    elif path is None and not lines[0].startswith("deepprof report: "):
        why = "usage message does not name the command: %r" % lines[0]
    elif r.stdout:
        why = "output on stdout (%d bytes)" % len(r.stdout)
    if why:
        raise Fail(why)
    return lines[0]


# Exact messages for lookups a user will meet.
MESSAGES = {
    ("proc", "hepler"): "no procedure named 'hepler' (did you mean: helper?)",
    ("proc", "helper"): "'helper' names procedures in several files; say which: "
                        "r-shapes.c:helper, r-other.c:helper",
    ("callers", "fbi"): "no procedure named 'fbi' (did you mean: fib?)",
    ("clique", "9999"): "no clique 9999 (cliques are 1..14)",
    ("site", "0"): "no call site 0 (call sites are 1..",
    ("proc", "nofile.c:fib"): "no procedure 'fib' in file 'nofile.c' (did you mean: fib?)",
}


TESTS = [t_straight, t_loops, t_fib, t_mutual, t_fnptr, t_qsort, t_threads, t_alloc,
         t_shapes_top, t_shapes_recursion, t_shapes_names, t_gen_time, t_gen_sweep,
         t_clique_limit]


def main():
    a, T, s = dptest.suite_start("reports", Suite)
    dptest.run_tests(T, s, TESTS, a.tests, fail=Fail)
    if not a.tests or "bad" in a.tests:
        cases = dptest.setup(T, "bad-input", lambda: bad_cases(s))

        def bad(label, args, path):
            msg = run_bad(s, label, args, path)
            key = tuple(args[1:3]) if len(args) >= 3 else None
            if key in MESSAGES:
                check(MESSAGES[key] in msg, "message %r lacks %r" % (msg, MESSAGES[key]))
        before = T.passed
        dptest.run_each(T, [("bad input: " + c[0], lambda c=c: bad(*c)) for c in cases],
                        fail=Fail, show_ok=False)
        print("ok   %d of %d bad-input cases" % (T.passed - before, len(cases)))
    print("(%d JSON documents validated against schemas/report.schema.json)" % s.validated)
    return T.end()


if __name__ == "__main__":
    sys.exit(main())
