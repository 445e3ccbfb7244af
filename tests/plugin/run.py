#!/usr/bin/python3
"""run.py BUILD — the check-plugin suite.

Builds small programs with build/bin/deepprof-cc and the test runtime
(testrt.c, which prints the registered tables and counts hooks) at -O0, -O2
and -O2 -flto, and asserts exact tables (names, file:line:col, kinds, flags,
site ids), exact enter/call/return/back-edge counts, and the progrep records
read back from the .deepprof.progrep section. Then the error paths: bad plugin
arguments, unknown wrapper options, a compiler the plugin was not built for.
Part of deepprof. MIT licence.
"""
import json
import re
import os
import jsonschema
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
OUT = os.path.join(BUILD, "tests", "plugin")
DPCC = os.path.join(BUILD, "bin", "deepprof-cc")
PLUGIN = os.path.join(BUILD, "lib", "gcc-plugin", "deepprof.so")
RT = os.path.join(OUT, "libtestrt.so")
DEEPPROF = os.path.join(BUILD, "bin", "deepprof")
LIBPROF_A = os.path.join(BUILD, "lib", "libprof.a")
EXTRA = os.environ.get("DP_TEST_CFLAGS", "").split()
with open(os.path.join(HERE, "..", "..", "schemas", "progrep.schema.json")) as _f:
    SCHEMA = json.load(_f)
VARIANTS = [["-O0"], ["-O2"], ["-O2", "-flto"]]

failures = []
n_checks = 0


def check(cond, what):
    global n_checks
    n_checks += 1
    if not cond:
        failures.append(what)
        print("FAIL: " + what)
    return cond


def run(args, env=None):
    e = dict(os.environ)
    e["LC_ALL"] = "C"       # plain quotes in GCC's messages
    e.update(env or {})
    return subprocess.run(args, capture_output=True, text=True, env=e)


def must(args, env=None):
    p = run(args, env)
    if p.returncode != 0:
        print("command failed (%d): %s\n%s%s" % (p.returncode, " ".join(args), p.stdout, p.stderr))
        sys.exit(1)
    return p


def cc(args, link=True, abi=1):
    """deepprof-cc with the test runtime; abi=1 (the hooks testrt counts) unless
    abi names another, or 0: the plugin's own choice (its default is 2)."""
    tail = ["-Wl,-rpath," + OUT] if link else []
    pre = ["--deepprof-arg=abi=%d" % abi] if abi else []
    return must([DPCC, "--deepprof-runtime=" + RT, "-fchecking=2"] + pre + EXTRA + args + tail)


def src(name):
    return os.path.join(HERE, name)


def out(name):
    return os.path.join(OUT, name)


# ---------------------------------------------------------------- readers

def parse_rt(text):
    """The test runtime's report: per TU file, its tables and counts."""
    tus, cur, cnt, cyg = {}, None, None, None
    for line in text.splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "tu":
            cur = tus.setdefault(w[1], {"ps": [], "css": [], "enter": {}, "back": {}, "site": {}})
            cur["abi"] = int(w[2].split("=")[1])
            cur["flags"] = int(w[3].split("=")[1])
        elif w[0] == "ps":
            first, n = w[5].split("=")[1].split("+")
            cur["ps"].append({"name": w[2], "loc": w[3], "flags": int(w[4].split("=")[1]),
                              "first": int(first), "n": int(n)})
        elif w[0] == "css":
            cur["css"].append({"index": int(w[1]), "edge": w[2], "kind": w[3], "loc": w[4],
                               "callee_ps": int(w[5].split("=")[1]),
                               "flags": int(w[6].split("=")[1]), "bad": "BAD" in line})
        elif w[0] == "counts":
            cnt = tus[w[1]]
        elif w[0] == "enter":
            cnt["enter"][w[1]] = int(w[2])
            cnt["back"][w[1]] = int(w[4])
        elif w[0] == "site":
            css = cnt["css"][int(w[1])]
            cnt["site"][(css["edge"], css["loc"])] = (int(w[4]), int(w[6]))
        elif w[0] == "slow":
            cnt["slow"] = line.split(": ", 1)[1]
        elif w[0] == "cyg":
            cyg = (int(w[2]), int(w[4]))
    return tus, cyg


def run_prog(exe):
    rep = exe + ".rt"
    if os.path.exists(rep):
        os.unlink(rep)
    p = must([exe], env={"DP_TEST_OUT": rep})
    with open(rep) as f:
        return parse_rt(f.read()) + (p.stdout,)


def progrep(path):
    """The JSON records of a module's .deepprof.progrep section."""
    dump = path + ".progrep"
    if os.path.exists(dump):
        os.unlink(dump)
    p = run(["objcopy", "--dump-section", ".deepprof.progrep=" + dump, path, out("scratch.o")])
    if p.returncode != 0:
        return None
    with open(dump, encoding="utf-8") as f:
        recs = [json.loads(l) for l in f.read().replace("\0", "").split("\n") if l.strip()]
    for r in recs:
        try:
            jsonschema.validate(r, SCHEMA)
            check(True, "")
        except jsonschema.ValidationError as e:
            check(False, "%s: record does not match schemas/progrep.schema.json: %s" % (path, e.message))
    return recs


def fnv_lines(path, first, last):
    h = 14695981039346656037
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    data = b"".join(l + b"\n" for l in lines[first - 1:last])
    if last >= len(lines):          # no newline after the last line
        data = data[:-1]
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


# ---------------------------------------------------------------- p1

P1_PS = {  # name: (line, flags, number of sites)
    "leaf": (5, 3, 0), "twice": (6, 1, 0), "konst": (7, 3, 0), "apply": (8, 2, 1),
    "count_loop": (9, 6, 1), "goto_loop": (19, 6, 0), "do_loop": (28, 6, 0),
    "fill": (29, 3, 0), "main": (30, 2, 11),
}
P1_CSS = {  # (caller->callee, file:line:col): (kind, flags, callee defined here)
    ("apply->*", "p1.c:8:42"): ("indirect", 1, None),
    ("count_loop->leaf", "p1.c:15:8"): ("normal", 2, "leaf"),
    ("main->leaf", "p1.c:32:10"): ("normal", 2, "leaf"),
    ("main->twice", "p1.c:33:10"): ("normal", 2, "twice"),
    ("main->twice", "p1.c:34:15"): ("normal", 2, "twice"),   # its own column (locations.cc)
    ("main->leaf", "p1.c:34:10"): ("normal", 2, "leaf"),
    ("main->apply", "p1.c:35:10"): ("normal", 0, "apply"),
    ("main->fill", "p1.c:37:2"): ("normal", 2, "fill"),
    ("main->count_loop", "p1.c:38:10"): ("normal", 0, "count_loop"),
    ("main->goto_loop", "p1.c:38:26"): ("normal", 0, "goto_loop"),
    ("main->do_loop", "p1.c:38:41"): ("normal", 0, "do_loop"),
    ("main->konst", "p1.c:38:54"): ("normal", 2, "konst"),
    ("main->printf", "p1.c:39:2"): ("external", 0, None),
}
P1_ENTER = {"leaf": 7, "twice": 2, "konst": 1, "apply": 1, "count_loop": 1, "goto_loop": 1,
            "do_loop": 1, "fill": 1, "main": 1}
P1_BACK = {"count_loop": 5, "goto_loop": 3, "do_loop": 2}


def check_tables(tag, tu, want_ps, want_css):
    got_ps = {p["name"]: (int(p["loc"].split(":")[1]), p["flags"], p["n"]) for p in tu["ps"]}
    check(got_ps == want_ps, "%s: ps table %s" % (tag, got_ps))
    got_css = {}
    for c in tu["css"]:
        callee = tu["ps"][c["callee_ps"] - 1]["name"] if c["callee_ps"] else None
        got_css[(c["edge"], c["loc"])] = (c["kind"], c["flags"], callee)
        check(not c["bad"], "%s: css %d has another TU's id" % (tag, c["index"]))
    check(got_css == want_css, "%s: css table %s" % (tag, got_css))
    # a function's sites are contiguous and ids are the table positions
    for p in tu["ps"]:
        for k in range(p["first"], p["first"] + p["n"]):
            check(tu["css"][k]["index"] == k and tu["css"][k]["edge"].startswith(p["name"] + "->"),
                  "%s: site %d not in %s" % (tag, k, p["name"]))


def css_records_in_file(path):
    """(index, tu_id) of each dp_css_static record, read from the module file
    at the address of __deepprof_css, as a Deep.data reader would."""
    syms = must(["readelf", "-sW", path]).stdout
    addr = size = None
    for l in syms.splitlines():
        w = l.split()
        if len(w) >= 8 and (w[7] == "__deepprof_css" or w[7].startswith("__deepprof_css.")):
            addr, size = int(w[1], 16), int(w[2])
    if addr is None:
        return None
    for l in must(["readelf", "-SW", path]).stdout.splitlines():
        w = l.replace("[ ", "[").split()
        if len(w) > 6 and w[0].startswith("[") and w[1].startswith("."):
            va, off, sz = int(w[3], 16), int(w[4], 16), int(w[5], 16)
            if va <= addr < va + sz:
                with open(path, "rb") as f:
                    f.seek(off + addr - va)
                    data = f.read(size)
                return [(int.from_bytes(data[i + 36:i + 40], "little"),
                         "%016x" % int.from_bytes(data[i + 40:i + 48], "little"))
                        for i in range(0, size, 48)]
    return None


