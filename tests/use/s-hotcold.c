/* A program with known hot and cold code: work() is costly and called 8
 * times; rescue() and its call site never run on the input the test gives
 * (argc 1); report() runs once. */
#include <stdio.h>

static volatile unsigned long sink;

unsigned long work(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * i % 7;
	return s;
}

void rescue(const char *why)
{
	fprintf(stderr, "rescue: %s\n", why);
	sink = 0;
}

void report(unsigned long s)
{
	printf("%lu\n", s);
}

int main(int argc, char **argv)
{
	unsigned long s = 0;
	for (int i = 0; i < 8; i++)
		s += work(2000000);
	if (argc > 1)
		rescue(argv[1]);
	report(s);
	return 0;
}
