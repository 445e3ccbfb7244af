#!/usr/bin/python3
"""tests/html/run.py — the html suite (make check-html).

Builds h-prog.c (known calls, two recursive cliques, a procedure whose
symbol is "operator<<&a'b</td>") with -finstrument-functions and libprof,
using the reports suite's helpers (tests/reports/run.py, imported), and
checks `deepprof report --html` and `--html-dir`: every page parses as
well-formed HTML (each element closed in order, no stray '<' or '>' in
text, nothing external), exact numbers in the tables, every link of the
site leads to a file (and anchor) of the site, the hostile name escaped,
--html-limit cutting the procedure pages, and bad options each one line on
stderr with exit 2. Last line: "html: N passed, N failed".

usage: run.py --build BUILD [--cc CC] [--cflags FLAGS] [TEST...]
Part of deepprof's tests. MIT licence.
"""
import glob
import html
import html.entities
import html.parser
import importlib.util
import os
import shutil
import stat
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import dptest  # noqa: E402  (tests/lib: the runner loop and tally)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

_spec = importlib.util.spec_from_file_location(
    "reports_run", os.path.join(ROOT, "tests", "reports", "run.py"))
R = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(R)
Fail, eq, check = R.Fail, R.eq, R.check

HOSTILE = "operator<<&a'b</td>"

# The calls of h-prog.c, from its source: main 1, work 3, leaf 3*4 + 12345
# + 1 (hostile) + 1 (main) = 12359, many 1, down 6, is_even 3, is_odd 2,
# the hostile one 1. With -finstrument-functions the clock ticks once per
# call, so cscs = calls.
CALLS = {"main": 1, "work": 3, "leaf": 12359, "many": 1, "down": 6, "is_even": 3,
         "is_odd": 2, HOSTILE: 1}
ALL_CALLS = sum(CALLS.values())                     # 12376
# Total (own + descendants) calls of each procedure.
TOTAL = {"main": ALL_CALLS, "leaf": 12359, "many": 1 + 12345, "work": 3 + 12, "down": 6,
         "is_even": 3, "is_odd": 2, HOSTILE: 2}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


# ================================================================
# A strict little HTML reader
# ================================================================

class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.kids = []

    def text(self):
        return "".join(k if isinstance(k, str) else k.text() for k in self.kids)

    def walk(self):
        for k in self.kids:
            if not isinstance(k, str):
                yield k
                yield from k.walk()

    def find(self, tag):
        return [n for n in self.walk() if n.tag == tag]

    def by_id(self, i):
        for n in self.walk():
            if n.attrs.get("id") == i:
                return n
        return None


