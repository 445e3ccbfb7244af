/* s-spinlib.c — a library built without deepprof (tests/record t_unwind_plugin):
 * its thread spends most of its time in its own loop, spin(), and calls
 * back into the program between rounds. Part of deepprof's tests. MIT licence. */
#include <pthread.h>

static volatile unsigned long lib_sink;

__attribute__((noinline)) static void spin(unsigned long n)
{
	unsigned long x = lib_sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	lib_sink = x;
}

struct job {
	void (*fn)(int);
	int rounds;
	unsigned long n;
};

__attribute__((noinline)) static void *worker(void *p)
{
	struct job *j = p;
	for (int i = 0; i < j->rounds; i++) {
		spin(j->n);
		j->fn(i);
	}
	return NULL;
}

void spin_run(void (*fn)(int), int rounds, unsigned long n)
{
	struct job j = { fn, rounds, n };
	pthread_t t;
	if (pthread_create(&t, NULL, worker, &j) == 0)
		pthread_join(t, NULL);
}
