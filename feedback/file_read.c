/*
 * file_read.c — the one reader of feedback files: a path to the JSON
 * document (from either encoding, told by the content), and to the model.
 * Part of deepprof's feedback library. MIT licence.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feedback_file.h"
#include "file_json.h"
#include "file_msgpack.h"

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcmp(s + n - m, suf);
}

/* Read a whole file into a malloc'd buffer; -1 with errno. */
static int slurp(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 65536, n = 0;
	char *b;

	if (!f)
		return -1;
	errno = 0;
	b = malloc(cap);
	while (b) {
		size_t r = fread(b + n, 1, cap - n, f);

		n += r;
		if (n < cap)
			break;
		cap *= 2;
		{
			char *nb = realloc(b, cap);

			if (!nb) {
				free(b);
				b = NULL;
			} else {
				b = nb;
			}
		}
	}
	if (!b || ferror(f)) {
		int e = !b ? ENOMEM : errno ? errno : EIO;

		free(b);
		fclose(f);
		errno = e;
		return -1;
	}
	fclose(f);
	*buf = b;
	*len = n;
	return 0;
}

/*
 * Is buf MessagePack? '{' after JSON white space: JSON. A MessagePack map
 * (fixmap 0x80-0x8f, map 16 0xde, map 32 0xdf; a feedback file is a map):
 * MessagePack. Neither says nothing about the encoding (empty, cut, or a
 * corrupt first byte): then the name decides, so that the message speaks
 * of the encoding the file claims to have.
 */
static bool is_msgpack(const char *buf, size_t len, const char *path)
{
	const unsigned char *b = (const unsigned char *)buf;
	size_t i = 0;

	while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
		i++;
	if (i < len && b[i] == '{')
		return false;
	if (len && ((b[0] >= 0x80 && b[0] <= 0x8f) || b[0] == 0xde || b[0] == 0xdf))
		return true;
	return has_suffix(path, ".msgpack");
}

/* Control characters (of names read from files) as '?': one line. */
static void one_line(char *msg)
{
	for (char *s = msg; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			*s = '?';
}

json_t *dpf_feedback_load_doc(const char *path, struct dpa_error *err)
{
	char *buf;
	size_t len;
	json_t *doc;

	if (slurp(path, &buf, &len) < 0) {
		snprintf(err->msg, sizeof(err->msg), "%s: cannot read: %s", path, strerror(errno));
		one_line(err->msg);
		return NULL;
	}
	if (len == 0) {
		snprintf(err->msg, sizeof(err->msg), "%s: feedback: the file is empty", path);
		doc = NULL;
	} else if (is_msgpack(buf, len, path)) {
		char m[200];

		doc = dpf_msgpack_to_json(buf, len, m, sizeof(m));
		if (!doc)
			snprintf(err->msg, sizeof(err->msg), "%s: feedback: %s", path, m);
	} else {
		json_error_t je;

		doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
		if (!doc)
			snprintf(err->msg, sizeof(err->msg), "%s: feedback: not JSON: line %d: %s",
				 path, je.line, je.text);
	}
	free(buf);
	if (!doc)
		one_line(err->msg);
	return doc;
}

int dpf_feedback_read_file(struct dpf_feedback *fb, const char *path, struct dpa_error *err)
{
	json_t *doc;
	int rc;

	memset(fb, 0, sizeof(*fb));
	doc = dpf_feedback_load_doc(path, err);
	if (!doc)
		return -1;
	rc = dpf_feedback_from_json(fb, doc, path, err);
	json_decref(doc);
	if (rc < 0)
		one_line(err->msg);
	return rc;
}
