/*
 * utf8.h — UTF-8 for the writers of JSON and HTML: which bytes start a
 * valid sequence, and JSON strings made of any bytes (those that are not
 * UTF-8 become U+FFFD, as in a browser); and hexadecimal digits. Part of deepprof's analyses
 * library. MIT licence.
 */
#ifndef DPA_UTF8_H
#define DPA_UTF8_H

#include <jansson.h>

/* The length (1..4) of the valid UTF-8 sequence at s, or 0 if s does not
 * start one (overlong forms, surrogates and values past U+10FFFF included). */
int dpa_utf8_len(const unsigned char *s);

/* A JSON string of s, each byte that does not start a valid UTF-8
 * sequence replaced by U+FFFD; NULL when memory runs out (or s is NULL). */
json_t *dpa_json_string(const char *s);

/* The value of the hexadecimal digit c (either case), or -1: for %XX in
 * URLs and the hex strings of Deep.data. */
int dpa_hex_digit(int c);

#endif
