/*
 * loops.c — the program check-install builds with the installed deepprof-cc
 * (GCC plugin mode): main's loop calls leaf 4 times, leaf(i) loops i times,
 * so back-edge ticks are known exactly (main: 4, leaf: 0+1+2+3 = 6).
 * Part of deepprof's tests. MIT licence.
 */
static int leaf(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++)
		s += i;
	return s;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 4; i++)
		s += leaf(i);
	return s == 4 ? 0 : 1;  /* 0 + 0 + 1 + 3 */
}
