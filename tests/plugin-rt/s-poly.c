/* Indirect calls whose target changes from call to call (plugin-rt t037):
 * apply()'s one site calls 2 targets in turn, then 200 in turn (more than
 * the runtime remembers), from two callers (two contexts of apply), in two
 * threads; and rare() is a cold tail GCC splits off at -O2 (rare.part.0),
 * whose site runs in the activation of the function rare's head was
 * inlined into. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 200
#define F(n) static int __attribute__((noinline)) f##n(int x) { return x + n; }
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9)
F10(1) F10(2) F10(3) F10(4) F10(5) F10(6) F10(7) F10(8) F10(9)
F10(10) F10(11) F10(12) F10(13) F10(14) F10(15) F10(16) F10(17) F10(18) F10(19)
#define T10(n) f##n##0, f##n##1, f##n##2, f##n##3, f##n##4, f##n##5, f##n##6, f##n##7, f##n##8, f##n##9
static int (*const tab[N])(int) = {
	f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, T10(1), T10(2), T10(3), T10(4), T10(5), T10(6),
	T10(7), T10(8), T10(9), T10(10), T10(11), T10(12), T10(13), T10(14), T10(15), T10(16),
	T10(17), T10(18), T10(19),
};

static int __attribute__((noinline)) apply(int (*op)(int), int x)
{
	return op(x);
}

volatile unsigned sink;           /* unsigned: it wraps (UBSan) */

static void __attribute__((noinline)) pairs(void)        /* f0 f1 f0 f1 ... 1000 calls */
{
	for (int i = 0; i < 1000; i++)
		sink += apply(tab[i & 1], i);
}

static void __attribute__((noinline)) rounds(void)       /* f0 .. f199, 3 times */
{
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < N; i++)
			sink += apply(tab[i], r);
}

static int __attribute__((noinline)) cold(int x)
{
	return x * 3;
}

static int rare(int x)
{
	if (__builtin_expect(x % 7 == 0, 0)) {
		char buf[64];
		snprintf(buf, sizeof buf, "%d", x);
		int y = atoi(buf);
		for (int i = 0; i < 3; i++)
			y += cold(y + i) + cold(x - i);
		snprintf(buf, sizeof buf, "%d", y);
		return atoi(buf) + cold(y) + cold(x + y) + cold(x ^ y) + cold(x * y);
	}
	return x;
}

static void __attribute__((noinline)) split(void)        /* rare's tail: 70 of 490 */
{
	for (int i = 0; i < 490; i++)
		sink += (unsigned)rare(i);
}

static void __attribute__((noinline)) split2(void)       /* and 10 of 70 */
{
	for (int i = 0; i < 70; i++)
		sink += (unsigned)rare(i);
}

static void *work(void *arg)
{
	(void)arg;
	pairs();
	rounds();
	split();
	split2();
	return NULL;
}

int main(void)
{
	pthread_t th;
	if (pthread_create(&th, NULL, work, NULL))
		return 1;
	pthread_join(th, NULL);
	work(NULL);
	printf("%u\n", sink);
	return 0;
}
