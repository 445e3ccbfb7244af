/*
 * cgi.h — what the files of deepprof-cgi share: the request, the rendezvous
 * files of one data file, the wire frames between client and server, and
 * each file's entry points. The protocol is specified in
 * schemas/cgi-protocol.md. Part of deepprof's CGI program. MIT licence.
 */
#ifndef DP_CGI_H
#define DP_CGI_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* ==== the request (cgi_request.c) ==================================== */

/* What one HTTP request asks. All strings are owned by the struct
 * (cgi_request_free); `file` is the data file's canonical absolute path. */
struct cgi_request {
	char *file;             /* realpath of the data file */
	char *path;             /* the page: "/", "/proc/12", ...; never NULL */
	char *query;            /* the page's own parameters, still URL-encoded,
				 * with file= taken out; "" when none */
	char *script;           /* SCRIPT_NAME, for links */
	int head;               /* HEAD: headers only */
};

/* An answer: an HTTP status, a content type and a body (malloc'ed, owned
 * by the struct; cgi_answer_free). */
struct cgi_answer {
	int status;
	char ctype[64];
	char *body;
	size_t len;
};

/* Parse the CGI environment (REQUEST_METHOD, QUERY_STRING, PATH_INFO,
 * SCRIPT_NAME) into *r. On a bad request returns -1 with *a set to the
 * error page (4xx) to send. */
int cgi_request_parse(struct cgi_request *r, struct cgi_answer *a);
void cgi_request_free(struct cgi_request *r);

/* Decode %XX and '+' of s[0 .. n) into a new string; NULL on a bad escape
 * or an encoded NUL. */
char *cgi_url_decode(const char *s, size_t n);

/* ==== answers (cgi_answer.c) ========================================== */

/* Set *a to an HTML error page with this status, the message escaped. */
__attribute__((format(printf, 3, 4)))
void cgi_answer_error(struct cgi_answer *a, int status, const char *fmt, ...);
/* Set *a to a short HTML page (status 200) saying msg, escaped. */
void cgi_answer_note(struct cgi_answer *a, const char *title, const char *msg);
void cgi_answer_free(struct cgi_answer *a);
/* Write a as a CGI response (Status:, Content-Type:, Content-Length:,
 * body unless head) on stdout. Returns 0, or -1 if stdout failed. */
int cgi_answer_write(const struct cgi_answer *a, int head);
/* The reason phrase of an HTTP status ("Not Found"). */
const char *cgi_status_text(int status);

/* ==== the rendezvous files of one data file (cgi_files.c) ============= */

/* The names of the files through which the clients of one data file find
 * its server. All live in one per-user directory (cgi_files_init). */
#define CGI_PATH_MAX (PATH_MAX + 256 + 64)     /* dir + '/' + M + a suffix */
struct cgi_files {
	char dir[PATH_MAX];     /* the per-user directory */
	char mangled[256];      /* the data file's mangled name, M */
	char lock[CGI_PATH_MAX];        /* dir/M.lock: the mutex (flock) */
	char to[CGI_PATH_MAX];  /* dir/M.to: the query FIFO, read by the server */
};

/* Fill *f for data file `file` (a canonical absolute path): choose and
 * create (mode 0700) the directory, refuse one that is not ours or that
 * others may write. Returns 0, or -1 with a message in err. */
int cgi_files_init(struct cgi_files *f, const char *file, char *err, size_t errlen);

/* Take the mutex of f, waiting at most `wait_s` seconds (0: do not wait).
 * Returns its fd (close it, or cgi_unlock, to release), -1 when it is
 * held (no wait) or the wait ran out (errno EWOULDBLOCK / EINTR), -2 on
 * another error. A holder that dies releases it (flock), so a killed
 * holder never blocks anyone. */
int cgi_lock(const struct cgi_files *f, int wait_s);
/* Release the mutex; with remove, delete the lock file first (safe: a
 * taker checks that the file it locked is still the one named). */
void cgi_unlock(const struct cgi_files *f, int fd, int remove);

/* The want file of this process: create / remove. A client that wants a
 * server announces it so that a server deciding to time out stays. */
int cgi_want_create(const struct cgi_files *f);
void cgi_want_remove(const struct cgi_files *f);
/* Is there a want file of a live process? Removes those of dead ones. */
int cgi_want_any(const struct cgi_files *f);
/* Remove reply FIFOs left by clients that died (their pid is gone). */
void cgi_reap_replies(const struct cgi_files *f);
/* Make a fresh reply FIFO name for this process into name (the base name,
 * without the directory) and create it (mode 0600). Returns 0 or -1. */