def check_p1_progrep(tag, recs, tu, exe):
    check(recs is not None, tag + ": no .deepprof.progrep section")
    if not recs:
        return
    tus = [r for r in recs if r["record"] == "tu"]
    fns = {r["fn"]: r for r in recs if r["record"] == "fn"}
    check(len(tus) == 1 and tus[0]["n_ps"] == 9 and tus[0]["n_css"] == 13,
          tag + ": progrep tu record %s" % tus)
    check(sorted(fns) == sorted(P1_PS), tag + ": progrep functions %s" % sorted(fns))
    if sorted(fns) != sorted(P1_PS):
        return
    tuid = tus[0]["tu"]
    check(css_records_in_file(exe) == [(i, tuid) for i in range(13)],
          tag + ": css records read from the file")
    site = {}  # (edge, loc) -> site id, from the runtime tables
    for c in tu["css"]:
        site[(c["edge"], c["loc"])] = c["index"]
    for name, r in fns.items():
        check(r["tu"] == tuid, tag + ": %s tu id" % name)
        check(r["checksum"] == fnv_lines(src("p1.c"), r["line"], r["end_line"]),
              tag + ": %s checksum" % name)
        ps = [p for p in tu["ps"] if p["name"] == name][0]
        check(r["ps"] == tu["ps"].index(ps) and r["first_site"] == ps["first"]
              and r["n_sites"] == ps["n"], tag + ": %s ps/site numbering" % name)
        check(r["backedges"] == (1 if name in P1_BACK else 0), tag + ": %s backedges" % name)
        for c in r["calls"]:   # the progrep's ids are the tables' ids
            t = tu["css"][c["site"]]
            check(t["loc"] == "p1.c:%d:%d" % (c["line"], c["col"])
                  and t["edge"].split("->")[1] == (c["callee"] or "*")
                  and c["id"] == "%s:%d" % (tuid, c["site"]), tag + ": site %d" % c["site"])
    s = lambda e, l: site[(e, "p1.c:" + l)]
    main = fns["main"]
    # argc is first read for twice (line 33; konst's read is in the same
    # block), argv by argv[0] just before printf (the ?: arms hold no items)
    order = ["main->leaf 32:10", "use argc", "main->twice 33:10", "main->twice 34:15",
             "main->leaf 34:10", "main->apply 35:10", "main->fill 37:2", "main->count_loop 38:10",
             "main->goto_loop 38:26", "main->do_loop 38:41", "main->konst 38:54", "use argv",
             "main->printf 39:2"]
    check(main["body"] == [{"use": o[4:]} if o.startswith("use ") else {"call": s(*o.split())}
                           for o in order], tag + ": main body %s" % main["body"])
    # the leaves read their parameter; apply reads f and v for its call;
    # fill reads v and stores through p (in that order: one statement)
    for name in ("leaf", "twice", "konst"):
        check(fns[name]["body"] == [{"use": "x"}], tag + ": %s body %s" % (name, fns[name]["body"]))
    check(fns["apply"]["body"] == [{"use": "f"}, {"use": "v"}, {"call": s("apply->*", "8:42")}],
          tag + ": apply body %s" % fns["apply"]["body"])
    check(fns["fill"]["body"] == [{"use": "v"}, {"store": "p"}], tag + ": fill body %s" % fns["fill"]["body"])
    check(main["params"] == [{"name": "argc", "type": "int", "pointer": False},
                             {"name": "argv", "type": "char * *", "pointer": True}],
          tag + ": main params")
    calls = {c["site"]: c for c in main["calls"]}
    a, b = s("main->leaf", "32:10"), s("main->twice", "33:10")
    tw, lf = s("main->twice", "34:15"), s("main->leaf", "34:10")
    want = {
        a: ([{"from": [{"const": True}]}], {"local": "a"}, "memory"),
        b: ([{"from": [{"param": "argc"}]}], {"local": "b"}, "memory"),
        tw: ([{"from": [{"local": "a"}, {"call": a}]}], "temp", "memory"),
        lf: ([{"from": [{"call": tw}]}], {"local": "c"}, "memory"),
        s("main->apply", "35:10"): ([{"from": [{"function": "leaf"}], "points_to": ["function"]},
                                    {"from": [{"local": "b"}, {"call": b}]}], {"local": "d"}, "memory"),
        s("main->fill", "37:2"): ([{"from": [{"addr_of": {"local": "local"}}],
                                   "points_to": [{"local": "local"}]},
                                  {"from": [{"local": "c"}, {"call": lf}]}], None, "memory"),
        s("main->konst", "38:54"): ([{"from": [{"param": "argc"}]}], {"local": "e"}, "const"),
    }
    for k, (args, res, eff) in want.items():
        c = calls[k]
        check((c["args"], c["result"], c["effects"]) == (args, res, eff),
              tag + ": main call %d: %s" % (k, json.dumps(c)))
    pf = calls[s("main->printf", "39:2")]
    check(pf["kind"] == "external" and pf["args"][5] == {"from": [{"local": "local"}]},
          tag + ": printf record")
    ap = fns["apply"]
    check(ap["params"] == [{"name": "f", "type": "int (*) (int)", "pointer": True},
                           {"name": "v", "type": "int", "pointer": False}], tag + ": apply params")
    c = ap["calls"][0]
    check(c["kind"] == "indirect" and c["callee"] is None and c.get("tail") is True
          and c["target_from"] == [{"param": "f"}] and c["args"] == [{"from": [{"param": "v"}]}]
          and c["result"] == "temp", tag + ": apply call %s" % json.dumps(c))
    cl = s("count_loop->leaf", "15:8")
    check(fns["count_loop"]["body"] == [{"loop": {"line": 12, "body": [{"use": "n"},
        {"branch": {"kind": "if", "line": 13, "arms": [[], [{"call": cl}]]}}]}}],
        tag + ": count_loop body %s" % fns["count_loop"]["body"])
    check(fns["count_loop"]["calls"][0]["args"] == [{"from": [{"local": "i"}, {"const": True}]}]
          and fns["count_loop"]["calls"][0]["result"] == {"local": "s"}, tag + ": count_loop call")
    # the loop tests read n (do_loop: --n, a use, in its one block)
    check(fns["goto_loop"]["body"] == [{"loop": {"line": 24, "body": [{"use": "n"}]}}],
          tag + ": goto_loop body %s" % fns["goto_loop"]["body"])
    check(fns["do_loop"]["body"] == [{"loop": {"line": 28, "body": [{"use": "n"}]}}],
          tag + ": do_loop body %s" % fns["do_loop"]["body"])
    check(all(r["unplaced"] == [] for r in fns.values()), tag + ": unplaced sites")


def test_p1():
    for v in VARIANTS:
        tag = "p1 " + " ".join(v)
        exe = out("p1" + "".join(v).replace("-", "_"))
        cc(v + [src("p1.c"), "-o", exe])
        tus, cyg, stdout = run_prog(exe)
        check(stdout == "2 2 5 3 5 25 ok\n", tag + ": program output %r" % stdout)
        check(list(tus) == ["p1.c"], tag + ": TUs %s" % list(tus))
        tu = tus["p1.c"]
        check(tu["flags"] == 7, tag + ": tu flags %d" % tu["flags"])
        check_tables(tag, tu, P1_PS, P1_CSS)
        check(tu["enter"] == P1_ENTER, tag + ": enters %s" % tu["enter"])
        check({k: n for k, n in tu["back"].items() if n} == P1_BACK, tag + ": back-edges %s" % tu["back"])
        want_site = {k: (4, 4) if k[0] == "count_loop->leaf" else (1, 0) if k[0] == "apply->*"
                     else (1, 1) for k in P1_CSS}
        check(tu["site"] == want_site, tag + ": site counts %s" % tu["site"])
        check_p1_progrep(tag, progrep(exe), tu, exe)


# ---------------------------------------------------------------- p2: multi-TU + shared library

def test_p2():
    for v in VARIANTS:
        tag = "p2 " + " ".join(v)
        sfx = "".join(v).replace("-", "_")
        lib = out("libp2%s.so" % sfx)
        exe = out("p2" + sfx)
        cc(v + ["-shared", "-fPIC", src("p2lib.c"), "-o", lib, RT])
        cc(v + [src("p2main.c"), src("p2help.c"), "-o", exe, lib])
        tus, cyg, stdout = run_prog(exe)
        check(stdout == "14\n", tag + ": output %r" % stdout)
        check(sorted(tus) == ["p2help.c", "p2lib.c", "p2main.c"], tag + ": TUs %s" % sorted(tus))
        if sorted(tus) != ["p2help.c", "p2lib.c", "p2main.c"]:
            continue
        check_tables(tag + " lib", tus["p2lib.c"], {"lib_sum": (2, 6, 1)},
                     {("lib_sum->*", "p2lib.c:6:8"): ("indirect", 0, None)})
        check_tables(tag + " main", tus["p2main.c"], {"cb": (6, 0, 1), "main": (7, 2, 2)},
                     {("cb->helper", "p2main.c:6:31"): ("normal", 1, None),
                      ("main->lib_sum", "p2main.c:9:17"): ("normal", 0, None),
                      ("main->printf", "p2main.c:9:2"): ("external", 0, None)})
        check_tables(tag + " help", tus["p2help.c"], {"helper": (2, 3, 0)}, {})
        check(tus["p2lib.c"]["enter"] == {"lib_sum": 1} and tus["p2lib.c"]["back"] == {"lib_sum": 4},
              tag + ": lib_sum counts")
        check(tus["p2lib.c"]["site"] == {("lib_sum->*", "p2lib.c:6:8"): (4, 4)}, tag + ": lib site")
        check(tus["p2main.c"]["enter"] == {"cb": 4, "main": 1}, tag + ": main TU enters")
        check(tus["p2main.c"]["site"] == {("cb->helper", "p2main.c:6:31"): (4, 0),
                                         ("main->lib_sum", "p2main.c:9:17"): (1, 1),
                                         ("main->printf", "p2main.c:9:2"): (1, 1)},
              tag + ": main TU sites %s" % tus["p2main.c"]["site"])
        check(tus["p2help.c"]["enter"] == {"helper": 4}, tag + ": helper enters")
        recs = progrep(lib) or []
        fn = [r for r in recs if r.get("fn") == "lib_sum"]
        check(len(fn) == 1, tag + ": lib progrep")
        if fn:
            r = fn[0]
            # the loop test reads n, the call through cb reads cb
            check(r["body"] == [{"loop": {"line": 5, "body": [{"use": "n"}, {"use": "cb"}, {"call": 0}]}}]
                  and r["calls"][0]["target_from"] == [{"param": "cb"}]
                  and r["calls"][0]["args"] == [{"from": [{"local": "i"}, {"const": True}]}]
                  and [p["pointer"] for p in r["params"]] == [False, True],
                  tag + ": lib_sum progrep %s" % json.dumps(r))
        recs = progrep(exe) or []
        check(sorted(r["fn"] for r in recs if r["record"] == "fn") == ["cb", "helper", "main"]
              and sorted(r["file"].split("/")[-1] for r in recs if r["record"] == "tu")
              == ["p2help.c", "p2main.c"], tag + ": exe progrep records")


# ---------------------------------------------------------------- p3: calls=source vs calls=surviving

def test_p3():
    """ai() is always_inline (inlined even at -O0), g() noinline."""
    for mode in ("source", "surviving"):
        for v in VARIANTS:
            tag = "p3 %s %s" % (mode, " ".join(v))
            exe = out("p3_%s%s" % (mode, "".join(v).replace("-", "_")))
            cc(["--deepprof-arg=calls=" + mode] + v + [src("p3.c"), "-o", exe])
            tus, cyg, stdout = run_prog(exe)
            tu = tus.get("p3.c")
            if not check(tu is not None and tu["abi"] == 1, tag + ": no abi 1 table"):
                continue
            check(tu["flags"] == (7 if mode == "source" else 5), tag + ": tu flags %d" % tu["flags"])
            check_tables(tag, tu, {"g": (2, 3, 0), "ai": (3, 0, 1), "main": (4, 6, 1)},
                         {("ai->g", "p3.c:3:69"): ("normal", 2, "g"),
                          ("main->ai", "p3.c:8:8"): ("normal", 0, "ai")})
            if mode == "source":
                want = ({"g": 3, "ai": 3, "main": 1}, {"main": 3},
                        {("ai->g", "p3.c:3:69"): (3, 3), ("main->ai", "p3.c:8:8"): (3, 3)})
            else:   # the inlined call and ai's own entry are gone; its call of g survives
                want = ({"g": 3, "main": 1}, {"main": 3}, {("ai->g", "p3.c:3:69"): (3, 3)})
            got = (tu["enter"], {k: n for k, n in tu["back"].items() if n}, tu["site"])
            check(got == want, tag + ": counts %s" % (got,))


# ---------------------------------------------------------------- ABI v2: the inline fast path

def strip_ids(recs):
    """progrep records without what depends on the output file's name."""
    out_ = []
    for r in recs or []:
        r = json.loads(json.dumps(r))
        r.pop("tu", None)
        r.pop("abi", None)
        for c in r.get("calls", []):
            c.pop("id", None)
        out_.append(r)
    return out_


