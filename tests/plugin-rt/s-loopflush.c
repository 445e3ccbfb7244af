/* s-loopflush.c — back-edge ticks of loops that make no call, which ABI v2
 * counts in a register and adds to the csd before every call and return
 * (inline_path.cc): exact counts when such a loop is followed by a return,
 * by a call, by a call that longjmps out, by setjmp and a longjmp back to
 * it, and in a loop that does make calls. n = argv[1] (default 100). */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

static volatile long sink;
static jmp_buf out, back;

__attribute__((noinline)) size_t scan(const char *s)    /* n ticks */
{
	size_t i = 0;
	while (s[i])
		i++;
	return i;
}

__attribute__((noinline)) int id(int x) { sink++; return x; }

__attribute__((noinline)) long scan_call_scan(const char *s, int m)    /* n + m */
{
	size_t i = 0;
	while (s[i])
		i++;
	long r = id((int)i);
	for (int j = 0; j < m; j++)
		r += s[j];
	return r;
}

__attribute__((noinline)) long loop_with_call(int n)   /* n */
{
	long t = 0;
	for (int i = 0; i < n; i++)
		t += id(i);
	return t;
}

__attribute__((noinline)) int early_return(const char *s, int n, char c)     /* index of c */
{
	for (int i = 0; i < n; i++)
		if (s[i] == c)
			return i;
	return -1;
}

__attribute__((noinline)) void jumper(void) { longjmp(out, 1); }

__attribute__((noinline)) void jump_out(const char *s, int k)  /* k, then a longjmp */
{
	long t = 0;
	for (int i = 0; i < k; i++)
		t += s[i];
	sink += t;
	jumper();
}

__attribute__((noinline)) void jump_back(void) { longjmp(back, 1); }

__attribute__((noinline)) long with_setjmp(const char *s, int n)    /* 3n */
{
	long t = 0;
	for (int i = 0; i < n; i++)
		t += s[i];
	if (!setjmp(back)) {
		for (int i = 0; i < n; i++)
			sink += s[i];
		jump_back();
	}
	for (int i = 0; i < n; i++)
		t += s[i] * 2;
	return t;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	char *s = malloc((size_t)n + 1);
	memset(s, 'a', (size_t)n);
	s[n] = 0;
	s[n / 2] = 'b';
	long t = (long)scan(s);
	t += scan_call_scan(s, n / 4);
	t += loop_with_call(n);
	t += early_return(s, n, 'b');
	if (!setjmp(out))
		jump_out(s, n / 3);
	t += with_setjmp(s, n);
	sink += t;
	free(s);
	return 0;
}
