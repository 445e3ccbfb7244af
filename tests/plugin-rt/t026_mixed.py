"""A program whose other file is built with gcc -finstrument-functions, not
the plugin (a library built so, say): s-mf-main.c by deepprof-cc calls
lib_sum() and lib_twice() of s-mf-lib.c, which call their helper() and
main's square() back. Under ABI v1 the plugin's and the hooks' frames share
one stack: a plugin frame gives the hooks a table to probe (an unused slot
held none, and the first hook crashed), the plugin's slow paths read no
flags in a hooks frame's return address (a bit of it took lib_twice's frame
for a pending call, and square() went under main), and a plugin callback
frame under a hooks function that returns has returned; each call from a
plugin site into a hooks function is counted by the hooks, and the site's
own frame is dropped (counted lost). Under ABI v2 the hooks' functions hang
from <root> and such a call is counted on both sides (README: "Mixing
-finstrument-functions objects")."""
import subprocess

from prt import Fail, eq, invariants


def run(ctx):
    lib = ctx.path("lib.o")
    cmd = ["gcc", "-std=gnu11", "-g", "-O0", "-finstrument-functions", "-c",
           ctx.src("s-mf-lib.c"), "-o", lib] + ctx.a.cflags.split()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise Fail("%s failed:\n%s" % (" ".join(cmd), r.stderr.strip()[-2000:]))
    exe = ctx.build(["s-mf-main.c", lib], "mixed")
    r = ctx.run(exe)
    eq(r.stdout.strip(), "387", "output")
    p = ctx.dump()
    # ABI v1: the hooks' frame for a callee of a plugin site takes the
    # place of the site's pending frame, whose return hook then finds none
    # (one event lost per call: 4 into lib_sum, 1 into lib_twice)
    invariants(p, lost=5 if ctx.a.abi == 1 else 0)
    eq(p.counts("main", "lib_twice"), (1, 1, 0), "main -> lib_twice (the plugin's site)")
    eq(p.counts("lib_sum", "helper"), (40, 40, 0), "lib_sum -> helper (the hooks)")
    eq(p.counts("lib_twice", "square"), (2, 2, 0), "lib_twice -> square (a callback, returned)")
    eq(p.counts("main", "helper"), (1, 1, 0), "main -> helper")
    if ctx.a.abi != 1:
        return
    # one stack: each call once, every csd in main's context
    eq(p.counts("main", "lib_sum"), (4, 4, 0), "main -> lib_sum, counted once")
    eq(len(p.csds(callee="lib_sum")), 1, "one csd into lib_sum")
    eq(len(p.csds(callee="lib_twice")), 1, "one csd into lib_twice")
    by_id = {d["id"]: d for d in p.pd}
    for caller, callee in (("lib_sum", "helper"), ("lib_twice", "square")):
        c = p.one(caller, callee)
        parent = [x for x in p.csd if x["callee_pd"] == c["caller_pd"]]
        eq([x["caller"] for x in parent], ["main"], "%s's pd is main's callee (%s -> %s)"
           % (caller, caller, callee))
        eq(by_id[c["caller_pd"]]["thread"], by_id[parent[0]["caller_pd"]]["thread"], "one thread")
