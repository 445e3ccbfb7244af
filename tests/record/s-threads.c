/* s-threads.c — two threads: worker_a burns twice what worker_b does;
 * main burns a little itself and joins them. */
#include <pthread.h>
#include <stdio.h>
volatile unsigned long sink;
__attribute__((noinline)) void burn(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	sink = x;
}
__attribute__((noinline)) void *worker_a(void *arg) { (void)arg; burn(200000000ul); return NULL; }
__attribute__((noinline)) void *worker_b(void *arg) { (void)arg; burn(100000000ul); return NULL; }
int main(void)
{
	pthread_t x, y;
	pthread_create(&x, NULL, worker_a, NULL);
	pthread_create(&y, NULL, worker_b, NULL);
	burn(20000000ul);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	printf("done\n");
	return 0;
}
