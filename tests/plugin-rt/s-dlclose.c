/* s-dlclose.c — loads the library argv[1] (s-mf-lib.c built with
 * deepprof-cc) with dlopen, calls lib_sum(10) and lib_twice(square, 3),
 * and dlcloses it, three times: the profile is written at exit, when the
 * library's tables are unmapped. Prints the sum. */
#include <dlfcn.h>
#include <stdio.h>
int square(int x) { return x * x; }
static int round_trip(const char *path)
{
	void *h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return -1000000;
	}
	int (*sum)(int) = (int (*)(int))dlsym(h, "lib_sum");
	int (*twice)(int (*)(int), int) = (int (*)(int (*)(int), int))dlsym(h, "lib_twice");
	int s = sum(10) + twice(square, 3);
	dlclose(h);
	return s;
}
int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 3 && argc > 1; i++)
		s += round_trip(argv[1]);
	printf("%d\n", s);
	return 0;
}
