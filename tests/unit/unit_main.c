/*
 * unit_main.c — the unit test runner: every suite that registered itself
 * through DPA_TEST_SUITE (unit.h) runs, in name order, under CUnit's basic
 * interface; the last line is "unit: N passed, N failed".
 * Usage: unit-tests [SUITE...]   (no argument: all suites)
 * Part of deepprof's tests. MIT licence.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/Basic.h>

#include "unit.h"

static struct dpa_test_suite *suites;

void dpa_test_register(struct dpa_test_suite *s)
{
	struct dpa_test_suite **pp = &suites;

	/* keep the list sorted by name: the run order does not depend on link order */
	while (*pp && strcmp((*pp)->name, s->name) < 0)
		pp = &(*pp)->next;
	s->next = *pp;
	*pp = s;
}

const char *dpa_test_dir(void)
{
	const char *d = getenv("DPA_UNIT_DIR");

	if (d && *d)
		return d;
#ifdef DPA_UNIT_DIR
	return DPA_UNIT_DIR;
#else
	return ".";
#endif
}

static char tmpdir[4096];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tmpdir(void)
{
	if (tmpdir[0])
		nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *dpa_test_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	if (tmpdir[0])
		return tmpdir;
	snprintf(tmpdir, sizeof(tmpdir), "%s/dpa-unit.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		tmpdir[0] = '\0';
		return NULL;
	}
	atexit(remove_tmpdir);
	return tmpdir;
}

const char *dpa_test_path(const char *name)
{
	static char buf[4096 + 256];
	const char *d = dpa_test_tmpdir();

	snprintf(buf, sizeof(buf), "%s/%s", d ? d : "/tmp", name);
	return buf;
}

static int wanted(const char *name, int argc, char **argv)
{
	if (argc <= 1)
		return 1;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned run, tfailed, failed, nsuites = 0;

	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "unit-tests: %s\n", CU_get_error_msg());
		return 2;
	}
	for (struct dpa_test_suite *s = suites; s; s = s->next) {
		CU_pSuite cs;

		if (!wanted(s->name, argc, argv))
			continue;
		cs = CU_add_suite(s->name, s->init, s->cleanup);
		if (!cs) {
			fprintf(stderr, "unit-tests: suite %s: %s\n", s->name, CU_get_error_msg());
			CU_cleanup_registry();
			return 2;
		}
		for (const struct dpa_test_case *c = s->cases; c->name; c++)
			if (!CU_add_test(cs, c->name, c->fn)) {
				fprintf(stderr, "unit-tests: %s.%s: %s\n", s->name, c->name,
					CU_get_error_msg());
				CU_cleanup_registry();
				return 2;
			}
		nsuites++;
	}
	if (argc > 1 && nsuites == 0) {
		fprintf(stderr, "unit-tests: no suite named %s\n", argv[1]);
		CU_cleanup_registry();
		return 2;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	run = CU_get_number_of_tests_run();
	tfailed = CU_get_number_of_tests_failed();
	/* a suite whose init failed runs none of its tests: count it as a failure */
	failed = tfailed + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	printf("\nunit: %u passed, %u failed\n", run - tfailed, failed);
	return failed ? 1 : 0;
}
