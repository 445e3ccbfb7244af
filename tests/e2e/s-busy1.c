/* s-busy1.c — a tight loop of calls, to be killed at a random moment. */
#include <unistd.h>
static volatile unsigned long sink;
void work(int x) { sink += (unsigned long)x; }
void loop(void)
{
	if (write(1, "ready\n", 6) != 6)
		return;
	for (int i = 0;; i++)
		work(i);
}
int main(void) { loop(); return 0; }