int cgi_reply_make(const struct cgi_files *f, char *name, size_t len);
/* Append one line "<UTC time> pid <pid> <message>" to dir/M.log, the
 * servers' log (their stderr is gone): when each started and stopped, and
 * why. One write with O_APPEND, so lines of processes never mix. */
__attribute__((format(printf, 2, 3)))
void cgi_log(const struct cgi_files *f, const char *fmt, ...);
/* Is name a reply FIFO name of f (no '/', right prefix)? */
int cgi_reply_name_ok(const struct cgi_files *f, const char *name);

/* ==== frames (cgi_wire.c) ============================================= */

#define CGI_QUERY_MAGIC "DPQ1"
#define CGI_REPLY_MAGIC "DPR1"
/* A query frame is written with one write() and so must fit PIPE_BUF:
 * then frames of concurrent clients never interleave. */
#define CGI_QUERY_MAX 4096

/* The fields of a query frame. */
struct cgi_query {
	const char *reply;      /* the client's reply FIFO (base name) */
	const char *script;     /* SCRIPT_NAME, for the links of the page */
	const char *path;       /* the page */
	const char *query;      /* its parameters (URL-encoded) */
};
/* Build the query frame of q into buf[CGI_QUERY_MAX]; returns its length,
 * or 0 if it does not fit. */
size_t cgi_frame_query(char *buf, const struct cgi_query *q);
/* Parse one query frame at the start of buf[0 .. n): 0 if incomplete,
 * -1 if garbage, else the frame's length with q's fields pointing into buf
 * (NUL-terminated there). */
long cgi_unframe_query(char *buf, size_t n, struct cgi_query *q);

/* Write all of buf to a non-blocking fd, waiting at most timeout_ms for
 * each bit of progress. Returns 0, or -1 (errno EPIPE, ETIMEDOUT, ...). */
int cgi_write_all(int fd, const void *buf, size_t len, int timeout_ms);
/* Send answer a on fd as a reply frame. */
int cgi_send_answer(int fd, const struct cgi_answer *a, int timeout_ms);
/* Read a reply frame from fd into *a, waiting at most total_ms in all;
 * alive_fd (or -1) is a write end of the server's query FIFO, whose last
 * reader going means the server is gone. Returns 0, or -1 with errno
 * ETIMEDOUT (no answer in time), ECONNRESET (the server went without
 * answering) or EPROTO (it closed early or sent garbage). */
int cgi_recv_answer(int fd, int alive_fd, struct cgi_answer *a, int total_ms);
/* Monotonic milliseconds. */
long long cgi_now_ms(void);

/* ==== the pages (cgi_pages.c: the adapter to the page module) ========= */

struct cgi_data;
/* Read the data file; NULL with *a set to an error page (4xx/5xx). */
struct cgi_data *cgi_data_open(const char *file, struct cgi_answer *a);
/* Answer one page (path, query); thread-safe, as is reloading: if the
 * file changed since it was read it is read again first. */
void cgi_data_answer(struct cgi_data *d, const char *script, const char *file,
		     const char *path, const char *query, struct cgi_answer *a);
/* Read the file again now (restart); 0 or -1 with *a an error page. */
int cgi_data_reopen(struct cgi_data *d, struct cgi_answer *a);
void cgi_data_close(struct cgi_data *d);

/* ==== roles (cgi_client.c, cgi_server.c) ============================== */

/* Settings from the environment (cgi_main.c). */
struct cgi_config {
	int timeout_s;          /* idle life of a new server (DEEPPROF_CGI_TIMEOUT) */
	int wait_s;             /* how long a client waits (DEEPPROF_CGI_WAIT) */
};
extern struct cgi_config cgi_config;

/* Answer request r: through the data file's server, or by becoming it.
 * Fills *a (the answer, or an error page). */
void cgi_client_run(const struct cgi_request *r, struct cgi_answer *a);
/* Free what cgi_client_run kept for after the answer (the data this
 * process read before it forked a server). */
void cgi_client_done(void);

/* The server's control queries: is path one (quit, restart, timeout/N)?
 * Returns its kind (CGI_CTL_*) and for timeout the seconds in *secs. */
enum { CGI_CTL_NONE, CGI_CTL_QUIT, CGI_CTL_RESTART, CGI_CTL_TIMEOUT, CGI_CTL_BAD };
int cgi_control(const char *path, int *secs);

/* Become the server of data file `file`: d is its data (the server owns it
 * from now on), to_fd the query FIFO open O_RDWR. Never returns. */
__attribute__((noreturn))
void cgi_server_run(const struct cgi_files *f, const char *file, struct cgi_data *d,
		    int to_fd, int timeout_s);

#endif
