/*
 * threads.c — the dependence check in a program with threads and longjmp
 * (tests/check/run.py t007): pair() runs work() on two halves of an
 * array, three times on each of three threads, twice on the main thread,
 * and with an argument once more with work() leaving by longjmp. Prints a
 * checksum. Part of deepprof's tests. MIT licence.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#define N 200000
static jmp_buf jb;
void work(int *v, int lo, int hi, int bail)
{
	for (int p = 0; p < 8; p++)
		for (int i = lo; i < hi; i++)
			v[i] += i ^ p;
	if (bail)
		longjmp(jb, 1);
}
void pair(int *v, int bail)
{
	work(v, 0, N / 2, 0);
	work(v, N / 2, N, bail);
}
static void *thr(void *arg)
{
	int *v = calloc(N, sizeof(int));
	for (int k = 0; k < 3; k++)
		pair(v, 0);
	free(v);
	return arg;
}
int main(int argc, char **argv)
{
	int *v = calloc(N, sizeof(int));
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, thr, NULL);
	pair(v, 0);
	if (argc > 1 && !setjmp(jb))
		pair(v, 1);
	pair(v, 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	pid_t pid = fork();
	if (pid == 0) {
		pair(v, 0);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	long s = 0;
	for (int i = 0; i < N; i++)
		s += v[i];
	printf("%ld\n", s);
	return 0;
}
