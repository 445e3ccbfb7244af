"""dptest.py — what deepprof's Python test suites share: running a command
in the C locale, a tally of checks and named tests that prints each failure
and ends the suite with its "<suite>: N passed, N failed" line, the loop
that runs named tests (functions, or tNNN_*.py modules) into a tally, and
the checks tests make (Fail, eq, check).
Stdlib only. A suite's run.py puts this directory on sys.path.
Part of deepprof's tests. MIT licence.
"""

import argparse
import glob
import importlib.util
import os
import shutil
import subprocess
import sys
import time
import traceback


class Fail(AssertionError):
    """A check of a test failed (what eq and check raise)."""


def eq(actual, expected, what):
    if actual != expected:
        raise Fail("%s: expected %r, got %r" % (what, expected, actual))


def check(cond, what):
    if not cond:
        raise Fail(what)


class BuildCtx:
    """One test's scratch directory BUILD/SUITE/NAME (made afresh), the
    build's deepprof-cc (cc) and deepprof (dp), and run(): a command in
    that directory without the caller's DEEPPROF_FILE or OMP_NUM_THREADS
    (plus env), failing the test unless it exits rc (None: any)."""

    def __init__(self, build, suite, name):
        self.dir = os.path.abspath(os.path.join(build, suite, name))
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.cc = os.path.abspath(os.path.join(build, "bin", "deepprof-cc"))
        self.dp = os.path.abspath(os.path.join(build, "bin", "deepprof"))

    def path(self, *p):
        return os.path.join(self.dir, *p)

    def run(self, cmd, rc=0, env=None):
        e = dict(os.environ)
        e.pop("DEEPPROF_FILE", None)
        e.pop("OMP_NUM_THREADS", None)
        e.update(env or {})
        r = subprocess.run(cmd, cwd=self.dir, capture_output=True, text=True, env=e, timeout=300)
        if rc is not None and r.returncode != rc:
            raise Fail("%s exited %d (expected %d): %s" % (" ".join(cmd), r.returncode, rc,
                                                           r.stderr.strip()[-1500:]))
        return r


def run(args, cwd=None, env=None, timeout=300):
    """Run args with LC_ALL=C (plus env), stdin closed, text output captured."""
    e = dict(os.environ)
    e["LC_ALL"] = "C"
    if env:
        e.update(env)
    return subprocess.run(args, capture_output=True, text=True, env=e, cwd=cwd,
                          stdin=subprocess.DEVNULL, timeout=timeout)


def must(tally, args, cwd=None, env=None):
    """run(), but a command that fails stops the suite (tally.abort) with its output."""
    p = run(args, cwd, env)
    if p.returncode != 0:
        tally.abort("command failed (%d): %s\n%s%s" % (p.returncode, " ".join(args), p.stdout, p.stderr))
    return p


class Tally:
    """The passed and failed counts of one suite."""

    def __init__(self, suite):
        self.suite = suite
        self.passed = 0
        self.failed = 0

    def check(self, cond, what):
        """Count one check; print "FAIL: what" when cond is false. Returns cond."""
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: " + what)
        return cond

    def result(self, ok, name, why="", show_ok=True, seconds=None):
        """Count one named test: "ok   name" (when show_ok) or "FAIL name: why"."""
        if ok:
            self.passed += 1
            if show_ok:
                print("ok   %s%s" % (name, "" if seconds is None else " (%.1fs)" % seconds))
        else:
            self.failed += 1
            print("FAIL %s: %s" % (name, why))
        sys.stdout.flush()

    def end(self):
        """Print the suite's last line; the exit status: 1 if anything failed."""
        print("%s: %d passed, %d failed" % (self.suite, self.passed, self.failed))
        sys.stdout.flush()
        return 1 if self.failed else 0

    def abort(self, why):
        """Stop the suite early: say why, count it as one more failure, exit."""
        print("%s: %s" % (self.suite, why))
        self.failed += 1
        sys.exit(self.end())


