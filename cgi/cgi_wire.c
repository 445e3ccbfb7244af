/*
 * cgi_wire.c — the frames between deepprof-cgi's clients and its server
 * (schemas/cgi-protocol.md): a query frame fits one atomic pipe write; a
 * reply frame is read and written with a deadline, so a peer that died or
 * stalls costs the other side a timeout, never a hang.
 * Part of deepprof's CGI program. MIT licence.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgi.h"

/* The largest reply a client accepts. */
#define REPLY_MAX ((size_t)1 << 30)

long long cgi_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

size_t cgi_frame_query(char *buf, const struct cgi_query *q)
{
	const char *f[4] = { q->reply, q->script, q->path, q->query };
	size_t payload = 0, hl;
	char hdr[32];
	char *p;

	for (int i = 0; i < 4; i++)
		payload += strlen(f[i]) + 1;
	hl = (size_t)snprintf(hdr, sizeof(hdr), CGI_QUERY_MAGIC " %zu\n", payload);
	if (hl + payload > CGI_QUERY_MAX)
		return 0;
	p = stpcpy(buf, hdr);
	for (int i = 0; i < 4; i++)
		p = stpcpy(p, f[i]) + 1;
	return (size_t)(p - buf);
}

long cgi_unframe_query(char *buf, size_t n, struct cgi_query *q)
{
	const char **f[4] = { &q->reply, &q->script, &q->path, &q->query };
	size_t ml = strlen(CGI_QUERY_MAGIC), payload = 0, i;
	char *p;

	if (n < ml + 1)
		return memcmp(buf, CGI_QUERY_MAGIC " ", n) ? -1 : 0;
	if (memcmp(buf, CGI_QUERY_MAGIC " ", ml + 1))
		return -1;
	for (i = ml + 1; i < n && buf[i] >= '0' && buf[i] <= '9' && i < ml + 8; i++)
		payload = payload * 10 + (size_t)(buf[i] - '0');
	if (i == n)
		return 0;
	if (buf[i] != '\n' || i == ml + 1 || payload > CGI_QUERY_MAX)
		return -1;
	if (n < i + 1 + payload)
		return 0;
	p = buf + i + 1;
	for (int k = 0; k < 4; k++) {
		char *z = memchr(p, '\0', (size_t)(buf + i + 1 + payload - p));

		if (!z)
			return -1;
		*f[k] = p;
		p = z + 1;
	}
	if (p != buf + i + 1 + payload)
		return -1;
	return (long)(i + 1 + payload);
}

int cgi_write_all(int fd, const void *buf, size_t len, int timeout_ms)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w > 0) {
			p += w;
			len -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pf = { .fd = fd, .events = POLLOUT };
			int r = poll(&pf, 1, timeout_ms);

			if (r == 0) {
				errno = ETIMEDOUT;
				return -1;
			}
			if (r < 0 && errno != EINTR)
				return -1;
			if (r > 0 && (pf.revents & (POLLERR | POLLHUP)) && !(pf.revents & POLLOUT)) {
				errno = EPIPE;
				return -1;
			}
			continue;
		}
		return -1;
	}
	return 0;
}

int cgi_send_answer(int fd, const struct cgi_answer *a, int timeout_ms)
{
	char hdr[160];
	int n = snprintf(hdr, sizeof(hdr), CGI_REPLY_MAGIC " %d %zu\n%s\n", a->status, a->len,
			 a->ctype);

	if (cgi_write_all(fd, hdr, (size_t)n, timeout_ms))
		return -1;
	return cgi_write_all(fd, a->body, a->len, timeout_ms);
}

int cgi_recv_answer(int fd, int alive_fd, struct cgi_answer *a, int total_ms)
{
	long long end = cgi_now_ms() + total_ms;
	size_t cap = 4096, n = 0, need = 0, hdr = 0;
	char *buf = malloc(cap);

	memset(a, 0, sizeof(*a));
	if (!buf)
		return -1;
	for (;;) {
		long long left = end - cgi_now_ms();
		/* alive_fd, a write end of the server's FIFO, reports POLLERR
		 * (whatever events asks) once no process reads the FIFO. */
		struct pollfd pf[2] = { { .fd = fd, .events = POLLIN }, { .fd = alive_fd } };
		ssize_t r;
		int pr;

		if (left <= 0) {
			errno = ETIMEDOUT;
			goto fail;
		}
		pr = poll(pf, alive_fd >= 0 ? 2 : 1, (int)(left > 1000000 ? 1000000 : left));
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			goto fail;
		if (pr == 0)
			continue;
		if (!(pf[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			if (pf[1].revents & (POLLERR | POLLHUP)) {
				errno = ECONNRESET;     /* the server is gone */
				goto fail;
			}
			continue;
		}
		if (n == cap) {
			char *nb;

			cap *= 2;
			nb = realloc(buf, cap);
			if (!nb)
				goto fail;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0) {
			errno = EPROTO;         /* the writer closed before the end */
			goto fail;
		}
		n += (size_t)r;
		if (!hdr) {
			char *nl1 = memchr(buf, '\n', n), *nl2;
			char ct[64];
			int st;
			size_t len;

			if (!nl1 || !(nl2 = memchr(nl1 + 1, '\n', (size_t)(buf + n - nl1 - 1)))) {
				if (n > 256) {
					errno = EPROTO;
					goto fail;
				}
				continue;
			}
			*nl1 = '\0';
			if (sscanf(buf, CGI_REPLY_MAGIC " %d %zu", &st, &len) != 2 || st < 100 ||
			    st > 599 || len > REPLY_MAX || nl2 - nl1 - 1 >= (long)sizeof(ct)) {
				errno = EPROTO;
				goto fail;
			}
			memcpy(ct, nl1 + 1, (size_t)(nl2 - nl1 - 1));
			ct[nl2 - nl1 - 1] = '\0';
			a->status = st;
			snprintf(a->ctype, sizeof(a->ctype), "%s", ct);
			hdr = (size_t)(nl2 + 1 - buf);
			need = hdr + len;
			if (need > cap) {
				char *nb = realloc(buf, need);

				if (!nb)
					goto fail;
				buf = nb;
				cap = need;
			}
		}
		if (hdr && n >= need) {
			if (n > need) {
				errno = EPROTO;
				goto fail;
			}
			memmove(buf, buf + hdr, need - hdr);
			a->body = buf;
			a->len = need - hdr;
			return 0;
		}
	}
fail:
	{
		int e = errno;

		free(buf);
		memset(a, 0, sizeof(*a));
		errno = e;
		return -1;
	}
}
