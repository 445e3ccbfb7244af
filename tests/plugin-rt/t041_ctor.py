"""Code libc runs between instrumented calls (s-ctor.c): a constructor,
then main, which registers two exit handlers and calls exit(); the
constructor and each handler end in a call of free (a library function
declared leaf, which cannot call back) in tail position. With ABI v2 no
restore follows a tail call, and dp_cur still named free's csd, tagged,
after the handler had returned: the second handler hung below the first
one's free, and main below the constructor's (jq's profile: main under
jv_mem_uninit_setup -> free). Now the runtime knows such a call has
returned (DP_CSS_TAIL with DP_CSS_RETURNS: libprof/plugin2.c, enter) and
sets dp_cur back to the root after the program's constructors: main hangs
from <root>, both handlers from exit, every call of free returned. ABI v1's
shadow stack kept the constructor's call of free (no hook follows a tail
call) and placed main below it; libprof now pops every frame above the
root after the constructors (libprof/plugin.c, v1_after_constructors). v1
charges a library call in tail position to the caller's caller, as it
always has: where GCC made it a tail call the constructor's free hangs
from <root>."""
from prt import eq


def run(ctx):
    for opt, exe, p in ctx.like_plain("s-ctor.c"):
        eq(p.total(callee="setup"), 1, "setup's calls " + opt)
        eq(p.total(callee="work"), 1, "work's calls " + opt)
        eq((p.total(callee="bye1"), p.total(callee="bye2")), (1, 1), "the handlers' calls " + opt)
        eq(p.counts("<root>", "main")[0], 1, "main from <root> " + opt)
        eq(p.counts("<root>", "setup"), (1, 1, 0), "setup from <root> " + opt)
        eq((p.counts("exit", "bye1"), p.counts("exit", "bye2")), ((1, 1, 0), (1, 1, 0)),
           "the handlers from exit " + opt)
        # v1: from <root> when GCC made it a tail call (-O2, without the
        # sanitizers' checks after it), else from setup
        ctor_free = "setup"
        if ctx.a.abi == 1 and p.csds("<root>", "free"):
            ctor_free = "<root>"
        eq(len(p.csds(callee="free")), 3, "free's contexts " + opt)
        eq((p.counts(ctor_free, "free"), p.counts("bye1", "free"), p.counts("bye2", "free")),
           ((1, 1, 0),) * 3, "the calls of free " + opt)
