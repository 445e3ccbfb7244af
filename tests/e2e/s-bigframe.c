/* s-bigframe.c — a function with a 100 KB frame (too big for libprof to find
 * its return address) called 20000 times, calling leaf each time. */
static volatile int sink;
__attribute__((noinline)) void leaf(char *p) { sink += p[0]; }
__attribute__((noinline)) void big(int n)
{
	char buf[100000];
	buf[0] = (char)n;
	buf[99999] = 1;
	leaf(buf);
	sink += buf[99999];
}
int main(void)
{
	for (int i = 0; i < 20000; i++)
		big(i);
	return 0;
}
