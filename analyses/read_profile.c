/*
 * read_profile.c — dpa_profile_read(): stream a Deep.data file through
 * msgpack-c's unpacker in chunks, validate every invariant of
 * schemas/deep-data.md as records arrive, and build struct dpa_profile
 * (arrays by id, the CSR call lists, each pd's thread).
 * Part of deepprof's analyses library. MIT licence.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libdeflate.h>
#include <msgpack.h>

#include "profile.h"
#include "strtab.h"

/* ---- private types ---- */

#define CHUNK_SIZE      (1024 * 1024)   /* bytes read per read(2) */
#define MAX_RECORD_LEN  16              /* longest record array in v1 is 12 */
#define MAX_HEADER_KEYS 65536
#define MAX_DEPTH       16              /* containers in containers (v1 needs 2) */

enum {  /* record kind tags (schemas/deep-data.md) */
	K_MODULE = 1, K_PS = 2, K_CSS = 3, K_PD = 5, K_CSD = 6, K_THREAD = 7, K_END = 9
};

/*
 * The reader's state while streaming one file. Offsets are bytes from the
 * start of the file. Invariant: the unpacker's unconsumed bytes
 * [u.off, u.used) are the file's bytes [consumed, fed).
 */
struct reader {
	const char *path;
	struct dpa_error *err;
	int fd;
	uint64_t file_size;     /* from fstat; UINT64_MAX when not a regular file */
	bool eof;
	msgpack_unpacker u;
	msgpack_object obj;     /* the object next_object() found; lives in u's zone
				 * (or in fast[]) until the next call */
	msgpack_object fast[MAX_RECORD_LEN];    /* a record of uints decoded by hand */
	uint64_t fed;           /* bytes read from the file into the unpacker */
	uint64_t consumed;      /* bytes of complete objects handed out */
	uint64_t obj_start;     /* offset of the object being looked at */
	size_t read_size;       /* grows while one object does not fit */
	uint32_t crc;           /* crc32 of the file's bytes [0, crc_pos) */
	uint64_t crc_pos;
	int stage;              /* order of the last record kind read (0: header) */
	bool have_header;
	struct dpa_profile *p;
	struct dpa_strtab *st;
	/* capacities of the id-indexed arrays in *p (element 0 included) */
	size_t cap_module, cap_ps, cap_css, cap_pd, cap_thread;
	/* the capacities END's counts ask for (peek_end; 0: no hint) */
	size_t want_module, want_ps, want_css, want_pd, want_thread, want_csd;
	uint32_t *queue;        /* assign_threads()' breadth-first queue, or NULL */
};

/* ---- private prototypes ---- */

static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int corrupt(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int truncated(struct reader *r);
static void crc_upto(struct reader *r, uint64_t upto);

/* ---- errors ---- */

/* Write "<path>: <message>" into r->err; returns -1. */
static int fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->err->msg, sizeof(r->err->msg), "%s: ", r->path);
	if (n < 0 || (size_t)n >= sizeof(r->err->msg))
		return -1;
	va_start(ap, fmt);
	vsnprintf(r->err->msg + n, sizeof(r->err->msg) - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* "<path>: corrupt: record at byte N: <message>"; returns -1. */
static int corrupt(struct reader *r, const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!r->have_header)
		return fail(r, "corrupt header: %s", buf);
	return fail(r, "corrupt: record at byte %" PRIu64 ": %s", r->obj_start, buf);
}

static int no_memory(struct reader *r)
{
	return fail(r, "out of memory");
}

/* ---- reading bytes ---- */

/* The file's bytes read but not yet consumed: unread_n(r) of them from
 * unread(r). */
static inline const unsigned char *unread(const struct reader *r)
{
	return (const unsigned char *)r->u.buffer + r->u.off;
}

static inline size_t unread_n(const struct reader *r)
{
	return r->u.used - r->u.off;
}

/* Consume the next n bytes (an object's). */
static inline void advance(struct reader *r, size_t n)
{
	r->u.off += n;
	r->consumed += n;
}

/*
 * Read up to r->read_size more bytes into the unpacker. Returns 1 when bytes
 * were added, 0 at end of file, -1 on error.
 */
static int feed(struct reader *r)
{
	ssize_t n;

	if (r->eof)
		return 0;
	if (r->stage < 7)        /* END not read yet */
		crc_upto(r, r->consumed);       /* before the buffer can move */
	if (!msgpack_unpacker_reserve_buffer(&r->u, r->read_size))
		return no_memory(r);
	do
		n = read(r->fd, msgpack_unpacker_buffer(&r->u), msgpack_unpacker_buffer_capacity(&r->u));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return fail(r, "read error: %s", strerror(errno));
	if (n == 0) {
		r->eof = true;
		return 0;
	}
	msgpack_unpacker_buffer_consumed(&r->u, n);
	r->fed += n;
	return 1;
}

/*
 * Measure the MessagePack object at buf[0..len) without decoding it, so that
 * msgpack-c is only ever given complete objects and never asked to allocate
 * for a container that claims more elements than the file has bytes left
 * (`left`: bytes of the file from buf on). Returns the object's size, 0 when
 * more bytes are needed, -1 (with the error set) when it cannot be valid.
 */
static int64_t skim(struct reader *r, const unsigned char *buf, size_t len, uint64_t left)
{
	uint64_t pending[MAX_DEPTH];    /* elements still to come per open container */
	int depth = 0;
	size_t pos = 0;

	for (;;) {
		uint64_t n = 0, add = 0, skip;
		unsigned char c;

		if (pos >= len)
			return 0;
		c = buf[pos];
		if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3) {
			skip = 1;
		} else if (c <= 0x8f) {
			skip = 1;
			add = 2 * (uint64_t)(c & 0x0f);
		} else if (c <= 0x9f) {
			skip = 1;
			add = c & 0x0f;
		} else if (c <= 0xbf) {
			skip = 1 + (c & 0x1f);
		} else {
			static const unsigned char hdr[0x20] = {
				/* c0 */ 1, 0, 1, 1, 2, 3, 5, 3, 4, 6, 5, 9, 2, 3, 5, 9,
				/* d0 */ 2, 3, 5, 9, 3, 4, 6, 10, 18, 2, 3, 5, 3, 5, 3, 5,
			};
			unsigned h = hdr[c - 0xc0];

			if (h == 0) {
				if (r->have_header)
					return corrupt(r, "invalid MessagePack byte 0x%02x at byte %" PRIu64,
						       c, r->obj_start + pos);
				return fail(r, "not a Deep.data file");
			}
			if (pos + h > len)
				return 0;
			switch (c) {
			case 0xc4: case 0xc7: case 0xd9:        /* 8-bit length */
				n = buf[pos + 1];
				break;
			case 0xc5: case 0xc8: case 0xda: case 0xdc: case 0xde:  /* 16-bit */
				n = (uint64_t)buf[pos + 1] << 8 | buf[pos + 2];
				break;
			case 0xc6: case 0xc9: case 0xdb: case 0xdd: case 0xdf:  /* 32-bit */
				n = (uint64_t)buf[pos + 1] << 24 | (uint64_t)buf[pos + 2] << 16 |
				    (uint64_t)buf[pos + 3] << 8 | buf[pos + 4];
				break;
			}
			skip = h;
			if (c == 0xdc || c == 0xdd)
				add = n;
			else if (c == 0xde || c == 0xdf)
				add = 2 * n;
			else if ((c >= 0xc4 && c <= 0xc9) || (c >= 0xd9 && c <= 0xdb))
				skip += n;      /* bin, ext, str: the payload follows */
		}
		if (pos == 0 && r->have_header) {
			/* a record is a short array: refuse anything else before
			 * msgpack-c allocates for it */
			if (c <= 0x8f || c == 0xde || c == 0xdf || (c >= 0xa0 && c <= 0xbf) ||
			    (c >= 0xc0 && c <= 0xdb) || c >= 0xe0)
				return corrupt(r, "not a record (an array)");
			if (add > MAX_RECORD_LEN)
				return corrupt(r, "record with %" PRIu64 " elements", add);
		} else if (pos == 0) {
			if (!((c >= 0x80 && c <= 0x8f) || c == 0xde || c == 0xdf))
				return fail(r, "not a Deep.data file");
			if (add > 2 * MAX_HEADER_KEYS)
				return fail(r, "corrupt header: %" PRIu64 " keys", add / 2);
		}
		if (add > left) {
			/* more elements than bytes left: the file ends before this
			 * object could (msgpack-c is not asked to allocate for it) */
			return truncated(r);
		}
		if (skip > len - pos)
			return 0;       /* a truncated file is reported at its end */
		pos += skip;
		if (add) {
			/* msgpack-c fails deep nesting as if out of memory: say
			 * what it is before it gets there */
			if (depth == MAX_DEPTH) {
				if (!r->have_header)
					return fail(r, "corrupt header: nested more than %d deep", MAX_DEPTH);
				return corrupt(r, "nested more than %d deep", MAX_DEPTH);
			}
			pending[depth++] = add;
			continue;
		}
		/* an object is complete: so is every container it finishes */
		while (depth && --pending[depth - 1] == 0)
			depth--;
		if (depth == 0)
			return (int64_t)pos;
	}
}

/* The error for a file that ends inside the object at r->obj_start. */
static int truncated(struct reader *r)
{
	uint64_t size = r->file_size != UINT64_MAX ? r->file_size : r->fed;

	if (!r->have_header)
		return fail(r, "truncated: the file ends inside the header, after %" PRIu64 " bytes", size);
	return fail(r, "truncated: the file ends inside the record at byte %" PRIu64
		    " (after %" PRIu64 " bytes); no END record", r->obj_start, size);
}

