/* defs.c — check-progrep fixture: the callees of flow.c and a main, so
 * that the two link into a program (a second TU in one module). */
void abort(void);
extern int glob;
int f1(int x) { return x + 1; }
int f2(int x) { return x * 2; }
int g(int x) { return x - 3; }
void take(int *p) { if (p) *p += 1; }
__attribute__((const)) int kf(int x) { return x * 5; }
__attribute__((pure)) int pf(const int *p) { return *p; }
int branch(int c);
int loop(int n);
int through(int (*fp)(int), int v);
int main(int argc, char **argv) { (void)argv; return branch(argc) + loop(2) + through(f1, argc) == 7; }
void heavy(int x) { glob += x; }
void fill2(int *d, const int *s) { *d = *s; }
