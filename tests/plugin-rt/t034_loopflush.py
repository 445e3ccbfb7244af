"""Back-edge ticks of loops that make no call: ABI v2 counts them in a
register and adds them to the activation's csd before each call and
return (compiler-plugins/inline_path.cc). The counts are exact whatever
follows the loop: a return, a call, a call that longjmps out (its ticks
were added before the call), setjmp and a longjmp back to it; and a loop
that makes calls counts as before. At -O2 a char-scanning loop no longer
adds to memory in every iteration (v2 only: v1 ticks dp_loop_ticks)."""
import re
import subprocess

from prt import eq, check, invariants


def own(p, caller, callee):
    c = p.one(caller, callee)
    return c["calls"], c["exits"], c["cscs"]


def run(ctx):
    for opt in ("-O0", "-O2", "-O2 -flto"):
        exe = ctx.build(["s-loopflush.c"], "loopflush", opt=opt)
        for n in (100, 1000):
            ctx.run(exe, [str(n)])
            p = ctx.dump()
            invariants(p)
            what = "%s, n=%d" % (opt, n)
            eq(own(p, "main", "scan"), (1, 1, 1 + n), "main -> scan (%s)" % what)
            eq(own(p, "main", "scan_call_scan"), (1, 1, 1 + n + n // 4),
               "main -> scan_call_scan (%s)" % what)
            eq(own(p, "main", "loop_with_call"), (1, 1, 1 + n), "main -> loop_with_call (%s)" % what)
            eq(p.counts("loop_with_call", "id")[0], n, "loop_with_call -> id calls (%s)" % what)
            eq(own(p, "main", "early_return"), (1, 1, 1 + n // 2), "main -> early_return (%s)" % what)
            eq(own(p, "main", "jump_out"), (1, 0, 1 + n // 3), "main -> jump_out, left by longjmp (%s)" % what)
            eq(own(p, "main", "with_setjmp"), (1, 1, 1 + 3 * n), "main -> with_setjmp (%s)" % what)
        if opt == "-O2" and ctx.a.abi != 1:
            d = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe],
                               capture_output=True, text=True).stdout
            for fn in ("scan", "early_return"):
                stores = stores_in_loops(d, fn)
                check(stores == [], "%s's loop still writes its csd's loop count in every "
                      "iteration: %s" % (fn, stores))


def stores_in_loops(disasm, fn):
    """The instructions of fn (objdump -d) inside a loop (from a backward
    conditional jump's target to the jump: -O2's rotated loops; the slow
    paths jump back unconditionally) that write 8 bytes past a register:
    the csd's loop_cscs (DP_CSD_LOOP)."""
    m = re.search(r"<%s>:\n(.*?)\n\n" % fn, disasm, re.S)
    check(m is not None, "%s in objdump's output" % fn)
    insns = []
    for line in (m.group(1) if m else "").splitlines():
        w = re.match(r"\s*([0-9a-f]+):\s+(\S+)\s*(.*)", line)
        if w:
            insns.append((int(w.group(1), 16), w.group(2), w.group(3)))
    loops = []
    for addr, op, args in insns:
        t = re.match(r"([0-9a-f]+) <", args)
        if op.startswith("j") and op != "jmp" and t and int(t.group(1), 16) <= addr:
            loops.append((int(t.group(1), 16), addr))
    return ["%x: %s %s" % (a, op, args) for a, op, args in insns
            if any(lo <= a <= hi for lo, hi in loops) and re.search(r",0x8\(%\w+\)$", args)]