class Strict(html.parser.HTMLParser):
    """Builds a tree; records every defect of well-formedness."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.root = Node("#document", [], None)
        self.cur = self.root
        self.errors = []
        self.doctype = False

    def handle_decl(self, decl):
        self.doctype = self.doctype or decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.kids.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.errors.append("self-closing <%s/>" % tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            self.errors.append("end tag of void element </%s>" % tag)
        elif self.cur.tag != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.cur.tag))
        else:
            self.cur = self.cur.parent

    def handle_data(self, data):
        if "<" in data or ">" in data:
            self.errors.append("stray < or > in text: %r" % data[:80])
        self.cur.kids.append(data)

    def handle_entityref(self, name):
        if name + ";" not in html.entities.html5:
            self.errors.append("unknown entity &%s" % name)
        self.cur.kids.append(html.unescape("&%s;" % name))

    def handle_charref(self, name):
        self.cur.kids.append(html.unescape("&#%s;" % name))

    def handle_comment(self, data):
        self.errors.append("comment")

    def unknown_decl(self, data):
        self.errors.append("unknown declaration %r" % data[:40])


def parse(path_or_text, what):
    """Parse a page strictly; returns its tree or raises Fail."""
    if os.path.exists(path_or_text):
        with open(path_or_text, encoding="utf-8") as f:
            text = f.read()
    else:
        text = path_or_text
    p = Strict()
    p.feed(text)
    p.close()
    if p.rawdata:
        p.errors.append("unparsed at the end: %r" % p.rawdata[:80])
    if p.cur is not p.root:
        p.errors.append("<%s> never closed" % p.cur.tag)
    check(p.doctype, "%s: no <!DOCTYPE html>" % what)
    check(not p.errors, "%s: not well-formed: %s" % (what, "; ".join(p.errors[:5])))
    htmls = [k for k in p.root.kids if not isinstance(k, str)]
    eq([k.tag for k in htmls], ["html"], "%s: top element" % what)
    check(not [n for n in p.root.walk() if n.tag in ("script", "link", "img", "iframe")
               or "src" in n.attrs], "%s: script or external resource" % what)
    for n in p.root.walk():
        h = n.attrs.get("href")
        check(h is None or "://" not in h, "%s: external link %r" % (what, h))
    ids = [n.attrs["id"] for n in p.root.walk() if "id" in n.attrs]
    eq(len(ids), len(set(ids)), "%s: ids unique" % what)
    return p.root


def table(doc, name):
    """Table `name` (the table after <hN id="t-name">) as (heads, rows):
    heads the column keys; rows of cells, each a dict key -> Node."""
    h = doc.by_id("t-" + name)
    check(h is not None, "no table %r" % name)
    sib = h.parent.kids
    i = sib.index(h)
    t = next((k for k in sib[i + 1:] if not isinstance(k, str)), None)
    check(t is not None and t.tag == "table", "table %r: no <table> after its heading" % name)
    if "kv" in t.attrs.get("class", ""):
        row = {}
        for tr in t.find("tr"):
            row[tr.attrs["data-col"]] = tr.find("td")[0]
        return list(row), [row]
    heads = [th.attrs["data-col"] for th in t.find("thead")[0].find("th")]
    rows = []
    for tr in t.find("tbody")[0].find("tr"):
        tds = tr.find("td")
        eq(len(tds), len(heads), "table %r: cells in a row" % name)
        row = dict(zip(heads, tds))
        row["#tr"] = tr
        rows.append(row)
    return heads, rows


def link(td):
    a = td.find("a")
    return a[0].attrs["href"] if a else None


def num(td, what):
    """(shown text, raw value) of a number cell, checked right-aligned."""
    check("n" in td.attrs.get("class", "").split(), "%s: not right-aligned" % what)
    check("data-v" in td.attrs, "%s: no data-v" % what)
    return td.text(), td.attrs["data-v"]


# ================================================================
# The suite
# ================================================================

class Suite(R.Suite):
    """The reports suite's builder and runner, with its own scratch dir."""

    def __init__(self, a):
        self.a = a
        self.build = os.path.abspath(a.build)
        self.bin = os.path.join(self.build, "bin")
        self.dp = os.path.join(self.bin, "deepprof")
        self.work = os.path.join(self.build, "tests", "html")
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.profiles = {}
        self.validated = 0

    def prog(self):
        return self.profile("h-prog", [os.path.join(HERE, "h-prog.c")])

    def page(self, *args):
        """deepprof report ARGS --html: exit 0, nothing on stderr, parsed."""
        r = self.run(list(args) + ["--html"])
        if r.returncode or r.stderr:
            raise Fail("report %s --html: exit %d: %s" % (" ".join(args), r.returncode,
                                                         r.stderr.strip()))
        return parse(r.stdout, "report %s --html" % " ".join(args[1:])), r.stdout

    def site(self, name, *opts, prof=None):
        """deepprof report PROF --html-dir DIR OPTS (PROF: h-prog's profile);
        returns DIR and the parsed pages (file name -> tree), each checked
        well-formed."""
        d = os.path.join(self.work, name)
        shutil.rmtree(d, ignore_errors=True)
        r = self.run([prof or self.prog(), "--html-dir", d] + list(opts))
        # dp-gen's profiles name a module that does not exist: one warning
        noise = [x for x in r.stderr.splitlines() if "warning: no symbols" not in x or not prof]
        if r.returncode or noise:
            raise Fail("--html-dir %s: exit %d: %s" % (name, r.returncode, r.stderr.strip()))
        pages = {}
        for f in sorted(os.listdir(d)):
            check(f.endswith(".html"), "%s: stray file %s" % (name, f))
            pages[f] = parse(os.path.join(d, f), f)
        self.last_stdout = r.stdout
        return d, pages


def proc_pages(pages):
    """procedure name -> file name, from the titles of proc-*.html."""
    out = {}
    for f, doc in pages.items():
        if f.startswith("proc-"):
            t = doc.find("h1")[0].text()
            check(t.startswith("Procedure h-prog.c:"), "%s: title %r" % (f, t))
            out[t[len("Procedure h-prog.c:"):]] = f
    return out


