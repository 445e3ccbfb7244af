#!/usr/bin/python3
"""tests/deps/run.py — the dependency suite (make check-deps): does
`mk/deps.sh --list` name every Debian package the build and the tests use,
and only those? check_deps.py beside this file finds the headers, libraries,
pkg-config modules, Python modules and programs the tree uses, maps each to
its Debian package and checks it against the closure of the list (see its
docstring); this suite runs it on the tree, then proves that it notices:

  * a package taken out of the list (DEEPPROF_DEPS_DROP, read by
    mk/deps.sh --list): python3-msgpack (a module), libjansson-dev (a
    header, a library, a pkg-config module), valgrind (a program),
    gcc-12-plugin-dev (the plugin's headers): exit 1 and the exact line;
  * a listed package nothing uses (DEEPPROF_EXTRA_DEPS=libjansson4, which
    make deps installs as libjansson-dev's dependency), one that is not
    installed, and the "# why PACKAGE:" reasons of mk/deps.sh;
  * what it finds, on a small made-up tree (--top): an import /usr/bin/python3
    cannot import, a program run through a helper that passes its argument
    to subprocess (and none through a helper that puts a program before it),
    a program a shell script runs, a header, a linked library.

The uses found in the tree are saved once and judged again under each
changed list (--uses). Scratch: BUILD/tests/deps. Last line:
"deps: N passed, N failed".

usage: run.py BUILD   (from the top of the tree; make passes PYTHON)
Part of deepprof's tests. MIT licence.
"""
import os
import re
import shutil
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import dptest  # noqa: E402  (tests/lib: the tally)

BUILD = os.path.abspath(sys.argv[1]) if len(sys.argv) == 2 else sys.exit("usage: run.py BUILD")
WORK = os.path.join(BUILD, "tests", "deps")
USES = os.path.join(WORK, "uses.json")
PYTHON = os.environ.get("PYTHON", "/usr/bin/python3")
CHECK = os.path.join(HERE, "check_deps.py")
T = dptest.Tally("deps")


def check_deps(args, env=None):
    """Run check_deps.py; (exit status, output)."""
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([PYTHON, CHECK, "--build", BUILD] + args, capture_output=True, text=True,
                       env=e, cwd=TOP, stdin=subprocess.DEVNULL, timeout=600)
    return p.returncode, p.stdout + p.stderr


def show(out, n=30):
    lines = out.rstrip("\n").splitlines()
    return "\n".join("     | " + l for l in lines[:n]) + ("\n     | ..." if len(lines) > n else "")


def expect(name, rc, out, want_rc, lines=(), patterns=(), absent=()):
    """One test: exit want_rc, every line of lines in out (exactly, as a
    problem line), every regex of patterns found, none of absent found."""
    got = [l.strip() for l in out.splitlines()]
    why = []
    if rc != want_rc:
        why.append("exit %d, expected %d" % (rc, want_rc))
    why += ["no line: %s" % l for l in lines if l not in got]
    why += ["nothing matches: %s" % p for p in patterns if not re.search(p, out, re.M)]
    why += ["should not say: %s" % p for p in absent if re.search(p, out, re.M)]
    T.result(not why, name, "; ".join(why) + "\n" + show(out))


def owner(path):
    """path's Debian package, by dpkg -S (not by the checker's own lookup)."""
    p = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
    return p.stdout.split(":")[0] if p.returncode == 0 else None


# ---------------------------------------------------------------- the tree itself

def t_tree():
    t0 = time.time()
    rc, out = check_deps(["--save-uses", USES])
    secs = time.time() - t0
    if rc == 2 or not os.path.exists(USES):
        T.abort("check_deps.py could not check the tree (exit %d):\n%s" % (rc, show(out, 60)))
    # its lines are the checks: "ok   what" or "FAIL what" then the problems
    n_ok = n_fail = 0
    for line in out.splitlines():
        print(line)
        if line.startswith("ok   "):
            n_ok += 1
        elif line.startswith("FAIL "):
            n_fail += 1
    T.passed += n_ok
    T.failed += n_fail
    T.check((rc == 0) == (n_fail == 0) and n_ok + n_fail > 0,
            "check_deps.py exit %d does not match its %d FAIL lines" % (rc, n_fail))
    print("     (the tree: %.1fs)" % secs)


# ---------------------------------------------------------------- packages taken out

def judged(env, args=()):
    return check_deps(["--uses", USES] + list(args), env)


def t_drop_msgpack():
    p = subprocess.run([PYTHON, "-I", "-c", "import msgpack; print(msgpack.__file__)"],
                       capture_output=True, text=True, cwd="/")
    path = p.stdout.strip()
    pkg = owner(path)
    rc, out = judged({"DEEPPROF_DEPS_DROP": "python3-msgpack"})
    expect("without python3-msgpack: tests/fuzz/run.py's import of msgpack is named", rc, out, 1,
           lines=["tests/fuzz/run.py imports msgpack (%s, package %s), which no package in "
                  "mk/deps.sh --list provides" % (path, pkg)],
           patterns=[r"^FAIL Python modules: not all provided by mk/deps.sh --list$"],
           absent=[r"^FAIL (headers|libraries|programs)"])


