"""check_dump.py — assert the call counts of hello.c in `deepprof dump --json`.
usage: check_dump.py FINAL SNAPSHOT: JSON dumps of the final profile and of the
dp_write() snapshot. Prints one "ok"/"FAIL" line per check; exit 1 on a FAIL.
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


with open(sys.argv[1]) as f:
    final = json.load(f)
with open(sys.argv[2]) as f:
    snap = json.load(f)

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
sys.exit(1 if failed else 0)
