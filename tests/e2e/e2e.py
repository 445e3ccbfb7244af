"""e2e.py — shared helpers for deepprof's end-to-end tests: build a test
program with libprof, run it, read its Deep.data through `deepprof dump
--json`, and look up nodes by function name. Stdlib only.
Part of deepprof's end-to-end tests. MIT licence.
"""

import glob
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from dptest import Fail, eq, check  # noqa: E402  (tests/lib; other suites import them from here too)


class Ctx:
    """One test's context: where things are, and a scratch directory."""

    def __init__(self, args, name):
        self.a = args
        self.name = name
        self.srcdir = os.path.dirname(os.path.abspath(__file__))
        self.dir = os.path.abspath(os.path.join(args.build, "e2e", name))
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.lib = os.path.abspath(os.path.join(args.build, "lib"))

    def path(self, *p):
        return os.path.join(self.dir, *p)

    def compile(self, src, out=None, link="static", extra=(), opt="-O0"):
        """Build tests/e2e/<src> at opt (-O0) -g -finstrument-functions with libprof:
        link "static" (libprof.a) or "pkg-config" (libprof.so through
        build/lib/pkgconfig/libprof.pc). Returns the executable's path."""
        exe = self.path(out or os.path.splitext(src)[0])
        cmd = [self.a.cc, "-std=gnu11", opt, "-g", "-finstrument-functions",
               "-Wall", "-pthread", "-I" + os.path.join(self.lib, "..", "include")]
        cmd += shlex.split(self.a.cflags) + list(extra)
        cmd += [os.path.join(self.srcdir, src), "-o", exe]
        env = dict(os.environ)
        if link == "static":
            cmd += [os.path.join(self.lib, "libprof.a"), "-lpthread"]
        elif link == "pkg-config":
            env["PKG_CONFIG_PATH"] = os.path.join(self.lib, "pkgconfig")
            r = subprocess.run(["pkg-config", "--cflags", "--libs", "libprof"], env=env,
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise Fail("pkg-config libprof failed: " + r.stderr.strip())
            cmd += shlex.split(r.stdout)
        else:
            raise ValueError(link)
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise Fail("build of %s failed:\n%s" % (src, r.stderr.strip()))
        return exe

    def run(self, exe, args=(), env=None, rc=0, timeout=120):
        """Run exe in the scratch dir; check its exit status (rc < 0: died of
        signal -rc). Returns the CompletedProcess (text stdout/stderr)."""
        e = dict(os.environ)
        for k in ("DEEPPROF_FILE", "DEEPPROF_HZ"):
            e.pop(k, None)
        e.update(env or {})
        r = subprocess.run([exe] + list(args), cwd=self.dir, env=e, capture_output=True,
                           text=True, timeout=timeout)
        if r.returncode != rc:
            raise Fail("%s exited with %d, expected %d; stderr: %s"
                       % (os.path.basename(exe), r.returncode, rc, r.stderr.strip()[-800:]))
        return r

    def spawn(self, exe, args=(), env=None):
        e = dict(os.environ)
        for k in ("DEEPPROF_FILE", "DEEPPROF_HZ"):
            e.pop(k, None)
        e.update(env or {})
        return subprocess.Popen([exe] + list(args), cwd=self.dir, env=e,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=default_signals)

    def dump(self, name="Deep.data"):
        """The profile at <scratch>/<name>, as `deepprof dump --json` shows it."""
        path = self.path(name)
        check(os.path.exists(path), "%s was not written" % path)
        r = subprocess.run([self.a.deepprof, "dump", "--json", path], capture_output=True,
                           text=True)
        if r.returncode != 0:
            raise Fail("deepprof dump --json %s failed (%d): %s"
                       % (path, r.returncode, r.stderr.strip()))
        try:
            j = json.loads(r.stdout)
        except ValueError as e:
            raise Fail("deepprof dump --json %s: not JSON: %s" % (path, e))
        return Profile(j, path)


def default_signals():
    """In a spawned program, SIGINT and SIGQUIT as a program started from a
    terminal has them: a test run in the background by a non-interactive
    shell inherits them ignored, and libprof installs its handler only over
    the default (t010 then waited for ever for a SIGINT that was ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


class Profile:
    """A dumped profile with lookups by function name."""

    def __init__(self, j, path):
        self.j = j
        self.path = path
        self.h = j["header"]
        self.ps = j["ps"]
        self.css = j["css"]
        self.pd = j["pd"]
        self.csd = j["csd"]
        self.threads = j["threads"]

    def thread_of_csd(self, c):
        return self.pd[c["caller_pd"] - 1]["thread"]

    def csds(self, caller=None, callee=None, thread=None):
        out = []
        for c in self.csd:
            if caller is not None and c["caller"] != caller:
                continue
            if callee is not None and c["callee"] != callee:
                continue
            if thread is not None and self.thread_of_csd(c) != thread:
                continue
            out.append(c)
        return out

    def one(self, caller, callee, thread=None):
        """The single csd from caller to callee (in thread); fails otherwise."""
        cs = self.csds(caller, callee, thread)
        if len(cs) != 1:
            raise Fail("%s: expected one csd %s -> %s%s, found %d"
                       % (self.path, caller, callee,
                          "" if thread is None else " in thread %d" % thread, len(cs)))
        return cs[0]

    def total(self, caller=None, callee=None, field="calls", thread=None):
        return sum(c[field] for c in self.csds(caller, callee, thread))

    def pds(self, name, thread=None):
        return [p for p in self.pd if p["name"] == name
                and (thread is None or p["thread"] == thread)]

    def counts(self, caller, callee, thread=None):
        """(calls, exits, nonlocal_exits) of the single csd caller -> callee."""
        c = self.one(caller, callee, thread)
        return (c["calls"], c["exits"], c["nonlocal_exits"])

    def css_of(self, c):
        return self.css[c["css"] - 1]

    def check_invariants(self, max_lost=0):
        """What every profile libprof writes must satisfy. max_lost: how many
        events the test allows the runtime to have dropped (a signal handler's
        hooks that came while the interrupted hook was making nodes)."""
        h = self.h
        eq(h["magic"], "deepprof", "magic")
        eq(h["version"], 1, "version")
        eq(h["clock"], "calls", "clock")
        eq(h["calls"], sum(c["calls"] for c in self.csd), "header calls == sum of csd calls")
        eq(h["cscs"], h["calls"], "header cscs == calls")
        eq(h["allocs"], sum(c["allocs"] for c in self.csd) + h["allocs_outside"],
           "header allocs == csd allocs + outside")
        eq(h["bytes"], sum(c["bytes"] for c in self.csd) + h["bytes_outside"],
           "header bytes == csd bytes + outside")
        eq(h["ticks"], sum(t["ticks"] for t in self.threads), "header ticks == thread ticks")
        eq(h["ticks"], sum(c["ticks"] for c in self.csd) + h["ticks_outside"],
           "ticks == csd ticks + ticks_outside")
        if max_lost:
            check(h["lost"] <= max_lost, "lost: %d, at most %d" % (h["lost"], max_lost))
        else:
            eq(h["lost"], 0, "lost")
        check(h["mem_bytes"] > 0, "mem_bytes > 0")
        eq(self.ps[0]["name"], "<root>", "PS 1 is <root>")
        for c in self.csd:
            eq(c["cscs"], c["calls"], "csd %d cscs == calls" % c["id"])
            if h["final"]:
                eq(c["calls"], c["exits"] + c["nonlocal_exits"],
                   "csd %d (%s -> %s) calls == exits + nonlocal_exits"
                   % (c["id"], c["caller"], c["callee"]))
        for t in self.threads:
            eq(self.pd[t["root_pd"] - 1]["ps"], 1, "thread %d root pd is a <root> pd" % t["id"])


def died_of(sig):
    return -int(sig)


SIGTERM = signal.SIGTERM


def takeprof_runs(ctx, exe, check_profile):
    """Run s-takeprof.c's exe each way it takes SIGPROF (SIG_DFL for every
    signal, SIG_IGN, a handler of its own): it runs to its end, its handler
    gets no tick, one line says the clock stopped, the header's timer_hz
    is 0 and calls are counted; check_profile(p) checks the rest."""
    for how in ("dfl", "ign", "handler"):
        r = ctx.run(exe, [how])
        eq(r.stdout.splitlines()[-1], "survived", "the program ran to its end (%s)" % how)
        if how == "handler":
            eq(r.stdout.splitlines()[0], "SIGPROFs: 0", "no tick reached the program's handler")
        eq([ln for ln in r.stderr.splitlines() if "SIGPROF" in ln],
           ["deepprof: the program takes SIGPROF for itself: clock ticks stop here "
            "(calls and call sequence counts go on)"], "one line on stderr (%s)" % how)
        p = ctx.dump()
        check_profile(p)
        eq(p.total(caller="main", callee="burn"), 2, "main -> burn (%s)" % how)
        eq(p.h["timer_hz"], 0, "the header says the clock stopped (%s)" % how)
        check(p.h["ticks"] < 40, "few ticks, from before the program took SIGPROF (%s): %d"
              % (how, p.h["ticks"]))


CHURN_N, CHURN_K, CHURN_RSS_MAX = 3000, 4, 24     # threads, at a time, MB


def churn_runs(ctx, exe, check_profile):
    """Run s-churn.c's exe (CHURN_N threads, CHURN_K at a time) in its own
    process, for its peak RSS: its output, one graph per thread with exact
    counts, at most 48 MB mapped by the runtime and CHURN_RSS_MAX MB
    resident; check_profile(p) checks the rest."""
    N, K, RSS_MAX = CHURN_N, CHURN_K, CHURN_RSS_MAX
    env = dict(os.environ)
    for k in ("DEEPPROF_FILE", "DEEPPROF_HZ"):
        env.pop(k, None)
    out_path, err_path = ctx.path("out.txt"), ctx.path("err.txt")
    with open(out_path, "w") as o, open(err_path, "w") as e:
        pid = os.fork()
        if pid == 0:    # the child: its own rusage, from wait4
            try:
                os.chdir(ctx.dir)
                os.dup2(o.fileno(), 1)
                os.dup2(e.fileno(), 2)
                os.execve(exe, [exe, str(N), str(K)], env)
            finally:
                os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    with open(err_path) as e:
        eq(os.waitstatus_to_exitcode(status), 0, "exit status (stderr: %s)" % e.read()[-400:])
    want = sum(sum(i * 7 + 1 for i in range(100 + j)) for j in range(K)) * (N // K)
    with open(out_path) as o:
        eq(int(o.read()), want, "the program's output")
    prof = ctx.dump()
    check_profile(prof)
    eq(len(prof.threads), N + 1, "threads")
    eq(sum(t["exited"] for t in prof.threads), N, "ended threads")
    runs = prof.csds("<root>", "run")
    eq(len(runs), N, "<root> -> run csds (one per thread)")
    eq({(c["calls"], c["exits"]) for c in runs}, {(1, 1)}, "calls, exits of <root> -> run")
    eq(sum(c["calls"] for c in prof.csds("run", "work")), N, "run -> work calls")
    leaves = prof.csds("work", "leaf")
    eq(len(leaves), N, "work -> leaf csds")
    eq(sum(c["calls"] for c in leaves), sum(100 + j for j in range(K)) * (N // K),
       "work -> leaf calls")
    eq(sorted({c["calls"] for c in leaves}), [100 + j for j in range(K)], "leaf calls per thread")
    # mapped by the runtime: the threads' records and graphs, and a few
    # shadow stacks (72 KB each) and outer[] arrays; one of each per thread
    # was 3000 x 80 KB = 240 MB
    mb = prof.h["mem_bytes"] / 2**20
    check(mb < 48, "the runtime mapped %.1f MB for %d threads (at most 48)" % (mb, N))
    rss = ru.ru_maxrss / 1024
    check(rss < RSS_MAX, "peak RSS %.1f MB for %d threads (at most %d)" % (rss, N, RSS_MAX))


def stress_objects(ctx):
    """libprof built with -DDP_STRESS into the scratch dir, as objects: the
    sources of libprof.a (not record.c, which only deepprof record's
    libprof-record.so has: its signal-mask wrappers are sigmask.c's)."""
    top = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    objs = []
    for src in sorted(glob.glob(os.path.join(top, "libprof", "*.c"))):
        if os.path.basename(src) in ("record.c", "sigwrap.c", "dlwrap.c", "procwrap.c"):  # the rest: --wrap
            continue
        obj = ctx.path(os.path.basename(src)[:-2] + ".o")
        cmd = [ctx.a.cc, "-std=gnu11", "-g", "-O2", "-D_GNU_SOURCE", "-DDP_STRESS",
               "-fvisibility=hidden", "-fno-builtin", "-fno-omit-frame-pointer",
               "-ftls-model=initial-exec", "-I" + os.path.join(top, "compiler-plugins")]
        cmd += shlex.split(ctx.a.cflags) + ["-c", src, "-o", obj]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise Fail("stress build of %s failed:\n%s" % (src, r.stderr.strip()))
        objs.append(obj)
    return objs
