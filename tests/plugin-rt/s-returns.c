/* s-returns.c — calls into libc: functions glibc declares leaf (__THROW:
 * iswlower, towupper, strlen, malloc, free), whose sites ABI v2 gives no
 * exits count (DP_CSS_RETURNS: they return to the site), and qsort, which
 * calls back and is not leaf: its comparator longjmps out of the second
 * sort, a non-local exit of that qsort call. n = argv[1] (default 100). */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

static jmp_buf out;
static int calls_left = -1;

static int cmp(const void *a, const void *b)
{
	if (calls_left >= 0 && calls_left-- == 0)
		longjmp(out, 1);
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) long upper(const wchar_t *s, int n)
{
	long k = 0;
	for (int i = 0; i < n; i++)
		if (iswlower((wint_t)s[i]))
			k += (long)towupper((wint_t)s[i]);
	return k;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	wchar_t *w = malloc(sizeof *w * (size_t)n);
	char *s = malloc((size_t)n + 1);
	int *v = malloc(sizeof *v * (size_t)n);
	for (int i = 0; i < n; i++) {
		w[i] = i % 2 ? L'a' + i % 26 : L'A' + i % 26;      /* n / 2 lower case */
		s[i] = 'x';
		v[i] = (i * 7919) % n;
	}
	s[n] = 0;
	long k = upper(w, n) + (long)strlen(s + argc - 1);
	qsort(v, (size_t)n, sizeof *v, cmp);
	calls_left = 3;
	if (!setjmp(out))
		qsort(v, (size_t)n, sizeof *v, cmp);
	free(v);
	free(s);
	free(w);
	printf("%ld\n", k);
	return 0;
}
