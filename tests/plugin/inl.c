/* inl.c — the shapes of calls plain GCC inlines at -O2 in an interpreter
 * (gawk's builtin.c and eval.c): a cold argument check, a wrapper passed
 * as a function pointer, a stack pop with a check, a field accessor. */
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>

struct node { int flags; long a, b; };
struct stack { struct node *v[64]; int n; };

static void fail(const char *what, int n)
{
	fprintf(stderr, "%s: called with %d arguments\n", what, n);
	exit(2);
}

static void check_args(int nargs, const char *fname, int count)
{
	if (nargs != count)
		fail(fname, nargs);
}

static int is_low(int c) { return islower(c); }
static int to_up(int c) { return toupper(c); }

static int change_case(char *s, int (*is)(int), int (*to)(int))
{
	int k = 0;
	for (; *s; s++)
		if (is((unsigned char)*s)) {
			*s = (char)to((unsigned char)*s);
			k++;
		}
	return k;
}

static struct node *pop(struct stack *st)
{
	if (st->n <= 0) {
		fputs("stack underflow\n", stderr);
		abort();
	}
	return st->v[--st->n];
}

static long value(const struct node *n)
{
	return (n->flags & 3) ? n->a : n->b;
}

int do_upper(int nargs, char *s)
{
	check_args(nargs, "toupper", 1);
	return change_case(s, is_low, to_up);
}

long do_sum(int nargs, struct stack *st)
{
	long t = 0;
	check_args(nargs, "sum", 2);
	while (st->n)
		t += value(pop(st));
	return t;
}

long do_first(int nargs, struct stack *st)
{
	check_args(nargs, "first", 1);
	return value(pop(st));
}

int main(int argc, char **argv)
{
	char s[] = "hello, World";
	struct node n[3] = { { 1, 10, 20 }, { 0, 30, 40 }, { 2, 50, 60 } };
	struct stack st = { { &n[0], &n[1], &n[2] }, 3 };
	int k = do_upper(argc, s);
	long f = do_first(argc, &st);
	long t = do_sum(argc + 1, &st);
	printf("%s %d %ld %ld\n", s, k, f, t);
	(void)argv;
	return 0;
}
