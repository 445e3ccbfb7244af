"""Non-local exits through inlined bodies: at -O2 GCC inlines force and
DEREF (DEREF also within force), each calling out on a path, and a
longjmp from r_unref leaves them: every csd's calls, exits and non-local
exits are exact and the same at -O0 (nothing inlined), in both ABIs."""
import prt
from prt import eq


def counts(p, caller, callee):
    return prt.counts(p, caller, callee, ("calls", "exits", "nonlocal_exits"))


def run(ctx):
    for opt, exe, p in ctx.like_plain("s-inljmp.c", plain="10 6"):
        eq(counts(p, "main", "f"), [(1, 0, 1), (1, 0, 1), (10, 10, 0)], "main -> f " + opt)
        eq(counts(p, "f", "force"), [(1, 0, 1), (1, 1, 0), (10, 10, 0)], "f -> force " + opt)
        eq(counts(p, "f", "DEREF"), [(1, 0, 1), (10, 10, 0)], "f -> DEREF " + opt)
        eq(counts(p, "force", "DEREF"), [(1, 0, 1), (1, 1, 0), (5, 5, 0)], "force -> DEREF " + opt)
        eq(counts(p, "force", "fix"), [(1, 1, 0), (1, 1, 0), (5, 5, 0)], "force -> fix " + opt)
        eq(counts(p, "DEREF", "r_unref"), [(1, 0, 1), (1, 0, 1), (1, 1, 0), (5, 5, 0)],
           "DEREF -> r_unref " + opt)
        eq(counts(p, "r_unref", "longjmp"), [(1, 0, 1), (1, 0, 1)], "r_unref -> longjmp " + opt)