/*
 * The common records (PD, CSD: a short array of unsigned integers; PS, CSS
 * and THREAD, which add nil, booleans and strings) decoded here rather than
 * by msgpack-c, which would build them in its zone at several times the
 * cost. buf[0..avail) are the bytes at hand. Returns the record's size with
 * r->obj set (pointing into r->fast; a string's bytes into buf, valid until
 * the next call, as msgpack-c's would be) when one such record lies whole in
 * them; 0 for anything else, which skim() and msgpack-c then measure and
 * decode, and read_record() judges (the same verdict: a record taken here is
 * one they accept, decoded to the same objects).
 */
static int64_t fast_record(struct reader *r, const unsigned char *buf, size_t size)
{
	uint32_t n;
	size_t pos = 1;

	if (buf[0] < 0x91 || buf[0] > 0x9f)
		return 0;
	n = buf[0] & 0x0f;
	if (n > MAX_RECORD_LEN)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		unsigned char c;
		uint64_t v;

		if (pos >= size)
			return 0;
		c = buf[pos];
		if (c <= 0x7f) {
			v = c;
			pos += 1;
		} else if (c == 0xc0 || c == 0xc2 || c == 0xc3) {
			r->fast[i].type = c == 0xc0 ? MSGPACK_OBJECT_NIL : MSGPACK_OBJECT_BOOLEAN;
			r->fast[i].via.boolean = c == 0xc3;
			pos += 1;
			continue;
		} else if ((c >= 0xa0 && c <= 0xbf) || c == 0xd9 || c == 0xda) {
			size_t len, h = c <= 0xbf ? 1 : c == 0xd9 ? 2 : 3;

			if (pos + h > size)
				return 0;
			len = c <= 0xbf ? (size_t)(c & 0x1f) : c == 0xd9 ? buf[pos + 1] :
			      (size_t)buf[pos + 1] << 8 | buf[pos + 2];
			if (len > size - pos - h)
				return 0;
			r->fast[i].type = MSGPACK_OBJECT_STR;
			r->fast[i].via.str.size = (uint32_t)len;
			r->fast[i].via.str.ptr = (const char *)buf + pos + h;
			pos += h + len;
			continue;
		} else if (c == 0xcc && pos + 2 <= size) {
			v = buf[pos + 1];
			pos += 2;
		} else if (c == 0xcd && pos + 3 <= size) {
			v = (uint64_t)buf[pos + 1] << 8 | buf[pos + 2];
			pos += 3;
		} else if (c == 0xce && pos + 5 <= size) {
			v = (uint64_t)buf[pos + 1] << 24 | (uint64_t)buf[pos + 2] << 16 |
			    (uint64_t)buf[pos + 3] << 8 | buf[pos + 4];
			pos += 5;
		} else if (c == 0xcf && pos + 9 <= size) {
			v = 0;
			for (int b = 1; b <= 8; b++)
				v = v << 8 | buf[pos + b];
			pos += 9;
		} else {
			return 0;
		}
		r->fast[i].type = MSGPACK_OBJECT_POSITIVE_INTEGER;
		r->fast[i].via.u64 = v;
	}
	r->obj.type = MSGPACK_OBJECT_ARRAY;
	r->obj.via.array.size = n;
	r->obj.via.array.ptr = r->fast;
	return (int64_t)pos;
}

/*
 * Make the next complete object available in r->obj. Returns 1 when there
 * is one, 0 at a clean end of file (no byte left), -1 on error (truncated,
 * corrupt, I/O). r->obj_start is set to the object's offset.
 */
static int next_object(struct reader *r)
{
	int64_t size;
	size_t off;
	int rc;

	r->read_size = CHUNK_SIZE;
	for (;;) {
		size_t avail = unread_n(r);
		uint64_t left = r->file_size == UINT64_MAX ? UINT64_MAX : r->file_size - r->consumed;

		r->obj_start = r->consumed;
		if (avail && r->have_header && (size = fast_record(r, unread(r), avail)) > 0) {
			advance(r, size);
			return 1;
		}
		if (avail) {
			size = skim(r, unread(r), avail, left);
			if (size < 0)
				return -1;
			if (size > 0)
				break;
		}
		rc = feed(r);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			if (avail == 0)
				return 0;
			return truncated(r);
		}
		if (avail && r->read_size < (SIZE_MAX >> 2))
			r->read_size *= 2;      /* one object spans chunks: read more at once */
	}

	/* The zone is cleared per object, not replaced (msgpack_unpacker_next
	 * would malloc a new one for every record). */
	if (r->u.z)     /* msgpack-c makes the zone on first use */
		msgpack_unpacker_reset_zone(&r->u);
	off = r->u.off;
	rc = msgpack_unpacker_execute(&r->u);
	if (rc == MSGPACK_UNPACK_NOMEM_ERROR)
		return no_memory(r);
	/* msgpack-c must have taken exactly the bytes skim() measured: the crc
	 * and every offset rely on it */
	if (rc <= 0 || r->u.off - off != (size_t)size) {
		if (!r->have_header)
			return fail(r, "not a Deep.data file");
		return corrupt(r, "invalid MessagePack");
	}
	r->obj = msgpack_unpacker_data(&r->u);
	msgpack_unpacker_reset(&r->u);
	r->consumed += size;
	return 1;
}

/*
 * Bring the running crc32 up to file offset `upto` (<= r->consumed). The
 * bytes [r->crc_pos, r->consumed) are still in the unpacker's buffer, just
 * before u.off: feed() calls this before the buffer can move, and END's
 * check calls it with END's own offset, so END is never included.
 */
static void crc_upto(struct reader *r, uint64_t upto)
{
	const unsigned char *start = unread(r) - (r->consumed - r->crc_pos);
	uint64_t size = upto - r->crc_pos;

	r->crc_pos = upto;
	r->crc = libdeflate_crc32(r->crc, start, size);
}

/* ---- values ---- */

static bool is_uint(const msgpack_object *o)
{
	return o->type == MSGPACK_OBJECT_POSITIVE_INTEGER;
}

/* Intern a MessagePack str; NULL with the error set when it holds a NUL or
 * memory runs out. */
static const char *intern_str(struct reader *r, const msgpack_object *o, const char *what)
{
	const char *s;

	if (memchr(o->via.str.ptr, '\0', o->via.str.size)) {
		corrupt(r, "%s contains a NUL byte", what);
		return NULL;
	}
	s = dpa_strtab_intern(r->st, o->via.str.ptr, o->via.str.size);
	if (!s)
		no_memory(r);
	return s;
}

static const char *intern_hex(struct reader *r, const msgpack_object *o)
{
	static const char digits[] = "0123456789abcdef";
	char small[128], *buf = small;
	const char *s;
	size_t n = o->via.bin.size;

	if (2 * n + 1 > sizeof(small) && !(buf = malloc(2 * n + 1))) {
		no_memory(r);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char b = o->via.bin.ptr[i];

		buf[2 * i] = digits[b >> 4];
		buf[2 * i + 1] = digits[b & 15];
	}
	s = dpa_strtab_intern(r->st, buf, 2 * n);
	if (buf != small)
		free(buf);
	if (!s)
		no_memory(r);
	return s;
}

/* ---- the header ---- */

enum htype { H_STR, H_UINT, H_U32, H_BOOL, H_FLOAT, H_ARGV };

struct hkey {
	const char *name;
	enum htype type;
	size_t off;             /* in struct dpa_header */
};

#define HK(n, t, f) { n, t, offsetof(struct dpa_header, f) }
static const struct hkey header_keys[] = {
	/* magic, version and min_version are checked first, by hand */
	HK("program", H_STR, program),
	HK("argv", H_ARGV, argv),
	HK("pid", H_UINT, pid),
	HK("ppid", H_UINT, ppid),
	HK("fork_of", H_UINT, fork_of),
	HK("final", H_BOOL, final),
	HK("start_ns", H_UINT, start_ns),
	HK("wall_ns", H_UINT, wall_ns),
	HK("clock", H_STR, clock),
	HK("timer_hz", H_UINT, timer_hz),
	HK("cpu_ns", H_UINT, cpu_ns),
	HK("ticks", H_UINT, ticks),
	HK("ticks_outside", H_UINT, ticks_outside),
	HK("ns_per_tick", H_FLOAT, ns_per_tick),
	HK("calls", H_UINT, calls),
	HK("cscs", H_UINT, cscs),
	HK("allocs", H_UINT, allocs),
	HK("bytes", H_UINT, bytes),
	HK("allocs_outside", H_UINT, allocs_outside),
	HK("bytes_outside", H_UINT, bytes_outside),
	HK("mem_bytes", H_UINT, mem_bytes),
	HK("lost", H_UINT, lost),
};
#define NHEADER_KEYS (sizeof(header_keys) / sizeof(header_keys[0]))

static bool key_is(const msgpack_object *k, const char *name)
{
	size_t n = strlen(name);

	return k->type == MSGPACK_OBJECT_STR && k->via.str.size == n && !memcmp(k->via.str.ptr, name, n);
}

/* The value of key `name` in map m, or NULL. */
static const msgpack_object *map_get(const msgpack_object_map *m, const char *name)
{
	for (uint32_t i = 0; i < m->size; i++)
		if (key_is(&m->ptr[i].key, name))
			return &m->ptr[i].val;
	return NULL;
}

const char *dpa_record_flag_text(uint64_t bit)
{
	switch (bit) {
	case DPA_REC_HANDLER: return "the program installed its own SIGPROF handler";
	case DPA_REC_BLOCKED: return "the program blocked SIGPROF in a thread";
	case DPA_REC_ITIMER: return "the program started an ITIMER_PROF timer";
	default: return NULL;
	}
}

/*
 * The keys of a sampled profile (format 2, clock "samples"): record_flags,
 * samples_truncated and samples_failed, all required; calls and cscs,
 * which sampling cannot know, must be 0 (each csd's are checked with the
 * CSD records).
 */
