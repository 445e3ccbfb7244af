/* Three threads of an uninstrumented library's pool call task() ten times
 * each; task calls leaf() once per call. */
#include <stdio.h>

void pool_run(void (*fn)(int), int threads, int n);

static int sink;	/* three threads add to it: atomically, or a lost update
			 * makes the output 128 instead of 135 (seen in CI) */
static void leaf(int i) { __atomic_fetch_add(&sink, i, __ATOMIC_RELAXED); }
static void task(int i) { leaf(i); }

int main(void)
{
	pool_run(task, 3, 10);
	printf("%d\n", __atomic_load_n(&sink, __ATOMIC_RELAXED));
	return 0;
}
