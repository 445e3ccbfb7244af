/*
 * write_profile.c — serialise a struct dpa_profile as Deep.data v1
 * (schemas/deep-data.md) through msgpack-c's packer, with zlib's crc32 for
 * the END record, into a temporary file renamed into place when complete.
 * Part of deepprof's analyses library. MIT licence.
 */
#include "write_profile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libdeflate.h>
#include <msgpack.h>

#include "tempfile.h"
#include "utf8.h"

/* Record kind tags (schemas/deep-data.md). */
enum {
	TAG_MODULE = 1, TAG_PS = 2, TAG_CSS = 3, TAG_PD = 5, TAG_CSD = 6,
	TAG_THREAD = 7, TAG_END = 9
};

/* The sink every packed byte goes through: the file, and the running CRC. */
struct sink {
	FILE *f;
	uint32_t crc;
	int failed;             /* an fwrite failed; errno saved in err_no */
	int err_no;
};

/* --- private prototypes --- */
static int sink_write(void *data, const char *buf, size_t len);
static int werror(struct dpa_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void pack_cstr(msgpack_packer *pk, const char *s);
static void pack_key(msgpack_packer *pk, const char *k);
static int pack_hex_bin(msgpack_packer *pk, const char *hex);
static int pack_header(msgpack_packer *pk, const struct dpa_profile *p);
static int pack_records(msgpack_packer *pk, const struct dpa_profile *p,
			const char *path, struct dpa_error *err);

static int werror(struct dpa_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int sink_write(void *data, const char *buf, size_t len)
{
	struct sink *s = data;

	if (s->failed)
		return -1;
	s->crc = libdeflate_crc32(s->crc, buf, len);
	if (len && fwrite(buf, 1, len, s->f) != len) {
		s->failed = 1;
		s->err_no = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

/* ================================================================
 * Packing
 * ================================================================ */

/* A str, or nil for NULL. */
static void pack_cstr(msgpack_packer *pk, const char *s)
{
	size_t n;

	if (!s) {
		msgpack_pack_nil(pk);
		return;
	}
	n = strlen(s);
	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s, n);
}

static void pack_key(msgpack_packer *pk, const char *k)
{
	pack_cstr(pk, k);
}


/* A place as the file holds it: "file:line:col<TAB>name". */
static void pack_place(msgpack_packer *pk, const char *loc, const char *var)
{
	size_t a = strlen(loc), b = strlen(var);

	msgpack_pack_str(pk, a + 1 + b);
	msgpack_pack_str_body(pk, loc, a);
	msgpack_pack_str_body(pk, "\t", 1);
	msgpack_pack_str_body(pk, var, b);
}

/* The header key "check" (schemas/deep-data.md): the region descriptors
 * rebuilt from their fields. */
static void pack_check(msgpack_packer *pk, const struct dpa_profile *p)
{
	pack_key(pk, "check");
	msgpack_pack_map(pk, 2);
	pack_key(pk, "lost");
	msgpack_pack_uint64(pk, p->check_lost);
	pack_key(pk, "regions");
	msgpack_pack_array(pk, p->n_check);
	for (uint32_t i = 0; i < p->n_check; i++) {
		const struct dpa_check_region *g = &p->check[i];
		size_t len = strlen(g->fn) + strlen(g->file) + 8;
		char *d, *e;

		for (uint32_t k = 0; k < g->n_calls; k++)
			len += strlen(g->calls[k].callee) + 24;
		d = malloc(len + 1);
		e = d;
		if (d) {
			e += sprintf(e, "%s\n%s", g->fn, g->file);
			for (uint32_t k = 0; k < g->n_calls; k++)
				e += sprintf(e, "\n%u:%u:%s", g->calls[k].line, g->calls[k].col, g->calls[k].callee);
			if (g->loop)
				e += sprintf(e, "\nloop");
		}
		msgpack_pack_map(pk, 4);
		pack_key(pk, "region");
		msgpack_pack_str(pk, d ? (size_t)(e - d) : 0);
		msgpack_pack_str_body(pk, d ? d : "", d ? (size_t)(e - d) : 0);
		free(d);
		pack_key(pk, "executions");
		msgpack_pack_uint64(pk, g->executions);
		pack_key(pk, "opaque");
		msgpack_pack_array(pk, g->n_opaque);
		for (uint32_t k = 0; k < g->n_opaque; k++) {
			msgpack_pack_array(pk, 4);
			msgpack_pack_uint32(pk, g->opaque[k].k);
			msgpack_pack_uint64(pk, g->opaque[k].executions);
			pack_key(pk, g->opaque[k].callee);
			pack_place(pk, g->opaque[k].loc, "");
		}
		pack_key(pk, "conflicts");
		msgpack_pack_array(pk, g->n_conflicts);
		for (uint32_t k = 0; k < g->n_conflicts; k++) {
			const struct dpa_check_conflict *c = &g->conflicts[k];

			msgpack_pack_array(pk, 8);
			msgpack_pack_uint32(pk, c->i);
			msgpack_pack_uint32(pk, c->j);
			pack_key(pk, c->kind);
			msgpack_pack_uint64(pk, c->executions);
			pack_place(pk, c->loc_i, c->var_i);
			pack_place(pk, c->loc_j, c->var_j);
			msgpack_pack_uint64(pk, c->addr);
			msgpack_pack_uint64(pk, c->size);
		}
	}
}

/* A build id, held in memory as hex, goes to the file as bin (or nil). */
static int pack_hex_bin(msgpack_packer *pk, const char *hex)
{
	size_t n, i;
	unsigned char buf[256];

	if (!hex) {
		msgpack_pack_nil(pk);
		return 0;
	}
	n = strlen(hex);
	if (n % 2 || n / 2 > sizeof(buf))
		return -1;
	for (i = 0; i < n / 2; i++) {
		int hi = dpa_hex_digit((unsigned char)hex[2 * i]);
		int lo = dpa_hex_digit((unsigned char)hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		buf[i] = (unsigned char)(hi << 4 | lo);
	}
	msgpack_pack_bin(pk, n / 2);
	msgpack_pack_bin_body(pk, buf, n / 2);
	return 0;
}

#define KV_U64(name, val) do { pack_key(pk, name); msgpack_pack_uint64(pk, (val)); } while (0)

static int pack_header(msgpack_packer *pk, const struct dpa_profile *p)
{
	const struct dpa_header *h = &p->hdr;
	uint32_t i;

	/* a sampled profile is format 2 (its clock "samples" and three keys) */
	msgpack_pack_map(pk, (p->has_inside ? 28 : 26) + (h->sampled ? 3 : 0) + p->has_check);
	pack_key(pk, "magic");
	pack_cstr(pk, "deepprof");
	KV_U64("version", h->sampled ? 2 : 1);
	KV_U64("min_version", h->sampled ? 2 : 1);
	pack_key(pk, "program");
	pack_cstr(pk, h->program ? h->program : "");
	pack_key(pk, "argv");
	msgpack_pack_array(pk, h->argc);
	for (i = 0; i < h->argc; i++)
		pack_cstr(pk, h->argv[i] ? h->argv[i] : "");
	KV_U64("pid", h->pid);
	KV_U64("ppid", h->ppid);
	KV_U64("fork_of", h->fork_of);
	pack_key(pk, "final");
	if (h->final)
		msgpack_pack_true(pk);
	else
		msgpack_pack_false(pk);
	KV_U64("start_ns", h->start_ns);
	KV_U64("wall_ns", h->wall_ns);
	pack_key(pk, "clock");
	pack_cstr(pk, h->clock ? h->clock : "calls");
	if (h->sampled) {
		KV_U64("record_flags", h->record_flags);
		KV_U64("samples_truncated", h->samples_truncated);
		KV_U64("samples_failed", h->samples_failed);
	}
	KV_U64("timer_hz", h->timer_hz);
	KV_U64("cpu_ns", h->cpu_ns);
	KV_U64("ticks", h->ticks);
	KV_U64("ticks_outside", h->ticks_outside);
	pack_key(pk, "ns_per_tick");
	msgpack_pack_double(pk, h->ns_per_tick);
	KV_U64("calls", h->calls);
	KV_U64("cscs", h->cscs);
	KV_U64("allocs", h->allocs);
	KV_U64("bytes", h->bytes);
	KV_U64("allocs_outside", h->allocs_outside);
	KV_U64("bytes_outside", h->bytes_outside);
	KV_U64("mem_bytes", h->mem_bytes);
	KV_U64("lost", h->lost);
	if (p->has_inside) {        /* the split of recursions (schemas/deep-data.md) */
		KV_U64("inside_samples", p->inside_samples);
		pack_key(pk, "inside");
		msgpack_pack_array(pk, 2 * (size_t)p->n_inside);
		for (i = 0; i < p->n_inside; i++) {
			msgpack_pack_uint32(pk, p->inside[i].csd);
			msgpack_pack_uint64(pk, p->inside[i].inside);
		}
	}
	/* 25 keys so far (27 with the split); the last: which tool wrote the
	 * file (informative, readers ignore unknown keys). */
	if (p->has_check)
		pack_check(pk, p);
	pack_key(pk, "writer");
	pack_cstr(pk, "deepprof analyses");
	return 0;
}

static int pack_records(msgpack_packer *pk, const struct dpa_profile *p,
			const char *path, struct dpa_error *err)
{
	uint32_t i;
	int k;

	for (i = 1; i <= p->n_module; i++) {
		const struct dpa_module *m = &p->module[i];
		msgpack_pack_array(pk, 6);
		msgpack_pack_uint32(pk, TAG_MODULE);
		msgpack_pack_uint32(pk, i);
		pack_cstr(pk, m->path ? m->path : "");
		msgpack_pack_uint64(pk, m->base);
		msgpack_pack_uint64(pk, m->size);
		if (pack_hex_bin(pk, m->build_id) < 0)
			return werror(err, "%s: module %u: build id is not hex: %s",
				      path, i, m->build_id);
	}
	for (i = 1; i <= p->n_ps; i++) {
		const struct dpa_ps *s = &p->ps[i];
		msgpack_pack_array(pk, 7);
		msgpack_pack_uint32(pk, TAG_PS);
		msgpack_pack_uint32(pk, i);
		msgpack_pack_uint32(pk, s->module);
		msgpack_pack_uint64(pk, dpa_ps_offset(p, i));
		pack_cstr(pk, dpa_src_str(p, DPA_PS_NAME, i));
		pack_cstr(pk, dpa_src_str(p, DPA_PS_FILE, i));
		msgpack_pack_uint32(pk, dpa_src_get(p, DPA_PS_LINE, i));
	}
	for (i = 1; i <= p->n_css; i++) {
		const struct dpa_css *c = &p->css[i];
		msgpack_pack_array(pk, 10);
		msgpack_pack_uint32(pk, TAG_CSS);
		msgpack_pack_uint32(pk, i);
		msgpack_pack_uint32(pk, c->caller_ps);
		msgpack_pack_uint32(pk, c->module);
		msgpack_pack_uint64(pk, dpa_css_offset(p, i));
		msgpack_pack_uint32(pk, c->kind);
		msgpack_pack_uint32(pk, c->callee_ps);
		pack_cstr(pk, dpa_src_str(p, DPA_CSS_FILE, i));
		msgpack_pack_uint32(pk, dpa_src_get(p, DPA_CSS_LINE, i));
		msgpack_pack_uint32(pk, dpa_src_get(p, DPA_CSS_COL, i));
	}
	for (i = 1; i <= p->n_pd; i++) {
		msgpack_pack_array(pk, 3);
		msgpack_pack_uint32(pk, TAG_PD);
		msgpack_pack_uint32(pk, i);
		msgpack_pack_uint32(pk, p->pd[i].ps);
	}
	for (i = 1; i <= p->n_csd; i++) {
		const struct dpa_csd *d = &p->csd[i];
		msgpack_pack_array(pk, 5 + DPA_NMEASURES);
		msgpack_pack_uint32(pk, TAG_CSD);
		msgpack_pack_uint32(pk, i);
		msgpack_pack_uint32(pk, d->css);
		msgpack_pack_uint32(pk, d->caller_pd);
		msgpack_pack_uint32(pk, d->callee_pd);
		for (k = 0; k < DPA_NMEASURES; k++)
			msgpack_pack_uint64(pk, dpa_own(p, i, k));
	}
	for (i = 1; i <= p->n_thread; i++) {
		const struct dpa_thread *t = &p->thread[i];
		msgpack_pack_array(pk, 10);
		msgpack_pack_uint32(pk, TAG_THREAD);
		msgpack_pack_uint32(pk, i);
		msgpack_pack_uint64(pk, t->tid);
		msgpack_pack_uint32(pk, t->root_pd);
		msgpack_pack_uint64(pk, t->cpu_ns);
		msgpack_pack_uint64(pk, t->ticks);
		msgpack_pack_uint64(pk, t->ticks_outside);
		msgpack_pack_uint64(pk, t->allocs_outside);
		msgpack_pack_uint64(pk, t->bytes_outside);
		if (t->exited)
			msgpack_pack_true(pk);
		else
			msgpack_pack_false(pk);
	}
	return 0;
}

/* ================================================================
 * The atomic file write
 * ================================================================ */

int dpa_profile_write(const struct dpa_profile *p, const char *path, struct dpa_error *err)
{
	struct sink s = { 0 };
	msgpack_packer pk;
	char *tmp = NULL;
	int fd = -1, ret = -1;

	if (!p || !path || !*path)
		return werror(err, "%s: no profile or no file name to write", path ? path : "(null)");
	fd = dpa_temp_create(path, &tmp);
	if (fd < 0)
		return werror(err, "%s: cannot create a temporary file: %s", path, strerror(errno));
	s.f = fdopen(fd, "wb");
	if (!s.f) {
		werror(err, "%s: %s", path, strerror(errno));
		close(fd);
		goto cleanup;
	}
	s.crc = 0;     /* crc32's initial value */
	msgpack_packer_init(&pk, &s, sink_write);

	pack_header(&pk, p);
	if (pack_records(&pk, p, path, err) < 0)
		goto cleanup;
	if (s.failed) {
		werror(err, "%s: write failed: %s", path, strerror(s.err_no));
		goto cleanup;
	}
	/* END: the counts, and the CRC of everything written before it. */
	{
		uint32_t crc = s.crc;

		msgpack_pack_array(&pk, 8);
		msgpack_pack_uint32(&pk, TAG_END);
		msgpack_pack_uint32(&pk, p->n_module);
		msgpack_pack_uint32(&pk, p->n_ps);
		msgpack_pack_uint32(&pk, p->n_css);
		msgpack_pack_uint32(&pk, p->n_pd);
		msgpack_pack_uint32(&pk, p->n_csd);
		msgpack_pack_uint32(&pk, p->n_thread);
		msgpack_pack_uint32(&pk, (uint32_t)crc);
	}
	if (s.failed) {
		werror(err, "%s: write failed: %s", path, strerror(s.err_no));
		goto cleanup;
	}
	if (fflush(s.f) != 0 || (tmp && fsync(fileno(s.f)) != 0)) {
		werror(err, "%s: write failed: %s", path, strerror(errno));
		goto cleanup;
	}
	if (fclose(s.f) != 0) {
		s.f = NULL;
		werror(err, "%s: write failed: %s", path, strerror(errno));
		goto cleanup;
	}
	s.f = NULL;
	if (dpa_temp_commit(tmp, path) < 0) {
		werror(err, "%s: cannot rename %s into place: %s", path, tmp, strerror(errno));
		goto cleanup;
	}
	ret = 0;

cleanup:
	if (s.f)
		fclose(s.f);
	if (ret < 0)
		dpa_temp_discard(tmp);
	free(tmp);
	return ret;
}
