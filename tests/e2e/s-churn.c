/* s-churn.c — a thread per request: N threads, K at a time, each running
 * run -> work -> leaf (work(100 + k) calls leaf 100 + k times). The profile
 * keeps every thread's graph; what an ended thread needs no more (its
 * shadow stack, outer[], search stack) is given back and reused. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

int leaf(int x) { return x * 7 + 1; }
int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += leaf(i); return s; }
static void *run(void *arg) { return (void *)(long)work((int)(long)arg); }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3000, k = argc > 2 ? atoi(argv[2]) : 4;
	long total = 0;
	if (k < 1 || k > 16 || n % k)
		return 2;
	for (int i = 0; i < n; i += k) {
		pthread_t t[16];
		for (int j = 0; j < k; j++)
			if (pthread_create(&t[j], NULL, run, (void *)(long)(100 + j)) != 0)
				return 3;
		for (int j = 0; j < k; j++) {
			void *r;
			pthread_join(t[j], &r);
			total += (long)r;
		}
	}
	printf("%ld\n", total);
	return 0;
}
