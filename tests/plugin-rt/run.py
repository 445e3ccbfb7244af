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
import glob
import importlib.util
import os
import sys
import time
import traceback

import prt


def main():
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
        print("plugin-rt: %s: missing or not executable (build it first)" % a.deepprof)
        print("plugin-rt: 0 passed, 1 failed")
        return 1
    here = os.path.dirname(os.path.abspath(__file__))
    files = sorted(glob.glob(os.path.join(here, "t[0-9][0-9][0-9]_*.py")))
    if a.tests:
        files = [f for f in files if any(os.path.basename(f).startswith(t) for t in a.tests)]
    passed = failed = 0
    tag = " (abi=%d)" % a.abi if a.abi else ""
    for f in files:
        name = os.path.basename(f)[:-3]
        spec = importlib.util.spec_from_file_location(name, f)
        mod = importlib.util.module_from_spec(spec)
        t0 = time.time()
        try:
            spec.loader.exec_module(mod)
            mod.run(prt.Ctx(a, name))
        except prt.Fail as e:
            failed += 1
            print("FAIL %s%s: %s" % (name, tag, e))
        except Exception:
            failed += 1
            print("FAIL %s%s: %s" % (name, tag, traceback.format_exc().strip()))
        else:
            passed += 1
            print("ok   %s%s (%.1fs)" % (name, tag, time.time() - t0))
        sys.stdout.flush()
    print("plugin-rt: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
