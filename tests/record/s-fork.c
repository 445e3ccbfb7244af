/* s-fork.c — main burns in before(), forks; the child burns in
 * child_work() and exits 0, the parent in parent_work() and waits. With
 * "exec", the parent then executes itself with "again" (again_work()). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
volatile unsigned long sink;
__attribute__((noinline)) void burn(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	sink = x;
}
__attribute__((noinline)) void before(void) { burn(60000000ul); }
__attribute__((noinline)) void child_work(void) { burn(120000000ul); }
__attribute__((noinline)) void parent_work(void) { burn(60000000ul); }
__attribute__((noinline)) void again_work(void) { burn(80000000ul); }
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "again")) {
		again_work();
		printf("again\n");
		return 0;
	}
	before();
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		child_work();
		exit(0);
	}
	parent_work();
	int st;
	waitpid(pid, &st, 0);
	printf("child %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "exec")) {
		char *args[] = { argv[0], "again", NULL };
		execv("/proc/self/exe", args);
		perror("execv");
		return 1;
	}
	return 0;
}
