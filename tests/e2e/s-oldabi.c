/*
 * s-oldabi.c — e2e: tables a plugin made that this libprof must not run.
 * An ABI v2 TU without DP_TU_V2_TAGGED (an older plugin's: its sites count
 * through untagged slots) and a TU of an ABI no libprof implements are
 * refused at registration, each with one line on stderr, counted as lost;
 * the program runs on. Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include "deepprof-abi.h"

static struct dp_tu old_v2 = { .abi_version = 2, .flags = DP_TU_SOURCE_CALLS | DP_TU_BACKEDGES,
			       .tu_id = 1, .file = "old-v2.c" };
static struct dp_tu future = { .abi_version = 9, .tu_id = 2, .file = "future.c" };

int main(void)
{
	dp_register_tu(&old_v2);
	dp_register_tu(&future);
	dp_register_tu(&old_v2);        /* said once per TU */
	puts("ran");
	return 0;
}
