/* p1.c — plugin test program: independent calls, a call feeding another,
 * a call through a pointer, a const callee, loops (for with continue,
 * backward goto, do-while). Line numbers are asserted by run.py. */
#include <stdio.h>
int leaf(int x) { return x + 1; }
static int twice(int x) { return 2 * x; }
__attribute__((const)) int konst(int x) { return x * 3; }
int apply(int (*f)(int), int v) { return f(v); }
int count_loop(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) {
		if (i == 2)
			continue;
		s += leaf(i);
	}
	return s;
}
int goto_loop(int n)
{
	int k = 0;
again:
	k++;
	if (k < n)
		goto again;
	return k;
}
int do_loop(int n) { int k = 0; do { k += 2; } while (--n > 0); return k; }
void fill(int *p, int v) { *p = v; }
int main(int argc, char **argv)
{
	int a = leaf(1);
	int b = twice(argc);
	int c = leaf(twice(a));
	int d = apply(leaf, b);
	int local;
	fill(&local, c);
	int e = count_loop(5) + goto_loop(4) + do_loop(3) + konst(argc);
	printf("%d %d %d %d %d %d %s\n", a, b, c, d, local, e, argv[0] ? "ok" : "");
	return 0;
}
