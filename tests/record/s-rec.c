/* s-rec.c — rec(n) recurses n levels and burns at every level; even/odd
 * recurse into each other. argv[1]: the depth of rec (default 40; 3000
 * goes beyond the sampler's 1024 frames). */
#include <stdio.h>
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void burn(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	sink = x;
}
__attribute__((noinline)) unsigned long rec(int n, unsigned long w)
{
	burn(w);
	unsigned long r = n ? rec(n - 1, w) + 1 : 0;
	sink += r;
	return r;
}
__attribute__((noinline)) int odd(int n, unsigned long w);
__attribute__((noinline)) int even(int n, unsigned long w)
{
	burn(w);
	int r = n == 0 ? 1 : odd(n - 1, w);
	sink += (unsigned long)r;
	return r;
}
__attribute__((noinline)) int odd(int n, unsigned long w)
{
	burn(w);
	int r = n == 0 ? 0 : even(n - 1, w);
	sink += (unsigned long)r;
	return r;
}
int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 40;
	unsigned long w = 400000000ul / (unsigned long)depth / 2;
	for (int i = 0; i < 2; i++)
		rec(depth, w / 2);
	printf("%d\n", even(40, 100000000ul / 40));
	return 0;
}
