#!/usr/bin/python3
"""tests/fuzz/run.py — structure-aware fuzzing of everything that reads a
Deep.data file (make check-fuzz).

tests/bad flips bytes, and the END record's crc32 rejects almost all of
those before any analysis runs. Here the mutants are made on the decoded
records (python3-msgpack): an integer set to a boundary or random value, a
field of another type, a field or a record removed, duplicated or moved, a
header key dropped, changed or added, two ids swapped. Then the END record
gets counts and a crc32 that match, so each mutant reaches the reader's
checks of meaning (ids, references, kinds, the graph) and, when it passes
them, the analyses. Seeds: dp-gen profiles of every shape (the recursive
one with the optional split of recursions, `inside`, added).

Every mutant goes to `deepprof dump --json`. It must exit 0, or exit 2 with
one line on stderr naming the file. When dump accepts it, the file is a
profile, and every report, export, merge, diff and feedback --no-progrep
over it must work (exit 0) too: an exit 2 there means the reader let
through something the analyses cannot take. No run may crash (a signal,
exit >= 128, a sanitizer report) or hang (60 s). Deterministic for a seed.

usage: run.py BIN_DIR WORK_DIR [--mutants N] [--seed S]
Last line: "fuzz: N passed, N failed". Part of deepprof's tests. MIT licence.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import zlib

import msgpack

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import dptest  # noqa: E402  (tests/lib: the tally)

END = 9
TAGS = (1, 2, 3, 5, 6, 7)        # MODULE PS CSS PD CSD THREAD, as END counts them
BOUNDARY = [0, 1, 2, 3, 255, 256, 65535, 65536, 2**31 - 1, 2**31, 2**32 - 1, 2**32,
            2**63 - 1, 2**63, 2**64 - 1]


def decode(data):
    u = msgpack.Unpacker(raw=False, strict_map_key=False, unicode_errors="surrogateescape")
    u.feed(data)
    return list(u)


def pack(o):
    return msgpack.packb(o, use_bin_type=True, unicode_errors="surrogateescape")


def encode(objs):
    """objs with the END record's counts and crc32 made to match."""
    body = [o for o in objs if not (isinstance(o, list) and o and o[0] == END)]
    ends = [o for o in objs if isinstance(o, list) and o and o[0] == END]
    out = b"".join(pack(o) for o in body)
    if ends:
        end = list(ends[-1])
        counts = {k: 0 for k in TAGS}
        for o in body:
            if isinstance(o, list) and o and isinstance(o[0], int) and o[0] in counts:
                counts[o[0]] += 1
        if len(end) == 2 + len(TAGS):
            for i, k in enumerate(TAGS):
                end[1 + i] = counts[k]
        end[-1] = zlib.crc32(out) & 0xffffffff
        out += pack(end)
    return out


def other_type(rng, v):
    return rng.choice([None, True, -1, -(2**40), 1.5, float("nan"), b"x", "x",
                       [], {}, [v], {"k": v}, 2**64 - 1])


def paths(o, at=()):
    """Every (path, value) below o, for changing one leaf."""
    yield at, o
    if isinstance(o, list):
        for i, v in enumerate(o):
            yield from paths(v, at + (i,))
    elif isinstance(o, dict):
        for k, v in o.items():
            yield from paths(v, at + (k,))


def put(o, path, v):
    for p in path[:-1]:
        o = o[p]
    o[path[-1]] = v


def mutate(rng, objs):
    """A copy of objs with one to three random changes; the change's name."""
    objs = [decode(pack(o))[0] for o in objs]   # deep copy
    what = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        i = rng.randrange(len(objs))
        o = objs[i]
        op = rng.choice(["int", "int", "int", "type", "drop-field", "dup-field", "drop-rec",
                         "dup-rec", "move-rec", "swap-ids", "key", "str"])
        leaves = [(p, v) for p, v in paths(o) if p]
        if op == "int":
            ints = [(p, v) for p, v in leaves if isinstance(v, int) and not isinstance(v, bool)
                    and p != (0,)]
            if not ints:
                continue
            p, v = rng.choice(ints)
            nv = rng.choice(BOUNDARY + [v + 1, max(v - 1, 0), v * 2, rng.randrange(64)])
            put(o, p, nv)
            what.append("record %d %s: %r -> %r" % (i, p, v, nv))
        elif op == "type" and leaves:
            p, v = rng.choice(leaves)
            nv = other_type(rng, v)
            put(o, p, nv)
            what.append("record %d %s: %r -> type %s" % (i, p, v, type(nv).__name__))
        elif op in ("drop-field", "dup-field") and isinstance(o, list) and len(o) > 1:
            k = rng.randrange(1, len(o))
            if op == "drop-field":
                del o[k]
            else:
                o.insert(k, o[k])
            what.append("record %d: field %d %s" % (i, k, op[:4]))
        elif op == "drop-rec" and len(objs) > 2:
            del objs[i]
            what.append("record %d dropped" % i)
        elif op == "dup-rec":
            objs.insert(i, o)
            what.append("record %d duplicated" % i)
        elif op == "move-rec" and len(objs) > 2:
            j = rng.randrange(len(objs))
            objs.insert(j, objs.pop(i))
            what.append("record %d moved to %d" % (i, j))
        elif op == "swap-ids":
            j = rng.randrange(len(objs))
            a, b = objs[i], objs[j]
            if isinstance(a, list) and isinstance(b, list) and len(a) > 1 and len(b) > 1:
                a[1], b[1] = b[1], a[1]
                what.append("ids of records %d and %d swapped" % (i, j))
        elif op == "key" and isinstance(o, dict) and o:
            k = rng.choice(list(o))
            r = rng.random()
            if r < 0.4:
                del o[k]
                what.append("header key %r dropped" % k)
            elif r < 0.8:
                o[k] = rng.choice(BOUNDARY + [other_type(rng, o[k])])
                what.append("header key %r -> %r" % (k, o[k]))
            else:
                o["fuzz_%d" % rng.randrange(100)] = other_type(rng, 0)
                what.append("header key added")
        elif op == "str":
            strs = [(p, v) for p, v in leaves if isinstance(v, (bytes, str))]
            if not strs:
                continue
            p, v = rng.choice(strs)
            nv = rng.choice(["", "\udcff\udcfe", "a" * 5000, "x\x00y", "%s%n", "../../etc",
                             "\u00e9\u4e2d", ":::", "\n", b"bin"])
            put(o, p, nv)
            what.append("record %d %s: string -> %r" % (i, p, nv[:20]))
    return objs, "; ".join(what) or "unchanged"


