"""record.py — the sampling benchmark of `make bench` (issue 16): `deepprof
record` on unmodified -O2 -g -fno-inline programs, against `perf record -e cpu-clock`
(Debian's linux-perf) and `gprofng collect app` (binutils), where those run.

Accuracy: each program's top 10 functions by self time in the recorded
profile, with the share perf gives each in the same runs (perf record
around deepprof record, its samples of the sampler left out; a sample in
the kernel counted for the user function that entered it, as deepprof's
CPU-time ticks count it), and the difference; and against the tick shares of the program's
instrumented builds: the default one (deepprof-cc) and the
-finstrument-functions one with libprof (DEEPPROF_UNWIND=1), whose ticks in
libc go to libc's frames as record's do. Target: every difference within
TARGET_PP percentage points. An instrumented build's ticks in libprof's
own code (its hooks, slow paths and wrappers) are charged to
deepprof_runtime, not to the program's functions: they are left out of its
shares. What instrumentation costs inside the program's own functions
(a plugin build's inline hooks, the calls of the hooks) stays in them,
and changes the program that runs: perf on each instrumented build says
whether its profile is right about it (the runtime's share, and the top
10 against perf's shares on that binary).

Every program runs as many times as give SAMPLES samples, merged with
`deepprof merge`, and the instrumented builds and perf as many times. The
real programs of `make bench` (bzip2, minigzip, gawk, jq, sqlite3: run.py
passes their plain -O2 -g builds and workloads as a.real) are compared
with perf only, and timed the same way.

Overhead: the sampler's own share of the recorded run's CPU, as perf sees
it (libunwind and libprof-record.so: what the machine's noise cannot hide);
then CPU seconds (user+sys of the child and what it waited for, from
wait4) of the plain run, under deepprof record (default frequency), under
perf record -g and under gprofng collect app, RUNS rounds interleaved; the
ratio of the least of each to plain's least. Target: deepprof record within TARGET_X of plain.

Used by run.py (`--only record`); runnable alone:
    record.py --deepprof BIN [--deepprof-cc BIN] --libprof LIB [--libs L] --dir DIR [--runs N] [--quick]
Part of deepprof's bench. MIT licence.
"""

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET_PP = 2.0
TARGET_X = 1.05
SAMPLES = 2000          # the accuracy runs: samples wanted (runs merged)
MAX_RUNS = 12
TIMEOUT = 600


class Fatal(Exception):
    pass


# name, source, argv for the accuracy runs, argv for the timed runs (quick: both small)
PROGRAMS = [
    ("mix", "record_mix.c", ["60"], ["15"], ["2"]),
    ("alloc", "alloc.c", ["400"], ["100"], ["4"]),
    ("fib", "fib.c", ["40"], ["40"], ["27"]),
]


def sh(cmd, env=None, out=subprocess.DEVNULL):
    e = dict(os.environ)
    e["LC_ALL"] = "C"
    e.update(env or {})
    r = subprocess.run(cmd, env=e, stdout=out, stderr=subprocess.PIPE, text=True, timeout=TIMEOUT)
    if r.returncode != 0:
        raise Fatal("`%s` exited with %d: %s" % (" ".join(cmd), r.returncode,
                                                 " | ".join(r.stderr.strip().splitlines()[-3:])))
    return r


def timed(cmd, env=None):
    """(cpu_s, wall_s) of cmd and everything it waited for."""
    e = dict(os.environ)
    e.update(env or {})
    with open(os.devnull, "wb") as nul:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, env=e, stdin=nul, stdout=nul, stderr=nul)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise Fatal("`%s` failed (%d)" % (" ".join(cmd), os.waitstatus_to_exitcode(status)))
    return ru.ru_utime + ru.ru_stime, wall


def tool_works(cmd, d):
    """None if the profiler runs here, else its error (first line)."""
    try:
        r = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=60)
    except OSError as e:
        return str(e)
    if r.returncode != 0:
        return (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0]
    return None


# ---------------------------------------------------------------- shares

def dump(a, path):
    r = sh([a.deepprof, "dump", "--json", path], out=subprocess.PIPE)
    return json.loads(r.stdout)


