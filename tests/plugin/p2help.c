/* p2help.c — plugin test: the executable's second translation unit. */
int helper(int x) { return x * x; }
