/* s-spawn.c — run with no argument, starts itself as "child" twice: through
 * system() (a shell) and through posix_spawn(), the execs glibc makes
 * without the program's own execve (tests/record t_spawn). Each process
 * burns CPU in its own function. Part of deepprof's tests. MIT licence. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;
static volatile unsigned long sink;

__attribute__((noinline)) void parent_burn(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) void child_burn(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i ^ (i >> 3);
}

int main(int argc, char **argv)
{
	char cmd[4096];
	pid_t pid;
	int st = 0;

	if (argc > 1 && !strcmp(argv[1], "child")) {
		child_burn(100000000ul);
		return 0;
	}
	parent_burn(100000000ul);
	snprintf(cmd, sizeof cmd, "'%s' child", argv[0]);
	if (system(cmd) != 0)
		return 1;
	char *av[] = { argv[0], "child", NULL };
	if (posix_spawn(&pid, argv[0], NULL, NULL, av, environ) != 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	printf("%d\n", st);
	return 0;
}
