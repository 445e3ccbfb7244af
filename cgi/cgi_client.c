/*
 * cgi_client.c — the client half of deepprof-cgi: find the data file's
 * server and have it answer, or become that server (read the file, answer,
 * fork a child that serves on with its standard streams closed).
 * Mercury's mdprof_cgi algorithm, with its hazards fixed
 * (schemas/cgi-protocol.md). Part of deepprof's CGI program. MIT licence.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgi.h"

/* ---- private prototypes ---- */
static int ask_server(const struct cgi_files *f, int to_fd, int lock_fd,
		      const struct cgi_request *r, struct cgi_answer *a);
static void become_server(const struct cgi_files *f, int lock_fd, const struct cgi_request *r,
			  struct cgi_answer *a);
static void detach_stdio(const struct cgi_files *f);

/* How long a client waits to put its query into the server's FIFO (ms). */
#define SEND_TIMEOUT_MS 10000

/* The data this process read before it forked the server: the server has
 * its own copy, this one is freed by cgi_client_done(), after the answer
 * is written (a big profile takes a while to free). */
static struct cgi_data *parent_data;

/* Send r's query on to_fd (the server's FIFO, open for writing, not
 * blocking) and release the mutex; then wait for the reply. Fills *a:
 * the answer, or an error page (500 no reply FIFO, 414 too long, 503 the
 * server took no query or ended, 504 it did not answer in time). Returns
 * 1 when the server ended without answering (ask again), else 0. */
static int ask_server(const struct cgi_files *f, int to_fd, int lock_fd,
		      const struct cgi_request *r, struct cgi_answer *a)
{
	char name[300], path[CGI_PATH_MAX + 64], frame[CGI_QUERY_MAX];
	struct cgi_query q = { name, r->script, r->path, r->query };
	size_t len;
	int rfd, rc, gone = 0;

	if (cgi_reply_make(f, name, sizeof(name))) {
		close(to_fd);
		cgi_unlock(f, lock_fd, 0);
		cgi_answer_error(a, 500, "%s: cannot make a reply FIFO: %s", f->dir, strerror(errno));
		return 0;
	}
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	/* Open our end first (O_NONBLOCK: no writer yet), so that the server
	 * finds a reader, and a server that finds none knows we are gone. */
	rfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	len = cgi_frame_query(frame, &q);
	if (rfd < 0 || !len) {
		int e = errno;

		unlink(path);
		if (rfd >= 0)
			close(rfd);
		close(to_fd);
		cgi_unlock(f, lock_fd, 0);
		if (!len)
			cgi_answer_error(a, 414, "the request is too long for deepprof-cgi's queries "
					 "(at most %d bytes)", CGI_QUERY_MAX - 300);
		else
			cgi_answer_error(a, 500, "%s: cannot open: %s", path, strerror(e));
		return 0;
	}
	/* One write of at most PIPE_BUF bytes: atomic, never interleaved
	 * with another client's frame. */
	rc = cgi_write_all(to_fd, frame, len, SEND_TIMEOUT_MS);
	cgi_unlock(f, lock_fd, 0);
	cgi_want_remove(f);
	if (rc) {
		cgi_answer_error(a, 503, "the server of %s takes no queries: %s", r->file,
				 strerror(errno));
	} else if (cgi_recv_answer(rfd, to_fd, a, cgi_config.wait_s * 1000)) {
		if (errno == ETIMEDOUT) {
			cgi_answer_error(a, 504, "the server of %s did not answer within %d s",
					 r->file, cgi_config.wait_s);
		} else {
			gone = 1;
			cgi_answer_error(a, 503, "the server of %s ended before it answered", r->file);
		}
	}
	close(to_fd);
	close(rfd);
	unlink(path);
	return gone;
}

/* Point stdin and stdout at /dev/null and stderr at the servers' log
 * (M.log; /dev/null if it cannot be opened): the web server waits for
 * every holder of the CGI's stdout, so a server that kept it would hold
 * the first page for its whole life. What the server or a library prints
 * on stderr (a sanitizer's report, too) lands in the log. */
static void detach_stdio(const struct cgi_files *f)
{
	char log[CGI_PATH_MAX + 64];
	int fd = open("/dev/null", O_RDWR), lfd;

	snprintf(log, sizeof(log), "%s/%s.log", f->dir, f->mangled);
	lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600);
	if (fd < 0) {
		close(0);
		close(1);
	} else {
		dup2(fd, 0);
		dup2(fd, 1);
	}
	if (lfd >= 0)
		dup2(lfd, 2);
	else if (fd >= 0)
		dup2(fd, 2);
	else
		close(2);
	if (fd > 2)
		close(fd);
	if (lfd > 2)
		close(lfd);
}