def base_name(name):
    """A function's name without its symbol version or GCC's clone suffixes
    (foo.constprop.0, foo.isra.0, foo.part.0, foo.cold): builds differ there."""
    name = name.split("@@")[0].split("@")[0]
    while True:
        for suf in (".constprop", ".isra", ".part", ".cold", ".lto_priv"):
            i = name.find(suf)
            if i > 0:
                name = name[:i]
                break
        else:
            return name


ALIASES = {}


def learn_aliases(paths):
    """Names that share an address in the modules at paths (malloc and
    __libc_malloc; libdw and perf may each pick another) map to one of them."""
    for path in paths:
        at = {}
        for flags in ([], ["-D"]):
            r = subprocess.run(["nm", "--defined-only"] + flags + [path], capture_output=True, text=True)
            for ln in r.stdout.splitlines():
                f = ln.split()
                if len(f) == 3 and f[1] in "TtWi":
                    at.setdefault(f[0], set()).add(base_name(f[2]))
        for names in at.values():
            pick = min(names, key=lambda n: (n.startswith("_"), len(n), n))
            for n in names:
                ALIASES.setdefault(n, pick)


def canon(name):
    name = ALIASES.get(name, name)
    # an ifunc's variant (__memset_avx2_unaligned_erms) under the name a
    # call site gives it (memset): an instrumented build's call of memset
    # is charged to the site's callee
    if name.startswith("__") and any(v in name for v in ("_avx", "_sse", "_evex", "_erms")):
        name = name[2:].split("_")[0]
        return "memcpy" if name == "memmove" else name
    # glibc's memcpy and memmove variants share their code (and address);
    # without libc's local symbols nm cannot say so, and libdw and perf
    # pick one name each
    if name.startswith("__memmove_"):
        name = "__memcpy_" + name[len("__memmove_"):]
    return name


RUNTIME = "deepprof_runtime"     # an instrumented build's ticks in libprof's own code


def runtime_share(j):
    """The % of an instrumented profile's ticks that libprof charged to its
    own code (deepprof_runtime, libprof/timer.c): the profiler's cost."""
    ps, pd = j["ps"], j["pd"]
    mine = tot = 0
    for c in j["csd"]:
        tot += c["ticks"]
        if ps[pd[c["callee_pd"] - 1]["ps"] - 1]["name"] == RUNTIME:
            mine += c["ticks"]
    return 100.0 * mine / tot if tot else 0.0


def self_shares(j):
    """Self ticks per function name as % of all ticks in csds but the
    runtime's own (RUNTIME: not the program's time)."""
    ps, pd = j["ps"], j["pd"]
    out, tot = {}, 0
    for c in j["csd"]:
        if not c["ticks"]:
            continue
        name = ps[pd[c["callee_pd"] - 1]["ps"] - 1]["name"]
        if name == RUNTIME:
            continue
        name = canon(base_name(name or "?"))
        out[name] = out.get(name, 0) + c["ticks"]
        tot += c["ticks"]
    return {k: 100.0 * v / tot for k, v in out.items()} if tot else {}, tot


# deepprof record's own code, and the dynamic loader: a program's start
# (loading the preloaded sampler, relocations) runs before any timer
SAMPLER = ("libunwind", "libprof-record.so", "/ld-linux")


def perf_shares(a, data):
    """Self shares of a `perf record -g` profile, a sample in the kernel
    charged to the user-space function it entered the kernel from (its
    callchain's first user frame), as deepprof's CPU-time ticks charge a
    system call or a page fault to the code that made it; a sample in
    deepprof record's sampler (perf around record) left out."""
    r = sh(["perf", "script", "-i", data, "-F", "ip,sym,dso"], out=subprocess.PIPE)
    out = {}
    for sample in r.stdout.split("\n\n"):
        for ln in sample.splitlines():
            f = ln.split(None, 1)
            if len(f) < 2 or "[kernel" in f[1]:
                continue
            if any(x in f[1] for x in SAMPLER):
                break
            sym = f[1].rsplit(" (", 1)[0].strip()
            name = canon(base_name(sym))
            out[name] = out.get(name, 0) + 1
            break
    tot = sum(out.values())
    return {k: 100.0 * v / tot for k, v in out.items()} if tot else {}


