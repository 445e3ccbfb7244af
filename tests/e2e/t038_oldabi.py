"""Tables libprof must not run: an ABI v2 TU compiled by a plugin before
slots held tagged csds (no DP_TU_V2_TAGGED: its inline code would count at
the wrong addresses, silently, were it registered) and a TU of an unknown
ABI. Each is refused with one line on stderr, once, and counted in the
header's lost; the program runs on and writes its profile."""
import os

from e2e import Fail, eq


def run(ctx):
    inc = "-I" + os.path.join(ctx.srcdir, "..", "..", "compiler-plugins")
    exe = ctx.compile("s-oldabi.c", extra=[inc])
    r = ctx.run(exe)
    eq(r.stdout, "ran\n", "the program runs on")
    lines = [l for l in r.stderr.splitlines() if l.startswith("deepprof:")]
    want = ["deepprof: old-v2.c : compiled by an older deepprof plugin whose inline code this "
            "libprof does not run (rebuild it with this deepprof-cc): its calls are not recorded",
            "deepprof: future.c : compiled for a plugin ABI this libprof does not implement "
            "(rebuild with --deepprof-arg=abi=1)"]
    if lines != want:
        raise Fail("stderr lines %r, want %r" % (lines, want))
    p = ctx.dump()
    p.check_invariants(max_lost=2)
    eq(p.h["lost"], 2, "lost: the two TUs")
    eq(p.counts("<root>", "main"), (1, 1, 0), "main ran and returned")
