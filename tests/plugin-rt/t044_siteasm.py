"""Direct sites' checks as asms (schemas/plugin-abi.md, "Checks without
blocks"): f's restore of dp_cur after its first call of h is followed by
p's two checks and then h's second tag. The checks read dp_cur (an input
of the asm), so the restore is not a dead store: f stores dp_cur as often
as with site-checks=blocks, where the slow calls on the checks' cold
paths kept it (without it a clock tick there would go to h, and
libprof's split.c, which finds each activation's me on the stack, would
miss one whose me did not outlive its calls). Exact counts, the same
in both, and plain GCC's output."""
import subprocess

from prt import eq, check, counts, invariants


def run(ctx):
    want = ctx.plain_output("s-siteasm.c")
    stores = {}
    for mode in ("asm", "blocks"):
        exe = ctx.build(["s-siteasm.c"], "siteasm-" + mode, opt="-O2", dp_args=["site-checks=" + mode])
        r = ctx.run(exe, [], env={"DEEPPROF_HZ": "0"})
        eq(r.stdout, want, "output, site-checks=" + mode)
        p = ctx.dump()
        invariants(p)
        eq(counts(p, "main", "f"), [(50, 50)], "main -> f " + mode)
        eq(counts(p, "f", "h"), [(50, 50), (50, 50)], "f -> h " + mode)
        eq(counts(p, "f", "p"), [(50, 50), (50, 50)], "f -> p " + mode)
        asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe], capture_output=True,
                             text=True, check=True).stdout
        stores[mode] = asm.split("<f>:")[1].split("\n\n")[0].count("%fs:")
    if ctx.a.abi != 1:
        check(stores["asm"] == stores["blocks"] >= 5,
              "f reaches dp_cur %d times with site-checks=asm, %d with blocks" % (stores["asm"], stores["blocks"]))
