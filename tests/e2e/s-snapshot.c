/* s-snapshot.c — dp_write(): main calls f twice; f calls leaf and, the first
 * time, writes a snapshot to argv[1]; then dp_write into a missing directory
 * must fail with -1 and one message. */
#include <stdio.h>
#include <deepprof.h>
static int first = 1;
int leaf(int x) { return x + 1; }
void f(const char *path)
{
	leaf(1);
	if (first) {
		first = 0;
		printf("snapshot %d\n", dp_write(path));
	}
}
int main(int argc, char **argv)
{
	for (int i = 0; i < 2; i++)
		f(argc > 1 ? argv[1] : NULL);
	printf("missing %d\n", dp_write("no/such/dir/x.data"));
	return 0;
}
