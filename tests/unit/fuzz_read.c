/*
 * fuzz_read.c — libFuzzer harness for the Deep.data reader: every input is
 * written to an in-memory file and read with dpa_profile_read(), then
 * symbolized names are asked for. Built by `make fuzz` with clang (not part
 * of check): build/bin/fuzz-read [-max_len=65536] CORPUS_DIR
 * Seed the corpus with dp-gen output. Part of deepprof's tests. MIT licence.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct dpa_profile p;
	struct dpa_error err;

	if (fd < 0) {
		fd = memfd_create("fuzz-deep-data", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (dpa_profile_read(&p, path, &err) == 0) {
		/* a valid profile must be internally consistent */
		for (uint32_t i = 1; i <= p.n_csd; i++)
			if (p.csd[i].caller_pd > p.n_pd || p.csd[i].callee_pd > p.n_pd ||
			    dpa_pd_thread(&p, p.csd[i].callee_pd) != dpa_pd_thread(&p, p.csd[i].caller_pd))
				abort();
		for (uint32_t i = 1; i <= p.n_ps; i++)
			(void)dpa_ps_name(&p, i);
		dpa_profile_release(&p);
	} else if (!err.msg[0] || strchr(err.msg, '\n')) {
		abort();        /* every failure has one line of message */
	}
	return 0;
}
