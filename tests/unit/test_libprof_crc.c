/*
 * test_libprof_crc.c — libprof's CRC-32 (libprof/crc32.c, which signs
 * Deep.data's END record) against libdeflate's, which the reader checks it
 * with: the standard check value, every length 0..300 at every alignment
 * 0..7 (the sliced loop and its byte tail), and a buffer hashed in pieces
 * as the writer does (one piece per flush of its buffer).
 * Part of deepprof's tests. MIT licence.
 */
#include <stdint.h>
#include <stdlib.h>
#include <libdeflate.h>
#include "unit.h"

uint32_t dp_crc32(uint32_t crc, const void *buf, size_t len);   /* libprof/crc32.c */

static void test_check_value(void)
{
	CU_ASSERT_EQUAL(dp_crc32(0, "123456789", 9), 0xCBF43926u);
	CU_ASSERT_EQUAL(dp_crc32(0, "", 0), 0);
	CU_ASSERT_EQUAL(dp_crc32(0x12345678u, "", 0), 0x12345678u);
}

static void test_lengths_alignments(void)
{
	static unsigned char buf[400];
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < sizeof buf; i++) {
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		buf[i] = (unsigned char)x;
	}
	int bad = 0;
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; len <= 300; len++)
			if (dp_crc32(0, buf + off, len) != libdeflate_crc32(0, buf + off, len))
				bad++;
	CU_ASSERT_EQUAL(bad, 0);
}

static void test_pieces(void)
{
	size_t n = 200000;
	unsigned char *buf = malloc(n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)(i * 131 + (i >> 9));
	uint32_t whole = libdeflate_crc32(0, buf, n);
	CU_ASSERT_EQUAL(dp_crc32(0, buf, n), whole);
	uint32_t crc = 0;
	size_t at = 0, step = 1;
	while (at < n) {                /* pieces of 1, 4, 13, ... bytes, then 65536 */
		size_t k = step < n - at ? step : n - at;
		crc = dp_crc32(crc, buf + at, k);
		at += k;
		step = step * 3 + 1 < 65536 ? step * 3 + 1 : 65536;
	}
	CU_ASSERT_EQUAL(crc, whole);
	free(buf);
}

DPA_TEST_SUITE(libprof_crc, DPA_TEST(test_check_value), DPA_TEST(test_lengths_alignments),
	       DPA_TEST(test_pieces));
