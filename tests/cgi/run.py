#!/usr/bin/python3
"""tests/cgi/run.py — the cgi suite (make check-cgi).

Runs deepprof-cgi behind a real web server: lighttpd (Debian's, mod_cgi),
started as the current user on 127.0.0.1 and a free port, with a
generated configuration (document root in the scratch directory, the
program as cgi-bin/deepprof.cgi, DEEPPROF_CGI_DIR pointing at a private
rendezvous directory). Profiles come from c-prog.c built with
-finstrument-functions and libprof: A (leaf called 1234 times) and B
(4321 times). The servers' log (dir/M.log, one line per start and stop)
says how many servers each data file had.

Tests: 50 concurrent clients across the first start (one server, every
answer right), across idle shutdowns and across a data file replaced under
them (answers from the new data once it is in place, none lost); a
SIGKILLed holder of the mutex; a server that times out while the mutex is
held or a want file is there stays; clients that die after sending (the
server answers the others); quit, restart, timeout/N; the time of the
first answer (a server that kept the CGI's stdout would hold it for its
whole idle life); bad input (4xx/5xx pages, the server keeps serving, no
shell ever runs what a file name says). Prints the measured figures.
Last line: "cgi: N passed, N failed".

usage: run.py --build BUILD [--cc CC] [--cflags FLAGS] [TEST...]
Part of deepprof's tests. MIT licence.
"""
import argparse
import fcntl
import html
import http.client
import os
import re
import select
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import dptest  # noqa: E402  (tests/lib: the runner loop and tally)

HERE = os.path.dirname(os.path.abspath(__file__))
T = dptest.Tally("cgi")
FIGURES = []            # (what, value) printed at the end


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def figure(what, value):
    FIGURES.append((what, value))
    print("  figure: %s: %s" % (what, value))
    sys.stdout.flush()


# ================================================================
# The data files, the web server, the rendezvous files
# ================================================================

