/* v-serve.c — the serve suite's program, with known counts: leaf runs in
 * three contexts that only two call sites tell apart (main > small > leaf,
 * main > wrap > small > leaf, main > big > leaf, this one twice), at very
 * different costs per call (1 unit call, or 100); fib(10) is a recursive
 * clique (177 calls). With an argument it calls big first and fib(12), so
 * a second run numbers its nodes differently and costs more. leaf and unit
 * live in v-lib.c, the module the exclusion test leaves below the contour.
 * Part of deepprof's tests. MIT licence. */
#include <string.h>

void leaf(int n);       /* v-lib.c, with unit() */
void small(void) { leaf(1); }
void wrap(void) { small(); }
void big(void) { leaf(100); }
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(int argc, char **argv)
{
	int again = argc > 1 && !strcmp(argv[1], "again");

	if (again)
		big();
	small();
	wrap();
	for (int i = 0; i < 2; i++)
		big();
	return fib(again ? 12 : 10) > 0 ? 0 : 1;
}
