/*
 * crc32.c — CRC-32 (IEEE 802.3, reflected, as zlib's crc32()) for the END
 * record of Deep.data. Table-driven; the table is built on first use.
 * Part of deepprof's libprof. MIT licence.
 */
#include "internal.h"

static uint32_t table[256];
static int table_ready;

static void build_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
	DP_STORE_REL(&table_ready, 1);
}

/* Continue crc over len bytes (start with crc = 0), as zlib's crc32(crc, buf, len). */
uint32_t dp_crc32(uint32_t crc, const void *buf, size_t len)
{
	if (!DP_LOAD_ACQ(&table_ready))
		build_table();
	const unsigned char *p = buf;
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
