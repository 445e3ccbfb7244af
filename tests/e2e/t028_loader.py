"""SIGTERM while another thread holds the dynamic loader's lock: the handler
writes the profile without waiting for that lock (it would hang for ever);
and after a dlopen, the handler's write still names the new library."""
import os
import signal
import subprocess
from e2e import eq, check, Fail


def term_when_ready(ctx, exe, args):
    proc = ctx.spawn(exe, args)
    try:
        eq(proc.stdout.readline(), "ready\n", "program said")
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            raise Fail("no exit 20 s after SIGTERM: the write waited for the loader's lock")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode


def run(ctx):
    exe = ctx.compile("s-loader.c", extra=["-ldl"])
    eq(term_when_ready(ctx, exe, ["lock"]), -signal.SIGTERM, "exit status (lock)")
    p = ctx.dump()
    p.check_invariants()
    eq(p.counts("main", "wait_here"), (1, 0, 1), "main -> wait_here (lock)")
    check(any(m["path"] == os.path.realpath(exe) for m in p.j["modules"]),
          "the executable is a module")

    lib = ctx.path("libloaderlib.so")
    r = subprocess.run([ctx.a.cc, "-g", "-O0", "-fPIC", "-shared", "-finstrument-functions",
                        os.path.join(ctx.srcdir, "s-loaderlib.c"), "-o", lib],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise Fail("build of s-loaderlib.c failed:\n" + r.stderr)
    os.unlink(ctx.path("Deep.data"))
    eq(term_when_ready(ctx, exe, ["dlopen", lib]), -signal.SIGTERM, "exit status (dlopen)")
    p = ctx.dump()
    p.check_invariants()
    eq(p.counts("main", "lib_work"), (1, 1, 0), "main -> lib_work")
    eq(p.counts("lib_work", "twice"), (1, 1, 0), "lib_work -> twice")
    mods = [m["path"] for m in p.j["modules"]]
    check(os.path.realpath(lib) in mods or lib in mods, "the dlopened library is a module: %s" % mods)