def check_links(d, pages):
    """Every href of every page names a page of the site (and an id on it)."""
    n = 0
    for f, doc in pages.items():
        for a in doc.find("a"):
            h = a.attrs.get("href", "")
            file, _, frag = h.partition("#")
            file = file or f
            check(file in pages and os.path.isfile(os.path.join(d, file)),
                  "%s: link %r leads nowhere" % (f, h))
            if frag:
                check(pages[file].by_id(frag) is not None,
                      "%s: link %r: no id %r there" % (f, h, frag))
            n += 1
    return n


# ---- single pages ----

def t_page_proc(s):
    """proc work: the work -> leaf arc has 12 calls; a lone page has no links."""
    doc, text = s.page(s.prog(), "proc", "work")
    eq(doc.find("title")[0].text(), "Procedure work", "title")
    _, rows = table(doc, "procedure")
    eq(num(rows[0]["calls"], "work calls"), ("3", "3"), "calls into work")
    eq(num(rows[0]["total_calls"], "work total"), ("15", "15"), "work's total calls")
    _, rows = table(doc, "call_sites")
    eq([w["callee_name"].text() for w in rows], ["leaf"], "work's callees")
    eq(num(rows[0]["calls"], "work->leaf"), ("12", "12"), "calls work -> leaf")
    _, rows = table(doc, "contexts")
    eq([w["caller_name"].text() for w in rows], ["main"], "work called from")
    eq(doc.find("a"), [], "links in a lone page")
    check("<style>" in text, "inline style")


def t_page_units(s):
    """top --total --sort=calls: human units shown, raw values in data-v."""
    doc, _ = s.page(s.prog(), "top", "--total", "--sort=calls", "--limit=0")
    heads, rows = table(doc, "procedures")
    eq(heads[:3], ["rank", "calls", "total_calls"], "first columns")
    got = {w["name"].text(): w for w in rows}
    eq(sorted(got), sorted(CALLS), "procedures")
    for name, calls in CALLS.items():
        eq(num(got[name]["calls"], name)[1], str(calls), "calls into " + name)
        eq(num(got[name]["total_calls"], name)[1], str(TOTAL[name]), "total calls of " + name)
    eq(num(got["leaf"]["calls"], "leaf")[0], "12.4k", "leaf's calls as text shows them")
    eq(num(got["main"]["total_calls"], "main")[0], "12.4k", "main's total calls shown")
    eq(num(got["work"]["total_calls"], "work")[0], "15", "work's total calls shown")
    eq(num(got["main"]["pct"], "main %")[0], "100.0%", "main's share")
    eq([w["name"].text() for w in rows][:3], ["main", "leaf", "many"], "ranking")
    check(got["main"]["name"].attrs.get("class") == "l", "names left-aligned")
    doc, _ = s.page(s.prog(), "proc", "many")
    _, rows = table(doc, "call_sites")
    eq([(w["callee_name"].text(),) + num(w["calls"], "many->leaf") for w in rows],
       [("leaf", "12.3k", "12345")], "many -> leaf")


def t_page_summary(s):
    """summary: totals from the program's structure, ticks with ns in title."""
    doc, _ = s.page(s.prog())
    _, rows = table(doc, "summary")
    w = rows[0]
    eq(num(w["calls"], "calls")[1], str(ALL_CALLS), "program calls")
    eq(num(w["cscs"], "cscs")[1], str(ALL_CALLS), "program cscs")
    eq(num(w["procedures"], "ps")[0], "9", "procedures (8 and <root>)")
    eq(num(w["recursive_cliques"], "rec")[0], "2", "recursive cliques")
    check(" ticks = " in w["ticks"].attrs["title"], "ticks cell's title in ns")


def t_page_escape(s):
    """The hostile name is text, never markup, in a page and its title."""
    doc, text = s.page(s.prog(), "proc", "h-prog.c:" + HOSTILE)
    eq(doc.find("title")[0].text(), "Procedure h-prog.c:" + HOSTILE, "title")
    eq(doc.find("h1")[0].text(), "Procedure h-prog.c:" + HOSTILE, "heading")
    _, rows = table(doc, "procedure")
    eq(rows[0]["name"].text(), HOSTILE, "name cell")
    check("operator&lt;&lt;&amp;a&#39;b&lt;/td&gt;" in text, "escaped in the source")
    check("operator<" not in text, "raw name in the source")
    _, rows = table(doc, "call_sites")
    eq([(w["callee_name"].text(), num(w["calls"], "x")[1]) for w in rows], [("leaf", "1")],
       "hostile -> leaf")


