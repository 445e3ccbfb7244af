/* s-spin.c — CPU-bound: spin() burns CPU for argv[1] ms in step() calls. */
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
void step(void) { for (int i = 0; i < 1000; i++) sink += (unsigned long)i * i; }
static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
void spin(double ms) { double end = cpu_ms() + ms; while (cpu_ms() < end) step(); }
int main(int argc, char **argv) { spin(argc > 1 ? atof(argv[1]) : 400); return 0; }