static int read_sampled(struct reader *r, const msgpack_object_map *m)
{
	static const char *const keys[] = { "record_flags", "samples_truncated", "samples_failed" };
	struct dpa_header *h = &r->p->hdr;
	uint64_t *dst[] = { &h->record_flags, &h->samples_truncated, &h->samples_failed };

	if (h->min_version < 2)
		return corrupt(r, "a sampled profile (clock \"samples\") with min_version %u", h->min_version);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const msgpack_object *v = map_get(m, keys[i]);

		if (!v)
			return corrupt(r, "no '%s' key in a sampled profile", keys[i]);
		if (!is_uint(v))
			return corrupt(r, "'%s' is not an unsigned integer", keys[i]);
		*dst[i] = v->via.u64;
	}
	if (h->record_flags & ~(uint64_t)(DPA_REC_HANDLER | DPA_REC_BLOCKED | DPA_REC_ITIMER))
		return corrupt(r, "'record_flags' has unknown bits (%" PRIu64 ")", h->record_flags);
	if (h->calls || h->cscs)
		return corrupt(r, "a sampled profile counts calls (%" PRIu64 ") or cscs (%" PRIu64 ")",
			       h->calls, h->cscs);
	h->sampled = true;
	return 0;
}

static int header_value(struct reader *r, const struct hkey *hk, const msgpack_object *v)
{
	struct dpa_header *h = &r->p->hdr;
	char *field = (char *)h + hk->off;

	switch (hk->type) {
	case H_STR:
		if (v->type != MSGPACK_OBJECT_STR)
			return corrupt(r, "'%s' is not a string", hk->name);
		if (!(*(const char **)field = intern_str(r, v, hk->name)))
			return -1;
		return 0;
	case H_UINT:
		if (!is_uint(v))
			return corrupt(r, "'%s' is not an unsigned integer", hk->name);
		*(uint64_t *)field = v->via.u64;
		return 0;
	case H_U32:
		if (!is_uint(v) || v->via.u64 > UINT32_MAX)
			return corrupt(r, "'%s' is not a 32-bit unsigned integer", hk->name);
		*(uint32_t *)field = v->via.u64;
		return 0;
	case H_BOOL:
		if (v->type != MSGPACK_OBJECT_BOOLEAN)
			return corrupt(r, "'%s' is not a boolean", hk->name);
		*(bool *)field = v->via.boolean;
		return 0;
	case H_FLOAT:
		/* a float64 by the spec; an integer is taken too (a writer's 0) */
		if (v->type == MSGPACK_OBJECT_FLOAT64 || v->type == MSGPACK_OBJECT_FLOAT32)
			*(double *)field = v->via.f64;
		else if (is_uint(v))
			*(double *)field = (double)v->via.u64;
		else
			return corrupt(r, "'%s' is not a number", hk->name);
		return 0;
	case H_ARGV:
		if (v->type != MSGPACK_OBJECT_ARRAY)
			return corrupt(r, "'argv' is not an array");
		h->argv = calloc(v->via.array.size + 1, sizeof(char *));
		if (!h->argv)
			return no_memory(r);
		for (uint32_t i = 0; i < v->via.array.size; i++) {
			const msgpack_object *a = &v->via.array.ptr[i];

			if (a->type != MSGPACK_OBJECT_STR)
				return corrupt(r, "'argv' element %u is not a string", i);
			if (!(h->argv[i] = (char *)intern_str(r, a, "argv")))
				return -1;
		}
		h->argc = v->via.array.size;
		return 0;
	}
	return 0;
}

/* Interned s[0..n). */
static const char *intern_n(struct reader *r, const char *s, size_t n)
{
	const char *x = dpa_strtab_intern(r->st, s, n);

	if (!x)
		no_memory(r);
	return x;
}

/* A string of the check entry: *out interned. */
static int check_str(struct reader *r, const msgpack_object *o, const char *what, const char **out)
{
	if (!o || o->type != MSGPACK_OBJECT_STR)
		return corrupt(r, "'check': %s is not a string", what);
	if (memchr(o->via.str.ptr, '\0', o->via.str.size))
		return corrupt(r, "'check': %s contains a NUL byte", what);
	return (*out = intern_n(r, o->via.str.ptr, o->via.str.size)) ? 0 : -1;
}

/* An access place "file:line:col<TAB>name" into *loc and *var. */
static int check_loc(struct reader *r, const msgpack_object *o, const char **loc, const char **var)
{
	const char *s;
	size_t n, k;

	if (check_str(r, o, "an access place", &s) < 0)
		return -1;
	n = strlen(s);
	k = strcspn(s, "\t");
	if (!(*loc = intern_n(r, s, k)) || !(*var = intern_n(r, k < n ? s + k + 1 : "", k < n ? n - k - 1 : 0)))
		return -1;
	return 0;
}

/* A uint of the check entry. */
static int check_uint(struct reader *r, const msgpack_object *o, const char *what, uint64_t max,
		      uint64_t *out)
{
	if (!o || !is_uint(o) || o->via.u64 > max)
		return corrupt(r, "'check': %s is not an unsigned integer%s", what,
			       max < UINT64_MAX ? " in range" : "");
	*out = o->via.u64;
	return 0;
}

/*
 * The optional key "check" (a check build's findings, schemas/deep-data.md):
 * {lost, regions: [{region, executions, opaque, conflicts}]}, the region
 * descriptor "fn\nfile\nline:col:callee\n..." split into its fields.
 */
static int read_check(struct reader *r, const msgpack_object *v)
{
	struct dpa_profile *p = r->p;
	const msgpack_object *rs;
	uint64_t u = 0;

	if (!v)
		return 0;
	if (v->type != MSGPACK_OBJECT_MAP)
		return corrupt(r, "'check' is not a map");
	if (check_uint(r, map_get(&v->via.map, "lost"), "'lost'", UINT64_MAX, &p->check_lost) < 0)
		return -1;
	rs = map_get(&v->via.map, "regions");
	if (!rs || rs->type != MSGPACK_OBJECT_ARRAY)
		return corrupt(r, "'check': 'regions' is not an array");
	p->has_check = true;
	if (rs->via.array.size && !(p->check = calloc(rs->via.array.size, sizeof(*p->check))))
		return no_memory(r);
	for (uint32_t i = 0; i < rs->via.array.size; i++) {
		const msgpack_object *e = &rs->via.array.ptr[i], *x;
		struct dpa_check_region *g = &p->check[p->n_check++];
		const char *desc, *d, *nl;
		uint32_t n = 0;

		if (e->type != MSGPACK_OBJECT_MAP)
			return corrupt(r, "'check': region %u is not a map", i);
		if (check_str(r, map_get(&e->via.map, "region"), "'region'", &desc) < 0)
			return -1;
		for (d = desc; *d; d++)
			n += *d == '\n';
		/* a loop candidate's: one call, then "loop" */
		g->loop = n == 3 && strlen(desc) > 5 && !strcmp(desc + strlen(desc) - 5, "\nloop");
		if (g->loop)
			n--;
		else if (n < 3)
			return corrupt(r, "'check': region %u names fewer than two calls", i);
		nl = strchr(desc, '\n');
		if (!(g->fn = intern_n(r, desc, (size_t)(nl - desc))))
			return -1;
		d = nl + 1;
		nl = strchr(d, '\n');
		if (!(g->file = intern_n(r, d, (size_t)(nl - d))))
			return -1;
		g->n_calls = n - 1;
		if (!(g->calls = calloc(g->n_calls, sizeof(*g->calls))))
			return no_memory(r);
		for (uint32_t k = 0; k < g->n_calls; k++) {
			unsigned line, col;
			int used = 0;

			d = nl + 1;
			nl = strchr(d, '\n');
			if (!nl)
				nl = d + strlen(d);
			if (sscanf(d, "%u:%u:%n", &line, &col, &used) != 2 || !used || d + used > nl)
				return corrupt(r, "'check': region %u's call %u is not line:col:callee", i, k);
			g->calls[k].line = line;
			g->calls[k].col = col;
			if (!(g->calls[k].callee = intern_n(r, d + used, (size_t)(nl - d - used))))
				return -1;
		}
		if (check_uint(r, map_get(&e->via.map, "executions"), "'executions'", UINT64_MAX, &g->executions) < 0)
			return -1;
		x = map_get(&e->via.map, "opaque");
		if (!x || x->type != MSGPACK_OBJECT_ARRAY)
			return corrupt(r, "'check': region %u's 'opaque' is not an array", i);
		if (x->via.array.size && !(g->opaque = calloc(x->via.array.size, sizeof(*g->opaque))))
			return no_memory(r);
		for (uint32_t k = 0; k < x->via.array.size; k++) {
			const msgpack_object *o = &x->via.array.ptr[k];
			struct dpa_check_opaque *q = &g->opaque[g->n_opaque++];
			const char *var;

			if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 4)
				return corrupt(r, "'check': an opaque call of region %u is not [k, executions, callee, place]", i);
			if (check_uint(r, &o->via.array.ptr[0], "an opaque call's index",
				       g->loop ? DPA_CHECK_WINDOW - 1 : g->n_calls - 1, &u) < 0)
				return -1;
			q->k = (uint32_t)u;
			if (check_uint(r, &o->via.array.ptr[1], "executions", UINT64_MAX, &q->executions) < 0 ||
			    check_str(r, &o->via.array.ptr[2], "a callee", &q->callee) < 0 ||
			    check_loc(r, &o->via.array.ptr[3], &q->loc, &var) < 0)
				return -1;
		}
		x = map_get(&e->via.map, "conflicts");
		if (!x || x->type != MSGPACK_OBJECT_ARRAY)
			return corrupt(r, "'check': region %u's 'conflicts' is not an array", i);
		if (x->via.array.size && !(g->conflicts = calloc(x->via.array.size, sizeof(*g->conflicts))))
			return no_memory(r);
		for (uint32_t k = 0; k < x->via.array.size; k++) {
			const msgpack_object *o = &x->via.array.ptr[k], *a;
			struct dpa_check_conflict *c = &g->conflicts[g->n_conflicts++];
			uint64_t ci = 0, cj = 0;

			if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 8)
				return corrupt(r, "'check': a conflict of region %u is not [i, j, kind, executions, "
					       "place, place, address, size]", i);
			a = o->via.array.ptr;
			if (check_uint(r, &a[0], "a conflict's first call",
				       g->loop ? DPA_CHECK_WINDOW - 1 : g->n_calls - 1, &ci) < 0 ||
			    check_uint(r, &a[1], "a conflict's second call",
				       g->loop ? DPA_CHECK_WINDOW - 1 : g->n_calls - 1, &cj) < 0)
				return -1;
			if (ci >= cj)
				return corrupt(r, "'check': a conflict of region %u pairs call %" PRIu64 " with "
					       "call %" PRIu64, i, ci, cj);
			c->i = (uint32_t)ci;
			c->j = (uint32_t)cj;
			if (check_str(r, &a[2], "a conflict's kind", &c->kind) < 0)
				return -1;
			if (strcmp(c->kind, "write-write") && strcmp(c->kind, "write-read") &&
			    strcmp(c->kind, "read-write"))
				return corrupt(r, "'check': a conflict's kind is \"%.20s\"", c->kind);
			if (check_uint(r, &a[3], "executions", UINT64_MAX, &c->executions) < 0 ||
			    check_loc(r, &a[4], &c->loc_i, &c->var_i) < 0 ||
			    check_loc(r, &a[5], &c->loc_j, &c->var_j) < 0 ||
			    check_uint(r, &a[6], "an address", UINT64_MAX, &c->addr) < 0 ||
			    check_uint(r, &a[7], "a size", UINT64_MAX, &c->size) < 0)
				return -1;
		}
	}
	return 0;
}

