"""run.py — `make bench`: what deepprof's instrumentation costs, next to its
alternatives, on a call-heavy and an allocation-heavy microbenchmark and on
real programs built from Debian's sources (bzip2; zlib's minigzip).
Part of deepprof's bench. MIT licence.

Every program is built in four variants and each variant runs RUNS times,
interleaved (round 1 of every variant, then round 2, ...) so that drift in
the machine's load spreads over all of them:

  plain     gcc -O2                                    the baseline
  empty     gcc -O2 -finstrument-functions, empty hooks the floor of the approach
  gprof     gcc -O2 -pg
  libprof   gcc -O2 -finstrument-functions + libprof.a  deepprof
  callgrind the plain binary under valgrind --tool=callgrind (real programs
            only), on 1/CG_SHRINK of the input, CG_RUNS times, against plain
            on that same small input; its seconds are scaled back to the full
            input by that ratio (marked ~)

Times are CPU seconds (user+sys of the child, from wait4): on a shared
two-core machine they move less than wall time, which is shown too.
The table goes to stdout and to BUILD/bench/results.txt.

    run.py --build DIR --libprof LIB --deepprof BIN [--cc CC] [--libs LDLIBS]
           [--runs N] [--quick] [--only PROG,...]
"""

import argparse
import datetime
import hashlib
import json
import os
import platform
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET_VS_EMPTY = 1.3          # libprof within this factor of the empty-hook build
TIMEOUT = 300                  # seconds, any single run
SEED = 1


class Fatal(Exception):
    pass


# ---------------------------------------------------------------- programs

class Program:
    def __init__(self, name, label, sources, argv, cflags=(), third_party=False,
                 callgrind=False, output="stdout"):
        self.name = name
        self.label = label          # shown in the table
        self.sources = sources
        self.argv = argv            # "{input}" is replaced by the input path
        self.cflags = list(cflags)
        self.third_party = third_party
        self.callgrind = callgrind
        self.output = output


def programs(a, src):
    bz = os.path.join(src, "bzip2")
    zl = os.path.join(src, "zlib")
    zlib_c = ["adler32.c", "compress.c", "crc32.c", "deflate.c", "gzclose.c", "gzlib.c",
              "gzread.c", "gzwrite.c", "infback.c", "inffast.c", "inflate.c", "inftrees.c",
              "trees.c", "uncompr.c", "zutil.c"]
    size = ("%.0fMB" % (a.text_bytes / 1e6) if a.text_bytes >= 1e6
            else "%.0fKB" % (a.text_bytes / 1e3))
    return [
        Program("fib", "fib(%d)" % a.fib_n, [os.path.join(HERE, "fib.c")], [str(a.fib_n)]),
        Program("alloc", "alloc(%d)" % a.alloc_rounds, [os.path.join(HERE, "alloc.c")],
                [str(a.alloc_rounds)]),
        Program("bzip2", "bzip2 " + size,
                [os.path.join(bz, f) for f in ["blocksort.c", "huffman.c", "crctable.c",
                                               "randtable.c", "compress.c", "decompress.c",
                                               "bzlib.c", "bzip2.c"]],
                ["-c", "-9", "{input}"], cflags=["-D_FILE_OFFSET_BITS=64"],
                third_party=True, callgrind=True),
        Program("minigzip", "minigzip " + size,
                [os.path.join(zl, f) for f in zlib_c] + [os.path.join(zl, "test", "minigzip.c")],
                ["-c", "{input}"], cflags=["-D_LARGEFILE64_SOURCE=1", "-I", zl],
                third_party=True, callgrind=True),
    ]


VARIANTS = ["plain", "empty", "gprof", "libprof"]


# ---------------------------------------------------------------- building