def t_page_every_report(s):
    """Every report renders as a well-formed page; callers of leaf by
    procedure have the calls of its four arcs."""
    p = s.prog()
    rec = R.json.loads(s.run([p, "recursion", "--json"]).stdout)["cliques"]
    for args in (["summary"], ["top", "--per-call"], ["proc", "main"], ["site", "1"],
                 ["clique", str(rec[0]["clique"])], ["recursion"], ["callers", "leaf"],
                 ["callers", "leaf", "--by=file"], ["callers", "is_odd", "--by=clique"]):
        doc, _ = s.page(p, *args)
        check(doc.find("table"), "report %s: no table" % " ".join(args))
    doc, _ = s.page(p, "callers", "leaf", "--by=proc")
    _, rows = table(doc, "callers")
    eq(sorted((w["caller_name"].text(), int(num(w["calls"], "x")[1])) for w in rows),
       sorted([("work", 12), ("many", 12345), (HOSTILE, 1), ("main", 1)]), "leaf's callers")


def t_output_file(s):
    """-o FILE: the same page as stdout, written atomically over an old file."""
    _, text = s.page(s.prog(), "proc", "work")
    d = os.path.join(s.work, "out")
    os.makedirs(d, exist_ok=True)
    out = os.path.join(d, "work.html")
    with open(out, "w") as f:
        f.write("old")
    r = s.run([s.prog(), "proc", "work", "--html", "-o", out])
    eq((r.returncode, r.stdout, r.stderr), (0, "", ""), "-o run")
    with open(out, encoding="utf-8") as f:
        eq(f.read(), text, "file content")
    eq(sorted(os.listdir(d)), ["work.html"], "files left")
    eq(stat.S_IMODE(os.stat(out).st_mode), 0o666 & ~current_umask(), "mode")
    # -o takes the text and JSON renderings too
    for fmt in ([], ["--json"]):
        want = s.run([s.prog(), "top"] + fmt).stdout
        o2 = os.path.join(d, "top" + "".join(fmt))
        r = s.run([s.prog(), "top", "-o", o2] + fmt)
        eq((r.returncode, r.stdout, r.stderr), (0, "", ""), "-o run " + " ".join(fmt))
        with open(o2, encoding="utf-8") as f:
            eq(f.read(), want, "-o content " + " ".join(fmt))


def current_umask():
    m = os.umask(0)
    os.umask(m)
    return m


# ---- the site ----

