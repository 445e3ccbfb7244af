"""prt.py — helpers for the plugin-mode runtime tests: build programs with
build/bin/deepprof-cc (the GCC plugin, its default ABI or the one --abi
names, linked with libprof), run
them, and check what every plugin-mode profile must satisfy. Reuses
tests/e2e/e2e.py for running and reading profiles. Stdlib only.
Part of deepprof's tests. MIT licence.
"""

import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
E2E = os.path.join(os.path.dirname(HERE), "e2e")
sys.path.insert(0, E2E)

import e2e  # noqa: E402
from e2e import eq, check, Fail  # noqa: E402,F401


class Ctx(e2e.Ctx):
    """e2e's context, building with deepprof-cc in plugin mode."""

    def __init__(self, args, name):
        super().__init__(args, name)
        sub = "plugin-rt-abi%d" % args.abi if args.abi else "plugin-rt"
        self.dir = os.path.abspath(os.path.join(args.build, sub, name))
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.cc = os.path.abspath(os.path.join(args.build, "bin", "deepprof-cc"))

    def src(self, name):
        """A source of this suite, or of tests/e2e (s-*.c)."""
        p = os.path.join(HERE, name)
        return p if os.path.exists(p) else os.path.join(E2E, name)

    def build(self, srcs, out, opt="-O0", extra=(), shared=False, dp_args=(), libs=()):
        """deepprof-cc opt -g srcs -o out libs (a shared library with shared);
        srcs are names in this suite or tests/e2e, or paths. Returns out's path."""
        exe = self.path(out)
        if self.a.abi:
            dp_args = ["abi=%d" % self.a.abi] + list(dp_args)
        cmd = [self.cc] + ["--deepprof-arg=" + a for a in dp_args]
        cmd += ["-std=gnu11", "-g", "-Wall", "-pthread"] + opt.split()
        cmd += shlex.split(self.a.cflags) + list(extra)
        if shared:
            cmd += ["-shared", "-fPIC"]
        cmd += [s if os.path.isabs(s) else self.src(s) for s in srcs] + ["-o", exe] + list(libs)
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=self.dir)
        if r.returncode != 0:
            raise Fail("%s failed:\n%s" % (" ".join(cmd), r.stderr.strip()[-2000:]))
        return exe

    def compile(self, src, out=None, link="static", extra=(), opt="-O0"):
        return self.build([src], out or os.path.splitext(src)[0], opt=opt, extra=extra)

    def like_plain(self, name, args=(), plain=None, opts=("-O0", "-O2")):
        """Source NAME built at each of opts, run with args and the clock off,
        printing what the plain build prints (plain, if given, stripped);
        yields (opt, exe, profile), the profile checked by invariants()."""
        want = self.plain_output(name, args)
        if plain is not None:
            eq(want.strip(), plain, "plain output")
        for opt in opts:
            exe = self.build([name], os.path.splitext(name)[0] + opt, opt=opt)
            r = self.run(exe, list(args), env={"DEEPPROF_HZ": "0"})
            eq(r.stdout, want, "output " + opt)
            p = self.dump()
            invariants(p)
            yield opt, exe, p

    def plain_output(self, name, args=()):
        """What plain gcc -O2's build of source NAME prints, run with args."""
        exe = self.path(os.path.splitext(name)[0] + "-plain")
        subprocess.run(["gcc", "-std=gnu11", "-O2", self.src(name), "-o", exe], check=True)
        return subprocess.run([exe] + list(args), capture_output=True, text=True, check=True).stdout


def counts(p, caller, callee, keys=("calls", "exits")):
    """The csds from caller to callee in profile p, each as the tuple of
    its keys, sorted."""
    return sorted(tuple(c[k] for k in keys) for c in p.csds(caller, callee))


def invariants(p, lost=0):
    """What every plugin-mode profile satisfies (e2e's, for clock calls+loops);
    lost: the events the runtime counts as lost, 0 but where a test says."""
    h = p.h
    eq(h["magic"], "deepprof", "magic")
    eq(h["clock"], "calls+loops", "clock")
    eq(h["calls"], sum(c["calls"] for c in p.csd), "header calls == sum of csd calls")
    eq(h["cscs"], sum(c["cscs"] for c in p.csd), "header cscs == sum of csd cscs")
    eq(h["allocs"], sum(c["allocs"] for c in p.csd) + h["allocs_outside"], "allocs")
    eq(h["bytes"], sum(c["bytes"] for c in p.csd) + h["bytes_outside"], "bytes")
    eq(h["ticks"], sum(c["ticks"] for c in p.csd) + h["ticks_outside"], "ticks")
    eq(h["lost"], lost, "lost")
    eq(p.ps[0]["name"], "<root>", "PS 1 is <root>")
    for c in p.csd:
        check(c["cscs"] >= c["calls"], "csd %d cscs >= calls" % c["id"])
        if h["final"]:
            eq(c["calls"], c["exits"] + c["nonlocal_exits"],
               "csd %d (%s -> %s) calls == exits + nonlocal_exits"
               % (c["id"], c["caller"], c["callee"]))
    for t in p.threads:
        eq(p.pd[t["root_pd"] - 1]["ps"], 1, "thread %d root pd is a <root> pd" % t["id"])
    # a procedure of the test's own code (a module built in the profile's
    # directory) comes from a plugin table: named, with its file and line
    # (a clock tick landing in libc makes procedures of libc's frames, with
    # no file: 1 run in 3 of t032's 3000 threads under load)
    here = os.path.realpath(os.path.dirname(os.path.abspath(p.path)))
    ours = {m["id"] for m in p.j.get("modules", [])
            if m.get("path") and os.path.realpath(m["path"]).startswith(here + os.sep)}
    for s in p.ps[1:]:
        if s["module"] in ours:
            check(s["name"] and s["file"] and s["line"] > 0, "ps %d has name, file, line" % s["id"])
    # the runtime's own ticks (libprof/timer.c) hang from a css that is no
    # call site of the program's
    runtime = {c["css"] for c in p.csd if c["callee"] == "deepprof_runtime"}
    for s in p.css:
        if s["kind"] in ("normal", "indirect", "external") and s["id"] not in runtime:
            check(s["file"] and s["line"] > 0 and s["col"] > 0,
                  "css %d (%s) has file:line:col" % (s["id"], s["kind"]))


def site(p, c):
    """'file:line:col' of csd c's call site (file's basename)."""
    s = p.css_of(c)
    return "%s:%d:%d" % (os.path.basename(s["file"] or "?"), s["line"], s["col"])


def kind(p, c):
    return p.css_of(c)["kind"]