def test_abi2():
    """abi=2, the plugin's default (no abi= given here), counts what abi=1 counts: per-site calls, back-edges, entries of
    functions that have a prologue (a leaf only its TU's sites call has none:
    they count it; twice() here), and takes the slow paths only the first
    time. The progrep is abi=1's (the order of its records aside)."""
    for v in VARIANTS:
        tag = "abi2 p1 " + " ".join(v)
        sfx = "".join(v).replace("-", "_")
        exe = out("p1v2" + sfx)
        cc(v + [src("p1.c"), "-o", exe], abi=0)
        tus, cyg, stdout = run_prog(exe)
        check(stdout == "2 2 5 3 5 25 ok\n", tag + ": output %r" % stdout)
        tu = tus.get("p1.c")
        if not check(tu is not None and tu["abi"] == 2, tag + ": no abi 2 table"):
            continue
        check({k: c for k, (c, r) in tu["site"].items()} ==
              {k: (4 if k[0] == "count_loop->leaf" else 1) for k in P1_CSS}, tag + ": site calls %s" % tu["site"])
        check({k: n for k, n in tu["back"].items() if n} == P1_BACK, tag + ": back-edges %s" % tu["back"])
        # twice() has no prologue: where it was compiled before its callers
        # (-O0) its sites are DP_CSS_LEAF_CALLEE and count it unbound;
        # otherwise the runtime binds their csds when it makes them, as it
        # does every direct site's whose callee is in the TU (the ABI's rule
        # that lets an inlined prologue skip its check)
        leafsites = [c for c in tu["css"] if c["edge"].endswith("->twice")]
        eager = bool(leafsites) and not any(c["flags"] & 2 for c in leafsites)
        want = {"leaf": 7, "konst": 1, "apply": 1, "count_loop": 1, "goto_loop": 1,
                "do_loop": 1, "fill": 1, "main": 1}
        if eager:
            want["twice"] = 2
        check(tu["enter"] == want, tag + ": entries %s" % tu["enter"])
        check(tu["slow"] == "%d binds, 1 callbacks, 13 new csds, 1 indirect" % (12 if eager else 10),
              tag + ": slow paths %s" % tu["slow"])
        key = lambda r: (r.get("record", ""), r.get("ps", -1))
        check(sorted(strip_ids(progrep(exe)), key=key) == sorted(strip_ids(progrep(out("p1" + sfx))), key=key),
              tag + ": progrep differs from abi=1")

        tag = "abi2 p2 " + " ".join(v)
        lib = out("libp2v2%s.so" % sfx)
        exe = out("p2v2" + sfx)
        cc(v + ["-shared", "-fPIC", src("p2lib.c"), "-o", lib, RT], abi=2)
        cc(v + [src("p2main.c"), src("p2help.c"), "-o", exe, lib], abi=2)
        tus, cyg, stdout = run_prog(exe)
        check(stdout == "14\n", tag + ": output %r" % stdout)
        got = {f: ({k: c for k, (c, r) in t["site"].items()}, t["enter"],
                   {k: n for k, n in t["back"].items() if n}) for f, t in tus.items()}
        check(got == {"p2lib.c": ({("lib_sum->*", "p2lib.c:6:8"): 4}, {"lib_sum": 1}, {"lib_sum": 4}),
                      "p2main.c": ({("cb->helper", "p2main.c:6:31"): 4, ("main->lib_sum", "p2main.c:9:17"): 1,
                                    ("main->printf", "p2main.c:9:2"): 1}, {"cb": 4, "main": 1}, {}),
                      "p2help.c": ({}, {"helper": 4}, {})}, tag + ": counts %s" % got)

        tag = "abi2 p3 " + " ".join(v)
        exe = out("p3v2" + sfx)
        cc(v + [src("p3.c"), "-o", exe], abi=2)
        tus, cyg, stdout = run_prog(exe)
        t = tus.get("p3.c", {"site": {}, "enter": {}, "back": {}})
        got = ({k: c for k, (c, r) in t["site"].items()}, t["enter"], {k: n for k, n in t["back"].items() if n})
        check(got == ({("main->ai", "p3.c:8:8"): 3, ("ai->g", "p3.c:3:69"): 3}, {"g": 3, "ai": 3, "main": 1},
                      {"main": 3}), tag + ": counts %s" % (got,))
        # ai's prologue, inlined into main, reads the dp_cur its site just
        # stored, which names a csd bound to ai: inlined.cc folds its check,
        # so main calls dp_abi_enter_slow for its own prologue only (the
        # counts above are the proof that nothing was lost)
        if "-flto" not in v:
            asm = out("p3v2%s.s" % sfx)
            cc(v + ["-S", src("p3.c"), "-o", asm], link=False, abi=2)
            with open(asm) as f:
                text = f.read()
            body = text[text.index("\nmain:"):]
            body = body[:body.index(".size\tmain")]
            n = slow_calls(body, "dp_abi_enter_slow")
            check(n == 1, tag + ": main calls dp_abi_enter_slow %d times, not once" % n)


# ---------------------------------------------------------------- ABI v2 and the program's own optimizations

VEC_SRC = """long sum(long *a, int n) { long s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }
int main(int argc, char **argv) { (void)argv; long a[64]; for (int i = 0; i < 64; i++) a[i] = i * argc;
    return (int)(sum(a, 64) - 2016 * argc); }
"""


def test_vectorized():
    """A back-edge counter in a loop without calls does not stop GCC
    vectorizing the loop (the inline path's accesses have an alias set of
    their own: plugin-abi.md), and the count stays exact: sum's 64
    iterations, though the counter is stored once after the loop."""
    c = out("vec.c")
    with open(c, "w") as f:
        f.write(VEC_SRC)
    for tag, cmd in (("plain gcc", ["gcc", "-O3", "-fno-inline", "-S", c, "-o", out("vec-plain.s")]),
                     ("abi2", [DPCC, "-O3", "-fno-inline", "-S", c, "-o", out("vec-v2.s")])):
        must(cmd)
        with open(cmd[-1]) as f:
            text = f.read()
        body = text[text.index("\nsum:"):]
        body = body[:body.index(".size\tsum")]
        check("paddq" in body, "%s: sum's loop is not vectorized" % tag)
    exe = out("vec-v2")
    cc(["-O3", "-fno-inline", c, "-o", exe], abi=2)
    tus, cyg, stdout = run_prog(exe)
    t = tus.get("vec.c", {"back": {}})
    check(t["back"].get("sum") == 64, "abi2 vectorized: sum's back-edges %r" % t["back"])


UPCASE_SRC = """#include <stdio.h>
__attribute__((noinline)) long up(char *d, const char *s)
{
	long n = 0;
	for (; *s; s++, d++, n++)
		*d = *s >= 'a' && *s <= 'z' ? *s - 32 : *s;
	*d = 0;
	return n;
}
int main(void)
{
	char d[64];
	long n = up(d, "hello, world") + up(d, "abc");
	printf("%s %ld\\n", d, n);
	return 0;
}
"""


def each_calls_mode(stem, src, fn, label):
    """SRC written to STEM.c and compiled to assembler at -O2 (ABI v2) in
    both ways of counting calls: for each, (the extra arguments, a tag for
    messages, FN's assembler, the source's path)."""
    c = out(stem + ".c")
    with open(c, "w") as f:
        f.write(src)
    for more in ([], ["--deepprof-arg=calls=surviving"]):
        asm = out(stem + ".s")
        cc(more + ["-O2", "-S", c, "-o", asm], link=False, abi=2)
        with open(asm) as f:
            yield more, "%s %s" % (label, more or ""), fn_asm(f.read(), fn), c


def test_tick_register():
    """A loop that makes no call and stores chars, which may alias the
    back-edge counter: its tick loads the count once where the loop is
    entered and stores it each iteration (ticks.cc), no add to memory in
    the loop (a chain through memory per iteration), in both ways of
    counting calls; the counts stay exact."""
    for more, tag, body, c in each_calls_mode("upcase", UPCASE_SRC, "up", "tick register"):
        # (under the sanitizers the loop calls their reports: not this case)
        check(any("-fsanitize" in f for f in EXTRA) or
              not re.search(r"\baddq\t\$1, 8\(%r", body) and re.search(r"\bmovq\t%r\w+, 8\(%r", body),
              "%s: up's loop adds to memory or stores no count:\n%s" % (tag, body))
        exe = out("upcase")
        cc(more + ["-O2", c, "-o", exe], abi=2)
        tus, cyg, stdout = run_prog(exe)
        check(stdout == "ABC 15\n", tag + ": output %r" % stdout)
        t = tus.get("upcase.c", {"back": {}})
        check(t["back"].get("up") == 15, "%s: up's back-edges %r" % (tag, t["back"]))


TICK_ASM_SRC = r"""#include <stdio.h>
__attribute__((noinline)) static int g(int x) { return x * 3; }
__attribute__((noinline)) int f(char *d, const char *s, int n)
{
	int t = 0;
	for (int i = 0; i < n; i++) {
		if (i % 3 == 0)
			t += g(i);
		for (int j = 0; j < (i & 7); j++)
			d[j] = s[j] + 1;
	}
	return t;
}
int main(int argc, char **argv)
{
	(void)argv;
	char d[8] = "";
	printf("%d %s\n", f(d, "abcdefg", 9 + argc), d);
	return 0;
}
"""


def test_tick_asm():
    """A loop that makes a call on some of its paths: its tick is one add
    to the csd's count in memory (ticks.cc's asm, DP_ABI_TICK), not a load,
    an add and a store whose value GCC keeps in a register around the
    paths that make no call; the call-free loop inside it still keeps its
    count in a register, and the counts of both stay exact (10 outer
    iterations, 29 inner ones)."""
    for more, tag, body, c in each_calls_mode("tickasm", TICK_ASM_SRC, "f", "tick asm"):
        if not any("-fsanitize" in x for x in EXTRA):
            check(len(re.findall(r"\baddq\s+\$1, 8\(%r\w+\)", body)) == 1,
                  "%s: f's outer loop does not tick in one add:\n%s" % (tag, body))
            check(re.search(r"\bmovq\t%r\w+, 8\(%r", body),
                  "%s: f's inner loop keeps no count in a register:\n%s" % (tag, body))
        exe = out("tickasm")
        cc(more + ["-O2", c, "-o", exe], abi=2)
        tus, cyg, stdout = run_prog(exe)
        check(stdout == "54 bcdefgh\n", tag + ": output %r" % stdout)
        t = tus.get("tickasm.c", {"back": {}, "site": {}})
        check(t["back"].get("f") == 39, "%s: f's back-edges %r" % (tag, t["back"]))
        calls = {k: c_ for k, (c_, r) in t["site"].items() if k[0] == "f->g"}
        check(sum(calls.values()) == 4, "%s: f->g %r" % (tag, calls))


LATE_LEAF_SRC = """static int leafy(int x);
__attribute__((noinline)) static int mid(int x) { return leafy(x) + leafy(x + 1); }
__attribute__((noinline)) static int leafy(int x) { return x * 7; }
int main(int argc, char **argv) { (void)argv; return mid(argc) - 7 * (2 * argc + 1); }
"""