/*
 * The optional split keys (schemas/deep-data.md): both or neither;
 * inside_samples a uint; inside a flat array of (csd id, value) pairs, ids
 * ascending from 1, values not 0. The ids are checked against the CSD
 * records after END (check_inside).
 */
static int read_inside(struct reader *r, const msgpack_object *ns, const msgpack_object *v)
{
	struct dpa_profile *p = r->p;
	uint32_t n;

	if (!ns && !v)
		return 0;
	if (!ns || !v)
		return corrupt(r, "'%s' without '%s'", ns ? "inside_samples" : "inside",
			       ns ? "inside" : "inside_samples");
	if (!is_uint(ns))
		return corrupt(r, "'inside_samples' is not an unsigned integer");
	if (v->type != MSGPACK_OBJECT_ARRAY || v->via.array.size % 2)
		return corrupt(r, "'inside' is not an array of (csd, value) pairs");
	n = v->via.array.size / 2;
	if (n && !(p->inside = malloc((size_t)n * sizeof(*p->inside))))
		return no_memory(r);
	for (uint32_t i = 0; i < n; i++) {
		const msgpack_object *id = &v->via.array.ptr[2 * i], *x = id + 1;

		if (!is_uint(id) || !is_uint(x) || id->via.u64 == 0 || id->via.u64 >= UINT32_MAX)
			return corrupt(r, "'inside' pair %u is not a csd id and an unsigned integer", i);
		if (x->via.u64 == 0)
			return corrupt(r, "'inside' pair %u (csd %" PRIu64 ") has the value 0, which "
				       "is left out", i, id->via.u64);
		if (i && id->via.u64 <= p->inside[i - 1].csd)
			return corrupt(r, "'inside' csd ids are not ascending (csd %" PRIu64
				       " after csd %u)", id->via.u64, p->inside[i - 1].csd);
		p->inside[i].csd = (uint32_t)id->via.u64;
		p->inside[i].inside = x->via.u64;
	}
	p->n_inside = n;
	p->inside_samples = ns->via.u64;
	p->has_inside = true;
	return 0;
}

/* After END: every csd of 'inside' exists, made calls (an activation
 * through it was on a stack; not checked in a sampled profile) and calls
 * back into its caller's pd. */
static int check_inside(struct reader *r)
{
	struct dpa_profile *p = r->p;

	for (uint32_t i = 0; i < p->n_inside; i++) {
		uint32_t c = p->inside[i].csd;

		if (c > p->n_csd)
			return corrupt(r, "'inside' names csd %u, but the file has %u", c, p->n_csd);
		/* (a sampled profile knows no calls: its csds have 0) */
		if (!p->hdr.sampled && dpa_own(p, c, DPA_CALLS) == 0)
			return corrupt(r, "'inside' gives csd %u a value, but it made no calls", c);
		if (p->csd[c].callee_pd != p->csd[c].caller_pd)
			return corrupt(r, "'inside' gives csd %u a value, but it is not recursive "
				       "(pd %u calls pd %u)", c, p->csd[c].caller_pd,
				       p->csd[c].callee_pd);
	}
	if (p->n_inside && p->inside_samples == 0)
		return corrupt(r, "'inside' has values but 'inside_samples' is 0");
	return 0;
}

uint64_t dpa_csd_inside(const struct dpa_profile *p, uint32_t csd)
{
	uint32_t lo = 0, hi = p->n_inside;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->inside[mid].csd < csd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n_inside && p->inside[lo].csd == csd ? p->inside[lo].inside : 0;
}

static int read_header(struct reader *r, const msgpack_object *o)
{
	const msgpack_object_map *m;
	const msgpack_object *magic, *ver, *minver;

	if (o->type != MSGPACK_OBJECT_MAP)
		return fail(r, "not a Deep.data file");
	m = &o->via.map;
	magic = map_get(m, "magic");
	if (!magic || !key_is(magic, "deepprof"))
		return fail(r, "not a Deep.data file");
	if (m->size > MAX_HEADER_KEYS)
		return corrupt(r, "%u keys", m->size);
	ver = map_get(m, "version");
	minver = map_get(m, "min_version");
	if (!ver)
		return corrupt(r, "no 'version' key");
	if (!is_uint(ver))
		return corrupt(r, "'version' is not an unsigned integer");
	if (!minver)
		return corrupt(r, "no 'min_version' key");
	if (!is_uint(minver))
		return corrupt(r, "'min_version' is not an unsigned integer");
	if (ver->via.u64 > DPA_FORMAT_VERSION || minver->via.u64 > DPA_FORMAT_VERSION)
		return fail(r, "format version %" PRIu64 " is newer than this deepprof (%d)",
			    ver->via.u64 > minver->via.u64 ? ver->via.u64 : minver->via.u64,
			    DPA_FORMAT_VERSION);
	if (ver->via.u64 == 0 || minver->via.u64 == 0 || minver->via.u64 > ver->via.u64)
		return corrupt(r, "version %" PRIu64 " with min_version %" PRIu64 " is not valid",
			       ver->via.u64, minver->via.u64);
	r->p->hdr.version = ver->via.u64;
	r->p->hdr.min_version = minver->via.u64;

	/* duplicate keys would make the file mean two things */
	for (uint32_t i = 0; i < m->size; i++) {
		const msgpack_object *k = &m->ptr[i].key;

		if (k->type != MSGPACK_OBJECT_STR)
			return corrupt(r, "a key is not a string");
		if (m->size <= 256)
			for (uint32_t j = 0; j < i; j++)
				if (m->ptr[j].key.via.str.size == k->via.str.size &&
				    !memcmp(m->ptr[j].key.via.str.ptr, k->via.str.ptr, k->via.str.size))
					return corrupt(r, "key '%.*s' appears twice",
						       (int)(k->via.str.size > 64 ? 64 : k->via.str.size),
						       k->via.str.ptr);
	}
	for (size_t i = 0; i < NHEADER_KEYS; i++) {
		const msgpack_object *v = map_get(m, header_keys[i].name);

		if (!v)
			return corrupt(r, "no '%s' key", header_keys[i].name);
		if (header_value(r, &header_keys[i], v) < 0)
			return -1;
	}
	if (r->p->hdr.version >= 2 && !strcmp(r->p->hdr.clock, "samples")) {
		if (read_sampled(r, m) < 0)
			return -1;
	} else if (strcmp(r->p->hdr.clock, "calls") && strcmp(r->p->hdr.clock, "calls+loops")) {
		return corrupt(r, "'clock' is \"%.40s\", not \"calls\"%s \"calls+loops\"%s", r->p->hdr.clock,
			       r->p->hdr.version >= 2 ? "," : " or",
			       r->p->hdr.version >= 2 ? " or \"samples\"" : "");
	}
	if (read_inside(r, map_get(m, "inside_samples"), map_get(m, "inside")) < 0)
		return -1;
	if (read_check(r, map_get(m, "check")) < 0)
		return -1;
	/* what libprof's csds hold, stored only if some csd says otherwise */
	if (!strcmp(r->p->hdr.clock, "calls") || r->p->hdr.sampled)
		dpa_csd_derive(r->p, DPA_CSCS, DPA_COL_SAME, DPA_CALLS, 0);
	if (r->p->hdr.final)
		dpa_csd_derive(r->p, DPA_EXITS, DPA_COL_DIFF, DPA_CALLS, DPA_NONLOCAL);
	r->have_header = true;
	return 0;
}

/* ---- records ---- */

/* Grow an id-indexed array so that element `id` exists; new elements
 * zeroed. Its first block has room for `want` elements (END's count, from
 * peek_end()) when that is more than 64. */
