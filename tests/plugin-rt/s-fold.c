/* s-fold.c — recursion folding off the creation chain: f -> g -> f (folded
 * into f's first pd) -> h -> g, where g is active but was not made by
 * anything on h's chain: v1 and v2 alike fold it into g's first pd. */
#include <stdio.h>
int g(int n);
int h(int n) { return g(n - 1) + 1; }
int f(int n) { return n <= 0 ? 0 : n == 2 ? h(n) : g(n); }
int g(int n) { return f(n - 1) + 1; }
int main(void) { printf("%d\n", f(5)); return 0; }
