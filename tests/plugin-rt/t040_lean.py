"""Lean sites (compiler-plugins/lower.cc): at -O2 the calls of sq that GCC
inlines into f1 leave dp_cur alone (sq's inlined body makes no call), and
still count exact calls and exits; chk's inlined body calls bump on a path
and keeps its site's stores. -O0 (nothing inlined) and -O2, both ABIs:
the same counts, the plain build's output."""
from prt import eq


def run(ctx):
    for opt, exe, p in ctx.like_plain("s-lean.c", ["1000"]):
        eq(p.counts("f1", "sq"), (1000, 1000, 0), "f1 -> sq " + opt)
        eq(p.counts("main", "sq"), (1, 1, 0), "main -> sq " + opt)
        eq(p.counts("f2", "chk"), (1000, 1000, 0), "f2 -> chk " + opt)
        eq(p.counts("chk", "bump"), (3, 3, 0), "chk -> bump " + opt)
        eq((p.counts("main", "f1"), p.counts("main", "f2")), ((1, 1, 0), (1, 1, 0)), "main's calls " + opt)
