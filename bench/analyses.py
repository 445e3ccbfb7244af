"""analyses.py — the analyses benchmark of `make bench` (issue 3): how long
`deepprof report FILE top` (read + startup: cliques, inherited costs + the
top report) takes, and how much memory at peak, on synthetic Deep.data files
of 10^5, 10^6 and 10^7 csds written by tests/gen's dp-gen; and, side by side
on the same profiles, `deepprof export --format=callgrind` followed by
callgrind_annotate on what it wrote. Part of deepprof's bench. MIT licence.

Shapes (tests/gen/gen.h): `tree`, contexts in a 4-ary tree over 16
procedures, the shape of a real program's many contexts of few procedures;
and `wide`, main calling one procedure per csd through one site, where
every csd is its own procedure, so the callgrind export has one function per
csd (callgrind_annotate's worst case; it is not run at 10^7). At 10^7 the
other shapes too (`threads`, `chain`, `recursive`, `mutual`: the report
only), since the target (issue 14: at most 2 s of CPU and 700 MiB) holds
for every shape; every 10^7 row is a median of --runs runs, as one run on
a shared VM can take half as long again.

Each child is timed with wait4: CPU (user+sys), wall, and its own peak
resident set (ru_maxrss), so no `time` package is needed. Files go under
BUILD/bench/analyses and are deleted once measured (10^7 csds is ~370 MB).

Used by run.py (`--only analyses`); runnable alone:
    analyses.py --deepprof BIN --dpgen BIN --dir DIR [--quick | --targets] [--runs N]
--targets: only the 10^7 report of every shape (the target rows).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

TARGET_S = 2.0                 # 10^7 csds of every shape read, cliqued and reported
TARGET_MIB = 700.0             # ... within this much CPU and memory at peak (issue 14)
TIMEOUT = 900


class Fatal(Exception):
    pass


def timed(cmd, out=os.devnull):
    """Run cmd (stdout to `out`, stderr kept); return (cpu_s, wall_s, maxrss_mib,
    user_s, sys_s, minor_faults)."""
    with open(out, "wb") as o, open(os.devnull, "rb") as nul, \
            open(out + ".err" if out != os.devnull else os.devnull, "wb") as e:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=nul, stdout=o, stderr=e)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        tail = ""
        if out != os.devnull and os.path.exists(out + ".err"):
            with open(out + ".err", "rb") as f:
                tail = " | ".join(f.read().decode(errors="replace").strip().splitlines()[-3:])
        raise Fatal("`%s` exited with %d%s" % (" ".join(cmd), p.returncode,
                                               (": " + tail) if tail else ""))
    return (ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss / 1024.0,
            ru.ru_utime, ru.ru_stime, ru.ru_minflt)


class Row:
    def __init__(self, shape, n):
        self.shape, self.n = shape, n
        self.size = 0
        self.gen_s = 0.0
        self.report = []        # [(cpu, wall, mib)]
        self.export = None      # (cpu, wall, mib), export bytes
        self.export_bytes = 0
        self.annotate = None    # (cpu, wall, mib) or a reason string


def med(runs, i):
    return statistics.median(r[i] for r in runs)


def measure(a, shape, n, runs, annotate, export=True):
    d = a.dir
    data = os.path.join(d, "%s-%d.data" % (shape, n))
    cg = os.path.join(d, "%s-%d.callgrind" % (shape, n))
    row = Row(shape, n)
    try:
        t0 = time.perf_counter()
        timed([a.dpgen, "--shape=" + shape, "--csds=%d" % n, "--seed=1", "-o", data],
              os.path.join(d, "gen.out"))
        row.gen_s = time.perf_counter() - t0
        row.size = os.path.getsize(data)
        for _ in range(runs):
            row.report.append(timed([a.deepprof, "report", data, "top"],
                                    os.path.join(d, "report.out")))
        if export:
            row.export = timed([a.deepprof, "export", "--format=callgrind", "-o", cg, data],
                               os.path.join(d, "export.out"))
            row.export_bytes = os.path.getsize(cg)
        if annotate is True:
            row.annotate = timed(["callgrind_annotate", cg], os.path.join(d, "annotate.out"))
        else:
            row.annotate = annotate
    finally:
        for f in (data, cg):
            if os.path.exists(f):
                os.unlink(f)
    print("bench: analyses %s 10^%d done" % (shape, len(str(n)) - 1), file=sys.stderr,
          flush=True)
    return row


def plan(a):
    """[(shape, n, runs, annotate, export)]: annotate True or the reason it is
    not run; export False: the report only."""
    if getattr(a, "targets", False):
        return [(shape, 10 ** 7, a.runs, "not run: --targets", False)
                for shape in ("tree", "wide", "threads", "chain", "recursive", "mutual")]
    if a.quick:
        return [("tree", 10 ** 4, 1, True, True), ("tree", 10 ** 5, 1, True, True),
                ("wide", 10 ** 4, 1, True, True)]
    skip = "not run: ~140 s and 3.8 GB already at 10^6"
    only = "not run: the report only at this shape"
    return [("tree", 10 ** 5, a.runs, True, True), ("tree", 10 ** 6, a.runs, True, True),
            ("tree", 10 ** 7, a.runs, True, True),
            ("wide", 10 ** 5, a.runs, True, True), ("wide", 10 ** 6, a.runs, True, True),
            ("wide", 10 ** 7, a.runs, skip, True)] + [
            (shape, 10 ** 7, a.runs, only, False)
            for shape in ("threads", "chain", "recursive", "mutual")]


def fmt_n(n):
    e = len(str(n)) - 1
    return "10^%d" % e if n == 10 ** e else str(n)


def table(a, rows):
    L = []
    L.append("Analyses: `deepprof report FILE top` (read + startup + top report) on dp-gen "
             "profiles; median of %d run(s), * one run" % max(len(r.report) for r in rows))
    L.append("  beside it: `deepprof export --format=callgrind` of the same file, then "
             "callgrind_annotate on that export (one run each)")
    hdr = ("  %-9s %6s %8s | %7s %7s %7s %8s %8s | %7s %7s %8s | %8s %7s %8s" % (
        "shape", "csds", "MB", "cpu s", "wall s", "ns/csd", "x ns/csd", "peak MiB",
        "exp s", "exp MiB", "out MB", "annot s", "ann MiB", "exp+ann"))
    L.append(hdr)
    L.append("  " + "-" * (len(hdr) - 2))
    base = {}
    for r in rows:
        cpu, wall, mib = med(r.report, 0), med(r.report, 1), max(x[2] for x in r.report)
        ns = cpu / r.n * 1e9
        base.setdefault(r.shape, ns)
        ec, ew, em = r.export[:3] if r.export else (0.0, 0.0, 0.0)
        if isinstance(r.annotate, tuple):
            ac, aw, am = r.annotate[:3]
            ann = "%8.2f %7.0f %8.2f" % (aw, am, ew + aw)
        else:
            ann = "%8s %7s %8s" % ("-", "-", "-")
        exp = ("%7.2f %7.0f %8.1f" % (ew, em, r.export_bytes / 1e6) if r.export
               else "%7s %7s %8s" % ("-", "-", "-"))
        L.append("  %-9s %6s %8.1f | %7.2f %7.2f %7.0f %8.2f %8.0f | %s | %s" % (
            r.shape, fmt_n(r.n) + ("*" if len(r.report) < max(len(x.report) for x in rows)
                                   else ""), r.size / 1e6, cpu, wall, ns, ns / base[r.shape], mib,
            exp, ann))
    for r in rows:
        if isinstance(r.annotate, str) and r.export:
            L.append("  %s %s: callgrind_annotate %s" % (r.shape, fmt_n(r.n), r.annotate))
        elif not r.export:
            L.append("  %s %s: the report only (no export, no callgrind_annotate)" % (
                r.shape, fmt_n(r.n)))
    L.append("  ns/csd = cpu s / csds; x ns/csd against the shape's smallest file "
             "(near 1 at every size: time grows linearly)")
    L.append("  peak MiB: the child's ru_maxrss from wait4; Linux keeps the forking Python's "
             "size (~20 MiB) in it, so small values are a floor")
    for shape in sorted({r.shape for r in rows}, reverse=True):
        rs = [r for r in rows if r.shape == shape]
        per = [med(r.report, 0) / r.n for r in rs]
        if len(rs) > 1:
            g = per[-1] / min(per)
            L.append("  %s: time per csd at %s csds is %.2fx its lowest (from %s up): %s" % (
                shape, fmt_n(rs[-1].n), g, fmt_n(rs[0].n),
                "linear" if g <= 1.3 else "NOT linear (more than 1.3x)"))
    for r in [r for r in rows if r.n == 10 ** 7]:
        cpu, wall, mib = med(r.report, 0), med(r.report, 1), max(x[2] for x in r.report)
        L.append("  target (%s): 10^7 csds read, cliqued and reported in <= %.0f s CPU with <= %.0f MiB: "
                 "%.2f s CPU (wall %.2f s at load %.1f), %.0f MiB: %s" % (
                     r.shape, TARGET_S, TARGET_MIB, cpu, wall, os.getloadavg()[0], mib,
                     "met" if cpu <= TARGET_S and mib <= TARGET_MIB else "MISSED"))
        L.append("    %s: user %.2f s + sys %.2f s, %d minor page faults (sys is mostly the "
                 "kernel zeroing fresh pages)" % (r.shape, med(r.report, 3), med(r.report, 4),
                                                 int(med(r.report, 5))))
    return L


def run(a):
    """Measure every row of the plan; return the table's lines. Raises Fatal."""
    for path, what in ((a.deepprof, "deepprof"), (a.dpgen, "dp-gen")):
        if not os.path.exists(path):
            raise Fatal("%s: %s not built (run make first)" % (path, what))
    shutil.rmtree(a.dir, ignore_errors=True)
    os.makedirs(a.dir)
    rows = []
    try:
        for shape, n, runs, annotate, export in plan(a):
            if annotate is True and not shutil.which("callgrind_annotate"):
                annotate = "not run: callgrind_annotate not found (valgrind)"
            rows.append(measure(a, shape, n, runs, annotate, export))
    finally:
        shutil.rmtree(a.dir, ignore_errors=True)     # ~0.5 GB of profiles and outputs
    return table(a, rows)


def main():
    ap = argparse.ArgumentParser(description="deepprof analyses benchmark")
    ap.add_argument("--deepprof", required=True)
    ap.add_argument("--dpgen", required=True)
    ap.add_argument("--dir", required=True, help="scratch directory for the generated files")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--targets", action="store_true",
                    help="only the 10^7 report of every shape")
    a = ap.parse_args()
    try:
        lines = run(a)
    except (Fatal, OSError) as e:
        print("bench: %s" % e, file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
