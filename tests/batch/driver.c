/*
 * driver.c — deepprof-batch: the deepprof command (feedback/main.c, compiled
 * in unchanged) with `merge` and `diff` routed to cmd_merge/cmd_diff, for
 * check-batch to use while those are not yet in main.c's subcommand table.
 * Part of deepprof's tests. MIT licence.
 */
#include <string.h>

#define main dp_deepprof_main
#include "../../feedback/main.c"
#undef main

int dp_deepprof_main(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_diff(int argc, char **argv);

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "merge"))
		return cmd_merge(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "diff"))
		return cmd_diff(argc - 1, argv + 1);
	return dp_deepprof_main(argc, argv);
}
