# check_diff.py NM DIFF_AB.json DIFF_BA.json — exact checks of `deepprof diff
# --json` (schemas/diff.md) on the batch profiles of prog.c run with n=3 (A)
# and n=5 (B); names come from the file or, unresolved, from nm's output.
# Part of deepprof's tests. MIT licence.
import json
import re
import sys

nm = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3 and f[1] in ("t", "T"):
        nm[int(f[0], 16)] = f[2]


def name(s):
    m = re.match(r"^0x([0-9a-f]+) in ", s)
    return nm.get(int(m.group(1), 16), s) if m else s


def pname(r):
    return r["name"] if r["resolved"] else nm.get(r["offset"], r["name"])


def cname(r):
    return ("T%d " % r["thread"]) + ">".join(name(x) for x in r["path"])


fails = []


def eq(what, got, want):
    if got != want:
        fails.append("%s: got %r, want %r" % (what, got, want))


ab = json.load(open(sys.argv[2]))
eq("format", ab["format"], "deepprof-diff")
eq("version", ab["version"], 1)
eq("sort", ab["sort"], "cscs")
eq("limit", ab["limit"], 0)
eq("measures", ab["measures"], ["calls", "cscs", "ticks", "time_ns", "allocs", "bytes"])
eq("old calls", ab["old"]["totals"]["calls"], 21)
eq("new calls", ab["new"]["totals"]["calls"], 44)
eq("delta calls", ab["totals"]["delta"]["calls"], 23)
eq("time with the timer off", ab["totals"]["new"]["time_ns"], 0)
eq("n_procedures", ab["n_procedures"], 6)
eq("n_contexts", ab["n_contexts"], 10)
eq("inherited", ab["inherited"], True)

procs = {pname(r): r for r in ab["procedures"]}
eq("procedures", sorted(procs), ["extra", "fib", "leaf", "main", "work", "worker"])
eq("procedure order", [pname(r) for r in ab["procedures"]][:3], ["leaf", "fib", "extra"])
want = {  # name: status, old calls, new calls, old inherited calls, new inherited calls
    "fib": ("changed", 5, 15, 8, 23),
    "leaf": ("changed", 12, 24, 12, 24),
    "extra": ("new", 0, 1, 0, 2),
    "main": ("same", 1, 1, 13, 32),
    "work": ("same", 2, 2, 11, 17),
    "worker": ("same", 1, 1, 8, 12),
}
for n, (st, o, nw, oi, ni) in want.items():
    r = procs.get(n)
    if not r:
        fails.append("no procedure " + n)
        continue
    eq(n + " status", r["status"], st)
    eq(n + " old calls", r["old"]["calls"], o)
    eq(n + " new calls", r["new"]["calls"], nw)
    eq(n + " delta cscs", r["delta"]["cscs"], nw - o)
    eq(n + " relative calls", r["relative"]["calls"], None if o == 0 else (nw - o) / o)
    eq(n + " old inherited calls", r["old_inherited"]["calls"], oi)
    eq(n + " new inherited calls", r["new_inherited"]["calls"], ni)

ctx = {cname(r): r for r in ab["contexts"]}
want = {
    "T1 main": ("same", 1, 1),
    "T1 main>work": ("same", 1, 1),
    "T1 main>work>leaf": ("changed", 3, 5),
    "T1 main>fib": ("changed", 5, 15),
    "T1 main>fib>leaf": ("changed", 3, 8),
    "T1 main>extra": ("new", 0, 1),
    "T1 main>extra>leaf": ("new", 0, 1),
    "T2 worker": ("same", 1, 1),
    "T2 worker>work": ("same", 1, 1),
    "T2 worker>work>leaf": ("changed", 6, 10),
}
eq("contexts", sorted(ctx), sorted(want))
for n, (st, o, nw) in want.items():
    r = ctx.get(n)
    if not r:
        continue
    eq(n + " status", r["status"], st)
    eq(n + " old calls", r["old"]["calls"], o)
    eq(n + " new calls", r["new"]["calls"], nw)
eq("context order", [cname(r) for r in ab["contexts"]][:4],
   ["T1 main>fib", "T1 main>fib>leaf", "T2 worker>work>leaf", "T1 main>work>leaf"])

ba = json.load(open(sys.argv[3]))
eq("rev sort", ba["sort"], "calls")
eq("rev limit", ba["limit"], 3)
eq("rev rows", (len(ba["procedures"]), len(ba["contexts"])), (3, 3))
eq("rev first", (pname(ba["procedures"][0]), ba["procedures"][0]["delta"]["calls"]), ("leaf", -12))
eq("rev extra gone", [r["status"] for r in ba["procedures"] if pname(r) == "extra"], ["gone"])
eq("rev relative", ba["procedures"][0]["relative"]["calls"], -0.5)
eq("rev first context", (cname(ba["contexts"][0]), ba["contexts"][0]["delta"]["calls"]),
   ("T1 main>fib", -10))

for f in fails:
    print(f)
sys.exit(1 if fails else 0)
