/* s-fnptr.c — one indirect call site calling three callees: f1 once, f2
 * twice, f3 three times. */
int f1(int x) { return x + 1; }
int f2(int x) { return x + 2; }
int f3(int x) { return x + 3; }
static int (*const table[3])(int) = { f1, f2, f3 };
static const int order[6] = { 0, 1, 1, 2, 2, 2 };
int main(void)
{
	int s = 0;
	for (int i = 0; i < 6; i++)
		s += table[order[i]](i);
	return s == 29 ? 0 : 1;
}
