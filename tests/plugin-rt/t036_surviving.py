"""calls=surviving counts the calls that survive inlining (ABI v2: the
inline path placed after inlining, lower.cc; ABI v1: the hooks of inlined
calls removed). s-surv.c's always_inline functions leave no procedure of
their own: their calls and back-edges belong to the activation they were
inlined into, each site of an inlined body one csd there (inner() inlined
twice: one csd of 2n calls), an indirect call and a longjmp out of one as
well; a call in tail position of an inlined function is not one where it
runs (tail_in), and counts its return. At -O0 and -O2, with exactly the
call counts callgrind sees in the plain -O2 build."""
import os
import re
import subprocess
import sys

from prt import eq, check, invariants, kind, Fail

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "xcheck"))
import callgrind  # noqa: E402

MINE = {"main", "work", "jumper", "tailer", "leaf", "other"}
GONE = {"wrap", "viaptr", "inner", "outer", "maybe_jump", "tail_in"}


def arcs(p):
    """{(caller, callee): calls} between s-surv.c's functions."""
    out = {}
    for c in p.csd:
        if c["caller"] in MINE and c["callee"] in MINE:
            out[(c["caller"], c["callee"])] = out.get((c["caller"], c["callee"]), 0) + c["calls"]
    return out


def seen_by_callgrind(ctx, n):
    plain = ctx.path("plain")
    r = subprocess.run(["gcc", "-std=gnu11", "-g", "-O2", ctx.src("s-surv.c"), "-o", plain],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise Fail("plain gcc failed: " + r.stderr[-500:])
    out = ctx.path("cg.out")
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, plain, str(n)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise Fail("callgrind failed: " + r.stderr[-500:])
    return {k: v for k, v in callgrind.parse(out).arcs.items() if k[0] in MINE and k[1] in MINE}


def run(ctx):
    for opt in ("-O0", "-O2"):
        exe = ctx.build(["s-surv.c"], "surv", opt=opt, dp_args=["calls=surviving"])
        for n in (10, 25):
            r = ctx.run(exe, [str(n)])
            p = ctx.dump()
            invariants(p)
            what = "%s, n=%d" % (opt, n)
            eq(p.h.get("lost", 0), 0, "lost (%s)" % what)
            eq(sorted((c["calls"], c["exits"], c["nonlocal_exits"], kind(p, c)) for c in p.csds("work", "leaf")),
               [(2 * n, 2 * n, 0, "normal"), (3 * n, 3 * n, 0, "normal")],
               "work -> leaf: wrap's site and inner's (%s)" % what)
            eq(sorted((c["calls"], c["exits"], kind(p, c)) for c in p.csds("work", "other")),
               [(n, n, "indirect"), (2 * n, 2 * n, "normal")], "work -> other (%s)" % what)
            eq(p.counts("main", "jumper"), (4, 3, 1), "main -> jumper, the last left by longjmp (%s)" % what)
            eq(p.counts("main", "leaf"), (1, 1, 0), "main -> leaf: tail_in's site (%s)" % what)
            eq(p.counts("tailer", "leaf"), (1, 1, 0), "tailer -> leaf (%s)" % what)
            # (under -fsanitize=undefined a check of atoi's argument comes
            # between its call hook and the call)
            eq(p.counts("main", "atoi"), (1, 1, 0), "main -> atoi (%s)" % what)
            w = p.one("main", "work")
            eq(w["cscs"], 1 + n + 3 * n, "main -> work: its call, its loop's and wrap's back-edges (%s)" % what)
            eq([c for c in p.csd if c["caller"] in GONE or c["callee"] in GONE], [],
               "no csd of an inlined function (%s)" % what)
            src = open(ctx.src("s-surv.c")).read().splitlines()
            at = {c["calls"]: src[p.css_of(c)["line"] - 1] for c in p.csds("work", "leaf")}
            check("s += leaf(x + i);" in at.get(3 * n, "") and "return leaf(x) + other(x);" in at.get(2 * n, ""),
                  "work -> leaf sites at wrap's and inner's calls (%s): %r" % (what, at))
            if opt == "-O2":
                eq(arcs(p), seen_by_callgrind(ctx, n), "calls between s-surv.c's functions: ours (%s) "
                   "and callgrind's of the plain build" % what)
        if opt == "-O2" and ctx.a.abi != 1:
            d = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe], capture_output=True,
                               text=True).stdout
            v1 = [l for l in d.splitlines() if re.search(r"\scall\s+\S+ <dp_abi_(call|enter|return)>$", l)]
            check("dp_abi_enter_slow" in d and v1 == [], "ABI v2 code, no call of v1's hooks: %s" % v1[:3])
