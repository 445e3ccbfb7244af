/*
 * test_overheads.c — dpf_overheads_read() on hand-written calibration
 * files: a good one (every value and the source), and the bad ones (missing,
 * not JSON, another format, newer or no version, a value missing, negative or
 * not a number), each one line naming the file and leaving *ov untouched.
 * Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <string.h>

#include "unit.h"
#include "feedback.h"

#define GOOD_OV \
	"\"overheads\": {\"spawn_cost\": {\"ns\": 600.5, \"spread\": 3}," \
	" \"spawn_delay\": {\"ns\": 800}, \"barrier_cost\": {\"ns\": 80}," \
	" \"signal_cost\": {\"ns\": 7.25}, \"wait_cost\": {\"ns\": 0}," \
	" \"wakeup_delay\": {\"ns\": 120}}"

/* Write text into the scratch file name; its path (static buffer). */
static const char *file_with(const char *name, const char *text)
{
	const char *p = dpa_test_path(name);
	FILE *f = fopen(p, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static void test_good(void)
{
	struct dpf_overheads ov;
	struct dpa_error err = { "" };
	const char *p = file_with("good.json",
		"{\"format\": \"deepprof-calibration\", \"version\": 1, \"date\": \"x\", "
		GOOD_OV "}");
	char path[512];

	snprintf(path, sizeof(path), "%s", p);
	memset(&ov, 0, sizeof(ov));
	CU_ASSERT_EQUAL_FATAL(dpf_overheads_read(&ov, path, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(ov.spawn_cost, 600.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(ov.spawn_delay, 800, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(ov.barrier_cost, 80, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(ov.signal_cost, 7.25, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(ov.wait_cost, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(ov.wakeup_delay, 120, 1e-9);
	CU_ASSERT_STRING_EQUAL(ov.source, path);
}

/* Reading text must fail with one line that names the file and contains
 * `what`, and leave *ov as it was. */
static void expect_bad(const char *name, const char *text, const char *what)
{
	struct dpf_overheads ov, before;
	struct dpa_error err = { "" };
	char path[512];

	if (text)
		snprintf(path, sizeof(path), "%s", file_with(name, text));
	else
		snprintf(path, sizeof(path), "%s", dpa_test_path(name));
	memset(&ov, 0, sizeof(ov));
	ov.spawn_cost = 1;
	strcpy(ov.source, "defaults");
	before = ov;
	CU_ASSERT_EQUAL(dpf_overheads_read(&ov, path, &err), -1);
	CU_ASSERT_EQUAL(memcmp(&ov, &before, sizeof(ov)), 0);
	CU_ASSERT_EQUAL(strncmp(err.msg, path, strlen(path)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
	CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
	if (!strstr(err.msg, what))
		fprintf(stderr, "\n  %s: got \"%s\"\n", name, err.msg);
}

static void test_missing(void)
{
	expect_bad("nosuch.json", NULL, "cannot read the calibration file: No such file");
}

static void test_not_json(void)
{
	expect_bad("garbage.json", "spawn_cost = 600\n", "not JSON");
	expect_bad("empty.json", "", "not JSON");
	expect_bad("array.json", "[1, 2]", "not a calibration file");
}

static void test_wrong_format_or_version(void)
{
	expect_bad("fmt.json", "{\"format\": \"deepprof-feedback\", \"version\": 1, " GOOD_OV "}",
		   "not a calibration file");
	expect_bad("v2.json", "{\"format\": \"deepprof-calibration\", \"version\": 2, " GOOD_OV "}",
		   "version 2 is newer");
	expect_bad("v0.json", "{\"format\": \"deepprof-calibration\", \"version\": 0, " GOOD_OV "}",
		   "without a valid \"version\"");
	expect_bad("vs.json", "{\"format\": \"deepprof-calibration\", \"version\": \"1\", "
		   GOOD_OV "}", "without a valid \"version\"");
	expect_bad("noov.json", "{\"format\": \"deepprof-calibration\", \"version\": 1}",
		   "without \"overheads\"");
}

#define HEAD "{\"format\": \"deepprof-calibration\", \"version\": 1, \"overheads\": {" \
	"\"spawn_cost\": {\"ns\": 600}, \"spawn_delay\": {\"ns\": 800}, " \
	"\"barrier_cost\": {\"ns\": 80}, \"signal_cost\": {\"ns\": 7}, \"wait_cost\": {\"ns\": 9}, "

static void test_bad_values(void)
{
	expect_bad("neg.json", HEAD "\"wakeup_delay\": {\"ns\": -1}}}",
		   "wakeup_delay is not a finite non-negative");
	expect_bad("str.json", HEAD "\"wakeup_delay\": {\"ns\": \"120\"}}}",
		   "wakeup_delay is not a finite non-negative");
	expect_bad("nons.json", HEAD "\"wakeup_delay\": {\"median\": 120}}}",
		   "wakeup_delay has no value");
	expect_bad("absent.json", HEAD "\"other\": {\"ns\": 1}}}", "wakeup_delay has no value");
	expect_bad("bare.json", HEAD "\"wakeup_delay\": 120}}", "wakeup_delay has no value");
}

DPA_TEST_SUITE(overheads, DPA_TEST(test_good), DPA_TEST(test_missing),
	       DPA_TEST(test_not_json), DPA_TEST(test_wrong_format_or_version),
	       DPA_TEST(test_bad_values));
