/* s-busy.c — exit() while two other threads are still making calls: main
 * waits until both run, then calls finish(), which exits. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
static volatile int running;
static volatile unsigned long sink;
void work(int x) { sink += (unsigned long)x; }
void *spin(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&running, 1, __ATOMIC_SEQ_CST);
	for (int i = 0;; i++)
		work(i);
	return NULL;
}
void finish(void) { exit(0); }
int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, spin, NULL) != 0)
			return 1;
	while (__atomic_load_n(&running, __ATOMIC_SEQ_CST) < 2)
		;
	struct timespec ts = { 0, 30 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	finish();
	return 0;
}