/* With the mutex held and no server alive: read the file and answer r
 * here; then make the query FIFO and fork the server, unless the query
 * was quit. Releases the mutex, and removes the lock file when no server
 * came of it (a file that is not a profile leaves nothing behind). */
static void become_server(const struct cgi_files *f, int lock_fd, const struct cgi_request *r,
			  struct cgi_answer *a)
{
	struct cgi_data *d;
	int secs = cgi_config.timeout_s, to_fd;
	int ctl = cgi_control(r->path, &secs);
	pid_t pid;

	if (ctl == CGI_CTL_QUIT || ctl == CGI_CTL_BAD) {
		cgi_unlock(f, lock_fd, 1);
		cgi_want_remove(f);
		if (ctl == CGI_CTL_QUIT)
			cgi_answer_note(a, "deepprof: no server", "No server was running for this data file.");
		else
			cgi_answer_error(a, 400, "%s: bad timeout: give timeout/MINUTES or "
					 "timeout/SECONDSs, a positive number", r->path);
		return;
	}
	d = cgi_data_open(r->file, a);
	if (!d) {
		cgi_unlock(f, lock_fd, 1);
		cgi_want_remove(f);
		return;
	}
	if (ctl == CGI_CTL_NONE)
		cgi_data_answer(d, r->script, r->file, r->path, r->query, a);
	else
		cgi_data_answer(d, r->script, r->file, "/", r->query, a);
	unlink(f->to);
	if (mkfifo(f->to, 0600) != 0 ||
	    (to_fd = open(f->to, O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0) {
		/* No server, but the answer stands. */
		unlink(f->to);
		cgi_unlock(f, lock_fd, 1);
		cgi_want_remove(f);
		cgi_data_close(d);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* The server. Its copy of the mutex's fd goes (the parent
		 * releases the lock); its standard streams go at once; its own
		 * session keeps it out of the web server's signals to the CGI. */
		close(lock_fd);
		detach_stdio(f);
		setsid();
		if (chdir("/") != 0) {
			/* only so as not to hold the web server's directory */
		}
		cgi_server_run(f, r->file, d, to_fd, secs);
	}
	/* The parent logs the start, so that it is in the log before the
	 * first answer is out. */
	if (pid > 0)
		cgi_log(f, "started: pid %ld serving %s, idle timeout %d s", (long)pid, r->file, secs);
	if (pid < 0)
		unlink(f->to);
	close(to_fd);
	cgi_unlock(f, lock_fd, pid < 0);
	cgi_want_remove(f);
	parent_data = d;        /* freed after the answer is out */
}

void cgi_client_run(const struct cgi_request *r, struct cgi_answer *a)
{
	struct cgi_files f;
	char err[PATH_MAX + 200];

	if (cgi_files_init(&f, r->file, err, sizeof(err))) {
		cgi_answer_error(a, 500, "%s", err);
		return;
	}
	/* A server that ends without answering (killed, crashed) is asked
	 * once more: by then its FIFO has no reader, so this process finds
	 * no server and becomes the new one. */
	for (int attempt = 0; attempt < 2; attempt++) {
		int lock_fd, to_fd;

		cgi_want_create(&f);
		lock_fd = cgi_lock(&f, cgi_config.wait_s);
		if (lock_fd < 0) {
			int e = errno;

			cgi_want_remove(&f);
			if (lock_fd == -1)
				cgi_answer_error(a, 503, "the server of %s is busy starting: no turn within "
						 "%d s; ask again", r->file, cgi_config.wait_s);
			else
				cgi_answer_error(a, 500, "%s: cannot lock: %s", f.lock, strerror(e));
			return;
		}
		/* Is a server there? Opening its FIFO for writing without
		 * blocking succeeds only while some process has it open for
		 * reading: a server that died (even by SIGKILL) leaves a FIFO
		 * that fails with ENXIO. */
		to_fd = open(f.to, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (to_fd >= 0) {
			struct stat st;

			if (fstat(to_fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
				int gone = ask_server(&f, to_fd, lock_fd, r, a);

				cgi_want_remove(&f);    /* also when the query was never sent */
				if (!gone || attempt == 1)
					return;
				cgi_answer_free(a);
				continue;
			}
			close(to_fd);
		}
		become_server(&f, lock_fd, r, a);
		return;
	}
}

void cgi_client_done(void)
{
	cgi_data_close(parent_data);
	parent_data = NULL;
}
