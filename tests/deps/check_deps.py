#!/usr/bin/python3
"""check_deps.py — does `mk/deps.sh --list` name every Debian package the
build and the tests use, and only packages they use?

It finds what the tree uses, maps each to the installed file it stands for
and that file to its Debian package (the dpkg database), and checks the
package against the closure of the list: the listed packages, their Depends
and Pre-Depends, recursively (an alternative "a | b" is met by whichever is
already in, else by the first one installed; a virtual package by an
installed package that Provides it), plus what every Debian system has
(Essential or Priority: required packages, and their closures). The uses:

  headers    every source file of the tree preprocessed with -M (system
             headers included): the commands `make -nB` prints for `all` and
             for what the check targets need, with the project's real flags;
             C files make does not compile (the programs the test scripts
             build, bench's) with -I for every directory of the tree that
             has headers, once as they are and once with every macro their
             #ifdef/#ifndef/#if defined test defined
  libraries  -l flags of those link commands, of the makefiles and of the
             Python scripts (the file `gcc -print-file-name` says the linker
             takes), -fopenmp (libgomp), -fsanitize= (its runtime), -pg
  pkg-config the modules the makefiles ask pkg-config for (their .pc file)
  modules    what the Python scripts import (ast), imported by $(PYTHON) -I;
             the tree's own modules are skipped
  programs   what the makefiles' recipes and $(shell)s and the shell scripts
             run (the first word of each command, quoted strings and awk
             programs left out; `command -v` arguments; ${VAR:-program}
             defaults), what the Python scripts run (the first string of a
             list handed to subprocess or to a helper of the tree that hands
             its argument on; shutil.which arguments), and the commands
             `make -nB` prints; found on PATH; and the #! interpreter of
             each script among them. A first word found nowhere on PATH is
             taken for no program (a shell function, a deepprof subcommand);
             a `command -v`, which() or subprocess program that is not found
             is a failure.

Every use must be provided, but the few in OPTIONAL below, which the tree
runs only when they are there. Every listed package must be used: some use
must come from it, or from a package that only it of the listed packages
brings in (python3 brings in python3-minimal, which has /usr/bin/python3;
python3-jsonschema brings it in only through python3); or mk/deps.sh says
why on a "# why PACKAGE:" line. The bench's scripts (bench/*.py,
bench/accuracy/*.py, bench/module.mk) are checked against `mk/deps.sh
--bench --list` instead, and the packages only --bench adds must be used by
them. This suite's own files (tests/deps) are read for their imports only:
their strings name what they look for.

usage: check_deps.py --build DIR [--save-uses FILE | --uses FILE]
                     [--deps-sh FILE] [--top DIR] [--verbose]
  --build DIR       the build directory (make's BUILD); never written to
  --save-uses FILE  also write the uses found to FILE (JSON)
  --uses FILE       judge the uses in FILE instead of finding them again
  --deps-sh FILE    the deps.sh to ask for the list and its reasons
                    (default mk/deps.sh)
  --top DIR         look at the tree in DIR, not this one (the suite's
                    self-test of the finding, on a small made-up tree)
Command-line variables of the make that runs it (MAKEFLAGS: SAN=1,
WERROR=1, CC=...) are passed on to the `make -n` it asks for the commands.
Prints "ok   <what>" or "FAIL <what>" per check, then each problem on a line
of its own; exit 0 when all hold, 1 when not, 2 when it cannot check.
Part of deepprof's tests. MIT licence.
"""

import argparse
import ast
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SELF = os.path.relpath(os.path.dirname(os.path.abspath(__file__)), TOP)   # tests/deps

# Uses that need not be provided: each runs only when the program is there,
# and the tree says what happens without it. (program, file) -> why.
OPTIONAL = {
    ("npm", "tests/exports/run.py"):
        "speedscope's schema comes from its npm package when npm can fetch it, "
        "else from the structure written down in run.py",
    ("git", ".ci/run"): "only names the commit in the log ('unknown' without git)",
    ("clang", "tests/unit/unit.mk"): "make fuzz only (not part of check); it says to install clang",
    ("clang", "tests/feedback/feedback.mk"): "make fuzz-feedback only (not part of check)",
}

# Python scripts, makefiles and scripts only `make bench` runs: checked
# against `mk/deps.sh --bench --list`.
def bench_scope(rel):
    return rel.startswith("bench/") and (rel.endswith(".py") or rel.endswith(".mk"))


NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]*$")
SHELL_WORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until",
               "esac", "in", "!", "{", "}", "function", "time"}
SHELL_PREFIX = {"exec", "nohup", "env"}


class Fatal(Exception):
    pass


class Use:
    """One thing used: kind (header, library, pkgconfig, module, program),
    name (as written: msgpack, -ljansson, /usr/include/jansson.h, valgrind),
    where (the file of the tree that uses it, or "the build (TARGET)"),
    scope (core or bench); after mapping, path (the file it stands for) and
    pkgs (its Debian packages), or error (why it has none); skip when it
    is not for Debian to provide (a file of the tree or of the build, a
    library the tree builds, a word the heuristics took for a program that
    is no program here)."""

    def __init__(self, kind, name, where, scope, path=None, definite=True):
        self.kind, self.name, self.where, self.scope = kind, name, where, scope
        self.path, self.definite = path, definite
        self.pkgs, self.error, self.skip = [], None, False

    def key(self):
        return (self.scope, self.kind, self.name, self.where)

    def to_json(self):
        return {k: getattr(self, k) for k in ("kind", "name", "where", "scope", "path",
                                              "definite", "pkgs", "error", "skip")}

    @staticmethod
    def from_json(d):
        u = Use(d["kind"], d["name"], d["where"], d["scope"], d["path"], d["definite"])
        u.pkgs, u.error, u.skip = d["pkgs"], d["error"], d["skip"]
        return u