def perf_of_build(a, data, exe):
    """perf's view of an instrumented build exe (libprof linked in): the %
    of its samples whose first user frame lies in libprof's code (the
    section deepprof_text, whose bounds nm gives), and the program's self
    shares without them, as self_shares() gives the build's own profile."""
    r = sh(["nm", exe], out=subprocess.PIPE)
    at = {f[2]: int(f[0], 16) for f in (ln.split() for ln in r.stdout.splitlines()) if len(f) == 3}
    lo, hi = at.get("__start_deepprof_text", 0), at.get("__stop_deepprof_text", 0)
    r = sh(["perf", "script", "--no-inline", "-i", data, "-F", "ip,sym,dso"], out=subprocess.PIPE)
    out, rt, tot = {}, 0, 0
    me = "/%s)" % os.path.basename(exe)
    for sample in r.stdout.split("\n\n"):
        for ln in sample.splitlines():
            f = ln.split(None, 1)
            if len(f) < 2 or "[kernel" in f[1]:
                continue
            if "/ld-linux" in f[1]:
                break           # the program's start, before libprof's timer
            tot += 1
            if f[1].rstrip().endswith(me) and lo <= int(f[0], 16) < hi:
                rt += 1
            else:
                name = canon(base_name(f[1].rsplit(" (", 1)[0].strip()))
                out[name] = out.get(name, 0) + 1
            break
    prog = tot - rt
    return (100.0 * rt / tot if tot else float("nan"),
            {k: 100.0 * v / prog for k, v in out.items()} if prog else {})


def check_build(a, lines, name, exe, args, runs, env=None):
    """perf on the instrumented build itself, over runs runs: its share of
    libprof's code against the profile's deepprof_runtime, and the
    program's shares against the profile's, of the same runs (the
    program's own run-to-run variance apart: alloc's malloc_consolidate
    moves by up to 10 points), so the profile is right about the program
    that ran; returns the largest difference."""
    rt, shares, paths = 0.0, {}, []
    for i in range(runs):
        pd = os.path.join(a.dir, "%s.%d.perf" % (name, i))
        paths.append(os.path.join(a.dir, "%s.perf%d.data" % (name, i)))
        sh(["perf", "record", "-q", "-g", "-e", "cpu-clock", "-F", "1000", "-o", pd, "--", exe] + args,
           env=dict(env or {}, DEEPPROF_FILE=paths[-1]))
        r, sv = perf_of_build(a, pd, exe)
        rt += r / runs
        for k, v in sv.items():
            shares[k] = shares.get(k, 0.0) + v / runs
    profile = merged(a, os.path.join(a.dir, name + ".perf.data"), paths)
    lines.append("    the same build under perf (%d run%s): %.1f%% in libprof's code (its profile: %.1f%%)"
                 % (runs, "s" if runs > 1 else "", rt, runtime_share(profile)))
    ours, _ = self_shares(profile)
    top = sorted(ours.items(), key=lambda kv: -kv[1])[:10]
    worst = max((abs(v - shares.get(k, 0.0)) for k, v in top), default=0.0)
    lines.append("    and its top 10 against the profile of those runs: largest difference %.2f points (%s)"
                 % (worst, ", ".join("%s %.1f/%.1f" % (k, v, shares.get(k, 0.0)) for k, v in top[:4])))
    return worst


def compare(lines, title, ours, theirs, other):
    """Top 10 of ours against theirs; returns the largest difference."""
    top = sorted(ours.items(), key=lambda kv: -kv[1])[:10]
    lines.append("  %s" % title)
    lines.append("    %-28s %9s %9s %7s" % ("function", "record %", other + " %", "diff"))
    worst = 0.0
    for name, v in top:
        w = theirs.get(name, 0.0)
        worst = max(worst, abs(v - w))
        lines.append("    %-28s %9.2f %9.2f %+7.2f" % (name[:28], v, w, v - w))
    lines.append("    largest difference %.2f points (target %.1f): %s"
                 % (worst, TARGET_PP, "ok" if worst <= TARGET_PP else "MISSED"))
    return worst


