/* s-o2.c — built at -O2: GCC inlines the recursion of release into itself
 * and tail-calls exit hooks; a setjmp loop calls run() five times from one
 * site, and each run longjmps back out of deep(). */
#include <setjmp.h>
#include <stdlib.h>
struct node { struct node *l, *r; };
static jmp_buf jb;
static struct node *make(int d)
{
	struct node *n = malloc(sizeof *n);
	n->l = d ? make(d - 1) : NULL;
	n->r = d ? make(d - 1) : NULL;
	return n;
}
static void release(struct node *n)
{
	if (n->l) {
		release(n->l);
		release(n->r);
	}
	free(n);
}
__attribute__((noinline)) void deep(int n) { if (n <= 0) longjmp(jb, 1); deep(n - 1); __asm__ volatile(""); }
__attribute__((noinline)) void run(int n) { deep(n); __asm__ volatile(""); }
int main(void)
{
	release(make(10));          /* 2047 nodes */
	volatile int i;
	for (i = 0; i < 5; i++)
		if (setjmp(jb) == 0)
			run(i);
	return 0;
}
