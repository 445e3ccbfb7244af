/*
 * two-b.c — the other translation unit of tests/check/two-a.c: half()
 * updates v[lo, hi) through a static helper. Part of deepprof's tests.
 * MIT licence.
 */
static void step(int *v, int i, int p)
{
	v[i] = (v[i] * 7 + i + p) & 0xffff;
}

void half(int *v, int lo, int hi)
{
	for (int p = 0; p < 8; p++)
		for (int i = lo; i < hi; i++)
			step(v, i, p);
}
