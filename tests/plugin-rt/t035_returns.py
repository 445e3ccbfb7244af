"""Calls of library functions declared leaf (glibc's __THROW: iswlower,
towupper, strlen, malloc, free) return to their site: the plugin flags
those sites DP_CSS_RETURNS and ABI v2 counts no exits after them, the
runtime taking their calls for exits. Counts are exact either way; a
libc function that calls back (qsort) keeps its exits count, so a
longjmp out of its comparator is its non-local exit. At -O2 the code
after `call iswlower` adds nothing to a csd's exits (v2 only)."""
import re
import subprocess

from prt import eq, check, invariants, kind


def run(ctx):
    for opt in ("-O0", "-O2"):
        exe = ctx.build(["s-returns.c"], "returns", opt=opt)
        for n in (100, 1000):
            ctx.run(exe, [str(n)])
            p = ctx.dump()
            invariants(p)
            what = "%s, n=%d" % (opt, n)
            for caller, callee, calls in (("upper", "iswlower", n), ("upper", "towupper", n // 2),
                                          ("main", "strlen", 1), ("main", "malloc", 3),
                                          ("main", "free", 3)):
                cs = p.csds(caller, callee)
                eq(sorted(set(kind(p, c) for c in cs)), ["external"],
                   "kind of %s -> %s (%s)" % (caller, callee, what))
                got = tuple(sum(c[f] for c in cs) for f in ("calls", "exits", "nonlocal_exits"))
                eq(got, (calls, calls, 0), "%s -> %s (%s)" % (caller, callee, what))
            q = sorted((c["calls"], c["exits"], c["nonlocal_exits"]) for c in p.csds("main", "qsort"))
            eq(q, [(1, 0, 1), (1, 1, 0)], "main -> qsort twice, the second left by longjmp (%s)" % what)
        if opt == "-O2" and ctx.a.abi != 1:
            d = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe],
                               capture_output=True, text=True).stdout
            m = re.search(r"<upper>:\n(.*?)\n\n", d, re.S)
            body = m.group(1) if m else ""
            check(m is not None and "iswlower" in body, "upper calls iswlower")
            seq = re.findall(r"call\s+\S+ <iswlower@plt>\n((?:.*\n){1,6})", body + "\n")
            check(seq != [] and not any(re.search(r",0x28\(%", s) for s in seq),
                  "upper counts exits after iswlower: %s" % seq)
