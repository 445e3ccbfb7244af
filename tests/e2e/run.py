#!/usr/bin/python3
"""run.py — deepprof's end-to-end tests: every tests/e2e/tNNN_*.py builds its
program(s) from tests/e2e/s-*.c with libprof, runs them and checks exact
numbers from `deepprof dump --json`. Ends with "e2e: N passed, N failed";
exits 1 if any test failed.

    run.py --build BUILD_DIR --deepprof BIN [--cc CC] [--cflags FLAGS] [TEST...]

Part of deepprof's end-to-end tests. MIT licence.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import dptest  # noqa: E402
import e2e  # noqa: E402


def main():
    T = dptest.Tally("e2e")
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--deepprof", default=None)
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--cflags", default="", help="extra flags for test programs (sanitizers)")
    ap.add_argument("tests", nargs="*", help="run only these (e.g. t003 or t003_fib)")
    a = ap.parse_args()
    if a.deepprof is None:
        a.deepprof = os.path.join(a.build, "bin", "deepprof")
    a.deepprof = os.path.abspath(a.deepprof)
    if not os.access(a.deepprof, os.X_OK):
        T.abort("%s: missing or not executable (build it first)" % a.deepprof)
    here = os.path.dirname(os.path.abspath(__file__))
    tests = [(name, lambda name=name, load=load: load().run(e2e.Ctx(a, name)))
             for name, load in dptest.test_modules(here, a.tests)]
    dptest.run_each(T, tests, fail=e2e.Fail, tag="", timed=True)
    return T.end()


if __name__ == "__main__":
    sys.exit(main())
