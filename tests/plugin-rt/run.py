#!/usr/bin/python3
"""run.py — libprof's plugin-mode tests: every tests/plugin-rt/tNNN_*.py
builds its program(s) (from this directory or tests/e2e) with
build/bin/deepprof-cc (the GCC plugin, its default ABI v2 or, with --abi 1,
ABI v1) and libprof, runs them and
checks exact numbers from `deepprof dump --json`. Ends with
"plugin-rt: N passed, N failed"; exits 1 if any test failed.

    run.py --build BUILD_DIR [--deepprof BIN] [--cflags FLAGS] [--abi 1|2] [TEST...]

Part of deepprof's tests. MIT licence.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import dptest  # noqa: E402
import prt  # noqa: E402


def main():
    T = dptest.Tally("plugin-rt")
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--deepprof", default=None)
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--cflags", default="", help="extra flags for test programs (sanitizers)")
    ap.add_argument("--abi", type=int, default=0, choices=(0, 1, 2),
                    help="the plugin ABI to build with: 1 or 2 (default 0: pass none, the plugin's default)")
    ap.add_argument("tests", nargs="*", help="run only these (e.g. t003 or t003_fib)")
    a = ap.parse_args()
    if a.deepprof is None:
        a.deepprof = os.path.join(a.build, "bin", "deepprof")
    a.deepprof = os.path.abspath(a.deepprof)
    if not os.access(a.deepprof, os.X_OK):
        T.abort("%s: missing or not executable (build it first)" % a.deepprof)
    here = os.path.dirname(os.path.abspath(__file__))
    tests = [(name, lambda name=name, load=load: load().run(prt.Ctx(a, name)))
             for name, load in dptest.test_modules(here, a.tests)]
    dptest.run_each(T, tests, fail=prt.Fail, tag=" (abi=%d)" % a.abi if a.abi else "", timed=True)
    return T.end()


if __name__ == "__main__":
    sys.exit(main())
