"""Sites with no slot (s-noslot.c): with calls=surviving GCC inlines the
head of g (its NULL test) into main and h and calls the rest, g.part.0,
whose sites run in the caller's activation, main's or h's, and so have no
slot of their own there: each call takes the slow path. That path is
dp_abi_call_noslot, a call GCC sees (it saves only the registers live
across it), not the _regs entry point that saves them all
(compiler-plugins/slow_regs.cc): g.part.0 calls it at each of its 63
sites and never dp_abi_call_slow_regs. Exact counts in main's and h's
pds, no call lost, plain GCC's output; the default build (every call
counted, g an activation of its own) prints the same and gives the
part's sites slots (no dp_abi_call_noslot anywhere). ABI v1: the same
counts."""
import subprocess

from prt import eq, check, counts, invariants

WANT = {
    ("main", "h"): [(3000, 3000)],
    ("main", "leaf"): [(2000, 2000), (8000, 8000)],
    ("main", "leaf2"): [(8000, 8000)],
    ("h", "leaf"): [(2000, 2000), (8000, 8000)],
    ("h", "leaf2"): [(8000, 8000)],
}


def disassembly(exe):
    return subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe], capture_output=True,
                          text=True, check=True).stdout


def run(ctx):
    want = ctx.plain_output("s-noslot.c")
    exe = ctx.build(["s-noslot.c"], "noslot", opt="-O2", dp_args=["calls=surviving"])
    r = ctx.run(exe, [], env={"DEEPPROF_HZ": "0"})
    eq(r.stdout, want, "output, calls=surviving")
    p = ctx.dump()
    invariants(p)
    eq(p.h.get("lost", 0), 0, "lost")
    for (a, b), w in WANT.items():
        eq(counts(p, a, b), w, "%s -> %s" % (a, b))
    if ctx.a.abi == 1:
        return      # (ABI v1's hooks: no slots)
    asm = disassembly(exe)
    check("<g.part.0>:" in asm, "GCC split no g.part.0 off g with calls=surviving")
    if "<g.part.0>:" in asm:
        part = asm.split("<g.part.0>:")[1].split("\n\n")[0]
        noslot = part.count("<dp_abi_call_noslot>")
        regs = part.count("dp_abi_call_slow_regs")
        check(noslot == 63 and regs == 0,
              "g.part.0 calls dp_abi_call_noslot at %d sites (want 63: leaf, leaf2, 30 printf and leaf, "
              "leaf) and dp_abi_call_slow_regs at %d (want 0)" % (noslot, regs))
    exe = ctx.build(["s-noslot.c"], "noslot-default", opt="-O2")
    r = ctx.run(exe, [], env={"DEEPPROF_HZ": "0"})
    eq(r.stdout, want, "output, default build")
    eq(len([l for l in disassembly(exe).split("\n") if "\tcall " in l and "<dp_abi_call_noslot>" in l]), 0,
       "calls of dp_abi_call_noslot in the default build")
