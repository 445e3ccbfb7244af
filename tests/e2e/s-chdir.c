/* s-chdir.c — calls leaf() once, moves to the directory argv[1] (as a
 * daemon moves to / or fts to the tree it walks), calls leaf() twice. */
#include <stdio.h>
#include <unistd.h>
volatile int sink;
void leaf(int x) { sink += x; }
int main(int argc, char **argv)
{
	leaf(1);
	if (argc > 1 && chdir(argv[1]) != 0) {
		perror(argv[1]);
		return 1;
	}
	leaf(2);
	leaf(3);
	return 0;
}
