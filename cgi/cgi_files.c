/*
 * cgi_files.c — the rendezvous files through which the clients of one data
 * file find its server: the per-user directory, the mangled name, the
 * mutex (flock, so a killed holder releases it), want files and reply
 * FIFOs, each named after the data file (schemas/cgi-protocol.md).
 * Part of deepprof's CGI program. MIT licence.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgi.h"

/* ---- private prototypes ---- */
static int choose_dir(char *dir, size_t len, char *err, size_t errlen);
static void mangle(char *out, size_t len, const char *file);
static int all_digits(const char *s, const char *end);
static int pid_alive(const char *digits);
static int scan(const struct cgi_files *f, const char *kind);
static void on_alarm(int sig);

/* The directory: DEEPPROF_CGI_DIR, else deepprof-cgi-<uid> in $TMPDIR, else
 * in /var/tmp (as Mercury: it outlives a reboot's /tmp cleaning less than
 * it outlives the web server, and a web server's private /tmp is its own).
 * Made 0700; one that another user owns or may write is refused, since
 * whoever can write there could pose as the server. */
static int choose_dir(char *dir, size_t len, char *err, size_t errlen)
{
	const char *env = getenv("DEEPPROF_CGI_DIR");
	const char *tmp = getenv("TMPDIR");
	struct stat st;

	if (env && *env)
		snprintf(dir, len, "%s", env);
	else
		snprintf(dir, len, "%s/deepprof-cgi-%lu", tmp && tmp[0] == '/' ? tmp : "/var/tmp",
			 (unsigned long)geteuid());
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "%s: cannot make the directory of the servers: %s", dir,
			 strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory", dir);
		return -1;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(err, errlen, "%s: the directory of the servers must be this user's and "
			 "writable by no one else", dir);
		return -1;
	}
	return 0;
}

/* Mercury's mangling: ':' becomes "::" and '/' becomes ":.", so distinct
 * paths get distinct names. A name too long for a directory entry keeps
 * its start and ends in ":h" and a 64-bit FNV-1a hash of the whole path. */
