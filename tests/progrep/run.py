#!/usr/bin/python3
"""run.py BUILD — the check-progrep suite.

Compiles flow.c (known data flow: independent calls, a call feeding another,
a call through a pointer, a loop, an if, a switch with a noreturn call,
pointer arguments to a local, a global and a parameter, const and pure
callees, a malloc'd pointer, and where parameters are read and stored
through among costly calls) with BUILD/bin/deepprof-cc, and asserts what
`deepprof progrep --json` loads from the object, a shared library and a
program exactly (flow.expect.json), the text tree, checksum states (ok,
stale after an edit, no-source), use/store items in a generated uses.c (a
loop body of 30 calls, repeated reads, an address-taken parameter) at -O0
and -O2, bad inputs (one line, exit 2), and the
mapping of a Deep.data profile's ps and css to progrep records through the
plugin's tables in the module file. Last line: "progrep: N passed, N failed".
Part of deepprof's tests. MIT licence.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

import jsonschema
import msgpack

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import dptest  # noqa: E402  (tests/lib: the runner loop and tally)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
OUT = os.path.join(BUILD, "tests", "progrep")
DPCC = os.path.join(BUILD, "bin", "deepprof-cc")
DEEPPROF = os.path.join(BUILD, "bin", "deepprof")
TESTRT = os.path.join(BUILD, "tests", "plugin", "libtestrt.so")
EXTRA = os.environ.get("DP_TEST_CFLAGS", "").split()
with open(os.path.join(ROOT, "schemas", "progrep.schema.json")) as _f:
    SCHEMA = json.load(_f)
with open(os.path.join(HERE, "flow.expect.json")) as _f:
    EXPECT = json.load(_f)

T = dptest.Tally("progrep")
check = T.check
run = dptest.run


def must(args, cwd=None):
    return dptest.must(T, args, cwd)


def out(name):
    return os.path.join(OUT, name)


def dpcc(args, cwd=None):
    return must([DPCC, "--deepprof-runtime=" + TESTRT] + args, cwd)


def progrep_json(path, cwd=None):
    p = must([DEEPPROF, "progrep", "--json", path], cwd)
    return json.loads(p.stdout)


def section(path):
    """The raw records of the file's .deepprof.progrep section."""
    dump = out("section.txt")
    must(["objcopy", "--dump-section", ".deepprof.progrep=" + dump, path, out("scratch.o")])
    with open(dump, "rb") as f:
        text = f.read().replace(b"\0", b"")
    return [json.loads(l) for l in text.decode().split("\n") if l]


def fnv_lines(path, first, last):
    h = 0xcbf29ce484222325
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    for i in range(first - 1, last):
        for c in lines[i] + (b"\n" if i < len(lines) - 1 else b""):
            h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    return "%016x" % h


def as_record(fn):
    """A function of `deepprof progrep --json` as the section's fn record."""
    r = {"progrep": 2, "record": "fn"}
    r.update({k: v for k, v in fn.items() if k not in ("checksum_state", "source_checksum")})
    return r


def bad(args, want, what):
    """deepprof fails with exit 2 and exactly one line containing `want`."""
    p = run([DEEPPROF] + args)
    lines = p.stderr.splitlines()
    check(p.returncode == 2 and len(lines) == 1 and want in p.stderr and p.stdout == "",
          "%s: rc %d, stderr %r (want one line with %r)" % (what, p.returncode, p.stderr, want))


# ---------------------------------------------------------------- the object file

