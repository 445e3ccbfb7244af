/* s-loops.c — calls in loops: main calls f 10 times, f(i) calls g i times,
 * main then calls g 3 times itself. */
int g(int x) { return x + 1; }
int f(int n) { int s = 0; for (int i = 0; i < n; i++) s += g(i); return s; }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += f(i);
	for (int j = 0; j < 3; j++)
		s += g(j);
	return s == 171 ? 0 : 1;
}