class Env:
    def __init__(self, a):
        self.a = a
        self.build = os.path.abspath(a.build)
        self.work = os.path.join(self.build, "tests", "cgi")
        shutil.rmtree(self.work, ignore_errors=True)
        self.data = os.path.join(self.work, "data")
        self.rv = os.path.join(self.work, "rv")        # DEEPPROF_CGI_DIR
        os.makedirs(self.data)
        os.makedirs(self.rv, mode=0o700)
        self.san = os.path.join(self.work, "san")
        os.makedirs(self.san)
        self.cgi = os.path.join(self.build, "bin", "deepprof-cgi")
        self.A = self.profile("A", 1234)
        self.B = self.profile("B", 4321)
        self.httpd = None
        self.port = None

    def profile(self, name, n):
        d = os.path.join(self.work, "prog-" + name)
        os.makedirs(d)
        exe = os.path.join(d, "prog")
        cmd = [self.a.cc, "-std=gnu11", "-O0", "-g", "-finstrument-functions", "-pthread",
               "-I" + os.path.join(self.build, "include")] + shlex.split(self.a.cflags)
        cmd += [os.path.join(HERE, "c-prog.c"), "-o", exe,
                os.path.join(self.build, "lib", "libprof.a"), "-lpthread"]
        r = dptest.run(cmd)
        if r.returncode:
            T.abort("build of c-prog.c failed: " + r.stderr[-600:])
        env = {"DEEPPROF_FILE": os.path.join(d, "Deep.data")}
        r = dptest.run([exe, str(n)], cwd=d, env=env)
        if r.returncode or not os.path.exists(env["DEEPPROF_FILE"]):
            T.abort("c-prog %d wrote no profile: %s" % (n, r.stderr[-400:]))
        return env["DEEPPROF_FILE"]

    def copy(self, src, name):
        """A copy of profile src at data/name (its own server)."""
        dst = os.path.join(self.data, name)
        shutil.copyfile(src, dst + ".tmp")
        os.rename(dst + ".tmp", dst)
        return dst

    # ---- lighttpd ----

    def start(self):
        www = os.path.join(self.work, "www")
        os.makedirs(os.path.join(www, "cgi-bin"), exist_ok=True)
        link = os.path.join(www, "cgi-bin", "deepprof.cgi")
        if not os.path.lexists(link):
            os.symlink(self.cgi, link)
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        conf = os.path.join(self.work, "lighttpd.conf")
        with open(conf, "w") as f:
            f.write('server.document-root = "%s"\n' % www)
            f.write('server.bind = "127.0.0.1"\nserver.port = %d\n' % self.port)
            f.write('server.modules = ( "mod_cgi", "mod_setenv" )\n')
            f.write('server.errorlog = "%s"\n' % os.path.join(self.work, "lighttpd.err"))
            f.write('server.max-connections = 512\n')
            f.write('$HTTP["url"] =~ "^/cgi-bin/" { cgi.assign = ( ".cgi" => "" ) }\n')
            # A server's idle life is 30 s here: a CGI whose server kept
            # its stdout would hold the first page that long.
            # Sanitizer builds (SAN=1): the reports of every process, the
            # servers' too (their stderr is /dev/null), go to files that
            # the last test looks for.
            san = []
            for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
                opts = [o for o in os.environ.get(var, "").split(":") if o and
                        not o.startswith("log_path=")]
                opts.append("log_path=" + os.path.join(self.san, var.split("_")[0].lower()))
                san.append('"%s" => "%s"' % (var, ":".join(opts)))
            f.write('setenv.add-environment = ( "DEEPPROF_CGI_DIR" => "%s", '
                    '"DEEPPROF_CGI_TIMEOUT" => "30", "DEEPPROF_CGI_WAIT" => "20", %s )\n' %
                    (self.rv, ", ".join(san)))
        lighttpd = shutil.which("lighttpd") or "/usr/sbin/lighttpd"
        if not os.path.exists(lighttpd):
            T.abort("lighttpd is not installed (make deps installs it)")
        self.httpd = subprocess.Popen([lighttpd, "-D", "-f", conf], stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        end = time.time() + 10
        while time.time() < end:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.httpd.poll() is not None:
                    T.abort("lighttpd exited: " + self.httpd.stderr.read().decode()[-500:])
                time.sleep(0.05)
        T.abort("lighttpd did not listen on port %d" % self.port)

    def stop(self):
        if self.httpd:
            self.httpd.terminate()
            try:
                self.httpd.wait(5)
            except subprocess.TimeoutExpired:
                self.httpd.kill()
        # the servers this suite started
        for f in os.listdir(self.rv) if os.path.isdir(self.rv) else []:
            if f.endswith(".log"):
                for pid in self.pids(f[:-4]):
                    try:
                        os.kill(pid, signal.SIGTERM)
                    except OSError:
                        pass

    # ---- requests ----

    def url(self, page, file=None, extra=""):
        q = "file=" + urllib.parse.quote(file, safe="/") if file else ""
        if extra:
            q = q + "&" + extra if q else extra
        return "/cgi-bin/deepprof.cgi" + page + ("?" + q if q else "")

    def get(self, url, method="GET", timeout=30):
        """(status, body, seconds) of one request on a new connection."""
        t0 = time.monotonic()
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            c.request(method, url)
            r = c.getresponse()
            body = r.read().decode("utf-8", "replace")
            return r.status, body, time.monotonic() - t0
        finally:
            c.close()

    def many(self, urls, start_at=None, delays=None, after=None):
        """GET each url on its own thread, all released together (at
        start_at, a time.monotonic(), when given; thread i waits delays[i]
        more). after=(k, fn): the thread of the k-th answer to come back
        calls fn() then. Returns [(status, body, t_start, t_end)]; an
        exception counts as status 0 with its text as body."""
        out = [None] * len(urls)
        gate = threading.Barrier(len(urls))
        done = [0]
        mu = threading.Lock()

        def one(i):
            gate.wait()
            if start_at is not None:
                time.sleep(max(0.0, start_at - time.monotonic()))
            if delays:
                time.sleep(delays[i])
            t0 = time.monotonic()
            try:
                s, b, _ = self.get(urls[i])
            except Exception as e:      # noqa: BLE001 (a lost answer)
                s, b = 0, repr(e)
            out[i] = (s, b, t0, time.monotonic())
            with mu:
                done[0] += 1
                k = done[0]
            if after and k == after[0]:
                after[1]()
        ts = [threading.Thread(target=one, args=(i,)) for i in range(len(urls))]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        return out

    # ---- the rendezvous files (schemas/cgi-protocol.md) ----

    def mangled(self, file):
        return os.path.realpath(file).replace(":", "::").replace("/", ":.")

    def rvpath(self, file, suffix):
        return os.path.join(self.rv, self.mangled(file) + suffix)

    def log(self, m):
        p = os.path.join(self.rv, m + ".log")
        if not os.path.exists(p):
            return []
        with open(p) as f:
            return f.read().splitlines()

    def starts(self, file):
        return sum(" started: " in l for l in self.log(self.mangled(file)))

    def stops(self, file, why=None):
        tag = " stopped (%s)" % why if why else " stopped ("
        return sum(tag in l for l in self.log(self.mangled(file)))

    def pids(self, m):
        """The pids of m's servers that are alive, by the log."""
        out = []
        for l in self.log(m):
            if " started: pid " in l:
                pid = int(l.split(" started: pid ")[1].split()[0])
                if alive(pid):
                    out.append(pid)
        return out

    def server(self, file):
        p = self.pids(self.mangled(file))
        return p[-1] if p else None

    def wait_gone(self, pid, secs):
        end = time.time() + secs
        while time.time() < end:
            if not alive(pid):
                return True
            time.sleep(0.02)
        return False


E = None


def alive(pid):
    """Is pid a live process (not a zombie: where nothing reaps orphans,
    as in some containers, a stopped server stays one)?"""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def refs(file, pages):
    """The answer of each page for file, asked one at a time."""
    out = {}
    for p in pages:
        s, b, _ = E.get(E.url(p, file))
        check(s == 200, "%s %s: status %d: %s" % (p, file, s, b[:300]))
        out[p] = b
    return out


PAGES = ["/", "/top", "/proc/leaf", "/proc/work", "/recursion"]


# ================================================================
# Tests
# ================================================================

def t_first_start_50():
    """50 clients at once for a data file without a server: exactly one
    server starts, every answer is the page asked for."""
    f = E.copy(E.A, "first.data")
    urls = [E.url(PAGES[i % len(PAGES)], f) for i in range(50)]
    t0 = time.monotonic()
    res = E.many(urls)
    wall = time.monotonic() - t0
    bad = [(i, r[0], r[1][:200]) for i, r in enumerate(res) if r[0] != 200]
    check(not bad, "%d of 50 answers failed: %s" % (len(bad), bad[:3]))
    check(E.starts(f) == 1, "one server started, not %d: %s" % (E.starts(f), E.log(E.mangled(f))))
    pid = E.server(f)
    check(pid is not None, "the server is alive after the burst")
    ref = refs(f, PAGES)
    wrong = [i for i, r in enumerate(res) if r[1] != ref[PAGES[i % len(PAGES)]]]
    check(not wrong, "%d answers differ from the page asked alone (first: %d)" %
          (len(wrong), wrong[0] if wrong else -1))
    check('data-v="1234"' in ref["/proc/leaf"], "A's leaf page shows its 1234 calls")
    ref_b = refs(E.copy(E.B, "first-b.data"), ["/proc/leaf"])
    check('data-v="4321"' in ref_b["/proc/leaf"] and 'data-v="1234"' not in ref_b["/proc/leaf"],
          "B's leaf page shows its 4321 calls (the answers say which data they come from)")
    check(E.starts(f) == 1, "still one server after the reference queries")
    figure("50 concurrent first queries through lighttpd (one server start)", "%.2f s wall" % wall)


def t_first_answer_time():
    """The first page of a fresh server comes at once: the server's child
    closed the CGI's stdout. (lighttpd ends a GET answer at its
    Content-Length, but a HEAD answer, which has no body, only when every
    holder of the CGI's stdout has closed it: a server that kept it held
    HEAD for its whole idle life, 30 s here — 20 s measured with 20.)"""
    for method in ("HEAD", "GET"):
        f = E.copy(E.A, "latency-%s.data" % method.lower())
        s, b, t1 = E.get(E.url("/", f), method=method, timeout=60)
        check(s == 200, "first %s: %d %s" % (method, s, b[:200]))
        pid = E.server(f)
        check(pid is not None, "a server stays after the first answer")
        end = time.monotonic() + 2     # the child detaches right after the fork
        while True:
            fds = {}
            for fd in (0, 1, 2):
                try:
                    fds[fd] = os.readlink("/proc/%d/fd/%d" % (pid, fd))
                except OSError as e:
                    fds[fd] = str(e)
            want = {0: "/dev/null", 1: "/dev/null", 2: E.rvpath(f, ".log")}
            if fds == want or time.monotonic() > end:
                break
            time.sleep(0.01)
        check(fds == want, "the server's stdin and stdout are /dev/null, its stderr the "
              "servers' log: %s" % fds)
        check(t1 < 2.0, "the first %s answer took %.2f s (a held stdout shows as ~30 s)" %
              (method, t1))
        s, b, t2 = E.get(E.url("/", f), method=method)
        check(s == 200, "second %s: %d" % (method, s))
        figure("first %s (reads the file, forks the server)" % method, "%.3f s" % t1)
        figure("next %s (through the server)" % method, "%.3f s" % t2)


def t_idle_shutdown_50():
    """Bursts of 50 clients timed to meet the server's idle shutdown
    (timeout/1s): every answer right; servers stop and start again."""
    f = E.copy(E.A, "idle.data")
    ref = refs(f, PAGES)
    seen_across = 0
    for rnd, offset in enumerate((-0.05, 0.0, 0.02, 0.05, 0.1, 0.2)):
        s, b, _ = E.get(E.url("/timeout/1s", f))
        check(s == 200 and "1 s" in b, "timeout/1s: %d %s" % (s, b[:200]))
        stops0 = E.stops(f, "idle")
        start_at = time.monotonic() + 1.0 + offset
        urls = [E.url(PAGES[i % len(PAGES)], f) for i in range(50)]
        res = E.many(urls, start_at=start_at, delays=[0.004 * (i % 25) for i in range(50)])
        bad = [(i, r[0], r[1][:150]) for i, r in enumerate(res)
               if r[0] != 200 or r[1] != ref[PAGES[i % len(PAGES)]]]
        check(not bad, "round %d: %d of 50 lost or wrong: %s" % (rnd, len(bad), bad[:3]))
        if E.stops(f, "idle") > stops0:
            seen_across += 1
    time.sleep(0.3)
    check(E.stops(f, "idle") >= 1, "the server timed out at least once: %s" % E.log(E.mangled(f)))
    check(E.starts(f) == E.stops(f) + (1 if E.server(f) else 0),
          "every start but the live one has its stop: %s" % E.log(E.mangled(f)))
    figure("idle-shutdown rounds (of 6) in which a server stopped during or just before a burst",
           seen_across)


def t_changed_file_50():
    """A data file replaced (rename) while 50 clients ask: every answer is
    A's or B's page, all that started after the rename are B's, none lost."""
    f = E.copy(E.A, "changing.data")
    ref_a = refs(f, PAGES)
    E.copy(E.B, "changing.data")
    ref_b = refs(f, PAGES)
    check(ref_a != ref_b, "the pages of A and B differ")
    check(E.starts(f) == 1, "the server read the new data without a restart")
    E.copy(E.A, "changing.data")
    check(refs(f, ["/"])["/"] == ref_a["/"], "and again the old data when it is back")
    swapped = {}

    def swap():
        E.copy(E.B, "changing.data")
        swapped["t"] = time.monotonic()
    urls = [E.url(PAGES[i % len(PAGES)], f) for i in range(50)]
    res = E.many(urls, delays=[0.01 * i for i in range(50)], after=(15, swap))
    check("t" in swapped, "the file was replaced during the burst")
    lost = [i for i, r in enumerate(res) if r[0] != 200]
    wrong, late_old, n_new = [], [], 0
    for i, (s, b, t0, _) in enumerate(res):
        p = PAGES[i % len(PAGES)]
        if s != 200:
            continue
        if b == ref_b[p]:
            n_new += 1
        elif b == ref_a[p]:
            if t0 > swapped["t"]:
                late_old.append(i)
        else:
            wrong.append(i)
    check(not lost, "%d of 50 lost: %s" % (len(lost), [res[i][1][:150] for i in lost[:3]]))
    check(not wrong, "%d answers are neither A's nor B's page" % len(wrong))
    check(not late_old, "%d queries sent after the change got the old data" % len(late_old))
    check(n_new > 0, "some answers came from the new data")
    figure("changed data file under 50 clients", "%d old, %d new, 0 lost, 0 wrong" %
           (50 - n_new, n_new))


def holder(path):
    """A process that takes the flock on path and sleeps; returns it once
    it holds the lock."""
    code = ("import fcntl, os, sys, time\n"
            "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('locked', flush=True)\n"
            "time.sleep(60)\n")
    p = subprocess.Popen([sys.executable, "-c", code, path], stdout=subprocess.PIPE, text=True)
    check(p.stdout.readline().strip() == "locked", "the holder took the lock")
    return p


def t_killed_lock_holder():
    """A process holding a data file's mutex is SIGKILLed: the query that
    waited for it is answered at once, and so are later ones."""
    f = E.copy(E.A, "killed.data")
    h = holder(E.rvpath(f, ".lock"))
    box = {}

    def ask():
        box["r"] = E.get(E.url("/", f))
        box["t"] = time.monotonic()
    th = threading.Thread(target=ask)
    th.start()
    time.sleep(1.0)
    check("r" not in box, "the query waited while the mutex was held")
    h.send_signal(signal.SIGKILL)
    h.wait()
    t_kill = time.monotonic()
    th.join(20)
    check("r" in box, "the query was answered after the holder died")
    s, b, _ = box["r"]
    check(s == 200, "answer after the kill: %d %s" % (s, b[:200]))
    check(box["t"] - t_kill < 2.0, "answered %.2f s after the kill" % (box["t"] - t_kill))
    s, b, t = E.get(E.url("/proc/leaf", f))
    check(s == 200 and t < 2.0, "a later query: %d in %.2f s" % (s, t))
    # A holder that lives on: a client waits DEEPPROF_CGI_WAIT, then 503.
    h = holder(E.rvpath(f, ".lock"))
    env = {"REQUEST_METHOD": "GET", "QUERY_STRING": "file=" + f, "PATH_INFO": "/",
           "SCRIPT_NAME": "/x", "DEEPPROF_CGI_DIR": E.rv, "DEEPPROF_CGI_WAIT": "1"}
    t0 = time.monotonic()
    p = dptest.run([E.cgi], env=env)
    t = time.monotonic() - t0
    h.kill()
    h.wait()
    check(p.stdout.startswith("Status: 503 ") and "no turn within 1 s" in p.stdout and 0.9 < t < 3,
          "a mutex held too long: 503 after DEEPPROF_CGI_WAIT (%.2f s): %s" % (t, p.stdout[:300]))
    figure("answer after SIGKILL of the mutex holder", "%.1f ms" % (1000 * (box["t"] - t_kill)))


def t_stay_while_wanted():
    """A server that times out while its mutex is held, or while a live
    client's want file is there, stays; it stops once they are gone."""
    f = E.copy(E.A, "stay.data")
    s, _, _ = E.get(E.url("/", f))
    check(s == 200, "first query")
    pid = E.server(f)
    s, _, _ = E.get(E.url("/timeout/1s", f))
    h = holder(E.rvpath(f, ".lock"))
    time.sleep(2.5)
    alive_locked = E.server(f) == pid
    h.kill()
    h.wait()
    check(alive_locked, "the server stayed while the mutex was held")
    want = E.rvpath(f, ".want.%d" % os.getpid())
    open(want, "w").close()
    time.sleep(2.5)
    alive_wanted = E.server(f) == pid
    os.unlink(want)
    check(alive_wanted, "the server stayed while a live client's want file was there")
    dead = subprocess.Popen(["true"])
    dead.wait()
    open(E.rvpath(f, ".want.%d" % dead.pid), "w").close()
    check(E.wait_gone(pid, 4), "the server stopped once nothing held it (a dead "
          "client's want file does not count)")
    check(not os.path.exists(E.rvpath(f, ".want.%d" % dead.pid)),
          "the dead client's want file was removed")
    for suffix in (".to", ".lock"):
        check(not os.path.exists(E.rvpath(f, suffix)), "%s removed at the stop" % suffix)


def send_frame(f, reply, page="/", query=""):
    """Write a query frame (schemas/cgi-protocol.md) to f's server, with the
    mutex held, as a client does."""
    payload = b"\0".join(x.encode() for x in (reply, "/cgi-bin/deepprof.cgi", page, query)) + b"\0"
    frame = b"DPQ1 %d\n" % len(payload) + payload
    lk = os.open(E.rvpath(f, ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(lk, fcntl.LOCK_EX)
    try:
        fd = os.open(E.rvpath(f, ".to"), os.O_WRONLY | os.O_NONBLOCK)
        os.write(fd, frame)
        os.close(fd)
    finally:
        os.close(lk)


def t_dead_clients():
    """Clients that die after sending their query (one never opened its
    reply FIFO, one closed it unread, one was SIGKILLed waiting) do not
    wedge the server: the next queries are answered at once, and the
    reply FIFOs they left are removed."""
    f = E.copy(E.A, "dead.data")
    ref = refs(f, PAGES)
    pid = E.server(f)
    m = E.mangled(f)
    # 1: never opened its reply FIFO
    n1 = "%s.reply.%d.901" % (m, os.getpid())
    os.mkfifo(os.path.join(E.rv, n1), 0o600)
    send_frame(f, n1)
    # 2: opened it, sent, closed it unread
    n2 = "%s.reply.%d.902" % (m, os.getpid())
    os.mkfifo(os.path.join(E.rv, n2), 0o600)
    fd = os.open(os.path.join(E.rv, n2), os.O_RDONLY | os.O_NONBLOCK)
    send_frame(f, n2)
    os.close(fd)
    # 3: a client process killed after sending, before reading
    code = ("import os, sys, time\n"
            "d, n = sys.argv[1], sys.argv[2]\n"
            "os.mkfifo(os.path.join(d, n), 0o600)\n"
            "fd = os.open(os.path.join(d, n), os.O_RDONLY | os.O_NONBLOCK)\n"
            "print('ready', flush=True)\n"
            "time.sleep(60)\n")
    n3 = "%s.reply.%d.903" % (m, os.getpid())
    c = subprocess.Popen([sys.executable, "-c", code, E.rv, n3], stdout=subprocess.PIPE, text=True)
    check(c.stdout.readline().strip() == "ready", "the dying client is ready")
    c.kill()
    c.wait()
    send_frame(f, n3)
    worst = 0.0
    for i in range(20):
        s, b, t = E.get(E.url(PAGES[i % 5], f))
        check(s == 200 and b == ref[PAGES[i % 5]], "query %d after the dead clients: %d" % (i, s))
        worst = max(worst, t)
    check(worst < 1.0, "the slowest of 20 later queries took %.2f s" % worst)
    check(E.server(f) == pid, "the same server answers")
    time.sleep(0.3)
    left = [n for n in (n1, n2, n3) if os.path.exists(os.path.join(E.rv, n))]
    check(not left, "the dead clients' reply FIFOs were removed: %s" % left)
    figure("slowest of 20 queries after 3 dead clients", "%.3f s" % worst)


def t_stalled_client():
    """A client that is alive but stops reading (its reply FIFO shrunk to
    one page, smaller than the page it asked for) holds one of the
    server's threads until the 10 s write deadline, nothing more: the
    others are answered at once meanwhile, and then its FIFO is closed."""
    f = E.copy(E.A, "stall.data")
    ref = refs(f, PAGES)
    check(len(ref["/"]) > 8192, "the first page is larger than the stalled pipe (%d)" %
          len(ref["/"]))
    m = E.mangled(f)
    name = "%s.reply.%d.904" % (m, os.getpid())
    path = os.path.join(E.rv, name)
    os.mkfifo(path, 0o600)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 4096)
    send_frame(f, name)
    t0 = time.monotonic()
    worst = 0.0
    for i in range(20):
        s, b, t = E.get(E.url(PAGES[i % 5], f))
        check(s == 200 and b == ref[PAGES[i % 5]], "query %d beside the stalled client: %d" % (i, s))
        worst = max(worst, t)
    check(worst < 1.0, "the slowest of 20 queries beside the stalled client took %.2f s" % worst)
    # Read nothing: the server is still writing at 5 s (no hang-up yet)...
    time.sleep(max(0.0, 5 - (time.monotonic() - t0)))
    po = select.poll()
    po.register(fd, select.POLLIN)
    ev = dict(po.poll(0)).get(fd, 0)
    check(ev & select.POLLIN and not ev & select.POLLHUP,
          "at 5 s the server still holds the stalled reply open (events %#x)" % ev)
    # ... and past its deadline the pipe holds what fit (one page) and ends.
    time.sleep(max(0.0, 11.5 - (time.monotonic() - t0)))
    got, eof = b"", False
    try:
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                eof = True
                break
            got += chunk
    except BlockingIOError:
        pass
    os.close(fd)
    t = time.monotonic() - t0
    check(eof and len(got) < len(ref["/"]),
          "the server gave up on the stalled client and closed its FIFO (eof %s after %.1f s, "
          "%d bytes of %d)" % (eof, t, len(got), len(ref["/"])))
    s, b, _ = E.get(E.url("/", f))
    check(s == 200 and b == ref["/"], "and serves on")
    figure("slowest of 20 queries beside a stalled client", "%.3f s" % worst)


def t_killed_server():
    """A server killed by SIGKILL leaves its FIFO, with no reader: the next
    query notices (ENXIO), starts a new server and is answered. Queries a
    server had in hand when it was killed are asked again (the client sees
    the FIFO lose its reader) and answered by a new server."""
    f = E.copy(E.A, "killed-server.data")
    ref = refs(f, PAGES)
    pid = E.server(f)
    os.kill(pid, signal.SIGKILL)
    check(E.wait_gone(pid, 3), "the server is dead")
    check(os.path.exists(E.rvpath(f, ".to")), "its FIFO is left behind")
    res = E.many([E.url(PAGES[i % 5], f) for i in range(20)])
    bad = [(i, r[0]) for i, r in enumerate(res) if r[0] != 200 or r[1] != ref[PAGES[i % 5]]]
    check(not bad, "20 queries after the kill: %d lost or wrong %s" % (len(bad), bad[:3]))
    check(E.starts(f) == 2, "one new server: %s" % E.log(E.mangled(f)))
    pid2 = E.server(f)
    check(pid2 not in (None, pid), "a new live server")
    # A server that dies with queries in hand: stopped, asked, killed.
    os.kill(pid2, signal.SIGSTOP)
    box = {}

    def stop_then_kill():
        time.sleep(0.5)
        box["t"] = time.monotonic()
        os.kill(pid2, signal.SIGKILL)
    th = threading.Thread(target=stop_then_kill)
    th.start()
    res = E.many([E.url(PAGES[i % 5], f) for i in range(10)])
    th.join()
    bad = [(i, r[0], r[1][:100]) for i, r in enumerate(res)
           if r[0] != 200 or r[1] != ref[PAGES[i % 5]]]
    check(not bad, "10 queries held by a server killed before it answered: %d lost or "
          "wrong %s" % (len(bad), bad[:3]))
    late = max(r[3] for r in res) - box["t"]
    check(late < 3, "answered %.2f s after the kill (by a new server)" % late)
    check(E.starts(f) == 3, "one more server: %s" % E.log(E.mangled(f)))
    figure("10 queries whose server was SIGKILLed before answering: all answered",
           "%.2f s after the kill" % late)


def t_control():
    """quit, restart, timeout/N (minutes, or Ns seconds), bad timeouts."""
    f = E.copy(E.A, "control.data")
    ref = refs(f, ["/"])
    pid = E.server(f)
    for bad in ("/timeout/x", "/timeout/0", "/timeout/", "/timeout/5m", "/timeout/-3"):
        s, b, _ = E.get(E.url(bad, f))
        check(s == 400 and "bad timeout" in b, "%s: 400 bad timeout, got %d %s" % (bad, s, b[:200]))
    s, b, _ = E.get(E.url("/timeout/2", f))
    check(s == 200 and "120 s" in b, "timeout/2 (minutes): %d %s" % (s, b[:200]))
    check(any("idle timeout now 120 s" in l for l in E.log(E.mangled(f))), "logged")
    s, b, _ = E.get(E.url("/restart", f))
    check(s == 200 and b == ref["/"], "restart answers the first page: %d" % s)
    check(any("restart: read" in l for l in E.log(E.mangled(f))), "restart read the file again")
    check(E.server(f) == pid, "restart keeps the process")
    s, b, _ = E.get(E.url("/quit", f))
    check(s == 200 and "shutting down" in b, "quit: %d %s" % (s, b[:200]))
    check(E.wait_gone(pid, 3), "the server exits after quit")
    check(E.stops(f, "quit") == 1, "its stop is logged as quit")
    for suffix in (".to", ".lock"):
        check(not os.path.exists(E.rvpath(f, suffix)), "%s removed after quit" % suffix)
    n = E.starts(f)
    s, b, _ = E.get(E.url("/quit", f))
    check(s == 200 and "No server" in b and E.starts(f) == n, "quit with no server starts none")
    s, b, _ = E.get(E.url("/", f))
    check(s == 200 and b == ref["/"] and E.starts(f) == n + 1, "the next query starts a server")
    # Mercury's URL shape: SCRIPT?CMD&PREFS&FILE
    s, b, _ = E.get("/cgi-bin/deepprof.cgi?menu&&" + urllib.parse.quote(f, safe="/"))
    check(s == 200 and b == ref["/"], "Mercury's menu&PREFS&FILE: %d" % s)
    s, b, _ = E.get("/cgi-bin/deepprof.cgi?quit&x&" + urllib.parse.quote(f, safe="/"))
    check(s == 200 and "shutting down" in b, "Mercury's quit&PREFS&FILE: %d" % s)


def t_bad_input():
    """Missing, corrupt and odd data files, bad queries: a 4xx/5xx page
    that says what is wrong; the running server keeps serving; a file name
    full of shell metacharacters is only ever a file name."""
    f = E.copy(E.A, "bad.data")
    ref = refs(f, PAGES)
    pid = E.server(f)
    corrupt = os.path.join(E.data, "corrupt.data")
    with open(corrupt, "wb") as o:
        o.write(os.urandom(3000))
    trunc = os.path.join(E.data, "trunc.data")
    with open(E.A, "rb") as i, open(trunc, "wb") as o:
        o.write(i.read()[:200])
    cases = [
        (E.url("/", os.path.join(E.data, "missing.data")), 404, "No such file"),
        (E.url("/", corrupt), 422, corrupt),
        (E.url("/", trunc), 422, trunc),
        (E.url("/", E.data), 404, "not a regular file"),
        (E.url("/"), 400, "no data file named"),
        (E.url("/", "relative.data"), 400, "absolute path"),
        (E.url("/", f) + "&file=" + urllib.parse.quote(f), 400, "twice"),
        ("/cgi-bin/deepprof.cgi?a&b&c&" + f, 400, "too many"),
        (E.url("/", f, "x=" + "y" * 5000), 414, "too long"),
        (E.url("/no/such/page", f), 404, ""),
    ]
    for url, want, text in cases:
        s, b, _ = E.get(url)
        check(s == want, "%s: status %d, want %d: %s" % (url[:100], s, want, b[:300]))
        check(text in b, "%s: the page says %r: %s" % (url[:100], text, b[:300]))
        check(b.lstrip().startswith("<!DOCTYPE html>"), "%s: an HTML page" % url[:100])
    s, b, _ = E.get(E.url("/", f), method="POST")
    check(s == 405, "POST: %d" % s)
    # What lighttpd itself cleans up before a CGI sees it, run directly.
    for qs, text in (("file=%2", "escape"), ("file=%00", "escape"), ("file=%zz", "escape"),
                     ("file=/a%0a", "control characters")):
        env = {"REQUEST_METHOD": "GET", "QUERY_STRING": qs, "SCRIPT_NAME": "/x",
               "DEEPPROF_CGI_DIR": E.rv}
        p = dptest.run([E.cgi], env=env)
        check(p.returncode == 0 and p.stdout.startswith("Status: 400 ") and text in p.stdout,
              "QUERY_STRING %r: 400 %r: %s" % (qs, text, p.stdout[:300]))
    # Settings: a root the file is not under; a directory of servers that
    # others may write; a data file path too long to be a name as it is.
    env = {"REQUEST_METHOD": "GET", "QUERY_STRING": "file=" + f, "SCRIPT_NAME": "/x",
           "DEEPPROF_CGI_DIR": E.rv, "DEEPPROF_CGI_ROOT": os.path.join(E.work, "odd")}
    p = dptest.run([E.cgi], env=env)
    check(p.stdout.startswith("Status: 403 ") and "DEEPPROF_CGI_ROOT" in p.stdout,
          "outside DEEPPROF_CGI_ROOT: 403: %s" % p.stdout[:300])
    env["DEEPPROF_CGI_ROOT"] = E.data
    p = dptest.run([E.cgi], env=env)
    check(p.stdout.startswith("Status: 200 "), "inside DEEPPROF_CGI_ROOT: 200: %s" % p.stdout[:200])
    open_dir = os.path.join(E.work, "open-dir")
    os.makedirs(open_dir)
    os.chmod(open_dir, 0o777)
    env["DEEPPROF_CGI_DIR"] = open_dir
    p = dptest.run([E.cgi], env=env)
    check(p.stdout.startswith("Status: 500 ") and "writable by no one else" in p.stdout,
          "a directory of servers others may write: 500: %s" % p.stdout[:300])
    deep = os.path.join(E.work, "long", *(["d" * 60] * 4))
    os.makedirs(deep)
    longf = E.copy(E.A, "x")    # a copy in data/, moved under the long path
    longf = shutil.move(longf, os.path.join(deep, "a-long-named-profile.data"))
    check(len(E.mangled(longf)) > 200, "the long path mangles to %d bytes" % len(E.mangled(longf)))
    for page in ("/", "/proc/leaf", "/quit"):
        s, b, _ = E.get(E.url(page, longf))
        check(s == 200, "a data file with a %d-byte path, %s: %d %s" % (len(longf), page, s, b[:200]))
    hashed = [x for x in os.listdir(E.rv) if ":h" in x and x.endswith(".log")]
    check(len(hashed) == 1 and len(hashed[0]) < 200, "its files have a hashed name: %s" % hashed)
    p = dptest.run([E.cgi])
    check(p.returncode == 2 and "not run as a CGI program" in p.stderr,
          "run by hand: exit 2 and why: %s" % p.stderr)
    for m in ("corrupt.data", "trunc.data", "missing.data"):
        left = [x for x in os.listdir(E.rv) if x.startswith(E.mangled(os.path.join(E.data, m)))]
        check(not left, "a data file that gave no server leaves no file: %s" % left)
    # a file name made of shell metacharacters
    odd_dir = os.path.join(E.work, "odd")
    os.makedirs(odd_dir, exist_ok=True)
    odd = os.path.join(odd_dir, "a;touch PWNED$(touch PWNED2)`touch PWNED3`&x|y'z\"<w>.data")
    shutil.copyfile(E.A, odd)
    s, b, _ = E.get(E.url("/", odd))
    check(s == 200 and "<title>Profile summary</title>" in b,
          "the odd file name is served: %d %s" % (s, b[:200]))
    s, b, _ = E.get(E.url("/proc/leaf", odd))
    check(s == 200 and 'data-v="1234"' in b, "and through its server: %d" % s)
    links = [html.unescape(h) for h in re.findall(r'href="([^"]*)"', b) if "/top?" in h]
    check(links, "the odd file's page links to /top")
    s, b2, _ = E.get(links[0])
    check(s == 200 and "data-v=" in b2, "its link keeps the odd file name: %s: %d" % (links[0], s))
    s, b, _ = E.get(E.url("/", os.path.join(odd_dir, "<script>x</script>.data")))
    check(s == 404 and "&lt;script&gt;x&lt;/script&gt;.data" in b and "<script>" not in b,
          "an error page escapes the file name: %d %s" % (s, b[:300]))
    for d in (odd_dir, E.work, os.path.join(E.work, "www", "cgi-bin")):
        pw = [x for x in os.listdir(d) if x.startswith("PWNED")]
        check(not pw, "no shell ran the file name: %s in %s" % (pw, d))
    for p in PAGES:
        s, b, _ = E.get(E.url(p, f))
        check(s == 200 and b == ref[p], "the server of a good file still answers %s" % p)
    check(E.server(f) == pid, "and it is the same server")


def t_throughput():
    """Queries per second through lighttpd to a warm server, 8 clients at
    a time (each query is a fork+exec of the CGI by lighttpd)."""
    f = E.copy(E.A, "tput.data")
    ref = refs(f, PAGES)
    n, par = 400, 8
    lat, bad = [], []
    lock = threading.Lock()
    it = iter(range(n))

    def loop():
        while True:
            with lock:
                i = next(it, None)
            if i is None:
                return
            s, b, t = E.get(E.url(PAGES[i % 5], f))
            with lock:
                lat.append(t)
                if s != 200 or b != ref[PAGES[i % 5]]:
                    bad.append(i)
    t0 = time.monotonic()
    ts = [threading.Thread(target=loop) for _ in range(par)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    wall = time.monotonic() - t0
    check(not bad, "%d of %d wrong" % (len(bad), n))
    check(E.starts(f) == 1, "one server")
    lat.sort()
    figure("throughput, %d queries, %d at a time" % (n, par),
           "%.0f queries/s; latency median %.1f ms, 95%% %.1f ms" %
           (n / wall, 1000 * lat[n // 2], 1000 * lat[int(n * 0.95)]))


def t_links():
    """The links of the pages lead back to deepprof-cgi with the data file
    in the query, and each answers 200 (every link of the pages reached
    from the first one, up to 150 pages)."""
    f = E.copy(E.A, "links.data")
    enc = urllib.parse.quote(f, safe="/")
    seen, todo, n = set(), [E.url("/", f)], 0
    while todo and n < 150:
        u = todo.pop(0)
        if u in seen:
            continue
        seen.add(u)
        s, b, _ = E.get(u)
        n += 1
        check(s == 200, "%s: %d %s" % (u, s, b[:200]))
        for h in re.findall(r'href="([^"]*)"', b):
            h = html.unescape(h)
            if h.startswith("#") or h.startswith("data:"):
                continue
            check(h.startswith("/cgi-bin/deepprof.cgi/") and "file=" + enc in h,
                  "%s links to %s: not back to the script with the data file" % (u, h))
            if h.split("#")[0] not in seen:
                todo.append(h.split("#")[0])
    check(n >= 5, "the pages link to other pages (%d answered)" % n)
    check(E.starts(f) == 1, "all through one server")
    figure("pages reached by following links, all 200", n)


def t_no_sanitizer_reports():
    """No process of deepprof-cgi, client or server, wrote a sanitizer
    report (SAN=1 builds; elsewhere there is nothing to write them): no
    report file, and no report in the servers' logs (their stderr) or
    lighttpd's error log (the CGI processes' stderr)."""
    f = E.copy(E.A, "san.data")
    s, _, _ = E.get(E.url("/", f))
    check(s == 200, "a query")
    pid = E.server(f)
    with open("/proc/%d/environ" % pid, "rb") as fh:
        env = fh.read().split(b"\0")
    check(any(e.startswith(b"ASAN_OPTIONS=") and b"log_path=" in e for e in env),
          "the server runs with the suite's ASAN_OPTIONS (log_path)")
    for p in E.pids(E.mangled(f)):
        os.kill(p, signal.SIGTERM)
    time.sleep(0.2)
    reports = sorted(os.listdir(E.san))
    text = ""
    for r in reports[:2]:
        with open(os.path.join(E.san, r), errors="replace") as fh:
            text += fh.read()[:1500]
    check(not reports, "sanitizer reports: %s\n%s" % (reports, text))
    # UBSan in an ASan+UBSan build ignores log_path: its reports go to
    # stderr, which is the servers' log for a server and lighttpd's error
    # log for a CGI process.
    logs = [os.path.join(E.rv, x) for x in os.listdir(E.rv) if x.endswith(".log")]
    for p in logs + [os.path.join(E.work, "lighttpd.err")]:
        with open(p, errors="replace") as fh:
            bad = [l for l in fh if "runtime error" in l or "Sanitizer" in l]
        check(not bad, "%s: %s" % (p, "".join(bad[:5])))


TESTS = [
    ("first start, 50 clients", t_first_start_50),
    ("first answer time", t_first_answer_time),
    ("idle shutdown, 50 clients", t_idle_shutdown_50),
    ("changed data file, 50 clients", t_changed_file_50),
    ("killed lock holder", t_killed_lock_holder),
    ("stays while wanted", t_stay_while_wanted),
    ("dead clients", t_dead_clients),
    ("stalled client", t_stalled_client),
    ("killed server", t_killed_server),
    ("quit, restart, timeout", t_control),
    ("bad input", t_bad_input),
    ("links", t_links),
    ("throughput", t_throughput),
    ("no sanitizer reports", t_no_sanitizer_reports),
]


def main():
    global E
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--cflags", default="")
    ap.add_argument("tests", nargs="*")
    a = ap.parse_args()
    E = Env(a)
    E.start()
    try:
        chosen = [t for t in TESTS if not a.tests or any(x in t[0] for x in a.tests)]
        dptest.run_each(T, chosen, fail=(Fail,), timed=True)
    finally:
        E.stop()
    return T.end()


if __name__ == "__main__":
    sys.exit(main())
