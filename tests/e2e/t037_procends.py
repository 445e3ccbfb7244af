"""A -finstrument-functions program that ends by _exit or _Exit, or that
execs, leaves its profile: the hooks see no call into libc, so libprof
catches those calls itself (libprof/procwrap.c), in libprof.so (linked
through pkg-config, as the README says) and in libprof.a through
deepprof-cc --deepprof-mode=cyg's -Wl,--wrap. _exit writes the final
profile (main left running), exec a snapshot (final: no), replaced by the
final one when the exec fails; a vfork child writes nothing, a fork
child's _exit its own profile. Before, none of these left a profile."""
import glob
import os
import subprocess

from e2e import Fail, eq


def calls(p, caller, callee):
    return sum(c["calls"] for c in p.csds(caller, callee))


def clean(ctx):
    for f in glob.glob(ctx.path("Deep.data*")):
        os.unlink(f)


def builds(ctx, src):
    """src built both ways: gcc -finstrument-functions with libprof.so, and
    deepprof-cc --deepprof-mode=cyg (libprof.a)."""
    name = os.path.splitext(src)[0]
    so = ctx.compile(src, out=name + "-so", link="pkg-config", opt="-O2")
    exe = ctx.path(name + "-a")
    cc = os.path.join(ctx.a.build, "bin", "deepprof-cc")
    cmd = [cc, "--deepprof-mode=cyg", "-std=gnu11", "-g", "-O2", "-pthread",
           os.path.join(ctx.srcdir, src), "-o", exe] + ctx.a.cflags.split()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise Fail("%s failed:\n%s" % (" ".join(cmd), r.stderr.strip()[-2000:]))
    return [("libprof.so", so), ("libprof.a", exe)]


def run(ctx):
    for how_built, exe in builds(ctx, "s-exits.c"):
        for how, rc in (("_exit", 3), ("_Exit", 6)):
            clean(ctx)
            ctx.run(exe, [how], rc=rc)
            p = ctx.dump()
            p.check_invariants()
            tag = "%s, %s" % (how, how_built)
            eq(p.h["final"], True, "final (%s)" % tag)
            eq(calls(p, "main", "leaf"), 10, "main -> leaf (%s)" % tag)
            eq(p.counts("<root>", "main"), (1, 0, 1), "main left running (%s)" % tag)
            eq(calls(p, "at_end", "leaf"), 0, "no atexit handler ran (%s)" % tag)
        clean(ctx)
        ctx.run(exe, ["vfork"])
        eq(sorted(os.path.basename(f) for f in glob.glob(ctx.path("Deep.data*"))), ["Deep.data"],
           "a vfork child writes no profile (%s)" % how_built)
        p = ctx.dump()
        p.check_invariants()
        eq(p.h["final"], True, "the parent's profile (%s)" % how_built)
        clean(ctx)
        ctx.run(exe, ["fork"])
        eq(len(glob.glob(ctx.path("Deep.data.*"))), 3,
           "each fork child's _exit writes its profile (%s)" % how_built)
    for how_built, exe in builds(ctx, "s-exec.c"):
        for how in ("ok", "ok-l", "ok-le", "ok-lp"):
            clean(ctx)
            ctx.run(exe, [how])
            p = ctx.dump()
            tag = "%s, %s" % (how, how_built)
            eq(p.h["final"], False, "a snapshot before the exec (%s)" % tag)
            eq(p.h["lost"], 0, "lost (%s)" % tag)
            eq(calls(p, "main", "leaf"), 10, "main -> leaf (%s)" % tag)
        clean(ctx)
        ctx.run(exe, ["fail"])
        p = ctx.dump()
        p.check_invariants()
        eq(p.h["final"], True, "the final profile after a failed exec (%s)" % how_built)
        eq(calls(p, "main", "leaf"), 11, "main -> leaf, after the failed exec too (%s)" % how_built)
        clean(ctx)
        r = ctx.run(exe, ["vfork"])
        eq(r.stdout.strip(), "0", "the vfork child's exec ran /bin/true (%s)" % how_built)
        eq(sorted(os.path.basename(f) for f in glob.glob(ctx.path("Deep.data*"))), ["Deep.data"],
           "no profile from the vfork child (%s)" % how_built)
        eq(ctx.dump().h["final"], True, "the parent's final profile (%s)" % how_built)
