/* s-hooks.c — where the profiler's own time goes: calls() makes nothing but
 * calls of an empty function, so most of its CPU is spent in libprof's
 * hooks; loop() spins without a call, so none of its is. Each runs for
 * argv[1] ms of CPU. */
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) void tiny(void) { }
static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
void calls(double ms)
{
	double end = cpu_ms() + ms;
	while (cpu_ms() < end)
		for (int i = 0; i < 100000; i++)
			tiny();
}
void loop(double ms)
{
	double end = cpu_ms() + ms;
	while (cpu_ms() < end)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * i;
}
int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;
	calls(ms);
	loop(ms);
	return 0;
}
