/*
 * s-devirt.c — indirect calls GCC makes direct and inlines
 * (tests/plugin-rt t043, tests/plugin test_devirt_sites): each() calls
 * is_x and to_y through pointers. At -O2 GCC inlines each() into pass_a()
 * with odd() and twice() as constants and inlines them (odd calls note()
 * on a path, twice calls nothing); into pass_b() with odd() as is_x, but
 * to_y a pointer main() sets to triple, then twice; and twice into
 * pass_c(), with odd(), then even() as is_x: one site, one slot in
 * pass_c's activation, two targets in turn. Prints what the passes made
 * of the array.
 * Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>

static long hits;

__attribute__((noinline)) void note(int c)
{
	hits += c;
}

static int odd(int c)
{
	if (c & 1) {
		note(c);
		return 1;
	}
	return 0;
}

static int even(int c)
{
	if (!(c & 1)) {
		note(c);
		return 1;
	}
	return 0;
}

static int twice(int c)
{
	return c * 2;
}

static int triple(int c)
{
	note(c);
	return c * 3;
}

static void each(int *v, int n, int (*is_x)(int), int (*to_y)(int))
{
	for (int i = 0; i < n; i++)
		if (is_x(v[i]))
			v[i] = to_y(v[i]) + 1;
}

void pass_a(int *v, int n)
{
	each(v, n, odd, twice);
}

void pass_b(int *v, int n, int (*f)(int))
{
	each(v, n, odd, f);
}

void pass_c(int *v, int n)
{
	each(v, n, odd, twice);
	each(v, n, even, twice);
}

int main(void)
{
	int v[10];
	for (int i = 0; i < 10; i++)
		v[i] = i;
	for (int k = 0; k < 3; k++)
		pass_a(v, 10);
	for (int k = 0; k < 4; k++)
		pass_b(v, 10, k & 1 ? twice : triple);
	for (int i = 0; i < 10; i++)
		v[i] = i;
	for (int k = 0; k < 2; k++)
		pass_c(v, 10);
	long s = 0;
	for (int i = 0; i < 10; i++)
		s += v[i];
	printf("%ld %ld\n", s, hits);
	return 0;
}