def test_late_leaf():
    """A leaf compiled after its caller (leafy, defined after mid): its
    sites are flagged DP_CSS_LEAF_CALLEE when the tables are made, and the
    pass after inlining removes what the site emitted before it knew (the
    tagging store, the exits increment after the call): mid's code counts
    each call and nothing else. Counts as before."""
    c = out("lateleaf.c")
    with open(c, "w") as f:
        f.write(LATE_LEAF_SRC)
    for v in (["-O0"], ["-O2"]):
        tag = "late leaf " + " ".join(v)
        asm = out("lateleaf%s.s" % v[0])
        cc(v + ["-S", c, "-o", asm], link=False, abi=2)
        with open(asm) as f:
            text = f.read()
        body = text[text.index("\nmid:"):]
        body = body[:body.index(".size\tmid")]
        # a store to offset 40 of a csd is its exits count (an address
        # computed there, by -fsanitize=undefined's checks, is not)
        check(not re.search(r",\s*40\(%", body) and "orq\t$1" not in body,
              tag + ": mid still tags dp_cur or counts exits")
        exe = out("lateleaf%s" % v[0])
        cc(v + [c, "-o", exe], abi=2)
        tus, cyg, stdout = run_prog(exe)
        t = tus.get("lateleaf.c", {"site": {}, "enter": {}, "css": []})
        flags = {x["edge"]: x["flags"] for x in t["css"]}
        check(flags.get("mid->leafy") == 2, tag + ": mid->leafy flags %r" % flags)
        got = ({k: c_ for k, (c_, r) in t["site"].items()}, t["enter"])
        check(got == ({("mid->leafy", "lateleaf.c:2:58"): 1, ("mid->leafy", "lateleaf.c:2:69"): 1,
                       ("main->mid", "lateleaf.c:4:54"): 1}, {"mid": 1, "main": 1}),
              tag + ": counts %s" % (got,))


TLS_STORE = re.compile(r"\bmov\w*\s+%\w+,\s*%fs:")


def fn_asm(text, name):
    body = text[text.index("\n%s:" % name):]
    return body[:body.index(".size\t%s" % name)]


def slow_calls(text, name):
    """Calls of slow path NAME in assembly TEXT: plain calls, and the asm
    calls of its _regs entry point (compiler-plugins/slow_regs.cc)."""
    return text.count("call\t%s" % name) + text.count("call *%s_regs@GOTPCREL(%%rip)" % name)


def test_lean_sites():
    """Quiet bodies (lower.cc, schemas/plugin-abi.md): a call GCC inlined
    into a body that makes no call (sq, public, so it has a prologue where
    it is not inlined) leaves dp_cur alone: f1's loop stores nothing to
    thread-local memory; chk's inlined body, which calls bump on a path,
    stores dp_cur only around that call (two stores in f2: bump's tag and
    the restore; the code before quiet bodies had a third, chk's tag)
    (tests/plugin-rt/s-lean.c). Calls are counted as before (their exits:
    plugin-rt t040 and t042, with libprof)."""
    c = os.path.join(HERE, "..", "plugin-rt", "s-lean.c")
    asm = out("lean.s")
    cc(["-O2", "-S", c, "-o", asm], link=False, abi=2)
    with open(asm) as f:
        text = f.read()
    f1, f2 = fn_asm(text, "f1"), fn_asm(text, "f2")
    check("call\tsq" not in f1 and "call\tchk" not in f2,
          "lean sites: sq or chk is not inlined: the test shows nothing")
    check(not TLS_STORE.search(f1), "lean sites: f1 stores to dp_cur around the inlined sq:\n" + f1)
    # sq is a leaf with a prologue (public): DP_CSS_LEAF_PROC, its calls all
    # return, the runtime takes them for exits and the code counts none
    check(" 39(%" not in f1, "leaf procedures: f1 counts the inlined sq's exits:\n" + f1)
    check(len(TLS_STORE.findall(f2)) == 2 and "bump" in f2,
          "quiet bodies: f2 stores to dp_cur other than around chk's call of bump:\n" + f2)
    exe = out("lean")
    cc(["-O2", c, "-o", exe], abi=2)
    tus, cyg, stdout = run_prog(exe)
    check(stdout == "285 18 100\n", "lean sites: output %r" % stdout)
    t = tus.get("s-lean.c", {"site": {}})
    got = {edge: c_ for (edge, loc), (c_, r) in t["site"].items()}
    check(got.get("f1->sq") == 10 and got.get("main->sq") == 1 and got.get("f2->chk") == 10 and
          got.get("chk->bump") == 3,
          "lean sites: counts %r" % got)


# an instruction that counts exits: a site's in its pd's counters (the
# exits word of DP_PD_COUNT, 8 bytes past the calls word), or a quiet
# body's pending ones in its csd (39 past the csd tagged, 40 past it)
EXITS_TOUCH = re.compile(r"addq\s+\$-?1, (?:8\+-\d+|39|40)\(%")

RETURNS_SRC = """#include <wctype.h>
static int up(int c)
{
	if (c >= 'a')
		return towupper(c);
	return c;
}
void f(int *s, int n)
{
	for (int i = 0; i < n; i++)
		s[i] = up(s[i]);
}
"""


def test_devirt_sites():
    """Devirtualized sites (schemas/plugin-abi.md): in pass_a of
    tests/plugin-rt/s-devirt.c GCC inlines each() with odd and twice as
    its targets; the sites of is_x and to_y check that their csds are bound
    to odd's and twice's procedures (their slow path dp_abi_call_bound),
    and odd's inlined body,
    which calls note on a path, is quiet: the one prologue check left in
    pass_a is its own (two before). And a quiet body's call of a library
    function declared leaf (towupper: DP_CSS_RETURNS, it always returns)
    takes no exits back around it: f touches up's exits once, where its
    site counts the return (three more times before). Counts: plugin-rt
    t043."""
    c = os.path.join(HERE, "..", "plugin-rt", "s-devirt.c")
    asm = out("devirt.s")
    cc(["-O2", "-S", c, "-o", asm], link=False, abi=2)
    with open(asm) as f:
        pa = fn_asm(f.read(), "pass_a")
    check("call\todd" not in pa and "call\teach" not in pa and "call\t*" not in pa,
          "devirtualized sites: each or odd is not inlined into pass_a: the test shows nothing:\n" + pa)
    check(pa.count("call\tdp_abi_call_bound") == 2 and slow_calls(pa, "dp_abi_enter_slow") == 1,
          "devirtualized sites: pass_a's slow paths:\n" + pa)
    src, asm = out("returns.c"), out("returns.s")
    with open(src, "w") as f:
        f.write(RETURNS_SRC)
    cc(["-O2", "-S", src, "-o", asm], link=False, abi=2)
    with open(asm) as f:
        fa = fn_asm(f.read(), "f")
    check("towupper" in fa and "call\tup" not in fa,
          "quiet bodies: up is not inlined into f, or calls no towupper:\n" + fa)
    check(len(EXITS_TOUCH.findall(fa)) == 1,
          "quiet bodies: f touches exits (its counters' 8+DP_PD_COUNT, or 39 past a tagged csd, 40 past a csd) "
          "other than once:\n" + fa)


ESTIMATE_SRC = """extern int g(int);
static int h(int x) { return x * 3 + 1; }
int f(const int *a, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) {
		if (a[i] > 10)
			s += h(a[i]);
		else
			s -= a[i];
	}
	if (s > 100)
		s = g(s);
	return s;
}
"""


def heuristics(path):
    with open(path) as f:
        return [l.strip() for l in f if "heuristics" in l]


SLOW_REGS_SRC = r"""
#include <stdio.h>
static int sq(int x) { return x * x; }
static int cube(int x) { return x * sq(x); }
int f(int a, int b, int c) { return sq(a) + cube(b) + sq(c) * a; }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 100; i++)
		s += f(i, i + 1, i + 2);
	printf("%d\n", s);
	return 0;
}
"""


def test_slow_regs():
    """Slow paths that keep registers (compiler-plugins/slow_regs.cc,
    schemas/plugin-abi.md): at -O2 on ABI v2, f's calls are all inlined and
    its prologue's and its four sites' slow paths (dp_abi_count_slow, a
    direct site's first call through a pd) are asms calling the
    _regs entry points, so f keeps its three arguments where they came and saves no
    register (with slow-calls=plain they are calls, across which the
    arguments must sit in callee-saved registers: f pushes). Both builds
    count the same calls; at -O0 and in the large code model the slow
    paths stay calls. (Under
    -fsanitize=undefined, f also calls UBSan's handlers on cold paths.)"""
    c = out("slowregs.c")
    with open(c, "w") as f:
        f.write(SLOW_REGS_SRC)
    res = {}
    for mode in ("regs", "plain"):
        arg = ["--deepprof-arg=slow-calls=" + mode]
        asm = out("slowregs-%s.s" % mode)
        cc(arg + ["-O2", "-S", c, "-o", asm], link=False, abi=2)
        with open(asm) as fh:
            body = fn_asm(fh.read(), "f")
        res[mode] = body
        exe = out("slowregs-" + mode)
        cc(arg + ["-O2", c, "-o", exe], abi=2)
        tus, cyg, stdout = run_prog(exe)
        t = tus.get("slowregs.c", {"site": {}, "enter": {}})
        got = ({k: n for k, (n, r) in t["site"].items()}, t["enter"], stdout.split()[:1])
        res[mode + " counts"] = got
    r, p = res["regs"], res["plain"]
    check("call *dp_abi_enter_slow_regs@GOTPCREL(%rip)" in r and r.count("call *dp_abi_count_slow_regs@GOTPCREL(%rip)") == 4
          and r.count("lea -128(%rsp), %rsp") == 5 and "call\tdp_abi" not in r and not re.search(r"\tpushq?\t%r", r),
          "slow-calls=regs: f's slow paths are not asm calls of the _regs entry points, or f saves registers:\n" + r)
    check("call\tdp_abi_enter_slow" in p and re.search(r"\tpushq?\t%r", p),
          "slow-calls=plain: f does not call dp_abi_enter_slow, or saves no register (the test shows nothing):\n" + p)
    check(res["regs counts"] == res["plain counts"] and res["regs counts"][1].get("f") == 100 and
          res["regs counts"][2] == ["51666550"],
          "slow-calls=regs and plain: counts or output differ: %s, %s" % (res["regs counts"], res["plain counts"]))
    # (large: the GOT may be out of reach; intel: the templates are AT&T's, which
    # made the assembler fail there before)
    for v in (["-O0"], ["-O2", "-mcmodel=large"], ["-O2", "-masm=intel"]):
        asm = out("slowregs%s.s" % "".join(v))
        cc(v + ["-S", c, "-o", asm], link=False, abi=2)
        with open(asm) as fh:
            body = fn_asm(fh.read(), "f")
        check("dp_abi_enter_slow" in body and "_regs" not in body,
              "%s: f's slow paths are not calls:\n%s" % (" ".join(v), body))


def site_modes(name, src, fn, modes):
    """SRC (the file NAME.c) built by plain GCC and with the plugin at -O2
    (ABI v2) in each site-checks= MODE: plain GCC's output, and per mode
    FN's code, FN before tree PRE, the calls per site {(edge, loc): n}
    and the output."""
    c = out(name + ".c")
    with open(c, "w") as fh:
        fh.write(src)
    plain = out(name + "-plain")
    must(["gcc", "-O2", c, "-o", plain])
    res = {}
    for mode in modes:
        arg = ["--deepprof-arg=site-checks=" + mode]
        asm, dump = out("%s-%s.s" % (name, mode)), out("%s-%s.opt" % (name, mode))
        cc(arg + ["-O2", "-S", c, "-o", asm, "-fdump-tree-pre=" + dump], link=False, abi=2)
        with open(asm) as fh:
            body = fn_asm(fh.read(), fn)
        with open(dump) as fh:
            opt = fh.read()
        fopt = opt[opt.index(";; Function %s " % fn):]
        fopt = fopt[:fopt.index("\n}\n")]
        exe = out("%s-%s" % (name, mode))
        cc(arg + ["-O2", c, "-o", exe], abi=2)
        tus, cyg, stdout = run_prog(exe)
        t = tus.get(name + ".c", {"site": {}})
        res[mode] = (body, fopt, {k: n for k, (n, r) in t["site"].items()}, stdout)
    return must([plain]).stdout, res


