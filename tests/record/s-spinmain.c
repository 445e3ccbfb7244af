/* s-spinmain.c — an instrumented program (tests/record t_unwind_plugin)
 * whose callback, task(), is cheap: the time of the library thread that
 * calls it is the library's own (s-spinlib.c). Part of deepprof's tests.
 * MIT licence. */
#include <stdio.h>

void spin_run(void (*fn)(int), int rounds, unsigned long n);

static unsigned long done;

static void task(int i)
{
	done += (unsigned long)i;
}

int main(void)
{
	spin_run(task, 40, 10000000ul);
	printf("%lu\n", done);
	return 0;
}
