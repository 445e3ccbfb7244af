/*
 * test_symbols.c — dpa_profile_symbolize() against small programs built for
 * the test (tests/unit/fixtures: a PIE, a non-PIE and a shared library): the
 * programs print the offsets, names and lines a profile would hold, and
 * libdw must find the same names and lines. Part of deepprof's tests.
 * MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "unit.h"

struct site {
	char kind[8], name[64], where[8];
	unsigned long offset;
	int line;
};

/* Run a fixture program and read its four lines (ps/css, exe/lib). */
static int run_fixture(const char *prog, struct site s[4])
{
	char cmd[4096 + 64];
	FILE *f;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "'%s/%s'", dpa_test_dir(), prog);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (n < 4 && fscanf(f, "%7s %63s %7s %lx %d", s[n].kind, s[n].name, s[n].where,
			       &s[n].offset, &s[n].line) == 5)
		n++;
	if (pclose(f) != 0)
		return -1;
	return n == 4 ? 0 : -1;
}

/* A profile held in memory: module 1 the program, module 2 libsym.so;
 * ps 1 <root>, ps 2 the program's leaf, ps 3 the library's leaf; css 1 and 2
 * the two calls. */
static void make_profile(struct dpa_profile *p, const char *prog, uint64_t prog_base,
			 const struct site s[4])
{
	static char prog_path[4096 + 64], lib_path[4096 + 64];

	snprintf(prog_path, sizeof(prog_path), "%s/%s", dpa_test_dir(), prog);
	snprintf(lib_path, sizeof(lib_path), "%s/libsym.so", dpa_test_dir());
	memset(p, 0, sizeof(*p));
	p->n_module = 2;
	p->n_ps = 3;
	p->n_css = 2;
	p->module = calloc(3, sizeof(*p->module));
	p->ps = calloc(4, sizeof(*p->ps));
	p->css = calloc(3, sizeof(*p->css));
	CU_ASSERT_FATAL(p->module && p->ps && p->css);
	p->module[1].path = prog_path;
	p->module[1].base = prog_base;
	p->module[2].path = lib_path;
	p->module[2].base = 0x7f1234560000ull;
	CU_ASSERT_FATAL(dpa_src_set(p, DPA_PS_NAME, 1, dpa_str_id(p, "<root>")) == 0);
	p->ps[2].module = 1;
	CU_ASSERT_FATAL(dpa_ps_set_offset(p, 2, s[0].offset) == 0);
	p->ps[3].module = 2;
	CU_ASSERT_FATAL(dpa_ps_set_offset(p, 3, s[2].offset) == 0);
	p->css[1].module = 1;
	CU_ASSERT_FATAL(dpa_css_set_offset(p, 1, s[1].offset) == 0);
	p->css[1].caller_ps = 2;
	p->css[2].module = 2;
	CU_ASSERT_FATAL(dpa_css_set_offset(p, 2, s[3].offset) == 0);
	p->css[2].caller_ps = 3;
}

static const char *tail(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "(null)";
}

static void check_program(const char *prog, uint64_t base)
{
	struct site s[4];
	struct dpa_profile p;

	CU_ASSERT_EQUAL_FATAL(run_fixture(prog, s), 0);
	CU_ASSERT_STRING_EQUAL(s[0].name, "prog_leaf");
	make_profile(&p, prog, base, s);
	CU_ASSERT_EQUAL(dpa_profile_symbolize(&p), 0);
	CU_ASSERT_EQUAL(p.module[1].symbols, 1);
	CU_ASSERT_EQUAL(p.module[2].symbols, 1);
	/* procedures: name, file, line of the entry */
	CU_ASSERT_STRING_EQUAL(dpa_src_str(&p, DPA_PS_NAME, 1), "<root>");
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_PS_FILE, 1), 0);
	CU_ASSERT_STRING_EQUAL(dpa_src_get(&p, DPA_PS_NAME, 2) ? dpa_src_str(&p, DPA_PS_NAME, 2) : "", "prog_leaf");
	CU_ASSERT_STRING_EQUAL(tail(dpa_src_str(&p, DPA_PS_FILE, 2)), "symprog.c");
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_PS_LINE, 2), (uint32_t)s[0].line);
	CU_ASSERT_STRING_EQUAL(dpa_src_get(&p, DPA_PS_NAME, 3) ? dpa_src_str(&p, DPA_PS_NAME, 3) : "", "lib_leaf");
	CU_ASSERT_STRING_EQUAL(tail(dpa_src_str(&p, DPA_PS_FILE, 3)), "symlib.c");
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_PS_LINE, 3), (uint32_t)s[2].line);
	/* call sites: the line of the call, the function it is in */
	CU_ASSERT_STRING_EQUAL(dpa_src_get(&p, DPA_CSS_IN_FN, 1) ? dpa_src_str(&p, DPA_CSS_IN_FN, 1) : "", "prog_caller");
	CU_ASSERT_STRING_EQUAL(tail(dpa_src_str(&p, DPA_CSS_FILE, 1)), "symprog.c");
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_CSS_LINE, 1), (uint32_t)s[1].line);
	CU_ASSERT(dpa_src_get(&p, DPA_CSS_COL, 1) > 0);
	CU_ASSERT_STRING_EQUAL(dpa_src_get(&p, DPA_CSS_IN_FN, 2) ? dpa_src_str(&p, DPA_CSS_IN_FN, 2) : "", "lib_caller");
	CU_ASSERT_STRING_EQUAL(tail(dpa_src_str(&p, DPA_CSS_FILE, 2)), "symlib.c");
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_CSS_LINE, 2), (uint32_t)s[3].line);
	/* display names */
	CU_ASSERT_STRING_EQUAL(dpa_ps_name(&p, 2), "prog_leaf");
	dpa_profile_release(&p);
}