# ---------------------------------------------------------------- main

def vs_perf(lines, mine, theirs, runs):
    """The largest top-10 difference between record's shares (mine) and
    perf record's on the same runs (theirs: recorded() ran perf around
    deepprof record, so the program's run-to-run variance cancels)."""
    return compare(lines, "self time: deepprof record vs perf record -g -e cpu-clock around it, the "
                   "same run%s (kernel samples to their user frame)" % ("s" if runs > 1 else ""),
                   mine, theirs, "perf")


def sampler_and_overhead(a, lines, name, exe, args, perf_err, gp_err):
    """The sampler's own CPU as perf sees it, then CPU seconds of exe plain,
    under record, perf record -g and gprofng, a.runs rounds interleaved;
    record's ratio to plain."""
    if not perf_err:
        # the sampler's own cost, free of the machine's noise: perf's
        # share of the recorded run in libunwind and libprof-record.so
        pd = os.path.join(a.dir, name + ".cost.perf")
        sh(["perf", "record", "-q", "-e", "cpu-clock", "-F", "4000", "-o", pd, "--", a.deepprof,
            "record", "-o", os.path.join(a.dir, name + ".c.data"), exe] + args)
        r = sh(["perf", "report", "-i", pd, "--stdio", "--no-children", "-q", "--sort", "dso"],
               out=subprocess.PIPE)
        cost = sum(float(ln.split()[0][:-1]) for ln in r.stdout.splitlines()
                   if len(ln.split()) == 2 and ln.split()[1].startswith(("libunwind", "libprof-record")))
        lines.append("  sampler's own CPU under deepprof record (perf: libunwind + libprof-record.so): "
                     "%.2f%%" % cost)
    variants = [("plain", [exe] + args),
                ("record", [a.deepprof, "record", "-o", os.path.join(a.dir, name + ".t.data"), exe] + args)]
    if not perf_err:
        variants.append(("perf -g", ["perf", "record", "-q", "-g", "-e", "cpu-clock", "-F", "1000",
                                     "-o", os.path.join(a.dir, name + ".t.perf"), "--", exe] + args))
    if not gp_err:
        variants.append(("gprofng", ["gprofng", "collect", "app", "-O",
                                     os.path.join(a.dir, name + ".t.er"), exe] + args))
    cpu = {v: [] for v, _ in variants}
    for _ in range(a.runs):
        for v, cmd in variants:
            shutil.rmtree(os.path.join(a.dir, name + ".t.er"), ignore_errors=True)
            cpu[v].append(timed(cmd)[0])
    # the least of the rounds: on a shared machine CPU seconds only ever
    # grow with interference (caches, frequency), so min is the steadiest
    base = min(cpu["plain"])
    lines.append("  overhead: %s" % "  ".join(
        "%s %.2fs %.3fx" % (v, min(cpu[v]), min(cpu[v]) / base) for v, _ in variants))
    return min(cpu["record"]) / base


def recorded(a, name, exe, args, perf):
    """deepprof record of exe, repeated until it has SAMPLES samples (at most
    MAX_RUNS runs) and merged with `deepprof merge`: a run of about a second
    gives ~250 samples here (the per-thread CPU timer is the kernel's 250 Hz
    tick), whose shares err by ~2 points from counting alone. perf: each
    run under `perf record` too (its samples of the sampler left out). The
    merged profile's dump, its samples, the runs, perf's mean shares."""
    recs, n, k, theirs = [], 0, 0, []
    while n < SAMPLES and k < MAX_RUNS:
        rec = os.path.join(a.dir, "%s.rec%d.data" % (name, k))
        cmd = [a.deepprof, "record", "-o", rec, exe] + args
        if perf:
            pd = os.path.join(a.dir, "%s.rec%d.perf" % (name, k))
            sh(["perf", "record", "-q", "-g", "-e", "cpu-clock", "-F", "1000", "-o", pd, "--"] + cmd)
            theirs.append(perf_shares(a, pd))
        else:
            sh(cmd)
        recs.append(rec)
        n += self_shares(dump(a, rec))[1]
        k += 1
    j = merged(a, os.path.join(a.dir, name + ".rec.data"), recs)
    learn_aliases([m["path"] for m in j["modules"]])
    mean = {}
    for t in theirs:
        for key, v in t.items():
            mean[key] = mean.get(key, 0.0) + v / len(theirs)
    return j, n, k, mean