def rt_stores(dump, want):
    """The stores in a GIMPLE DUMP to a word of the runtime's memory at an
    offset WANT(offset) accepts (a csd's calls at -1 from its tagged
    pointer, exits at 39 or 40; a pd's counters at DP_PD_COUNT, below it:
    calls at a multiple of 16, exits 8 past)"""
    return [o for o in map(int, re.findall(r"^  MEM <long unsigned int> \[\(struct __deepprof_rt \*\)_\d+ \+ "
                                             r"(-?\d+)B\] = ", dump, re.M)) if want(o)]


# main of the programs that test f(long, long): 100 calls, the sum printed
F_MAIN = r"""
int main(void)
{
	long s = 0;
	for (long i = 0; i < 100; i++)
		s += f(i, i + 2);
	printf("%ld\n", s);
	return 0;
}
"""

SITE_ASM_SRC = r"""
#include <stdio.h>
__attribute__((noinline)) static long g(long x) { return x * 3 + 1; }
__attribute__((noinline)) long h(long x) { return x ^ 0x55; }
static inline long q(long x) { return x > 1000000 ? g(x) : x + 7; }
static inline long p(long x) { return x * 2 + 1; }
long f(long a, long b)
{
	long r = h(a);          /* its restore, then p's checks only, then h's tag */
	r = h(p(r) * p(b));
	/* live across q's checks, in every register GCC has */
	long x0 = a * b, x1 = a + 3 * b, x2 = a ^ b, x3 = a - b, x4 = a * 5 + b, x5 = b * b;
	long x6 = a * a, x7 = a | b, x8 = a & b, x9 = a * 7 - b, x10 = b * 11 + a;
	long t = q(x0) * q(x1) + q(x2) * q(x3);
	return t + x0 * 3 + x1 * 5 + x2 * 7 + x3 * 11 + x4 * 13 + x5 * 17 + x6 * 19 + x7 * 23
	       + x8 * 29 + x9 * 31 + x10 * 37 + r + g(b);
}
""" + F_MAIN


def test_site_asm():
    """Direct sites' checks as one asm each (compiler-plugins/slow_regs.cc,
    schemas/plugin-abi.md "Checks without blocks"): at -O2 on ABI v2, f's
    nine direct sites (h twice, g, the two inlined p, the four inlined q;
    q's own sites of g are four more) and its prologue make no block of
    their own: tree PRE sees no dp_abi_count_slow nor dp_abi_enter_slow,
    and two blocks per check fewer than with
    site-checks=blocks; the stubs the asms put after the code call the
    _regs entry point. A direct site's check is the count of its call in
    its pd's counters (deepprof-abi.h, DP_PD_COUNT), so in both modes its
    asm counts the call; with site-checks=asm (the default) it also loads
    the slot where the csd is used (h's tags, q's bodies) and counts the
    exit of an inlined body (p's and q's: g is a leaf), so tree PRE sees
    six loads fewer and no exit counted (six with site-checks=check). All three builds and plain GCC print the same, and count
    the same calls: every site's first call in each pd runs its stub
    (eleven values are live across q's checks, in the registers a call
    would clobber: a stub that lost one, rax, would show). f reaches
    dp_cur as often in all three (plugin-rt t044 shows the restore a check
    must keep, in libprof's local-exec code; t045 the restores and exits
    the asms take)."""
    want, built = site_modes("siteasm", SITE_ASM_SRC, "f", ("asm", "check", "blocks"))
    res = {}
    for mode, (body, fopt, sites, stdout) in built.items():
        res[mode] = (body, len(re.findall(r"dp_abi_(?:call|count|enter)_slow \(", fopt)),
                     len(re.findall(r"<bb \d+>", fopt)), sites, stdout,
                     len(re.findall(r"^  _\d+ = MEM <void \*> \[\(struct __deepprof_rt \*\)_\d+ \+ \d+B\];", fopt, re.M)),
                     len(rt_stores(fopt, lambda o: o == -1 or (o < -1 and o % 16 == 0))),
                     len(rt_stores(fopt, lambda o: o in (39, 40) or (o < -1 and o % 16 == 8))))
    a, k, b = res["asm"], res["check"], res["blocks"]
    check(a[1] == k[1] == 0 and b[1] == 14 and a[2] <= b[2] - 2 * 14 and k[2] <= b[2] - 2 * 14,
          "site-checks: f before tree PRE has %d, %d and %d slow calls (want 0, 0 and 14), %d, %d and %d blocks"
          % (a[1], k[1], b[1], a[2], k[2], b[2]))
    for x in (a, k):
        check(x[0].count("je 86421f") == 13 and x[0].count("call *dp_abi_count_slow_regs@GOTPCREL(%rip)") == 13 and
              x[0].count("jne 86423f") == 1 and x[0].count("call *dp_abi_enter_slow_regs@GOTPCREL(%rip)") == 1 and
              x[0].count(".subsection 1") == 14,
              "site-checks=asm/check: f's thirteen direct sites and its prologue are not asms with a stub after "
              "the code:\n" + x[0])
    # p's two inlined bodies make no call: nothing but their sites' asms
    # counts their calls and exits (in f's pd: DP_PD_COUNT, and 8 past it)
    quiet = len([x for x in re.findall(r"#APP\n(.*?)#NO_APP", a[0], re.S)
                 if re.search(r"addq \$1, -\d+\(", x) and "addq $1, 8+-" in x])
    check(quiet >= 2, "site-checks=asm: %d quiet bodies' exits counted in their sites' asms in f, "
          "want p's two at least:\n%s" % (quiet, a[0]))
    # p's and q's six bodies: their exits counted in their sites' asms
    check(a[7] == 0 and k[7] == 6,
          "site-checks=asm: f before tree PRE counts %d exits of inlined bodies (want 0; with "
          "site-checks=check %d, want 6)" % (a[7], k[7]))
    # the slots of the six sites whose csd the code uses (h's two tags, q's
    # four bodies' mes) loaded in the asms; the calls counted in them in
    # both modes (the count is the check)
    check(a[5] == k[5] - 6 and a[6] == k[6] == 0,
          "site-checks=asm: f before tree PRE loads %d pointers of the instrumentation and counts %d calls, "
          "%d and %d with site-checks=check (want 6 loads fewer: the slots, and no count)"
          % (a[5], a[6], k[5], k[6]))
    check(a[0].count("%fs:") == k[0].count("%fs:") == b[0].count("%fs:") > 0,
          "site-checks: f accesses dp_cur %d, %d and %d times with asm, check and blocks (a restore before "
          "a check is not a dead store: the asm reads dp_cur):\n%s"
          % (a[0].count("%fs:"), k[0].count("%fs:"), b[0].count("%fs:"), a[0]))
    check(a[3] == k[3] == b[3] and a[4] == k[4] == b[4] == want and len(a[3]) >= 4,
          "site-checks=asm, check and blocks: counts or output differ (plain GCC: %r): %s" % (want, res))


# f's and g's body: an early return with no site, then four calls of h
# and three back-edges (written out for each: a macro would give both
# calls of h one location)
def asm_ins(text, fn):
    """FN's instructions in assembler TEXT (no directives)."""
    return [l for l in fn_asm(text, fn).splitlines() if l.startswith("\t") and not l.startswith("\t.")]


def prologue_modes(stem, src, probe):
    """SRC built with prologues=lazy and =entry: what plain GCC's build
    prints, and per mode (PROBE of its assembler, its sites' counts by
    edge, its enter counts, its nonzero back-edge counts, its output)."""
    c = out(stem + ".c")
    with open(c, "w") as fh:
        fh.write(src)
    want = must(["gcc", "-O2", c, "-o", out(stem + "-plain")]) and must([out(stem + "-plain")]).stdout
    res = {}
    for mode in ("lazy", "entry"):
        arg = ["--deepprof-arg=prologues=" + mode]
        asm = out("%s-%s.s" % (stem, mode))
        cc(arg + ["-O2", "-S", c, "-o", asm], link=False, abi=2)
        with open(asm) as fh:
            facts = probe(fh.read())
        exe = out("%s-%s" % (stem, mode))
        cc(arg + ["-O2", c, "-o", exe], abi=2)
        tus, cyg, stdout = run_prog(exe)
        t = tus.get(stem + ".c", {"site": {}, "enter": {}, "back": {}})
        edges = {}
        for (edge, loc), (n, r) in t["site"].items():
            edges[edge] = edges.get(edge, 0) + n
        res[mode] = (facts, edges, t["enter"], {f: n for f, n in t["back"].items() if n}, stdout)
    return want, res


LAZY_BODY = r"""
{
	if (x & 1)
		return x;
	long s = h(x);
	for (int i = 0; i < 3; i++)
		s += h(s + i);
	return s;
}
"""
LAZY_SRC = r"""
#include <stdio.h>
__attribute__((noinline)) static long h(long x) { return x * 3 + 1; }
__attribute__((noinline)) static long f(long x)""" + LAZY_BODY + r"""__attribute__((noinline)) long g(long x)""" + LAZY_BODY + r"""int main(void)
{
	long t = 0;
	for (long i = 0; i < 100; i++)
		t += f(i) + g(i);
	printf("%ld\n", t);
	return 0;
}
"""


def test_lazy_prologue():
    """Prologues where they are needed (compiler-plugins/lower.cc,
    lazy_prologue; schemas/plugin-abi.md): f, static and called only by
    main's site, returns early on odd x with no site and no back-edge, so
    with prologues=lazy (the default) its odd calls run no prologue; g,
    the same body but public (uninstrumented code may call it), and f
    with prologues=entry read
    dp_cur first: only the first f has a return before its read of dp_cur
    (the odd path). Every build counts the same (f and g 100 calls each, h
    400, 150 back-edges each) and prints what plain GCC prints."""
    def probe(text):
        first = {}
        for fn in ("f", "g"):
            ins = asm_ins(text, fn)
            first[fn] = next((i for i, l in enumerate(ins) if "%fs:" in l or "dp_cur" in l), None)
            first[fn + " ret"] = next((i for i, l in enumerate(ins) if l.startswith(("\tret", "\trep ret"))), None)
        return first
    want, res = prologue_modes("lazy", LAZY_SRC, probe)
    lz, en = res["lazy"], res["entry"]
    before = lambda r, fn: r[0][fn + " ret"] is not None and r[0][fn] is not None and r[0][fn + " ret"] < r[0][fn]
    check(before(lz, "f") and not before(lz, "g") and not before(en, "f") and not before(en, "g"),
          "lazy prologues: where f and g return first and read dp_cur (lazy, entry): %r, %r" % (lz[0], en[0]))
    check(lz[1:] == en[1:] and lz[4] == want and lz[1].get("main->f") == 100 and lz[1].get("f->h") == 200 and
          lz[1].get("g->h") == 200 and lz[2] == {"f": 100, "g": 100, "main": 1} and
          lz[3] == {"f": 150, "g": 150, "main": 100},
          "lazy prologues: counts or output differ (plain GCC: %r): %r, %r" % (want, lz[1:], en[1:]))


