"""run.py — `make bench`: what deepprof's instrumentation costs, next to its
alternatives, on a call-heavy and an allocation-heavy microbenchmark and on
real programs built from Debian's sources (bzip2; zlib's minigzip; gawk and
jq, two interpreters that make a call every few nanoseconds; sqlite3, a
large program: its 240k-line amalgamation and shell).
Part of deepprof's bench. MIT licence.

Every program is built in each variant below and each variant runs RUNS
times, interleaved (round 1 of every variant, then round 2, ...) so that
drift in the machine's load spreads over all of them:

  plain       gcc -O2                                    the baseline
  empty       gcc -O2 -finstrument-functions, empty hooks the hook calls alone
  floor       gcc -O2 -finstrument-functions + floor_hooks.c: the least a deep
              profiler on these hooks does (csd lookup, push, pop; no longjmp
              or signal safety): what the approach costs before any runtime
  gprof       gcc -O2 -pg
  libprof     gcc -O2 -finstrument-functions + libprof.a  deepprof, cyg route
  plugin      deepprof-cc -O2 (GCC plugin, its default   deepprof, plugin route
              ABI v2: the call path inline)
  plugin-abi1 deepprof-cc -O2 --deepprof-arg=abi=1       out-of-line hooks; its
              Deep.data must have plugin's call total
  plugin-surv deepprof-cc -O2 --deepprof-arg=calls=surviving   (ABI v2 placed after
              inlining: only the calls that survive it)
  callgrind   the plain binary under valgrind --tool=callgrind (real programs
              only), on 1/CG_SHRINK of the input, CG_RUNS times, against plain
              on that same small input; its seconds are scaled back to the full
              input by that ratio (marked ~)

Beside the times: the CPU time to compile and link bzip2 and sqlite3 and
the text size of every binary, in each variant against plain; and, for every plugin build,
what reading its program representation costs the tools (issue 14):
`deepprof progrep BINARY` and `deepprof feedback Deep.data` on the profile of
its last good run, FB_RUNS times each (median). Then the analyses benchmark
(analyses.py: deepprof report/export on dp-gen profiles of 10^5..10^7 csds).
Then the sampling benchmark (record.py: deepprof record against perf record
and the instrumented build, self-time shares and overhead).

Times are CPU seconds (user+sys of the child, from wait4): on a shared
two-core machine they move less than wall time, which is shown too.
The table goes to stdout and to BUILD/bench/results.txt.

With --pgo it measures instead what the use build gains (issue 12: hot and
cold code): bzip2, minigzip, gawk and jq, each built plain, with
`deepprof-cc --deepprof-use` and the feedback of its own workload, and with
GCC's -fprofile-generate/-fprofile-use, timed side by side (the section
"the use build" below says how); table in BUILD/bench/pgo.txt and pgo.json.

    run.py --build DIR --libprof LIB --deepprof BIN [--deepprof-cc BIN]
           [--dpgen BIN] [--cc CC] [--libs LDLIBS] [--runs N] [--quick]
           [--only PROG,...]      (PROG: fib alloc omp bzip2 minigzip gawk jq sqlite3 analyses record)
           [--pgo]
"""

import argparse
import datetime
import hashlib
import json
import os
import platform
import random
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import analyses
import record as record_bench

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET_VS_EMPTY = 1.3          # libprof within this factor of the empty-hook build
TARGET_COMPILE_X = 1.5         # the plugin build's compile time against plain, large program
TARGET_PLUGIN_REAL = 1.3       # issue 4: plugin route on a real program, x plain
TARGET_PLUGIN_FIB = 3.0        # issue 4: plugin route on naive fib, x plain
TIMEOUT = 300                  # seconds, any single run
SEED = 1


class Fatal(Exception):
    pass


# ---------------------------------------------------------------- programs

class Program:
    def __init__(self, name, label, sources, argv, cflags=(), third_party=False,
                 callgrind=False, output="stdout", input="text", prepare=None, libs=(),
                 same_calls=True):
        self.name = name
        self.label = label          # shown in the table
        self.sources = sources
        self.argv = argv            # "{input}" is replaced by the input path
        self.cflags = list(cflags)
        self.third_party = third_party
        self.callgrind = callgrind
        self.output = output
        self.input = input          # which inputs {input} names: "text" or "json"
        self.prepare = prepare      # run once before building (configure, generated files)
        self.libs = list(libs)      # linked after everything else
        self.same_calls = same_calls    # makes the same calls in every run (jq does not)


def programs(a, src):
    bz = os.path.join(src, "bzip2")
    zl = os.path.join(src, "zlib")
    zlib_c = ["adler32.c", "compress.c", "crc32.c", "deflate.c", "gzclose.c", "gzlib.c",
              "gzread.c", "gzwrite.c", "infback.c", "inffast.c", "inflate.c", "inftrees.c",
              "trees.c", "uncompr.c", "zutil.c"]
    size = ("%.0fMB" % (a.text_bytes / 1e6) if a.text_bytes >= 1e6
            else "%.0fKB" % (a.text_bytes / 1e3))
    gk = os.path.join(src, "gawk")
    jq = os.path.join(src, "jq")
    sq = os.path.join(src, "sqlite3")
    return [
        Program("fib", "fib(%d)" % a.fib_n, [os.path.join(HERE, "fib.c")], [str(a.fib_n)]),
        Program("alloc", "alloc(%d)" % a.alloc_rounds, [os.path.join(HERE, "alloc.c")],
                [str(a.alloc_rounds)]),
        # threaded code: OpenMP tasks on libgomp's threads, a call per element
        Program("omp", "omp msort %dM ints" % (a.omp_n >> 20), [os.path.join(HERE, "omp_msort.c")],
                [str(a.omp_n)], cflags=["-fopenmp"], libs=["-fopenmp"]),
        Program("bzip2", "bzip2 " + size,
                [os.path.join(bz, f) for f in ["blocksort.c", "huffman.c", "crctable.c",
                                               "randtable.c", "compress.c", "decompress.c",
                                               "bzlib.c", "bzip2.c"]],
                ["-c", "-9", "{input}"], cflags=["-D_FILE_OFFSET_BITS=64"],
                third_party=True, callgrind=True),
        Program("minigzip", "minigzip " + size,
                [os.path.join(zl, f) for f in zlib_c] + [os.path.join(zl, "test", "minigzip.c")],
                ["-c", "{input}"], cflags=["-D_LARGEFILE64_SOURCE=1", "-I", zl],
                third_party=True, callgrind=True),
        # an interpreter: a call every few ns, from Debian's gawk, on the text
        Program("gawk", "gawk " + size,
                [os.path.join(gk, f + ".c") for f in GAWK_C] +
                [os.path.join(gk, "support", f + ".c") for f in GAWK_SUPPORT_C],
                [GAWK_SCRIPT, "{input}"], cflags=GAWK_DEFS + ["-I", gk, "-I", os.path.join(gk, "support")],
                third_party=True, callgrind=True, prepare=configure_gawk, libs=["-lm"]),
        # a JSON processor, from Debian's jq, on generated records
        Program("jq", "jq %d records" % a.json_records,
                [os.path.join(jq, "src", f + ".c") for f in JQ_C],
                ["-c", JQ_SCRIPT, "{input}"], cflags=JQ_DEFS + ["-I", jq],
                third_party=True, callgrind=True, input="json", prepare=prepare_jq,
                libs=["-lm", "-lpthread"], same_calls=False),
        # a large program (sqlite3's 240k-line amalgamation and its shell),
        # from Debian's sqlite3, on a generated SQL workload
        Program("sqlite3", "sqlite3 %d rows" % a.sql_rows,
                [os.path.join(sq, "sqlite3.c"), os.path.join(sq, "shell.c")],
                [":memory:", ".read {input}"], cflags=SQLITE_DEFS + ["-I", sq],
                third_party=True, input="sql", prepare=prepare_sqlite, libs=["-lm"]),
    ]


# gawk 5.2: the sources of its `gawk` program and libsupport.a (Makefile.am),
# compiled as its Makefile does, with the config.h of one plain configure
# (no readline, MPFR, NLS, persistent memory or extensions: nothing but libc).
GAWK_C = ["array", "awkgram", "builtin", "cint_array", "command", "debug", "eval", "ext",
          "field", "floatcomp", "gawkapi", "gawkmisc", "int_array", "io", "main", "mpfr",
          "msg", "node", "profile", "re", "replace", "str_array", "symbol", "version"]
GAWK_SUPPORT_C = ["dfa", "getopt", "getopt1", "localeinfo", "random", "regex"]
GAWK_DEFS = ['-DDEFPATH=".:/usr/share/awk"', '-DDEFLIBPATH="/usr/lib/gawk"', '-DSHLIBEXT="so"',
             "-DHAVE_CONFIG_H", "-DGAWK", '-DLOCALEDIR="/usr/share/locale"']
# word counts, upper-casing and a regex substitution per line: about 1 s on 10 MB
GAWK_SCRIPT = ('{ $0 = toupper($0); v += gsub(/[AEIOU]+/, "&"); '
               'for (i = 1; i <= NF; i++) { n[$i]++; l += length($i) } } '
               'END { for (w in n) { k++; if (n[w] > m) { m = n[w]; b = w } }; print k, b, m, v, l }')