def merged(a, out, paths):
    sh([a.deepprof, "merge", "-o", out] + paths)
    for p in paths:
        os.unlink(p)
    return dump(a, out)


def instrumented(a, name, exe, args, runs, env=None):
    """An instrumented build's profile over runs runs, merged (as many as
    record's, for as many ticks)."""
    paths = []
    for i in range(runs):
        paths.append(os.path.join(a.dir, "%s.%d.data" % (name, i)))
        sh([exe] + args, env=dict(env or {}, DEEPPROF_FILE=paths[-1]))
    return merged(a, os.path.join(a.dir, name + ".data"), paths)


def run_real(a, lines, summary, perf_err, gp_err):
    """The bench's real programs (a.real: name, plain -O2 -g build, argv),
    as their Debian sources build them, inlining and all: record against
    perf on the same binary, and the overheads. (Against an instrumented
    build they are not compared: a plain build's samples of an inlined
    function land in its container, where the instrumented profile counts
    a call.)"""
    for name, exe, args in getattr(a, "real", None) or []:
        lines.append("")
        shown = " ".join(os.path.basename(x) if os.path.exists(x) else x if len(x) < 24 else x[:20] + "..."
                         for x in args)
        lines.append("%s (the bench's build, -O2 -g): %s" % (name, shown))
        j, n, k, theirs = recorded(a, name, exe, args, not perf_err)
        mine, n = self_shares(j)
        lines.append("  record: %d runs merged, %d samples at %.2f ms each (%d truncated, %d not unwound)"
                     % (k, n, j["header"]["ns_per_tick"] / 1e6, j["header"]["samples_truncated"],
                        j["header"]["samples_failed"]))
        worst = [("perf", vs_perf(lines, mine, theirs, k))] if not perf_err else []
        x = sampler_and_overhead(a, lines, name, exe, args, perf_err, gp_err)
        summary.append((name, worst, x))