LAZY_PD_SRC = r"""
#include <stdio.h>
__attribute__((noinline)) static long h(long x) { return x * 3 + 1; }
__attribute__((noinline)) long k(char *d, const char *s, long n)
{
	long t = 0;
	for (long i = 0; i < n; i++) {
		d[i] = s[i] + 1;
		t += d[i];
	}
	if (t & 1)
		return t;
	return h(t);
}
int main(void)
{
	char d[16];
	long t = 0;
	for (long i = 0; i < 10; i++)
		t += k(d, "abcdefghijklmno", i);
	printf("%ld\n", t);
	return 0;
}
"""


def test_lazy_pd():
    """The pd's load where the pd is needed (compiler-plugins/lower.cc,
    lazy_pd): k is public, so its prologue's check stays at its entry,
    but its pd (used by its one site, h's) is loaded only on the path that
    calls h: with prologues=lazy (the default) k's odd path returns before
    any load of the pd (16 from its me), with prologues=entry it loads it
    first (GCC does not sink that load past the stores of the loop's
    count). Both count the same (k 10 calls, 45 back-edges; h 6) and
    print what plain GCC prints."""
    def probe(text):
        ins = asm_ins(text, "k")
        return (next((i for i, l in enumerate(ins) if l.startswith(("\tret", "\trep ret"))), None),
                next((i for i, l in enumerate(ins) if re.match(r"\tmovq\t16\(%r\w+\), %r", l)), None))
    want, res = prologue_modes("lazypd", LAZY_PD_SRC, probe)
    lz, en = res["lazy"], res["entry"]
    if not any("-fsanitize" in x for x in EXTRA):
        check(None not in lz[0] + en[0] and lz[0][0] < lz[0][1] and en[0][1] < en[0][0],
              "lazy pd: k's first ret and pd load (lazy, entry): %r, %r" % (lz[0], en[0]))
    check(lz[1:] == en[1:] and lz[4] == want and lz[1] == {"main->k": 10, "k->h": 6, "main->printf": 1} and
          lz[2] == {"k": 10, "main": 1} and lz[3] == {"k": 45, "main": 10},
          "lazy pd: counts or output differ (plain GCC: %r): %r, %r" % (want, lz[1:], en[1:]))


PENDING_SRC = r"""
#include <stdio.h>
__attribute__((noinline)) long leaf(long x) { return x ^ 3; }
__attribute__((noinline)) long h(long x) { return leaf(x) + 1; }
static inline long q(long x) { return x > 50 ? h(x) : x + 7; }
long f(long a, long b)
{
	return q(a) * q(b) + q(a + b);
}
""" + F_MAIN


def test_pending_exits():
    """A quiet body's exits as asms (compiler-plugins/slow_regs.cc,
    pending_asm; schemas/plugin-abi.md "A site's code as two asms"): q,
    inlined three times into f, calls h (not a leaf) on a path, so each
    body counts its exit before it runs and takes it back around that call
    (-1 before, +1 after: a longjmp out of h leaves it a non-local exit;
    the first in its site's counters in f's pd, the others in its csd).
    With site-checks=asm (the default) none of those nine increments is
    GCC's to see before tree PRE (all or none of a body's are: GCC must not
    move one it sees past an asm that counts the same word), the code has
    the pending ones as asms, and the counts and the output are those of
    site-checks=check and of plain GCC (plugin-rt t042 checks the
    non-local exits through such bodies)."""
    want, built = site_modes("pending", PENDING_SRC, "f", ("asm", "check"))
    res = {mode: (body, len(rt_stores(fopt, lambda o: o in (39, 40) or (o < -1 and o % 16 == 8))), sites, stdout)
           for mode, (body, fopt, sites, stdout) in built.items()}
    a, k = res["asm"], res["check"]
    check(a[1] == 0 and k[1] == 9,
          "pending exits: f before tree PRE counts %d and %d exits of q's bodies with site-checks=asm and "
          "check (want 0 and 9)" % (a[1], k[1]))
    dec = re.findall(r"addq \$-1, 40\(%\w+\)", a[0])
    inc = re.findall(r"addq \$1, 40\(%\w+\)", a[0])
    check(len(dec) >= 3 and len(inc) >= 3 and "addq $-1, 40(" not in k[0],
          "pending exits: f's code has %d and %d pending exits as asms, want 3 each (and none with "
          "site-checks=check):\n%s" % (len(dec), len(inc), a[0]))
    check(a[2] == k[2] and a[3] == k[3] == want and len(a[2]) >= 3,
          "pending exits: counts or output differ (plain GCC: %r): %s" % (want, res))


VECTOR_SRC = r"""
#include <stdio.h>
static inline double p(double x) { return x * 0.5 + 1.0; }
__attribute__((noinline)) double f(double a, double b)
{
	/* live across p's four inlined bodies' checks */
	double x0 = a * b, x1 = a + 3 * b, x2 = a - b, x3 = a * 5 + b, x4 = b * b, x5 = a * a;
	double t = p(x0) * p(x1) + p(x2) * p(x3);
	return t + x0 * 3 + x1 * 5 + x2 * 7 + x3 * 11 + x4 * 13 + x5 * 17;
}
int main(void)
{
	double s = 0;
	for (int i = 0; i < 100; i++)
		s += f(i, i + 2);
	printf("%.6f\n", s);
	return 0;
}
"""


EXTERNAL_SRC = r"""
#include <stdio.h>
#include <string.h>
char buf[1 << 20];
__attribute__((noinline)) void clear(int n)
{
	memset(buf, n, sizeof buf);
	buf[n] = 1;
}
int main(void)
{
	for (int i = 0; i < 10; i++)
		clear(i);
	printf("%d %d\n", buf[5], buf[9]);
	return 0;
}
"""


def test_external_tag():
    """A call of a function GCC knows (memset) has its tag stored and
    dp_cur restored by volatile stores, which dead-store elimination would
    otherwise drop (the tag, as overwritten by the restore: GCC knows
    memset never reads dp_cur, and a clock tick in memset went to the
    caller). With site-checks=asm the tag is in the site's asm
    (DP_ABI_SITE_ENTER), which GCC never drops either, and the restore
    stays a volatile store (as an asm, DP_ABI_RESTORE, it kept GCC from
    trimming a memset before it): clear's code stores the tag to dp_cur
    before the call and the restore right after it, tree PRE sees one
    volatile store, and the output and counts are those of
    site-checks=check and plain GCC."""
    want, built = site_modes("external", EXTERNAL_SRC, "clear", ("asm", "check"))
    res = {mode: (body, fopt.count("={v}"), sites, stdout) for mode, (body, fopt, sites, stdout) in built.items()}
    a, k = res["asm"], res["check"]
    m = re.search(r"mov %\w+, %fs:\S+\n# 0 \"\" 2\n#NO_APP\n(?:(?!#APP|%fs:).)*call\s+memset[^\n]*\n"
                  r"\s*movq\s+%\w+, %fs:", a[0], re.S)
    check(m and a[1] == 1 and k[1] == 2,
          "external: clear's tag before memset is not in its site's asm, or its restore is not right after "
          "(tree PRE sees %d volatile stores, %d with site-checks=check, want 1 and 2):\n%s" % (a[1], k[1], a[0]))
    check(a[2] == k[2] and a[3] == k[3] == want and
          [n for (e, l), n in a[2].items() if e == "clear->memset"] == [10],
          "external: counts or output differ (plain GCC: %r): %s" % (want, res))


X87_SRC = r"""
#include <stdio.h>
static inline long p(long x) { return x * 3 + 1; }
__attribute__((noinline)) long double f(long double a, long double b)
{
	/* live on the x87 stack across p's inlined bodies' checks */
	long double x0 = a * b, x1 = a + 3 * b, x2 = a - b;
	long k = p((long)a) + p((long)b);
	return x0 * k + x1 * p(k) + x2 * p(k + 1);
}
__attribute__((noinline)) double g(double a, double b)
{
	double x0 = a * b, x1 = a + 3 * b;
	long k = p((long)a) + p((long)b);
	return x0 * k + x1 * p(k);
}
int main(void)
{
	long double s = 0;
	double t = 0;
	for (int i = 0; i < 100; i++) {
		s += f(i, i + 0.5L);
		t += g(i, i + 0.25);
	}
	printf("%.6Lf %.6f\n", s, t);
	return 0;
}
"""


def test_x87_checks():
    """The _regs entry points keep neither the x87 nor the MMX registers,
    so the asms name them where the function may hold a value there
    (compiler-plugins/slow_regs.cc, uses_x87; naming them everywhere was
    a fifteenth of sqlite3's compile): f, which computes in long double,
    names them at every asm, g (double, in SSE registers) at none; with
    -mfpmath=387 g's doubles are x87's and its asms name them too. Both
    builds print what plain GCC's print and count p's calls."""
    c = out("x87.c")
    with open(c, "w") as fh:
        fh.write(X87_SRC)
    res = {}
    for isa in ("", "-mfpmath=387"):
        flags = ["-O2"] + ([isa] if isa else [])
        plain = out("x87-plain" + isa)
        must(["gcc"] + flags + [c, "-o", plain])
        want = must([plain]).stdout
        dump = out("x87%s.opt" % isa)
        cc(flags + ["-S", c, "-o", out("x87%s.s" % isa), "-fdump-tree-optimized=" + dump], link=False, abi=2)
        with open(dump) as fh:
            opt = fh.read()
        for fn in ("f", "g"):
            fopt = opt[opt.index(";; Function %s " % fn):]
            fopt = fopt[:fopt.index("\n}\n")]
            res[isa, fn] = (fopt.count("__asm__"), fopt.count('"st"'), fopt.count('"mm0"'))
        exe = out("x87" + isa)
        cc(flags + [c, "-o", exe], abi=2)
        tus, cyg, stdout = run_prog(exe)
        t = tus.get("x87.c", {"site": {}})
        calls = sorted(n for (e, l), (n, r) in t["site"].items() if e in ("f->p", "g->p"))
        check(stdout == want and calls == [100] * 7,
              "x87%s: output %r (plain GCC %r) or p's calls %r" % (isa, stdout, want, calls))
    f, g, g387 = res["", "f"], res["", "g"], res["-mfpmath=387", "g"]
    check(f[0] >= 4 and f[1] == f[2] == f[0] and g[0] >= 4 and g[1] == g[2] == 0 and
          g387[0] >= 4 and g387[1] == g387[0],
          "x87: asms, and those naming st and mm0: f %r (want all), g %r (want none), g with -mfpmath=387 %r "
          "(want all)" % (f, g, g387))


