"""A direct site's code as one asm each side of its call (schemas/
plugin-abi.md, "Checks without blocks"): before it, the slot's load, the
check, the call's count and dp_cur's tag; after it, the restore and the
exit's count (site-checks=asm, the default). Exact counts, the same with
the check alone (site-checks=check) and with blocks, and plain GCC's
output: f's sites of n1 and n2 (whose callees call h, so dp_cur is set
and restored around them), those of m's two inlined copies, and lp's,
inlined, whose loop reads its csd from dp_cur. f reads dp_cur as often
in every mode (once, in its prologue: the plugin gives lp's read the
value the asm stored, as GCC's passes did with the store in sight), and
stores it as often with the asm as with blocks or more: with a check
alone GCC drops lp's tag as overwritten by the restore after its loop
(which reads no dp_cur that GCC can see), so a clock tick in the loop
goes to f; the asm keeps it."""
import subprocess

from prt import eq, check, counts, invariants

WANT = {
    ("main", "f"): [(50, 50)],
    ("f", "n1"): [(50, 50), (50, 50)],
    ("f", "n2"): [(50, 50)],
    ("f", "m"): [(50, 50), (50, 50)],
    ("f", "lp"): [(50, 50)],
    ("m", "n1"): [(25, 25), (50, 50)],      # m(a): a odd; m(b): b always odd
    ("m", "n2"): [(25, 25)],
    ("n1", "h"): [(25, 25), (50, 50), (50, 50), (50, 50)],
    ("n2", "h"): [(25, 25), (50, 50)],
}


def run(ctx):
    want = ctx.plain_output("s-sitefold.c")
    reads, stores = {}, {}
    for mode in ("asm", "check", "blocks"):
        exe = ctx.build(["s-sitefold.c"], "sitefold-" + mode, opt="-O2", dp_args=["site-checks=" + mode])
        r = ctx.run(exe, [], env={"DEEPPROF_HZ": "0"})
        eq(r.stdout, want, "output, site-checks=" + mode)
        p = ctx.dump()
        invariants(p)
        for (a, b), w in WANT.items():
            eq(counts(p, a, b), w, "%s -> %s, site-checks=%s" % (a, b, mode))
        asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe], capture_output=True,
                             text=True, check=True).stdout
        f = [l for l in asm.split("<f>:")[1].split("\n\n")[0].split("\n") if "%fs:" in l]
        reads[mode] = sum(l.split(",")[0].split()[-1].startswith("%fs:") for l in f)
        stores[mode] = len(f) - reads[mode]
    if ctx.a.abi != 1:
        check(reads["asm"] == reads["check"] == reads["blocks"] == 1,
              "f reads dp_cur %d times with site-checks=asm, %d with check, %d with blocks (want 1)"
              % (reads["asm"], reads["check"], reads["blocks"]))
        check(stores["asm"] >= stores["check"] == stores["blocks"] >= 10,
              "f stores dp_cur %d times with site-checks=asm, %d with check, %d with blocks"
              % (stores["asm"], stores["check"], stores["blocks"]))
