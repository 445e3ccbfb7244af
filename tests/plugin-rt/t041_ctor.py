"""Code libc runs between instrumented calls (s-ctor.c): a constructor,
then main, which registers two exit handlers and calls exit(); the
constructor and each handler end in a call of free (a library function
declared leaf) in tail position. With ABI v2 dp_cur names no activation
after such code has returned, only the last csd it set: main hung below
the constructor's free (jq's profile: main under jv_mem_uninit_setup ->
free), and the second handler below the first one's free. Now a leaf
library call in tail position is no tail call (dp_cur is restored after
it: compiler-plugins/instrument.cc) and the runtime sets dp_cur back to
the root after the program's constructors (libprof/plugin2.c): main hangs
from <root>, both handlers from exit. ABI v1 keeps the tail calls; its
shadow stack places main below the constructor's free, a known limit
(the test checks v1's counts only)."""
import subprocess

from prt import eq, invariants


def run(ctx):
    src = ctx.src("s-ctor.c")
    plain = ctx.path("ctor-plain")
    subprocess.run(["gcc", "-std=gnu11", "-O2", src, "-o", plain], check=True)
    want = subprocess.run([plain], capture_output=True, text=True, check=True).stdout
    for opt in ("-O0", "-O2"):
        exe = ctx.build(["s-ctor.c"], "ctor" + opt, opt=opt)
        r = ctx.run(exe, env={"DEEPPROF_HZ": "0"})
        eq(r.stdout, want, "output " + opt)
        p = ctx.dump()
        invariants(p)
        eq(p.total(callee="setup"), 1, "setup's calls " + opt)
        eq(p.total(callee="work"), 1, "work's calls " + opt)
        eq((p.total(callee="bye1"), p.total(callee="bye2")), (1, 1), "the handlers' calls " + opt)
        if ctx.a.abi == 1:
            continue
        eq(p.counts("<root>", "main")[0], 1, "main from <root> " + opt)
        eq(p.counts("<root>", "setup"), (1, 1, 0), "setup from <root> " + opt)
        eq((p.counts("exit", "bye1"), p.counts("exit", "bye2")), ((1, 1, 0), (1, 1, 0)),
           "the handlers from exit " + opt)
        eq((p.counts("setup", "free"), p.counts("bye1", "free"), p.counts("bye2", "free")),
           ((1, 1, 0),) * 3, "the calls of free " + opt)
