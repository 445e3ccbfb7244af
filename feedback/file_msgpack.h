/*
 * file_msgpack.h — any JSON value (jansson json_t) as MessagePack and back, so
 * a feedback file holds the same content in either encoding: integers stay
 * integers, reals stay reals (float 64). Part of deepprof's feedback library.
 * MIT licence.
 */
#ifndef DPF_FILE_MSGPACK_H
#define DPF_FILE_MSGPACK_H

#include <stddef.h>
#include <jansson.h>

/*
 * Encode v as one MessagePack object into a malloc'd buffer (*buf, *len;
 * the caller frees *buf). Objects become maps with string keys, in the
 * object's order. Returns 0, or -1 when out of memory.
 */
int dpf_msgpack_from_json(const json_t *v, char **buf, size_t *len);

/*
 * Decode the MessagePack buffer (exactly one object, nothing after it) into
 * a new json_t (the caller decrefs). Binary, extension types, non-string map
 * keys and integers above INT64_MAX have no JSON form: NULL with one line in
 * msg (msg_size bytes) saying what is wrong, without the file name.
 */
json_t *dpf_msgpack_to_json(const char *buf, size_t len, char *msg, size_t msg_size);

#endif