def t_drop_jansson():
    rc, out = judged({"DEEPPROF_DEPS_DROP": "libjansson-dev"})
    expect("without libjansson-dev: its header, library and pkg-config module are named", rc, out, 1,
           patterns=[r"^     analyses/\S+\.c includes /usr/include/jansson\.h \(package libjansson-dev\), "
                     r"which no package in mk/deps\.sh --list provides$",
                     r"^     \S.* links -ljansson \(/usr/lib/\S+/libjansson\.so, "
                     r"package libjansson-dev\), which no package in mk/deps\.sh --list provides$",
                     r"^     Makefile asks pkg-config for jansson \(\S+/jansson\.pc, package libjansson-dev\), "
                     r"which no package in mk/deps\.sh --list provides$"])


def t_drop_valgrind():
    path = shutil.which("valgrind")
    rc, out = judged({"DEEPPROF_DEPS_DROP": "valgrind"})
    expect("without valgrind: the cross-check's valgrind and callgrind_annotate are named", rc, out, 1,
           lines=["tests/xcheck/xcheck.py runs valgrind (%s, package %s), which no package in "
                  "mk/deps.sh --list provides" % (path, owner(path))],
           patterns=[r"^     tests/exports/run\.py runs callgrind_annotate \(\S+, package valgrind\)",
                     r"^     bench/run\.py runs valgrind \(\S+, package valgrind\), which no package "
                     r"in mk/deps\.sh --bench --list provides$"])


def t_drop_plugin_dev():
    rc, out = judged({"DEEPPROF_DEPS_DROP": "gcc-12-plugin-dev"})
    expect("without gcc-12-plugin-dev: the plugin's GCC headers are named", rc, out, 1,
           patterns=[r"^     compiler-plugins/\S+\.cc includes /usr/lib/gcc/\S+/plugin/include/\S+ "
                     r"\(package gcc-12-plugin-dev\), which no package in mk/deps\.sh --list provides$"])


# ---------------------------------------------------------------- packages put in

def t_unused():
    rc, out = judged({"DEEPPROF_EXTRA_DEPS": "libjansson4"})
    expect("libjansson4 listed: named as used by nothing", rc, out, 1,
           patterns=[r"^     mk/deps\.sh --list names libjansson4, which nothing uses: .*"
                     r"no \"# why libjansson4:\" line in mk/deps\.sh"],
           absent=[r"^FAIL (headers|libraries|programs|Python)"])


def t_absent():
    rc, out = judged({"DEEPPROF_EXTRA_DEPS": "deepprof-test-absent-a"})
    expect("a listed package that is not installed is named", rc, out, 1,
           patterns=[r"^     mk/deps\.sh --list names deepprof-test-absent-a, which is not installed"])


def t_reasons():
    os.makedirs(WORK, exist_ok=True)
    with open(os.path.join(TOP, "mk", "deps.sh")) as f:
        text = f.read()
    good = os.path.join(WORK, "deps-why.sh")
    with open(good, "w") as f:
        f.write(text.replace("set -eu\n", "set -eu\n# why libjansson4: a reason the test gives\n", 1))
    rc, out = judged({"DEEPPROF_EXTRA_DEPS": "libjansson4"}, ["--deps-sh", good])
    expect("a \"# why\" line lets a listed package stand without a use", rc, out, 0)
    stale = os.path.join(WORK, "deps-stale.sh")
    with open(stale, "w") as f:
        f.write(text.replace("set -eu\n", "set -eu\n# why deepprof-test-gone: no longer listed\n", 1))
    rc, out = judged({}, ["--deps-sh", stale])
    expect("a \"# why\" line for a package not listed is named", rc, out, 1,
           patterns=[r"gives a reason for deepprof-test-gone .*which it does not list"])


def t_deps_sh_drop():
    def listed(env):
        e = dict(os.environ)
        e.update(env)
        p = subprocess.run(["sh", "mk/deps.sh", "--list"], capture_output=True, text=True,
                           env=e, cwd=TOP)
        return p.returncode, p.stdout.split()
    rc0, plain = listed({"DEEPPROF_DEPS_DROP": "", "DEEPPROF_EXTRA_DEPS": ""})
    rc1, dropped = listed({"DEEPPROF_DEPS_DROP": "python3-msgpack  valgrind", "DEEPPROF_EXTRA_DEPS": ""})
    ok = (rc0 == 0 and rc1 == 0 and "python3-msgpack" in plain and "valgrind" in plain and
          dropped == [p for p in plain if p not in ("python3-msgpack", "valgrind")])
    T.result(ok, "mk/deps.sh --list leaves out DEEPPROF_DEPS_DROP's packages, the rest in order",
             "plain: %s; dropped: %s" % (plain, dropped))


# ---------------------------------------------------------------- the finding, on a made-up tree

