/* p3.c — plugin test for calls=surviving: ai() is always inlined, g() never. */
__attribute__((noinline)) int g(int x) { return x * 2; }
static inline __attribute__((always_inline)) int ai(int x) { return g(x) + 1; }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += ai(i);
	return s - 9;
}
