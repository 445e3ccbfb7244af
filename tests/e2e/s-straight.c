/* s-straight.c — straight-line calls: main -> a -> {b -> c, c}, main -> b -> c. */
void c(void) {}
void b(void) { c(); }
void a(void) { b(); c(); }
int main(void) { a(); b(); return 0; }
