/*
 * cgi_server.c — the server half of deepprof-cgi: read query frames from
 * the data file's FIFO, answer each on a thread of its own into the
 * client's reply FIFO (a client that is gone or stalls costs a timeout),
 * and shut down after an idle time, on quit, without stranding a client
 * (schemas/cgi-protocol.md). Part of deepprof's CGI program. MIT licence.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgi.h"

/* At most this many queries are answered at once; the rest wait in the
 * FIFO (the machine this was made on has 2 cores). */
#define MAX_INFLIGHT 8
/* How long the server waits for a client to take (more of) its reply. */
#define REPLY_TIMEOUT_MS 10000

/* The one server of this process. The main thread reads the FIFO and
 * starts workers; mu guards inflight, last_ms and quit, which the workers
 * update as they end; timeout_s is written by a worker (timeout/N) under
 * mu and read by the main thread under mu. */
static struct server {
	const struct cgi_files *f;
	const char *file;
	struct cgi_data *d;
	int to_fd;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int inflight;
	long long last_ms;      /* when the last query arrived or ended */
	int timeout_s;
	int quit;
	int wake[2];            /* a worker that set quit writes a byte here */
} S = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

/* One query being answered: the frame's fields, copied. */
struct job {
	char *reply, *script, *path, *query;
	char mem[];
};

/* ---- private prototypes ---- */
static void *worker(void *arg);
static void reply(const char *name, const struct cgi_answer *a);
static void dispatch(const struct cgi_query *q);
static size_t take_frames(char *buf, size_t n);
static void read_queries(char *buf, size_t *n);
static int shutdown_now(int force, char *buf, size_t *n);

int cgi_control(const char *path, int *secs)
{
	if (!strcmp(path, "/quit"))
		return CGI_CTL_QUIT;
	if (!strcmp(path, "/restart"))
		return CGI_CTL_RESTART;
	if (!strncmp(path, "/timeout", 8)) {
		const char *s = path + 8;
		char *end;
		long v;

		if (*s++ != '/' || *s < '0' || *s > '9')
			return CGI_CTL_BAD;
		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || v <= 0 || v > 7 * 24 * 60 * 60)
			return CGI_CTL_BAD;
		if (!strcmp(end, "s"))          /* seconds (ours) */
			*secs = (int)v;
		else if (!*end && v <= 7 * 24 * 60)   /* minutes (Mercury's) */
			*secs = (int)v * 60;
		else
			return CGI_CTL_BAD;
		return CGI_CTL_TIMEOUT;
	}
	return CGI_CTL_NONE;
}

/* Send a to the client's reply FIFO `name`. A client that is gone (no
 * reader: ENXIO) or stops reading (EPIPE, timeout) loses its answer and
 * nothing else happens. */
static void reply(const char *name, const struct cgi_answer *a)
{
	char path[CGI_PATH_MAX + 64];
	struct stat st;
	int fd;

	if (!cgi_reply_name_ok(S.f, name))
		return;
	snprintf(path, sizeof(path), "%s/%s", S.f->dir, name);
	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENXIO)     /* its client died: tidy up after it */
			unlink(path);
		return;
	}
	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
		unlink(path);   /* both ends are open: the name is no longer needed */
		cgi_send_answer(fd, a, REPLY_TIMEOUT_MS);
	}
	close(fd);
}

static void *worker(void *arg)
{
	struct job *j = arg;
	struct cgi_answer a = { 0 };
	int secs = 0;
	char msg[200];

	switch (cgi_control(j->path, &secs)) {
	case CGI_CTL_QUIT:
		cgi_answer_note(&a, "deepprof: server stopped",
				"The server of this data file is shutting down; the next query starts a new one.");
		pthread_mutex_lock(&S.mu);
		S.quit = 1;
		pthread_mutex_unlock(&S.mu);
		if (write(S.wake[1], "q", 1) < 0) {
			/* the main thread sees quit within a second anyway */
		}
		break;
	case CGI_CTL_RESTART:
		if (cgi_data_reopen(S.d, &a) == 0) {
			cgi_log(S.f, "restart: read %s again", S.file);
			cgi_data_answer(S.d, j->script, S.file, "/", j->query, &a);
		}
		break;
	case CGI_CTL_TIMEOUT:
		pthread_mutex_lock(&S.mu);
		S.timeout_s = secs;
		pthread_mutex_unlock(&S.mu);
		cgi_log(S.f, "idle timeout now %d s", secs);
		snprintf(msg, sizeof(msg), "The server of this data file now stops after %d s "
			 "without a query.", secs);
		cgi_answer_note(&a, "deepprof: timeout set", msg);
		break;
	case CGI_CTL_BAD:
		cgi_answer_error(&a, 400, "%s: bad timeout: give timeout/MINUTES or "
				 "timeout/SECONDSs, a positive number", j->path);
		break;
	default:
		cgi_data_answer(S.d, j->script, S.file, j->path, j->query, &a);
	}
	reply(j->reply, &a);
	cgi_answer_free(&a);
	free(j);
	pthread_mutex_lock(&S.mu);
	S.inflight--;
	S.last_ms = cgi_now_ms();
	pthread_cond_broadcast(&S.cv);
	pthread_mutex_unlock(&S.mu);
	return NULL;
}