def configure_gawk(a, p):
    d = os.path.dirname(p.sources[0])
    if not os.path.exists(os.path.join(d, "config.h")):
        print("bench: configuring gawk", file=sys.stderr, flush=True)
        run_quiet(["./configure", "--disable-nls", "--without-readline", "--disable-mpfr",
                   "--disable-pma", "--disable-extensions", "CC=" + a.cc, "CFLAGS=-O2"], cwd=d)


# jq 1.6: the sources of its `jq` program (Makefile.am), without oniguruma
# (regular expression builtins then fail; the script uses none), with the
# -D flags configure would find on glibc, and the two files make generates.
JQ_C = ["builtin", "bytecode", "compile", "execute", "jq_test", "jv", "jv_alloc", "jv_aux",
        "jv_dtoa", "jv_file", "jv_parse", "jv_print", "jv_unicode", "lexer", "linker",
        "locfile", "parser", "util", "main"]
JQ_DEFS = ["-D" + d for d in (
    "IEEE_8087", "HAVE_ISATTY", "HAVE_MKSTEMP", "HAVE_STRFTIME", "HAVE_STRPTIME", "HAVE_TIMEGM",
    "HAVE_GMTIME_R", "HAVE_GMTIME", "HAVE_LOCALTIME_R", "HAVE_GETTIMEOFDAY",
    "HAVE_PTHREAD_KEY_CREATE", "HAVE_PTHREAD_ONCE", "HAVE___THREAD", "HAVE_ALLOCA_H",
    "HAVE_ALLOCA", "HAVE_MEMMEM", "HAVE_TM_TM_GMT_OFF", "HAVE_ACOS", "HAVE_ASIN", "HAVE_ATAN",
    "HAVE_COS", "HAVE_SIN", "HAVE_TAN", "HAVE_EXP", "HAVE_LOG", "HAVE_POW", "HAVE_SQRT",
    "HAVE_FLOOR", "HAVE_CEIL", "HAVE_FABS", "HAVE_ROUND", "HAVE_TRUNC", "HAVE_FMOD",
    "HAVE_FREXP", "HAVE_MODF", "HAVE_LDEXP")]
# filter, reshape, group and sum records: about 1 s on 100000 records
JQ_SCRIPT = ('map(select(.score > 25) | {id, n: (.name | length), t: (.tags | join(",")), '
             'd: (.pos.x * .pos.x + .pos.y * .pos.y | sqrt | floor)}) | group_by(.n) | '
             'map({n: .[0].n, c: length, t: (map(.d) | add)})')


def prepare_jq(a, p):
    """src/builtin.inc and src/version.h, as jq's Makefile makes them."""
    d = os.path.dirname(os.path.dirname(p.sources[0]))
    inc = os.path.join(d, "src", "builtin.inc")
    if not os.path.exists(inc):
        with open(os.path.join(d, "src", "builtin.jq")) as f:
            lines = f.read().splitlines()
        with open(inc + ".tmp", "w") as f:
            for line in lines:
                f.write('"%s\\n"\n' % line.replace("\\", "\\\\").replace('"', '\\"'))
        os.replace(inc + ".tmp", inc)
    with open(os.path.join(d, "src", "version.h"), "w") as f:
        f.write('#define JQ_VERSION "1.6"\n')


# sqlite 3.40: the amalgamation and the shell, as its Makefile makes them
# (tclsh runs its generators), built single-threaded without extension
# loading: nothing but libc and libm.
SQLITE_DEFS = ["-DSQLITE_THREADSAFE=0", "-DSQLITE_OMIT_LOAD_EXTENSION", "-DHAVE_USLEEP=1",
               "-DSQLITE_ENABLE_MATH_FUNCTIONS"]


def prepare_sqlite(a, p):
    d = os.path.dirname(p.sources[0])
    if all(os.path.exists(f) for f in p.sources):
        return
    if not shutil.which("tclsh"):
        raise Fatal("sqlite3's amalgamation is made by tclsh: install tcl (sh mk/deps.sh --bench)")
    print("bench: making sqlite3's amalgamation", file=sys.stderr, flush=True)
    run_quiet(["./configure", "--disable-tcl", "--disable-readline", "--disable-editline",
               "--disable-load-extension", "--disable-threadsafe", "CC=" + a.cc, "CFLAGS=-O2"], cwd=d)
    run_quiet(["make", "sqlite3.c", "shell.c"], cwd=d)


def gen_sql(path, rows):
    """A SQL script: a table of rows rows and an index, then aggregates,
    joins, sorts and updates over it (about 1.3 s for 400000 rows here)."""
    with open(path + ".tmp", "w") as f:
        f.write("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL, d INTEGER);\n"
                "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM n WHERE x<%d)\n"
                "INSERT INTO t SELECT x, printf('row %%d', (x * 7919) %% %d), x * 1.5, x %% 97 FROM n;\n"
                "CREATE INDEX tb ON t(b);\n"
                "CREATE TABLE u AS SELECT d, count(*) AS n, sum(c) AS s FROM t GROUP BY d;\n"
                "SELECT count(*), sum(c), max(b) FROM t WHERE a %% 7 = 3;\n"
                "SELECT u.d, u.n, round(u.s) FROM u JOIN t ON t.d = u.d AND t.a %% 1000 = 1 "
                "ORDER BY u.s DESC LIMIT 5;\n"
                "SELECT b, count(*) FROM t GROUP BY b ORDER BY count(*) DESC, b LIMIT 3;\n"
                "UPDATE t SET c = c + 1 WHERE a %% 3 = 0;\n"
                "SELECT sum(length(b)), total(c) FROM t WHERE b LIKE 'row 1%%';\n"
                "DELETE FROM t WHERE d = 5;\n"
                "SELECT count(*), sum(a) FROM t;\n" % (rows, rows))
    os.replace(path + ".tmp", path)


def gen_json(path, n):
    """n JSON records (id, name, score, tags, pos), the same for a given n."""
    rng = random.Random(SEED)
    syl = ["ba", "en", "tion", "qu", "ri", "com", "ver", "ing", "ex", "al", "or", "li"]
    with open(path + ".tmp", "w") as f:
        f.write("[\n")
        for i in range(n):
            rec = {"id": i, "name": "".join(rng.choice(syl) for _ in range(rng.randint(1, 4))),
                   "score": round(rng.random() * 100, 3),
                   "tags": [rng.choice(syl) for _ in range(rng.randint(0, 5))],
                   "pos": {"x": rng.randint(-1000, 1000), "y": rng.randint(-1000, 1000)}}
            f.write(json.dumps(rec, separators=(",", ":")) + (",\n" if i + 1 < n else "\n"))
        f.write("]\n")
    os.replace(path + ".tmp", path)


VARIANTS = ["plain", "empty", "floor", "gprof", "libprof", "plugin", "plugin-abi1", "plugin-surv"]
PLUGIN_VARIANTS = {"plugin": [], "plugin-abi1": ["--deepprof-arg=abi=1"],
                   "plugin-surv": ["--deepprof-arg=calls=surviving"]}
OPTIONAL = set()                # variants measured only where they build and run correctly
INSTRUMENTED = ["libprof", "plugin", "plugin-abi1", "plugin-surv"]   # write Deep.data


# ---------------------------------------------------------------- building