def run(args, env=None, cwd=None, input=None, timeout=300):
    return subprocess.run(args, cwd=cwd or TOP, env=env, input=input, capture_output=True,
                          text=True, timeout=timeout)


def rel(path):
    """path relative to the top of the tree when inside it."""
    p = os.path.abspath(path)
    return os.path.relpath(p, TOP) if p.startswith(TOP + os.sep) else path


# ---------------------------------------------------------------- the tree

def tree_files():
    """Every file of the tree, relative to its top: not the build
    directories (/build/, /build-*/, .gitignore), not dot-directories other
    than .ci, not __pycache__."""
    out = []
    for d, dirs, files in os.walk(TOP):
        r = os.path.relpath(d, TOP)
        keep = []
        for x in dirs:
            if r == "." and (x == "build" or x.startswith("build-") or
                             (x.startswith(".") and x != ".ci")):
                continue
            if x == "__pycache__" or os.path.islink(os.path.join(d, x)):
                continue
            if r == "bench" and x == "work":
                continue
            keep.append(x)
        dirs[:] = sorted(keep)
        for f in sorted(files):
            out.append(os.path.normpath(os.path.join(r, f)))
    return out


def read(rel_path):
    with open(os.path.join(TOP, rel_path), errors="replace") as f:
        return f.read()


def is_shell_script(rel_path):
    if rel_path.endswith(".sh"):
        return True
    try:
        with open(os.path.join(TOP, rel_path), "rb") as f:
            first = f.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and re.search(rb"\b(sh|bash|dash)\b", first) is not None


# ---------------------------------------------------------------- make

def make_overrides():
    """The command-line variables of the make running us (MAKEFLAGS after
    " -- "), to pass on; BUILD is ours to set."""
    mf = os.environ.get("MAKEFLAGS", "")
    if " -- " in " " + mf:
        words = shlex.split((" " + mf).split(" -- ", 1)[1])
    else:
        words = [w for w in shlex.split(mf) if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)]
    return [w for w in words if not w.startswith("BUILD=")]


def make_env():
    e = dict(os.environ)
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"):
        e.pop(k, None)
    e["LC_ALL"] = "C"
    return e


class Make:
    """What make says about the tree: its variables, the prerequisites of
    each check target, and the commands of the build (make -nB), all for
    BUILD=scratch, a directory that make is never asked to write."""

    def __init__(self, scratch):
        self.scratch = scratch
        self.args = ["make", "--no-print-directory", "-f", "Makefile", "BUILD=" + scratch] + make_overrides()
        p = run(self.args + ["-pq", "all"], env=make_env())
        if "# Variables" not in p.stdout:
            raise Fatal("make -pq all printed no database: %s" % p.stderr.strip()[-300:])
        self.vars, self.rules = {}, {}
        section = None
        for line in p.stdout.splitlines():
            if line.startswith("# ") and line[2:] in ("Variables", "Files", "Directories",
                                                      "Pattern-specific Variable Values",
                                                      "Implicit Rules", "VPATH Search Paths"):
                section = line[2:]
                continue
            if section == "Variables":
                m = re.match(r"^([A-Za-z0-9_.-]+) (:=|=|::=) ?(.*)$", line)
                if m and m.group(1) not in self.vars:
                    self.vars[m.group(1)] = (m.group(2) != "=", m.group(3))
            elif section == "Files":
                m = re.match(r"^([^\s#:][^:]*):(?!=) ?(.*)$", line)
                if m and not line.startswith("\t"):
                    self.rules.setdefault(m.group(1).strip(), m.group(2).split("|")[0].split())
        checks = self.expand("$(CHECKS)").split()
        if not checks:
            raise Fatal("make knows no check targets (CHECKS is empty)")
        self.checks = checks
        want = set()
        for c in checks:
            for pre in self.rules.get(c, []):
                if pre.startswith(scratch + "/"):
                    want.add(pre)
        p = run(self.args + ["-nB", "all"] + sorted(want), env=make_env())
        if p.returncode != 0:
            raise Fatal("make -nB all ... failed: %s" % p.stderr.strip()[-500:])
        self.commands = [l for l in p.stdout.replace("\\\n", " ").splitlines()
                         if not re.match(r"^make(\[\d+\])?: ", l)]

    def expand(self, text, depth=0):
        """text with $(NAME) and ${NAME} replaced by make's values (functions
        are left alone, with the variables inside them expanded)."""
        if depth > 10:
            return text

        def one(m):
            name = m.group(1) or m.group(2)
            if name not in self.vars:
                return m.group(0)
            simple, value = self.vars[name]
            return value if simple and "$(" not in value else self.expand(value, depth + 1)
        text = text.replace("$$", "\0")
        text = re.sub(r"\$\(([A-Za-z0-9_.-]+)\)|\$\{([A-Za-z0-9_.-]+)\}", one, text)
        return text.replace("\0", "$$")

    def shown(self, text):
        """text as a reader of the tree would write it: $(BUILD) for scratch."""
        return text.replace(self.scratch, "$(BUILD)")


# ---------------------------------------------------------------- shell words

MAKE_FUNCTIONS = ("dir notdir if or and filter filter-out foreach wildcard patsubst subst strip "
                  "firstword lastword word words wordlist abspath realpath basename suffix "
                  "addprefix addsuffix sort call value error warning info origin flavor join "
                  "eval findstring").split()
OPAQUE = "\x01"     # stands for a quoted word: never a program name