def t_site(s):
    """--html-dir: index, recursion, 8 procedure and 2 clique pages, linked."""
    d, pages = s.site("site")
    procs = proc_pages(pages)
    eq(sorted(procs), sorted(CALLS), "procedures with a page")
    cliques = sorted(f for f in pages if f.startswith("clique-"))
    eq(len(cliques), 2, "clique pages")
    eq(len(pages), 2 + len(CALLS) + 2, "pages")
    check("index.html" in pages and "recursion.html" in pages, "index and recursion")
    eq(s.last_stdout, "%s/index.html: 8 procedure pages, 2 clique pages\n" % d, "stdout")
    nlinks = check_links(d, pages)
    check(nlinks > 50, "only %d links" % nlinks)

    idx = pages["index.html"]
    _, rows = table(idx, "summary")
    eq(num(rows[0]["calls"], "calls")[1], str(ALL_CALLS), "index: program calls")
    _, rows = table(idx, "procedures")
    eq({w["name"].text(): link(w["name"]) for w in rows},
       {n: procs[n] for n in CALLS}, "index: top procedures link to their pages")

    main = pages[procs["main"]]
    _, rows = table(main, "call_sites")
    got = {w["callee_name"].text(): w for w in rows}
    eq(sorted(got), sorted(["work", "many", "down", "is_even", HOSTILE, "leaf"]), "main's callees")
    for callee, calls in (("work", 3), ("many", 1), ("leaf", 1), (HOSTILE, 1)):
        eq(num(got[callee]["calls"], callee)[1], str(calls), "main -> " + callee)
        eq(link(got[callee]["callee_name"]), procs[callee], "main -> %s link" % callee)
    # a call site links to its own row on its procedure's page
    h = link(got["work"]["css"])
    check(h and h.startswith(procs["main"] + "#site-"), "site link %r" % h)
    eq(main.by_id(h.partition("#")[2]), got["work"]["#tr"], "the site's anchor is its row")

    leaf = pages[procs["leaf"]]
    _, rows = table(leaf, "contexts")
    eq(sorted((w["caller_name"].text(), int(num(w["calls"], "x")[1])) for w in rows),
       sorted([("work", 12), ("many", 12345), (HOSTILE, 1), ("main", 1)]), "leaf's contexts")
    for w in rows:
        eq(link(w["caller_name"]), procs[w["caller_name"].text()], "caller link")

    rec = pages["recursion.html"]
    _, rows = table(rec, "cliques")
    got = {w["name"].text(): w for w in rows}
    eq(sorted(got), ["down", "is_even"], "recursive cliques' first members")
    eq(got["down"]["type"].text(), "simple", "down's recursion")
    eq(got["is_even"]["type"].text(), "mutual", "is_even's recursion")
    for n, w in got.items():
        eq(link(w["clique"]) in cliques, True, "recursion -> clique page of " + n)
        eq(link(w["name"]), procs[n], "recursion -> page of " + n)
    cq = pages[link(got["is_even"]["clique"])]
    _, rows = table(cq, "members")
    eq(sorted((w["name"].text(), num(w["calls"], "x")[1], link(w["name"])) for w in rows),
       [("is_even", "3", procs["is_even"]), ("is_odd", "2", procs["is_odd"])], "members")
    _, rows = table(cq, "ancestors")
    eq([w["caller_name"].text() for w in rows], ["main"], "the mutual clique's ancestor")
    # the procedure's own page names its clique, linked
    _, rows = table(pages[procs["down"]], "contexts")
    eq([link(w["clique"]) for w in rows], [link(got["down"]["clique"])], "down -> its clique")


def t_site_escape(s):
    """The hostile procedure's page and the links to it in the site."""
    d, pages = s.site("site-esc")
    procs = proc_pages(pages)
    f = procs[HOSTILE]
    with open(os.path.join(d, f), encoding="utf-8") as fh:
        text = fh.read()
    check("operator<" not in text, "raw name in the page's source")
    _, rows = table(pages[procs["leaf"]], "contexts")
    hits = [w for w in rows if w["caller_name"].text() == HOSTILE]
    eq([link(w["caller_name"]) for w in hits], [f], "leaf's caller link to the hostile page")


def t_site_limit(s):
    """--html-limit=3: pages for main, leaf, many only; work is plain text."""
    d, pages = s.site("site-3", "--html-limit=3")
    procs = proc_pages(pages)
    eq(sorted(procs), ["leaf", "main", "many"], "the 3 costliest by total cscs")
    eq(len([f for f in pages if f.startswith("clique-")]), 2, "clique pages (limit 3)")
    eq(s.last_stdout, "%s/index.html: 3 procedure pages, 2 clique pages\n" % d, "stdout")
    check_links(d, pages)
    _, rows = table(pages[procs["main"]], "call_sites")
    got = {w["callee_name"].text(): link(w["callee_name"]) for w in rows}
    eq(got, {"work": None, "many": procs["many"], "leaf": procs["leaf"], "down": None,
             "is_even": None, HOSTILE: None}, "main's callee links")

    d, pages = s.site("site-1", "--html-limit", "1")
    eq(sorted(proc_pages(pages)), ["main"], "--html-limit 1: main alone")
    cl = sorted(f for f in pages if f.startswith("clique-"))
    eq(len(cl), 1, "one clique page")
    eq(table(pages[cl[0]], "clique")[1][0]["name"].text(), "down",
       "the costlier clique (down: 6 calls, is_even/is_odd: 5)")
    check_links(d, pages)
    d, pages = s.site("site-0", "--html-limit=0")
    eq(sorted(pages), ["index.html", "recursion.html"], "--html-limit=0")
    eq(pages["index.html"].find("nav")[0].find("a") != [], True, "navigation")
    check_links(d, pages)


