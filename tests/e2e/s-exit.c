/* s-exit.c — exit(3) deep in the stack: main -> a -> b -> c -> exit; an
 * instrumented atexit handler bye runs first. */
#include <stdlib.h>
static volatile int seen;
void bye(void) { seen = 1; }
void c(void) { exit(3); }
void b(void) { c(); }
void a(void) { b(); }
int main(void) { atexit(bye); a(); return 0; }
