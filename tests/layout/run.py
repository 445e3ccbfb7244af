#!/usr/bin/python3
"""run.py BUILD — the check-layout suite: the folders keep to their parts.

From the symbols of the built archives (nm): libdpa.a (analyses/) calls
nothing of libdpfb.a (feedback/), and neither library calls the command
line (cli/); the calls between libdpfb.a's files form no circle and are
among those feedback/README.md draws. Then a C++ shared object like the
GCC plugin (probe.cc, linked by layout.mk with -Wl,-z,defs against both
libraries) is loaded and reads feedback files through feedback_file.h:
the unit suite's hand-filled feedback as JSON and as MessagePack, and a
missing file (one line naming it). Under sanitizers (a shared object that
needs the ASan runtime cannot be loaded into Python) only the link is
checked. Last line: "layout: N passed, N failed".
Part of deepprof's tests. MIT licence.
"""
import ctypes
import glob
import json
import os
import re
import subprocess
import sys

import msgpack

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import dptest  # noqa: E402  (tests/lib: the runner loop and tally)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
SAN = len(sys.argv) > 2 and sys.argv[2] == "san"
LIB = os.path.join(BUILD, "lib")
OUT = os.path.join(BUILD, "tests", "layout")
UNIT = os.path.join(BUILD, "bin", "unit-tests")
UNIT_DIR = os.path.join(BUILD, "tests", "unit")

T = dptest.Tally("layout")
check = T.check


def symbols(paths):
    """{member: (defined, undefined)} of the objects in paths (archives or .o)."""
    out = {}
    p = dptest.run(["nm", "-A"] + paths)
    if p.returncode != 0:
        T.abort("nm failed: " + p.stderr)
    for line in p.stdout.splitlines():
        # "lib/libdpfb.a:model.o:0000000000000000 T dpf_alloc" or "x.o:  U foo"
        m = re.match(r"^(?:[^:]*\.a:)?([^:]*?)(?:\.o)?:\s*(?:[0-9a-f]+\s+)?([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        member, kind, sym = os.path.basename(m.group(1)), m.group(2), m.group(3)
        d, u = out.setdefault(member, (set(), set()))
        if kind == "U":
            u.add(sym)
        elif kind.isupper():
            d.add(sym)
    return out


def defined(objs):
    return {s: m for m, (d, _) in objs.items() for s in d}


def readme_graph():
    """The DAG feedback/README.md draws: {file: {files it calls}}."""
    with open(os.path.join(ROOT, "feedback", "README.md")) as f:
        text = f.read()
    block = re.search(r"```\n((?:[a-z_]+ +->.*\n)+)```", text)
    if not block:
        T.abort("feedback/README.md has no ``` block of 'file -> file, ...' lines")
    g = {}
    for line in block.group(1).splitlines():
        a, b = line.split("->")
        g[a.strip()] = {x.strip() for x in b.split(",") if x.strip()}
    return g


def cycle(g):
    """A circle in g as a list of nodes, or None."""
    state, stack = {}, []

    def visit(u):
        state[u] = 1
        stack.append(u)
        for v in sorted(g.get(u, ())):
            if state.get(v) == 1:
                return stack[stack.index(v):] + [v]
            if not state.get(v):
                c = visit(v)
                if c:
                    return c
        stack.pop()
        state[u] = 2
        return None

    for u in sorted(g):
        if not state.get(u):
            c = visit(u)
            if c:
                return c
    return None


def test_dependencies():
    dpa = symbols([os.path.join(LIB, "libdpa.a")])
    dpf = symbols([os.path.join(LIB, "libdpfb.a")])
    cli = symbols(sorted(glob.glob(os.path.join(BUILD, "obj", "cli", "*.o"))))
    check(len(dpa) > 10 and len(dpf) > 10 and len(cli) > 5,
          "the archives and the command's objects are there (%d, %d, %d members)" %
          (len(dpa), len(dpf), len(cli)))
    d_dpf, d_cli = defined(dpf), defined(cli)
    up = sorted({"%s -> %s (%s)" % (m, d_dpf[s], s) for m, (_, u) in dpa.items()
                 for s in u if s in d_dpf})
    check(not up, "analyses calls nothing of the feedback library: %s" % up[:5])
    for name, objs in (("libdpa.a", dpa), ("libdpfb.a", dpf)):
        bad = sorted({"%s -> %s" % (m, s) for m, (_, u) in objs.items() for s in u if s in d_cli})
        check(not bad, "%s calls nothing of the command line: %s" % (name, bad[:5]))
    names = {m for m, (d, _) in dpf.items() if any(s.startswith("dpf_") for s in d)}
    odd = sorted(s for m, (d, _) in dpf.items() for s in d
                 if not s.startswith(("dpf_", "DPF_")))
    check(not odd, "every symbol libdpfb.a exports starts with dpf_: %s" % odd[:5])
    g = {m: {d_dpf[s] for s in u if s in d_dpf and d_dpf[s] != m} for m, (_, u) in dpf.items()}
    c = cycle(g)
    check(c is None, "no circle among feedback/'s files: %s" % " -> ".join(c or []))
    doc = readme_graph()
    check(set(doc) == set(g), "feedback/README.md names every file of the library: "
          "missing %s, extra %s" % (sorted(set(g) - set(doc)), sorted(set(doc) - set(g))))
    extra = sorted("%s -> %s" % (a, b) for a in g for b in g[a] - doc.get(a, set()))
    check(not extra, "every call between feedback/'s files is in feedback/README.md: %s" % extra)
    check(cycle(doc) is None, "the graph feedback/README.md draws has no circle")
    check(len(names) == len(dpf), "every file of libdpfb.a defines a dpf_ symbol")


def test_plugin_reads():
    so = os.path.join(OUT, "probe.so")
    check(os.path.exists(so), "probe.so linked (-shared, -z defs) against both libraries")
    if SAN:
        print("note: sanitizer build: probe.so is linked but not loaded")
        return
    hand = os.path.join(UNIT_DIR, "fb-hand.json")
    if not os.path.exists(hand):
        dptest.must(T, [UNIT, "feedback_file"])
    with open(hand) as f:
        doc = json.load(f)
    mp = os.path.join(OUT, "fb-hand.msgpack")
    with open(mp, "wb") as f:
        f.write(msgpack.packb(doc))
    lib = ctypes.CDLL(so)
    lib.probe.restype = ctypes.c_int
    lib.probe.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    msg = ctypes.create_string_buffer(1024)
    for path in (hand, mp):
        n = lib.probe(path.encode(), msg, 1024)
        check(n == 2, "the plugin-like object reads %s: %d candidates (want 2) %s" %
              (os.path.basename(path), n, msg.value.decode()))
    missing = os.path.join(OUT, "none.json")
    n = lib.probe(missing.encode(), msg, 1024)
    check(n == -1 and msg.value.decode() == missing + ": cannot read: No such file or directory",
          "a missing file: one line naming it (%r)" % msg.value.decode())


def main():
    os.makedirs(OUT, exist_ok=True)
    dptest.run_each(T, [("dependencies", test_dependencies), ("plugin reads", test_plugin_reads)])
    return T.end()


if __name__ == "__main__":
    sys.exit(main())