def unquote(text):
    """text with comments dropped and quoted strings made opaque: the
    contents of '...' (awk and sed programs) blanked, those of "..." too
    but for the commands they substitute ($(...), `...`); newlines kept."""
    out, i, n = [], 0, len(text)

    def blank(seg):
        return re.sub(r"[^\n]", " ", seg)
    while i < n:
        c = text[i]
        if c == "\\":
            out.append(text[i:i + 2])
            i += 2
        elif c == "#" and (i == 0 or text[i - 1] in " \t\n;&|("):
            while i < n and text[i] != "\n":
                i += 1
        elif c == "'":
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            out.append(OPAQUE + blank(text[i + 1:j]))
            i = j + 1
        elif c == '"':
            j, buf = i + 1, [OPAQUE]
            while j < n and text[j] != '"':
                if text[j] == "\\":
                    buf.append("  ")
                    j += 2
                elif text.startswith("$(", j):
                    k, depth = j + 2, 1
                    while k < n and depth:
                        depth += {"(": 1, ")": -1}.get(text[k], 0)
                        k += 1
                    buf.append(" " + text[j:k] + " ")
                    j = k
                else:
                    buf.append("\n" if text[j] == "\n" else " ")
                    j += 1
            out.append("".join(buf))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def shell_commands(text):
    """(line, word, definite) for the programs a shell text runs: the first
    word of each command (definite: False, a heuristic), the argument of
    `command -v` and `which` (definite), the default of each
    ${VAR:-program} (not definite). Here-documents are read as scripts of
    their own (the tests write stub programs with them)."""
    out = []
    lines = text.replace("\\\n", " ").split("\n")
    main, bodies, i = [], [], 0
    while i < len(lines):
        line = lines[i]
        main.append(line)
        i += 1
        for m in re.finditer(r"<<(-?)\s*(['\"]?)([A-Za-z_]\w*)\2", line):
            body = []
            while i < len(lines) and (lines[i].strip() if m.group(1) else lines[i]) != m.group(3):
                body.append(lines[i])
                main.append("")
                i += 1
            main.append("")
            i += 1
            bodies.append((len(main) - len(body) - 1, "\n".join(body)))
    for n, line in enumerate(main, 1):
        if not line.lstrip().startswith("#"):
            for m in re.finditer(r"\$\{[A-Za-z_][A-Za-z0-9_]*:-([^}$\s'\"]+)\}", line):
                out.append((n, m.group(1), False))
    for base, body in [(0, "\n".join(main))] + bodies:
        for n, line in enumerate(unquote(body).splitlines(), base + 1):
            for seg in re.split(r"\|\||&&|[;|&(){}`]|\$\(", line):
                words = seg.split()
                i = 0
                while i < len(words):
                    w = words[i]
                    if (re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w) or re.match(r"^\d*[<>]", w)
                            or w in SHELL_WORDS or w in SHELL_PREFIX):
                        i += 1
                        continue
                    if w in ("for", "case", "select"):
                        break
                    if w in ("command", "which", "type") and i + 1 < len(words):
                        rest = [x for x in words[i + 1:] if not x.startswith("-")]
                        if rest and NAME.match(rest[0]):
                            out.append((n, rest[0], True))
                        break
                    if "$" not in w and OPAQUE not in w and (NAME.match(w) or w.startswith("/")):
                        out.append((n, w, False))
                    break
    return out


# ---------------------------------------------------------------- Python

SUBPROCESS = {"run", "Popen", "check_output", "check_call", "call"}


