#!/usr/bin/python3
"""run.py — the dependence check (deepprof-cc --deepprof-check=FEEDBACK):
programs whose calls touch known memory are profiled, `deepprof feedback`
makes candidates of their regions, the check build records what each call
reads and writes, and the feedback made from the check's profiles gives
each candidate its level: `checked` (no conflict seen), `conflict` (the two
accesses named, file:line and variable) or still unknown ("needs a check")
when a call goes where the check cannot see. Checks: exact verdicts,
places, overlap sizes and counts on tests/check/cases.c (disjoint halves,
overlapping ranges, a shared accumulator, a global written then read, a
conflict that shows on one input only, an opaque call), the partition that
respects the dependences on tests/check/quarters.c (issue 13's mergesort),
the use build's --deepprof-parallelize=checked (same output as the serial
build, remarks; a conflict never parallel, not even named), MessagePack
feedback, and bad options. Ends with "check: N passed, N failed".

    run.py --build BUILD_DIR [TEST...]

Part of deepprof's tests. MIT licence.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import dptest  # noqa: E402
from dptest import eq, check, Fail  # noqa: E402

CASES = os.path.join(HERE, "cases.c")
QUARTERS = os.path.join(HERE, "quarters.c")
THREADS = os.path.join(HERE, "threads.c")
TWO_A, TWO_B = os.path.join(HERE, "two-a.c"), os.path.join(HERE, "two-b.c")
FREES = os.path.join(HERE, "frees.c")


class Ctx(dptest.BuildCtx):
    def __init__(self, a, name):
        super().__init__(a.build, "check", name)

    def profile(self, src, args=(), fb="fb.json"):
        """Profile src (plugin build, -O2), its feedback: the parsed file."""
        self.run([self.cc, "-O2", "-g", src, "-o", "prof"])
        self.run([self.path("prof")] + list(args), env={"DEEPPROF_FILE": "prof.data"})
        self.run([self.dp, "feedback", "prof.data", "-o", fb])
        return load(self.path(fb))

    def check_build(self, src, fb="fb.json"):
        r = self.run([self.cc, "-O2", "-g", "--deepprof-check=" + fb, src, "-o", "chk"])
        return r.stderr

    def check_run(self, data, args=()):
        return self.run([self.path("chk")] + list(args), env={"DEEPPROF_FILE": data}).stdout

    def feedback(self, datas, out):
        r = self.run([self.dp, "feedback"] + list(datas) + ["-o", out])
        return load(self.path(out)), r.stdout


def load(path):
    with open(path) as f:
        return json.load(f)


def by_fn(fb):
    """{function: candidate} (one candidate per function in these programs)."""
    out = {}
    for c in fb["candidates"]:
        check(c["proc"]["fn"] not in out, "two candidates in %s" % c["proc"]["fn"])
        out[c["proc"]["fn"]] = c
    return out


def regions(ctx, data):
    """{function: check region} of a check profile, from dump --json."""
    d = json.loads(ctx.run([ctx.dp, "dump", "--json", data]).stdout)
    check("check" in d["header"], "%s has no check findings" % data)
    return {r["fn"]: r for r in d["header"]["check"]["regions"]}, d["header"]["check"]


def conflict(reg, kind):
    ks = [c for c in reg["conflicts"] if c["kind"] == kind]
    eq(len(ks), 1, "%s conflicts of %s" % (kind, reg["fn"]))
    return ks[0]


def defines(ctx, exe, sym):
    """Whether program exe (in ctx's directory) defines function sym (nm)."""
    out = ctx.run(["nm", "--defined-only", ctx.path(exe)]).stdout
    return any(l.split()[-1] == sym and l.split()[1] in "TtWw" for l in out.splitlines() if l.strip())


def t_findings(ctx):
    """What the check records: exact places, variables and overlap sizes."""
    ctx.profile(CASES)
    eq(ctx.check_build(CASES), "", "the check build's diagnostics")
    out = ctx.check_run("ck.data", ["500"])
    plain = ctx.run([ctx.path("prof"), "500"], env={"DEEPPROF_FILE": "p2.data"}).stdout
    eq(out, plain, "the check build's output")
    regs, top = regions(ctx, "ck.data")
    eq(top["lost"], 0, "executions lost")
    eq(sorted(regs), ["case_accum", "case_global", "case_halves", "case_input", "case_opaque",
                      "case_overlap", "main"], "regions checked")
    for fn in regs:
        eq(regs[fn]["executions"], 1, "executions of %s" % fn)
    eq(regs["case_halves"]["conflicts"], [], "case_halves' conflicts")
    eq(regs["case_halves"]["opaque"], [], "case_halves' opaque calls")
    eq(regs["case_input"]["conflicts"], [], "case_input's conflicts at k = n/2")
    # fill(b, 0, 3n/5) and fill(b, 2n/5, n): n/5 = 20000 ints overlap
    ww = conflict(regs["case_overlap"], "write-write")
    eq((ww["i"], ww["j"], ww["at_i"], ww["var_i"], ww["at_j"], ww["var_j"], ww["size"]),
       (0, 1, "cases.c:29:9", "v", "cases.c:29:9", "v", 80000), "case_overlap's write-write")
    wr = conflict(regs["case_overlap"], "write-read")
    eq((wr["at_i"], wr["at_j"], wr["size"]), ("cases.c:29:9", "cases.c:29:13", 80000),
       "case_overlap's write-read")
    acc = conflict(regs["case_accum"], "write-write")
    eq((acc["at_i"], acc["var_i"], acc["at_j"], acc["size"]),
       ("cases.c:36:9", "acc", "cases.c:36:9", 8), "case_accum's accumulator")
    eq(len(regs["case_global"]["conflicts"]), 1, "case_global: only the write-read")
    g = conflict(regs["case_global"], "write-read")
    eq((g["at_i"], g["var_i"], g["at_j"], g["var_j"], g["size"]),
       ("cases.c:43:15", "g_table", "cases.c:51:16", "g_table", 400000), "case_global")
    eq([(q["call"], q["callee"], q["at"]) for q in regs["case_opaque"]["opaque"]],
       [(0, "getpid", "cases.c:57:17"), (1, "getpid", "cases.c:57:17")], "case_opaque")
    # nested: main's calls hold their regions' accesses
    eq([(c["i"], c["j"], c["kind"]) for c in regs["main"]["conflicts"]], [(0, 2, "write-read")],
       "main: case_halves writes a, case_accum reads it")
    text = ctx.run([ctx.dp, "dump", "ck.data"]).stdout
    check("conflict [0] [1] write-read in 1 execution: cases.c:43:15 g_table and "
          "cases.c:51:16 g_table, 400000 bytes" in text, "dump's text: " + text[:2000])


def t_levels(ctx):
    """The feedback's levels: checked, conflict (naming both accesses) and
    needs a check; "recommended" lists only safe or checked."""
    before = by_fn(ctx.profile(CASES))
    for fn in ("case_halves", "case_overlap", "case_accum", "case_global", "case_input"):
        eq(before[fn]["safety"], "unknown_memory", "%s before the check" % fn)
    ctx.check_build(CASES)
    ctx.check_run("ck.data", ["500"])
    fb, out = ctx.feedback(["ck.data"], "after.json")
    c = by_fn(fb)
    for fn in ("case_halves", "case_input"):
        eq((c[fn]["safety"], c[fn]["verdict"], c[fn]["check_inputs"], c[fn]["check_executions"],
            [x["task"] for x in c[fn]["calls"]]), ("checked", "accepted", 1, 1, [0, 1]), fn)
    want = {
        "case_overlap": "fill() (call 1) writes v at cases.c:29 and fill() (call 2) writes it at cases.c:29",
        "case_accum": "sum_into() (call 1) writes acc at cases.c:36 and sum_into() (call 2) writes "
                      "it at cases.c:36",
        "case_global": "produce() (call 1) writes g_table at cases.c:43 and consume() (call 2) "
                       "reads it at cases.c:51",
    }
    for fn, words in want.items():
        eq((c[fn]["safety"], c[fn]["verdict"]), ("conflict", "unsafe"), fn)
        check(words in c[fn]["safety_why"], "%s: %r lacks %r" % (fn, c[fn]["safety_why"], words))
        check(words in c[fn]["verdict_why"], "%s's verdict_why" % fn)
    eq(c["case_opaque"]["safety"], "unknown_memory", "case_opaque")
    check("cannot see into getpid() (called at cases.c:57" in c["case_opaque"]["safety_why"],
          c["case_opaque"]["safety_why"])
    rec = out.split("recommended:\n")[1].split("needs a check")[0]
    eq(sorted(l.split(" in ")[1].split(" (")[0] for l in rec.splitlines()),
       ["case_halves", "case_input", "main"], "recommended: " + out)
    # main's region: case_opaque reaches getpid(), which the check cannot see
    # into, so it stays after the tasks; case_halves writes what case_accum
    # reads, so they share one
    eq((c["main"]["safety"], [(x["callee"], x["task"]) for x in c["main"]["calls"]]),
       ("checked", [("case_halves", 0), ("case_overlap", 0), ("case_accum", 0),
                    ("case_global", 1), ("case_input", 1)]), "main's split")
    check("checked on 1 input (1 execution), not proved" in rec, rec)
    need = out.split("needs a check (memory")[1].split("conflicts (never parallel):")[0]
    eq(sorted(l.split(" in ")[1].split(" (")[0] for l in need.splitlines()[1:]),
       ["case_opaque"], "needs a check: " + need)
    confl = out.split("conflicts (never parallel):\n")[1]
    eq(len(confl.splitlines()), 3, "conflicts listed: " + confl)
    ex = ctx.run([ctx.dp, "feedback", "ck.data", "--explain=%d" % c["case_halves"]["id"]]).stdout
    check("Safety: checked on 1 input (1 execution), not proved — the dependence check saw no "
          "conflict" in ex, ex)


def t_inputs(ctx):
    """A conflict that shows on one input only: checked on the input where
    it does not, conflict once the other is added; counts add up."""
    ctx.profile(CASES)
    ctx.check_build(CASES)
    ctx.check_run("k500.data", ["500"])
    ctx.check_run("k300.data", ["300"])
    regs, _ = regions(ctx, "k300.data")
    ww = conflict(regs["case_input"], "write-write")
    # fill(c, 0, n/2) and fill(c, 3n/10, n): n/5 ints
    eq((ww["at_i"], ww["at_j"], ww["size"]), ("cases.c:29:9", "cases.c:29:9", 80000), "k = 300")
    one, _ = ctx.feedback(["k500.data"], "one.json")
    eq(by_fn(one)["case_input"]["safety"], "checked", "case_input on k = 500")
    both, _ = ctx.feedback(["k500.data", "k300.data"], "both.json")
    b = by_fn(both)
    eq((b["case_input"]["safety"], b["case_input"]["verdict"]), ("conflict", "unsafe"),
       "case_input on k = 500 and 300")
    eq((b["case_halves"]["safety"], b["case_halves"]["check_inputs"],
        b["case_halves"]["check_executions"]), ("checked", 2, 2), "case_halves on two inputs")
    # the findings alone, joined to a plain profile's costs (--checked-by)
    by, _ = ctx.feedback(["prof.data", "--checked-by=k500.data,k300.data"], "by.json")
    y = by_fn(by)
    eq((y["case_input"]["safety"], y["case_halves"]["safety"], y["case_halves"]["check_inputs"],
        y["case_halves"]["check_executions"], len(by["inputs"])),
       ("conflict", "checked", 2, 2, 1), "--checked-by two check profiles")
    r = ctx.run([ctx.dp, "feedback", "prof.data", "--checked-by=prof.data"], rc=2)
    eq(r.stderr.strip(), "prof.data: given to --checked-by, but not the profile of a check build "
       "(no check findings; build with deepprof-cc --deepprof-check=FEEDBACK)", "--checked-by plain")
    r = ctx.run([ctx.dp, "feedback", "prof.data", "--checked-by=nothere.data"], rc=2)
    eq(len(r.stderr.strip().splitlines()), 1, "--checked-by missing: " + r.stderr)
    check("nothere.data" in r.stderr, r.stderr)
    # merged, in either order: the same bytes, the same verdicts
    ctx.run([ctx.dp, "merge", "k500.data", "k300.data", "-o", "m1.data"])
    ctx.run([ctx.dp, "merge", "k300.data", "k500.data", "-o", "m2.data"])
    with open(ctx.path("m1.data"), "rb") as f1, open(ctx.path("m2.data"), "rb") as f2:
        check(f1.read() == f2.read(), "merging the check profiles in either order: other bytes")
    regs, _ = regions(ctx, "m1.data")
    eq((regs["case_input"]["executions"], conflict(regs["case_input"], "write-write")["executions"]),
       (2, 1), "merged: case_input ran twice, conflicted once")
    m, _ = ctx.feedback(["prof.data", "--checked-by=m1.data"], "m.json")
    mm = by_fn(m)
    eq((mm["case_input"]["safety"], mm["case_halves"]["safety"],
        mm["case_halves"]["check_executions"]), ("conflict", "checked", 2), "merged findings")
    # MessagePack carries the same
    ctx.run([ctx.dp, "feedback", "k500.data", "k300.data", "-o", "both.msgpack"])
    back = json.loads(ctx.run([ctx.dp, "feedback", "--to-json=both.msgpack"]).stdout)
    eq([(x["proc"]["fn"], x["safety"], x["check_inputs"]) for x in back["candidates"]],
       [(x["proc"]["fn"], x["safety"], x["check_inputs"]) for x in both["candidates"]],
       "the MessagePack feedback")


def t_frees(ctx):
    """free() in checked code: libprof does not interpose it (no build
    defines it; malloc it does), the check build's code calls
    __deepprof_chk_free before it. A block a call allocates and frees is
    its own; freeing one from outside writes all of it, at the free's place."""
    ctx.profile(FREES)
    eq(ctx.check_build(FREES), "", "the check build's diagnostics")
    out = ctx.check_run("ck.data")
    eq(out, ctx.run([ctx.path("prof")], env={"DEEPPROF_FILE": "p2.data"}).stdout, "its output")
    for exe in ("prof", "chk"):
        eq((defines(ctx, exe, "free"), defines(ctx, exe, "malloc")), (False, True),
           "%s defines free, malloc" % exe)
    regs, top = regions(ctx, "ck.data")
    eq(top["lost"], 0, "executions lost")
    eq(sorted(regs), ["case_release", "case_scratch", "main"], "regions checked")
    for fn in ("case_scratch", "main"):     # main's v is freed in its call 1 only
        eq((regs[fn]["executions"], regs[fn]["conflicts"], regs[fn]["opaque"]), (1, [], []), fn)
    r = regs["case_release"]
    eq((r["executions"], r["opaque"]), (1, []), "case_release")
    eq([(c["i"], c["j"], c["kind"], c["at_i"], c["var_i"], c["at_j"], c["var_j"], c["size"])
        for c in r["conflicts"]],
       [(0, 1, "read-write", "frees.c:38:10", "v", "frees.c:45:2", "v", 80000)],
       "case_release: drop() frees what scan() read")


def t_quarters(ctx):
    """Issue 13's mergesort: before the check nothing is recommended; after
    it, {sort A, sort B, merge AB} with {sort C, sort D, merge CD}, the
    final merge after them; the shared scratch buffer and the
    initialisation are conflicts."""
    before = ctx.profile(QUARTERS)
    r = ctx.run([ctx.dp, "feedback", "prof.data", "-o", "again.json"]).stdout
    check("no parallelism is recommended" in r and "needs a check" in r, r)
    eq({c["proc"]["fn"]: c["safety"] for c in before["candidates"]},
       {"sort4": "unknown_memory", "msort": "unknown_memory", "main": "unknown_memory"}, "before")
    ctx.check_build(QUARTERS)
    ctx.check_run("ck.data")
    fb, out = ctx.feedback(["ck.data"], "after.json")
    c = by_fn(fb)
    s = c["sort4"]
    eq([(x["callee"], x["at"]["line"], x["task"]) for x in s["calls"]],
       [("sort_quarter", 61, 0), ("sort_quarter", 62, 0), ("sort_quarter", 63, 1),
        ("sort_quarter", 64, 1), ("merge_parts", 65, 0), ("merge_parts", 66, 1)], "sort4's split")
    eq((s["safety"], s["verdict"], s["n_tasks"]), ("checked", "accepted", 2), "sort4")
    eq((c["msort"]["safety"], c["main"]["safety"]), ("conflict", "conflict"), "msort and main")
    check("msort() (call 1) writes tmp at quarters.c:18 and msort() (call 2) writes it at "
          "quarters.c:18" in c["msort"]["safety_why"], c["msort"]["safety_why"])
    check("init() (call 1) writes a at quarters.c:54" in c["main"]["safety_why"],
          c["main"]["safety_why"])
    rec = out.split("recommended:\n")[1].split("conflicts (never")[0].strip().splitlines()
    eq(len(rec), 1, "recommended: " + out)
    check(rec[0].startswith("#%d in sort4 (quarters.c:58)" % s["id"]), rec[0])


def t_use_checked(ctx):
    """--deepprof-parallelize=checked: checked candidates become tasks with
    the serial build's output; by default they stay serial; a conflict is
    never parallel, not even named by id."""
    ctx.profile(CASES)
    ctx.check_build(CASES)
    ctx.check_run("ck.data", ["500"])
    fb, _ = ctx.feedback(["ck.data"], "after.json")
    c = by_fn(fb)
    ctx.run(["gcc", "-O2", CASES, "-o", "serial"])
    want = ctx.run([ctx.path("serial"), "500"]).stdout
    r = ctx.run([ctx.cc, "-O2", "--deepprof-use=after.json", "--deepprof-parallelize=checked",
                 "--deepprof-remarks", CASES, "-o", "par"])
    for fn in ("case_halves", "case_input"):
        words = "candidate %d: fill() and fill() run as 2 parallel tasks" % c[fn]["id"]
        check(words in r.stderr, "%s: %s" % (words, r.stderr))
    check("checked on 1 input, not proved: --deepprof-parallelize=checked" in r.stderr, r.stderr)
    for fn in ("case_overlap", "case_accum", "case_global"):
        check("missed: deepprof: candidate %d:" % c[fn]["id"] in r.stderr, fn + ": " + r.stderr)
    for n in ("1", "2", "3"):
        eq(ctx.run([ctx.path("par"), "500"], env={"OMP_NUM_THREADS": n}).stdout, want,
           "the parallel build's output with %s threads" % n)
    d = ctx.run([ctx.cc, "-O2", "--deepprof-use=after.json", "--deepprof-remarks", CASES,
                 "-o", "def"])
    check("candidate %d: fill() and fill() run as" % c["case_halves"]["id"] not in d.stderr,
          "the default build parallelized a checked candidate: " + d.stderr)
    n = ctx.run([ctx.cc, "-O2", "--deepprof-use=after.json", "--deepprof-remarks",
                 "--deepprof-parallelize=%d" % c["case_overlap"]["id"], CASES, "-o", "named"])
    check("missed: deepprof: candidate %d: fill() and fill() as 2 tasks (predicted 2.00x on this "
          "region): not parallelized: the dependence check saw fill() (call 1) writes v at "
          "cases.c:29" % c["case_overlap"]["id"] in n.stderr, n.stderr)
    eq(ctx.run([ctx.path("named"), "500"], env={"OMP_NUM_THREADS": "2"}).stdout, want,
       "the named build's output")


def t_threads_longjmp(ctx):
    """Regions on four threads are all counted; a call left by longjmp ends
    its execution at the next one, and longjmp() is an opaque call."""
    fb = ctx.profile(THREADS)
    # thr's loop of pair() calls is a loop candidate, not proved (pair()
    # writes through v) and not bracketed by the check
    eq([(c["proc"]["fn"], bool(c.get("loop")), c["safety"]) for c in fb["candidates"]],
       [("pair", False, "unknown_memory"), ("thr", True, "unknown_memory")], "candidates")
    ctx.run([ctx.cc, "-O2", "-g", "--deepprof-check=fb.json", THREADS, "-o", "chk", "-lpthread"])
    plain = ctx.run([ctx.path("prof")], env={"DEEPPROF_FILE": "p2.data"}).stdout
    eq(ctx.check_run("t.data"), plain, "the check build's output")
    regs, top = regions(ctx, "t.data")
    eq((regs["pair"]["executions"], regs["pair"]["conflicts"], regs["pair"]["opaque"], top["lost"]),
       (11, [], [], 0), "3 x 3 on threads, 2 on main")
    ctx.check_run("j.data", ["x"])
    regs, _ = regions(ctx, "j.data")
    eq((regs["pair"]["executions"], [(q["call"], q["callee"]) for q in regs["pair"]["opaque"]]),
       (12, [(1, "longjmp")]), "with the longjmp")
    out = ctx.feedback(["j.data"], "j.json")[0]
    check("cannot see into longjmp()" in out["candidates"][0]["safety_why"],
          out["candidates"][0]["safety_why"])


def t_two_units(ctx):
    """Calls into another translation unit, or through pointers, are checked
    when that code was built with the check, and reported when it was not;
    the C library's qsort is reported, its comparator's reads counted."""
    ctx.run([ctx.cc, "-O2", "-g", TWO_A, TWO_B, "-o", "prof"])
    want = ctx.run([ctx.path("prof")], env={"DEEPPROF_FILE": "prof.data"}).stdout
    ctx.run([ctx.dp, "feedback", "prof.data", "-o", "fb.json"])
    ctx.run([ctx.cc, "-O2", "-g", "--deepprof-check=fb.json", TWO_A, TWO_B, "-o", "chk"])
    eq(ctx.check_run("both.data"), want, "the check build's output")
    fb, _ = ctx.feedback(["prof.data", "--checked-by=both.data"], "both.json")
    c = by_fn(fb)
    eq({fn: c[fn]["safety"] for fn in c},
       {"pair": "checked", "ptrs": "checked", "twice": "conflict", "sorted": "unknown_memory",
        "main": "unknown_memory"}, "levels with both units checked")
    check("half() (call 1) writes v at two-b.c:8 and half() (call 2) writes it at two-b.c:8"
          in c["twice"]["safety_why"], c["twice"]["safety_why"])
    check("cannot see into qsort() (called at two-a.c:43" in c["sorted"]["safety_why"],
          c["sorted"]["safety_why"])
    regs, _ = regions(ctx, "both.data")
    # pair writes, sorted's comparator reads
    eq(sorted((g["i"], g["j"], g["at_i"], g["at_j"]) for g in regs["main"]["conflicts"]
              if g["kind"] == "write-read" and g["j"] == 2),
       [(0, 2, "two-b.c:8:7", "two-a.c:37:6"), (1, 2, "two-b.c:8:7", "two-a.c:37:6")],
       "main: the comparator's reads")
    # two-b.c without the check: half() is reported, never taken for checked
    ctx.run([ctx.cc, "-O2", "-g", "-c", TWO_B, "-o", "b.o"])
    ctx.run([ctx.cc, "-O2", "-g", "--deepprof-check=fb.json", TWO_A, "b.o", "-o", "chk2"])
    ctx.run([ctx.path("chk2")], env={"DEEPPROF_FILE": "one.data"})
    fb, _ = ctx.feedback(["prof.data", "--checked-by=one.data"], "one.json")
    c = by_fn(fb)
    for fn in ("pair", "twice", "ptrs"):
        eq(c[fn]["safety"], "unknown_memory", "%s with two-b.c unchecked" % fn)
    check("cannot see into half() (called at two-a.c:25" in c["pair"]["safety_why"],
          c["pair"]["safety_why"])
    r = ctx.run([ctx.cc, "-O2", "--deepprof-use=both.json", "--deepprof-parallelize=checked",
                 "--deepprof-remarks", TWO_A, TWO_B, "-o", "par"])
    check("a call through a pointer: its callee is not known here" in r.stderr, r.stderr)
    for n in ("1", "2"):
        eq(ctx.run([ctx.path("par")], env={"OMP_NUM_THREADS": n}).stdout, want,
           "the parallel build with %s threads" % n)


def t_batch(ctx):
    """deepprof batch takes --checked-by among a program's options: its
    summary shows the candidate checked, and recommended."""
    ctx.profile(QUARTERS)
    ctx.check_build(QUARTERS)
    ctx.check_run("ck.data", ["100000"])
    # paths relative to the manifest's directory, not to where batch runs
    man = {"format": "deepprof-batch", "version": 1,
           "programs": [{"name": "quarters", "profiles": ["../prof.data"],
                         "options": ["--checked-by=../ck.data"]},
                        {"name": "unchecked", "profiles": ["../prof.data"]}]}
    os.makedirs(ctx.path("suite"))
    with open(ctx.path("suite", "suite.json"), "w") as f:
        json.dump(man, f)
    ctx.run([ctx.dp, "batch", "suite/suite.json", "-o", "out"])
    with open(ctx.path("out", "summary.json")) as f:
        rows = {r["name"]: r for r in json.load(f)["programs"]}
    eq((rows["quarters"]["recommended"], rows["quarters"]["best"]["safety"],
        rows["quarters"]["best"]["fn"]), (1, "checked", "sort4"), "the checked program's row")
    eq((rows["unchecked"]["recommended"], rows["unchecked"]["best"]["safety"]),
       (0, "unknown_memory"), "the same profile without its check")


def rewrite_header(src, dst, change):
    """Copy the Deep.data src to dst with change(header) applied, its END
    record's checksum recomputed (python3-msgpack)."""
    import msgpack
    import zlib
    with open(src, "rb") as f:
        u = msgpack.Unpacker(raw=False, strict_map_key=False)
        u.feed(f.read())
    objs = list(u)
    change(objs[0])
    body = b"".join(msgpack.packb(o, use_bin_type=True) for o in objs[:-1])
    end = list(objs[-1])
    end[-1] = zlib.crc32(body) & 0xffffffff
    with open(dst, "wb") as f:
        f.write(body + msgpack.packb(end))


def t_bad_findings(ctx):
    """A profile whose check entry is malformed: dump and feedback
    --checked-by refuse it with one line naming the file and the defect."""
    ctx.profile(CASES)
    ctx.check_build(CASES)
    ctx.check_run("ck.data", ["500"])

    def region(h):
        return h["check"]["regions"][0]

    def conflict0(h):
        return next(r for r in h["check"]["regions"] if r["conflicts"])["conflicts"][0]

    def setk(d, k, v):
        d[k] = v

    def opaque0(h):
        return next(r for r in h["check"]["regions"] if r["opaque"])["opaque"]

    cases = [
        (lambda h: setk(h, "check", [1]), "'check' is not a map"),
        (lambda h: setk(h["check"], "regions", {}), "'check': 'regions' is not an array"),
        (lambda h: setk(h["check"], "lost", -1), "'check': 'lost' is not an unsigned integer"),
        (lambda h: setk(region(h), "region", "f\nx.c\n1:2:g"), "names fewer than two calls"),
        (lambda h: setk(region(h), "region", "f\nx.c\n1:g\n2:3:h"), "is not line:col:callee"),
        (lambda h: setk(region(h), "executions", "x"), "'executions' is not an unsigned"),
        (lambda h: setk(region(h), "conflicts", 3), "'conflicts' is not an array"),
        (lambda h: setk(conflict0(h), 2, "write-once"), "a conflict's kind is \"write-once\""),
        (lambda h: setk(conflict0(h), 1, conflict0(h)[0]), "pairs call"),
        (lambda h: setk(conflict0(h), 1, 99), "second call is not an unsigned integer in range"),
        (lambda h: conflict0(h).pop(), "is not [i, j, kind, executions"),
        (lambda h: opaque0(h)[0].pop(), "is not [k, executions, callee, place]"),
    ]
    for i, (change, words) in enumerate(cases):
        bad = "bad%d.data" % i
        rewrite_header(ctx.path("ck.data"), ctx.path(bad), change)
        for cmd in ([ctx.dp, "dump", bad],
                    [ctx.dp, "feedback", "prof.data", "--checked-by=" + bad, "-o", "x.json"]):
            r = ctx.run(cmd, rc=2)
            lines = r.stderr.strip().splitlines()
            check(len(lines) == 1 and lines[0].startswith(bad + ":") and words in lines[0] and
                  not r.stdout, "%s (%s): %r" % (" ".join(cmd[1:2]), words, r.stderr))
    # unchanged, the rewritten file reads as it was
    rewrite_header(ctx.path("ck.data"), ctx.path("same.data"), lambda h: None)
    with open(ctx.path("ck.data"), "rb") as a, open(ctx.path("same.data"), "rb") as b:
        eq(a.read(), b.read(), "the rewrite of an unchanged header")


def t_bad(ctx):
    """Bad options: one line, exit 2, never an internal compiler error."""
    ctx.profile(CASES)
    with open(ctx.path("junk.json"), "w") as f:
        f.write("{\"not\": \"feedback\"}\n")
    cases = [
        (["--deepprof-check="], "expected --deepprof-check=FEEDBACK"),
        (["--deepprof-check=missing.json"], "cannot read feedback file missing.json"),
        (["--deepprof-check=fb.json", "--deepprof-use=fb.json"], "do not go together"),
        (["--deepprof-check=fb.json", "--deepprof-mode=cyg"], "needs the deepprof plugin"),
        (["--deepprof-use=fb.json", "--deepprof-parallelize=sure"], "expected safe, checked, none"),
    ]
    for opts, words in cases:
        r = ctx.run([ctx.cc, "-O2"] + opts + [CASES, "-o", "x"], rc=2)
        lines = r.stderr.strip().splitlines()
        eq(len(lines), 1, "%s: %r" % (opts, r.stderr))
        check(words in lines[0], "%s: %r lacks %r" % (opts, lines[0], words))
    r = ctx.run([ctx.dp, "feedback", "prof.data", "--checked-by="], rc=2)
    eq(r.stderr.strip().splitlines(), ["deepprof feedback: --checked-by needs profiles of a "
                                       "check build (try 'deepprof help feedback')"],
       "--checked-by= empty")
    r = ctx.run([ctx.cc, "-O2", "--deepprof-check=junk.json", CASES, "-o", "x"], rc=None)
    check(r.returncode != 0, "a check build with a file that is no feedback succeeded")
    check("junk.json" in r.stderr and "internal compiler error" not in r.stderr, r.stderr)


LOOPS = os.path.join(HERE, "loops.c")


def t_loops(ctx):
    """Loop candidates under the check (tests/check/loops.c): each loop's
    iterations compared in windows; exact findings (8 iterations, the
    overlapping chunks' neighbours and the accumulator's every pair),
    levels (checked, conflict naming both accesses, unknown behind
    getpid()), merge keeping the loop regions, and the use build with
    --deepprof-parallelize=checked: the checked loop a task per iteration
    with the serial output, the conflicts never, not even named."""
    fb = ctx.profile(LOOPS)
    loops = {c["proc"]["fn"]: c for c in fb["candidates"] if c.get("loop")}
    eq(sorted((fn, c["loop"]["iterations"], c["safety"]) for fn, c in loops.items()),
       [("accum", 8.0, "unknown_memory"), ("chunks", 8.0, "unknown_memory"),
        ("opaque", 8.0, "unknown_memory"), ("overlap", 8.0, "unknown_memory")], "loop candidates")
    ctx.check_build(LOOPS)
    plain = ctx.run([ctx.path("prof")], env={"DEEPPROF_FILE": "p2.data"}).stdout
    eq(ctx.check_run("ck.data"), plain, "the check build's output")
    regs, top = regions(ctx, "ck.data")
    pairs = lambda fn: sorted({(x["i"], x["j"]) for x in regs[fn]["conflicts"]})  # noqa: E731
    eq((regs["chunks"].get("loop"), regs["chunks"]["executions"], regs["chunks"]["conflicts"],
        regs["chunks"]["opaque"]), (True, 1, [], []), "chunks: one loop execution, independent")
    eq(pairs("overlap"), [(i, i + 1) for i in range(7)], "overlap: neighbouring iterations")
    eq(pairs("accum"), [(i, j) for i in range(8) for j in range(i + 1, 8)], "accum: every pair")
    eq(sorted((q["call"], q["callee"]) for q in regs["opaque"]["opaque"]),
       [(i, "getpid") for i in range(8)], "opaque: getpid() in every iteration")
    eq(top["lost"], 0, "nothing lost")
    after, out = ctx.feedback(["prof.data", "--checked-by=ck.data"], "after.json")
    c = {x["proc"]["fn"]: x for x in after["candidates"] if x.get("loop")}
    eq({fn: x["safety"] for fn, x in c.items()},
       {"chunks": "checked", "overlap": "conflict", "accum": "conflict", "opaque": "unknown_memory"},
       "levels")
    eq(c["overlap"]["safety_why"], "the dependence check saw fill() in one iteration write v at "
       "loops.c:23 and in a later one write it at loops.c:23: the iterations are not independent",
       "overlap's conflict")
    eq(c["accum"]["safety_why"], "the dependence check saw bump() in one iteration write t at "
       "loops.c:32 and in a later one write it at loops.c:32: the iterations are not independent",
       "accum's conflict")
    check(c["opaque"]["safety_why"].startswith("the dependence check cannot see into getpid() "
                                               "(called at loops.c:37"), c["opaque"]["safety_why"])
    eq((c["chunks"]["check_inputs"], c["chunks"]["check_executions"], c["overlap"]["verdict"]),
       (1, 1, "unsafe"), "chunks' counts, overlap's verdict")
    # the predicted speedups rest on the instrumented run's time per CSC
    # (this machine's speed): near 2x for 8 equal iterations on 2 CPUs, and
    # the text and the remarks print the file's own figures
    sp, psp = c["chunks"]["speedup"], c["chunks"]["program_speedup"]
    check(1.9 <= sp < 2.0 and 1.05 < psp < 1.2, "chunks' predicted speedups %r, %r" % (sp, psp))
    check("  #%d in chunks (loops.c:44): run fill() (line 47) as a task per iteration of the loop at "
          "line 46: the loop %.2fx faster" % (c["chunks"]["id"], sp) in out, out)
    # merged with itself: the loop regions stay loop regions, counts add up
    ctx.run([ctx.dp, "merge", "ck.data", "ck.data", "-o", "twice.data"])
    regs2, _ = regions(ctx, "twice.data")
    eq((regs2["chunks"].get("loop"), regs2["chunks"]["executions"], pairs("accum") ==
        sorted({(x["i"], x["j"]) for x in regs2["accum"]["conflicts"]})), (True, 2, True),
       "merge keeps the loop regions")
    ctx.run(["gcc", "-O2", LOOPS, "-o", "serial"])
    want = ctx.run([ctx.path("serial")]).stdout
    r = ctx.run([ctx.cc, "-O2", "--deepprof-use=after.json", "--deepprof-parallelize=checked",
                 "--deepprof-remarks", LOOPS, "-o", "par"])
    check("optimized: deepprof: candidate %d: fill() in the loop at line 46 run as a task per "
          "iteration (predicted %.2fx on this loop, %.2fx on the program; checked on 1 input, not "
          "proved: --deepprof-parallelize=checked; GCC: fill() writes memory through its arguments"
          % (c["chunks"]["id"], sp, psp) in r.stderr, r.stderr)
    for fn in ("overlap", "accum"):
        check("missed: deepprof: candidate %d: " % c[fn]["id"] in r.stderr and
              "not parallelized: the dependence check saw" in r.stderr, fn + ": " + r.stderr)
    for n in ("1", "2", "3"):
        eq(ctx.run([ctx.path("par")], env={"OMP_NUM_THREADS": n}).stdout, want,
           "the parallel build's output with %s threads" % n)
    n = ctx.run([ctx.cc, "-O2", "--deepprof-use=after.json", "--deepprof-remarks",
                 "--deepprof-parallelize=%d" % c["accum"]["id"], LOOPS, "-o", "named"])
    check("missed: deepprof: candidate %d: bump() in the loop at line 58 as a task per iteration "
          "(predicted %.2fx on this loop): not parallelized: the dependence check saw bump()"
          % (c["accum"]["id"], c["accum"]["speedup"]) in n.stderr, n.stderr)
    eq(ctx.run([ctx.path("named")], env={"OMP_NUM_THREADS": "2"}).stdout, want, "the named build's output")
    # a loop region's iterations are of a window of 64: 64 itself is refused
    def loop_region(h, fn):
        return next(r for r in h["check"]["regions"] if r["region"].startswith(fn + "\n"))

    for i, (change, words) in enumerate([
            (lambda h: loop_region(h, "accum")["conflicts"][0].__setitem__(1, 64),
             "second call is not an unsigned integer in range"),
            (lambda h: loop_region(h, "opaque")["opaque"][0].__setitem__(0, 64),
             "an opaque call's index is not an unsigned integer in range"),
            (lambda h: loop_region(h, "chunks").__setitem__("region", "chunks\nloops.c\nloop"),
             "names fewer than two calls")]):
        bad = "badloop%d.data" % i
        rewrite_header(ctx.path("ck.data"), ctx.path(bad), change)
        r = ctx.run([ctx.dp, "dump", bad], rc=2)
        lines = r.stderr.strip().splitlines()
        check(len(lines) == 1 and lines[0].startswith(bad + ":") and words in lines[0],
              "%s: %r" % (words, r.stderr))
    rewrite_header(ctx.path("ck.data"), ctx.path("ok63.data"),
                   lambda h: loop_region(h, "accum")["conflicts"][0].__setitem__(1, 63))
    ctx.run([ctx.dp, "dump", "ok63.data"])


TESTS = [("t001_findings", t_findings),
         ("t002_levels", t_levels),
         ("t003_inputs", t_inputs),
         ("t004_quarters", t_quarters),
         ("t005_use_checked", t_use_checked),
         ("t006_bad", t_bad),
         ("t007_threads_longjmp", t_threads_longjmp),
         ("t008_two_units", t_two_units),
         ("t009_batch", t_batch),
         ("t010_bad_findings", t_bad_findings),
         ("t011_loops", t_loops),
         ("t012_frees", t_frees)]


def main():
    return dptest.build_suite_main("check", [(name, lambda a, name, fn=fn: fn(Ctx(a, name)))
                                           for name, fn in TESTS])


if __name__ == "__main__":
    sys.exit(main())
