/* A thread pool in a library built without deepprof: it makes its own
 * threads and calls back into the program on them. */
#include <pthread.h>

struct job {
	void (*fn)(int);
	int n;
};

static void *worker(void *p)
{
	struct job *j = p;
	for (int i = 0; i < j->n; i++)
		j->fn(i);
	return NULL;
}

void pool_run(void (*fn)(int), int threads, int n)
{
	pthread_t t[8];
	struct job j = { fn, n };
	if (threads > 8)
		threads = 8;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, &j);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
}
