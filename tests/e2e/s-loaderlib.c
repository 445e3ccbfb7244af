/* s-loaderlib.c — the library s-loader.c loads with dlopen. */
static int twice(int x) { return 2 * x; }
int lib_work(int x) { return twice(x); }
