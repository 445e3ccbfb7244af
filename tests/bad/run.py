#!/usr/bin/python3
"""tests/bad/run.py — the bad-input suite (make check-bad).

Feeds `deepprof dump FILE` and `deepprof dump --json FILE` missing, empty,
truncated, flipped, wrong-magic, future-version, garbage and trailing-data
Deep.data files, and bad options. Each must exit 2 with exactly one line on
stderr naming the file (options: one line), print nothing on stdout, and
never crash: an exit status >= 128 or a sanitizer report is a failure.
A few valid files must still dump (exit 0). Last line:
"bad-input: N passed, N failed".

usage: run.py BIN_DIR WORK_DIR   (BIN_DIR holds deepprof and dp-gen)
Part of deepprof's tests. MIT licence.
"""
import json
import os
import random
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import dptest  # noqa: E402  (tests/lib: the runner loop and tally)

BIN, WORK = sys.argv[1], sys.argv[2]
DEEPPROF = os.path.join(BIN, "deepprof")
DPGEN = os.path.join(BIN, "dp-gen")
T = dptest.Tally("bad-input")


def report(ok, what, why=""):
    T.result(ok, what, why, show_ok=False)


def run(args):
    try:
        r = subprocess.run([DEEPPROF] + args, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return None
    return r


def crashed(r):
    err = r.stderr.decode("utf-8", "replace")
    if r.returncode < 0 or r.returncode >= 128:
        return "killed or crashed (status %d)" % r.returncode
    if "Sanitizer" in err or "runtime error:" in err:
        return "sanitizer report: " + err.strip().splitlines()[0]
    return None


def expect_bad(path, what, must_contain=None):
    """Both dump modes reject path: exit 2, one stderr line naming it."""
    for mode in ([], ["--json"]):
        label = "%s %s" % (what, " ".join(mode) or "text")
        r = run(["dump"] + mode + [path])
        if r is None:
            report(False, label, "timed out")
            continue
        why = crashed(r)
        err = r.stderr.decode("utf-8", "replace")
        lines = err.splitlines()
        if not why and r.returncode != 2:
            why = "exit %d, not 2 (stderr: %r)" % (r.returncode, err[:200])
        if not why and (len(lines) != 1 or not err.endswith("\n")):
            why = "%d lines on stderr, not 1: %r" % (len(lines), err[:300])
        if not why and not lines[0].startswith(path + ": "):
            why = "the message does not start with the file name: %r" % lines[0]
        if not why and must_contain and must_contain not in lines[0]:
            why = "%r not in %r" % (must_contain, lines[0])
        if not why and r.stdout:
            why = "partial output on stdout (%d bytes)" % len(r.stdout)
        report(not why, label, why)


def expect_usage(args, what):
    r = run(args)
    if r is None:
        report(False, what, "timed out")
        return
    why = crashed(r)
    err = r.stderr.decode("utf-8", "replace")
    if not why and r.returncode != 2:
        why = "exit %d, not 2" % r.returncode
    if not why and len(err.splitlines()) != 1:
        why = "%d lines on stderr, not 1: %r" % (len(err.splitlines()), err[:300])
    report(not why, what, why)


def gen(name, *args):
    path = os.path.join(WORK, name)
    subprocess.run([DPGEN, "-o", path] + list(args), check=True)
    return path


def write(name, data):
    path = os.path.join(WORK, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    rng = random.Random(20261121)

    # files that are not there or not files
    expect_bad(os.path.join(WORK, "missing.dp"), "missing file",
               "cannot open: No such file or directory")
    expect_bad(write("empty.dp", b""), "empty file", "empty file")
    os.makedirs(os.path.join(WORK, "a-directory"))
    expect_bad(os.path.join(WORK, "a-directory"), "directory", "Is a directory")

    # not Deep.data at all
    expect_bad(write("text.dp", b"hello, world\n"), "text", "not a Deep.data file")
    expect_bad(write("zeros.dp", bytes(4096)), "zeros", "not a Deep.data file")
    expect_bad(write("garbage.dp", bytes(rng.getrandbits(8) for _ in range(5000))),
               "random garbage")
    expect_bad(write("ff.dp", b"\xff" * 100), "0xff bytes", "not a Deep.data file")
    # a map claiming 2^32-1 entries, an array claiming 2^32-1 elements
    expect_bad(write("hugemap.dp", b"\xdf\xff\xff\xff\xff\xa5magic"), "huge map claim")
    expect_bad(write("hugearr.dp", b"\xdd\xff\xff\xff\xff\x01"), "huge array claim")

    # one deliberate defect each
    expected = {
        "magic": "not a Deep.data file",
        "version": "format version 7 is newer than this deepprof (2)",
        "min-version": "format version 3 is newer than this deepprof (2)",
        "missing-key": "no 'pid' key",
        "key-type": "'pid' is not an unsigned integer",
        "not-map": "not a Deep.data file",
        "ref": "refers to pd",
        "order": "module record after a css record",
        "id": "out of sequence",
        "kind": "unknown record kind 4",
        "len": "pd record has 4 elements",
        "css-kind": "css kind 9",
        "root": "not of ps 1",
        "unreachable": "is not reachable from any thread's root",
        "shared": "is reachable from the roots of threads",
        "crc": "checksum mismatch",
        "count": "END says",
        "no-end": "truncated: no END record",
        "trailing": "bytes of data after the END record",
        "ps1": "ps 1 is not the synthetic <root>",
        "clock": "'clock' is \"ticks\", not \"calls\" or \"calls+loops\"",
    }
    for what, msg in expected.items():
        path = gen("corrupt-%s.dp" % what, "--shape=tree", "--csds=40", "--threads=2",
                   "--corrupt=" + what)
        expect_bad(path, "--corrupt=" + what, msg)

    # truncation: every byte of a small file, ~200 offsets of a bigger one
    small = open(gen("small.dp", "--shape=mutual", "--csds=7", "--threads=2"), "rb").read()
    for n in range(len(small)):
        expect_bad(write("cut-small.dp", small[:n]), "small file cut at %d" % n,
                   "empty file" if n == 0 else "truncated")
    big = open(gen("big.dp", "--shape=tree", "--csds=30000", "--threads=3"), "rb").read()
    for k in range(200):
        n = k * (len(big) - 1) // 199
        expect_bad(write("cut-big.dp", big[:n]), "big file cut at %d" % n,
                   "empty file" if n == 0 else "truncated")

    # random byte flips, and random bytes overwritten
    for k in range(150):
        data = bytearray(small)
        at = rng.randrange(len(data))
        data[at] ^= 1 << rng.randrange(8)
        expect_bad(write("flip.dp", bytes(data)), "bit flip at %d" % at)
    mid = bytearray(big)
    for k in range(40):
        data = bytearray(mid)
        at = rng.randrange(len(data))
        data[at] = (data[at] + 1 + rng.randrange(255)) % 256
        expect_bad(write("flip-big.dp", bytes(data)), "byte changed at %d of the big file" % at)

    # data after END
    expect_bad(write("trailing.dp", small + b"\x00"), "one byte after END", "after the END record")
    expect_bad(write("twice.dp", small + small), "the file twice", "after the END record")

    # options
    valid = gen("valid.dp", "--shape=chain", "--csds=4")
    expect_usage(["dump"], "dump without FILE")
    expect_usage(["dump", "--bogus", valid], "dump --bogus")
    expect_usage(["dump", valid, valid], "dump with two files")
    expect_usage(["dump", "-x", valid], "dump -x")
    expect_usage(["bogus"], "unknown command")
    expect_usage(["--bogus"], "unknown option")
    expect_usage([], "no command")
    expect_usage(["help", "bogus"], "help for an unknown command")

    # valid files still dump, both ways, with the right counts
    for args in (["dump", valid], ["dump", "--json", valid], ["dump", valid, "--json"]):
        r = run(args)
        why = crashed(r) if r else "timed out"
        if not why and r.returncode != 0:
            why = "exit %d: %r" % (r.returncode, r.stderr[:300])
        if not why and "--json" in args:
            try:
                doc = json.loads(r.stdout)
                if len(doc["csd"]) != 4 or len(doc["pd"]) != 5 or doc["file"] != valid:
                    why = "wrong counts in the JSON"
                elif doc["csd"][1]["caller_pd"] != 2 or doc["header"]["version"] != 1:
                    why = "wrong values in the JSON"
            except (ValueError, KeyError, IndexError) as e:
                why = "bad JSON: %s" % e
        report(not why, "valid file: " + " ".join(args[:-1] if args[-1] == valid else args), why)

    return T.end()


sys.exit(main())
