/* s-ab.c — main -> left -> a and main -> right -> b, where a burns three
 * times the CPU b does: a sampled profile gives a about 75% of the time and
 * b about 25%, each in its own context. argv[1]: the work unit (default 1);
 * argv[2]: the exit status (99: die of SIGKILL). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void burn(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	sink = x;
}
__attribute__((noinline)) void a(unsigned long n) { burn(3 * n); }
__attribute__((noinline)) void b(unsigned long n) { burn(n); }
__attribute__((noinline)) void left(unsigned long n) { a(n); }
__attribute__((noinline)) void right(unsigned long n) { b(n); }
int main(int argc, char **argv)
{
	unsigned long n = (unsigned long)((argc > 1 ? atof(argv[1]) : 1.0) * 50000000.0);
	for (int i = 0; i < 4; i++) {   /* interleaved, so a drifting clock biases neither */
		left(n / 4);
		right(n / 4);
	}
	printf("%lu\n", sink & 1);
	if (argc > 2 && atoi(argv[2]) == 99)
		raise(SIGKILL);         /* dies without writing its profile */
	return argc > 2 ? atoi(argv[2]) : 0;
}