def test_vector_checks():
    """The _regs entry points keep the SSE registers (deepprof-abi.h), so
    in a function compiled without AVX the checks' asms do not name them
    as changed (naming them was a tenth of sqlite3's compile): f's six doubles stay in xmm registers
    across p's four inlined bodies' checks, no spill to the stack. With
    -mavx (the runtime's libc may clear the upper halves) the asms name
    them, and f spills. Both print what plain GCC's build prints and
    count the same calls (unit abi_regs test_vector_kept runs the entry
    point itself)."""
    c = out("vector.c")
    with open(c, "w") as fh:
        fh.write(VECTOR_SRC)
    plain = out("vector-plain")
    must(["gcc", "-O2", c, "-o", plain])
    want = must([plain]).stdout
    with open("/proc/cpuinfo") as fh:
        avx = " avx " in fh.read().replace("\n", " ")
    res = {}
    for isa in ("", "-mavx"):
        flags = ["-O2"] + ([isa] if isa else [])
        asm, dump = out("vector%s.s" % isa), out("vector%s.opt" % isa)
        cc(flags + ["-S", c, "-o", asm, "-fdump-tree-optimized=" + dump], link=False, abi=2)
        with open(asm) as fh:
            body = fn_asm(fh.read(), "f")
        with open(dump) as fh:
            opt = fh.read()
        fopt = opt[opt.index(";; Function f "):]
        fopt = fopt[:fopt.index("\n}\n")]
        spills = len(re.findall(r"mov[a-z]*\t%[xy]mm\d+, -?\d*\(%rsp\)", body))
        res[isa] = (fopt.count("__asm__"), fopt.count('"xmm0"'), spills)
        if isa and not avx:
            continue
        exe = out("vector" + isa)
        cc(flags + [c, "-o", exe], abi=2)
        tus, cyg, stdout = run_prog(exe)
        t = tus.get("vector.c", {"site": {}})
        check(stdout == want and sorted(n for (e, l), (n, r) in t["site"].items() if e == "f->p") == [100] * 4,
              "vector%s: output %r (plain GCC %r) or counts %r" % (isa, stdout, want, t["site"]))
    (n, clob, spills), (n_avx, clob_avx, spills_avx) = res[""], res["-mavx"]
    check(n >= 5 and clob == 0 and spills == 0,
          "without AVX f's %d asms name xmm0 %d times and f spills %d xmm registers (want 0 and 0)"
          % (n, clob, spills))
    check(n_avx >= 5 and clob_avx == n_avx and spills_avx > 0,
          "with -mavx f's %d asms name xmm0 %d times (want all) and f spills %d (want some)"
          % (n_avx, clob_avx, spills_avx))

ALT_SRC = r"""
#include <stdio.h>
__attribute__((noinline)) static int f(int x) { return x + 1; }
__attribute__((noinline)) static int g(int x) { return x * 2; }
__attribute__((noinline)) static int h(int x) { return x - 3; }
int (*volatile two[2])(int) = { f, g };
int (*volatile three[3])(int) = { f, g, h };
int main(void)
{
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s += two[i & 1](i);
	for (int i = 0; i < 300; i++)
		s += three[i % 3](i);
	printf("%d\n", s);
	return 0;
}
"""


def test_indirect_alt():
    """An indirect site tries its slot's csd's next before its slow path
    (deepprof-abi.h, schemas/plugin-abi.md "Two targets in turn"): at -O2
    (abi=2, SSA form) a site calling f and g in turn takes the slow path
    for the first call of each only, one calling three targets in turn
    every time (300); at -O0 (no such try) every change of target (1,300).
    The counts per site are the same in both."""
    c = out("alt.c")
    with open(c, "w") as fh:
        fh.write(ALT_SRC)
    want_out = "%d\n" % (sum((i + 1) if i % 2 == 0 else 2 * i for i in range(1000)) +
                         sum((i + 1, 2 * i, i - 3)[i % 3] for i in range(300)))
    for opt, slow in (("-O2", 302), ("-O0", 1300)):
        exe = out("alt" + opt)
        cc([opt, c, "-o", exe], abi=2)
        tus, cyg, stdout = run_prog(exe)
        t = tus.get("alt.c", {"site": {}, "slow": ""})
        calls = sorted(n for k, (n, r) in t["site"].items() if k[0].startswith("main->*"))
        check(stdout == want_out and calls == [300, 1000],
              "indirect alt %s: output %r (want %r), indirect sites' calls %s" % (opt, stdout, want_out, calls))
        check(t["slow"].endswith(", %d indirect" % slow), "indirect alt %s: slow paths %s, want %d indirect"
              % (opt, t["slow"], slow))


def test_estimate():
    """GCC guesses the program's branches as in the plain build: its
    "call" heuristic (a branch guarding a call is not taken) does not see
    the hooks of a call its early inliner inlined (h: the branch to it is
    50%, not 33%), with either ABI (inline_cost.cc)."""
    c = out("estimate.c")
    with open(c, "w") as f:
        f.write(ESTIMATE_SRC)
    dump = out("estimate.txt")
    must(["gcc", "-O2", "-c", c, "-o", out("estimate.o"), "-fdump-tree-profile_estimate-details=" + dump])
    plain = heuristics(dump)
    check("no prediction heuristics: 50.00%" in plain, "estimate: plain gcc's guesses %r" % plain)
    for abi in (2, 1):
        cc(["-O2", "-c", c, "-o", out("estimate.o"), "-fdump-tree-profile_estimate-details=" + dump],
           link=False, abi=abi)
        got = heuristics(dump)
        check(got == plain, "estimate abi %d: %r, plain gcc %r" % (abi, got, plain))


INLINED = re.compile(r"Inlin(?:ing|ed) (\S+) into (\S+?)\.?(?:\s|$)")


def inlined_pairs(text):
    """(callee, caller) of every inlining GCC's -fopt-info-inline-optimized
    reports, clone suffixes dropped; without a function's inlining of its
    own split part (fnsplit: X.part.0 into X), which is a shape of code
    rather than a call the program makes."""
    def base(name):
        return re.sub(r"\.(part|constprop|isra)(\.\d+)?", "", name.split("/")[0])
    pairs = set()
    for m in INLINED.finditer(text):
        callee, caller = base(m.group(1)), base(m.group(2))
        if callee != caller:
            pairs.add((callee, caller))
    return pairs


def test_inline_cost():
    """GCC's inliner weighs the program's code, not the instrumentation
    (inline_cost.cc): on inl.c, the shapes of calls plain GCC inlines in an
    interpreter (a cold argument check, a wrapper passed as a function
    pointer, a pop with a check, an accessor), the plugin build inlines
    every call the plain build does, with either ABI; with
    inline-cost=counted (GCC's own summaries, our code included) ABI v2
    inlines fewer, which is what the default prevents. Source-level counts
    are the same either way."""
    c = src("inl.c")
    info = ["-O2", "-c", c, "-fopt-info-inline-optimized"]
    plain = inlined_pairs(must(["gcc"] + info + ["-o", out("inl-plain.o")]).stderr)
    check(len(plain) >= 8, "inline cost: plain gcc inlined only %r" % sorted(plain))
    # under -fsanitize=undefined (the suite's sanitizer run) GCC weighs the
    # two builds' checks differently (pop is not inlined in the plugin
    # build): the comparison is for the builds people profile
    builds = ((2, []), (1, []), (2, ["--deepprof-arg=calls=surviving"]))
    for abi, more in (() if any("-fsanitize" in f for f in EXTRA) else builds):
        got = inlined_pairs(cc(more + info + ["-o", out("inl.o")], link=False, abi=abi).stderr)
        check(plain <= got, "inline cost, abi %d %s: plain inlines %r, the plugin build not" %
              (abi, more, sorted(plain - got)))
    counted = inlined_pairs(cc(["--deepprof-arg=inline-cost=counted"] + info + ["-o", out("inl.o")],
                               link=False, abi=2).stderr)
    check(not plain <= counted, "inline cost: inline-cost=counted inlines all plain does: %r" %
          sorted(counted))
    for extra in ([], ["--deepprof-arg=inline-cost=counted"]):
        tag = "inline cost %s" % (extra or "default")
        exe = out("inl")
        cc(extra + ["-O2", c, "-o", exe], abi=2)
        tus, cyg, stdout = run_prog(exe)
        check(stdout == "HELLO, WORLD 9 50 50\n", tag + ": output %r" % stdout)
        t = tus.get("inl.c", {"enter": {}, "site": {}})
        want = {"main": 1, "do_upper": 1, "do_first": 1, "do_sum": 1, "check_args": 3,
                "change_case": 1, "is_low": 12, "to_up": 9, "pop": 3}
        check(t["enter"] == want, tag + ": entries %r" % t["enter"])
        # value is a leaf without a prologue: its sites count it
        leaf = sum(n for (edge, loc), (n, r) in t["site"].items() if edge.endswith("->value"))
        check(leaf == 3, tag + ": calls of value %d" % leaf)


# ---------------------------------------------------------------- options, modes, errors

def test_modes():
    exe = out("p1_cyg")
    cc(["--deepprof-mode=cyg", "-O2", src("p1.c"), "-o", exe])
    tus, cyg, stdout = run_prog(exe)
    check(tus == {} and cyg == (16, 16), "cyg mode: tables %s, hooks %s" % (list(tus), cyg))

    exe = out("p1_noback")
    pf = out("p1.jsonl")
    if os.path.exists(pf):
        os.unlink(pf)
    cc(["--deepprof-arg=backedges=0", "--deepprof-arg=progrep-file=" + pf, "-O2",
        src("p1.c"), "-o", exe])
    tus, cyg, stdout = run_prog(exe)
    tu = tus.get("p1.c", {"flags": -1, "ps": [], "back": {}})
    flags = {p["name"]: p["flags"] for p in tu["ps"]}
    check(tu["flags"] == 6 and not any(tu["back"].values()) and flags.get("count_loop") == 2
          and flags.get("goto_loop") == 3, "backedges=0: %s %s" % (tu["flags"], flags))
    with open(pf) as f:
        side = [json.loads(l) for l in f if l.strip()]
    check(side == progrep(exe), "progrep-file differs from the section")

    obj = out("p1_noprogrep.o")
    cc(["--deepprof-arg=progrep=0", "-c", src("p1.c"), "-o", obj], link=False)
    check(".deepprof.progrep" not in must(["readelf", "-S", obj]).stdout, "progrep=0 still emits records")

    exe = out("p1_tickcall")
    cc(["--deepprof-arg=backedges=call", "-O2", src("p1.c"), "-o", exe], abi=0)   # selects abi 1
    tus, cyg, stdout = run_prog(exe)
    tu = tus.get("p1.c", {"flags": -1, "back": {}, "abi": 0})
    check(tu["flags"] == 15 and tu["abi"] == 1 and {k: n for k, n in tu["back"].items() if n} == P1_BACK,
          "backedges=call: flags %d, back-edges %s" % (tu["flags"], tu["back"]))
    check("dp_abi_backedge" in must(["nm", exe]).stdout
          and "dp_loop_ticks" not in must(["nm", exe]).stdout.replace("testrt", ""),
          "backedges=call: the tick is a call")

    exe = out("p4")
    cc(["-O2", src("p4.c"), "-o", exe])
    tus, cyg, stdout = run_prog(exe)
    tu = tus.get("p4.c", {"ps": [], "css": [], "flags": 7})
    check_tables("p4", tu, {"main": (4, 2, 2)},
                 {("main->nk", "p4.c:4:18"): ("external", 0, None),
                  ("main->quiet", "p4.c:4:31"): ("external", 1, None)})

    p = run([DPCC, "--help"])
    check(p.returncode == 0 and "--deepprof-mode=cyg" in p.stdout and "before inlining" in p.stdout,
          "deepprof-cc --help")
    p = run([DPCC, "--deepprof-mode=off", "-O2", src("p2help.c"), "-c", "-o", out("off.o")])
    check(p.returncode == 0 and "dp_abi_enter" not in must(["nm", out("off.o")]).stdout,
          "mode=off adds instrumentation")


def tls_relocs(obj):
    """The relocation types of obj's references to dp_cur: {type: count}."""
    kinds = {}
    for l in must(["readelf", "-rW", obj]).stdout.splitlines():
        f = l.split()
        if len(f) >= 5 and f[4] == "dp_cur":
            kinds[f[2]] = kinds.get(f[2], 0) + 1
    return kinds