def run(a):
    os.makedirs(a.dir, exist_ok=True)
    lines = ["", "deepprof record (issue 16): sampling unmodified -O2 -g -fno-inline programs",
             "CPU seconds, least of %d interleaved rounds; record at its default %s"
             % (a.runs, "1000 Hz asked (the kernel delivers ~250 Hz here)")]
    libs = shlex.split(a.libs)
    a.dir = os.path.abspath(a.dir)
    perf_err = tool_works(["perf", "record", "-e", "cpu-clock", "-o", os.path.join(a.dir, "probe.perf"),
                           "--", "/bin/true"], a.dir) if shutil.which("perf") else "perf not installed"
    gp_err = tool_works(["gprofng", "collect", "app", "-O", os.path.join(a.dir, "probe.er"), "/bin/true"],
                        a.dir) if shutil.which("gprofng") else "gprofng not installed"
    shutil.rmtree(os.path.join(a.dir, "probe.er"), ignore_errors=True)
    if perf_err:
        lines.append("perf record cannot run here: %s" % perf_err)
    if gp_err:
        lines.append("gprofng collect app cannot run here: %s" % gp_err)
    dcc = getattr(a, "deepprof_cc", None) or os.path.join(os.path.dirname(a.deepprof), "deepprof-cc")
    if not os.path.exists(dcc):
        lines.append("no deepprof-cc at %s: no comparison with the default instrumented build" % dcc)
        dcc = None
    summary = []
    for name, src, acc_args, time_args, quick_args in PROGRAMS:
        if a.quick:
            acc_args = time_args = quick_args
        plain = os.path.join(a.dir, name + "-plain")
        inst = os.path.join(a.dir, name + "-inst")
        plug = os.path.join(a.dir, name + "-plugin")
        s = os.path.join(HERE, src)
        # -fno-inline: an instrumented build reports an inlined function as
        # a call, a plain build's samples land in its container; the same
        # functions in both keep the comparison about sampling alone
        sh([a.cc, "-std=gnu11", "-O2", "-g", "-fno-inline", s, "-o", plain])
        sh([a.cc, "-std=gnu11", "-O2", "-g", "-fno-inline", "-finstrument-functions", s, "-o", inst,
            a.libprof] + libs)
        if dcc:
            sh([dcc, "-std=gnu11", "-O2", "-g", "-fno-inline", s, "-o", plug])
        lines.append("")
        lines.append("%s %s" % (name, " ".join(acc_args)))
        j, n, k, theirs = recorded(a, name, plain, acc_args, not perf_err)
        mine, n = self_shares(j)
        lines.append("  record: %d run%s, %d samples at %.2f ms each (%d truncated, %d not unwound)"
                     % (k, "s merged" if k > 1 else "", n, j["header"]["ns_per_tick"] / 1e6,
                        j["header"]["samples_truncated"], j["header"]["samples_failed"]))
        worst = []
        if not perf_err:
            worst.append(("perf", vs_perf(lines, mine, theirs, k)))
        # the instrumented builds' ticks in libprof's own code are charged
        # to deepprof_runtime, not to the program's functions: the shares
        # compared are of the program's ticks, and perf says whether the
        # runtime's share is right
        if dcc:
            pj = instrumented(a, name + ".plugin", plug, acc_args, k)
            theirs, _ = self_shares(pj)
            worst.append(("plugin", compare(
                lines, "self time: record vs the default instrumented build's ticks (deepprof-cc; "
                "%.1f%% in its runtime, left out)" % runtime_share(pj), mine, theirs, "plugin")))
            if not perf_err:
                worst.append(("perf on it", check_build(a, lines, name + ".plugin", plug, acc_args, k)))
            pcpu = min(timed([plug] + time_args, env={"DEEPPROF_FILE": os.path.join(a.dir, name + ".p2.data")})[0]
                       for _ in range(3))
            lines.append("    (the deepprof-cc build takes %.2fx the plain run's CPU: its inline hooks' "
                         "time, charged to the calling contexts)" % (pcpu / min(timed([plain] + time_args)[0]
                                                                                for _ in range(3))))
        # the -finstrument-functions build unwinds its ticks in libc too
        # (DEEPPROF_UNWIND=1), and charges a callee's prologue and epilogue
        # (outside its hooks) to it, as perf and record see them
        unwind = {"DEEPPROF_UNWIND": "1"}
        ij = instrumented(a, name + ".inst", inst, acc_args, k, unwind)
        theirs, _ = self_shares(ij)
        worst.append(("cyg", compare(
            lines, "self time: record vs the -finstrument-functions build's ticks (DEEPPROF_UNWIND=1; "
            "%.1f%% in its runtime, left out)" % runtime_share(ij), mine, theirs, "cyg")))
        if not perf_err:
            worst.append(("perf on it", check_build(a, lines, name + ".inst", inst, acc_args, k, unwind)))

        x = sampler_and_overhead(a, lines, name, plain, time_args, perf_err, gp_err)
        summary.append((name, worst, x))
    run_real(a, lines, summary, perf_err, gp_err)
    lines.append("")
    lines.append("record summary: largest top-10 self-time difference, overhead x plain")
    for name, worst, x in summary:
        lines.append("  %-8s %s  overhead %.3fx (target %.2f): %s" % (
            name, "  ".join("vs %s %.2f pp %s" % (w, d, "ok" if d <= TARGET_PP else "MISSED")
                            for w, d in worst), x, TARGET_X, "ok" if x <= TARGET_X else "MISSED"))
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deepprof", required=True)
    ap.add_argument("--deepprof-cc", default=None, help="default: beside --deepprof")
    ap.add_argument("--libprof", required=True)
    ap.add_argument("--libs", default="-lpthread")
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    try:
        print("\n".join(run(a)))
    except Fatal as e:
        print("bench: record: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