static int reserve(struct reader *r, void **arr, size_t *cap, size_t elem, uint32_t id,
		   size_t want)
{
	size_t ncap;
	void *n;

	if (id < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : want > 64 ? want : 64;
	while (ncap <= id)
		ncap *= 2;
	n = dpa_realloc_huge(*arr, ncap * elem);
	if (!n)
		return no_memory(r);
	if (*cap == 0)
		memset(n, 0, elem);     /* element 0: unused, zeroed */

	/* the rest is zeroed an element at a time as records fill it: pages
	 * of a large array are then touched once, not twice */
	*arr = n;
	*cap = ncap;
	return 0;
}

/* Field accessors for a record array whose length was checked. */
struct rec {
	struct reader *r;
	const msgpack_object *v;
	const char *kind;
};

static int get_u64(struct rec *c, int i, const char *name, uint64_t *out)
{
	if (!is_uint(&c->v[i]))
		return corrupt(c->r, "%s %s is not an unsigned integer", c->kind, name);
	*out = c->v[i].via.u64;
	return 0;
}

static int get_u32(struct rec *c, int i, const char *name, uint32_t *out)
{
	if (!is_uint(&c->v[i]) || c->v[i].via.u64 > UINT32_MAX)
		return corrupt(c->r, "%s %s is not a 32-bit unsigned integer", c->kind, name);
	*out = c->v[i].via.u64;
	return 0;
}

/* get_ref()'s checks again, to say what is wrong. */
static int bad_ref(struct rec *c, int i, const char *name, uint32_t n, const char *target,
		   bool zero_ok, uint32_t *out)
{
	if (get_u32(c, i, name, out) < 0)
		return -1;
	if (*out == 0 && !zero_ok)
		return corrupt(c->r, "%s %s is 0", c->kind, name);
	if (*out > n)
		return corrupt(c->r, "%s %s refers to %s %u, but only %u %s came before it",
			       c->kind, name, target, *out, n, target);
	return 0;
}

/* A reference to a record of another kind: 0 .. n (0 only when allowed).
 * Inline, the common case in a few instructions (a csd has three). */
static inline int get_ref(struct rec *c, int i, const char *name, uint32_t n, const char *target,
			  bool zero_ok, uint32_t *out)
{
	const msgpack_object *o = &c->v[i];

	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= n && (zero_ok || o->via.u64)) {
		*out = (uint32_t)o->via.u64;
		return 0;
	}
	return bad_ref(c, i, name, n, target, zero_ok, out);
}

static int get_opt_str(struct rec *c, int i, const char *name, uint32_t *out)
{
	if (c->v[i].type == MSGPACK_OBJECT_NIL) {
		*out = 0;
		return 0;
	}
	if (c->v[i].type != MSGPACK_OBJECT_STR)
		return corrupt(c->r, "%s %s is neither a string nor nil", c->kind, name);
	if (memchr(c->v[i].via.str.ptr, '\0', c->v[i].via.str.size))
		return corrupt(c->r, "%s contains a NUL byte", name);
	*out = dpa_strtab_id(c->r->st, c->v[i].via.str.ptr, c->v[i].via.str.size);
	if (!*out)
		return no_memory(c->r);
	return 0;
}

static int read_module(struct reader *r, struct rec *c, uint32_t id)
{
	struct dpa_profile *p = r->p;
	struct dpa_module *m;
	const char *path;

	if (id > DPA_MAX_MODULES)       /* a css keeps 29 bits of module id */
		return corrupt(r, "more than %u modules", DPA_MAX_MODULES);
	if (reserve(r, (void **)&p->module, &r->cap_module, sizeof(*m), id, r->want_module) < 0)
		return -1;
	m = &p->module[id];
	memset(m, 0, sizeof(*m));
	if (c->v[2].type != MSGPACK_OBJECT_STR)
		return corrupt(r, "module path is not a string");
	if (!(path = intern_str(r, &c->v[2], "module path")))
		return -1;
	m->path = (char *)path;
	if (get_u64(c, 3, "base", &m->base) < 0 || get_u64(c, 4, "size", &m->size) < 0)
		return -1;
	if (c->v[5].type == MSGPACK_OBJECT_BIN) {
		if (!(m->build_id = (char *)intern_hex(r, &c->v[5])))
			return -1;
	} else if (c->v[5].type != MSGPACK_OBJECT_NIL) {
		return corrupt(r, "module build_id is neither bin nor nil");
	}
	p->n_module = id;
	return 0;
}

/*
 * Storing the common records, once their fields are decoded (by the
 * general path, read_*(), or in place, direct_*()): the checks that go
 * beyond each field's type and range, made here once for both. With
 * `quiet` (the in-place path) a failure returns -1 with nothing counted
 * and no message of its own (reserve() still words an out-of-memory), and
 * the general path then decodes the record again and says what is wrong.
 */
struct ps_fields {
	uint32_t module, name, file, line;
	uint64_t offset;
};

static int store_ps(struct reader *r, uint32_t id, const struct ps_fields *f, bool quiet)
{
	struct dpa_profile *p = r->p;

	if (f->module == 0 && !f->name)
		return quiet ? -1 : corrupt(r, "synthetic ps %u (module 0) has no name", id);
	if (id == 1 && (f->module != 0 || strcmp(dpa_str(p, f->name), "<root>")))
		return quiet ? -1 : corrupt(r, "ps 1 is not the synthetic <root> (module 0, name "
					    "\"<root>\")");
	if ((id >= r->cap_ps &&
	     reserve(r, (void **)&p->ps, &r->cap_ps, sizeof(*p->ps), id, r->want_ps) < 0) ||
	    dpa_src_set(p, DPA_PS_NAME, id, f->name) < 0 ||
	    dpa_src_set(p, DPA_PS_FILE, id, f->file) < 0 ||
	    dpa_src_set(p, DPA_PS_LINE, id, f->line) < 0 ||
	    dpa_ps_set_offset(p, id, f->offset) < 0)
		return quiet ? -1 : no_memory(r);
	p->ps[id].module = f->module;
	p->n_ps = id;
	return 0;
}

struct css_fields {
	uint32_t caller_ps, module, callee_ps, file, line, col;
	uint64_t offset, kind;
};

static int store_css(struct reader *r, uint32_t id, const struct css_fields *f, bool quiet)
{
	struct dpa_profile *p = r->p;
	struct dpa_css *s;

	if (f->kind >= DPA_CSS_NKINDS)
		return quiet ? -1 : corrupt(r, "css kind %" PRIu64 " is not one of 0..%d", f->kind,
					    DPA_CSS_NKINDS - 1);
	if (f->col >= (1u << 29))       /* the limit profile.h promises (struct dpa_src) */
		return quiet ? -1 : corrupt(r, "css col %u is not below 2^29", f->col);
	if ((id >= r->cap_css &&
	     reserve(r, (void **)&p->css, &r->cap_css, sizeof(*p->css), id, r->want_css) < 0) ||
	    dpa_src_set(p, DPA_CSS_FILE, id, f->file) < 0 ||
	    dpa_src_set(p, DPA_CSS_LINE, id, f->line) < 0 ||
	    dpa_src_set(p, DPA_CSS_COL, id, f->col) < 0 ||
	    dpa_css_set_offset(p, id, f->offset) < 0)
		return quiet ? -1 : no_memory(r);
	s = &p->css[id];
	s->caller_ps = f->caller_ps;
	s->module = f->module;  /* n_module <= DPA_MAX_MODULES (read_module) */
	s->kind = f->kind;
	s->callee_ps = f->callee_ps;
	p->n_css = id;
	return 0;
}

static int store_pd(struct reader *r, uint32_t id, uint32_t ps, bool quiet)
{
	struct dpa_profile *p = r->p;

	if (id >= r->cap_pd &&
	    reserve(r, (void **)&p->pd, &r->cap_pd, sizeof(*p->pd), id, r->want_pd) < 0)
		return quiet ? -1 : no_memory(r);
	p->pd[id] = (struct dpa_pd){ .ps = ps };
	p->n_pd = id;
	return 0;
}

/* quiet: the direct path's, which falls back to read_csd() to say why */
static int store_csd(struct reader *r, uint32_t id, const struct dpa_csd *c,
		     const uint64_t v[DPA_NMEASURES], bool quiet)
{
	if (r->p->hdr.sampled && (v[DPA_CALLS] || v[DPA_EXITS] || v[DPA_NONLOCAL] || v[DPA_CSCS]))
		return quiet ? -1 : corrupt(r, "csd %u of a sampled profile counts calls, exits or cscs", id);
	if (id == 1 && r->want_csd)     /* a hint: appending says if memory is short */
		(void)dpa_csd_expect(r->p, (uint32_t)r->want_csd);
	if (dpa_csd_append(r->p, id, c, v) < 0)
		return quiet ? -1 : no_memory(r);
	r->p->n_csd = id;
	return 0;
}

static int read_ps(struct reader *r, struct rec *c, uint32_t id)
{
	struct dpa_profile *p = r->p;
	struct ps_fields f = { 0 };

	if (get_ref(c, 2, "module", p->n_module, "modules", true, &f.module) < 0 ||
	    get_u64(c, 3, "offset", &f.offset) < 0 ||
	    get_opt_str(c, 4, "name", &f.name) < 0 ||
	    get_opt_str(c, 5, "file", &f.file) < 0 ||
	    get_u32(c, 6, "line", &f.line) < 0)
		return -1;
	return store_ps(r, id, &f, false);
}

