"""pthread_exit below start -> f -> g: the thread's frames (the call of
pthread_exit too) count non-local exits; the main thread goes on normally."""
from prt import eq, invariants


def run(ctx):
    exe = ctx.compile("s-pthread_exit.c")
    ctx.run(exe)
    p = ctx.dump()
    invariants(p)
    eq(len(p.threads), 2, "threads")
    t = p.threads[1]
    eq(t["exited"], True, "the thread exited")
    for caller, callee in [("<root>", "start"), ("start", "f"), ("f", "g"), ("g", "pthread_exit")]:
        eq(p.counts(caller, callee, t["id"]), (1, 0, 1), "%s -> %s" % (caller, callee))
    m = p.threads[0]["id"]
    eq(p.counts("main", "h", m), (1, 1, 0), "main -> h")
    eq(p.counts("<root>", "main", m), (1, 1, 0), "<root> -> main")
