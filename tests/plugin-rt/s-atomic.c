/* Atomic operations are not calls (plugin-rt t038): C11's atomic_load &
 * co, GCC's __atomic_* and __sync_* builtins, in two threads. Only bump()
 * and main's calls of pthread_create, pthread_join and printf are. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static _Atomic long total;
static int flag;
static long plain;

static __attribute__((noinline)) void bump(long i)
{
	atomic_fetch_add_explicit(&total, i, memory_order_relaxed);
	if (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) == 0)
		__atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
	__sync_fetch_and_add(&plain, 1);
}

static void *work(void *arg)
{
	for (long i = 0; i < 1000; i++)
		bump(i);
	return arg;
}

int main(void)
{
	pthread_t th;
	if (pthread_create(&th, NULL, work, NULL))
		return 1;
	work(NULL);
	pthread_join(th, NULL);
	printf("%ld %ld %d\n", atomic_load(&total), __sync_add_and_fetch(&plain, 0), flag);
	return 0;
}
