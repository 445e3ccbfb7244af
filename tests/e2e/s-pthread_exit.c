/* s-pthread_exit.c — a thread's start routine calls f, which calls g, which
 * calls pthread_exit; main joins it and then calls h. */
#include <pthread.h>
void g(void) { pthread_exit(NULL); }
void f(void) { g(); }
void *start(void *arg) { (void)arg; f(); return NULL; }
void h(void) {}
int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, start, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	h();
	return 0;
}
