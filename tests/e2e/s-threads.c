/* s-threads.c — 4 threads with different work: thread i runs worker, which
 * calls work(i), which calls unit() 10*(i+1) times; main calls unit() 5 times. */
#include <pthread.h>
#include <stdint.h>
static volatile long sink;
void unit(void) { sink++; }
void work(int i) { for (int k = 0; k < 10 * (i + 1); k++) unit(); }
void *worker(void *arg) { work((int)(intptr_t)arg); return NULL; }
int main(void)
{
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) != 0)
			return 1;
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (int k = 0; k < 5; k++)
		unit();
	return 0;
}