def check_object(path, tag, src):
    d = progrep_json(path)
    check(d["kind"] == "elf" and len(d["modules"]) == 1, tag + ": one module")
    m = d["modules"][0]
    check(m["state"] == "loaded" and m["message"] is None, tag + ": loaded")
    check(len(m["tus"]) == 1 and m["tus"][0]["file"] == src and m["tus"][0]["n_ps"] == 11 and
          m["tus"][0]["n_css"] == 25 and m["tus"][0]["abi"] == 2, tag + ": tu %r" % m["tus"])
    tu = m["tus"][0]["tu"]
    fns = m["functions"]
    check([f["fn"] for f in fns] == list(EXPECT), tag + ": functions %r" % [f["fn"] for f in fns])
    check(m["checksums"] == {"ok": 11, "stale": 0, "no-source": 0, "unknown": 0},
          tag + ": checksums %r" % m["checksums"])
    first = 0
    for ps, f in enumerate(fns):
        e = EXPECT.get(f["fn"])
        if not check(e is not None, tag + ": unexpected function " + f["fn"]):
            continue
        n = f["fn"]
        check(f["tu"] == tu and f["ps"] == ps and f["file"] == src, tag + " %s: key" % n)
        check([f["line"], f["end_line"]] == e["lines"], tag + " %s: lines" % n)
        check(f["params"] == e["params"], tag + " %s: params %r" % (n, f["params"]))
        check(f["backedges"] == e["backedges"], tag + " %s: backedges" % n)
        check(f["public"] is True and f["unplaced"] == [], tag + " %s: public, unplaced" % n)
        check(f["first_site"] == first and f["n_sites"] == len(e["calls"]),
              tag + " %s: sites %d+%d" % (n, f["first_site"], f["n_sites"]))
        first += f["n_sites"]
        check(f["body"] == e["body"], tag + " %s: body %r" % (n, f["body"]))
        calls = []
        for c in f["calls"]:
            check(c["id"] == "%s:%d" % (tu, c["site"]), tag + " %s: id %s" % (n, c["id"]))
            calls.append({k: v for k, v in c.items() if k != "id"})
        check(calls == e["calls"], tag + " %s: calls\n  got  %r\n  want %r" % (n, calls, e["calls"]))
        want_sum = fnv_lines(src, f["line"], f["end_line"])
        check(f["checksum"] == want_sum and f["checksum_state"] == "ok" and
              f["source_checksum"] == want_sum, tag + " %s: checksum %s, want %s" %
              (n, f["checksum"], want_sum))
    # what was loaded is what the section holds, and the section is schema-valid
    recs = section(path)
    for r in recs:
        try:
            jsonschema.validate(r, SCHEMA)
            ok = True
        except jsonschema.ValidationError as ex:
            ok = False
            print(ex)
        check(ok, tag + ": record valid against progrep.schema.json")
    check([r for r in recs if r["record"] == "fn"] == [as_record(f) for f in fns],
          tag + ": loaded structure equals the section's records")
    return d


def site_relative(f):
    """A function's record with sites counted from its first site (for
    comparing builds whose TU-wide numbering differs)."""
    base = f["first_site"]

    def walk(x):
        if isinstance(x, list):
            return [walk(v) for v in x]
        if isinstance(x, dict):
            r = {}
            for k, v in x.items():
                if k in ("call", "site", "heap") and isinstance(v, int):
                    r[k] = v - base
                elif k in ("id", "tu", "first_site"):
                    continue
                else:
                    r[k] = walk(v)
            return r
        return x
    return walk(f)


def test_objects():
    src = os.path.join(HERE, "flow.c")
    dpcc(["-O0", "-c", src, "-o", out("flow.o")])
    d0 = check_object(out("flow.o"), "flow.o -O0", src)
    # -O2: the representation is of the source, whatever the optimisation
    dpcc(["-O2", "-c", src, "-o", out("flow-O2.o")])
    d2 = progrep_json(out("flow-O2.o"))
    f0 = {f["fn"]: site_relative(f) for f in d0["modules"][0]["functions"]}
    f2 = {f["fn"]: site_relative(f) for f in d2["modules"][0]["functions"]}
    for n in EXPECT:
        check(f0.get(n) == f2.get(n), "flow.o -O2: %s differs from -O0" % n)
    # a shared library holds the same records
    dpcc(["-O0", "-fPIC", "-shared", src, "-o", out("libflow.so")])
    check_object(out("libflow.so"), "libflow.so", src)


