"""-O2 hooks at varying distances from their function's frame address
(s-cfa.c): the enter hook of an inlined function called with another
call's stack argument still pushed (gawk's do_print and DEREF), and a
copy of the return address kept in the frame below the real one. libprof
finds each frame address from the call frame information, so no exit is
lost and no frame is popped as a non-local exit. Before, a search for the
return address and the enter hook's offset reused at the exit gave
22 lost events and 22 phantom non-local exits here.

First the same program with hooks of its own (s-cfa-probe.c) shows that
GCC laid it out so: were the pattern gone, the counts would prove nothing.
Last, built without call frame information, libprof falls back to
searching the stack and says so on stderr: the deferred pop is still
exact, the copy of the return address is not (README, "Lost events")."""
import shlex
import subprocess

from e2e import eq, check, Fail


def probe(ctx):
    """What s-cfa.c's hooks see: {line label: bytes}."""
    exe = ctx.path("s-cfa-probe")
    cmd = [ctx.a.cc, "-std=gnu11", "-O2", "-g", "-finstrument-functions", "-Wall", "-DPROBE"]
    cmd += shlex.split(ctx.a.cflags)
    cmd += [ctx.srcdir + "/s-cfa.c", ctx.srcdir + "/s-cfa-probe.c", "-o", exe]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise Fail("probe build failed:\n%s" % r.stderr.strip())
    out = ctx.run(exe).stdout
    seen = {}
    for line in out.splitlines():
        label, _, n = line.rpartition(" ")
        seen[label] = int(n)
    return seen


def run(ctx):
    seen = probe(ctx)
    eq(seen.get("unref exit above enter"), 16,
       "bytes between unref's enter and exit hooks (stack argument of put7 still pushed)")
    eq(seen.get("outer copy below inner"), 32,
       "bytes between the copy of keeper's return address and the real one")

    exe = ctx.compile("s-cfa.c", opt="-O2")
    ctx.run(exe)
    p = ctx.dump()
    p.check_invariants()                # lost == 0
    eq(p.counts("main", "print_all"), (3, 3, 0), "main -> print_all")
    eq(p.counts("print_all", "put7"), (15, 15, 0), "print_all -> put7")
    eq(p.counts("print_all", "unref"), (15, 15, 0), "print_all -> unref")
    eq(p.counts("main", "keeper"), (4, 4, 0), "main -> keeper")
    eq(p.counts("keeper", "outer"), (4, 4, 0), "keeper -> outer")
    eq(p.counts("outer", "inner"), (4, 4, 0), "outer -> inner")
    eq(p.counts("inner", "leaf"), (4, 4, 0), "inner -> leaf")
    eq(p.total(field="nonlocal_exits"), 0, "non-local exits")
    eq(p.h["calls"], 1 + 3 + 15 + 15 + 4 + 4 + 4 + 4, "total calls")

    # without call frame information: a search, and a note on stderr
    exe = ctx.compile("s-cfa.c", out="s-cfa-nocfi", opt="-O2",
                      extra=["-fno-asynchronous-unwind-tables"])
    r = ctx.run(exe)
    check("without call frame information" in r.stderr, "note on stderr: %r" % r.stderr)
    p = ctx.dump()
    p.check_invariants(max_lost=4)
    eq(p.counts("main", "print_all"), (3, 3, 0), "main -> print_all, no CFI")
    eq(p.counts("print_all", "unref"), (15, 15, 0), "print_all -> unref, no CFI")
    eq(p.total(callee="outer"), 4, "calls of outer, no CFI")