class PyScan:
    """What the Python files of the tree import and run. A program is the
    first string of a list literal given (directly, or through a name it
    was assigned to) to a subprocess function or to a *runner*: a function
    of the tree that hands its first parameter (or something that starts
    with it, or ends with it after a prefix that is not a literal list:
    PIN + cmd) to subprocess or to another runner. So run(["dump"] + a),
    where run() puts deepprof before its argument, names no program, while
    must(["nm", exe]) does."""

    def __init__(self, files):
        self.trees = {}
        for f in files:
            self.trees[f] = ast.parse(read(f), f)
        self.modules = {os.path.splitext(os.path.basename(f))[0]: f for f in files}
        self.runners = set()        # (file, function name)
        changed = True
        while changed:
            changed = False
            for f, tree in self.trees.items():
                for fn in ast.walk(tree):
                    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                            (f, fn.name) not in self.runners and self.is_runner(f, fn):
                        self.runners.add((f, fn.name))
                        changed = True

    def callee_runs(self, f, func):
        """Whether a call of func in file f starts a process with its first argument."""
        if isinstance(func, ast.Attribute):
            v = func.value
            if isinstance(v, ast.Name) and v.id == "subprocess":
                return func.attr in SUBPROCESS
            if isinstance(v, ast.Name) and v.id in self.modules:
                return (self.modules[v.id], func.attr) in self.runners
            return (f, func.attr) in self.runners
        if isinstance(func, ast.Name):
            return (f, func.id) in self.runners
        return False

    def is_runner(self, f, fn):
        params = [a.arg for a in fn.args.args]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        if not params:
            return False
        derived = {params[0]}

        def derives(e):
            if isinstance(e, ast.Name):
                return e.id in derived
            if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
                return derives(e.left) or (not isinstance(e.left, (ast.List, ast.Tuple))
                                           and derives(e.right))
            if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and \
                    e.func.id in ("list", "tuple") and e.args:
                return derives(e.args[0])
            return False
        for _ in range(3):
            for n in ast.walk(fn):
                if isinstance(n, ast.Assign) and derives(n.value):
                    derived |= {t.id for t in n.targets if isinstance(t, ast.Name)}
        return any(isinstance(n, ast.Call) and n.args and self.callee_runs(f, n.func)
                   and derives(n.args[0]) for n in ast.walk(fn))

    def uses(self, f, project_modules):
        """(imports, programs, flags) of file f: module names (not the
        tree's own), (line, program, definite), (line, -l/-fopenmp/-pg flag)."""
        tree = self.trees[f]
        imports, programs, flags = [], [], []
        lists = {}          # name -> first strings of the list literals assigned to it

        def first(e):
            while isinstance(e, ast.BinOp):
                e = e.left
            if isinstance(e, (ast.List, ast.Tuple)) and e.elts and \
                    isinstance(e.elts[0], ast.Constant) and isinstance(e.elts[0].value, str):
                return [e.elts[0].value]
            if isinstance(e, ast.Name):
                return lists.get(e.id, [])
            return []
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Subscript):
                        t = t.value
                    if isinstance(t, ast.Name):
                        lists.setdefault(t.id, []).extend(first(node.value))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imports += [(node.lineno, a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imports.append((node.lineno, node.module))
            elif isinstance(node, ast.Call):
                fn = node.func.attr if isinstance(node.func, ast.Attribute) else \
                    node.func.id if isinstance(node.func, ast.Name) else ""
                if fn == "which" and node.args and isinstance(node.args[0], ast.Constant) \
                        and isinstance(node.args[0].value, str):
                    programs.append((node.lineno, node.args[0].value, True))
                elif node.args and self.callee_runs(f, node.func):
                    programs += [(node.lineno, w, True) for w in first(node.args[0])]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                for w in node.value.split():
                    if re.match(r"^-l[A-Za-z0-9_+.-]+$", w) or w in ("-fopenmp", "-pg"):
                        flags.append((node.lineno, w))
        imports = [(n, m) for n, m in imports
                   if m.split(".")[0] not in project_modules and m != "__future__"]
        return imports, programs, flags


PROBE = r"""
import importlib, json, os, sys
out = {}
for name in sys.stdin.read().split():
    try:
        m = importlib.import_module(name)
    except BaseException as e:
        out[name] = {"error": "%s: %s" % (type(e).__name__, e)}
        continue
    f = getattr(m, "__file__", None)
    if not f and getattr(m, "__path__", None):
        f = list(m.__path__)[0]
    out[name] = {"file": os.path.abspath(f) if f else os.path.realpath(sys.executable),
                 "builtin": not f}
print(json.dumps(out))
"""


# ---------------------------------------------------------------- C

SOURCE = re.compile(r".*\.(c|cc|cpp|cxx|C)$")
DROP_WITH_ARG = {"-o", "-MF", "-MT", "-MQ"}
DROP = {"-c", "-MMD", "-MD", "-MP", "-M", "-MM", "-shared", "-pie", "-no-pie", "-rdynamic",
        "-static", "-E", "-S"}


def compiler_split(argv):
    """(flags for -M, sources, link flags) of a compiler command."""
    flags, srcs, link = [], [], []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in DROP_WITH_ARG:
            i += 2
            continue
        if SOURCE.match(a):
            srcs.append(a)
        elif a in DROP or a.startswith("-Wl,"):
            if a.startswith("-Wl,"):
                link.append(a)
        elif a.startswith("-l") or a.startswith("-L") or re.search(r"\.(a|o|so)$", a):
            link.append(a)
        else:
            flags.append(a)
            if a in ("-fopenmp", "-pg") or a.startswith("-fsanitize="):
                link.append(a)
        i += 1
    return flags, srcs, link


def ifdef_macros(text):
    """The macros a C file's #ifdef, #ifndef and #if/#elif defined(...) test
    (not the reserved _NAMES)."""
    ms = set()
    for m in re.finditer(r"^\s*#\s*(ifdef|ifndef|if|elif)\b(.*)$", text, re.M):
        if m.group(1) in ("ifdef", "ifndef"):
            ms.update(re.findall(r"^\s*([A-Za-z_]\w*)", m.group(2)))
        else:
            ms.update(re.findall(r"\bdefined\s*\(?\s*([A-Za-z_]\w*)", m.group(2)))
    return sorted(x for x in ms if not x.startswith("_"))


def parse_depfile(text):
    """{source: [prerequisites]} of gcc -M output (several rules)."""
    out = {}
    for rule in re.split(r"\n(?=\S)", text.replace("\\\n", " ")):
        if ":" not in rule:
            continue
        _, rest = rule.split(":", 1)
        words = rest.split()
        if words:
            out.setdefault(words[0], []).extend(words[1:])
    return out


# ---------------------------------------------------------------- finding the uses

class Finder:
    def __init__(self, build):
        self.build = os.path.abspath(build)
        self.uses = {}
        self.env = dict(os.environ)

    def add(self, kind, name, where, scope, path=None, definite=True):
        u = Use(kind, name, where, scope, path, definite)
        if u.key() not in self.uses:
            self.uses[u.key()] = u
        elif definite:
            self.uses[u.key()].definite = True
        return self.uses[u.key()]

    def own(self, path):
        p = os.path.abspath(path)
        return any(p == d or p.startswith(d + os.sep) for d in (TOP, self.build, self.scratch))

    def find(self):
        self.scratch = tempfile.mkdtemp(prefix="deepprof-deps-")
        self.compiles = []
        try:
            self.make = Make(self.scratch)
            self.files = tree_files()
            self.project_modules = {os.path.splitext(os.path.basename(f))[0]
                                    for f in self.files if f.endswith(".py")}
            self.project_modules |= {os.path.basename(os.path.dirname(f))
                                     for f in self.files if f.endswith("/__init__.py")}
            self.python = self.make.expand("$(PYTHON)").strip() or "/usr/bin/python3"
            self.find_makefiles()
            self.find_shell()
            self.find_python()
            self.find_c()
            self.resolve_libraries()
            self.resolve_programs()
        finally:
            shutil.rmtree(self.scratch, ignore_errors=True)
        return list(self.uses.values())

    # -- makefiles: recipes, $(shell ...), -l flags, pkg-config modules
    def find_makefiles(self):
        mk = [f for f in self.files if f == "Makefile" or f.endswith(".mk")]
        for f in mk:
            scope = "bench" if bench_scope(f) else "core"
            text = read(f).replace("\\\n", " ")
            for line in text.splitlines():
                exp = self.make.expand(line)
                if line.startswith("\t"):
                    recipe = re.sub(r"\$\((%s)\s" % "|".join(map(re.escape, MAKE_FUNCTIONS)),
                                    OPAQUE + "(", exp.lstrip("\t@+- "))
                    for _, w, definite in shell_commands(recipe):
                        self.add("program", w, f, scope, definite=definite)
                for m in re.finditer(r"\$\(shell\s+([^)]*)", exp):
                    for _, w, _d in shell_commands(m.group(1)):
                        self.add("program", w, f, scope, definite=True)
                    words = m.group(1).split()
                    if words and words[0] == "pkg-config":
                        for w in words[1:]:
                            if w.startswith("2>") or w.startswith(">") or w == "|":
                                break
                            if not w.startswith("-") and NAME.match(w):
                                self.add("pkgconfig", w, f, scope)
                for w in re.findall(r"(?<![\w$(-])-l[A-Za-z0-9_+.-]+|-fopenmp\b|(?<![\w-])-pg\b", exp):
                    self.add("library", w, f, scope)
                for m in re.finditer(r"-fsanitize=([a-z,]+)", exp):
                    self.add("library", "-fsanitize=" + m.group(1).strip(","), f, scope)
        # the commands of the build itself, as make runs them
        for line in self.make.commands:
            try:
                lex = shlex.shlex(line, posix=True, punctuation_chars=";&|")
                lex.whitespace_split = True
                words = list(lex)
            except ValueError:
                continue
            cmd = []
            for w in words + [";"]:
                if w in (";", "&&", "||", "|", "&"):
                    if cmd:
                        self.build_command(cmd)
                    cmd = []
                else:
                    cmd.append(w)

    def build_command(self, argv):
        where = "the build"
        if "-o" in argv and argv.index("-o") + 1 < len(argv):
            where = "the build of " + self.make.shown(argv[argv.index("-o") + 1])
        if not argv[0].startswith(self.scratch):
            self.add("program", argv[0], "the build", "core")
        flags, srcs, link = compiler_split(argv)
        if srcs:
            self.compiles.append((argv[0], flags, srcs))
        if "-c" not in argv and (srcs or any(re.search(r"\.(o|a)$", a) for a in argv)):
            ldirs = [a[2:] for a in link if a.startswith("-L")]
            for a in link:
                if a.startswith("-l") or a in ("-fopenmp", "-pg") or a.startswith("-fsanitize="):
                    u = self.add("library", a, where, "core")
                    u.ldirs = ldirs

    # -- shell scripts
    def find_shell(self):
        for f in self.files:
            if f.endswith(".mk") or f == "Makefile" or not is_shell_script(f):
                continue
            scope = "bench" if bench_scope(f) else "core"
            for _, w, definite in shell_commands(read(f)):
                self.add("program", w, f, scope, definite=definite)

    # -- Python scripts
    def find_python(self):
        wanted = {}
        pyfiles = [f for f in self.files if f.endswith(".py")]
        try:
            scan = PyScan(pyfiles)
        except SyntaxError as e:
            raise Fatal("cannot parse %s" % e)
        for f in pyfiles:
            scope = "bench" if bench_scope(f) else "core"
            imports, programs, flags = scan.uses(f, self.project_modules)
            for _, m in imports:
                wanted.setdefault(m, []).append(self.add("module", m, f, scope))
            if os.path.dirname(f) == SELF:
                continue        # this suite: its strings and which()s are what it looks for
            for _, w, definite in programs:
                if NAME.match(w) or w.startswith("/"):
                    self.add("program", w, f, scope, definite=definite)
            for _, w in flags:
                self.add("library", w, f, scope)
        p = run([self.python, "-I", "-c", PROBE], input=" ".join(sorted(wanted)), cwd="/")
        if p.returncode != 0:
            raise Fatal("%s -I could not look for the modules: %s" % (self.python, p.stderr.strip()))
        found = json.loads(p.stdout)
        for m, uses in wanted.items():
            r = found.get(m, {"error": "not looked for"})
            for u in uses:
                if "error" in r:
                    u.error = "%s -I cannot import (%s)" % (self.python, r["error"])
                else:
                    u.path = r["file"]
        self.add("program", self.python, "the Python suites ($(PYTHON))", "core")

    # -- C and C++: headers
    def find_c(self):
        self.compiled = set()
        groups = {}
        for cc, flags, srcs in self.compiles:
            for s in srcs:
                groups.setdefault((cc, tuple(flags)), set()).add(s)
                self.compiled.add(os.path.normpath(s))
        incdirs = sorted({os.path.dirname(f) for f in self.files if f.endswith(".h")})
        base = ["-std=gnu11", "-D_GNU_SOURCE", "-fopenmp"] + ["-I" + d for d in incdirs]
        cc = self.make.expand("$(CC)").strip() or "gcc"
        for f in self.files:
            if not f.endswith(".c") or f in self.compiled:
                continue
            groups.setdefault((cc, tuple(base)), set()).add(f)
            ms = ifdef_macros(read(f))
            if ms:
                groups.setdefault((cc, tuple(base + ["-D" + m for m in ms])), set()).add(f)
        jobs = []
        for (comp, flags), srcs in groups.items():
            srcs = sorted(srcs)
            n = max(1, (len(srcs) + 3) // 4) if comp.endswith("++") else 16
            for i in range(0, len(srcs), n):
                jobs.append((comp, list(flags), srcs[i:i + n]))
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            for comp, flags, srcs, deps, errs in ex.map(self.depend, jobs):
                for s in srcs:
                    if s in errs:
                        u = self.add("header", "(its headers)", rel(s), "core")
                        u.error = "%s -M fails: %s" % (os.path.basename(comp), errs[s])
                        continue
                    for h in deps.get(s, []):
                        if os.path.isabs(h) and not self.own(h):
                            self.add("header", os.path.normpath(h), rel(s), "core",
                                     path=os.path.normpath(h))

    def depend(self, job):
        """(compiler, flags, sources, {source: headers}, {source: error})."""
        comp, flags, srcs = job
        p = run([comp] + flags + ["-M"] + srcs)
        if p.returncode == 0:
            return comp, flags, srcs, parse_depfile(p.stdout), {}
        deps, errs = {}, {}
        for s in srcs:      # which of them fails: one at a time
            q = run([comp] + flags + ["-M", s])
            if q.returncode == 0:
                deps.update(parse_depfile(q.stdout))
            else:
                err = [l for l in q.stderr.splitlines() if "error" in l]
                errs[s] = (err[0] if err else q.stderr.strip()[-200:]).strip()
        return comp, flags, srcs, deps, errs

    # -- libraries: the file the linker takes
    def resolve_libraries(self):
        text = "\n".join(read(f) for f in self.files
                         if f.endswith((".py", ".mk", ".sh")) or f == "Makefile")
        cc = self.make.expand("$(CC)").strip() or "gcc"
        cache = {}

        def find(fname):
            if fname not in cache:
                p = run([cc, "-print-file-name=" + fname])
                out = p.stdout.strip()
                cache[fname] = os.path.normpath(out) if os.path.isabs(out) and os.path.exists(out) else None
            return cache[fname]
        sanitizer = {"address": "libasan", "undefined": "libubsan", "thread": "libtsan",
                     "leak": "liblsan"}
        for u in self.uses.values():
            if u.kind != "library":
                continue
            names = []
            if u.name.startswith("-l"):
                lib = u.name[2:]
                names = [lib[1:]] if lib.startswith(":") else ["lib%s.so" % lib, "lib%s.a" % lib]
                ldirs = getattr(u, "ldirs", [])
                if any(os.path.exists(os.path.join(TOP, d, n)) or os.path.exists(os.path.join(d, n))
                       for d in ldirs for n in names if self.own(os.path.join(TOP, d))):
                    u.skip = True
                    continue
                if not any(find(n) for n in names) and re.search(r"\blib%s\.(so|a)\b" % re.escape(lib), text):
                    u.skip = True        # a library the tree builds (libprof.a, libsym.so, ...)
                    continue
            elif u.name == "-fopenmp":
                names = ["libgomp.so"]
            elif u.name == "-pg":
                names = ["gcrt1.o"]
            elif u.name.startswith("-fsanitize="):
                for s in u.name.split("=", 1)[1].split(","):
                    if s in sanitizer:
                        names.append(sanitizer[s] + ".so")
            paths = [find(n) for n in names]
            paths = [p for p in paths if p]
            if paths:
                u.path = paths[0]
            elif names:
                u.error = "the linker finds none of %s (%s -print-file-name)" % (", ".join(names), cc)
        for u in self.uses.values():
            if u.kind == "pkgconfig":
                p = run(["pkg-config", "--path", u.name])
                if p.returncode == 0 and p.stdout.strip():
                    u.path = p.stdout.strip().splitlines()[0]
                else:
                    u.error = "pkg-config cannot find it"

    # -- programs: on PATH, and the interpreters of scripts
    def resolve_programs(self):
        for f in self.files:        # the tree's own scripts' #! lines
            if f.endswith((".py", ".sh")) or f == ".ci/run":
                first = read(f).split("\n", 1)[0]
                if first.startswith("#!"):
                    self.add_interpreter(first, f, "bench" if bench_scope(f) else "core")
        seen = set()
        pending = list(self.uses.values())
        while pending:
            u = pending.pop()
            if u.kind != "program" or u.path or u.error or u.skip:
                continue
            w = u.name
            if w.startswith("/"):
                path = w if os.path.isfile(w) and os.access(w, os.X_OK) else None
            else:
                path = shutil.which(w, path=self.env.get("PATH", os.defpath))
            if path and self.own(path):
                u.skip = True
                continue
            if not path:
                if u.definite:
                    u.error = "not found on PATH"
                else:
                    u.skip = True    # a word the heuristics took for a program: none here
                continue
            u.path = os.path.abspath(path)
            if (os.path.basename(w), u.where) in OPTIONAL:
                continue        # nor what it needs
            if u.path not in seen:
                seen.add(u.path)
                try:
                    with open(u.path, "rb") as fh:
                        first = fh.readline(300).decode("utf-8", "replace").strip()
                except OSError:
                    first = ""
                if first.startswith("#!"):
                    pending.extend(self.add_interpreter(first, "%s (%s)" % (w, u.path), u.scope))

    def add_interpreter(self, line, where, scope):
        words = line[2:].split()
        if not words:
            return []
        if os.path.basename(words[0]) == "env" and len(words) > 1:
            words = words[1:]
        return [self.add("program", words[0], where, scope)]


# ---------------------------------------------------------------- dpkg

def twins(path):
    """path, and the same path through the merged-/usr links (/bin = /usr/bin)."""
    out = [path]
    for a in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if path.startswith(a + "/"):
            out.append("/usr" + path)
        elif path.startswith("/usr" + a + "/"):
            out.append(path[4:])
    return out


def candidates(path):
    """The names dpkg may know path by: itself, normalized, its directory
    resolved, each link on the way to the file, and their /usr twins."""
    out = []
    p = os.path.normpath(path)
    seen = set()
    for _ in range(12):
        for q in (p, os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p))):
            for t in twins(q):
                if t not in seen:
                    seen.add(t)
                    out.append(t)
        if not os.path.islink(p):
            break
        p = os.path.normpath(os.path.join(os.path.dirname(p), os.readlink(p)))
    for t in twins(os.path.realpath(path)):
        if t not in seen:
            out.append(t)
    return out


def owners(paths):
    """{path: [packages]} for paths, from /var/lib/dpkg/info/*.list, read once."""
    want = {}
    for p in paths:
        for c in candidates(p):
            want.setdefault(c, set()).add(p)
    found = {}
    for lst in glob.glob("/var/lib/dpkg/info/*.list"):
        pkg = os.path.basename(lst)[:-5].split(":")[0]
        with open(lst, errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                if line in want:
                    found.setdefault(line, set()).add(pkg)
    out = {}
    for p in paths:
        for c in candidates(p):
            if c in found:
                out[p] = sorted(found[c])
                break
    return out


class Dpkg:
    """The installed packages: their Depends + Pre-Depends (groups of
    alternatives), what they Provide, and which every Debian system has."""

    def __init__(self):
        p = run(["dpkg-query", "-W", "-f",
                 "${Package}\t${Status}\t${Essential}\t${Priority}\t${Depends}\t${Pre-Depends}\t${Provides}\n"])
        if p.returncode != 0:
            raise Fatal("dpkg-query -W failed: %s" % p.stderr.strip())
        self.installed, self.deps, self.providers, self.base = set(), {}, {}, set()
        for line in p.stdout.splitlines():
            f = line.split("\t")
            if len(f) < 7 or not f[1].endswith(" installed"):
                continue
            pkg = f[0]
            self.installed.add(pkg)
            groups = self.deps.setdefault(pkg, [])
            for field in (f[5], f[4]):
                for g in field.split(","):
                    alts = [self.name(a) for a in g.split("|") if self.name(a)]
                    if alts:
                        groups.append(alts)
            for v in f[6].split(","):
                if self.name(v):
                    self.providers.setdefault(self.name(v), set()).add(pkg)
            if f[2] == "yes" or f[3] == "required":
                self.base.add(pkg)
        self.base = self.closure(self.base)

    @staticmethod
    def name(dep):
        return re.sub(r"\(.*?\)|\[.*?\]|<.*?>", "", dep).strip().split(":")[0]

    def meets(self, name):
        """The installed packages that satisfy a dependency on name."""
        out = [name] if name in self.installed else []
        return out + sorted(self.providers.get(name, set()) - set(out))

    def closure(self, roots):
        """roots and what they depend on, recursively: a group of
        alternatives is met by a member already in, else by its first
        installed member (groups are settled after the unambiguous ones)."""
        have = set()
        todo = [r for r in roots if r in self.installed]
        pending = []
        while True:
            while todo:
                p = todo.pop()
                if p in have:
                    continue
                have.add(p)
                for g in self.deps.get(p, []):
                    cands = [c for a in g for c in self.meets(a)]
                    if len(cands) == 1:
                        todo.append(cands[0])
                    elif cands:
                        pending.append(cands)
            left = [c for c in pending if not set(c) & have]
            pending = []
            if not left:
                return have
            todo.append(left[0][0])
            pending = left[1:]

    def reach(self, roots, world, blocked=()):
        """What roots depend on, recursively, within world, never through
        a package of blocked."""
        have = set(r for r in roots if r not in blocked)
        todo = list(have)
        while todo:
            p = todo.pop()
            for g in self.deps.get(p, []):
                for a in g:
                    for c in self.meets(a):
                        if c in world and c not in have and c not in blocked:
                            have.add(c)
                            todo.append(c)
        return have


# ---------------------------------------------------------------- judging

def deps_list(deps_sh, bench):
    p = run(["sh", deps_sh, "--list"] + (["--bench"] if bench else []), env=os.environ)
    if p.returncode != 0:
        raise Fatal("sh %s --list failed: %s" % (deps_sh, p.stderr.strip()))
    return p.stdout.split()


def reasons(deps_sh):
    out = {}
    with open(deps_sh) as f:
        for line in f:
            m = re.match(r"^#\s*why\s+([a-z0-9][a-z0-9+.-]*)\s*:\s*(\S.*)$", line)
            if m:
                out[m.group(1)] = m.group(2).strip()
    return out


def judge(uses, deps_sh, verbose):
    """Print the checks and the problems; True when every one holds."""
    d = Dpkg()
    core = deps_list(deps_sh, False)
    bench = deps_list(deps_sh, True)
    why = reasons(deps_sh)
    checks = []     # (ok, what, problems)

    # the list itself: installed, reasons for listed packages only
    probs = ["mk/deps.sh --list names %s, which is not installed (make deps installs it; "
             "is the name right?)" % p for p in bench if p not in d.installed]
    probs += ["mk/deps.sh gives a reason for %s (\"# why %s:\"), which it does not list" % (p, p)
              for p in sorted(why) if p not in bench]
    checks.append((not probs, "every package mk/deps.sh names is installed, every reason is for one it names", probs))

    real = [u for u in uses if not u.skip]
    for scope, listed, flag in (("core", core, "--list"), ("bench", bench, "--bench --list")):
        have = d.closure(set(listed) | d.base)
        mine = [u for u in real if u.scope == scope]
        by_kind = {}
        for u in mine:
            by_kind.setdefault(u.kind, []).append(u)
        for kind, label in (("header", "headers"), ("library", "libraries"),
                            ("pkgconfig", "pkg-config modules"), ("module", "Python modules"),
                            ("program", "programs")):
            us = sorted(by_kind.get(kind, []), key=lambda u: (u.name, u.where))
            if not us:
                continue
            groups, pkgs = {}, set()
            for u in us:
                opt = OPTIONAL.get((os.path.basename(u.name), u.where))
                if u.error or not u.pkgs:
                    if opt:
                        continue
                    line = describe(u) + ", which " + (
                        u.error if u.error else "belongs to no installed Debian package")
                    group = ("", u.name)
                elif not set(u.pkgs) & have:
                    if opt:
                        continue
                    line = describe(u) + ", which no package in mk/deps.sh %s provides" % flag
                    group = (" ".join(u.pkgs), "")
                else:
                    pkgs.update(set(u.pkgs) & have)
                    continue
                groups.setdefault(group, []).append((u, line))
            probs = []
            for (pk, name), bad in sorted(groups.items()):
                # every line, or when there are many, the first of each name (5 at most)
                if len(bad) <= 10:
                    shown = [line for _, line in bad]
                else:
                    firsts = {}
                    for u, line in bad:
                        firsts.setdefault(u.name, line)
                    shown = list(firsts.values())[:5]
                probs += shown
                if len(bad) > len(shown):
                    names = {u.name for u, _ in bad}
                    from_pk = " (package %s)" % pk if pk else ""
                    if len(names) == 1:
                        probs.append("  ... and %d more files use it%s" % (len(bad) - len(shown), from_pk))
                    else:
                        n = len({u.where for u, _ in bad})
                        probs.append("  ... and %d more: %d %s in all, used by %d file%s%s" % (
                            len(bad) - len(shown), len(names), label, n, "" if n == 1 else "s", from_pk))
            what = "%s%s: %d, from %d packages, all provided by mk/deps.sh %s" % (
                "bench " if scope == "bench" else "", label, len({u.name for u in us}), len(pkgs), flag)
            if probs:
                what = "%s%s: not all provided by mk/deps.sh %s" % (
                    "bench " if scope == "bench" else "", label, flag)
            checks.append((not probs, what, probs))

    # the other way: each listed package used by something, or a reason
    credit = {}
    for scope, listed, pool in (("core", core, core), ("bench", bench, [p for p in bench if p not in core])):
        world = d.closure(set(listed))
        # P owns what it brings in and no other listed package brings in
        # but through P (python3 owns python3-minimal, which
        # python3-jsonschema reaches only through python3)
        owns = {}
        for p in listed:
            if p in d.installed:
                others = d.reach([q for q in listed if q != p], world, blocked={p})
                owns[p] = d.reach([p], world) - others
        for u in real:
            if u.scope != scope or not u.pkgs or set(u.pkgs) & d.base:
                continue
            for p, mine in owns.items():
                if p in u.pkgs or set(u.pkgs) & mine:
                    credit.setdefault(p, []).append(u)
        probs = []
        for p in pool:
            if p not in d.installed:
                continue
            if credit.get(p) or p in why:
                continue
            probs.append("mk/deps.sh %s names %s, which nothing uses: no header, library, "
                         "module or program that %s comes from it or from a package that "
                         "only it of the listed ones brings in, and no \"# why %s:\" "
                         "line in mk/deps.sh says what it is for" % (
                             "--list" if scope == "core" else "--bench --list", p,
                             "the build and the tests use" if scope == "core" else "make bench uses", p))
        checks.append((not probs, "every package in mk/deps.sh %s is used%s" % (
            "--list" if scope == "core" else "--bench --list (beyond --list) by make bench",
            "" if scope == "bench" else " (or says why)"), probs))

    if verbose:
        for p in sorted(credit):
            names = sorted({"%s %s" % (u.kind, u.name) for u in credit[p]})
            print("     %s: %s%s" % (p, ", ".join(names[:6]), " ..." if len(names) > 6 else ""))
        for p in sorted(why):
            print("     %s: %s" % (p, why[p]))
    for ok, what, probs in checks:
        print("%s %s" % ("ok  " if ok else "FAIL", what))
        for line in probs:
            print("     " + line)
    return all(ok for ok, _, _ in checks)


def describe(u):
    where = u.where
    thing = {"header": "includes", "library": "links", "pkgconfig": "asks pkg-config for",
             "module": "imports", "program": "runs"}[u.kind]
    if u.kind == "library" and u.name.startswith("-f"):
        thing = "builds with"
    if u.kind == "library" and u.name == "-pg":
        thing = "links with"
    what = u.name
    if u.path and u.path != u.name:
        what += " (%s%s)" % (u.path, ", package " + ", ".join(u.pkgs) if u.pkgs else "")
    elif u.pkgs:
        what += " (package %s)" % ", ".join(u.pkgs)
    return "%s %s %s" % (where, thing, what)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--save-uses")
    ap.add_argument("--uses")
    ap.add_argument("--deps-sh")
    ap.add_argument("--top", help="the tree to look at (default: the one this file is in)")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    global TOP
    if a.top:
        TOP = os.path.abspath(a.top)
    a.deps_sh = a.deps_sh or os.path.join(TOP, "mk", "deps.sh")
    try:
        t0 = time.time()
        if a.uses:
            with open(a.uses) as f:
                uses = [Use.from_json(x) for x in json.load(f)]
        else:
            finder = Finder(a.build)
            uses = finder.find()
            m = owners(sorted({u.path for u in uses if u.path and not u.skip}))
            for u in uses:
                if u.path and not u.skip:
                    u.pkgs = m.get(u.path, [])
            if a.save_uses:
                with open(a.save_uses, "w") as f:
                    json.dump([u.to_json() for u in uses], f, indent=0)
        if a.verbose:
            for u in sorted(uses, key=lambda u: (u.kind, u.name, u.where)):
                if not (u.skip and u.kind == "program" and not u.path):
                    print("     %-7s %-5s %s -> %s%s" % (u.kind, u.scope, u.where, u.name,
                          "" if u.skip else " %s %s" % (u.path or "", u.pkgs or u.error)))
        ok = judge(uses, a.deps_sh, a.verbose)
        print("     (%d uses looked at in %.1fs)" % (len(uses), time.time() - t0))
        return 0 if ok else 1
    except (Fatal, subprocess.TimeoutExpired, OSError) as e:
        print("check_deps: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
