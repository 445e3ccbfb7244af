"""callgrind.py — read a callgrind output file (valgrind --tool=callgrind)
into caller→callee call counts. Part of deepprof's cross-check (tests/xcheck).
MIT licence.

Only what arcs need is interpreted: the position specifications fn/cfn
(and cfi/cfl/fl/fi/fe, ob/cob for name compression) and `calls=` lines.
Name compression: `fn=(7) name` defines id 7 in the function namespace,
`fn=(7)` refers back to it; fn and cfn share a namespace, so do
fl/fi/fe/cfi/cfl, and ob/cob.
"""

import re

_RECURSION_SUFFIX = re.compile(r"'[0-9]+$")


class CallgrindError(Exception):
    """A malformed callgrind file: str() is one line naming the file."""


class Profile:
    """arcs: {(caller, callee): calls}, names with callgrind's 'N recursion
    suffix removed; objects: {function name: set of object paths};
    cmd: the profiled command line."""

    def __init__(self):
        self.arcs = {}
        self.objects = {}
        self.cmd = None

    def add_fn(self, name, ob):
        self.objects.setdefault(name, set()).add(ob)


def _namespace(key):
    if key in ("fn", "cfn"):
        return "fn"
    if key in ("ob", "cob"):
        return "ob"
    return "fl"


def parse(path):
    """Parse the callgrind file at `path`; raise CallgrindError or OSError."""
    names = {"fn": {}, "fl": {}, "ob": {}}
    prof = Profile()

    def resolve(key, value, lineno):
        # "(id) name", "(id)" or "name"
        ns = names[_namespace(key)]
        if value.startswith("("):
            close = value.find(")")
            if close < 0 or not value[1:close].isdigit():
                raise CallgrindError("%s:%d: bad compressed name %r" % (path, lineno, value))
            ident = int(value[1:close])
            rest = value[close + 1:].strip()
            if rest:
                ns[ident] = rest
                return rest
            if ident not in ns:
                raise CallgrindError("%s:%d: %s=(%d) used before it was defined"
                                     % (path, lineno, key, ident))
            return ns[ident]
        return value.strip()

    def strip(name):
        return _RECURSION_SUFFIX.sub("", name)

    ob = fn = None
    cob = cfn = None
    pending_call = False       # a calls= line wants its cost line next
    seen_header = False
    with open(path, "r", encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if pending_call:
                # the cost line of the call: position then costs; skip it
                pending_call = False
                if line and (line[0].isdigit() or line[0] in "+-*"):
                    continue
                raise CallgrindError("%s:%d: calls= line not followed by a cost line"
                                     % (path, lineno))
            if not line or line.startswith("#"):
                continue
            if not seen_header:
                if not (line.startswith("version:") or line.startswith("# callgrind")):
                    raise CallgrindError("%s: not a callgrind file (no version: header)" % path)
                seen_header = True
            eq = line.find("=")
            colon = line.find(":")
            if eq > 0 and (colon < 0 or eq < colon) and re.match(r"^[a-z]+=", line):
                key, value = line[:eq], line[eq + 1:]
                if key == "ob":
                    ob = resolve(key, value, lineno)
                elif key == "fn":
                    fn = strip(resolve(key, value, lineno))
                    prof.add_fn(fn, ob)
                    cob = cfn = None
                elif key == "cob":
                    cob = resolve(key, value, lineno)
                elif key == "cfn":
                    cfn = strip(resolve(key, value, lineno))
                elif key in ("fl", "fi", "fe", "cfi", "cfl"):
                    resolve(key, value, lineno)
                elif key == "calls":
                    fields = value.split()
                    if not fields or not fields[0].isdigit():
                        raise CallgrindError("%s:%d: bad calls= line" % (path, lineno))
                    if fn is None or cfn is None:
                        raise CallgrindError("%s:%d: calls= without fn= and cfn="
                                             % (path, lineno))
                    callee_ob = cob if cob is not None else ob
                    prof.add_fn(cfn, callee_ob)
                    arc = (fn, cfn)
                    prof.arcs[arc] = prof.arcs.get(arc, 0) + int(fields[0])
                    pending_call = True
                    # cob/cfn hold for the next calls= only
                    cob = cfn = None
                elif key in ("jump", "jcnd"):
                    pending_call = True
                # other keys: ignore
                continue
            if colon > 0 and re.match(r"^[a-zA-Z]+:", line):
                if line.startswith("cmd:"):
                    prof.cmd = line[4:].strip()
                continue
            # cost lines: position then numbers
            if line[0].isdigit() or line[0] in "+-*":
                continue
            raise CallgrindError("%s:%d: unrecognised line %r" % (path, lineno, line[:60]))
    if not seen_header:
        raise CallgrindError("%s: empty file, not a callgrind profile" % path)
    if pending_call:
        raise CallgrindError("%s: truncated: calls= line at the end" % path)
    return prof
