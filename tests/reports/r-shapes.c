/* r-shapes.c — one program with every recursion type and known counts, for
 * the reports suite: down (simple, 101 calls), t3 (three recursive sites,
 * 31 calls), is_even/is_odd (mutual, 6 + 5), fib(10) (two sites, 177),
 * middle x4 -> leaf x5 each, leaf twice from main, a static helper here
 * and another in r-other.c, grab x3 (malloc 1000 bytes each).
 * Part of deepprof's tests. MIT licence. */
#include <stdlib.h>
int helper_other(int x);
static int helper(int x) { return x * 2; }
int down(int n) { return n ? down(n - 1) + 1 : 0; }
int t3(int n)
{
	if (n <= 0)
		return 1;
	if (n % 3 == 0)
		return t3(n - 1) + 1;
	if (n % 3 == 1)
		return t3(n - 1) + 2;
	return t3(n - 1) + 3;
}
int is_odd(int n);
int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
void *grab(size_t n) { return malloc(n); }
int leaf(int x) { return x + 1; }
int middle(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}
int main(void)
{
	int s = 0;
	s += down(100);
	s += t3(30);
	s += is_even(10);
	s += fib(10);
	for (int i = 0; i < 4; i++)
		s += middle(5);
	s += leaf(0);
	s += leaf(1);
	s += helper(3) + helper_other(4);
	for (int i = 0; i < 3; i++) {
		void *p = grab(1000);
		free(p);
	}
	return s > 0 ? 0 : 1;
}