/* Start a worker for query q (waiting while MAX_INFLIGHT are busy). */
static void dispatch(const struct cgi_query *q)
{
	size_t l[4] = { strlen(q->reply) + 1, strlen(q->script) + 1, strlen(q->path) + 1,
			strlen(q->query) + 1 };
	struct job *j = malloc(sizeof(*j) + l[0] + l[1] + l[2] + l[3]);
	pthread_attr_t attr;
	pthread_t t;

	if (!j)
		return;         /* the client times out */
	j->reply = memcpy(j->mem, q->reply, l[0]);
	j->script = memcpy(j->reply + l[0], q->script, l[1]);
	j->path = memcpy(j->script + l[1], q->path, l[2]);
	j->query = memcpy(j->path + l[2], q->query, l[3]);
	pthread_mutex_lock(&S.mu);
	while (S.inflight >= MAX_INFLIGHT)
		pthread_cond_wait(&S.cv, &S.mu);
	S.inflight++;
	S.last_ms = cgi_now_ms();
	pthread_mutex_unlock(&S.mu);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, worker, j) != 0)
		worker(j);      /* no thread to be had: answer it here */
	pthread_attr_destroy(&attr);
}

/* Dispatch every whole frame at the start of buf[0 .. n); returns how
 * many bytes they took. Garbage (no client of ours writes it) is dropped
 * whole. */
static size_t take_frames(char *buf, size_t n)
{
	size_t used = 0;

	while (used < n) {
		struct cgi_query q;
		long k = cgi_unframe_query(buf + used, n - used, &q);

		if (k == 0)
			break;
		if (k < 0)
			return n;
		dispatch(&q);
		used += (size_t)k;
	}
	return used;
}

/* Read what the FIFO holds now (it is non-blocking) and dispatch it. */
static void read_queries(char *buf, size_t *n)
{
	for (;;) {
		ssize_t r = read(S.to_fd, buf + *n, 2 * CGI_QUERY_MAX - *n);
		size_t used;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		*n += (size_t)r;
		used = take_frames(buf, *n);
		memmove(buf, buf + used, *n - used);
		*n -= used;
	}
}

/* Try to shut down: with the mutex (not waiting for it unless force),
 * and unless force with no want file of a live client and no query
 * waiting in the FIFO. Then the FIFO's name goes (no client can find
 * this server any more), what is already in it is answered, the mutex
 * goes, and when the last answer is out the process exits. Returns 0
 * when it did not shut down. */
static int shutdown_now(int force, char *buf, size_t *n)
{
	int lock_fd;

	while ((lock_fd = cgi_lock(S.f, 0)) < 0) {
		if (!force)
			return 0;
		if (lock_fd == -2)      /* no lock file can be had: go all the same */
			break;
		/* Quitting: the holder may be a client waiting for room in the
		 * FIFO, so keep emptying it. */
		read_queries(buf, n);
		usleep(10000);
	}
	if (!force) {
		struct pollfd pf = { .fd = S.to_fd, .events = POLLIN };

		if (cgi_want_any(S.f) || poll(&pf, 1, 0) > 0) {
			cgi_unlock(S.f, lock_fd, 0);
			return 0;
		}
	}
	unlink(S.f->to);
	read_queries(buf, n);   /* sent while the FIFO had its name */
	cgi_unlock(S.f, lock_fd, 1);
	pthread_mutex_lock(&S.mu);
	while (S.inflight)
		pthread_cond_wait(&S.cv, &S.mu);
	pthread_mutex_unlock(&S.mu);
	cgi_reap_replies(S.f);
	cgi_log(S.f, "stopped (%s)", force ? "quit" : "idle");
	cgi_data_close(S.d);
	_exit(0);
}

void cgi_server_run(const struct cgi_files *f, const char *file, struct cgi_data *d,
		    int to_fd, int timeout_s)
{
	static char buf[2 * CGI_QUERY_MAX];
	size_t n = 0;

	signal(SIGPIPE, SIG_IGN);
	S.f = f;
	S.file = file;
	S.d = d;
	S.to_fd = to_fd;
	S.timeout_s = timeout_s;
	S.last_ms = cgi_now_ms();
	if (pipe2(S.wake, O_CLOEXEC | O_NONBLOCK) != 0)
		S.wake[0] = S.wake[1] = -1;
	for (;;) {
		struct pollfd pf[2] = { { .fd = to_fd, .events = POLLIN },
					{ .fd = S.wake[0], .events = POLLIN } };
		long long left;
		int quit, busy;

		pthread_mutex_lock(&S.mu);
		quit = S.quit;
		busy = S.inflight;
		left = S.last_ms + (long long)S.timeout_s * 1000 - cgi_now_ms();
		pthread_mutex_unlock(&S.mu);
		if (quit)
			shutdown_now(1, buf, &n);
		if (!busy && left <= 0) {
			shutdown_now(0, buf, &n);
			/* Stayed: a client wants it, or a query waits. */
			pthread_mutex_lock(&S.mu);
			S.last_ms = cgi_now_ms() - (long long)S.timeout_s * 1000 + 1000;
			pthread_mutex_unlock(&S.mu);
			left = 1000;
		}
		/* Busy: the workers reset the idle clock as they end. */
		if (busy || left > 1000)
			left = 1000;
		if (poll(pf, 2, (int)(left < 0 ? 0 : left)) > 0 && (pf[0].revents & POLLIN))
			read_queries(buf, &n);
	}
}
