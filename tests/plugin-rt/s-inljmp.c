/* Calls through bodies GCC inlines at -O2 (force, and DEREF within it and
 * beside it; both call out on a path), left by longjmp from a callee
 * below them: t042. */
#include <setjmp.h>
#include <stdio.h>

struct node { int valref; int flags; };
static jmp_buf jb;
static int freed;

__attribute__((noinline)) void r_unref(struct node *n)
{
	if (n->flags == 7)
		longjmp(jb, 1);
	freed++;
}

__attribute__((noinline)) void fix(struct node *n)
{
	n->flags |= 1;
}

static inline void DEREF(struct node *r)
{
	if (--r->valref > 0)
		return;
	r_unref(r);
}

static inline int force(struct node *r)
{
	if (r->flags & 1)
		return r->flags;
	fix(r);
	DEREF(r);
	return r->flags;
}

__attribute__((noinline)) int f(struct node *a, struct node *b)
{
	int x = force(a);
	DEREF(b);
	return x;
}

int main(void)
{
	struct node a = { 3, 0 }, b = { 1, 0 }, c = { 1, 7 };
	int s = 0;
	for (int i = 0; i < 10; i++) {
		a.valref = 3;
		a.flags = i & 1;
		b.valref = 1 + (i & 1);
		s += f(&a, &b);
	}
	if (!setjmp(jb)) {              /* left from DEREF(b) in f */
		a.valref = 1;
		a.flags = 0;
		c.valref = 1;
		f(&a, &c);
	}
	if (!setjmp(jb)) {              /* left from DEREF within force */
		c.valref = 1;
		c.flags = 6;
		f(&c, &b);
	}
	printf("%d %d\n", s, freed);
	return 0;
}