def test_tls():
    """ABI v2 reaches dp_cur by local-exec in an executable's code (one
    %fs-relative access, libprof.a linked in), by initial-exec (the GOT) in
    a shared library's (-fPIC) and where deepprof-cc links a shared runtime;
    tls= chooses."""
    le, ie = "R_X86_64_TPOFF32", "R_X86_64_GOTTPOFF"
    c = ["-O2", "-g", "-c", src("p2help.c")]
    cases = [("executable (-fPIE, libprof.a)", [DPCC] + EXTRA + c, le),
             ("-fno-pie", [DPCC, "-fno-pie"] + EXTRA + c, le),
             ("shared library (-fPIC)", [DPCC, "-fPIC"] + EXTRA + c, ie),
             ("a shared runtime", [DPCC, "--deepprof-runtime=" + RT] + EXTRA + c, ie),
             ("a shared runtime named lib.so.1", [DPCC, "--deepprof-runtime=" + RT + ".1"] + EXTRA + c, ie),
             ("an archive runtime named lib.so.a", [DPCC, "--deepprof-runtime=" + out("libtls.so.a")]
              + EXTRA + c, le),
             ("a shared runtime, tls=local-exec", [DPCC, "--deepprof-runtime=" + RT,
                                                   "--deepprof-arg=tls=local-exec"] + EXTRA + c, le),
             ("-fPIC, tls=local-exec", [DPCC, "-fPIC", "--deepprof-arg=tls=local-exec"] + EXTRA + c, le),
             ("tls=initial-exec", [DPCC, "--deepprof-arg=tls=initial-exec"] + EXTRA + c, ie)]
    for name, target in ((RT + ".1", RT), (out("libtls.so.a"), LIBPROF_A)):
        if os.path.lexists(name):
            os.unlink(name)
        os.symlink(target, name)
    for i, (tag, cmd, want) in enumerate(cases):
        obj = out("tls%d.o" % i)
        must(cmd + ["-o", obj])
        got = tls_relocs(obj)
        check(list(got) == [want],
              "tls, %s: dp_cur's relocations %r, want only %s" % (tag, got, want))
    # both at once, with libprof: an executable's local-exec code and a
    # shared library's initial-exec code (p2lib.c calls back cb 4 times)
    # count on the same dp_cur
    lib, exe, data = out("libtlsp2.so"), out("tls-p2"), out("tls-p2.data")
    must([DPCC, "-O2", "-g", "-shared", "-fPIC"] + EXTRA + ["-o", lib, src("p2lib.c")])
    must([DPCC, "-O2", "-g"] + EXTRA + ["-o", exe, src("p2main.c"), src("p2help.c"), lib,
                                        "-Wl,-rpath," + OUT])
    check(list(tls_relocs(lib)) == ["R_X86_64_TPOFF64"],
          "tls: the library reaches dp_cur through the GOT (a dynamic TPOFF64: %r)" % tls_relocs(lib))
    if os.path.exists(data):
        os.unlink(data)
    p = run([exe], env={"DEEPPROF_FILE": data, "DEEPPROF_HZ": "0"})
    if check(p.returncode == 0 and os.path.exists(data),
             "tls: the mixed build runs and writes Deep.data (%d: %s)" % (p.returncode, p.stderr[-300:])):
        doc = json.loads(must([DEEPPROF, "dump", "--json", data]).stdout)
        calls = {(c["caller"], c["callee"]): c["calls"] for c in doc["csd"]}
        check(calls.get(("lib_sum", "cb")) == 4 and calls.get(("cb", "helper")) == 4 and
              calls.get(("main", "lib_sum")) == 1,
              "tls: main -> lib_sum 1, lib_sum -> cb 4, cb -> helper 4 (%r)" % calls)


def test_make_project():
    """`make CC=deepprof-cc` on a tiny project, cyg mode, the real libprof and deepprof dump."""
    libprof = os.path.join(BUILD, "lib", "libprof.a")
    dump = os.path.join(BUILD, "bin", "deepprof")
    if not (os.path.exists(libprof) and os.path.exists(dump)):
        print("check-plugin: skipping the make CC=deepprof-cc test (no libprof.a or deepprof yet)")
        return
    d = out("mkproj")
    os.makedirs(d, exist_ok=True)
    with open(src("p1.c")) as f, open(os.path.join(d, "p1.c"), "w") as g:
        g.write(f.read())
    with open(os.path.join(d, "Makefile"), "w") as f:
        f.write("prog: p1.o\n\t$(CC) -o prog p1.o\np1.o: p1.c\n\t$(CC) -g -O1 -c p1.c\n")
    for name in ("prog", "p1.o", "Deep.data"):
        if os.path.exists(os.path.join(d, name)):
            os.unlink(os.path.join(d, name))
    must(["make", "-s", "-C", d, "CC=" + DPCC], env={"DEEPPROF_MODE": "cyg", "MAKEFLAGS": ""})
    p = subprocess.run([os.path.join(d, "prog")], cwd=d, capture_output=True, text=True)
    check(p.returncode == 0 and p.stdout == "2 2 5 3 5 25 ok\n", "make project: run %r" % p.stderr)
    p = run([dump, "dump", "--json", os.path.join(d, "Deep.data")])
    if not check(p.returncode == 0, "make project: deepprof dump: %s" % p.stderr.strip()):
        return
    calls = {}
    for c in json.loads(p.stdout)["csd"]:
        calls[c["callee"]] = calls.get(c["callee"], 0) + c["calls"]
    check(calls == P1_ENTER, "make project: calls per callee %s" % calls)


def expect_error(tag, args, rc_ok, needle, env=None):
    p = run(args, env)
    err = p.stderr
    ok = rc_ok(p.returncode) and needle in err and "internal compiler error" not in err
    check(ok, "%s: rc %d, stderr %r" % (tag, p.returncode, err[-400:]))
    lines = [l for l in err.splitlines() if "deepprof" in l]
    check(len(lines) >= 1, tag + ": no one-line message")


def test_errors():
    c = ["-c", src("p2help.c"), "-o", out("err.o")]
    nz = lambda rc: rc != 0
    two = lambda rc: rc == 2
    g = ["gcc", "-fplugin=" + PLUGIN]
    expect_error("unknown plugin argument", g + ["-fplugin-arg-deepprof-bogus=1"] + c, nz,
                 "unknown argument '-fplugin-arg-deepprof-bogus'")
    expect_error("bad plugin value", g + ["-fplugin-arg-deepprof-progrep=maybe"] + c, nz,
                 "expected 0 or 1")
    expect_error("unwritable progrep file", g + ["-fplugin-arg-deepprof-progrep-file=/nonexistent/x.jsonl"] + c,
                 nz, "cannot write progrep file '/nonexistent/x.jsonl'")
    expect_error("bad calls=", g + ["-fplugin-arg-deepprof-calls=fast"] + c, nz,
                 "expected 'source' or 'surviving'")
    expect_error("bad abi=", g + ["-fplugin-arg-deepprof-abi=3"] + c, nz, "expected 1 or 2")
    expect_error("bad inline-cost=", g + ["-fplugin-arg-deepprof-inline-cost=free"] + c, nz,
                 "expected 'counted' or 'plain'")
    expect_error("bad tls=", g + ["-fplugin-arg-deepprof-tls=global-dynamic"] + c, nz,
                 "expected 'initial-exec' or 'local-exec'")
    expect_error("bad slow-calls=", g + ["-fplugin-arg-deepprof-slow-calls=fast"] + c, nz,
                 "expected 'plain' or 'regs'")
    expect_error("bad site-checks=", g + ["-fplugin-arg-deepprof-site-checks=inline"] + c, nz,
                 "expected 'blocks', 'check' or 'asm'")
    expect_error("bad prologues=", g + ["-fplugin-arg-deepprof-prologues=late"] + c, nz,
                 "expected 'entry' or 'lazy'")
    expect_error("abi=2 and calls=surviving under -flto",
                 g + ["-flto", "-fplugin-arg-deepprof-abi=2", "-fplugin-arg-deepprof-calls=surviving"] + c, nz,
                 "'-fplugin-arg-deepprof-calls=surviving' needs 'abi=1' under '-flto'")
    for k in ("use", "check"):
        expect_error("abi=2 and calls=surviving in a %s build" % k,
                     g + ["-fplugin-arg-deepprof-abi=2", "-fplugin-arg-deepprof-calls=surviving",
                          "-fplugin-arg-deepprof-%s=%s" % (k, src("p2help.c"))] + c, nz,
                     "'-fplugin-arg-deepprof-calls=surviving' needs 'abi=1' under '-flto' and in use "
                     "and check builds")
    expect_error("abi=2 and backedges=call",
                 g + ["-fplugin-arg-deepprof-abi=2", "-fplugin-arg-deepprof-backedges=call"] + c, nz,
                 "'-fplugin-arg-deepprof-backedges=call' needs 'abi=1'")
    expect_error("wrapper: unknown option", [DPCC, "--deepprof-bogus"] + c, two,
                 "deepprof-cc: unknown option --deepprof-bogus")
    expect_error("wrapper: bad mode", [DPCC, "--deepprof-mode=fast"] + c, two, "unknown mode")
    for v in (["-fsanitize=address"], ["-fsanitize=undefined,address"], ["--deepprof-mode=cyg", "-fsanitize=address"]):
        expect_error("wrapper: linking %s" % " ".join(v), [DPCC] + v + [src("p1.c"), "-o", out("asan")], two,
                     "-fsanitize=address: a program linked with libprof cannot run under AddressSanitizer")
    # compiling alone, or with ASan taken back, is no error
    must([DPCC, "-fsanitize=address", "-c", src("p2help.c"), "-o", out("asan.o")])
    must([DPCC, "-fsanitize=address", "-fno-sanitize=address", src("p1.c"), "-o", out("noasan")])
    expect_error("wrapper: clang", [DPCC, "--deepprof-cc=clang"] + c, two,
                 "plugin mode needs GCC")
    expect_error("wrapper: output dir", [DPCC, "-c", src("p2help.c"), "-o", "/nonexistent/dir/x.o"],
                 two, "cannot write output file /nonexistent/dir/x.o")
    fake = out("fake-gcc")
    with open(fake, "w") as f:
        f.write('#!/bin/sh\nif [ "$1" = -dumpfullversion ]; then echo 11.3.0; exit 0; fi\nexec gcc "$@"\n')
    os.chmod(fake, 0o755)
    expect_error("wrapper: other GCC", [DPCC, "--deepprof-cc=" + fake] + c, two,
                 "is GCC 11.3.0 but the deepprof plugin was built for GCC")
    expect_error("wrapper: missing plugin", [DPCC, "--deepprof-plugin=/nonexistent/deepprof.so"] + c,
                 two, "cannot read the deepprof GCC plugin /nonexistent/deepprof.so")
    # -fchecking=2 is quiet at every level
    for v in VARIANTS:
        p = run(["gcc", "-fplugin=" + PLUGIN, "-fchecking=2", "-c", src("p1.c"), "-o", out("chk.o")] + v)
        check(p.returncode == 0 and p.stderr == "", "-fchecking=2 %s: %r" % (v, p.stderr[-400:]))


def main():
    os.makedirs(OUT, exist_ok=True)
    for t in (test_p1, test_p2, test_p3, test_abi2, test_vectorized, test_tick_register, test_tick_asm, test_late_leaf, test_lean_sites, test_devirt_sites, test_slow_regs, test_site_asm, test_pending_exits, test_lazy_prologue, test_lazy_pd, test_external_tag, test_vector_checks, test_x87_checks, test_indirect_alt, test_estimate, test_inline_cost, test_modes, test_tls, test_make_project, test_errors):
        t()
    print("plugin: %d passed, %d failed" % (n_checks - len(failures), len(failures)))
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
