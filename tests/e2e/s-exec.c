/* s-exec.c — calls leaf() 10 times, then as argv[1] says: "ok" execs
 * /bin/true (execv), "ok-l" with execl, "ok-le" with execle, "ok-lp" "true"
 * with execlp; "fail" execs a file that does not exist, calls leaf() once
 * more and returns; "vfork" a vfork child execs /bin/true (execvp) while
 * the parent waits, then returns. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
volatile int sink;
__attribute__((noinline)) int leaf(int x) { return x + sink; }
int main(int argc, char **argv)
{
	for (int i = 0; i < 10; i++)
		sink += leaf(i);
	const char *how = argc > 1 ? argv[1] : "";
	char *args[] = { "true", NULL };
	if (!strcmp(how, "ok"))
		execv("/bin/true", args);
	if (!strcmp(how, "ok-l"))
		execl("/bin/true", "true", (char *)NULL);
	if (!strcmp(how, "ok-le")) {
		char *env[] = { "A=1", NULL };
		execle("/bin/true", "true", (char *)NULL, env);
	}
	if (!strcmp(how, "ok-lp"))
		execlp("true", "true", (char *)NULL);
	if (!strcmp(how, "fail")) {
		execv("/nonexistent/deepprof-test", args);
		sink += leaf(10);
	}
	if (!strcmp(how, "vfork")) {
		pid_t p = vfork();
		if (p == 0) {
			execvp("true", args);
			_exit(127);
		}
		int st;
		waitpid(p, &st, 0);
		printf("%d\n", WEXITSTATUS(st));
	}
	return 0;
}
