/* s-mf-lib.c — the other file of s-mf-main.c: lib_sum(n) calls its own
 * static helper() n times; lib_twice(f, x) calls f twice. */
static int helper(int x) { return x * 2; }
int lib_sum(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += helper(i);
	return s;
}
int lib_twice(int (*f)(int), int x) { return f(x) + f(x + 1); }
