/* s-mutual.c — mutual recursion: is_even(n) / is_odd(n), n from argv[1]. */
#include <stdio.h>
#include <stdlib.h>
int is_odd(int n);
int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }
int main(int argc, char **argv) { printf("%d\n", is_even(argc > 1 ? atoi(argv[1]) : 1001)); return 0; }