def test_text():
    p = must([DEEPPROF, "progrep", out("flow.o")])
    lines = p.stdout.splitlines()
    check(lines[0] == out("flow.o") + ": 1 TUs, 11 functions; checksums: 11 ok, 0 stale, "
          "0 no-source, 0 unknown", "text: first line %r" % lines[0])
    want = [
        "  branch(int c)  flow.c:22-30  ps 4  sites 6..8  backedges 0",
        "    checksum %s ok" % fnv_lines(os.path.join(HERE, "flow.c"), 22, 30),
        "    use c",
        "    if line 25",
        "      arm 1",
        "        use c",
        "        call 6 f1(param c) -> local r  [normal, memory, line 26:7]",
        "      arm 2",
        "        use c",
        "        call 7 f2(param c) -> local r  [normal, memory, line 28:7]",
        "    call 8 g(local r | call 6 | call 7) -> temp  [normal, memory, line 29:9, tail]",
        "  pointers(int * p)  flow.c:31-38  ps 5  sites 9..11  backedges 0",
    ]
    i = lines.index(want[0]) if want[0] in lines else 0
    check(lines[i:i + len(want)] == want, "text: branch tree\n" + "\n".join(lines[i:i + 12]))
    for w in ["    call 9 take(&local loc => local loc) -> none  [normal, memory, line 34:2]",
              "    call 11 take(param p => via_param p) -> none  [normal, memory, line 36:2]",
              "    call 16 take(local m | call 15 => heap 15) -> none  [normal, memory, line 48:2]",
              "    call 4 *(param v) -> local r  [indirect, memory, line 14:46, target param fp]",
              "    loop line 18",
              "      call 5 f1(local i | const) -> local s  [normal, memory, line 19:8]",
              "    switch line 53",
              "        call 19 abort() -> none  [external, memory, line 59:3, noreturn]",
              "    call 12 kf(param x) -> local k  [normal, const, line 41:10]",
              "    call 14 strlen(param s => via_param s) -> temp  [external, pure, line 43:22]",
              "    use n", "    store through out", "    use in", "        use acc",
              "      store through acc", "    store through q"]:
        check(w in lines, "text: missing line %r" % w)


# ---------------------------------------------------------------- checksums

def test_stale():
    src = out("stale.c")
    shutil.copy(os.path.join(HERE, "flow.c"), src)
    dpcc(["-O0", "-c", src, "-o", out("stale.o")])
    old = {f["fn"]: f for f in progrep_json(out("stale.o"))["modules"][0]["functions"]}
    # change loop()'s body, same number of lines
    with open(src) as f:
        text = f.read()
    with open(src, "w") as f:
        f.write(text.replace("\t\ts += f1(i);", "\t\ts += f2(i) + 1;"))
    dpcc(["-O0", "-c", src, "-o", out("stale2.o")])
    new = {f["fn"]: f for f in progrep_json(out("stale2.o"))["modules"][0]["functions"]}
    check(old["loop"]["checksum"] != new["loop"]["checksum"], "stale: loop's checksum changed")
    check(all(old[n]["checksum"] == new[n]["checksum"] for n in old if n != "loop"),
          "stale: the other checksums are unchanged")
    check(new["loop"]["checksum"] == fnv_lines(src, 15, 21), "stale: new checksum is the new source's")
    # the old object against the edited source: loop is stale, nothing else
    d = progrep_json(out("stale.o"))
    m = d["modules"][0]
    st = {f["fn"]: f["checksum_state"] for f in m["functions"]}
    check(st["loop"] == "stale" and all(v == "ok" for k, v in st.items() if k != "loop"),
          "stale: states %r" % st)
    lf = [f for f in m["functions"] if f["fn"] == "loop"][0]
    check(lf["source_checksum"] == new["loop"]["checksum"] and
          lf["checksum"] == old["loop"]["checksum"], "stale: source_checksum is the edited one's")
    check(m["checksums"] == {"ok": 10, "stale": 1, "no-source": 0, "unknown": 0},
          "stale: counts %r" % m["checksums"])
    p = must([DEEPPROF, "progrep", out("stale.o")])
    check("    checksum %s stale (source now %s)" % (old["loop"]["checksum"], new["loop"]["checksum"])
          in p.stdout.splitlines(), "stale: text says stale")
    # without the source: no-source, and no error
    os.unlink(src)
    m = progrep_json(out("stale.o"))["modules"][0]
    check(m["checksums"] == {"ok": 0, "stale": 0, "no-source": 11, "unknown": 0} and
          all(f["source_checksum"] is None for f in m["functions"]),
          "no-source: counts %r" % m["checksums"])


def test_relative():
    """A source named relatively (compiled from its directory) is found
    through the DWARF's comp_dir (a library with -g) or beside the object."""
    d = out("rel")
    os.makedirs(d, exist_ok=True)
    shutil.copy(os.path.join(HERE, "flow.c"), os.path.join(d, "rel.c"))
    dpcc(["-g", "-O0", "-fPIC", "-shared", "rel.c", "-o", "../librel.so"], cwd=d)
    dpcc(["-O0", "-c", "rel.c", "-o", "rel.o"], cwd=d)
    for f, tag in ((out("librel.so"), "comp_dir"), (os.path.join(d, "rel.o"), "beside the object")):
        m = progrep_json(f, cwd="/")["modules"][0]
        check(m["tus"][0]["file"] == "rel.c" and all(x["file"] == "rel.c" for x in m["functions"]),
              "relative: %s: file names %r" % (tag, m["tus"][0]["file"]))
        check(m["checksums"] == {"ok": 11, "stale": 0, "no-source": 0, "unknown": 0},
              "relative: %s: checksums %r" % (tag, m["checksums"]))


