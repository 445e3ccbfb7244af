/* s-loader.c — profile writes from the SIGTERM handler and the dynamic
 * loader. "lock": a thread (SIGTERM blocked) sits inside dl_iterate_phdr's
 * callback, holding the loader's lock, while main waits for SIGTERM: the
 * handler's write must not need that lock. "dlopen LIB": main loads LIB (an
 * instrumented library) after start-up and calls its lib_work(), then waits:
 * the write must name LIB's module. */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int holding;

static int hold_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info; (void)size; (void)data;
	__atomic_store_n(&holding, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
	return 0;
}

static void *holder(void *arg)
{
	(void)arg;
	dl_iterate_phdr(hold_cb, NULL);
	return NULL;
}

void wait_here(void)
{
	if (write(1, "ready\n", 6) != 6)
		_exit(9);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "lock") == 0) {
		sigset_t set, old;
		pthread_t t;
		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &set, &old);
		if (pthread_create(&t, NULL, holder, NULL) != 0)
			return 8;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		while (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
			usleep(1000);
	} else if (argc > 2 && strcmp(argv[1], "dlopen") == 0) {
		void *h = dlopen(argv[2], RTLD_NOW);
		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 7;
		}
		int (*work)(int) = (int (*)(int))dlsym(h, "lib_work");
		if (!work || work(3) != 6)
			return 6;
	}
	wait_here();
	return 0;
}
