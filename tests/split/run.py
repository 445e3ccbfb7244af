#!/usr/bin/python3
"""run.py BUILD — check-split: libprof's split of recursions (libprof/split.c,
schemas/deep-data.md "The split of recursions") on programs whose split is
known from their structure, built both ways libprof measures it: plugin ABI
v2 (deepprof-cc: the machine stack scanned for the csds' addresses) and
-finstrument-functions (the shadow stack).

  s-fib.c    fib's two sites: the larger's share of the two sites' inside is
             sum over activations of T(n-1) / (T(n-1) + T(n-2)) weighted by
             time = 0.620 for fib(30..40) (φ-1 = 0.618 in the limit; leaves
             and inner activations cost alike or up to 3:1 move it 0.618 ..
             0.622); the tolerance, ±0.04, covers the sampling noise of
             200+ ticks (measured 0.62–0.64 in v2 runs of 136–392 ticks)
             (0.627-0.640 in v2 runs of ~210 ticks in session 22, the
             stack scan's own bias included). A csd's hot part first in
             the csd made the runtime's csd pointers, which its frames
             leave below the program's and a later frame's unwritten pad
             keeps, equal to &hot: 0.64-0.66 then, so it went last
  s-msort.c  mergesort of 2^18 ints: equal halves, share 0.5 ± 0.05, with
             240+ ticks (more rounds until then)
  s-deep.c   a 30000-deep linear recursion alternating two sites, spinning
             at the bottom: share 0.5 ± 0.1, and, deeper than a tick looks
             at whole (4096 frames, 16384 words), sampled with a stride:
             each site's inside per tick is 15000 (its activations on the
             stack) within ±30% (the estimate is unbiased; the spin makes
             nearly every tick see the whole depth)

Also: with DEEPPROF_HZ=0 the file has no inside keys and `deepprof dump
--json` shows none; `deepprof feedback` on the v2 fib profile states the
measured split in the recursion's why, and without the measure says the
balanced halves were assumed. Ends with "split: N passed, N failed".
Part of deepprof's tests. MIT licence.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import dptest  # noqa: E402

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(BUILD, "split")
DPCC = os.path.join(BUILD, "bin", "deepprof-cc")
DEEPPROF = os.path.join(BUILD, "bin", "deepprof")
LIBPROF = os.path.join(BUILD, "lib", "libprof.a")
CC = os.environ.get("CC", "gcc")
EXTRA = os.environ.get("DP_TEST_CFLAGS", "").split()
VERBOSE = os.environ.get("V") == "1"

T = dptest.Tally("split")


def check(ok, what):
    """Count one check (dptest's tally); V=1 also prints the ones that pass."""
    if ok and VERBOSE:
        print("ok   " + what)
    return T.check(ok, what)


def run(args, env=None):
    """dptest.run (C locale), a command that cannot start reported as exit 126."""
    try:
        return dptest.run(args, env=env)
    except (OSError, subprocess.TimeoutExpired) as x:
        return subprocess.CompletedProcess(args, 126, "", "cannot run %s: %s\n" % (args[0], x))


def build(name, how):
    """Build s-NAME.c the way `how` says ("v2" or "cyg"); the executable's path or None."""
    src, exe = os.path.join(HERE, "s-%s.c" % name), os.path.join(OUT, "%s.%s" % (name, how))
    if how == "v2":
        cmd = [DPCC, "-std=gnu11", "-O2", "-g", "-o", exe, src] + EXTRA
    else:
        cmd = [CC, "-std=gnu11", "-O2", "-g", "-finstrument-functions", "-o", exe, src,
               LIBPROF, "-lpthread"] + EXTRA
    p = run(cmd)
    return exe if check(p.returncode == 0, "%s.%s builds: %s" % (name, how, p.stderr.strip())) else None


def profile(exe, args, env=None, tag=""):
    """Run exe, return (its Deep.data path, exe.data or exe.TAG.data, the dump
    --json document) or None."""
    data = exe + (tag and "." + tag) + ".data"
    if os.path.exists(data):
        os.unlink(data)
    p = run([exe] + args, env=dict(env or {}, DEEPPROF_FILE=data))
    if not check(p.returncode == 0 and os.path.exists(data),
                 "%s runs and writes Deep.data (%d: %s)" % (exe, p.returncode, p.stderr.strip())):
        return None
    p = run([DEEPPROF, "dump", "--json", data])
    if not check(p.returncode == 0, "dump --json %s: %s" % (data, p.stderr.strip())):
        return None
    return data, json.loads(p.stdout)


def sites(doc, fn):
    """fn's recursive csds (caller and callee fn): {css: inside}, summed per css."""
    out = {}
    for c in doc["csd"]:
        if c["caller"] == fn and c["callee"] == fn:
            out[c["css"]] = out.get(c["css"], 0) + c.get("inside", 0)
    return out


def split_of(name, how, doc, fn):
    """The two recursive sites' shares, larger first, or None."""
    s = sites(doc, fn)
    samples = doc["header"].get("inside_samples")
    if not check(samples is not None and samples > 0,
                 "%s.%s: the header has inside_samples > 0 (%r)" % (name, how, samples)):
        return None
    if not check(len(s) == 2, "%s.%s: %s has two recursive sites (%r)" % (name, how, fn, s)):
        return None
    a, b = sorted(s.values(), reverse=True)
    if not check(a + b > 0, "%s.%s: the sites were seen on the stack (%r)" % (name, how, s)):
        return None
    return a / (a + b), b / (a + b), a, b, samples


MIN_TICKS = 200     # fib's samples for its ±0.04
MSORT_TICKS = 240   # msort's for its ±0.05 (one standard deviation ~0.011)


def profile_enough(exe, argsets, ticks):
    """profile() with each of argsets in turn (more work each) until a run
    has `ticks` samples; the last run's result (or None)."""
    r = None
    for args in argsets:
        r = profile(exe, args)
        if not r or r[1]["header"].get("inside_samples", 0) >= ticks:
            break
    return r


def main():
    os.makedirs(OUT, exist_ok=True)
    fib_v2 = None
    for how, fib_n, rounds in (("v2", "37", "24"), ("cyg", "36", "8")):
        # fib: phi : 1. The tolerance wants ~150 ticks: where CPU timers
        # tick slower than asked (250 Hz on some VMs: 47 ticks, a share
        # of 0.666 seen), a longer fib (n + 2: 2.6 times the work) again
        exe = build("fib", how)
        r = exe and profile_enough(exe, [[str(int(fib_n) + more)] for more in (0, 2, 3)], MIN_TICKS)
        if r:
            if how == "v2":
                fib_v2 = r[0]
            s = split_of("fib", how, r[1], "fib")
            if s:
                check(abs(s[0] - 0.620) <= 0.04,
                      "fib.%s: the larger site's share %.3f is 0.620 ± 0.04 (%d : %d, %d ticks)"
                      % (how, s[0], s[2], s[3], s[4]))
        # msort: 1 : 1. A tick sees ~9 of its 18 levels, so 56 ticks (8
        # rounds, cyg, where ticks come at ~200 Hz) leave one standard
        # deviation of the share near 0.02 and missed the ±0.05 now and
        # then (0.572 seen): more rounds until MSORT_TICKS
        exe = build("msort", how)
        r = exe and profile_enough(exe, [[str(int(rounds) * k)] for k in (1, 4, 8)], MSORT_TICKS)
        if r:
            s = split_of("msort", how, r[1], "msort")
            if s:
                check(abs(s[0] - 0.5) <= 0.05,
                      "msort.%s: the larger site's share %.3f is 0.5 ± 0.05 (%d : %d, %d ticks)"
                      % (how, s[0], s[2], s[3], s[4]))
        # deep: sampled with a stride, unbiased
        exe = build("deep", how)
        r = exe and profile(exe, ["30000", "150000000" if how == "v2" else "100000000"])
        if r:
            s = split_of("deep", how, r[1], "deep")
            if s:
                check(abs(s[0] - 0.5) <= 0.1,
                      "deep.%s: the larger site's share %.3f is 0.5 ± 0.1 (%d : %d)"
                      % (how, s[0], s[2], s[3]))
                for v in s[2:4]:
                    check(0.7 * 15000 <= v / s[4] <= 1.3 * 15000,
                          "deep.%s: a site's inside per tick %.0f is 15000 ± 30%% (%d ticks)"
                          % (how, v / s[4], s[4]))

    # the timer off: no measure, and the dump shows none
    exe = os.path.join(OUT, "fib.v2")
    r = os.path.exists(exe) and profile(exe, ["25"], env={"DEEPPROF_HZ": "0"}, tag="hz0")
    if r:
        check("inside_samples" not in r[1]["header"],
              "DEEPPROF_HZ=0: no inside_samples in the header")
        check(all("inside" not in c for c in r[1]["csd"]),
              "DEEPPROF_HZ=0: no csd has an inside value")
        p = run([DEEPPROF, "feedback", "-o", "-", r[0]])
        if check(p.returncode == 0, "feedback without the measure: %s" % p.stderr.strip()):
            whys = [x.get("why", "") for x in json.loads(p.stdout).get("recursion", [])]
            check(any("split not measured (no inside measure: an old profile or ticks off): "
                      "balanced halves assumed" in w for w in whys),
                  "feedback without the measure says balanced halves are assumed: %r" % whys)

    # merge carries the measure: two runs' values summed per recursive site
    if fib_v2:
        second = profile(os.path.join(OUT, "fib.v2"), ["30"], tag="b")
        merged = os.path.join(OUT, "fib.v2.merged.data")
        p = second and run([DEEPPROF, "merge", "-o", merged, fib_v2, second[0]])
        if second and check(p.returncode == 0, "merge of two fib.v2 runs: %s" % p.stderr.strip()):
            docs = [json.loads(run([DEEPPROF, "dump", "--json", f]).stdout)
                    for f in (fib_v2, second[0], merged)]
            at = [{(d["css"][c["css"] - 1]["line"], d["css"][c["css"] - 1]["col"]): c["inside"]
                   for c in d["csd"] if c["caller"] == c["callee"] == "fib" and "inside" in c}
                  for d in docs]
            check(docs[2]["header"].get("inside_samples") ==
                  docs[0]["header"]["inside_samples"] + docs[1]["header"]["inside_samples"],
                  "merge: inside_samples is the sum of the inputs' (%r)"
                  % [d["header"].get("inside_samples") for d in docs])
            want = {k: at[0].get(k, 0) + at[1].get(k, 0) for k in set(at[0]) | set(at[1])}
            check(len(want) == 2 and at[2] == want,
                  "merge: each recursive site's inside is the sum of the inputs' (%r)" % at)

    # the model states the measured split
    if fib_v2:
        p = run([DEEPPROF, "feedback", "-o", "-", fib_v2])
        if check(p.returncode == 0, "feedback on fib.v2: %s" % p.stderr.strip()):
            whys = [x.get("why", "") for x in json.loads(p.stdout).get("recursion", [])]
            m = [re.search(r"measured split (0\.\d{3}) : (0\.\d{3}) \(first call, inline", w)
                 for w in whys]
            m = [x for x in m if x]
            if check(len(m) == 1, "feedback on fib.v2: one recursion states its split: %r" % whys):
                big = max(float(m[0].group(1)), float(m[0].group(2)))
                check(abs(big - 0.620) <= 0.04,
                      "feedback on fib.v2: the split it states, %.3f, is 0.620 ± 0.04" % big)

    return T.end()


if __name__ == "__main__":
    sys.exit(main())