def crashed(r, err):
    if r.returncode < 0 or r.returncode >= 128:
        return "signal/exit %d" % r.returncode
    if "Sanitizer" in err or "runtime error:" in err or "AddressSanitizer" in err:
        return "sanitizer: " + err[:400]
    return None


def call(args, timeout=60):
    try:
        r = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout,
                           env=dict(os.environ, LC_ALL="C"))
    except subprocess.TimeoutExpired:
        return None, "hung (more than %d s)" % timeout
    return r, r.stderr.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("work")
    ap.add_argument("--mutants", type=int, default=int(os.environ.get("DP_FUZZ_MUTANTS", "400")))
    ap.add_argument("--seed", type=int, default=20261122)
    a = ap.parse_args()
    T = dptest.Tally("fuzz")
    dp = os.path.join(a.bin, "deepprof")
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    seeds = []
    for shape, n in (("tree", 40), ("recursive", 30), ("mutual", 30), ("threads", 40),
                     ("chain", 20), ("wide", 20)):
        path = os.path.join(a.work, "seed-%s.dp" % shape)
        subprocess.run([os.path.join(a.bin, "dp-gen"), "--shape=" + shape, "--csds=%d" % n,
                        "--threads=2", "-o", path], check=True)
        with open(path, "rb") as f:
            data = f.read()
        objs = decode(data)
        if not T.check(encode(objs) == data, "%s: re-encoding the seed gives its bytes back" % shape):
            return T.end()
        if shape == "recursive":
            # the optional split of recursions (schemas/deep-data.md, inside)
            # on its self-recursive csds, so that its checks are fuzzed too
            rec = [o[1] for o in objs if isinstance(o, list) and o[0] == 6 and o[3] == o[4]]
            T.check(bool(rec), "recursive: the seed has self-recursive csds")
            objs[0]["inside_samples"] = 100
            objs[0]["inside"] = [x for i, c in enumerate(rec) for x in (c, 10 + i)]
            with open(path, "wb") as f:
                f.write(encode(objs))
            r, err = call([dp, "dump", "--json", path])
            if not T.check(r is not None and r.returncode == 0,
                           "recursive: the seed with inside reads: %s" % err.strip()):
                return T.end()
        seeds.append((shape, objs))
    rng = random.Random(a.seed)
    accepted = 0
    mut = os.path.join(a.work, "mutant.dp")
    for n in range(a.mutants):
        shape, objs = seeds[n % len(seeds)]
        m, what = mutate(rng, objs)
        with open(mut, "wb") as f:
            f.write(encode(m))
        name = "mutant %d (%s: %s)" % (n, shape, what)
        r, err = call([dp, "dump", "--json", mut])
        why = err if r is None else crashed(r, err)
        if not why and r.returncode not in (0, 2):
            why = "dump: exit %d" % r.returncode
        if not why and r.returncode == 2 and (len(err.splitlines()) != 1 or mut not in err):
            why = "dump: stderr is not one line naming the file: %r" % err[:300]
        if why or r.returncode == 2:
            T.result(not why, name, why, show_ok=False)
            continue
        accepted += 1
        out = os.path.join(a.work, "out")
        for args in (["report", mut, "summary"], ["report", mut, "top", "--total"],
                     ["report", mut, "recursion", "--json"], ["report", mut, "callers", "main"],
                     ["report", mut, "clique", "1"], ["report", mut, "top", "--html"],
                     ["export", "--format=folded", mut], ["export", "--format=callgrind", mut],
                     ["export", "--format=speedscope", mut], ["merge", "--force", mut, mut, "-o", out],
                     ["diff", mut, seeds_file(a.work, shape)],
                     ["feedback", "--no-progrep", mut, "-o", out + ".json"]):
            r, err = call([dp] + args)
            why = err if r is None else crashed(r, err)
            if not why and r.returncode != 0 and not (r.returncode == 2 and allowed(args, err)):
                why = "exit %d: %s" % (r.returncode, err.strip()[:300])
            if why:
                break
        T.result(not why, name + ": " + " ".join(args[:2]), why, show_ok=False)
    print("(%d of %d mutants read as profiles and went through every analysis)"
          % (accepted, a.mutants))
    return T.end()


def seeds_file(work, shape):
    return os.path.join(work, "seed-%s.dp" % shape)


def allowed(args, err):
    """A refusal that is right for a valid profile (exit 2, one line): a
    name or clique the mutant no longer has, two profiles that are not of
    one program, costs whose sums do not fit in 64 bits."""
    return err.count("\n") == 1 and any(s in err for s in (
        "no procedure", "no clique", "not a clique", "different program", "no such",
        "overflow", "too large", "does not fit", "different clocks"))


if __name__ == "__main__":
    sys.exit(main())
