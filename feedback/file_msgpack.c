/*
 * file_msgpack.c — JSON values (jansson) <-> MessagePack (msgpack-c), for the
 * MessagePack encoding of feedback files. Part of deepprof's feedback library.
 * MIT licence.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "file_msgpack.h"

/* Nesting deeper than this is refused (a feedback file nests about 5). */
#define MAX_DEPTH 64

/* ================================================================
 * JSON -> MessagePack
 * ================================================================ */

/* Pack v; returns -1 when the packer fails (out of memory). */
static int pack(msgpack_packer *pk, const json_t *v, int depth)
{
	const char *key;
	json_t *e;
	size_t i;

	if (depth > MAX_DEPTH)
		return -1;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		if (msgpack_pack_map(pk, json_object_size(v)) < 0)
			return -1;
		json_object_foreach((json_t *)v, key, e) {
			size_t n = strlen(key);

			if (msgpack_pack_str(pk, n) < 0 || msgpack_pack_str_body(pk, key, n) < 0 ||
			    pack(pk, e, depth + 1) < 0)
				return -1;
		}
		return 0;
	case JSON_ARRAY:
		if (msgpack_pack_array(pk, json_array_size(v)) < 0)
			return -1;
		json_array_foreach(v, i, e)
			if (pack(pk, e, depth + 1) < 0)
				return -1;
		return 0;
	case JSON_STRING: {
		size_t n = json_string_length(v);

		return msgpack_pack_str(pk, n) < 0 ||
		       msgpack_pack_str_body(pk, json_string_value(v), n) < 0 ? -1 : 0;
	}
	case JSON_INTEGER:
		return msgpack_pack_int64(pk, (int64_t)json_integer_value(v));
	case JSON_REAL:
		return msgpack_pack_double(pk, json_real_value(v));
	case JSON_TRUE:
		return msgpack_pack_true(pk);
	case JSON_FALSE:
		return msgpack_pack_false(pk);
	default:
		return msgpack_pack_nil(pk);
	}
}

int dpf_msgpack_from_json(const json_t *v, char **buf, size_t *len)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	if (pack(&pk, v, 0) < 0) {
		msgpack_sbuffer_destroy(&sb);
		return -1;
	}
	*len = sb.size;
	*buf = msgpack_sbuffer_release(&sb);
	if (!*buf) {
		/* an empty buffer (cannot happen: every value packs to a byte) */
		*buf = malloc(1);
		if (!*buf)
			return -1;
	}
	return 0;
}

/* ================================================================
 * MessagePack -> JSON
 * ================================================================ */

static json_t *conv(const msgpack_object *o, char *msg, size_t msg_size, int depth)
{
	json_t *v = NULL;

	if (depth > MAX_DEPTH) {
		snprintf(msg, msg_size, "nested more than %d levels deep", MAX_DEPTH);
		return NULL;
	}
	switch (o->type) {
	case MSGPACK_OBJECT_NIL:
		return json_null();
	case MSGPACK_OBJECT_BOOLEAN:
		return json_boolean(o->via.boolean);
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		if (o->via.u64 > INT64_MAX) {
			snprintf(msg, msg_size, "integer %llu is too large",
				 (unsigned long long)o->via.u64);
			return NULL;
		}
		return json_integer((json_int_t)o->via.u64);
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		return json_integer((json_int_t)o->via.i64);
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		v = json_real(o->via.f64);
		if (!v)
			snprintf(msg, msg_size, "a real that is not finite");
		return v;
	case MSGPACK_OBJECT_STR:
		v = json_stringn(o->via.str.ptr, o->via.str.size);
		if (!v)
			snprintf(msg, msg_size, "a string that is not UTF-8");
		return v;
	case MSGPACK_OBJECT_ARRAY:
		v = json_array();
		for (uint32_t i = 0; v && i < o->via.array.size; i++) {
			json_t *e = conv(&o->via.array.ptr[i], msg, msg_size, depth + 1);

			if (!e || json_array_append_new(v, e) < 0) {
				json_decref(v);
				return NULL;
			}
		}
		return v;
	case MSGPACK_OBJECT_MAP:
		v = json_object();
		for (uint32_t i = 0; v && i < o->via.map.size; i++) {
			const msgpack_object_kv *kv = &o->via.map.ptr[i];
			json_t *e;
			char *key;

			if (kv->key.type != MSGPACK_OBJECT_STR) {
				snprintf(msg, msg_size, "a map key that is not a string");
				json_decref(v);
				return NULL;
			}
			key = strndup(kv->key.via.str.ptr, kv->key.via.str.size);
			if (!key) {
				snprintf(msg, msg_size, "out of memory");
				json_decref(v);
				return NULL;
			}
			if (strlen(key) != kv->key.via.str.size) {
				snprintf(msg, msg_size, "a map key with a NUL byte");
				free(key);
				json_decref(v);
				return NULL;
			}
			if (json_object_get(v, key)) {
				/* as the JSON reader (JSON_REJECT_DUPLICATES) */
				snprintf(msg, msg_size, "duplicate map key '%.60s'", key);
				free(key);
				json_decref(v);
				return NULL;
			}
			e = conv(&kv->val, msg, msg_size, depth + 1);
			/* json_object_set_new() takes e even when it fails */
			if (!e || json_object_set_new(v, key, e) < 0) {
				if (e && !*msg)
					snprintf(msg, msg_size, "a map key that is not UTF-8");
				free(key);
				json_decref(v);
				return NULL;
			}
			free(key);
		}
		return v;
	case MSGPACK_OBJECT_BIN:
		snprintf(msg, msg_size, "binary data (no JSON form)");
		return NULL;
	default:
		snprintf(msg, msg_size, "an extension type (no JSON form)");
		return NULL;
	}
}

