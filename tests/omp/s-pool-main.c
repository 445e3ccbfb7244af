/* Three threads of an uninstrumented library's pool call task() ten times
 * each; task calls leaf() once per call. */
#include <stdio.h>

void pool_run(void (*fn)(int), int threads, int n);

static volatile int sink;
static void leaf(int i) { sink += i; }
static void task(int i) { leaf(i); }

int main(void)
{
	pool_run(task, 3, 10);
	printf("%d\n", sink);
	return 0;
}
