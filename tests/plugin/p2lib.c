/* p2lib.c — plugin test: a shared library with a loop calling through a pointer. */
int lib_sum(int n, int (*cb)(int))
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += cb(i);
	return s;
}