/*
 * Walk one MessagePack object at b[*off ..) without allocating: -1 when it
 * is truncated, nested too deep, or declares more array or map elements
 * than bytes are left (msgpack-c allocates the declared count before
 * reading the elements, so a few corrupt bytes could ask for gigabytes).
 */
static int mp_check(const unsigned char *b, size_t len, size_t *off, int depth)
{
	size_t o = *off, n = 0, skip = 0, items = 0;
	unsigned char t;

#define NEED(k) do { if (len - o < (size_t)(k)) return -1; } while (0)
#define BE(k) (k == 1 ? (size_t)b[o] : k == 2 ? (size_t)b[o] << 8 | b[o + 1] :        \
	       (size_t)b[o] << 24 | (size_t)b[o + 1] << 16 | (size_t)b[o + 2] << 8 | b[o + 3])
	if (depth > MAX_DEPTH)
		return -1;
	NEED(1);
	t = b[o++];
	if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3) {
		skip = 0;
	} else if (t >= 0xa0 && t <= 0xbf) {
		skip = t & 0x1f;
	} else if (t >= 0x90 && t <= 0x9f) {
		items = t & 0x0f;
	} else if (t >= 0x80 && t <= 0x8f) {
		items = 2 * (size_t)(t & 0x0f);
	} else {
		switch (t) {
		case 0xc4: case 0xd9: NEED(1); skip = BE(1); o += 1; break;   /* bin8, str8 */
		case 0xc5: case 0xda: NEED(2); skip = BE(2); o += 2; break;   /* bin16, str16 */
		case 0xc6: case 0xdb: NEED(4); skip = BE(4); o += 4; break;   /* bin32, str32 */
		case 0xc7: NEED(1); skip = BE(1) + 1; o += 1; break;         /* ext8 */
		case 0xc8: NEED(2); skip = BE(2) + 1; o += 2; break;         /* ext16 */
		case 0xc9: NEED(4); skip = BE(4) + 1; o += 4; break;         /* ext32 */
		case 0xca: skip = 4; break;                                   /* float32 */
		case 0xcb: skip = 8; break;                                   /* float64 */
		case 0xcc: case 0xd0: skip = 1; break;
		case 0xcd: case 0xd1: skip = 2; break;
		case 0xce: case 0xd2: skip = 4; break;
		case 0xcf: case 0xd3: skip = 8; break;
		case 0xd4: skip = 2; break;                                   /* fixext1..16 */
		case 0xd5: skip = 3; break;
		case 0xd6: skip = 5; break;
		case 0xd7: skip = 9; break;
		case 0xd8: skip = 17; break;
		case 0xdc: NEED(2); items = BE(2); o += 2; break;             /* array16 */
		case 0xdd: NEED(4); items = BE(4); o += 4; break;             /* array32 */
		case 0xde: NEED(2); items = 2 * BE(2); o += 2; break;         /* map16 */
		case 0xdf: NEED(4); items = 2 * BE(4); o += 4; break;         /* map32 */
		default: return -1;                                           /* 0xc1: never used */
		}
	}
	NEED(skip);
	o += skip;
	if (items > len - o)
		return -1;      /* each element takes a byte at least */
	for (n = 0; n < items; n++)
		if (mp_check(b, len, &o, depth + 1) < 0)
			return -1;
#undef NEED
#undef BE
	*off = o;
	return 0;
}

json_t *dpf_msgpack_to_json(const char *buf, size_t len, char *msg, size_t msg_size)
{
	msgpack_unpacked u;
	size_t off = 0;
	json_t *v = NULL;
	msgpack_unpack_return r;

	msg[0] = 0;
	if (len && mp_check((const unsigned char *)buf, len, &off, 0) < 0) {
		snprintf(msg, msg_size, "truncated or corrupt MessagePack");
		return NULL;
	}
	off = 0;
	msgpack_unpacked_init(&u);
	r = msgpack_unpack_next(&u, buf, len, &off);
	if (r == MSGPACK_UNPACK_SUCCESS) {
		if (off != len)
			snprintf(msg, msg_size, "%zu bytes after the MessagePack object", len - off);
		else if (!(v = conv(&u.data, msg, msg_size, 0)) && !*msg)
			snprintf(msg, msg_size, "out of memory");
	} else if (r == MSGPACK_UNPACK_CONTINUE) {
		snprintf(msg, msg_size, len ? "truncated MessagePack" : "empty file");
	} else if (r == MSGPACK_UNPACK_NOMEM_ERROR) {
		snprintf(msg, msg_size, "out of memory");
	} else {
		snprintf(msg, msg_size, "not MessagePack");
	}
	msgpack_unpacked_destroy(&u);
	return v;
}
