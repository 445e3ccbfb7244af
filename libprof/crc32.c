/*
 * crc32.c — CRC-32 (IEEE 802.3, reflected, as zlib's crc32()) for the END
 * record of Deep.data. Slicing by 8 (eight bytes a step through eight
 * tables: ~5 instructions a byte against the one-table loop's ~14); the
 * tables are built on first use. libprof links nothing beyond libc, so not
 * libdeflate's, which the analyses use.
 * Part of deepprof's libprof. MIT licence.
 */
#include <string.h>
#include "internal.h"

static uint32_t table[8][256];
static int table_ready;

static void build_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		table[0][i] = c;
	}
	/* table[k][i]: the CRC of byte i followed by k zero bytes */
	for (uint32_t i = 0; i < 256; i++)
		for (int k = 1; k < 8; k++)
			table[k][i] = table[0][table[k - 1][i] & 0xff] ^ (table[k - 1][i] >> 8);
	DP_STORE_REL(&table_ready, 1);
}

/* Continue crc over len bytes (start with crc = 0), as zlib's crc32(crc, buf, len). */
uint32_t dp_crc32(uint32_t crc, const void *buf, size_t len)
{
	if (!DP_LOAD_ACQ(&table_ready))
		build_table();
	const unsigned char *p = buf;
	crc = ~crc;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; len >= 8; len -= 8, p += 8) {
		uint32_t lo, hi;
		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
		lo ^= crc;
		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^
		      table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
		      table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		      table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
	}
#endif
	while (len--)
		crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
