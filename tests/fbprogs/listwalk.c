/*
 * listwalk.c — a check-fbprogs program: single (linear) recursion. len()
 * walks a linked list recursively, one call back into itself per level;
 * known answer: len's clique is recursion type "simple" (single), about
 * NODES levels deep per entry, and no candidate inside len (one call).
 * Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>

enum { NODES = 2000, WALKS = 100 };

struct node {
	struct node *next;
	long value;
};

/* The number of nodes from n on. */
__attribute__((noinline)) static long len(const struct node *n)
{
	return n ? 1 + len(n->next) : 0;
}

int main(void)
{
	struct node *head = NULL;
	long total = 0;

	for (long i = 0; i < NODES; i++) {
		struct node *n = malloc(sizeof(*n));

		if (!n)
			return 1;
		n->next = head;
		n->value = i;
		head = n;
	}
	for (int w = 0; w < WALKS; w++)
		total += len(head);
	printf("listwalk: %ld\n", total);
	while (head) {
		struct node *n = head->next;

		free(head);
		head = n;
	}
	return total == (long)NODES * WALKS ? 0 : 1;
}