# ---------------------------------------------------------------- bad inputs

def with_section(name, data):
    """flow.o with its .deepprof.progrep section replaced by `data`."""
    txt = out(name + ".txt")
    with open(txt, "wb") as f:
        f.write(data)
    must(["objcopy", "--update-section", ".deepprof.progrep=" + txt, out("flow.o"), out(name)])
    return out(name)


def test_bad():
    with open(out("flow.o"), "rb") as f:
        obj = f.read()
    recs = section(out("flow.o"))
    lines = [json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in recs]

    with open(out("notelf.o"), "wb") as f:
        f.write(b"this is not an object file\n")
    bad(["progrep", out("notelf.o")], "notelf.o: neither an ELF file nor a Deep.data file", "not ELF")
    with open(out("empty.o"), "wb") as f:
        pass
    bad(["progrep", out("empty.o")], "empty.o: neither an ELF file nor a Deep.data file", "empty file")
    bad(["progrep", out("missing.o")], "missing.o: No such file or directory", "missing file")
    must(["gcc", "-c", os.path.join(HERE, "defs.c"), "-o", out("plain.o")])
    bad(["progrep", out("plain.o")], "plain.o: no .deepprof.progrep section", "ELF without the section")
    bad(["progrep", "--json", out("plain.o")], "plain.o: no .deepprof.progrep section",
        "ELF without the section, --json")

    # a corrupt JSON record (line 3 loses its closing brace)
    b = with_section("badjson.o", b"".join(lines[:2]) + lines[2][:-2] + b"\n" + b"".join(lines[3:]))
    bad(["progrep", b], "badjson.o: .deepprof.progrep line 3: not JSON", "corrupt JSON")
    # a record that is JSON but not a valid record
    r = dict(recs[4])
    del r["checksum"]
    b = with_section("nosum.o", b"".join(lines[:4]) + json.dumps(r).encode() + b"\n")
    bad(["progrep", b], "nosum.o: .deepprof.progrep line 5: checksum: missing", "missing key")
    r = dict(recs[1])
    r["progrep"] = 3
    b = with_section("v3.o", lines[0] + json.dumps(r).encode() + b"\n")
    bad(["progrep", b], "v3.o: .deepprof.progrep line 2: progrep version 3, this reader reads 1 to 2",
        "newer version")
    b = with_section("notu.o", b"".join(lines[1:]))
    bad(["progrep", b], "notu.o: .deepprof.progrep line 1: fn record of TU", "fn before tu")
    r = json.loads(json.dumps(recs[1]))
    r["calls"] = []
    b = with_section("nocalls.o", lines[0] + json.dumps(r).encode() + b"\n")
    bad(["progrep", b], "nocalls.o: .deepprof.progrep line 2: independent: 0 call records for 2 sites",
        "calls missing")
    r = json.loads(json.dumps(recs[4]))
    r["body"][0]["loop"]["body"][1]["call"] = 19      # [0] is n's use
    b = with_section("foreign.o", lines[0] + json.dumps(r).encode() + b"\n")
    bad(["progrep", b], "foreign.o: .deepprof.progrep line 2: body call: site 19 is not one of loop's",
        "body names another function's site")
    # padding and empty lines between objects are fine
    b = with_section("padded.o", lines[0] + b"\0\0\0\n\n" + b"".join(lines[1:]) + b"\0\0")
    p = run([DEEPPROF, "progrep", "--json", b])
    check(p.returncode == 0 and len(json.loads(p.stdout)["modules"][0]["functions"]) == 11,
          "padding: rc %d %r" % (p.returncode, p.stderr))

    # truncated: the last record cut short
    b = with_section("cut.o", b"".join(lines)[:-40])
    bad(["progrep", b], "cut.o: .deepprof.progrep line 12: truncated: the last record has no newline",
        "truncated record")
    # truncated: the section runs past the end of the file (its size patched)
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", obj, 0x3a)
    strtab_off, = struct.unpack_from("<Q", obj, shoff + shstrndx * shentsize + 0x18)
    patched = bytearray(obj)
    for i in range(shnum):
        sh = shoff + i * shentsize
        name_off, = struct.unpack_from("<I", obj, sh)
        end = obj.index(b"\0", strtab_off + name_off)
        if obj[strtab_off + name_off:end] == b".deepprof.progrep":
            struct.pack_into("<Q", patched, sh + 0x20, len(obj) * 4)
    with open(out("past.o"), "wb") as f:
        f.write(patched)
    bad(["progrep", out("past.o")], "past.o: .deepprof.progrep truncated", "section past EOF")
    # a file cut in half
    with open(out("half.o"), "wb") as f:
        f.write(obj[:len(obj) // 2])
    p = run([DEEPPROF, "progrep", out("half.o")])
    check(p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "half.o" in p.stderr,
          "half a file: rc %d %r" % (p.returncode, p.stderr))

    # usage
    bad(["progrep"], "no FILE given", "no FILE")
    bad(["progrep", "--bogus", out("flow.o")], "unknown option '--bogus'", "unknown option")
    bad(["progrep", out("flow.o"), out("flow.o")], "more than one FILE", "two FILEs")


# ---------------------------------------------------------------- a profile

def symbols(path):
    """{name: [(value, size, file)]} for the file's symbols (readelf -sW),
    each local symbol with the FILE symbol it follows."""
    p = must(["readelf", "-sW", path])
    syms, cur = {}, None
    for line in p.stdout.splitlines():
        w = line.split()
        if len(w) < 8 or not w[0].endswith(":") or w[1] == "Value":
            continue
        if w[3] == "FILE":
            cur = w[7]
            continue
        syms.setdefault(w[7], []).append((int(w[1], 16), int(w[2], 0), cur))
    return syms


def table(syms, name, file):
    return [s for s in syms[name] if s[2] == file][0][0]


def write_profile(path, program, modules, ps, css, pd, csd):
    """A Deep.data v1 file (schemas/deep-data.md) with one thread whose root is pd 1."""
    calls = sum(c[3] for c in csd)
    hdr = {"magic": "deepprof", "version": 1, "min_version": 1, "program": program,
           "argv": [program], "pid": 42, "ppid": 1, "fork_of": 0, "final": True,
           "start_ns": 1, "wall_ns": 1000, "clock": "calls+loops", "timer_hz": 0, "cpu_ns": 1000,
           "ticks": 0, "ticks_outside": 0, "ns_per_tick": 0.0, "calls": calls, "cscs": calls,
           "allocs": 0, "bytes": 0, "allocs_outside": 0, "bytes_outside": 0, "mem_bytes": 0,
           "lost": 0}
    objs = [hdr]
    objs += [[1, i + 1] + list(m) for i, m in enumerate(modules)]
    objs += [[2, i + 1] + list(p) for i, p in enumerate(ps)]
    objs += [[3, i + 1] + list(c) for i, c in enumerate(css)]
    objs += [[5, i + 1, p] for i, p in enumerate(pd)]
    objs += [[6, i + 1, c[0], c[1], c[2], c[3], c[3], 0, c[3], 0, 0, 0] for i, c in enumerate(csd)]
    objs += [[7, 1, 4242, 1, 1000, 0, 0, 0, 0, False]]
    data = b"".join(msgpack.packb(o, use_bin_type=True) for o in objs)
    end = [9, len(modules), len(ps), len(css), len(pd), len(csd), 1, zlib.crc32(data)]
    with open(path, "wb") as f:
        f.write(data + msgpack.packb(end))


def test_profile():
    flow, defs = os.path.join(HERE, "flow.c"), os.path.join(HERE, "defs.c")
    prog = out("prog")
    dpcc(["-O0", flow, defs, "-o", prog, "-Wl,-rpath," + os.path.dirname(TESTRT)])
    must(["gcc", "-shared", "-fPIC", "-o", out("libplain.so"), defs])
    syms = symbols(prog)
    fcss, dcss = table(syms, "__deepprof_css", "flow.c"), table(syms, "__deepprof_css", "defs.c")
    fps = table(syms, "__deepprof_ps", "flow.c")
    pr = progrep_json(prog)["modules"][0]
    tu = {os.path.basename(t["file"]): t["tu"] for t in pr["tus"]}
    check(sorted(tu) == ["defs.c", "flow.c"], "prog: two TUs %r" % pr["tus"])
    fn = lambda n: syms[n][0][0]
    modules = [(prog, 0x555555554000, 0x10000, None),
               ("/nonexistent/libgone.so", 0x7f0000000000, 0x1000, None),
               (out("libplain.so"), 0x7f0000100000, 0x4000, None),
               (prog, 0x555555600000, 0x10000, b"\x01\x02\x03")]
    ps = [(0, 0, "<root>", None, 0),
          (1, fn("main"), "main", defs, 14),
          (1, fn("branch"), "branch", flow, 22),
          (1, fn("f1"), "f1", defs, 5),
          (1, fn("g"), "g", defs, 7),
          (1, fps + 2 * 32, "through", flow, 14),         # a dp_ps_static record
          (3, 0x1100, None, None, 0),                      # in a library without progrep
          (1, fn("loop"), None, None, 0)]                  # unnamed: mapped by its site
    css = [(1, 0, 0, 4, 2, None, 0, 0),                   # root -> main, callback
           (2, 1, dcss + 0 * 48, 1, 3, defs, 12, 54),     # main -> branch
           (3, 1, fcss + 6 * 48, 1, 4, flow, 26, 7),      # branch -> f1
           (3, 1, fcss + 8 * 48, 1, 5, flow, 29, 9),      # branch -> g
           (3, 1, fn("branch") + 0x20, 0, 0, None, 0, 0),  # a return address: not a table
           (8, 1, fcss + 5 * 48, 1, 4, flow, 19, 8),      # loop -> f1
           (3, 4, fcss + 7 * 48, 1, 0, None, 0, 0)]       # in the mismatched module
    pd = [1, 2, 3, 4, 5]
    csd = [(1, 1, 2, 1), (2, 2, 3, 1), (3, 3, 4, 1), (4, 3, 5, 1)]
    data = out("Deep.data")
    write_profile(data, prog, modules, ps, css, pd, csd)
    d = progrep_json(data)
    check(d["kind"] == "profile" and d["file"] == data, "profile: kind")
    st = [(m["id"], m["state"]) for m in d["modules"]]
    check(st == [(1, "loaded"), (2, "unreadable"), (3, "no progrep"), (4, "build id mismatch")],
          "profile: module states %r" % st)
    check(d["modules"][1]["message"] == "/nonexistent/libgone.so: No such file or directory" and
          d["modules"][3]["message"] == prog + ": build id differs from the profile's (010203)",
          "profile: module messages %r" % [m["message"] for m in d["modules"]])
    check(len(d["modules"][0]["functions"]) == 20 and d["modules"][2]["functions"] == [],
          "profile: functions per module")
    key = lambda t, i: {"tu": tu[t], "index": i}
    want_ps = [None, key("defs.c", 6), key("flow.c", 4), key("defs.c", 0), key("defs.c", 2),
               key("flow.c", 2), None, key("flow.c", 3)]
    got_ps = [p["progrep"] for p in d["ps"]]
    check(got_ps == want_ps, "profile: ps mapping\n  got  %r\n  want %r" % (got_ps, want_ps))
    check([p.get("fn") for p in d["ps"]] ==
          [None, "main", "branch", "f1", "g", "through", None, "loop"], "profile: ps fn names")
    want_css = [None, tu["defs.c"] + ":0", tu["flow.c"] + ":6", tu["flow.c"] + ":8", None,
                tu["flow.c"] + ":5", None]
    got_css = [c["progrep"] for c in d["css"]]
    check(got_css == want_css, "profile: css mapping\n  got  %r\n  want %r" % (got_css, want_css))
    check([(c.get("fn"), c.get("callee")) for c in d["css"]] ==
          [(None, None), ("main", "branch"), ("branch", "f1"), ("branch", "g"), (None, None),
           ("loop", "f1"), (None, None)], "profile: css records")
    p = must([DEEPPROF, "progrep", data])
    t = p.stdout.splitlines()
    check(t[0] == data + ": 4 modules: 1 with progrep, 1 without, 2 unusable", "profile text: %r" % t[0])
    for w in ["module 2 /nonexistent/libgone.so: /nonexistent/libgone.so: No such file or directory",
              "module 3 %s: no progrep" % out("libplain.so"),
              "procedures mapped: 6 of 8", "call sites mapped: 4 of 7",
              "  css 3 in branch -> %s:6 f1" % tu["flow.c"],
              "  ps 6 through -> %s ps 2" % tu["flow.c"]]:
        check(w in t, "profile text: missing %r" % w)
    # a malformed progrep in a module is an error naming the module file
    b = with_section("badmod.o", b"{\n")
    write_profile(out("bad.data"), prog, [(b, 0, 0x1000, None)], [(0, 0, "<root>", None, 0),
                  (1, 0x10, "f", None, 0)], [(1, 0, 0, 4, 2, None, 0, 0)], [1, 2], [(1, 1, 2, 1)])
    bad(["progrep", out("bad.data")], "badmod.o: .deepprof.progrep line 1: not JSON",
        "profile with a malformed module progrep")


def profiled_run(exe, profile, tag):
    """flow.c and defs.c built with deepprof-cc -O0 as exe, run once with
    its profile written to profile: (exe's path, the profile's path), the
    latter None (a failed check) when the run wrote none."""
    flow, defs = os.path.join(HERE, "flow.c"), os.path.join(HERE, "defs.c")
    prog = out(exe)
    must([DPCC, "-O0"] + EXTRA + [flow, defs, "-o", prog])
    data = out(profile)
    if os.path.exists(data):
        os.unlink(data)
    e = dict(os.environ)
    e["DEEPPROF_FILE"] = data
    subprocess.run([prog], env=e, check=False)
    if not check(os.path.exists(data), "%s: %s wrote no profile" % (tag, prog)):
        return prog, None
    return prog, data


def test_run():
    """A real run with libprof: every plugin css of the program maps to the
    site it is, every instrumented ps to its function."""
    prog, data = profiled_run("prog-libprof", "run.data", "run")
    if not data:
        return
    tu = {os.path.basename(t["file"]): t["tu"] for t in progrep_json(prog)["modules"][0]["tus"]}
    d = progrep_json(data)
    check(d["modules"][0]["path"] == prog and d["modules"][0]["state"] == "loaded" and
          all(m["state"] == "no progrep" for m in d["modules"][1:]),
          "run: module states %r" % [(m["path"], m["state"]) for m in d["modules"]])
    names = [p["name"] for p in d["ps"]]
    check(sorted(names) == sorted(["<root>", "main", "branch", "f1", "g", "loop", "through"]),
          "run: procedures %r" % names)
    check(all((p["progrep"] is None) == (p["name"] == "<root>") and
              (p["name"] == "<root>" or p["fn"] == p["name"]) for p in d["ps"]),
          "run: ps mapping %r" % d["ps"])
    got = sorted((c.get("fn"), c["progrep"], c.get("callee"))
                 for c in d["css"] if c["progrep"])
    want = sorted([("main", tu["defs.c"] + ":0", "branch"), ("main", tu["defs.c"] + ":1", "loop"),
                   ("main", tu["defs.c"] + ":2", "through"), ("branch", tu["flow.c"] + ":6", "f1"),
                   ("branch", tu["flow.c"] + ":8", "g"), ("loop", tu["flow.c"] + ":5", "f1"),
                   ("through", tu["flow.c"] + ":4", None)])
    check(got == want, "run: css mapping\n  got  %r\n  want %r" % (got, want))
    check(len(d["css"]) == len(want) + 1, "run: %d css (the root's callback unmapped)" % len(d["css"]))


# ---------------------------------------------------------------- uses and stores

USES_C = """void h(int);
void take(int *p);
void work(int n)
{
	for (int i = 0; i < n; i++) {
		%s
	}
}
int scan(const int *a, int n)
{
	int s = 0;
	for (int i = 0;; i++) {
		if (a[i] == 0)
			break;
		if (a[i] < 0)
			break;
		s += a[i];
	}
	return s + n;
}
int addr(int x, int *out)
{
	take(&x);
	*out = x;
	return 0;
}
void ic(long v)
{
	*(int *)v = 3;
}
void cp(char *d, const char *s, unsigned long n)
{
	__builtin_memcpy(d, s, n);
}
""" % " ".join("h(%d);" % i for i in range(30))


def test_lazy():
    """deepprof feedback reads whole only the records of the functions the
    run used: a malformed body of a function that never ran is not its error
    (deepprof progrep's still), one of a function that ran is, in the same
    words."""
    prog, data = profiled_run("prog-lazy", "lazy.data", "lazy")
    if not data:
        return
    must([DEEPPROF, "feedback", data, "-o", out("lazy-good.json")])
    recs = section(prog)

    def corrupt(name):
        """prog with the body of function `name` naming a site not its own."""
        lines = []
        for r in recs:
            if r.get("record") == "fn" and r["fn"] == name:
                r = dict(r, body=[{"call": 99999}])
            lines.append(json.dumps(r, separators=(",", ":")).encode() + b"\n")
        txt = out("lazy-%s.txt" % name)
        with open(txt, "wb") as f:
            f.write(b"".join(lines))
        must(["objcopy", "--update-section", ".deepprof.progrep=" + txt, prog])

    corrupt("independent")      # never called by main
    bad(["progrep", prog], "body call: site 99999 is not one of independent's sites",
        "lazy: progrep checks every record")
    p = run([DEEPPROF, "feedback", data, "-o", out("lazy-bad.json")])
    check(p.returncode == 0, "lazy: feedback with a malformed never-run function: rc %d, %r" %
          (p.returncode, p.stderr))
    with open(out("lazy-good.json")) as f, open(out("lazy-bad.json")) as g:
        check(f.read() == g.read(), "lazy: the feedback changed with a never-run function's body")
    corrupt("branch")           # ran
    bad(["feedback", data, "-o", out("lazy-bad2.json")],
        "prog-lazy: .deepprof.progrep line ", "lazy: feedback with a malformed function that ran")
    bad(["feedback", data, "-o", out("lazy-bad2.json")],
        "body call: site 99999 is not one of branch's sites", "lazy: its message")


def test_uses():
    """A loop body far longer than 255 bytes of JSON is whole; a parameter
    read in three blocks with no call between has one use; a parameter
    whose address is taken is used where its address is passed; an integer
    stored through is read; a builtin that is no call site still reads and
    writes."""
    src = out("uses.c")
    with open(src, "w") as f:
        f.write(USES_C)
    for opt in ("-O0", "-O2"):
        obj = out("uses%s.o" % opt)
        dpcc([opt, "-c", src, "-o", obj])
        recs = section(obj)
        for r in recs:
            try:
                jsonschema.validate(r, SCHEMA)
                ok = True
            except jsonschema.ValidationError as ex:
                ok = False
                print(ex)
            check(ok, "uses %s: record valid against progrep.schema.json" % opt)
        fns = {r["fn"]: r for r in recs if r["record"] == "fn"}
        names = ["addr", "cp", "ic", "scan", "work"]
        check(sorted(fns) == names, "uses %s: functions %r" % (opt, sorted(fns)))
        if sorted(fns) != names:
            continue
        # work: the loop test reads n, then the 30 calls in order
        check(fns["work"]["body"] == [{"loop": {"line": 5, "body": [{"use": "n"}] +
                                                [{"call": i} for i in range(30)]}}],
              "uses %s: work body %r" % (opt, fns["work"]["body"]))
        # scan: a is read by both exit tests and the sum, once as an item;
        # n only after the loop
        check(fns["scan"]["body"] == [{"loop": {"line": 13, "body": [{"use": "a"}]}}, {"use": "n"}],
              "uses %s: scan body %r" % (opt, fns["scan"]["body"]))
        # addr: &x passed is x's use; x is then copied through out
        check(fns["addr"]["body"] == [{"use": "x"}, {"call": 30}, {"store": "out"}],
              "uses %s: addr body %r" % (opt, fns["addr"]["body"]))
        # an integer used as a pointer is read, not stored through
        check(fns["ic"]["body"] == [{"use": "v"}], "uses %s: ic body %r" % (opt, fns["ic"]["body"]))
        # __builtin_memcpy is no call site, but reads d, s, n and writes
        # through d (s's pointee is const)
        check(fns["cp"]["body"] == [{"use": "d"}, {"use": "s"}, {"use": "n"}, {"store": "d"}],
              "uses %s: cp body %r" % (opt, fns["cp"]["body"]))
    p = must([DEEPPROF, "progrep", out("uses-O0.o")])
    lines = p.stdout.splitlines()
    i = lines.index("    use x") if "    use x" in lines else 0
    check(lines[i:i + 3] == ["    use x", "    call 30 take(&param x => param x) -> none  "
                             "[normal, memory, line 23:2]", "    store through out"],
          "uses: text %r" % lines[i:i + 3])


def main():
    os.makedirs(OUT, exist_ok=True)
    test_objects()
    test_text()
    test_uses()
    test_stale()
    test_relative()
    test_bad()
    test_profile()
    test_run()
    test_lazy()
    sys.exit(T.end())


main()
