/* s-ctor.c — a constructor and two exit handlers, each ending in a call
 * of free (a library function declared leaf, in tail position), run by
 * libc between instrumented code: tests/plugin-rt t041. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *keep[2];
static int ready;

__attribute__((constructor)) static void setup(void)
{
	char *p = malloc(8);
	strcpy(p, "ready");
	ready = strlen(p);
	free(p);
}

static void bye1(void) { free(keep[0]); }
static void bye2(void) { free(keep[1]); }

__attribute__((noinline)) int work(int n) { return n + ready; }

int main(void)
{
	keep[0] = malloc(4);
	keep[1] = malloc(4);
	atexit(bye1);
	atexit(bye2);
	printf("%d\n", work(37));
	fflush(stdout);
	exit(0);
}
