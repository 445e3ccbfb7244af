/*
 * utf8.c — UTF-8 validity and lossy JSON strings (utf8.h).
 * Part of deepprof's analyses library. MIT licence.
 */
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

int dpa_utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	int n;
	unsigned v;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, v = c & 0x07;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) || (n == 4 && (v < 0x10000 || v > 0x10ffff)))
		return 0;
	return n;
}

json_t *dpa_json_string(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len, o = 0;
	char *buf;
	json_t *j;

	if (!s)
		return NULL;
	len = strlen(s);
	for (size_t i = 0; i < len;) {
		int n = dpa_utf8_len(u + i);

		if (!n)
			break;
		i += (size_t)n;
		if (i == len)
			return json_stringn(s, len);    /* valid: the common case */
	}
	if (len == 0)
		return json_string("");
	if (!(buf = malloc(3 * len + 1)))      /* each bad byte: 3 bytes of U+FFFD */
		return NULL;
	for (size_t i = 0; i < len;) {
		int n = dpa_utf8_len(u + i);

		if (n) {
			memcpy(buf + o, u + i, (size_t)n);
			o += (size_t)n;
			i += (size_t)n;
		} else {
			memcpy(buf + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	j = json_stringn(buf, o);
	free(buf);
	return j;
}

int dpa_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
