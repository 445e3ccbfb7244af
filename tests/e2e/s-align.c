/* s-align.c — over-aligned locals: GCC realigns f's frame, so the distance
 * from f's stack pointer to its frame address changes with the depth it is
 * called at. rec(20) calls f at every level; f calls leaf. */
#include <string.h>
static volatile int sink;
__attribute__((noinline)) void leaf(char *p) { sink += p[0]; }
__attribute__((noinline)) void f(int n)
{
	_Alignas(64) char buf[64];
	memset(buf, n, sizeof buf);
	leaf(buf);
}
__attribute__((noinline)) void rec(int n)
{
	volatile char pad[8 * (1 + n % 3)];
	pad[0] = (char)n;
	f(n);
	if (n > 0)
		rec(n - 1);
}
int main(void) { rec(20); return 0; }