def t_site_replace(s):
    """Existing files in DIR are replaced, an earlier site's pages that
    this one has not are removed, others kept, no temporary left."""
    d = os.path.join(s.work, "site-re")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    mine = ("notes.txt", "proc-x.html", "proc-007.html", "clique-1.htm", "proc-99999999999999999999.html")
    for f, t in [("index.html", "junk"), ("proc-999999.html", "stale"),
                 ("clique-424242.html", "stale")] + [(m, "mine") for m in mine]:
        with open(os.path.join(d, f), "w") as fh:
            fh.write(t)
    r = s.run([s.prog(), "--html-dir", d, "--html-limit=2"])
    eq((r.returncode, r.stderr), (0, ""), "run")
    for m in mine:
        with open(os.path.join(d, m)) as fh:
            eq(fh.read(), "mine", "other file kept: " + m)
    eq([f for f in ("proc-999999.html", "clique-424242.html") if os.path.exists(os.path.join(d, f))],
       [], "stale pages left")
    eq(len(glob.glob(os.path.join(d, "proc-*.html"))), 2 + 3, "procedure pages (2, and 3 not pages)")
    parse(os.path.join(d, "index.html"), "replaced index.html")
    eq(glob.glob(os.path.join(d, "*tmp*")), [], "temporary files")
    # a nested DIR is created with its parents
    d2 = os.path.join(s.work, "a", "b", "c")
    r = s.run([s.prog(), "--html-dir=" + d2 + "/", "--html-limit=1"])
    eq((r.returncode, r.stderr), (0, ""), "nested dir")
    check(os.path.isfile(os.path.join(d2, "index.html")), "nested index.html")


def t_site_odd_names(s):
    """Bytes that are not UTF-8 and control characters become U+FFFD; a
    name with "::" has its page too (proc h-odd.c:ns::f picks it)."""
    p = s.profile("h-odd", [os.path.join(HERE, "h-odd.c")])
    d, pages = s.site("site-odd", prof=p)
    titles = {doc.find("h1")[0].text(): f for f, doc in pages.items() if f.startswith("proc-")}
    eq(sorted(titles), sorted("Procedure h-odd.c:" + n
                              for n in ("main", "ns::f", "bad\ufffdname", "ctl\ufffdx")), "pages")
    _, rows = table(pages["index.html"], "procedures")
    got = {w["name"].text(): link(w["name"]) for w in rows}
    eq(got, {"main": titles["Procedure h-odd.c:main"], "ns::f": titles["Procedure h-odd.c:ns::f"],
             "bad\ufffdname": titles["Procedure h-odd.c:bad\ufffdname"],
             "ctl\ufffdx": titles["Procedure h-odd.c:ctl\ufffdx"]}, "index links")
    check_links(d, pages)
    # the JSON writers too: bytes that are not UTF-8 become U+FFFD, not a
    # failure (a control character is valid JSON, escaped)
    r = s.run([p, "top", "--json"])
    eq((r.returncode, r.stderr), (0, ""), "report top --json")
    names = {row["name"] for row in R.json.loads(r.stdout)["procedures"]}
    check({"bad\ufffdname", "ctl\x01x"} <= names, "report top --json names: %r" % sorted(names))
    out = os.path.join(s.work, "odd.feedback.json")
    r = subprocess.run([s.dp, "feedback", "--no-progrep", "--basis=cscs", p, "-o", out], capture_output=True,
                       text=True, stdin=subprocess.DEVNULL, timeout=120)
    eq(r.returncode, 0, "feedback --no-progrep: %s" % r.stderr.strip())
    with open(out) as fh:
        fns = {e["at"]["fn"] for e in R.json.load(fh)["hot_cold"]}
    check("bad\ufffdname" in fns, "feedback hot_cold fns: %r" % sorted(x or "" for x in fns))
    r = subprocess.run([s.dp, "dump", "--json", p], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=120)
    eq(r.returncode, 0, "dump --json: %s" % r.stderr.strip())
    check("bad\ufffdname" in {x["name"] for x in R.json.loads(r.stdout)["ps"]}, "dump --json names")
    r = subprocess.run([s.dp, "diff", "--json", p, p], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=120)
    eq(r.returncode, 0, "diff --json: %s" % r.stderr.strip())
    check("bad\ufffdname" in {x["name"] for x in R.json.loads(r.stdout)["procedures"]},
          "diff --json names")


