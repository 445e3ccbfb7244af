/* s-fork.c — fork: main calls a() twice, forks; the child calls b() 3 times
 * and exits; the parent waits, then calls c() once. Prints the child's pid. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
void a(void) {}
void b(void) {}
void c(void) {}
int main(void)
{
	for (int i = 0; i < 2; i++)
		a();
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		for (int i = 0; i < 3; i++)
			b();
		exit(0);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 2;
	c();
	printf("%d\n", (int)pid);
	return 0;
}