def run_quiet(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    if r.returncode != 0:
        tail = r.stderr.decode(errors="replace").strip().splitlines()[-6:]
        raise Fatal("`%s` failed (exit %d):\n  %s" % (" ".join(cmd[:6]) + (" ..." if len(cmd) > 6 else ""),
                                                     r.returncode, "\n  ".join(tail)))
    return r


def run_cpu(cmd):
    """Run cmd quietly; return the CPU seconds (user+sys) of it and of every
    process it waited for (the compiler driver's cc1, as, ld). Raises Fatal."""
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    err = p.stderr.read()
    p.stderr.close()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        tail = err.decode(errors="replace").strip().splitlines()[-4:]
        raise Fatal("`%s` failed (exit %d): %s" % (
            " ".join(cmd[:6]) + (" ..." if len(cmd) > 6 else ""), p.returncode,
            " | ".join(tail)))
    return ru.ru_utime + ru.ru_stime


def text_size(exe):
    """The text size of exe (Berkeley `size`: .text, .rodata and the like)."""
    out = run_quiet(["size", "-B", exe]).stdout.decode().splitlines()
    return int(out[1].split()[0])


class Build:
    """What building the programs gave: exes {(prog, variant): path}; cpu
    {(prog, variant): compile+link CPU s}; text {(prog, variant): bytes};
    broken {(prog, variant): message} for builds that failed (an OPTIONAL
    variant's failure only means it is not available yet)."""

    def __init__(self):
        self.exes, self.cpu, self.text, self.broken = {}, {}, {}, {}


def variants(a):
    return [v for v in VARIANTS if v not in PLUGIN_VARIANTS or a.deepprof_cc]


def build_all(a, progs, bdir):
    """Compile every program in every variant; return a Build. Only a plain
    build's failure raises."""
    obj_root = os.path.join(bdir, "obj")
    bin_dir = os.path.join(bdir, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    hooks = os.path.join(obj_root, "empty_hooks.o")
    os.makedirs(obj_root, exist_ok=True)
    run_quiet([a.cc, "-std=gnu11", "-O2"] + a.warn + ["-c", os.path.join(HERE, "empty_hooks.c"),
                                                    "-o", hooks])
    floor = os.path.join(obj_root, "floor_hooks.o")
    run_quiet([a.cc, "-std=gnu11", "-O2"] + a.warn + ["-c", os.path.join(HERE, "floor_hooks.c"),
                                                    "-o", floor])
    vflags = {"plain": [], "empty": ["-finstrument-functions"], "floor": ["-finstrument-functions"],
              "gprof": ["-pg"], "libprof": ["-finstrument-functions"]}
    vlink = {"plain": [], "empty": [hooks], "floor": [floor], "gprof": ["-pg"],
             "libprof": [a.libprof] + shlex.split(a.libs)}
    vcc = {v: [a.cc] for v in vflags}
    for v, args in PLUGIN_VARIANTS.items():
        vflags[v] = []
        vlink[v] = []
        vcc[v] = [a.deepprof_cc, "--deepprof-mode=plugin", "--deepprof-cc=" + a.cc] + args
    b = Build()
    jobs = []
    links = {}
    for p in progs:
        for v in variants(a):
            od = os.path.join(obj_root, p.name, v)
            os.makedirs(od, exist_ok=True)
            objs = []
            for s in p.sources:
                o = os.path.join(od, os.path.basename(s)[:-2] + ".o")
                warn = ["-w"] if p.third_party else ["-std=gnu11"] + a.warn
                jobs.append(((p.name, v), vcc[v] + ["-O2", "-g"] + warn + p.cflags + vflags[v]
                             + ["-c", s, "-o", o]))
                objs.append(o)
            exe = os.path.join(bin_dir, "%s-%s" % (p.name, v))
            if os.path.exists(exe):
                os.unlink(exe)
            links[(p.name, v)] = (exe, vcc[v] + ["-o", exe] + objs + vlink[v] + p.libs)
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = [(key, pool.submit(run_cpu, cmd)) for key, cmd in jobs]
        for key, f in futures:
            try:
                b.cpu[key] = b.cpu.get(key, 0.0) + f.result()
            except Fatal as e:
                if key[1] == "plain":
                    raise
                b.broken.setdefault(key, str(e))
    for key, (exe, cmd) in links.items():
        if key in b.broken:
            continue
        try:
            b.cpu[key] += run_cpu(cmd)
        except Fatal as e:
            if key[1] == "plain":
                raise
            b.broken[key] = str(e)
            continue
        b.exes[key] = exe
        b.text[key] = text_size(exe)
    for key, msg in sorted(b.broken.items()):
        if key[1] not in OPTIONAL:
            print("bench: %s %s does not build: %s" % (key[0], key[1], msg), file=sys.stderr,
                  flush=True)
    return b


# ---------------------------------------------------------------- running

PIN = []      # taskset prefix, set by --pin


def timed(cmd, cwd, out_path):
    """Run cmd in cwd with stdout to out_path; return (cpu_s, wall_s)."""
    cmd = PIN + cmd
    with open(out_path, "wb") as out, open(os.devnull, "rb") as nul:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=cwd, stdin=nul, stdout=out, stderr=subprocess.PIPE)
        killer = threading.Timer(TIMEOUT, lambda: p.send_signal(signal.SIGKILL))
        killer.start()
        try:
            err = p.stderr.read()
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            killer.cancel()
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        tail = err.decode(errors="replace").strip().splitlines()[-3:]
        how = ("was killed by %s" % signal.Signals(-p.returncode).name if p.returncode < 0
               else "exited with %d" % p.returncode)
        raise Fatal("`%s` in %s %s%s" % (" ".join(cmd), cwd, how,
                                         (": " + " | ".join(tail)) if tail else ""))
    return ru.ru_utime + ru.ru_stime, wall


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class Series:
    """The timings of one program variant; failed runs are kept apart."""

    def __init__(self):
        self.cpu = []
        self.wall = []
        self.failures = []      # messages of runs that failed
        self.last_ok_dir = None

    def add(self, cpu, wall):
        self.cpu.append(cpu)
        self.wall.append(wall)

    def median(self):
        return statistics.median(self.cpu) if self.cpu else float("nan")


def clean_dir(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)


def measure(a, progs, b, bdir, inputs):
    """Run everything; return ({(prog, variant): Series}, {prog: (small plain, callgrind)}).
    A variant that crashes keeps its failures in its Series; one whose output
    differs from plain's is not run again (b.broken says why)."""
    runs_dir = os.path.join(bdir, "run")
    res = {(p.name, v): Series() for p in progs for v in variants(a)}
    cg = {p.name: (Series(), Series()) for p in progs if p.callgrind and a.callgrind}
    digests = {}
    for r in range(a.runs):
        for p in progs:
            argv = [x.replace("{input}", inputs[p.input]["big"]) for x in p.argv]
            for v in variants(a):
                key = (p.name, v)
                if key in b.broken or key not in b.exes:
                    continue
                # one directory per run: each leaves its own Deep.data / gmon.out
                d = os.path.join(runs_dir, "%s-%s" % key, str(r + 1))
                clean_dir(d)
                out = os.path.join(d, "out")
                s = res[key]
                try:
                    s.add(*timed([b.exes[key]] + argv, d, out))
                except Fatal as e:
                    if v == "plain":
                        raise
                    if v in OPTIONAL:
                        b.broken[key] = str(e)
                        continue
                    # keep going: a crash of one variant should not cost the others' numbers
                    s.failures.append(str(e))
                    print("bench: %s" % e, file=sys.stderr, flush=True)
                    continue
                s.last_ok_dir = d
                if key not in digests:
                    digests[key] = digest(out)
                    if digests[key] != digests[(p.name, "plain")]:
                        msg = "its output differs from the plain build's"
                        b.broken[key] = msg
                        if v not in OPTIONAL:
                            s.failures.append(msg)
                            print("bench: %s %s: %s" % (p.name, v, msg), file=sys.stderr,
                                  flush=True)
                        s.cpu, s.wall = [], []
            if p.name in cg:
                small = [x.replace("{input}", inputs[p.input]["small"]) for x in p.argv]
                plain_s, cg_s = cg[p.name]
                d = os.path.join(runs_dir, "%s-plain-small" % p.name)
                clean_dir(d)
                plain_s.add(*timed([b.exes[(p.name, "plain")]] + small, d, os.path.join(d, "out")))
                if r < a.cg_runs:
                    d = os.path.join(runs_dir, "%s-callgrind" % p.name)
                    clean_dir(d)
                    cmd = ["valgrind", "--tool=callgrind", "--dump-instr=no",
                           "--callgrind-out-file=" + os.path.join(d, "callgrind.out"),
                           b.exes[(p.name, "plain")]] + small
                    cg_s.add(*timed(cmd, d, os.path.join(d, "out")))
        print("bench: round %d of %d done" % (r + 1, a.runs), file=sys.stderr, flush=True)
    return res, cg


def deep_data_stats(a, progs, res, b):
    """{(prog, variant): (n_csd, file_bytes, mem_bytes, calls) or a message}
    from the last good run of each instrumented variant. plugin-abi1's
    profile must read and have the plugin (ABI v2) build's call total (the
    same source-level calls) when the program makes the same calls in every
    run (jq 1.6's object hashing varies from run to run): otherwise it goes
    to b.broken."""
    stats = {}
    for p in progs:
        for v in [v for v in INSTRUMENTED if v in variants(a)]:
            key = (p.name, v)
            d = res[key].last_ok_dir
            if key in b.broken:
                continue
            if d is None:
                stats[key] = "every run failed"
                continue
            files = sorted(f for f in os.listdir(d) if f.startswith("Deep.data"))
            if not files:
                stats[key] = "no Deep.data written"
                continue
            path = os.path.join(d, files[0])
            r = subprocess.run([a.deepprof, "dump", "--json", path],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if r.returncode != 0:
                stats[key] = "deepprof dump failed: " + r.stderr.decode(errors="replace").strip()[:200]
                continue
            try:
                doc = json.loads(r.stdout)
                stats[key] = (len(doc["csd"]), os.path.getsize(path),
                              int(doc["header"]["mem_bytes"]), int(doc["header"]["calls"]))
            except (ValueError, KeyError, TypeError) as e:
                stats[key] = "unexpected dump --json layout (%s)" % e
        key, ref = (p.name, "plugin-abi1"), stats.get((p.name, "plugin"))
        if key in stats:
            st = stats.pop(key)
            if not isinstance(st, tuple):
                b.broken[key] = st
            elif isinstance(ref, tuple) and st[3] != ref[3] and p.same_calls:
                b.broken[key] = "its Deep.data has %d calls, the ABI v2 build's %d" % (st[3], ref[3])
            else:
                stats[key] = st
    return stats


CLOCKLESS = ["plain", "plugin", "plugin-surv"]   # the variants measured without a clock


def clockless(a, progs, b, bdir, inputs):
    """{(prog, variant): (instructions, I1 misses) or a message}: the real
    programs' plain and plugin builds under cachegrind on the small input,
    libprof's clock off (DEEPPROF_HZ=0): figures this VM's timing noise
    (a few percent from run to run) does not move."""
    counts = {}
    if not a.callgrind:
        return counts
    for p in progs:
        if not p.third_party:
            continue
        small = [x.replace("{input}", inputs[p.input]["small"]) for x in p.argv]
        for v in CLOCKLESS:
            key = (p.name, v)
            if key in b.broken or key not in b.exes:
                continue
            try:
                ir, i1, _ = cachegrind_counts(b.exes[key], small,
                                              os.path.join(bdir, "run", "%s-%s-cachegrind" % key),
                                              {"DEEPPROF_HZ": "0"})
                counts[key] = (ir, i1)
            except (Fatal, subprocess.TimeoutExpired) as e:
                counts[key] = str(e)
                print("bench: %s" % e, file=sys.stderr, flush=True)
    return counts


def progrep_size(exe):
    """The size in bytes of exe's .deepprof.progrep section, or None."""
    r = subprocess.run(["readelf", "-SW", exe], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    for line in r.stdout.decode(errors="replace").splitlines():
        f = line.replace("[ ", "[").split()
        if ".deepprof.progrep" in f:
            i = f.index(".deepprof.progrep")
            try:
                return int(f[i + 4], 16)    # name type address offset size
            except (IndexError, ValueError):
                return None
    return None


def tool_output(cmd, cwd):
    """cmd's stdout; Fatal naming the subcommand and its last line of
    stderr (the reason) when it fails."""
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        why = r.stderr.decode(errors="replace").strip().splitlines()
        raise Fatal("deepprof %s exited with %d: %s" % (cmd[1], r.returncode,
                                                        why[-1][:300] if why else "no message"))
    return r.stdout.decode(errors="replace")


def tool_times(a, progs, res, b):
    """{(prog, variant): {functions, bytes, progrep: Series, feedback: Series}
    or a message} for every plugin build with a Deep.data: `deepprof progrep
    EXE` and `deepprof feedback DEEP.DATA -o OUT.json`, a.fb_runs times each,
    interleaved. A tool that fails is a failure of the bench."""
    out = {}
    dp = os.path.abspath(a.deepprof)        # the tools run in the run's directory
    for p in progs:
        for v in [v for v in PLUGIN_VARIANTS if v in variants(a)]:
            key = (p.name, v)
            d = res[key].last_ok_dir
            if key in b.broken or key not in b.exes or d is None:
                continue
            files = sorted(f for f in os.listdir(d) if f.startswith("Deep.data"))
            if not files:
                continue
            exe, data = b.exes[key], os.path.join(d, files[0])
            t = {"functions": None, "bytes": progrep_size(exe), "progrep": Series(),
                 "feedback": Series()}
            tdir = os.path.join(d, "tools")
            clean_dir(tdir)
            fb = [dp, "feedback", data, "-o", os.path.join(tdir, "feedback.json")]
            try:
                first = tool_output([dp, "progrep", exe], tdir).split("\n", 1)[0]
                for part in first.split(","):        # "EXE: 2 TUs, 2688 functions; ..."
                    w = part.split()
                    if len(w) >= 2 and w[1].startswith("functions"):
                        t["functions"] = int(w[0])
                tool_output(fb, tdir)
                for _ in range(a.fb_runs):
                    t["progrep"].add(*timed([dp, "progrep", exe], tdir,
                                            os.path.join(tdir, "progrep.out")))
                    t["feedback"].add(*timed(fb, tdir, os.path.join(tdir, "feedback.out")))
            except Fatal as e:
                out[key] = str(e)
                print("bench: %s %s: %s" % (p.name, v, out[key]), file=sys.stderr, flush=True)
                continue
            out[key] = t
    return out


# ---------------------------------------------------------------- report

def fmt_s(x):
    return "%.3f" % x if x < 100 else "%.1f" % x


def report(a, progs, res, cg, stats, b, load_before, started, tools=None, clock_free=None):
    L = []
    L.append("deepprof bench — %s UTC, %s, %d cores, %s" % (
        started.strftime("%Y-%m-%d %H:%M"), platform.node(), os.cpu_count() or 0,
        subprocess.run([a.cc, "--version"], stdout=subprocess.PIPE).stdout.decode().splitlines()[0]))
    if not progs:
        return L
    L.append("CPU seconds (user+sys), median of %d runs (min-max); wall median beside; "
             "load average before %.2f, after %.2f%s" % (a.runs, load_before, os.getloadavg()[0],
                                                       "; pinned to CPU " + a.pin if a.pin else ""))
    L.append("")
    hdr = "%-16s %-11s %9s  %-17s %9s %8s %8s" % ("program", "variant", "median s", "(min-max)",
                                                  "wall s", "x plain", "x empty")
    L.append(hdr)
    L.append("-" * len(hdr))
    notes = []
    for p in progs:
        plain = res[(p.name, "plain")].median()
        empty = res[(p.name, "empty")].median()
        for v in variants(a):
            s = res[(p.name, v)]
            if (p.name, v) in b.broken and not s.failures:
                why = b.broken[(p.name, v)]
                L.append("%-16s %-11s %9s  %s" % (p.label, v, "-", "not available" if v in OPTIONAL
                                                   else "FAILED"))
                notes.append("  %s %s: %s" % (p.name, v, why.splitlines()[0][:300]))
                continue
            m = s.median()
            mark = ""
            if v == "libprof" and s.cpu:
                mark = "  target <=%.1fx empty: %s" % (
                    TARGET_VS_EMPTY, "met" if m / empty <= TARGET_VS_EMPTY else "MISSED")
            if v in PLUGIN_VARIANTS and s.cpu and p.name != "alloc":
                t = TARGET_PLUGIN_FIB if p.name == "fib" else TARGET_PLUGIN_REAL
                mark = "  target <=%.1fx plain: %s" % (t, "met" if m / plain <= t else "MISSED")
            if s.failures:
                mark += "  %d of %d runs FAILED" % (len(s.failures), a.runs)
                notes.append("  %s %s failed: %s" % (p.name, v, s.failures[0]))
            if not s.cpu:
                L.append("%-16s %-11s %9s%s" % (p.label, v, "-", mark))
                continue
            L.append("%-16s %-11s %9s  %-17s %9s %8.2f %8.2f%s" % (
                p.label, v, fmt_s(m), "(%s-%s)" % (fmt_s(min(s.cpu)), fmt_s(max(s.cpu))),
                fmt_s(statistics.median(s.wall)), m / plain, m / empty, mark))
        if p.name in cg:
            ps, cs = cg[p.name]
            ratio = cs.median() / ps.median()
            scale = plain / ps.median()
            L.append("%-16s %-11s %9s  %-17s %9s %8.2f %8.2f" % (
                p.label, "callgrind", "~" + fmt_s(ratio * plain),
                "(~%s-%s)" % (fmt_s(min(cs.cpu) * scale), fmt_s(max(cs.cpu) * scale)),
                "", ratio, ratio * plain / empty))
            notes.append("  %s callgrind: %d run(s) on a 1/%d input: %s s vs plain %s s on it; "
                         "seconds scaled by that ratio" % (p.name, len(cs.cpu), a.cg_shrink,
                                                           fmt_s(cs.median()), fmt_s(ps.median())))
        L.append("")
    cg_notes = [n for n in notes if " callgrind: " in n]
    fail_notes = [n for n in notes if " callgrind: " not in n]
    if cg_notes:
        L.append("~ callgrind runs the plain binary on a smaller input (same file, first 1/%d):"
                 % a.cg_shrink)
        L.extend(cg_notes)
        L.append("")
    if fail_notes:
        L.append("failed or unavailable variants (first message of each; medians are over the "
                 "runs that worked):")
        L.extend(fail_notes)
        L.append("")

    L.append("target: libprof within %.1fx of the empty-hook build" % TARGET_VS_EMPTY)
    for p in progs:
        r = res[(p.name, "libprof")].median() / res[(p.name, "empty")].median()
        if r != r:      # NaN: no libprof or empty run worked
            L.append("  %-16s libprof / empty = n/a     MISSED (no successful run)" % p.label)
            continue
        fl = res[(p.name, "floor")].median() / res[(p.name, "empty")].median()
        L.append("  %-16s libprof / empty = %5.2f   %s   (floor hooks / empty = %5.2f)" % (
            p.label, r, "met" if r <= TARGET_VS_EMPTY else "MISSED", fl))
    L.append("")
    pv = [v for v in PLUGIN_VARIANTS if v in variants(a)]
    if pv:
        L.append("target (issue 4, plugin route): real program <= %.1fx plain, naive fib <= %.1fx"
                 % (TARGET_PLUGIN_REAL, TARGET_PLUGIN_FIB))
        for p in progs:
            if p.name == "alloc":
                continue
            t = TARGET_PLUGIN_FIB if p.name == "fib" else TARGET_PLUGIN_REAL
            cells = []
            for v in pv:
                r = res[(p.name, v)].median() / res[(p.name, "plain")].median()
                cells.append("%s %s" % (v, "n/a" if r != r else "%.2fx %s" % (
                    r, "met" if r <= t else "MISSED")))
            L.append("  %-16s %s" % (p.label, ";  ".join(cells)))
        L.append("")

    timed_builds = [n for n in ("bzip2", "sqlite3") if (n, "plain") in b.exes]
    L.append("Build cost against plain: CPU s to compile and link %s (-O2 -g, 2 compiles at a "
             "time); text size of each binary (size -B)" % " and ".join(
                 "bzip2 (8 files)" if n == "bzip2" else "sqlite3 (the 240k-line amalgamation and "
                 "its shell)" for n in timed_builds))
    cols = [p for p in progs]
    hdr = "  %-11s" % "variant" + "".join(" %9s %7s" % (n + " s", "x") for n in timed_builds) + "".join(
        " %17s" % ("%s text x" % p.name) for p in cols)
    L.append(hdr)
    for v in variants(a):
        row = "  %-11s" % v
        for n in timed_builds:
            c = b.cpu.get((n, v)) if (n, v) in b.exes else None
            row += " %9s %7s" % ("-" if c is None else "%.2f" % c,
                                 "-" if c is None else "%.2f" % (c / b.cpu[(n, "plain")]))
        for p in cols:
            t = b.text.get((p.name, v))
            row += " %17s" % ("-" if t is None else "%d %5.2f" % (t, t / b.text[(p.name, "plain")]))
        L.append(row)
    L.append("  (libprof and plugin binaries include libprof.a's own code: about the same "
             "bytes in each)")
    if ("sqlite3", "plain") in b.exes and ("sqlite3", "plugin") in b.exes:
        x = b.cpu[("sqlite3", "plugin")] / b.cpu[("sqlite3", "plain")]
        L.append("target: the plugin build's compile time within %.1fx of plain on the large "
                 "program (sqlite3): %.2fx %s" % (TARGET_COMPILE_X, x,
                                                 "met" if x <= TARGET_COMPILE_X else "MISSED"))
    L.append("")

    L.append("Deep.data of the instrumented runs (deepprof dump --json):")
    L.append("  %-16s %-11s %8s %12s %10s %12s %10s" % ("program", "variant", "csds",
                                                        "file bytes", "bytes/csd",
                                                        "mem_bytes", "mem/csd"))
    for p in progs:
        for v in [v for v in INSTRUMENTED if v in variants(a)]:
            st = stats.get((p.name, v))
            if st is None:
                continue
            if isinstance(st, tuple):
                n, size, mem, _ = st
                L.append("  %-16s %-11s %8d %12d %10.1f %12d %10.1f" % (
                    p.label, v, n, size, size / n if n else 0.0, mem, mem / n if n else 0.0))
            else:
                L.append("  %-16s %-11s %s" % (p.label, v, st))
    L.append("")

    if clock_free:
        L.append("Measured without a clock (issue 14): instructions executed and I1 (32 KiB) "
                 "misses under cachegrind on 1/%d of the input, libprof's clock off "
                 "(DEEPPROF_HZ=0); x plain" % a.cg_shrink)
        hdr = "  %-16s %-11s %14s %8s %12s %8s" % ("program", "variant", "instructions", "x plain",
                                                  "I1 misses", "x plain")
        L.append(hdr)
        for p in progs:
            base = clock_free.get((p.name, "plain"))
            for v in CLOCKLESS:
                c = clock_free.get((p.name, v))
                if c is None:
                    continue
                if not isinstance(c, tuple):
                    L.append("  %-16s %-11s FAILED: %s" % (p.label, v, c[:200]))
                    continue
                ok = isinstance(base, tuple)
                L.append("  %-16s %-11s %14d %8s %12d %8s" % (
                    p.label, v, c[0], "%.3f" % (c[0] / base[0]) if ok and base[0] else "-",
                    c[1], "%.1f" % (c[1] / base[1]) if ok and base[1] else "-"))
        L.append("")

    if tools:
        L.append("Reading the program representation (issue 14): CPU s, median of %d runs "
                 "(min-max), of `deepprof progrep BINARY` and of `deepprof feedback Deep.data` "
                 "on the last good run's profile" % a.fb_runs)
        hdr = "  %-16s %-11s %9s %11s %9s  %-15s %11s  %-15s" % (
            "program", "variant", "functions", "progrep KB", "progrep s", "(min-max)",
            "feedback s", "(min-max)")
        L.append(hdr.rstrip())
        for p in progs:
            for v in PLUGIN_VARIANTS:
                t = tools.get((p.name, v))
                if t is None:
                    continue
                if not isinstance(t, dict):
                    L.append("  %-16s %-11s FAILED: %s" % (p.label, v, t))
                    continue
                cells = []
                for k in ("progrep", "feedback"):
                    s = t[k]
                    cells += [fmt_s(s.median()), "(%s-%s)" % (fmt_s(min(s.cpu)), fmt_s(max(s.cpu)))]
                L.append(("  %-16s %-11s %9s %11s %9s  %-15s %11s  %-15s" % (
                    p.label, v, "?" if t["functions"] is None else t["functions"],
                    "?" if t["bytes"] is None else "%.0f" % (t["bytes"] / 1e3), *cells)).rstrip())
        L.append("")
    return L


# ---------------------------------------------------------------- the use build (--pgo)
#
# Issue 12, "hot and cold code": each real program rebuilt with the feedback
# of its own workload, against plain -O2 and GCC's own profile-guided build,
# side by side in one run:
#
#   plain  gcc -O2 -g                                  the baseline
#   use    deepprof-cc -O2 -g --deepprof-use=FB --deepprof-parallelize=none
#          FB: `deepprof feedback` on the Deep.data of a deepprof-cc (plugin)
#          build run on the workload, with --program-time = the plain
#          build's time on it (so costs are in the uninstrumented program's ns)
#   pgo    gcc -O2 -g -fprofile-use, after a -fprofile-generate build ran
#          the workload once
#
# The three are timed in rounds (each round runs every build once, the order
# rotating from round to round); every build's output must equal plain's.
# "x plain" is the ratio of medians; "noise" is 2 x the median absolute
# deviation of plain's runs over its median (at least 0.5%): a ratio above
# 1 + noise is marked SLOWER, one below 1 - noise faster. .text.hot and
# .text.unlikely are the bytes the compiler put in those sections, summed
# over the build's objects (the linker merges them into .text).

PGO_PROGRAMS = ["bzip2", "minigzip", "gawk", "jq"]
PGO_VARIANTS = ["plain", "use", "pgo"]
PGO_NOISE_FLOOR = 0.005


def compile_link(a, p, od, exe, cc, cflags, ldflags=(), stderr_to=None):
    """Compile p's sources into od with cc + cflags (a.jobs at a time) and
    link exe with cc + ldflags; return (CPU s, the objects). The compilers'
    stderr is appended to stderr_to when given (remarks). Raises Fatal."""
    os.makedirs(od, exist_ok=True)
    objs, jobs = [], []
    for s in p.sources:
        o = os.path.join(od, os.path.basename(s)[:-2] + ".o")
        objs.append(o)
        jobs.append(cc + ["-O2", "-g", "-w"] + p.cflags + list(cflags) + ["-c", s, "-o", o])

    def one(cmd):
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        if r.returncode != 0:
            tail = r.stderr.decode(errors="replace").strip().splitlines()[-4:]
            raise Fatal("`%s` failed (exit %d): %s" % (
                " ".join(cmd[:6]) + " ...", r.returncode, " | ".join(tail)))
        return r.stderr
    before = os.times()
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        errs = list(pool.map(one, jobs))
    if os.path.exists(exe):
        os.unlink(exe)
    one(cc + ["-o", exe] + objs + list(ldflags) + p.libs)
    after = os.times()
    if stderr_to:
        with open(stderr_to, "ab") as f:
            for e in errs:
                f.write(e)
    return (after.children_user - before.children_user +
            after.children_system - before.children_system), objs


def hot_cold_bytes(objs):
    """{".text.hot": bytes, ".text.unlikely": bytes} summed over objs (size -A;
    a section .text.hot.NAME of -ffunction-sections counts too)."""
    tot = {".text.hot": 0, ".text.unlikely": 0}
    out = run_quiet(["size", "-A"] + objs).stdout.decode().splitlines()
    for line in out:
        f = line.split()
        if len(f) < 2 or not f[1].isdigit():
            continue
        for k in tot:
            if f[0] == k or f[0].startswith(k + "."):
                tot[k] += int(f[1])
    return tot


def count_remarks(path):
    """What the use build's remarks say: functions placed hot and cold, call
    sites predicted not taken (deepprof-cc --deepprof-remarks lines)."""
    n = {"hot": 0, "cold": 0, "cold_sites": 0}
    if not os.path.exists(path):
        return n
    seen = set()
    with open(path, errors="replace") as f:
        for line in f:
            if ": deepprof: " not in line or line in seen:
                continue
            seen.add(line)
            msg = line.split(": deepprof: ", 1)[1]
            if msg.startswith("hot: "):
                n["hot"] += 1
            elif msg.startswith("cold: the call of"):
                n["cold_sites"] += 1
            elif msg.startswith("cold: "):
                n["cold"] += 1
    return n


def pgo_build(a, p, bdir, argv):
    """Build p as plain, use and pgo (training the last two on argv);
    return {variant: exe}, {variant: {".text.hot": n, ...}}, info."""
    root = os.path.join(bdir, "pgo", p.name)
    os.makedirs(root, exist_ok=True)
    exes, sect, info = {}, {}, {"build_cpu": {}}
    cc = [a.cc]
    dcc = [a.deepprof_cc, "--deepprof-mode=plugin", "--deepprof-cc=" + a.cc]
    # plain
    exe = os.path.join(root, "%s-plain" % p.name)
    cpu, objs = compile_link(a, p, os.path.join(root, "obj-plain"), exe, cc, [])
    exes["plain"], sect["plain"] = exe, hot_cold_bytes(objs)
    info["build_cpu"]["plain"] = cpu
    # the plain build's time on the workload: the feedback's time scale
    d = os.path.join(root, "train-plain")
    clean_dir(d)
    plain_t, _ = timed([exe] + argv, d, os.path.join(d, "out"))
    # use: profile a plugin build on the workload, feedback, rebuild
    prof = os.path.join(root, "%s-profiled" % p.name)
    compile_link(a, p, os.path.join(root, "obj-profiled"), prof, dcc, [])
    d = os.path.join(root, "train-use")
    clean_dir(d)
    info["profiled_s"] = timed([prof] + argv, d, os.path.join(d, "out"))[0]
    data = [f for f in sorted(os.listdir(d)) if f.startswith("Deep.data")]
    if not data:
        raise Fatal("%s: the profiled build wrote no Deep.data in %s" % (p.name, d))
    fb = os.path.join(root, "feedback.json")
    tool_output([os.path.abspath(a.deepprof), "feedback", os.path.join(d, data[0]),
                 "--program-time=%.6fs" % plain_t, "-o", fb], d)
    with open(fb) as f:
        doc = json.load(f)
    info["feedback"] = {t: sum(1 for h in doc.get("hot_cold", []) if h["temp"] == t and
                               h["kind"] == k)
                        for t, k in (("hot", "proc"), ("never", "proc"))}
    info["feedback"]["never_sites"] = sum(1 for h in doc.get("hot_cold", [])
                                          if h["temp"] == "never" and h["kind"] == "site")
    remarks = os.path.join(root, "use-remarks.txt")
    if os.path.exists(remarks):
        os.unlink(remarks)
    exe = os.path.join(root, "%s-use" % p.name)
    cpu, objs = compile_link(a, p, os.path.join(root, "obj-use"), exe,
                             dcc + ["--deepprof-use=" + fb, "--deepprof-parallelize=none",
                                    "--deepprof-remarks"], [], stderr_to=remarks)
    exes["use"], sect["use"] = exe, hot_cold_bytes(objs)
    info["build_cpu"]["use"] = cpu
    info["remarks"] = count_remarks(remarks)
    # pgo: -fprofile-generate, run, -fprofile-use (the .gcda files sit
    # beside the objects: both builds compile into one directory)
    od = os.path.join(root, "obj-pgo")
    if os.path.isdir(od):
        for f in os.listdir(od):
            if f.endswith(".gcda"):
                os.unlink(os.path.join(od, f))
    gen = os.path.join(root, "%s-pgo-gen" % p.name)
    compile_link(a, p, od, gen, cc, ["-fprofile-generate"], ["-fprofile-generate"])
    d = os.path.join(root, "train-pgo")
    clean_dir(d)
    timed([gen] + argv, d, os.path.join(d, "out"))
    if not any(f.endswith(".gcda") for f in os.listdir(od)):
        raise Fatal("%s: the -fprofile-generate build wrote no .gcda in %s" % (p.name, od))
    exe = os.path.join(root, "%s-pgo" % p.name)
    cpu, objs = compile_link(a, p, od, exe, cc, ["-fprofile-use", "-Wno-missing-profile"])
    exes["pgo"], sect["pgo"] = exe, hot_cold_bytes(objs)
    info["build_cpu"]["pgo"] = cpu
    info["train_plain_s"] = plain_t
    return exes, sect, info


def paired(rounds, v):
    """Per-round ratios of variant v's CPU time to plain's in the same round
    (rounds: {variant: [cpu s or None per round]})."""
    return [x / y for x, y in zip(rounds[v], rounds["plain"]) if x and y]


def pgo_noise(ratios):
    """2 x the median absolute deviation of per-round ratios, at least
    PGO_NOISE_FLOOR (one round: the floor)."""
    if len(ratios) < 2:
        return PGO_NOISE_FLOOR
    m = statistics.median(ratios)
    return max(PGO_NOISE_FLOOR, 2 * statistics.median(abs(x - m) for x in ratios))


PGO_MIN_ROUNDS = 3     # fewer paired rounds give no verdict (--quick has one)


def pgo_verdict(ratio, noise, n):
    if ratio != ratio or n < PGO_MIN_ROUNDS:
        return "n/a"
    if ratio > 1 + noise:
        return "SLOWER"
    if ratio < 1 - noise:
        return "faster"
    return "same"


def cachegrind_counts(exe, argv, d, env=None):
    """Instructions executed and I1 misses of exe argv under cachegrind (its
    simulated caches: the same on a busy machine as on an idle one), run in d
    (with env, if given, added to the environment); (I refs, I1 misses,
    output digest). Raises Fatal."""
    clean_dir(d)
    out = os.path.join(d, "cg.out")
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file=" + out,
           exe] + argv
    with open(os.path.join(d, "out"), "wb") as o:
        r = subprocess.run(cmd, cwd=d, stdin=subprocess.DEVNULL, stdout=o, stderr=subprocess.PIPE,
                           timeout=TIMEOUT, env=dict(os.environ, **env) if env else None)
    err = r.stderr.decode(errors="replace")
    if r.returncode != 0:
        raise Fatal("`valgrind --tool=cachegrind %s` exited with %d" % (exe, r.returncode))
    got = {}
    for line in err.splitlines():
        for key, name in (("I   refs:", "ir"), ("I1  misses:", "i1")):
            if key in line:
                got[name] = int(line.split(key, 1)[1].split()[0].replace(",", ""))
    if len(got) != 2:
        raise Fatal("cachegrind on %s printed no I refs / I1 misses" % exe)
    return got["ir"], got["i1"], digest(os.path.join(d, "out"))


def run_pgo(a, progs, bdir, inputs, started, load_before):
    """The --pgo section: build, check and time; return (lines, doc, failed)."""
    progs = [p for p in progs if p.name in PGO_PROGRAMS]
    runs_dir = os.path.join(bdir, "pgo", "run")
    res = {(p.name, v): Series() for p in progs for v in PGO_VARIANTS}
    rounds = {p.name: {v: [] for v in PGO_VARIANTS} for p in progs}
    built, broken = {}, {}
    for p in progs:
        argv = [x.replace("{input}", inputs[p.input]["big"]) for x in p.argv]
        print("bench: --pgo: building %s three ways (and training two)" % p.name,
              file=sys.stderr, flush=True)
        try:
            built[p.name] = pgo_build(a, p, bdir, argv)
        except Fatal as e:
            broken[p.name] = str(e)
            print("bench: --pgo: %s: %s" % (p.name, e), file=sys.stderr, flush=True)
    loads = []
    digests = {}
    for r in range(a.runs):
        loads.append(os.getloadavg()[0])
        for p in progs:
            if p.name not in built:
                continue
            exes = built[p.name][0]
            argv = [x.replace("{input}", inputs[p.input]["big"]) for x in p.argv]
            order = PGO_VARIANTS[r % 3:] + PGO_VARIANTS[:r % 3]
            for v in order:
                key = (p.name, v)
                if key in broken:
                    continue
                d = os.path.join(runs_dir, "%s-%s" % key)
                clean_dir(d)
                out = os.path.join(d, "out")
                rounds[p.name][v].append(None)
                try:
                    res[key].add(*timed([exes[v]] + argv, d, out))
                except Fatal as e:
                    res[key].failures.append(str(e))
                    print("bench: --pgo: %s" % e, file=sys.stderr, flush=True)
                    continue
                rounds[p.name][v][-1] = res[key].cpu[-1]
                if key not in digests:
                    digests[key] = digest(out)
            for v in PGO_VARIANTS:
                key = (p.name, v)
                if v != "plain" and key in digests and (p.name, "plain") in digests and \
                        digests[key] != digests[(p.name, "plain")] and key not in broken:
                    broken[key] = "its output differs from the plain build's"
                    res[key].failures.append(broken[key])
                    res[key].cpu, res[key].wall = [], []
                    rounds[p.name][v] = [None] * len(rounds[p.name][v])
                    print("bench: --pgo: %s %s: %s" % (p.name, v, broken[key]),
                          file=sys.stderr, flush=True)
        print("bench: --pgo: round %d of %d done" % (r + 1, a.runs), file=sys.stderr, flush=True)
    load_after = os.getloadavg()[0]
    counts = {}
    if a.callgrind:
        print("bench: --pgo: instructions and I1 misses under cachegrind (1/%d input)"
              % a.cg_shrink, file=sys.stderr, flush=True)
        for p in progs:
            if p.name not in built:
                continue
            small = [x.replace("{input}", inputs[p.input]["small"]) for x in p.argv]
            for v in PGO_VARIANTS:
                if (p.name, v) in broken:
                    continue
                try:
                    counts[(p.name, v)] = cachegrind_counts(
                        built[p.name][0][v], small,
                        os.path.join(runs_dir, "%s-%s-cachegrind" % (p.name, v)))
                except (Fatal, subprocess.TimeoutExpired) as e:
                    counts[(p.name, v)] = str(e)
                    print("bench: --pgo: %s" % e, file=sys.stderr, flush=True)

    L = ["deepprof bench --pgo — %s UTC, %s, %d cores, %s" % (
        started.strftime("%Y-%m-%d %H:%M"), platform.node(), os.cpu_count() or 0,
        subprocess.run([a.cc, "--version"], stdout=subprocess.PIPE).stdout.decode().splitlines()[0])]
    L.append("Hot and cold code (issue 12): each program rebuilt with the feedback of its own "
             "workload.")
    L.append("  plain: gcc -O2;  use: deepprof-cc -O2 --deepprof-use=FB "
             "--deepprof-parallelize=none;  pgo: gcc -O2 -fprofile-generate, run, -fprofile-use")
    L.append("CPU seconds (user+sys), median of %d runs; the three builds run back to back in "
             "each round, in rotating order; x plain: the median of the rounds' ratios to plain, "
             "\u00b1 2 x their median absolute deviation (at least %.1f%%): beyond it, SLOWER or "
             "faster. Load average before %.2f, during %s, after %.2f." % (
                 a.runs, 100 * PGO_NOISE_FLOOR, load_before,
                 "-".join("%.2f" % x for x in (min(loads), max(loads))) if loads else "-",
                 load_after))
    L.append("")
    hdr = "%-20s %8s %8s %-22s %8s %-22s" % ("program", "plain s", "use s", "  x plain",
                                              "pgo s", "  x plain")
    L.append(hdr.rstrip())
    L.append("-" * len(hdr))
    doc = {"started": started.isoformat(), "runs": a.runs, "load_before": load_before,
           "load_during": loads, "load_after": load_after, "noise_floor": PGO_NOISE_FLOOR,
           "cachegrind_input": "1/%d" % a.cg_shrink if counts else None, "programs": {}}
    failed = 0
    for p in progs:
        if p.name in broken:
            L.append("%-20s FAILED to build or train: %s" % (p.label, broken[p.name][:300]))
            doc["programs"][p.name] = {"error": broken[p.name]}
            failed += 1
            continue
        exes, sect, info = built[p.name]
        plain = res[(p.name, "plain")]
        cells, entry = [], {"label": p.label, "sections": sect, "info": info}
        for v in PGO_VARIANTS:
            s = res[(p.name, v)]
            entry[v] = {"cpu": s.cpu, "wall": s.wall, "rounds": rounds[p.name][v],
                        "median": s.median() if s.cpu else None, "failures": s.failures}
            failed += len(s.failures)
            c = counts.get((p.name, v))
            if isinstance(c, tuple):
                entry[v].update(instructions=c[0], i1_misses=c[1])
            elif c:
                entry[v]["cachegrind_error"] = c
            if v == "plain":
                cells.append("%8s" % (fmt_s(s.median()) if s.cpu else "FAILED"))
                continue
            r = paired(rounds[p.name], v)
            if not s.cpu or not r or not plain.cpu:
                cells.append("%8s %-22s" % ("FAILED" if not s.cpu else fmt_s(s.median()), "  -"))
                continue
            ratio, noise = statistics.median(r), pgo_noise(r)
            verdict = pgo_verdict(ratio, noise, len(r))
            entry[v].update(ratio=ratio, noise=noise, verdict=verdict)
            spread = ("\u00b1%.1f%%" % (100 * noise) if len(r) >= PGO_MIN_ROUNDS else
                      "(%d round%s)" % (len(r), "" if len(r) == 1 else "s"))
            cells.append("%8s %-22s" % (fmt_s(s.median()), "  %.3f %s %s" % (
                ratio, spread, "" if verdict in ("same", "n/a") else verdict)))
        L.append(("%-20s %s" % (p.label, " ".join(cells))).rstrip())
        doc["programs"][p.name] = entry
    L.append("")
    L.append("The same builds, measured without a clock: instructions executed and I1 (32 KiB) "
             "misses under cachegrind on 1/%d of the input, x plain; and the bytes the compiler "
             "put in .text.hot / .text.unlikely (all objects), and the whole text (size -B)"
             % a.cg_shrink)
    hdr = "%-20s %13s %-16s %-16s %10s %-16s %-16s %-18s %-18s" % (
        "program", "plain instr", "use instr", "pgo instr", "plain I1", "use I1", "pgo I1",
        "use hot/unlikely", "pgo hot/unlikely")
    L.append(hdr.rstrip())
    L.append("-" * len(hdr))
    for p in progs:
        if p.name not in built:
            continue
        exes, sect, info = built[p.name]
        cg = {v: counts.get((p.name, v)) for v in PGO_VARIANTS}
        ok = all(isinstance(c, tuple) for c in cg.values())
        row = "%-20s " % p.label
        if ok:
            pi, p1 = cg["plain"][0], cg["plain"][1]
            row += "%13d %-16s %-16s %10d %-16s %-16s " % (
                pi, "%.4f" % (cg["use"][0] / pi), "%.4f" % (cg["pgo"][0] / pi), p1,
                "%.3f" % (cg["use"][1] / p1 if p1 else float("nan")),
                "%.3f" % (cg["pgo"][1] / p1 if p1 else float("nan")))
            for v in ("use", "pgo"):
                if cg[v][2] != cg["plain"][2] and p.same_calls:
                    row += "(%s output differs on the small input!) " % v
                    failed += 1
        else:
            row += "%13s %-16s %-16s %10s %-16s %-16s " % ("-", "-", "-", "-", "-", "-")
        text = {v: text_size(exes[v]) for v in PGO_VARIANTS}
        entry = doc["programs"][p.name]
        entry["text"] = text
        row += "%-18s %-18s" % ("%d/%d" % (sect["use"][".text.hot"], sect["use"][".text.unlikely"]),
                                "%d/%d" % (sect["pgo"][".text.hot"], sect["pgo"][".text.unlikely"]))
        L.append(row.rstrip())
    L.append("  text (size -B) x plain: " + ";  ".join(
        "%s use %.3f, pgo %.3f" % (p.name, doc["programs"][p.name]["text"]["use"] /
                                   doc["programs"][p.name]["text"]["plain"],
                                   doc["programs"][p.name]["text"]["pgo"] /
                                   doc["programs"][p.name]["text"]["plain"])
        for p in progs if p.name in built))
    L.append("")
    L.append("What the use builds were given and did (feedback entries; the use build's "
             "remarks), and the builds' CPU s:")
    for p in progs:
        if p.name not in built:
            continue
        info = built[p.name][2]
        fbk, rm = info["feedback"], info["remarks"]
        L.append("  %-20s feedback: %d hot, %d never-run procedures, %d never-run sites; "
                 "placed: %d hot, %d cold; %d sites predicted not taken; build s plain %.1f, "
                 "use %.1f, pgo %.1f" % (
                     p.name, fbk["hot"], fbk["never"], fbk["never_sites"], rm["hot"], rm["cold"],
                     rm["cold_sites"], info["build_cpu"]["plain"], info["build_cpu"]["use"],
                     info["build_cpu"]["pgo"]))
    L.append("")
    slower = [p.name for p in progs if doc["programs"].get(p.name, {}).get("use", {})
              .get("verdict") == "SLOWER"]
    more = [p.name for p in progs if isinstance(counts.get((p.name, "use")), tuple) and
            isinstance(counts.get((p.name, "plain")), tuple) and
            counts[(p.name, "use")][0] > 1.01 * counts[(p.name, "plain")][0]]
    L.append("target (issue 12): a use build never slower than plain -O2: %s%s" % (
        "MISSED on " + ", ".join(slower) if slower else
        "n/a (fewer than %d rounds: no verdict)" % PGO_MIN_ROUNDS if a.runs < PGO_MIN_ROUNDS else
        "met (within noise or faster)" if progs and not failed else "n/a",
        "; more than 1%% more instructions on %s" % ", ".join(more) if more else ""))
    L.append("")
    return L, doc, failed


def fetch_and_prepare(a, progs, src):
    """Unpack the Debian sources progs need into src; configure/generate."""
    debian_src = {"bzip2": "bzip2", "minigzip": "zlib", "gawk": "gawk", "jq": "jq",
                  "sqlite3": "sqlite3"}
    for pkg in sorted({debian_src[p.name] for p in progs if p.name in debian_src}):
        r = subprocess.run(["sh", os.path.join(HERE, "fetch-src.sh"), pkg, src])
        if r.returncode != 0:
            raise Fatal("cannot fetch the source of %s (see above)" % pkg)
    for p in progs:
        if p.prepare:
            p.prepare(a, p)


def write_atomically(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def pgo_main(a, progs, src, bdir, started, load_before):
    """run.py --pgo: returns the exit status."""
    if not a.deepprof_cc:
        print("bench: --pgo needs --deepprof-cc", file=sys.stderr)
        return 2
    progs = [p for p in progs if p.name in PGO_PROGRAMS]
    if not progs:
        print("bench: --pgo: none of %s selected by --only: nothing to do"
              % ",".join(PGO_PROGRAMS), file=sys.stderr)
        return 0
    fetch_and_prepare(a, progs, src)
    os.makedirs(bdir, exist_ok=True)
    inputs = make_inputs(a, progs, bdir)
    lines, doc, failed = run_pgo(a, progs, bdir, inputs, started, load_before)
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()
    out = os.path.join(bdir, "pgo.txt")
    write_atomically(out, "\n".join(lines) + "\n")
    write_atomically(os.path.join(bdir, "pgo.json"), json.dumps(doc, indent=1) + "\n")
    print("bench: table saved in %s (and pgo.json)" % out, file=sys.stderr)
    if failed:
        print("bench: --pgo: %d runs or builds failed (see the table)" % failed, file=sys.stderr)
        return 1
    return 0


def make_inputs(a, progs, bdir):
    """The programs' inputs (generated once, kept in bdir): {"text"|"json":
    {"big": path, "small": path (1/cg_shrink of it, for callgrind)}}."""
    os.makedirs(os.path.join(bdir, "bin"), exist_ok=True)
    gen = os.path.join(bdir, "bin", "gen_text")
    run_quiet([a.cc, "-std=gnu11", "-O2"] + a.warn + ["-o", gen, os.path.join(HERE, "gen_text.c")])
    inputs = {"text": {"big": os.path.join(bdir, "text-%d.txt" % a.text_bytes),
                       "small": os.path.join(bdir, "text-%d.txt" % (a.text_bytes // a.cg_shrink))},
              "json": {"big": os.path.join(bdir, "records-%d.json" % a.json_records),
                       "small": os.path.join(bdir, "records-%d.json" % (a.json_records // a.cg_shrink))},
              "sql": {"big": os.path.join(bdir, "work-%d.sql" % a.sql_rows),
                      "small": os.path.join(bdir, "work-%d.sql" % (a.sql_rows // a.cg_shrink))}}
    t = inputs["text"]
    for f, n in ((t["big"], a.text_bytes), (t["small"], a.text_bytes // a.cg_shrink)):
        if not os.path.exists(f) or os.path.getsize(f) != n:
            run_quiet([gen, str(SEED), str(n), f])
    if any(p.input == "sql" for p in progs):
        q = inputs["sql"]
        for f, n in ((q["big"], a.sql_rows), (q["small"], a.sql_rows // a.cg_shrink)):
            if not os.path.exists(f):
                gen_sql(f, n)
    if any(p.input == "json" for p in progs):
        j = inputs["json"]
        for f, n in ((j["big"], a.json_records), (j["small"], a.json_records // a.cg_shrink)):
            if not os.path.exists(f):
                gen_json(f, n)
    return inputs


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description="deepprof overhead benchmarks")
    ap.add_argument("--build", required=True, help="the build directory (BUILD)")
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--warn", default="-Wall -Wextra")
    ap.add_argument("--libprof", required=True)
    ap.add_argument("--libs", default="", help="what a program linked with libprof.a needs")
    ap.add_argument("--deepprof", required=True)
    ap.add_argument("--deepprof-cc", default="",
                    help="the deepprof-cc wrapper: adds the plugin variants")
    ap.add_argument("--dpgen", default="", help="tests/gen's dp-gen: the analyses benchmark")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2, help="parallel compiles")
    ap.add_argument("--quick", action="store_true",
                    help="tiny sizes and one run: checks the machinery, measures nothing")
    ap.add_argument("--only", default="",
                    help="comma-separated program names (fib,alloc,omp,bzip2,minigzip,gawk,jq,sqlite3,analyses,record)")
    ap.add_argument("--pgo", action="store_true",
                    help="instead of the overheads: the use build (deepprof-cc --deepprof-use, "
                         "hot/cold code) against plain -O2 and GCC's -fprofile-use on bzip2, "
                         "minigzip, gawk and jq (--only picks among them); table in "
                         "BUILD/bench/pgo.txt and .json")
    ap.add_argument("--pin", default="",
                    help="run every measured command under taskset -c PIN (off by default: on "
                         "a two-core machine shared with compiles, pinning isolates nothing)")
    a = ap.parse_args()
    a.warn = shlex.split(a.warn)
    if a.pin:
        if not shutil.which("taskset"):
            print("bench: --pin needs taskset (util-linux)", file=sys.stderr)
            return 2
        PIN[:] = ["taskset", "-c", a.pin]
    a.fib_n, a.alloc_rounds, a.text_bytes, a.json_records = 41, 200, 10_000_000, 100_000
    a.sql_rows = 400_000
    a.omp_n = 8 << 20
    a.cg_shrink, a.cg_runs, a.callgrind = 8, 3, True
    a.fb_runs = max(a.runs, 3)
    if a.quick:
        a.fib_n, a.alloc_rounds, a.text_bytes, a.json_records = 27, 4, 400_000, 4_000
        a.sql_rows = 8_000
        a.omp_n = 1 << 20
        a.runs, a.cg_runs, a.fb_runs = 1, 1, 3
    if a.runs < 1:
        print("bench: --runs must be at least 1", file=sys.stderr)
        return 2
    for path, what in ((a.libprof, "libprof"), (a.deepprof, "deepprof"),
                       (a.deepprof_cc, "deepprof-cc"), (a.dpgen, "dp-gen")):
        if path and not os.path.exists(path):
            print("bench: %s: %s not built (run make first)" % (path, what), file=sys.stderr)
            return 2
    if not shutil.which("valgrind"):
        print("bench: valgrind not found: the callgrind rows are left out", file=sys.stderr)
        a.callgrind = False

    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()[0]
    bdir = os.path.join(os.path.abspath(a.build), "bench")
    src = os.path.join(os.path.abspath(a.build), "src")
    run_analyses = bool(a.dpgen)
    run_record = True
    res = {}
    real = []
    tools, clock_free = {}, {}
    b = Build()
    try:
        progs = programs(a, src)
        if a.only:
            want = set(a.only.split(","))
            run_analyses = run_analyses and "analyses" in want
            run_record = "record" in want
            want -= {"analyses", "record"}
            unknown = want - {p.name for p in progs}
            if unknown:
                print("bench: unknown program(s): %s" % ", ".join(sorted(unknown)), file=sys.stderr)
                return 2
            progs = [p for p in progs if p.name in want]
        if a.pgo:
            return pgo_main(a, progs, src, bdir, started, load_before)
        if progs:
            fetch_and_prepare(a, progs, src)
            os.makedirs(bdir, exist_ok=True)
            print("bench: building %d programs x %d variants" % (len(progs), len(variants(a))),
                  file=sys.stderr, flush=True)
            b = build_all(a, progs, bdir)
            inputs = make_inputs(a, progs, bdir)
            # issue 16: deepprof record on the real programs' plain builds too
            real = [(p.name, b.exes[(p.name, "plain")],
                     [x.replace("{input}", inputs[p.input]["big"]) for x in p.argv])
                    for p in progs if p.third_party and (p.name, "plain") in b.exes
                    and (p.name, "plain") not in b.broken]
            res, cg = measure(a, progs, b, bdir, inputs)
            stats = deep_data_stats(a, progs, res, b)
            print("bench: timing deepprof progrep and feedback on the plugin builds",
                  file=sys.stderr, flush=True)
            tools = tool_times(a, progs, res, b)
            print("bench: instructions and I1 misses under cachegrind (1/%d input)" % a.cg_shrink,
                  file=sys.stderr, flush=True)
            clock_free = clockless(a, progs, b, bdir, inputs)
            lines = report(a, progs, res, cg, stats, b, load_before, started, tools, clock_free)
        else:
            lines = report(a, progs, res, {}, {}, b, load_before, started)
        if run_analyses:
            sys.stdout.write("\n".join(lines) + "\n")
            sys.stdout.flush()
            shown = len(lines)
            aa = argparse.Namespace(**vars(a))
            aa.dir, aa.runs = os.path.join(bdir, "analyses"), min(a.runs, 3)
            lines += analyses.run(aa)
            lines.append("")
            sys.stdout.write("\n".join(lines[shown:]) + "\n")
        else:
            sys.stdout.write("\n".join(lines) + "\n")
        if run_record:      # issue 16: deepprof record vs perf record, gprofng
            shown = len(lines)
            ra = argparse.Namespace(deepprof=a.deepprof, deepprof_cc=a.deepprof_cc, libprof=a.libprof, libs=a.libs, cc=a.cc,
                                    dir=os.path.join(bdir, "record"), runs=a.runs, quick=a.quick, real=real)
            lines += record_bench.run(ra)
            sys.stdout.write("\n".join(lines[shown:]) + "\n")
    except (Fatal, analyses.Fatal, record_bench.Fatal, OSError) as e:
        print("bench: %s" % e, file=sys.stderr)
        return 1
    text = "\n".join(lines) + "\n"
    os.makedirs(bdir, exist_ok=True)
    out = os.path.join(bdir, "results.txt")
    with open(out + ".tmp", "w") as f:
        f.write(text)
    os.replace(out + ".tmp", out)
    print("bench: table saved in %s" % out, file=sys.stderr)
    failed = sum(len(s.failures) for s in res.values()) + \
        sum(1 for k in b.broken if k[1] not in OPTIONAL and not res[k].failures) + \
        sum(1 for t in tools.values() if not isinstance(t, dict)) + \
        sum(1 for c in clock_free.values() if not isinstance(c, tuple))
    if failed:
        print("bench: %d runs or builds failed (see the table)" % failed, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
