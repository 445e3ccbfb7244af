/*
 * demo.c — the example `make demo` profiles: a small expression calculator.
 * A recursive-descent parser (a clique of mutually recursive functions), a
 * tree of malloc'd nodes, operators dispatched through function pointers, a
 * recursive built-in (fib) and a qsort comparator (a callback from libc);
 * then two independent costly statistics, one after the other: the
 * parallelism candidate `deepprof feedback` recommends, and that the use
 * build (deepprof-cc --deepprof-use) runs as two OpenMP tasks. Nothing
 * declares them const: GCC's own analyses prove it in the use build.
 * Part of deepprof's tests. MIT licence.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the statistics' sizes: about the same cost each (~0.2 s at -O2) */
enum { COLLATZ_N = 900000, PRIMES_N = 1200000 };

/* ---- the tree ------------------------------------------------------------ */

enum kind { NUM, BINOP, NEG, CALL };

typedef long (*binop_fn)(long, long);

struct node {
	enum kind kind;
	long value;             /* NUM */
	binop_fn op;            /* BINOP */
	const struct builtin *fn;  /* CALL */
	struct node *a, *b;     /* operands; CALL: a is the argument */
};

struct builtin {
	const char *name;
	long (*fn)(long);
};

static struct node *node_new(enum kind kind, struct node *a, struct node *b)
{
	struct node *n = calloc(1, sizeof(*n));
	if (!n) {
		fputs("demo: out of memory\n", stderr);
		exit(1);
	}
	n->kind = kind;
	n->a = a;
	n->b = b;
	return n;
}

static void node_free(struct node *n)
{
	if (!n)
		return;
	node_free(n->a);
	node_free(n->b);
	free(n);
}

/* ---- operators and built-ins, reached through function pointers --------- */

static long op_add(long x, long y) { return x + y; }
static long op_sub(long x, long y) { return x - y; }
static long op_mul(long x, long y) { return x * y; }
static long op_div(long x, long y) { return y ? x / y : 0; }
static long op_mod(long x, long y) { return y ? x % y : 0; }

static long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static long sq(long n) { return n * n; }

static long collatz(long n)
{
	long steps = 0;
	while (n > 1) {
		n = n % 2 ? 3 * n + 1 : n / 2;
		steps++;
	}
	return steps;
}

static const struct builtin builtins[] = {
	{ "fib", fib },
	{ "sq", sq },
	{ "collatz", collatz },
};

static binop_fn op_for(char c)
{
	switch (c) {
	case '+': return op_add;
	case '-': return op_sub;
	case '*': return op_mul;
	case '/': return op_div;
	case '%': return op_mod;
	}
	return NULL;
}

/* ---- statistics: two independent costly computations -------------------- */

static int is_prime(long n)
{
	for (long d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return n >= 2;
}

/* The collatz steps of 1..upto, in total. Reads and writes no memory but
 * its own locals (GCC finds it const): independent of primes_below(). */
static long collatz_total(long upto)
{
	long t = 0;

	for (long n = 1; n <= upto; n++)
		t += collatz(n);
	return t;
}

/* How many primes are below m (const, like collatz_total()). */
static long primes_below(long m)
{
	long c = 0;

	for (long n = 2; n < m; n++)
		c += is_prime(n);
	return c;
}

/* ---- the parser: expr -> term -> unary -> primary -> expr ---------------- */

struct parser {
	const char *s;
	const char *err;        /* first error, or NULL */
};

static struct node *parse_expr(struct parser *p);

static char peek(struct parser *p)
{
	while (isspace((unsigned char)*p->s))
		p->s++;
	return *p->s;
}

/* Records the first error; frees the partial tree the caller owned and gives
 * back a placeholder so parsing can unwind normally. */
static struct node *fail(struct parser *p, const char *msg, struct node *partial)
{
	node_free(partial);
	if (!p->err)
		p->err = msg;
	return node_new(NUM, NULL, NULL);
}

static struct node *parse_call(struct parser *p)
{
	const char *start = p->s;
	size_t len = 0;
	while (isalpha((unsigned char)p->s[len]))
		len++;
	p->s += len;
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		if (strlen(builtins[i].name) == len && !strncmp(builtins[i].name, start, len)) {
			if (peek(p) != '(')
				return fail(p, "expected '(' after a function name", NULL);
			p->s++;
			struct node *n = node_new(CALL, parse_expr(p), NULL);
			n->fn = &builtins[i];
			if (peek(p) != ')')
				return fail(p, "expected ')'", n);
			p->s++;
			return n;
		}
	}
	return fail(p, "unknown function", NULL);
}

