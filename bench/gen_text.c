/*
 * gen_text.c — write BYTES bytes of compressible pseudo-random English-like
 * text, the same for a given SEED on every machine: the input of the bzip2
 * and minigzip benchmarks and of the callgrind cross-check.
 * Part of deepprof's bench. MIT licence.
 *
 *   gen_text SEED BYTES [OUT]      (OUT defaults to stdout)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NWORDS 4096

static uint64_t state;

/* xorshift64*: fixed arithmetic, so the output depends on SEED only. */
static uint64_t next(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 2685821657736338717ULL;
}

static uint32_t below(uint32_t n)
{
	return (uint32_t)((next() >> 32) % n);
}

static const char *const syll[] = {
	"ta", "ke", "ri", "on", "mo", "sa", "li", "en", "du", "ver", "pro", "ing",
	"al", "tion", "st", "er", "com", "ba", "ne", "qu", "it", "or", "an", "ex",
};

int main(int argc, char **argv)
{
	static char words[NWORDS][24];
	char *end;
	unsigned long long seed, bytes, out = 0;
	FILE *f = stdout;
	int col = 0;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: gen_text SEED BYTES [OUT]\n");
		return 2;
	}
	errno = 0;
	seed = strtoull(argv[1], &end, 10);
	if (errno || *end || end == argv[1]) {
		fprintf(stderr, "gen_text: bad seed '%s'\n", argv[1]);
		return 2;
	}
	bytes = strtoull(argv[2], &end, 10);
	if (errno || *end || end == argv[2]) {
		fprintf(stderr, "gen_text: bad byte count '%s'\n", argv[2]);
		return 2;
	}
	if (argc == 4 && !(f = fopen(argv[3], "w"))) {
		fprintf(stderr, "gen_text: %s: %s\n", argv[3], strerror(errno));
		return 1;
	}
	state = seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
	if (!state)
		state = 1;

	/* a vocabulary of 1–4 syllable words */
	for (int i = 0; i < NWORDS; i++) {
		int n = 1 + (int)below(4);
		words[i][0] = 0;
		for (int s = 0; s < n; s++)
			strcat(words[i], syll[below(sizeof syll / sizeof syll[0])]);
	}

	while (out < bytes) {
		/* skewed towards the first words, like real text: min of two draws, squared */
		uint32_t a = below(NWORDS), b = below(NWORDS);
		uint32_t r = a < b ? a : b;
		const char *w = words[(uint64_t)r * r / NWORDS];
		size_t len = strlen(w);
		char sep = ' ';

		if (col + (int)len > 72) {
			sep = '\n';
			col = 0;
		}
		if (len > bytes - out)
			len = (size_t)(bytes - out);
		fwrite(w, 1, len, f);
		out += len;
		if (out < bytes) {
			fputc(sep, f);
			out++;
		}
		col += (int)len + 1;
	}
	if (ferror(f) || (f != stdout ? fclose(f) : fflush(f))) {
		fprintf(stderr, "gen_text: %s: write error\n", argc == 4 ? argv[3] : "stdout");
		return 1;
	}
	return 0;
}
