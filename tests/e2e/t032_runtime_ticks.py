"""The runtime's own time: a tick whose pc lies in libprof's code (the
section deepprof_text) is charged to deepprof_runtime under the current
context, not to the context's procedure. calls() only calls an empty
function, so most of its ticks are the hooks'; loop() calls nothing, so
none of its are. Statically and dynamically linked (the section's bounds
are the executable's, then libprof.so's)."""
import os

from e2e import eq, check

RT = "deepprof_runtime"
# the line of its definition
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "libprof", "timer.c")) as f:
    DEF_LINE = next(i for i, l in enumerate(f, 1) if " void deepprof_runtime(void)" in l)


def run(ctx):
    for link in ("static", "pkg-config"):
        exe = ctx.compile("s-hooks.c", out="s-hooks-" + link, link=link)
        ctx.run(exe, ["400"])
        p = ctx.dump()
        p.check_invariants()
        rt = p.csds(callee=RT)
        check(rt, "%s: a csd of %s" % (link, RT))
        for c in rt:
            eq(c["calls"], 0, "%s: calls of %s" % (link, RT))
            # no call made the site: the writer names it and the site's
            # callee, and a reader looks no line up (symbols.c)
            s = p.css_of(c)
            eq(s["in"], c["caller"], "%s: the function of %s's site" % (link, RT))
            eq((s["file"], s["line"]), (None, 0), "%s: %s's site has no line" % (link, RT))
        ps = [x for x in p.j["ps"] if x["name"] == RT]
        eq(len(ps), 1, "%s: procedures named %s" % (link, RT))
        eq((ps[0]["file"], ps[0]["line"]), ("libprof/timer.c", DEF_LINE),
           "%s: %s's file and line, from the writer" % (link, RT))
        under = {}
        for c in rt:
            under[c["caller"]] = under.get(c["caller"], 0) + c["ticks"]
        mine = p.one("main", "calls")["ticks"] + sum(c["ticks"] for c in p.csds(callee="tiny"))
        in_calls = under.get("calls", 0) + under.get("tiny", 0)
        check(mine + in_calls >= 20, "%s: ticks in calls() and below: %d" % (link, mine + in_calls))
        # the hooks are most of calls()' time (perf: 70-90% at -O0)
        check(in_calls >= 0.4 * (mine + in_calls),
              "%s: the runtime's ticks under calls(): %d of %d" % (link, in_calls, mine + in_calls))
        # loop()'s own and its clock reads', the runtime's apart
        spun = p.one("main", "loop")["ticks"] + \
            sum(c["ticks"] for c in p.csds(caller="loop") if c["callee"] != RT)
        check(spun >= 20, "%s: ticks in loop() and below: %d" % (link, spun))
        check(under.get("loop", 0) <= 2 + 0.05 * spun,
              "%s: the runtime's ticks under loop(): %d of %d" % (link, under.get("loop", 0), spun))