static void test_pie(void)
{
	check_program("symprog", 0x555555554000ull);
}

static void test_non_pie(void)
{
	check_program("symprog-nopie", 0);
}

static void test_missing_and_mismatch(void)
{
	struct site s[4];
	struct dpa_profile p;
	char name[64];

	CU_ASSERT_EQUAL_FATAL(run_fixture("symprog", s), 0);

	/* the program's file is gone: its names stay NULL, the library's resolve */
	make_profile(&p, "no-such-program", 0x555555554000ull, s);
	CU_ASSERT_EQUAL(dpa_profile_symbolize(&p), 1);
	CU_ASSERT_EQUAL(p.module[1].symbols, -1);
	CU_ASSERT_EQUAL(p.module[2].symbols, 1);
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_PS_NAME, 2), 0);
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_PS_FILE, 2), 0);
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_CSS_IN_FN, 1), 0);
	CU_ASSERT_STRING_EQUAL(dpa_src_get(&p, DPA_PS_NAME, 3) ? dpa_src_str(&p, DPA_PS_NAME, 3) : "", "lib_leaf");
	snprintf(name, sizeof(name), "0x%lx in no-such-program", s[0].offset);
	CU_ASSERT_STRING_EQUAL(dpa_ps_name(&p, 2), name);
	CU_ASSERT_STRING_EQUAL(dpa_addr_name(&p, 0, 0x10), "0x10");
	dpa_profile_release(&p);

	/* the library was rebuilt: its build id no longer matches */
	make_profile(&p, "symprog", 0x555555554000ull, s);
	p.module[2].build_id = "0123456789abcdef0123456789abcdef01234567";
	CU_ASSERT_EQUAL(dpa_profile_symbolize(&p), 1);
	CU_ASSERT_EQUAL(p.module[2].symbols, -1);
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_PS_NAME, 3), 0);
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_CSS_FILE, 2), 0);
	CU_ASSERT_STRING_EQUAL(dpa_src_get(&p, DPA_PS_NAME, 2) ? dpa_src_str(&p, DPA_PS_NAME, 2) : "", "prog_leaf");
	dpa_profile_release(&p);

	/* names the file already has are kept */
	make_profile(&p, "symprog", 0x555555554000ull, s);
	CU_ASSERT_FATAL(dpa_src_set(&p, DPA_PS_NAME, 2, dpa_str_id(&p, "from_the_file")) == 0);
	CU_ASSERT_EQUAL(dpa_profile_symbolize(&p), 0);
	CU_ASSERT_STRING_EQUAL(dpa_src_str(&p, DPA_PS_NAME, 2), "from_the_file");
	CU_ASSERT_STRING_EQUAL(tail(dpa_src_str(&p, DPA_PS_FILE, 2)), "symprog.c");
	dpa_profile_release(&p);
}

static void test_names(void)
{
	CU_ASSERT_STRING_EQUAL(dpa_measure_name(DPA_CALLS), "calls");
	CU_ASSERT_STRING_EQUAL(dpa_measure_name(DPA_NONLOCAL), "nonlocal_exits");
	CU_ASSERT_STRING_EQUAL(dpa_measure_name(DPA_BYTES), "bytes");
	CU_ASSERT_STRING_EQUAL(dpa_css_kind_name(DPA_CSS_CALLBACK), "callback");
	CU_ASSERT_STRING_EQUAL(dpa_css_kind_name(DPA_CSS_DYNAMIC), "dynamic");
	CU_ASSERT_STRING_EQUAL(dpa_basename("/usr/lib/libc.so.6"), "libc.so.6");
	CU_ASSERT_STRING_EQUAL(dpa_basename("prog"), "prog");
}

DPA_TEST_SUITE(symbols,
	       DPA_TEST(test_pie),
	       DPA_TEST(test_non_pie),
	       DPA_TEST(test_missing_and_mismatch),
	       DPA_TEST(test_names));
