"""check_dump.py — assert the counts of check-install's programs in
`deepprof dump --json` output.
usage: check_dump.py hello FINAL SNAPSHOT   hello.c's final profile and its
                                            dp_write() snapshot
       check_dump.py loops PROFILE          loops.c built with deepprof-cc
Prints one "ok"/"FAIL" line per check; exit 1 on a FAIL.
Part of deepprof's tests. MIT licence."""
import json
import sys

failed = 0


def check(cond, what):
    global failed
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failed += 1


def calls(doc, caller, callee, field="calls"):
    return sum(c[field] for c in doc["csd"]
               if c["caller"] == caller and c["callee"] == callee)


def load(path):
    with open(path) as f:
        return json.load(f)


def hello(final, snap):
    check(final["header"]["magic"] == "deepprof" and final["header"]["version"] == 1,
          "final: magic deepprof, version 1")
    check(final["header"]["final"] is True, "final: header final is true")
    check(calls(final, "main", "mid") == 2, "final: main calls mid 2 times")
    check(calls(final, "mid", "leaf") == 6, "final: mid calls leaf 6 times")
    check(calls(final, "mid", "leaf", "exits") == 6, "final: leaf exits 6 times")
    check(all(c["calls"] == c["exits"] + c["nonlocal_exits"] for c in final["csd"]),
          "final: calls == exits + nonlocal_exits on every csd")
    check(snap["header"]["final"] is False, "snapshot: header final is false")
    check(calls(snap, "mid", "leaf") == 6, "snapshot: mid had called leaf 6 times")
    check(calls(snap, "main", "mid", "exits") == 2, "snapshot: mid had exited 2 times")


def loops(doc):
    # One call tick per call plus one tick per loop back-edge taken.
    check(doc["header"]["clock"] == "calls+loops", "deepprof-cc: clock is calls+loops")
    check(calls(doc, "main", "leaf") == 4, "deepprof-cc: main calls leaf 4 times")
    check(calls(doc, "main", "leaf", "cscs") == 10,
          "deepprof-cc: main->leaf cscs 10 (4 calls + 6 back-edges in leaf)")
    check(calls(doc, "<root>", "main", "cscs") == 5,
          "deepprof-cc: <root>->main cscs 5 (1 call + 4 back-edges in main)")


if sys.argv[1:2] == ["hello"] and len(sys.argv) == 4:
    hello(load(sys.argv[2]), load(sys.argv[3]))
elif sys.argv[1:2] == ["loops"] and len(sys.argv) == 3:
    loops(load(sys.argv[2]))
else:
    sys.exit("usage: check_dump.py hello FINAL SNAPSHOT | loops PROFILE")
sys.exit(1 if failed else 0)
