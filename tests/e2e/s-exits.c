/* s-exits.c — ends as argv[1] says: "ret" returns from main, "exit" calls
 * exit(5), "_exit" _exit(3), "_Exit" _Exit(6), "quick" quick_exit(4);
 * before that, main calls leaf() 10 times and registers at_end() with
 * atexit (it calls leaf() 5 times), and a destructor calls leaf() once.
 * "vfork": a vfork child calls leaf() and _exit(0) (it must not write the
 * parent's profile); "fork": 3 forked children call leaf() and _exit(0),
 * each writing its own profile as exit() would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
volatile int sink;
__attribute__((noinline)) int leaf(int x) { return x + sink; }
__attribute__((noinline)) void at_end(void) { for (int i = 0; i < 5; i++) sink += leaf(i); }
__attribute__((destructor)) static void dtor(void) { sink += leaf(100); }
int main(int argc, char **argv)
{
	atexit(at_end);
	for (int i = 0; i < 10; i++)
		sink += leaf(i);
	const char *how = argc > 1 ? argv[1] : "";
	fflush(stdout);
	if (!strcmp(how, "vfork") || !strcmp(how, "fork")) {
		for (int i = 0; i < (*how == 'v' ? 1 : 3); i++) {
			pid_t p = *how == 'v' ? vfork() : fork();
			if (p == 0) {
				sink += leaf(i);
				_exit(0);
			}
			waitpid(p, NULL, 0);
		}
	}
	if (!strcmp(how, "_exit"))
		_exit(3);
	if (!strcmp(how, "_Exit"))
		_Exit(6);
	if (!strcmp(how, "quick"))
		quick_exit(4);
	if (!strcmp(how, "exit"))
		exit(5);
	return 0;
}
