/*
 * small.c — a program whose call structure is known exactly, for testing the
 * callgrind reader (parser_test.py): a→b 6, fib→fib 176, even↔odd 4 and 3.
 * Part of deepprof's cross-check. MIT licence.
 */
static int b(int x) { return x + 1; }
static int a(int x) { return b(x) + b(x + 1); }
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static int odd(int n);
static int even(int n) { return n == 0 ? 1 : odd(n - 1); }
static int odd(int n) { return n == 0 ? 0 : even(n - 1); }

int main(void)
{
	int s = 0;

	for (int i = 0; i < 3; i++)
		s += a(i);
	s += fib(10);
	s += even(7);
	return s == 0;
}
