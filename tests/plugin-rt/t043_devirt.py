"""Indirect calls GCC made direct and inlined (schemas/plugin-abi.md,
"Devirtualized sites"): at -O2 each() is inlined with constant targets,
and its site of is_x checks that its csd is bound to the target's
procedure (dp_abi_call_bound) instead of the target, so the inlined
bodies of odd and even are quiet. Every csd's calls and exits are exact
and the same at -O0 (real calls through pointers), in both ABIs."""
import subprocess

from prt import eq, check, counts


def run(ctx):
    for opt, exe, p in ctx.like_plain("s-devirt.c", plain="210 810"):
        eq(counts(p, "main", "pass_a"), [(3, 3)], "main -> pass_a " + opt)
        eq(counts(p, "main", "pass_b"), [(4, 4)], "main -> pass_b " + opt)
        eq(counts(p, "main", "pass_c"), [(2, 2)], "main -> pass_c " + opt)
        eq(counts(p, "pass_c", "each"), [(2, 2), (2, 2)], "pass_c -> each " + opt)
        # pass_c's second each() only: 10 + 10
        eq(counts(p, "each", "even"), [(20, 20)], "each -> even " + opt)
        # pass_c's first each(), pass_a's, pass_b's
        eq(counts(p, "each", "odd"), [(20, 20), (30, 30), (40, 40)], "each -> odd " + opt)
        # pass_c's second, pass_a's, pass_c's first (pass_b's never runs)
        eq(counts(p, "each", "twice"), [(5, 5), (15, 15), (15, 15)], "each -> twice " + opt)
        eq(counts(p, "each", "triple"), [(5, 5)], "each -> triple " + opt)
        eq(counts(p, "odd", "note"), [(5, 5), (15, 15), (15, 15)], "odd -> note " + opt)
        eq(counts(p, "even", "note"), [(5, 5)], "even -> note " + opt)
        eq(counts(p, "triple", "note"), [(5, 5)], "triple -> note " + opt)
        if opt == "-O2" and ctx.a.abi != 1:
            asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe], capture_output=True,
                                 text=True, check=True).stdout
            check("<dp_abi_call_bound>" in asm.split("<pass_a>:")[1].split("\n\n")[0],
                  "pass_a's devirtualized site calls no dp_abi_call_bound: the test shows nothing")
