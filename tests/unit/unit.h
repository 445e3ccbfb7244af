/*
 * unit.h — how a CUnit suite registers itself with the unit runner
 * (tests/unit/unit_main.c), so adding tests/unit/test_foo.c needs no edit
 * anywhere else. Part of deepprof's tests. MIT licence.
 *
 *	static void test_sum(void) { CU_ASSERT_EQUAL(sum(2, 2), 4); }
 *	static void test_neg(void) { ... }
 *	DPA_TEST_SUITE(sum, DPA_TEST(test_sum), DPA_TEST(test_neg));
 *
 * DPA_TEST_SUITE_FIXTURE(name, init, cleanup, cases...) adds CUnit's suite
 * init/cleanup functions (int f(void), 0 on success).
 */
#ifndef DPA_UNIT_H
#define DPA_UNIT_H

#include <CUnit/CUnit.h>

struct dpa_test_case {
	const char *name;
	void (*fn)(void);
};

struct dpa_test_suite {
	const char *name;
	const struct dpa_test_case *cases;  /* ends with { NULL, NULL } */
	int (*init)(void);
	int (*cleanup)(void);
	struct dpa_test_suite *next;        /* runner's list; set by register */
};

/* Called from constructors, before main(): links s into the runner's list. */
void dpa_test_register(struct dpa_test_suite *s);

/* The directory where the unit build keeps its fixtures (built programs,
 * generated files): $DPA_UNIT_DIR, or the one the Makefile compiled in. */
const char *dpa_test_dir(void);

/* A scratch directory for this run (made on first call, removed with
 * everything in it when the runner exits), or NULL if it cannot be made. */
const char *dpa_test_tmpdir(void);

/* dpa_test_tmpdir()/name in a static buffer (overwritten by the next call). */
const char *dpa_test_path(const char *name);

#define DPA_TEST(fn) { #fn, fn }

#define DPA_TEST_SUITE_FIXTURE(sname, init_fn, cleanup_fn, ...)                  \
	static const struct dpa_test_case sname##_test_cases[] = {               \
		__VA_ARGS__, { NULL, NULL } };                                   \
	static struct dpa_test_suite sname##_test_suite = {                      \
		#sname, sname##_test_cases, init_fn, cleanup_fn, NULL };          \
	__attribute__((constructor)) static void sname##_test_register(void)      \
	{                                                                         \
		dpa_test_register(&sname##_test_suite);                          \
	}

#define DPA_TEST_SUITE(sname, ...) DPA_TEST_SUITE_FIXTURE(sname, NULL, NULL, __VA_ARGS__)

#endif