FIXTURE = {
    "Makefile": """\
BUILD ?= build
CC := gcc
PYTHON := /usr/bin/python3
CHECKS := check-x
all: $(BUILD)/prog
$(BUILD)/prog: src/prog.c
\t$(CC) -std=gnu11 -o $@ $< -ljansson
check-x: $(BUILD)/prog
\t$(PYTHON) tests/x/run.py
\tsh tests/x/run.sh
""",
    "src/prog.c": """\
#include <stdio.h>
#include <jansson.h>
int main(void) { json_t *j = json_integer(1); printf("%d\\n", (int)json_integer_value(j)); return 0; }
""",
    "tests/x/run.py": """\
import subprocess
import msgpack
import deepprof_no_such_module
import helper

DEEPPROF = "/nonexistent/deepprof"


def run(args):
    return subprocess.run(args, capture_output=True)


def dp(args):
    return subprocess.run([DEEPPROF] + args, capture_output=True)


run(["readelf", "-S", "x"])
dp(["top", "--limit=3"])
cmd = ["objdump", "-d", "x"]
run(cmd)
""",
    "tests/x/helper.py": "",
    "tests/x/run.sh": """\
#!/bin/sh
# tar is what every Debian system has; callgrind_annotate is valgrind's
awk 'BEGIN { w = 1 }' </dev/null
tar --version >/dev/null && callgrind_annotate out
""",
    "mk/deps.sh": """\
#!/bin/sh
# the made-up tree's list: what it uses but valgrind, libjansson-dev and
# python3-msgpack (binutils, for readelf and objdump, comes with gcc), and
# make, which it does not use
printf '%s\\n' gcc libc6-dev make python3
""",
}


def t_fixture():
    top = os.path.join(WORK, "tree")
    shutil.rmtree(top, ignore_errors=True)
    for path, text in FIXTURE.items():
        os.makedirs(os.path.dirname(os.path.join(top, path)), exist_ok=True)
        with open(os.path.join(top, path), "w") as f:
            f.write(text)
    e = {k: "" for k in ("MAKEFLAGS", "MFLAGS", "DEEPPROF_DEPS_DROP", "DEEPPROF_EXTRA_DEPS")}
    p = subprocess.run([PYTHON, CHECK, "--build", os.path.join(top, "build"), "--top", top],
                       capture_output=True, text=True, env=dict(os.environ, **e), cwd=top,
                       stdin=subprocess.DEVNULL, timeout=300)
    out = p.stdout + p.stderr
    L = "which no package in mk/deps.sh --list provides"
    callgrind = shutil.which("callgrind_annotate")
    expect("made-up tree: the import that fails, the modules, programs, header and library it uses",
           p.returncode, out, 1,
           lines=["tests/x/run.py imports deepprof_no_such_module, which /usr/bin/python3 -I cannot "
                  "import (ModuleNotFoundError: No module named 'deepprof_no_such_module')",
                  "tests/x/run.sh runs callgrind_annotate (%s, package %s), %s" % (callgrind, owner(callgrind), L)],
           patterns=[r"^     tests/x/run\.py imports msgpack \(\S+, package python3-msgpack\), " + re.escape(L),
                     r"^     src/prog\.c includes /usr/include/jansson\.h \(package libjansson-dev\), " + re.escape(L),
                     r"^     the build of \$\(BUILD\)/prog links -ljansson \(\S+, package libjansson-dev\), " + re.escape(L),
                     r"^ok   programs: |^FAIL programs: ",
                     r"^FAIL every package in mk/deps\.sh --list is used",
                     r"^     mk/deps\.sh --list names make, which nothing uses"],
           absent=[r"runs top\b", r"runs w\b", r"imports helper", r"runs tar .*provides",
                   r"runs readelf .*provides", r"runs objdump .*provides", r"names (gcc|python3),"])
    # and what it found there (verbose): readelf and objdump through run()
    p = subprocess.run([PYTHON, CHECK, "--build", os.path.join(top, "build"), "--top", top, "--verbose"],
                       capture_output=True, text=True, env=dict(os.environ, **e), cwd=top,
                       stdin=subprocess.DEVNULL, timeout=300)
    expect("made-up tree: programs run through a helper are found (readelf, objdump), not top",
           p.returncode, p.stdout + p.stderr, 1,
           patterns=[r"program +core +tests/x/run\.py -> readelf /\S+ \['binutils'\]",
                     r"program +core +tests/x/run\.py -> objdump /\S+ \['binutils'\]"],
           absent=[r"tests/x/run\.py -> top\b"])


def main():
    os.makedirs(WORK, exist_ok=True)
    t0 = time.time()
    t_tree()
    for t in (t_drop_msgpack, t_drop_jansson, t_drop_valgrind, t_drop_plugin_dev, t_unused,
              t_absent, t_reasons, t_deps_sh_drop, t_fixture):
        try:
            t()     # each counts its own results
        except Exception:
            T.result(False, t.__name__, traceback.format_exc().strip())
    print("     (suite: %.1fs)" % (time.time() - t0))
    return T.end()


if __name__ == "__main__":
    sys.exit(main())