def t_site_rows(s):
    """A procedure with more contexts than a page lists (1000) shows the
    1000 costliest, in table order, and says so."""
    p, _ = s.gen("wide", "--shape=tree", "--csds=30000", "--seed=7")
    d, pages = s.site("site-rows", "--html-limit=2", prof=p)
    procs = sorted(f for f in pages if f.startswith("proc-"))
    eq(len(procs), 2, "procedure pages")
    checked = 0
    for f in procs:
        doc = pages[f]
        name = doc.find("h1")[0].text()[len("Procedure "):]
        r = s.run([p, "proc", name, "--json"])
        eq(r.returncode, 0, "proc %s --json" % name)
        ctx = R.json.loads(r.stdout)["contexts"]
        _, rows = table(doc, "contexts")
        h = doc.by_id("t-contexts").text()
        if len(ctx) <= 1000:
            eq(len(rows), len(ctx), "all contexts of " + name)
            continue
        eq(h, "Contexts (one per calling context) (1000 of %d shown, the costliest)" % len(ctx),
           "heading of " + name)
        order = sorted(range(len(ctx)), key=lambda i: (-ctx[i]["pct"], i))[:1000]
        eq([num(w["pd"], "pd")[1] for w in rows], [str(ctx[i]["pd"]) for i in sorted(order)],
           "the contexts shown of " + name)
        checked += 1
    check(checked, "no procedure with more than 1000 contexts")
    check_links(d, pages)


# ---- bad options ----

def bad_cases(s):
    p = s.prog()
    plain = os.path.join(s.work, "plain-file")
    with open(plain, "w") as f:
        f.write("x")
    return [
        ("html-dir under a file", [p, "--html-dir", os.path.join(plain, "sub")], "plain-file"),
        ("html-dir is a file", [p, "--html-dir", plain], "not a directory"),
        ("--html with --json", [p, "top", "--html", "--json"], "exclude each other"),
        ("--html unknown report", [p, "sumary", "--html"], "unknown report 'sumary'"),
        ("--html-dir with --html", [p, "--html-dir", s.work + "/x", "--html"], "--html-dir"),
        ("--html-dir with --json", [p, "--html-dir", s.work + "/x", "--json"], "--html-dir"),
        ("--html-dir with a report", [p, "top", "--html-dir", s.work + "/x"], "give no REPORT"),
        ("--html-limit alone", [p, "--html", "--html-limit=3"], "--html-limit needs"),
        ("--html-limit=x", [p, "--html-dir", s.work + "/x", "--html-limit=x"], "--html-limit 'x'"),
        ("--html-limit=-1", [p, "--html-dir", s.work + "/x", "--html-limit=-1"], "'-1'"),
        ("--html-dir without value", [p, "--html-dir"], "needs a value"),
        ("-o into a missing dir", [p, "--html", "-o", os.path.join(s.work, "no", "f.html")],
         "cannot create"),
        ("--html unknown proc", [p, "proc", "nosuch", "--html"], "no procedure named 'nosuch'"),
    ]


def run_bad(s, args, want):
    r = s.run(args)
    lines = r.stderr.splitlines()
    eq(r.returncode, 2, "exit status (stderr %r)" % r.stderr[:300])
    eq(len(lines), 1, "lines on stderr (%r)" % r.stderr[:300])
    check(r.stderr.endswith("\n"), "stderr ends with a newline")
    check(want in lines[0], "message %r lacks %r" % (lines[0], want))
    eq(r.stdout, "", "stdout")
    check(not os.path.exists(os.path.join(s.work, "x")), "a site was written")


TESTS = [t_page_proc, t_page_units, t_page_summary, t_page_escape, t_page_every_report,
         t_output_file, t_site,
         t_site_escape, t_site_limit, t_site_replace, t_site_odd_names, t_site_rows]


def main():
    a, T, s = dptest.suite_start("html", Suite)
    dptest.run_tests(T, s, TESTS, a.tests, fail=Fail)
    if not a.tests or "bad" in a.tests:
        cases = dptest.setup(T, "bad-option", lambda: bad_cases(s))
        dptest.run_each(T, [("bad: " + label, lambda args=args, want=want: run_bad(s, args, want))
                            for label, args, want in cases], fail=Fail)
    return T.end()


if __name__ == "__main__":
    sys.exit(main())
