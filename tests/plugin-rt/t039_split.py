"""Functions GCC's function splitting cuts into a head and a part for the
rare path (s-split.c: rare.part.0, trapped.part.0), at -O0 and -O2, both
ABIs: exact counts, with the parts' calls in the pds of the function they
were split off, and the same output as the plain build. In the default
build (ABI v2) GCC sees calls where the inline path will be until after
inlining (compiler-plugins/lower.cc), so it splits what the plain build
splits: the same parts by `nm` (before, none: the head held the prologue,
whose csd and pd the part could not be passed). trapped()'s head runs a
SIGILL handler (an instrumented callback that makes a call): its part then
finds dp_cur naming the handler's csd, and finds trapped's activation by
dp_abi_resume; without it the part's sites would index the handler's pd
(and the handler would show trapped's callees)."""
import os
import re
import subprocess

from prt import eq, check, invariants


def parts(path):
    syms = subprocess.run(["nm", path], capture_output=True, text=True).stdout
    return sorted(set(re.findall(r"\s(\w+\.part\.\d+)$", syms, re.M)) - {"__deepprof_chk_call.part.0"})


def run(ctx):
    sanitized = "-fsanitize" in (ctx.a.cflags or "")
    src = ctx.src("s-split.c")
    want = ctx.plain_output("s-split.c")
    for opt in ("-O0", "-O2"):
        exe = ctx.build(["s-split.c"], "split" + opt, opt=opt)
        if opt == "-O2" and ctx.a.abi != 1 and not sanitized:
            obj = ctx.path("split-plain.o")
            subprocess.run(["gcc", "-std=gnu11", "-g", "-O2", "-c", src, "-o", obj], check=True)
            eq(parts(exe), parts(obj), "the parts GCC split off, the plugin build's and plain's")
            check(parts(exe) == ["rare.part.0", "trapped.part.0"], "GCC splits rare and trapped: %s"
                  % parts(exe))
        r = ctx.run(exe, env={"DEEPPROF_HZ": "0"})
        eq(r.stdout, want, "output " + opt)
        p = ctx.dump()
        invariants(p)
        eq(p.counts("loop1", "rare"), (700, 700, 0), "loop1 -> rare " + opt)
        eq(p.counts("loop1b", "rare"), (70, 70, 0), "loop1b -> rare " + opt)
        eq(p.counts("loop2", "trapped"), (70, 70, 0), "loop2 -> trapped " + opt)
        eq(p.counts("loop2b", "trapped"), (7, 7, 0), "loop2b -> trapped " + opt)
        for f, n in (("rare", 110), ("trapped", 11)):
            for callee, k in (("snprintf", 1), ("atoi", 1), ("cold", 4)):
                eq((p.total(f, callee), p.total(f, callee, field="exits")), (k * n, k * n),
                   "%s -> %s %s" % (f, callee, opt))
            eq(sorted({c["callee"] for c in p.csds(f)} - {"on_ill"}), ["atoi", "cold", "snprintf"],
               "%s's callees %s" % (f, opt))
        eq(p.total("trapped", "on_ill"), 77, "trapped -> on_ill (the handler, a callback) " + opt)
        eq(sorted({c["callee"] for c in p.csds("on_ill")}), ["cold"], "on_ill's callees " + opt)
        eq(p.total("on_ill", "cold"), 77, "on_ill -> cold " + opt)