def run_quiet(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    if r.returncode != 0:
        tail = r.stderr.decode(errors="replace").strip().splitlines()[-6:]
        raise Fatal("`%s` failed (exit %d):\n  %s" % (" ".join(cmd[:6]) + (" ..." if len(cmd) > 6 else ""),
                                                     r.returncode, "\n  ".join(tail)))
    return r


def build_all(a, progs, bdir):
    """Compile every program in every variant; return {(prog, variant): exe}."""
    obj_root = os.path.join(bdir, "obj")
    bin_dir = os.path.join(bdir, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    hooks = os.path.join(obj_root, "empty_hooks.o")
    os.makedirs(obj_root, exist_ok=True)
    run_quiet([a.cc, "-std=gnu11", "-O2"] + a.warn + ["-c", os.path.join(HERE, "empty_hooks.c"),
                                                    "-o", hooks])
    vflags = {"plain": [], "empty": ["-finstrument-functions"], "gprof": ["-pg"],
              "libprof": ["-finstrument-functions"]}
    vlink = {"plain": [], "empty": [hooks], "gprof": ["-pg"],
             "libprof": [a.libprof] + shlex.split(a.libs)}
    jobs = []
    links = {}
    for p in progs:
        for v in VARIANTS:
            od = os.path.join(obj_root, p.name, v)
            os.makedirs(od, exist_ok=True)
            objs = []
            for s in p.sources:
                o = os.path.join(od, os.path.basename(s)[:-2] + ".o")
                warn = ["-w"] if p.third_party else ["-std=gnu11"] + a.warn
                jobs.append([a.cc, "-O2", "-g"] + warn + p.cflags + vflags[v] + ["-c", s, "-o", o])
                objs.append(o)
            exe = os.path.join(bin_dir, "%s-%s" % (p.name, v))
            links[(p.name, v)] = (exe, [a.cc, "-o", exe] + objs + vlink[v])
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for f in [pool.submit(run_quiet, j) for j in jobs]:
            f.result()
    exes = {}
    for key, (exe, cmd) in links.items():
        run_quiet(cmd)
        exes[key] = exe
    return exes


# ---------------------------------------------------------------- running

PIN = []      # taskset prefix, set by --pin


def timed(cmd, cwd, out_path):
    """Run cmd in cwd with stdout to out_path; return (cpu_s, wall_s)."""
    cmd = PIN + cmd
    with open(out_path, "wb") as out, open(os.devnull, "rb") as nul:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=cwd, stdin=nul, stdout=out, stderr=subprocess.PIPE)
        killer = threading.Timer(TIMEOUT, lambda: p.send_signal(signal.SIGKILL))
        killer.start()
        try:
            err = p.stderr.read()
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            killer.cancel()
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        tail = err.decode(errors="replace").strip().splitlines()[-3:]
        how = ("was killed by %s" % signal.Signals(-p.returncode).name if p.returncode < 0
               else "exited with %d" % p.returncode)
        raise Fatal("`%s` in %s %s%s" % (" ".join(cmd), cwd, how,
                                         (": " + " | ".join(tail)) if tail else ""))
    return ru.ru_utime + ru.ru_stime, wall


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class Series:
    """The timings of one program variant; failed runs are kept apart."""

    def __init__(self):
        self.cpu = []
        self.wall = []
        self.failures = []      # messages of runs that failed
        self.last_ok_dir = None

    def add(self, cpu, wall):
        self.cpu.append(cpu)
        self.wall.append(wall)

    def median(self):
        return statistics.median(self.cpu) if self.cpu else float("nan")


def clean_dir(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)


def measure(a, progs, exes, bdir, inputs):
    """Run everything; return ({(prog, variant): Series}, {prog: (small plain, callgrind)})."""
    runs_dir = os.path.join(bdir, "run")
    res = {(p.name, v): Series() for p in progs for v in VARIANTS}
    cg = {p.name: (Series(), Series()) for p in progs if p.callgrind and a.callgrind}
    digests = {}
    for r in range(a.runs):
        for p in progs:
            argv = [x.replace("{input}", inputs["big"]) for x in p.argv]
            for v in VARIANTS:
                # one directory per run: each leaves its own Deep.data / gmon.out
                d = os.path.join(runs_dir, "%s-%s" % (p.name, v), str(r + 1))
                clean_dir(d)
                out = os.path.join(d, "out")
                s = res[(p.name, v)]
                try:
                    s.add(*timed([exes[(p.name, v)]] + argv, d, out))
                except Fatal as e:
                    if v == "plain":
                        raise
                    # keep going: a crash of one variant should not cost the others' numbers
                    s.failures.append(str(e))
                    print("bench: %s" % e, file=sys.stderr, flush=True)
                    continue
                s.last_ok_dir = d
                if (p.name, v) not in digests:
                    digests[(p.name, v)] = digest(out)
                    if digests[(p.name, v)] != digests[(p.name, "plain")]:
                        raise Fatal("%s: the %s build's output differs from the plain build's"
                                    % (p.name, v))
            if p.name in cg:
                small = [x.replace("{input}", inputs["small"]) for x in p.argv]
                plain_s, cg_s = cg[p.name]
                d = os.path.join(runs_dir, "%s-plain-small" % p.name)
                clean_dir(d)
                plain_s.add(*timed([exes[(p.name, "plain")]] + small, d, os.path.join(d, "out")))
                if r < a.cg_runs:
                    d = os.path.join(runs_dir, "%s-callgrind" % p.name)
                    clean_dir(d)
                    cmd = ["valgrind", "--tool=callgrind", "--dump-instr=no",
                           "--callgrind-out-file=" + os.path.join(d, "callgrind.out"),
                           exes[(p.name, "plain")]] + small
                    cg_s.add(*timed(cmd, d, os.path.join(d, "out")))
        print("bench: round %d of %d done" % (r + 1, a.runs), file=sys.stderr, flush=True)
    return res, cg


def deep_data_stats(a, progs, res):
    """{prog: (n_csd, file_bytes, mem_bytes)} from each libprof run's Deep.data."""
    stats = {}
    for p in progs:
        d = res[(p.name, "libprof")].last_ok_dir
        if d is None:
            stats[p.name] = "every libprof run failed"
            continue
        files = sorted(f for f in os.listdir(d) if f.startswith("Deep.data"))
        if not files:
            stats[p.name] = "no Deep.data written"
            continue
        path = os.path.join(d, files[0])
        r = subprocess.run([a.deepprof, "dump", "--json", path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            stats[p.name] = "deepprof dump failed: " + r.stderr.decode(errors="replace").strip()[:200]
            continue
        try:
            doc = json.loads(r.stdout)
            stats[p.name] = (len(doc["csd"]), os.path.getsize(path), int(doc["header"]["mem_bytes"]))
        except (ValueError, KeyError, TypeError) as e:
            stats[p.name] = "unexpected dump --json layout (%s)" % e
    return stats


# ---------------------------------------------------------------- report

def fmt_s(x):
    return "%.3f" % x if x < 100 else "%.1f" % x


def report(a, progs, res, cg, stats, load_before, started):
    L = []
    L.append("deepprof bench — %s UTC, %s, %d cores, %s" % (
        started.strftime("%Y-%m-%d %H:%M"), platform.node(), os.cpu_count() or 0,
        subprocess.run([a.cc, "--version"], stdout=subprocess.PIPE).stdout.decode().splitlines()[0]))
    L.append("CPU seconds (user+sys), median of %d runs (min-max); wall median beside; "
             "load average before %.2f, after %.2f%s" % (a.runs, load_before, os.getloadavg()[0],
                                                       "; pinned to CPU " + a.pin if a.pin else ""))
    L.append("")
    hdr = "%-16s %-10s %9s  %-17s %9s %8s %8s" % ("program", "variant", "median s", "(min-max)",
                                                  "wall s", "x plain", "x empty")
    L.append(hdr)
    L.append("-" * len(hdr))
    notes = []
    for p in progs:
        plain = res[(p.name, "plain")].median()
        empty = res[(p.name, "empty")].median()
        for v in VARIANTS:
            s = res[(p.name, v)]
            m = s.median()
            mark = ""
            if v == "libprof" and s.cpu:
                mark = "  target <=%.1fx empty: %s" % (
                    TARGET_VS_EMPTY, "met" if m / empty <= TARGET_VS_EMPTY else "MISSED")
            if s.failures:
                mark += "  %d of %d runs FAILED" % (len(s.failures), a.runs)
                notes.append("  %s %s failed: %s" % (p.name, v, s.failures[0]))
            if not s.cpu:
                L.append("%-16s %-10s %9s%s" % (p.label, v, "-", mark))
                continue
            L.append("%-16s %-10s %9s  %-17s %9s %8.2f %8.2f%s" % (
                p.label, v, fmt_s(m), "(%s-%s)" % (fmt_s(min(s.cpu)), fmt_s(max(s.cpu))),
                fmt_s(statistics.median(s.wall)), m / plain, m / empty, mark))
        if p.name in cg:
            ps, cs = cg[p.name]
            ratio = cs.median() / ps.median()
            scale = plain / ps.median()
            L.append("%-16s %-10s %9s  %-17s %9s %8.2f %8.2f" % (
                p.label, "callgrind", "~" + fmt_s(ratio * plain),
                "(~%s-%s)" % (fmt_s(min(cs.cpu) * scale), fmt_s(max(cs.cpu) * scale)),
                "", ratio, ratio * plain / empty))
            notes.append("  %s callgrind: %d run(s) on a 1/%d input: %s s vs plain %s s on it; "
                         "seconds scaled by that ratio" % (p.name, len(cs.cpu), a.cg_shrink,
                                                           fmt_s(cs.median()), fmt_s(ps.median())))
        L.append("")
    cg_notes = [n for n in notes if " callgrind: " in n]
    fail_notes = [n for n in notes if " callgrind: " not in n]
    if cg_notes:
        L.append("~ callgrind runs the plain binary on a smaller input (same file, first 1/%d):"
                 % a.cg_shrink)
        L.extend(cg_notes)
        L.append("")
    if fail_notes:
        L.append("failed runs (first message of each; medians are over the runs that worked):")
        L.extend(fail_notes)
        L.append("")

    L.append("target: libprof within %.1fx of the empty-hook build" % TARGET_VS_EMPTY)
    for p in progs:
        r = res[(p.name, "libprof")].median() / res[(p.name, "empty")].median()
        if r != r:      # NaN: no libprof or empty run worked
            L.append("  %-16s libprof / empty = n/a     MISSED (no successful run)" % p.label)
            continue
        L.append("  %-16s libprof / empty = %5.2f   %s" % (
            p.label, r, "met" if r <= TARGET_VS_EMPTY else "MISSED"))
    L.append("")

    L.append("Deep.data of the libprof runs (deepprof dump --json):")
    L.append("  %-16s %8s %12s %10s %12s %10s" % ("program", "csds", "file bytes", "bytes/csd",
                                                  "mem_bytes", "mem/csd"))
    for p in progs:
        st = stats.get(p.name)
        if isinstance(st, tuple):
            n, size, mem = st
            L.append("  %-16s %8d %12d %10.1f %12d %10.1f" % (
                p.label, n, size, size / n if n else 0.0, mem, mem / n if n else 0.0))
        else:
            L.append("  %-16s %s" % (p.label, st))
    return "\n".join(L) + "\n"


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description="deepprof overhead benchmarks")
    ap.add_argument("--build", required=True, help="the build directory (BUILD)")
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--warn", default="-Wall -Wextra")
    ap.add_argument("--libprof", required=True)
    ap.add_argument("--libs", default="", help="what a program linked with libprof.a needs")
    ap.add_argument("--deepprof", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2, help="parallel compiles")
    ap.add_argument("--quick", action="store_true",
                    help="tiny sizes and one run: checks the machinery, measures nothing")
    ap.add_argument("--only", default="", help="comma-separated program names")
    ap.add_argument("--pin", default="",
                    help="run every measured command under taskset -c PIN (off by default: on "
                         "a two-core machine shared with compiles, pinning isolates nothing)")
    a = ap.parse_args()
    a.warn = shlex.split(a.warn)
    if a.pin:
        if not shutil.which("taskset"):
            print("bench: --pin needs taskset (util-linux)", file=sys.stderr)
            return 2
        PIN[:] = ["taskset", "-c", a.pin]
    a.fib_n, a.alloc_rounds, a.text_bytes = 41, 200, 10_000_000
    a.cg_shrink, a.cg_runs, a.callgrind = 8, 3, True
    if a.quick:
        a.fib_n, a.alloc_rounds, a.text_bytes = 27, 4, 400_000
        a.runs, a.cg_runs = 1, 1
    if a.runs < 1:
        print("bench: --runs must be at least 1", file=sys.stderr)
        return 2
    for path, what in ((a.libprof, "libprof"), (a.deepprof, "deepprof")):
        if not os.path.exists(path):
            print("bench: %s: %s not built (run make first)" % (path, what), file=sys.stderr)
            return 2
    if not shutil.which("valgrind"):
        print("bench: valgrind not found: the callgrind rows are left out", file=sys.stderr)
        a.callgrind = False

    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()[0]
    bdir = os.path.join(os.path.abspath(a.build), "bench")
    src = os.path.join(os.path.abspath(a.build), "src")
    try:
        progs = programs(a, src)
        if a.only:
            want = set(a.only.split(","))
            unknown = want - {p.name for p in progs}
            if unknown:
                print("bench: unknown program(s): %s" % ", ".join(sorted(unknown)), file=sys.stderr)
                return 2
            progs = [p for p in progs if p.name in want]
        debian_src = {"bzip2": "bzip2", "minigzip": "zlib"}     # program -> source package
        for pkg in sorted({debian_src[p.name] for p in progs if p.name in debian_src}):
            r = subprocess.run(["sh", os.path.join(HERE, "fetch-src.sh"), pkg, src])
            if r.returncode != 0:
                raise Fatal("cannot fetch the source of %s (see above)" % pkg)
        os.makedirs(bdir, exist_ok=True)
        print("bench: building %d programs x %d variants" % (len(progs), len(VARIANTS)),
              file=sys.stderr, flush=True)
        exes = build_all(a, progs, bdir)
        gen = os.path.join(bdir, "bin", "gen_text")
        run_quiet([a.cc, "-std=gnu11", "-O2"] + a.warn + ["-o", gen, os.path.join(HERE, "gen_text.c")])
        inputs = {"big": os.path.join(bdir, "text-%d.txt" % a.text_bytes),
                  "small": os.path.join(bdir, "text-%d.txt" % (a.text_bytes // a.cg_shrink))}
        for f, n in ((inputs["big"], a.text_bytes), (inputs["small"], a.text_bytes // a.cg_shrink)):
            if not os.path.exists(f) or os.path.getsize(f) != n:
                run_quiet([gen, str(SEED), str(n), f])
        res, cg = measure(a, progs, exes, bdir, inputs)
        stats = deep_data_stats(a, progs, res)
    except (Fatal, OSError) as e:
        print("bench: %s" % e, file=sys.stderr)
        return 1
    text = report(a, progs, res, cg, stats, load_before, started)
    sys.stdout.write(text)
    out = os.path.join(bdir, "results.txt")
    with open(out + ".tmp", "w") as f:
        f.write(text)
    os.replace(out + ".tmp", out)
    print("bench: table saved in %s" % out, file=sys.stderr)
    failed = sum(len(s.failures) for s in res.values())
    if failed:
        print("bench: %d runs failed (see the table)" % failed, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
