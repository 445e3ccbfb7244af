/* s-loopcscs.c — back-edge ticks with known counts: each function runs its
 * loop(s) n times (argv[1], default 100) and calls nothing, so the cscs of
 * the csd calling it are 1 + its back-edge ticks. */
#include <stdlib.h>
static volatile long sink;
__attribute__((noinline)) void empty(int n) { (void)n; }
__attribute__((noinline)) void for_loop(int n) { for (int i = 0; i < n; i++) sink++; }
__attribute__((noinline)) void while_loop(int n) { int i = 0; while (i < n) { sink++; i++; } }
__attribute__((noinline)) void do_loop(int n) { int i = 0; do { sink++; } while (++i < n); }
__attribute__((noinline)) void nested(int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < 3; j++)
			sink++;
}
__attribute__((noinline)) void with_continue(int n)
{
	for (int i = 0; i < n; i++) {
		if (i % 2)
			continue;
		sink++;
	}
}
__attribute__((noinline)) void goto_back(int n)
{
	int i = 0;
again:
	sink++;
	if (++i < n)
		goto again;
}
__attribute__((noinline)) void unrolled(int n)
{
#pragma GCC unroll 4
	for (int i = 0; i < n; i++)
		sink++;
}
__attribute__((noinline)) void counted(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)       /* no side effect: GCC may compute it */
		s += i;
	sink += s;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	empty(n);
	for_loop(n);
	for_loop(0);
	while_loop(n);
	do_loop(n);
	nested(n);
	with_continue(n);
	goto_back(n);
	unrolled(n);
	counted(n);
	return 0;
}
