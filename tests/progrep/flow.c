/* flow.c — check-progrep fixture: known data flow between calls. Line
 * numbers, names and sites are asserted by run.py; edit both together. */
#include <stdlib.h>
#include <string.h>
int f1(int x);
int f2(int x);
int g(int x);
void take(int *p);
__attribute__((const)) int kf(int x);
__attribute__((pure)) int pf(const int *p);
int glob;
int independent(int x) { int a = f1(x); int b = f2(x); return a + b; }
int feeds(int x) { return g(f1(x)); }
int through(int (*fp)(int), int v) { int r = fp(v); return r + 1; }
int loop(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += f1(i);
	return s;
}
int branch(int c)
{
	int r;
	if (c > 0)
		r = f1(c);
	else
		r = f2(-c);
	return g(r);
}
void pointers(int *p)
{
	int loc = 0;
	take(&loc);
	take(&glob);
	take(p);
	glob = loc;
}
int effects(const char *s, int x)
{
	int k = kf(x);
	int q = pf(&glob);
	return k + q + (int)strlen(s);
}
int *heap(int n)
{
	int *m = malloc(n * sizeof(int));
	take(m);
	return m;
}
int choose(int k)
{
	switch (k) {
	case 0:
		return f1(k);
	case 1:
		return f2(k);
	default:
		abort();
	}
}
/* where parameters are read and stored through, among costly calls */
void heavy(int x);
int timing(int *out, const int *in, int n, int *acc)
{
	*out = n;
	heavy(1);
	heavy(2);
	int v = *in;
	if (v > 0)
		heavy(*acc);
	for (int i = 0; i < n; i++)
		acc[i] = v;
	return v;
}
void fill2(int *d, const int *s);
int derive(int *p, int *q)
{
	int *r = p + 1;
	heavy(0);
	fill2(q, r);
	return r[1];
}
