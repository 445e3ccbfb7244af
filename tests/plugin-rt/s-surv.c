/* s-surv.c — calls=surviving: functions GCC must inline (always_inline)
 * and must not (noinline), with loops, an indirect call, a longjmp out of
 * an inlined body's callee, a tail call and one that stops being one when
 * inlined. Each inlined body's calls and back-edges belong to the
 * activation it was inlined into. leaf and other store to a volatile,
 * so that no build may drop a call of theirs (a const function's calls
 * can be merged: the plain build's would not be the instrumented one's,
 * whose functions write dp_cur). */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf jb;
volatile int seen;
__attribute__((noinline)) int leaf(int x) { seen = x; return x + 1; }
__attribute__((noinline)) int other(int x) { seen = x; return x * 3; }
int (*volatile fp)(int) = other;

static inline __attribute__((always_inline)) int wrap(int x)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += leaf(x + i);
	return s;
}

static inline __attribute__((always_inline)) int viaptr(int x) { return fp(x); }

/* two levels: inner inlined into outer inlined into work */
static inline __attribute__((always_inline)) int inner(int x) { return leaf(x) + other(x); }
static inline __attribute__((always_inline)) int outer(int x) { return inner(x) + inner(x + 1); }

__attribute__((noinline)) int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += wrap(i) + viaptr(i) + outer(i);
	return s;
}

__attribute__((noinline)) void jumper(int k) { if (k == 3) longjmp(jb, 1); }
static inline __attribute__((always_inline)) void maybe_jump(int k) { jumper(k); }

__attribute__((noinline)) int tailer(int x) { return leaf(x); }
static inline __attribute__((always_inline)) int tail_in(int x) { return leaf(x); }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	int s = work(n);
	volatile int k = 0;
	if (setjmp(jb) == 0)
		for (k = 0; k < 10; k++)
			maybe_jump(k);
	s += tailer(n) + tail_in(n);
	printf("%d %d\n", s, k);
	return 0;
}