static int read_css(struct reader *r, struct rec *c, uint32_t id)
{
	struct dpa_profile *p = r->p;
	struct css_fields f = { 0 };

	if (get_ref(c, 2, "caller_ps", p->n_ps, "ps", false, &f.caller_ps) < 0 ||
	    get_ref(c, 3, "module", p->n_module, "modules", true, &f.module) < 0 ||
	    get_u64(c, 4, "offset", &f.offset) < 0 ||
	    get_u64(c, 5, "kind", &f.kind) < 0)
		return -1;
	if (f.kind >= DPA_CSS_NKINDS)   /* said before the later fields' errors */
		return store_css(r, id, &f, false);
	if (get_ref(c, 6, "callee_ps", p->n_ps, "ps", true, &f.callee_ps) < 0 ||
	    get_opt_str(c, 7, "file", &f.file) < 0 ||
	    get_u32(c, 8, "line", &f.line) < 0 ||
	    get_u32(c, 9, "col", &f.col) < 0)
		return -1;
	return store_css(r, id, &f, false);
}

static int read_pd(struct reader *r, struct rec *c, uint32_t id)
{
	uint32_t ps;

	if (get_ref(c, 2, "ps", r->p->n_ps, "ps", false, &ps) < 0)
		return -1;
	return store_pd(r, id, ps, false);
}

static int read_csd(struct reader *r, struct rec *c, uint32_t id)
{
	struct dpa_profile *p = r->p;
	struct dpa_csd d;
	uint64_t v[DPA_NMEASURES];

	if (get_ref(c, 2, "css", p->n_css, "css", false, &d.css) < 0 ||
	    get_ref(c, 3, "caller_pd", p->n_pd, "pd", false, &d.caller_pd) < 0 ||
	    get_ref(c, 4, "callee_pd", p->n_pd, "pd", false, &d.callee_pd) < 0)
		return -1;
	for (int i = 0; i < DPA_NMEASURES; i++)
		if (get_u64(c, 5 + i, dpa_measure_name(i), &v[i]) < 0)
			return -1;
	return store_csd(r, id, &d, v, false);
}

static int read_thread(struct reader *r, struct rec *c, uint32_t id)
{
	struct dpa_profile *p = r->p;
	struct dpa_thread *t;

	if (reserve(r, (void **)&p->thread, &r->cap_thread, sizeof(*t), id, r->want_thread) < 0)
		return -1;
	t = &p->thread[id];
	memset(t, 0, sizeof(*t));
	if (get_u64(c, 2, "tid", &t->tid) < 0 ||
	    get_ref(c, 3, "root_pd", p->n_pd, "pd", false, &t->root_pd) < 0 ||
	    get_u64(c, 4, "cpu_ns", &t->cpu_ns) < 0 ||
	    get_u64(c, 5, "ticks", &t->ticks) < 0 ||
	    get_u64(c, 6, "ticks_outside", &t->ticks_outside) < 0 ||
	    get_u64(c, 7, "allocs_outside", &t->allocs_outside) < 0 ||
	    get_u64(c, 8, "bytes_outside", &t->bytes_outside) < 0)
		return -1;
	if (c->v[9].type != MSGPACK_OBJECT_BOOLEAN)
		return corrupt(r, "thread exited is not a boolean");
	t->exited = c->v[9].via.boolean;
	if (p->pd[t->root_pd].ps != 1)
		return corrupt(r, "thread %u's root_pd %u is a pd of ps %u, not of ps 1 (<root>)",
			       id, t->root_pd, p->pd[t->root_pd].ps);
	p->n_thread = id;
	return 0;
}

static int read_end(struct reader *r, struct rec *c)
{
	struct dpa_profile *p = r->p;
	static const char *const names[6] = { "modules", "ps", "css", "pd", "csd", "threads" };
	const uint32_t have[6] = { p->n_module, p->n_ps, p->n_css, p->n_pd, p->n_csd, p->n_thread };
	uint64_t v = 0;

	for (int i = 0; i < 6; i++) {
		if (get_u64(c, 1 + i, names[i], &v) < 0)
			return -1;
		if (v != have[i])
			return corrupt(r, "END says %" PRIu64 " %s, the file has %u", v, names[i], have[i]);
	}
	if (get_u64(c, 7, "crc32", &v) < 0)
		return -1;
	crc_upto(r, r->obj_start);
	if (v != r->crc)
		return corrupt(r, "checksum mismatch: END says crc32 0x%08" PRIx64
			       ", the bytes before it give 0x%08" PRIx32, v, r->crc);
	crc_upto(r, r->consumed);       /* END's bytes too: the whole file's */
	p->file_crc32 = r->crc;
	return 0;
}

struct kind_info {
	int tag, order, len;
	const char *name;
	int (*read)(struct reader *, struct rec *, uint32_t);
};

static const struct kind_info kinds[] = {
	{ K_MODULE, 1, 6, "module", read_module },
	{ K_PS, 2, 7, "ps", read_ps },
	{ K_CSS, 3, 10, "css", read_css },
	{ K_PD, 4, 3, "pd", read_pd },
	{ K_CSD, 5, 12, "csd", read_csd },
	{ K_THREAD, 6, 10, "thread", read_thread },
	{ K_END, 7, 8, "END", NULL },
};

/* kind_of[tag]: 1 + the tag's index in kinds[], 0 for an unknown tag */
static const uint8_t kind_of[] = {
	[K_MODULE] = 1, [K_PS] = 2, [K_CSS] = 3, [K_PD] = 4, [K_CSD] = 5, [K_THREAD] = 6, [K_END] = 7,
};

static uint32_t count_of(const struct dpa_profile *p, int tag)
{
	switch (tag) {
	case K_MODULE: return p->n_module;
	case K_PS: return p->n_ps;
	case K_CSS: return p->n_css;
	case K_PD: return p->n_pd;
	case K_CSD: return p->n_csd;
	case K_THREAD: return p->n_thread;
	}
	return 0;
}

/* Validate and store one record; returns 1 after END, 0 after another kind. */
static int read_record(struct reader *r, const msgpack_object *o)
{
	const struct kind_info *k = NULL;
	struct rec c;
	uint64_t tag, id;

	if (o->type != MSGPACK_OBJECT_ARRAY)
		return corrupt(r, "not a record (an array)");
	if (o->via.array.size == 0 || !is_uint(&o->via.array.ptr[0]))
		return corrupt(r, "record without a kind tag");
	tag = o->via.array.ptr[0].via.u64;
	if (tag < sizeof(kind_of) / sizeof(kind_of[0]) && kind_of[tag])
		k = &kinds[kind_of[tag] - 1];
	if (!k)
		return corrupt(r, "unknown record kind %" PRIu64, tag);
	if (o->via.array.size != (uint32_t)k->len)
		return corrupt(r, "%s record has %u elements, not %d", k->name, o->via.array.size, k->len);
	if (k->order < r->stage)
		return corrupt(r, "%s record after a %s record", k->name, kinds[r->stage - 1].name);
	r->stage = k->order;
	c.r = r;
	c.v = o->via.array.ptr;
	c.kind = k->name;
	if (!k->read)
		return read_end(r, &c) < 0 ? -1 : 1;
	if (!is_uint(&c.v[1]))
		return corrupt(r, "%s id is not an unsigned integer", k->name);
	id = c.v[1].via.u64;
	if (id != (uint64_t)count_of(r->p, k->tag) + 1)
		return corrupt(r, "%s id %" PRIu64 " out of sequence (expected %" PRIu64 ")",
			       k->name, id, (uint64_t)count_of(r->p, k->tag) + 1);
	if (id >= UINT32_MAX)
		return corrupt(r, "too many %s records", k->name);
	return k->read(r, &c, (uint32_t)id) < 0 ? -1 : 0;
}

/* ---- the common records, decoded in place ---- */

/*
 * PD, CSD, PS and CSS records are nearly all of a big file. Here they are
 * decoded straight from the unpacker's buffer into the profile, each field
 * by its own inline copy of the decoder (so the branch on a field's width is
 * predicted per field, not shared by all), without msgpack_object, the
 * record dispatch or per-field calls: the reader's main cost. Only records
 * the general path would accept, and store the same way, are taken; for
 * anything else (another kind, a short buffer, a value of an unexpected
 * type or out of range, ps 1) nothing is changed and the general path
 * decodes the record again and says what is wrong.
 */

/* Bytes a record of unsigned integers may take (a csd: 1 + 12 * 9): with
 * that many at hand they are decoded without bounds checks. */
#define DIRECT_NEED 128
/* Bytes still wanted after a string: the fields that may follow it. */
#define DIRECT_AFTER_STR 32

static inline __attribute__((always_inline)) bool take_uint(const unsigned char *b, size_t *pos,
							   uint64_t *v)
{
	const unsigned char *q = b + *pos;
	uint16_t h;
	uint32_t w;
	uint64_t d;

	if (q[0] <= 0x7f) {
		*v = q[0];
		*pos += 1;
		return true;
	}
	switch (q[0]) {
	case 0xcc:
		*v = q[1];
		*pos += 2;
		return true;
	case 0xcd:
		memcpy(&h, q + 1, 2);
		*v = __builtin_bswap16(h);
		*pos += 3;
		return true;
	case 0xce:
		memcpy(&w, q + 1, 4);
		*v = __builtin_bswap32(w);
		*pos += 5;
		return true;
	case 0xcf:
		memcpy(&d, q + 1, 8);
		*v = __builtin_bswap64(d);
		*pos += 9;
		return true;
	}
	return false;
}

/* A reference 1 .. n (0 .. n when zero_ok). */
static inline __attribute__((always_inline)) bool take_ref(const unsigned char *b, size_t *pos,
							  uint32_t n, bool zero_ok, uint32_t *out)
{
	uint64_t v;

	if (!take_uint(b, pos, &v) || v > n || (!zero_ok && v == 0))
		return false;
	*out = (uint32_t)v;
	return true;
}