static void mangle(char *out, size_t len, const char *file)
{
	size_t n = 0;
	uint64_t h = 1469598103934665603ull;

	for (const char *s = file; *s; s++) {
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
		if (n + 3 >= len)
			continue;
		if (*s == ':') {
			out[n++] = ':';
			out[n++] = ':';
		} else if (*s == '/') {
			out[n++] = ':';
			out[n++] = '.';
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
	if (n > 180 || n + 3 >= len)
		snprintf(out + 150, len - 150, ":h%016llx", (unsigned long long)h);
}

int cgi_files_init(struct cgi_files *f, const char *file, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	if (choose_dir(f->dir, sizeof(f->dir) - 300, err, errlen))
		return -1;
	mangle(f->mangled, sizeof(f->mangled), file);
	snprintf(f->lock, sizeof(f->lock), "%s/%s.lock", f->dir, f->mangled);
	snprintf(f->to, sizeof(f->to), "%s/%s.to", f->dir, f->mangled);
	return 0;
}

/* ==== the mutex ======================================================= */

static void on_alarm(int sig)
{
	(void)sig;
}

int cgi_lock(const struct cgi_files *f, int wait_s)
{
	for (;;) {
		struct stat a, b;
		int fd = open(f->lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		int rc;

		if (fd < 0)
			return -2;
		if (wait_s <= 0) {
			rc = flock(fd, LOCK_EX | LOCK_NB);
		} else {
			/* A blocking flock cut short by SIGALRM (no SA_RESTART):
			 * only the client, which has one thread, waits. */
			struct sigaction sa, old;

			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = on_alarm;
			sigemptyset(&sa.sa_mask);
			sigaction(SIGALRM, &sa, &old);
			alarm((unsigned)wait_s);
			rc = flock(fd, LOCK_EX);
			alarm(0);
			sigaction(SIGALRM, &old, NULL);
		}
		if (rc != 0) {
			int e = errno;

			close(fd);
			errno = e;
			return e == EWOULDBLOCK || e == EINTR ? -1 : -2;
		}
		/* Locked; but if the holder before us removed the file, we
		 * hold a lock on a file no one else will open: again. */
		if (fstat(fd, &a) == 0 && stat(f->lock, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			return fd;
		close(fd);
	}
}

void cgi_unlock(const struct cgi_files *f, int fd, int remove)
{
	if (fd < 0)
		return;
	if (remove)
		unlink(f->lock);
	flock(fd, LOCK_UN);
	close(fd);
}

/* ==== want files and reply FIFOs ====================================== */

static int all_digits(const char *s, const char *end)
{
	if (s == end)
		return 0;
	for (; s < end; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* Is the process with this pid (decimal digits) alive? */
static int pid_alive(const char *digits)
{
	long pid = strtol(digits, NULL, 10);

	if (pid <= 0)
		return 0;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

int cgi_want_create(const struct cgi_files *f)
{
	char path[CGI_PATH_MAX + 64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.want.%ld", f->dir, f->mangled, (long)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

void cgi_want_remove(const struct cgi_files *f)
{
	char path[CGI_PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s.want.%ld", f->dir, f->mangled, (long)getpid());
	unlink(path);
}

/* Walk f's directory for entries "M<kind><pid>..." and, for each whose pid
 * is dead, remove it; returns whether any has a live pid. kind is ".want."
 * (then the rest is the pid) or ".reply." (the pid, '.', a number). */
static int scan(const struct cgi_files *f, const char *kind)
{
	size_t ml = strlen(f->mangled), kl = strlen(kind);
	DIR *d = opendir(f->dir);
	struct dirent *e;
	int live = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		const char *rest = e->d_name + ml + kl, *dot;
		char path[CGI_PATH_MAX + 64];

		if (strncmp(e->d_name, f->mangled, ml) || strncmp(e->d_name + ml, kind, kl))
			continue;
		dot = strchr(rest, '.');
		if (kind[1] == 'w' ? !all_digits(rest, rest + strlen(rest))
				   : !dot || !all_digits(rest, dot) ||
				     !all_digits(dot + 1, dot + 1 + strlen(dot + 1)))
			continue;
		if (pid_alive(rest)) {
			live = 1;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", f->dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	return live;
}

int cgi_want_any(const struct cgi_files *f)
{
	return scan(f, ".want.");
}

void cgi_reap_replies(const struct cgi_files *f)
{
	scan(f, ".reply.");
}

int cgi_reply_make(const struct cgi_files *f, char *name, size_t len)
{
	static unsigned seq;
	char path[CGI_PATH_MAX + 64];

	for (int tries = 0; tries < 5; tries++) {
		snprintf(name, len, "%s.reply.%ld.%u", f->mangled, (long)getpid(), seq++);
		snprintf(path, sizeof(path), "%s/%s", f->dir, name);
		if (mkfifo(path, 0600) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
		unlink(path);   /* left by a dead process that had our pid */
	}
	return -1;
}

int cgi_reply_name_ok(const struct cgi_files *f, const char *name)
{
	size_t ml = strlen(f->mangled);

	return !strchr(name, '/') && !strncmp(name, f->mangled, ml) &&
	       !strncmp(name + ml, ".reply.", 7);
}

void cgi_log(const struct cgi_files *f, const char *fmt, ...)
{
	char path[CGI_PATH_MAX + 64], line[1024];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;
	size_t n;
	int fd;

	gmtime_r(&now, &tm);
	n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%SZ", &tm);
	n += (size_t)snprintf(line + n, sizeof(line) - n, " pid %ld ", (long)getpid());
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	n = strlen(line);
	line[n++] = '\n';
	snprintf(path, sizeof(path), "%s/%s.log", f->dir, f->mangled);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	if (write(fd, line, n) < 0) {
		/* a log that cannot be written is no reason to stop serving */
	}
	close(fd);
}