static struct node *parse_primary(struct parser *p)
{
	char c = peek(p);
	if (isdigit((unsigned char)c)) {
		struct node *n = node_new(NUM, NULL, NULL);
		n->value = strtol(p->s, (char **)&p->s, 10);
		return n;
	}
	if (c == '(') {
		p->s++;
		struct node *n = parse_expr(p);
		if (peek(p) != ')')
			return fail(p, "expected ')'", n);
		p->s++;
		return n;
	}
	if (isalpha((unsigned char)c))
		return parse_call(p);
	return fail(p, "expected a number, '(' or a function", NULL);
}

static struct node *parse_unary(struct parser *p)
{
	if (peek(p) == '-') {
		p->s++;
		return node_new(NEG, parse_unary(p), NULL);
	}
	return parse_primary(p);
}

static struct node *parse_term(struct parser *p)
{
	struct node *n = parse_unary(p);
	for (char c = peek(p); c == '*' || c == '/' || c == '%'; c = peek(p)) {
		p->s++;
		n = node_new(BINOP, n, parse_unary(p));
		n->op = op_for(c);
	}
	return n;
}

static struct node *parse_expr(struct parser *p)
{
	struct node *n = parse_term(p);
	for (char c = peek(p); c == '+' || c == '-'; c = peek(p)) {
		p->s++;
		n = node_new(BINOP, n, parse_term(p));
		n->op = op_for(c);
	}
	return n;
}

/* ---- evaluation ----------------------------------------------------------- */

static long eval(const struct node *n)
{
	switch (n->kind) {
	case NUM: return n->value;
	case NEG: return -eval(n->a);
	case BINOP: return n->op(eval(n->a), eval(n->b));
	case CALL: return n->fn->fn(eval(n->a));
	}
	return 0;
}

struct result {
	const char *text;
	long value;
};

static int by_value(const void *x, const void *y)
{
	const struct result *a = x, *b = y;
	return (a->value > b->value) - (a->value < b->value);
}

int main(void)
{
	static const char *const inputs[] = {
		"1 + 2 * 3",
		"(1 + 2) * 3 - -4",
		"fib(20)",
		"sq(fib(10)) % 1000",
		"collatz(27) + collatz(97)",
		"((((7))))*((((6))))",
		"100 / (5 - 5)",
		"2 * (3 + ",
	};
	enum { N = sizeof(inputs) / sizeof(inputs[0]) };
	struct result results[N];
	int n = 0;

	for (int i = 0; i < N; i++) {
		struct parser p = { inputs[i], NULL };
		struct node *tree = parse_expr(&p);
		if (!p.err && peek(&p) != '\0')
			p.err = "trailing input";
		if (p.err) {
			printf("%-28s error: %s\n", inputs[i], p.err);
		} else {
			results[n] = (struct result){ inputs[i], eval(tree) };
			printf("%-28s = %ld\n", inputs[i], results[n].value);
			n++;
		}
		node_free(tree);
	}

	qsort(results, n, sizeof(results[0]), by_value);
	printf("largest: %s = %ld\n", results[n - 1].text, results[n - 1].value);

	/* two costly calls that share nothing: they could run in parallel */
	long steps = collatz_total(COLLATZ_N);
	long primes = primes_below(PRIMES_N);
	printf("collatz steps of 1..%d: %ld; primes below %d: %ld\n", COLLATZ_N, steps, PRIMES_N,
	       primes);
	return 0;
}
