/* h-prog.c — the html suite's program, with known calls: main -> work(4) x3
 * -> leaf x4 each (12 on that arc); main -> many -> leaf x12345; down(5)
 * (simple recursion, 6 calls); is_even(4)/is_odd (mutual, 3 + 2 calls);
 * main -> a procedure named "operator<<&a'b</td>" -> leaf once; main -> leaf
 * once. Part of deepprof's tests. MIT licence. */
int leaf(int x) { return x + 1; }
int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}
int many(void)
{
	int s = 0;
	for (int i = 0; i < 12345; i++)
		s += leaf(i) & 1;
	return s;
}
int down(int n) { return n ? down(n - 1) + 1 : 0; }
int is_odd(int n);
int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }
/* A symbol no C name could have: the report must escape it. */
int hostile(int x) __asm__("\"operator<<&a'b</td>\"");
int hostile(int x) { return leaf(x); }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += work(4);
	s += many();
	s += down(5);
	s += is_even(4);
	s += hostile(1);
	s += leaf(7);
	return s > 0 ? 0 : 1;
}
