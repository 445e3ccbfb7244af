/*
 * alloc.c — the allocation-heavy microbenchmark: build, check and free
 * binary trees of malloc'd nodes (one allocation per call of make), plus a
 * ring of variable-sized buffers that are realloc'd and freed.
 * Part of deepprof's bench. MIT licence.
 *
 *   alloc ROUNDS      prints a checksum
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	struct node *left, *right;
	int value;
};

static struct node *make(int depth, int value)
{
	struct node *n = malloc(sizeof *n);

	if (!n) {
		fprintf(stderr, "alloc: out of memory\n");
		exit(1);
	}
	n->value = value;
	if (depth > 0) {
		n->left = make(depth - 1, 2 * value);
		n->right = make(depth - 1, 2 * value + 1);
	} else {
		n->left = n->right = NULL;
	}
	return n;
}

static long check(const struct node *n)
{
	return n->left ? n->value + check(n->left) - check(n->right) : n->value;
}

static void release(struct node *n)
{
	if (n->left) {
		release(n->left);
		release(n->right);
	}
	free(n);
}

#define RING 64

static unsigned long churn(char **ring, unsigned long seed)
{
	unsigned long sum = 0;

	for (int i = 0; i < 4096; i++) {
		size_t slot, size;

		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		slot = (seed >> 33) % RING;
		size = 16 + (seed >> 40) % 2000;
		if (ring[slot] && (seed & 1)) {
			char *p = realloc(ring[slot], size);

			if (!p)
				exit(1);
			ring[slot] = p;
		} else {
			free(ring[slot]);
			ring[slot] = malloc(size);
			if (!ring[slot])
				exit(1);
		}
		ring[slot][0] = (char)seed;
		sum += (unsigned char)ring[slot][0];
	}
	return sum;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	char *ring[RING];
	long sum = 0;

	if (rounds < 0) {
		fprintf(stderr, "alloc: ROUNDS must be >= 0\n");
		return 2;
	}
	memset(ring, 0, sizeof ring);
	for (int r = 0; r < rounds; r++) {
		struct node *t = make(16, 1);

		sum += check(t);
		release(t);
		sum += (long)churn(ring, (unsigned long)r);
	}
	for (int i = 0; i < RING; i++)
		free(ring[i]);
	printf("checksum %ld\n", sum);
	return 0;
}