def run_each(tally, tests, fail=(), show_ok=True, tag="", timed=False):
    """Run each (name, call) of tests into tally. An exception of a type in
    fail is the test's own verdict (its message is the why); any other is
    a crash of the test, reported with its traceback."""
    for name, call in tests:
        t0 = time.time()
        try:
            call()
        except fail as e:
            tally.result(False, name + tag, e)
        except Exception:
            tally.result(False, name + tag, traceback.format_exc().strip())
        else:
            tally.result(True, name + tag, show_ok=show_ok,
                         seconds=time.time() - t0 if timed else None)


def run_stderr_on_tty(args, timeout=120):
    """Run args with stderr on a pseudo-terminal (stdout piped, stdin
    closed): (the CompletedProcess, every byte the terminal got)."""
    import pty
    master, slave = pty.openpty()
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
                       text=True, timeout=timeout)
    os.close(slave)
    tty = b""
    try:
        while True:
            chunk = os.read(master, 4096)
            if not chunk:
                break
            tty += chunk
    except OSError:
        pass
    os.close(master)
    return p, tty


def run_into_fifo(args, fifo, timeout=60):
    """Make the FIFO fifo, and run args (which write into it) with a
    reader on it: (the CompletedProcess, or None when args ran past
    timeout seconds, and the list of what the reader read: one bytes
    object once it saw end of file)."""
    import threading
    os.mkfifo(fifo)
    got = []

    def reader():
        with open(fifo, "rb") as f:
            got.append(f.read())
    # a daemon: a reader that never sees end of file must not hold the suite
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, got        # (args was killed: no writer is left blocked)
    t.join(10)
    return p, got


def build_suite_main(suite, tests):
    """The main() of a suite of tests that build in BUILD/SUITE/NAME:
    `run.py [--build DIR] [TEST...]`; tests are (name, fn(args, name)),
    each run with the parsed arguments and its name, Fail its verdict.
    Returns the exit status (Tally.end)."""
    T = Tally(suite)
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("tests", nargs="*")
    a = ap.parse_args()
    run_each(T, [(name, lambda fn=fn, name=name: fn(a, name))
                 for name, fn in tests if selected(name, a.tests)], fail=Fail, timed=True)
    return T.end()


def suite_start(name, make_suite):
    """The start of a suite run as `run.py [--build DIR] [--cc CC] [--cflags F]
    [TEST...]`: its arguments, its tally, and make_suite(args), whose
    failure stops the suite."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--cflags", default="")
    ap.add_argument("tests", nargs="*")
    a = ap.parse_args()
    T = Tally(name)
    try:
        s = make_suite(a)
    except Exception as e:
        T.abort("cannot start: %s" % e)
    return a, T, s


def run_tests(tally, suite, tests, only, fail=()):
    """run_each() over test functions taking the suite, those selected by only."""
    run_each(tally, [(t.__name__, lambda t=t: t(suite)) for t in tests
                     if selected(t.__name__, only)], fail=fail)


def setup(tally, what, make):
    """make() (the setup of a group of cases), or [] with its crash counted
    as one failed "<what> setup"."""
    try:
        return make()
    except Exception:
        tally.result(False, what + " setup", traceback.format_exc().strip())
        return []


def selected(name, only):
    """Whether test name is among only (prefixes, e.g. t003 or t_fib); all when only is empty."""
    return not only or any(name.startswith(x) for x in only)


def test_modules(here, only=()):
    """The tNNN_*.py test modules of directory here (those of only), in
    order, as (name, load): load() imports the module and returns it."""
    def loader(path, name):
        def load():
            spec = importlib.util.spec_from_file_location(name, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            return mod
        return load
    out = []
    for f in sorted(glob.glob(os.path.join(here, "t[0-9][0-9][0-9]_*.py"))):
        name = os.path.basename(f)[:-3]
        if selected(name, only):
            out.append((name, loader(f, name)))
    return out
