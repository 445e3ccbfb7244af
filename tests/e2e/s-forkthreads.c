/* s-forkthreads.c — fork while two other threads are alive: each worker
 * calls work() 5 times and waits; main forks; the child calls b() twice and
 * exits; the parent lets the workers finish. Prints the child's pid. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, go;
static volatile int sink;
void work(void) { sink++; }
void b(void) { sink++; }
void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++)
		work();
	pthread_mutex_lock(&mu);
	ready++;
	pthread_cond_broadcast(&cv);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}
int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	pthread_mutex_lock(&mu);
	while (ready < 2)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 2; i++)
			b();
		exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%d\n", (int)pid);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
