#!/usr/bin/python3
"""browser.py URL SCREENSHOT — the serve suite's browser test: Debian's
chromium, headless, driven over the DevTools protocol (python3-websocket),
clicks through a `deepprof serve OLD NEW` at URL as a person would: the
summary's flame graph to a clique, back, a procedure, its callers, back;
sorts a table by a click on its heading (both ways); opens the diff view;
fails on any console error or uncaught exception; saves a screenshot of
the procedure page to SCREENSHOT. Prints "ok   <step>" per step; exit 0
when every step passed, 1 otherwise.
Part of deepprof's tests. MIT licence.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket

URL, SHOT = sys.argv[1], sys.argv[2]


class Fail(Exception):
    pass


class Browser:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="dp-chromium-")
        exe = shutil.which("chromium")
        if not exe:
            raise Fail("chromium is not installed (mk/deps.sh lists it)")
        self.p = subprocess.Popen([exe, "--headless=new", "--no-sandbox", "--disable-gpu",
                                   "--no-first-run", "--no-default-browser-check",
                                   "--remote-debugging-port=0", "--remote-allow-origins=*",
                                   "--disable-features=BackForwardCache",
                                   "--user-data-dir=" + self.dir, "--window-size=1280,900",
                                   "about:blank"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port = None
        t0 = time.time()
        while port is None and time.time() - t0 < 60:
            line = self.p.stderr.readline()
            if not line and self.p.poll() is not None:
                raise Fail("chromium exited %s" % self.p.returncode)
            m = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
            if m:
                port = int(m.group(1))
        if port is None:
            raise Fail("chromium never said where DevTools listens")
        with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=30) as r:
            pages = [t for t in json.load(r) if t["type"] == "page"]
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=30,
                                              suppress_origin=True)
        self.id = 0
        self.events = []
        self.errors = []
        for dom in ("Page", "Runtime", "Log"):
            self.call(dom + ".enable")

    def close(self):
        try:
            self.ws.close()
        finally:
            self.p.terminate()
            try:
                self.p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
            shutil.rmtree(self.dir, ignore_errors=True)

    def _note(self, msg):
        """Keep an event; remember console errors and exceptions."""
        m = msg.get("method")
        if m == "Runtime.exceptionThrown":
            self.errors.append("exception: " + json.dumps(msg["params"]["exceptionDetails"])[:400])
        elif m == "Runtime.consoleAPICalled" and msg["params"]["type"] in ("error", "assert"):
            self.errors.append("console.%s: %s" % (msg["params"]["type"],
                                                   json.dumps(msg["params"]["args"])[:400]))
        elif m == "Log.entryAdded" and msg["params"]["entry"]["level"] == "error":
            self.errors.append("log: %s %s" % (msg["params"]["entry"]["text"],
                                               msg["params"]["entry"].get("url", "")))
        self.events.append(msg)

    def call(self, method, **params):
        self.id += 1
        me = self.id
        self.ws.send(json.dumps({"id": me, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == me:
                if "error" in msg:
                    raise Fail("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            self._note(msg)

    def wait(self, method, timeout=30):
        t0 = time.time()
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                del self.events[:i + 1]
                return e
        while time.time() - t0 < timeout:
            msg = json.loads(self.ws.recv())
            self._note(msg)
            if msg.get("method") == method:
                self.events = []
                return msg
        raise Fail("no %s within %d s" % (method, timeout))

    def js(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise Fail("script %r: %s" % (expr[:80], r["exceptionDetails"].get("text")))
        return r["result"].get("value")

    def go(self, url):
        self.events = []
        self.call("Page.navigate", url=url)
        self.wait("Page.loadEventFired")

    def click(self, selector_js, navigates=True):
        """A real mouse click at the middle of the element selector_js finds."""
        box = self.js("(function(){var e=%s; if(!e) return null; e.scrollIntoView({block:'center'});"
                      "var r=e.getBoundingClientRect(); return [r.left+r.width/2, r.top+r.height/2];})()"
                      % selector_js)
        if not box:
            raise Fail("nothing to click: " + selector_js)
        before = self.js("location.href") if navigates else None
        self.events = []
        for t in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=t, x=box[0], y=box[1], button="left", clickCount=1)
        if navigates:
            self.wait("Page.loadEventFired")
            self.settled(before)

    def settled(self, before, timeout=30):
        """Wait until the page has left URL before and finished loading: a
        load event still queued from an earlier navigation (a history.back()
        the bfcache answered) must not pass for this one's, or the next
        script runs while the page navigates ("Inspected target navigated
        or closed", seen in CI)."""
        t0 = time.time()
        while time.time() - t0 < timeout:
            try:
                if self.js("location.href") != before and self.js("document.readyState") == "complete":
                    return
            except Fail:
                pass        # evaluated while navigating: ask again
            time.sleep(0.05)
        raise Fail("the page did not leave %s (or did not finish loading)" % before)

    def back(self):
        """history.back(), then wait until the page before is shown again."""
        before = self.js("location.href")
        self.events = []
        try:
            self.js("history.back()")
        except Fail:
            pass        # the page went (from the back-forward cache) before the answer
        self.settled(before)

    def h1(self):
        return self.js("document.querySelector('h1').textContent")


def link_to(text):
    return ("Array.prototype.find.call(document.querySelectorAll('a'),"
            "function(a){return a.textContent===%s})" % json.dumps(text))


def main():
    failed = 0
    b = Browser()

    def step(name, fn):
        nonlocal failed
        try:
            fn()
            if b.errors:
                raise Fail("console errors: %s" % b.errors)
            print("ok   browser: " + name)
        except Exception as e:  # noqa: BLE001 (a step's failure is its verdict)
            failed += 1
            b.errors = []
            print("FAIL browser: %s: %s" % (name, e))
        sys.stdout.flush()

    def expect(cond, what):
        if not cond:
            raise Fail(what)

    def summary():
        b.go(URL)
        expect(b.h1() == "Profile summary", "h1: %r" % b.h1())
        expect(b.js("document.querySelectorAll('svg.flame rect').length") >= 7, "flame frames")

    def flame_to_clique():
        b.click("Array.prototype.find.call(document.querySelectorAll('svg.flame a'),"
                "function(a){return /^fib:/.test(a.querySelector('title').textContent)})")
        expect(re.match(r"Clique \d+$", b.h1()), "a clique page: %r" % b.h1())
        expect(b.js("document.querySelector('[data-col=name] a').textContent") == "fib",
               "fib's clique")
        expect("Recursion by depth" in b.js("document.body.textContent"), "its recursion by depth")
        b.back()
        expect(b.h1() == "Profile summary", "back at the summary: %r" % b.h1())

    def procedure():
        b.click("Array.prototype.find.call(document.querySelectorAll('#t-procedures ~ table a'),"
                "function(a){return a.textContent==='leaf'})")
        expect(b.h1() == "Procedure leaf", "h1: %r" % b.h1())
        ctx = b.js("Array.prototype.map.call(document.querySelectorAll('td a[href*=\"ctx=\"]'),"
                   "function(a){return a.textContent}).filter(function(t){return /small|big/.test(t)})")
        expect(len(ctx) == 3, "three contexts told apart: %r" % ctx)
        expect(b.js("!!document.getElementById('spread-note')"), "the cost-per-call note")
        shot = b.call("Page.captureScreenshot", format="png")
        with open(SHOT, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        expect(os.path.getsize(SHOT) > 10000, "a screenshot")

    def callers():
        b.click(link_to("its callers by call site"))
        expect(b.h1() == "Callers of leaf", "h1: %r" % b.h1())
        names = b.js("Array.prototype.map.call(document.querySelectorAll('#t-callers + table a[href*=\"/proc/\"]'),"
                     "function(a){return a.textContent})")
        expect(sorted(set(names)) == ["big", "small"], "callers: %r" % names)
        b.back()
        expect(b.h1() == "Procedure leaf", "back at leaf: %r" % b.h1())

    def sort_table():
        col = ("(function(){var t=document.getElementById('t-contexts').nextElementSibling;"
               "var i=Array.prototype.findIndex.call(t.tHead.rows[0].cells,function(c){"
               "return c.getAttribute('data-col')==='total_cscs'});"
               "return Array.prototype.map.call(t.tBodies[0].rows,function(r){"
               "return +r.cells[i].getAttribute('data-v')})})()")
        head = ("document.getElementById('t-contexts').nextElementSibling"
                ".querySelector('th[data-col=total_cscs]')")
        b.click(head, navigates=False)
        down = b.js(col)
        expect(down == sorted(down, reverse=True) and down[0] == 202, "descending: %r" % down)
        b.click(head, navigates=False)
        up = b.js(col)
        expect(up == sorted(up) and up[-1] == 202, "ascending: %r" % up)

    def diff():
        b.click(link_to("Diff"))
        expect(b.h1() == "Diff by context", "h1: %r" % b.h1())
        expect(b.js("document.querySelectorAll('svg.flame.diff rect').length") >= 5, "the diff icicle")
        red = b.js("Array.prototype.filter.call(document.querySelectorAll('svg.flame.diff rect'),"
                   "function(r){return /^rgb\\(255,/.test(r.getAttribute('fill'))}).length")
        expect(red >= 1, "something dearer in red")

    try:
        step("summary with its flame graph", summary)
        step("flame frame to fib's clique and back", flame_to_clique)
        step("a procedure from the top table, screenshot", procedure)
        step("its callers and back", callers)
        step("sort a table by a click, both ways", sort_table)
        step("the diff view", diff)
    finally:
        b.close()
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fail as e:
        print("FAIL browser: %s" % e)
        sys.exit(1)