static inline __attribute__((always_inline)) bool take_u32(const unsigned char *b, size_t *pos,
							  uint32_t *out)
{
	uint64_t v;

	if (!take_uint(b, pos, &v) || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* A string or nil, as get_opt_str() takes it (its id in *out, 0 for nil),
 * with DIRECT_AFTER_STR bytes left after it. */
static inline __attribute__((always_inline)) bool take_opt_str(struct reader *r,
							      const unsigned char *b, size_t avail,
							      size_t *pos, uint32_t *out)
{
	const unsigned char *q = b + *pos;
	size_t len, h;

	if (q[0] == 0xc0) {
		*out = 0;
		*pos += 1;
		return true;
	}
	if (q[0] >= 0xa0 && q[0] <= 0xbf) {
		len = q[0] & 0x1f;
		h = 1;
	} else if (q[0] == 0xd9) {
		len = q[1];
		h = 2;
	} else if (q[0] == 0xda) {
		len = (size_t)q[1] << 8 | q[2];
		h = 3;
	} else {
		return false;
	}
	if (len + h + DIRECT_AFTER_STR > avail - *pos || memchr(q + h, '\0', len))
		return false;
	*out = dpa_strtab_id(r->st, (const char *)q + h, len);
	if (!*out)
		return false;   /* out of memory: the general path says so */
	*pos += h + len;
	return true;
}

/* The id of the next record of kind `tag` (order `order`), when it may come
 * here; 0 when not. */
static inline uint32_t next_id(struct reader *r, const unsigned char *b, size_t *pos, int tag,
			       int order)
{
	uint64_t id;

	if (order < r->stage || !take_uint(b, pos, &id) ||
	    id != (uint64_t)count_of(r->p, tag) + 1 || id >= UINT32_MAX)
		return 0;
	return (uint32_t)id;
}

static size_t direct_pd(struct reader *r, const unsigned char *b)
{
	size_t pos = 2;
	uint32_t id = next_id(r, b, &pos, K_PD, 4), ps;

	if (!id || !take_ref(b, &pos, r->p->n_ps, false, &ps) || store_pd(r, id, ps, true) < 0)
		return 0;
	r->stage = 4;
	return pos;
}

static size_t direct_csd(struct reader *r, const unsigned char *b)
{
	struct dpa_profile *p = r->p;
	size_t pos = 2;
	uint32_t id = next_id(r, b, &pos, K_CSD, 5);
	struct dpa_csd c;
	uint64_t v[DPA_NMEASURES];

	if (!id || !take_ref(b, &pos, p->n_css, false, &c.css) ||
	    !take_ref(b, &pos, p->n_pd, false, &c.caller_pd) ||
	    !take_ref(b, &pos, p->n_pd, false, &c.callee_pd))
		return 0;
#pragma GCC unroll 8
	for (int i = 0; i < DPA_NMEASURES; i++)
		if (!take_uint(b, &pos, &v[i]))
			return 0;
	if (store_csd(r, id, &c, v, true) < 0)
		return 0;
	r->stage = 5;
	return pos;
}

static size_t direct_ps(struct reader *r, const unsigned char *b, size_t avail)
{
	size_t pos = 2;
	uint32_t id = next_id(r, b, &pos, K_PS, 2);
	struct ps_fields f;

	if (!id || !take_ref(b, &pos, r->p->n_module, true, &f.module) ||
	    !take_uint(b, &pos, &f.offset) || !take_opt_str(r, b, avail, &pos, &f.name) ||
	    !take_opt_str(r, b, avail, &pos, &f.file) || !take_u32(b, &pos, &f.line) ||
	    store_ps(r, id, &f, true) < 0)
		return 0;
	r->stage = 2;
	return pos;
}

static size_t direct_css(struct reader *r, const unsigned char *b, size_t avail)
{
	const struct dpa_profile *p = r->p;
	size_t pos = 2;
	uint32_t id = next_id(r, b, &pos, K_CSS, 3);
	struct css_fields f;

	if (!id || !take_ref(b, &pos, p->n_ps, false, &f.caller_ps) ||
	    !take_ref(b, &pos, p->n_module, true, &f.module) || !take_uint(b, &pos, &f.offset) ||
	    !take_uint(b, &pos, &f.kind) || !take_ref(b, &pos, p->n_ps, true, &f.callee_ps) ||
	    !take_opt_str(r, b, avail, &pos, &f.file) || !take_u32(b, &pos, &f.line) ||
	    !take_u32(b, &pos, &f.col) || store_css(r, id, &f, true) < 0)
		return 0;
	r->stage = 3;
	return pos;
}

/*
 * Take the next record when it is one of the common kinds and lies whole in
 * the buffer: 1 (taken, r->consumed moved on), 0 (left to next_object()).
 */
static int direct_record(struct reader *r)
{
	const unsigned char *b = unread(r);
	size_t avail = unread_n(r), size;

	if (avail < DIRECT_NEED)
		return 0;
	switch (b[0] << 8 | b[1]) {
	case 0x9300 | K_PD: size = direct_pd(r, b); break;
	case 0x9c00 | K_CSD: size = direct_csd(r, b); break;
	case 0x9700 | K_PS: size = direct_ps(r, b, avail); break;
	case 0x9a00 | K_CSS: size = direct_css(r, b, avail); break;
	default: return 0;
	}
	if (!size)
		return 0;
	r->obj_start = r->consumed;
	advance(r, size);
	return 1;
}

/* ---- after END: call lists and threads ---- */

/*
 * The call lists, by counting sort of csd ids on caller and on callee pd,
 * in one pass over the csds when they already come in caller and in callee
 * order (the lists are then the identity and are not stored): each csd is
 * counted in pd[its pd + 1], so that a prefix sum makes each pd's
 * out_first (in_first) the start of its group. Otherwise out_perm (in_perm)
 * is filled by a second pass, stable (ids ascend within each pd's group),
 * which moves each start to the next group's; they are moved back. Sets
 * the sentinel pd[n_pd + 1].
 */
static int build_csr(struct reader *r)
{
	struct dpa_profile *p = r->p;
	struct dpa_pd *pd = p->pd;
	const uint32_t n = p->n_pd;
	bool by_caller = true, by_callee = true;

	memset(&pd[n + 1], 0, sizeof(pd[0]));
	for (uint32_t i = 1; i <= p->n_csd; i++) {
		const struct dpa_csd *c = &p->csd[i];

		pd[c->caller_pd + 1].out_first++;
		pd[c->callee_pd + 1].in_first++;
		by_caller &= c->caller_pd >= c[-1].caller_pd;
		by_callee &= c->callee_pd >= c[-1].callee_pd;
	}
	for (uint32_t q = 2; q <= n + 1; q++) {
		pd[q].out_first += pd[q - 1].out_first;
		pd[q].in_first += pd[q - 1].in_first;
	}
	if (!by_caller) {
		if (!(p->out_perm = dpa_malloc_huge(((size_t)p->n_csd + 1) * sizeof(uint32_t))))
			return no_memory(r);
		for (uint32_t i = 1; i <= p->n_csd; i++)
			p->out_perm[pd[p->csd[i].caller_pd].out_first++] = i;
		for (uint32_t q = n; q >= 2; q--)
			pd[q].out_first = pd[q - 1].out_first;
		pd[1].out_first = 0;
	}
	if (!by_callee) {
		if (!(p->in_perm = dpa_malloc_huge(((size_t)p->n_csd + 1) * sizeof(uint32_t))))
			return no_memory(r);
		for (uint32_t i = 1; i <= p->n_csd; i++)
			p->in_perm[pd[p->csd[i].callee_pd].in_first++] = i;
		for (uint32_t q = n; q >= 2; q--)
			pd[q].in_first = pd[q - 1].in_first;
		pd[1].in_first = 0;
	}
	return 0;
}

/*
 * The common case of assign_threads() without its queue: when every call
 * goes to a pd of a larger id (or back to one of the same thread), one pass
 * in id order from the roots gives each pd its thread, and every call has
 * been looked at. Returns false, leaving th[] to be cleared, when the
 * profile is not so (the breadth-first walk then decides, and words any
 * error).
 */
static bool threads_in_order(const struct dpa_profile *p, uint32_t *th)
{
	for (uint32_t t = 1; t <= p->n_thread; t++) {
		if (th[p->thread[t].root_pd])
			return false;
		th[p->thread[t].root_pd] = t;
	}
	for (uint32_t q = 1; q <= p->n_pd; q++) {
		const struct dpa_pd *pd = &p->pd[q];

		if (!th[q])
			return false;
		for (uint32_t i = 0; i < dpa_pd_out_n(pd); i++) {
			uint32_t callee = p->csd[dpa_out_csd(p, pd->out_first + i)].callee_pd;

			if (th[callee] == th[q])
				continue;
			if (th[callee] || callee < q)
				return false;
			th[callee] = th[q];
		}
	}
	return true;
}

/*
 * The commonest case of all, decided with no memory: thread t's pds are
 * the ids from its root up to the next thread's root (roots ascending from
 * pd 1), every call stays inside its caller's range, and every pd but a
 * root is called from a smaller id, so (by induction on ids) each is
 * reached from its range's root and from no other. Then each pd's thread
 * is its range's (thread[].first_pd) and pd_thread is not made. Needs the
 * in call lists.
 */
static bool threads_by_range(struct dpa_profile *p)
{
	uint32_t t = 1;

	if (!p->n_thread || p->thread[1].root_pd != 1)
		return false;
	for (uint32_t i = 2; i <= p->n_thread; i++)
		if (p->thread[i].root_pd <= p->thread[i - 1].root_pd)
			return false;
	for (uint32_t q = 1; q <= p->n_pd; q++) {
		const struct dpa_pd *pd = &p->pd[q];
		uint32_t lo, hi;        /* thread t's range: [lo, hi) */
		bool reached = false;

		if (t < p->n_thread && q == p->thread[t + 1].root_pd)
			t++;
		lo = p->thread[t].root_pd;
		hi = t < p->n_thread ? p->thread[t + 1].root_pd : p->n_pd + 1;
		/* one thread: its range is every pd, which every callee is in */
		for (uint32_t i = 0; i < dpa_pd_out_n(pd) && p->n_thread > 1; i++) {
			uint32_t callee = p->csd[dpa_out_csd(p, pd->out_first + i)].callee_pd;

			if (callee < lo || callee >= hi)
				return false;
		}
		for (uint32_t i = 0; i < dpa_pd_in_n(pd) && !reached && q != lo; i++)
			reached = p->csd[dpa_in_csd(p, pd->in_first + i)].caller_pd < q;
		if (!reached && q != lo)
			return false;
	}
	for (uint32_t i = 1; i <= p->n_thread; i++)
		p->thread[i].first_pd = p->thread[i].root_pd;
	return true;
}

/* Give each pd its thread (p->pd_thread, allocated here unless
 * threads_by_range() finds it needless) by a breadth-first walk from every
 * thread's root; a pd reached from two roots, or from none, makes the file
 * invalid. */
static int assign_threads(struct reader *r)
{
	struct dpa_profile *p = r->p;
	uint32_t *th, *queue;

	if (threads_by_range(p))
		return 0;
	if (!(th = dpa_calloc_huge((size_t)p->n_pd + 1, sizeof(*th))))
		return no_memory(r);
	p->pd_thread = th;
	if (threads_in_order(p, th))
		return 0;
	memset(th, 0, ((size_t)p->n_pd + 1) * sizeof(*th));
	queue = dpa_malloc_huge(((size_t)p->n_pd + 1) * sizeof(*queue));
	if (!queue)
		return no_memory(r);
	r->queue = queue;       /* freed with the reader */

	for (uint32_t t = 1; t <= p->n_thread; t++) {
		uint32_t root = p->thread[t].root_pd, head = 0, tail = 0;

		if (th[root]) {
			return fail(r, "corrupt: thread %u's root pd %u is already in thread %u's graph",
				    t, root, th[root]);
		}
		th[root] = t;
		queue[tail++] = root;
		while (head < tail) {
			const struct dpa_pd *pd = &p->pd[queue[head++]];

			for (uint32_t i = 0; i < dpa_pd_out_n(pd); i++) {
				uint32_t callee = p->csd[dpa_out_csd(p, pd->out_first + i)].callee_pd;

				if (th[callee] == t)
					continue;
				if (th[callee]) {
					return fail(r, "corrupt: pd %u is reachable from the roots of threads %u and %u",
						    callee, th[callee], t);
				}
				th[callee] = t;
				queue[tail++] = callee;
			}
		}
	}
	for (uint32_t i = 1; i <= p->n_pd; i++)
		if (!th[i])
			return fail(r, "corrupt: pd %u is not reachable from any thread's root", i);
	return 0;
}

/* Give back an array's unused capacity (a failure to shrink is harmless). */
static void shrink(void **arr, size_t *cap, size_t elem, uint32_t n)
{
	void *q;

	if ((size_t)n + 1 >= *cap)
		return;
	q = realloc(*arr, ((size_t)n + 1) * elem);
	if (q) {
		*arr = q;
		*cap = (size_t)n + 1;
	}
}

/* Make every array non-NULL with element 0 present, so callers may index
 * [1..n] of an empty kind and [0] always; return spare capacity. */
static int finish_arrays(struct reader *r)
{
	struct dpa_profile *p = r->p;

	if (reserve(r, (void **)&p->module, &r->cap_module, sizeof(*p->module), 0, 0) < 0 ||
	    reserve(r, (void **)&p->ps, &r->cap_ps, sizeof(*p->ps), 0, 0) < 0 ||
	    reserve(r, (void **)&p->css, &r->cap_css, sizeof(*p->css), 0, 0) < 0 ||
	    reserve(r, (void **)&p->pd, &r->cap_pd, sizeof(*p->pd), p->n_pd + 1, 0) < 0 ||
	    reserve(r, (void **)&p->thread, &r->cap_thread, sizeof(*p->thread), 0, 0) < 0)
		return -1;
	shrink((void **)&p->module, &r->cap_module, sizeof(*p->module), p->n_module);
	shrink((void **)&p->ps, &r->cap_ps, sizeof(*p->ps), p->n_ps);
	shrink((void **)&p->css, &r->cap_css, sizeof(*p->css), p->n_css);
	dpa_src_trim(p);
	shrink((void **)&p->pd, &r->cap_pd, sizeof(*p->pd), p->n_pd + 1);  /* + the sentinel */
	if (dpa_csd_reserve(p, 0) < 0)
		return no_memory(r);
	dpa_csd_pack(p);
	shrink((void **)&p->thread, &r->cap_thread, sizeof(*p->thread), p->n_thread);
	return 0;
}

/* ---- sizes ahead ---- */

/*
 * The counts END promises, read from a regular file's last bytes before
 * anything else, so that each id-indexed array is made once at its size.
 * Grown by doubling from 64, the arrays of a 10^7-csd profile moved
 * (mremap) up to 18 times each, and on the VM of README's "Benchmarks" the
 * first touch of a page after a move costs a quarter of a fresh page's (the
 * first pass over the csd array after reading: 0.19 s, the next 0.01 s;
 * `report top` of every 10^7 shape took 1.0-1.5 s less with the arrays
 * made once). Only a hint: END is
 * checked as ever when the decoding reaches it, an array still grows past a
 * count that was too small, and a count no file of this size could hold
 * (every record takes at least 4 bytes) is not believed.
 */
static void peek_end(struct reader *r)
{
	/* END: [9, 6 counts, crc32], each a uint of at most 9 bytes; 9 zero
	 * bytes after the file's last let take_uint() read past it */
	unsigned char b[2 + 7 * 9 + 9] = { 0 };
	/* END's order; what each array takes beyond the count: element 0,
	 * pd's sentinel too; dpa_csd_expect() takes the last csd id */
	size_t n = 2 + 7 * 9, *want[6] = {
		&r->want_module, &r->want_ps, &r->want_css, &r->want_pd, &r->want_csd,
		&r->want_thread,
	};
	static const unsigned extra[6] = { 1, 1, 1, 2, 0, 1 };

	if (r->file_size == UINT64_MAX || r->file_size < 16)
		return;
	if (r->file_size < n)
		n = (size_t)r->file_size;
	if (pread(r->fd, b, n, (off_t)(r->file_size - n)) != (ssize_t)n)
		return;
	for (size_t i = 0; i + 9 <= n; i++) {
		uint64_t v[7];
		size_t pos = i + 2;
		int k;

		if (b[i] != 0x98 || b[i + 1] != K_END)
			continue;
		for (k = 0; k < 7 && pos < n && take_uint(b, &pos, &v[k]); k++)
			;
		if (k < 7 || pos != n)
			continue;
		for (k = 0; k < 6; k++)
			if (v[k] > r->file_size / 4 || v[k] >= UINT32_MAX - 2)
				return;
		for (k = 0; k < 6; k++)
			*want[k] = (size_t)v[k] + extra[k];
		return;
	}
}

/* ---- the whole file ---- */

static int read_all(struct reader *r)
{
	int rc;

	rc = next_object(r);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return fail(r, "empty file");
	if (read_header(r, &r->obj) < 0)
		return -1;
	for (;;) {
		if (direct_record(r))
			continue;
		rc = next_object(r);
		if (rc < 0)
			return -1;
		if (rc == 0)
			return fail(r, "truncated: no END record after %" PRIu64 " bytes", r->consumed);
		rc = read_record(r, &r->obj);
		if (rc < 0)
			return -1;
		if (rc == 1)
			break;
	}
	/* nothing may follow END */
	rc = unread_n(r) > 0 ? 1 : feed(r);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		if (r->file_size != UINT64_MAX)
			return fail(r, "corrupt: %" PRIu64 " bytes of data after the END record (at byte %"
				    PRIu64 ")", r->file_size - r->consumed, r->obj_start);
		return fail(r, "corrupt: data after the END record (at byte %" PRIu64 ")", r->obj_start);
	}
	if (finish_arrays(r) < 0 || check_inside(r) < 0 || build_csr(r) < 0 ||
	    assign_threads(r) < 0)
		return -1;
	dpa_profile_compact(r->p);
	return 0;
}

int dpa_profile_read(struct dpa_profile *p, const char *path, struct dpa_error *err)
{
	struct reader r;
	struct stat st;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	memset(&r, 0, sizeof(r));
	err->msg[0] = '\0';
	r.path = path;
	r.err = err;
	r.p = p;
	r.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r.fd < 0)
		return fail(&r, "cannot open: %s", strerror(errno));
	if (fstat(r.fd, &st) < 0) {
		fail(&r, "cannot stat: %s", strerror(errno));
		close(r.fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		fail(&r, "cannot read: %s", strerror(EISDIR));
		close(r.fd);
		return -1;
	}
	/* A regular file too is read(2) in chunks, not mapped: the kernel
	 * copies it into one buffer, whose pages stay mapped, where a mapping
	 * took a fault per few pages and the MADV_DONTNEED behind the decoding
	 * (`report top` of 10^7 csds, median of 5 alternating runs: chain
	 * 3.50 -> 2.94 s of CPU, wide 2.87 -> 2.70 s) */
	r.file_size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
	r.crc = 0;     /* crc32's initial value */
	peek_end(&r);
	if (!msgpack_unpacker_init(&r.u, CHUNK_SIZE)) {
		no_memory(&r);
		close(r.fd);
		return -1;
	}
	r.st = dpa_strtab_new();
	p->strings = r.st;
	p->path = strdup(path);
	if (!r.st || !p->path)
		no_memory(&r);
	else
		rc = read_all(&r);
	msgpack_unpacker_destroy(&r.u);
	free(r.queue);
	close(r.fd);
	if (rc < 0)
		dpa_profile_release(p);
	return rc;
}
