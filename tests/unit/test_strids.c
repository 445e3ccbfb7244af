/*
 * test_strids.c — a profile's strings by 4-byte id (dpa_str, dpa_str_id):
 * one id per distinct string, 0 for none, ids stable while the table grows;
 * and the packed node layouts that the ids make possible. MIT licence.
 */
#include <stdio.h>
#include <string.h>

#include "unit.h"
#include "profile.h"

/* Equal strings share an id, distinct ones get consecutive ids from 1. */
static void test_ids(void)
{
	struct dpa_profile p;
	uint32_t a, b, c, d;
	char copy[] = "main";

	memset(&p, 0, sizeof(p));
	CU_ASSERT_EQUAL(dpa_str_id(&p, NULL), 0);
	CU_ASSERT_PTR_NULL(dpa_str(&p, 0));
	CU_ASSERT_PTR_NULL(dpa_str(&p, 1));             /* no table yet */
	a = dpa_str_id(&p, "main");
	b = dpa_str_id(&p, "t.c");
	c = dpa_str_id(&p, copy);                       /* another pointer, same text */
	d = dpa_str_id(&p, "");
	CU_ASSERT_EQUAL(a, 1);
	CU_ASSERT_EQUAL(b, 2);
	CU_ASSERT_EQUAL(c, 1);
	CU_ASSERT_EQUAL(d, 3);                          /* "" is a string, not none */
	CU_ASSERT_STRING_EQUAL(dpa_str(&p, a), "main");
	CU_ASSERT_STRING_EQUAL(dpa_str(&p, b), "t.c");
	CU_ASSERT_STRING_EQUAL(dpa_str(&p, d), "");
	CU_ASSERT_PTR_NULL(dpa_str(&p, 4));             /* never given */
	CU_ASSERT_PTR_NULL(dpa_str(&p, 0));
	dpa_profile_release(&p);
	CU_ASSERT_PTR_NULL(p.strings);
}

/* 10^5 names (the table rehashes and its id directory grows many times):
 * every id still gives its own string, and a second intern the same id. */
static void test_growth(void)
{
	enum { N = 100000 };
	struct dpa_profile p;
	const char *first;
	char buf[32];
	int bad = 0;

	memset(&p, 0, sizeof(p));
	for (uint32_t i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "f%u", i);
		if (dpa_str_id(&p, buf) != i + 1)
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	first = dpa_str(&p, 1);
	for (uint32_t i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "f%u", i);
		if (strcmp(dpa_str(&p, i + 1), buf) || dpa_str_id(&p, buf) != i + 1)
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_PTR_EQUAL(dpa_str(&p, 1), first);    /* strings never move */
	CU_ASSERT_PTR_NULL(dpa_str(&p, N + 1));
	dpa_profile_release(&p);
}

/* The node layouts: ps 8 bytes, css 16 (kind and module share a word
 * without disturbing each other), pd 12, offsets keeping all 64 bits (the
 * high half a column, stored only once one is not 0); the source fields
 * are columns as narrow as their values allow, widened in place when a
 * larger value comes, 0 beyond what was set. */
static void test_layout(void)
{
	struct dpa_profile p;
	struct dpa_css s[3];
	struct dpa_ps q[3];

	CU_ASSERT_EQUAL(sizeof(struct dpa_ps), 8);
	CU_ASSERT_EQUAL(sizeof(struct dpa_css), 16);
	CU_ASSERT_EQUAL(sizeof(struct dpa_pd), 12);
	memset(&p, 0, sizeof(p));
	memset(s, 0, sizeof(s));
	memset(q, 0, sizeof(q));
	p.css = s;
	p.ps = q;
	p.n_css = p.n_ps = 2;
	s[1].module = DPA_MAX_MODULES;
	s[1].kind = DPA_CSS_CALLBACK;
	CU_ASSERT_EQUAL(dpa_css_set_offset(&p, 2, 0xfffffff0u), 0);
	CU_ASSERT_PTR_NULL(p.src[DPA_CSS_OFF_HI].v);    /* 32 bits: no column */
	CU_ASSERT_EQUAL(dpa_css_set_offset(&p, 1, 0x123456789abcdef0ull), 0);
	CU_ASSERT_EQUAL(s[1].module, (1u << 29) - 1);
	CU_ASSERT_EQUAL(s[1].kind, DPA_CSS_CALLBACK);
	CU_ASSERT_EQUAL(dpa_css_offset(&p, 1), 0x123456789abcdef0ull);
	CU_ASSERT_EQUAL(dpa_css_offset(&p, 2), 0xfffffff0u);
	CU_ASSERT_EQUAL(dpa_css_offset(&p, 0), 0);
	CU_ASSERT_EQUAL(dpa_ps_set_offset(&p, 2, UINT64_MAX), 0);
	CU_ASSERT_EQUAL(dpa_ps_offset(&p, 2), UINT64_MAX);
	CU_ASSERT_EQUAL(dpa_ps_offset(&p, 1), 0);
	CU_ASSERT_EQUAL(dpa_ps_set_offset(&p, 2, 0x1040), 0);   /* back below 2^32 */
	CU_ASSERT_EQUAL(dpa_ps_offset(&p, 2), 0x1040);
	dpa_src_release(&p);

	memset(&p, 0, sizeof(p));
	CU_ASSERT_EQUAL(dpa_src_set(&p, DPA_CSS_LINE, 1000, 0), 0);     /* 0: nothing stored */
	CU_ASSERT_EQUAL(p.src[DPA_CSS_LINE].width, 0);
	CU_ASSERT_PTR_NULL(p.src[DPA_CSS_LINE].v);
	CU_ASSERT_EQUAL(dpa_src_set(&p, DPA_CSS_LINE, 3, 7), 0);
	CU_ASSERT_EQUAL(p.src[DPA_CSS_LINE].width, 1);
	CU_ASSERT_EQUAL(dpa_src_set(&p, DPA_CSS_LINE, 2, 300), 0);
	CU_ASSERT_EQUAL(p.src[DPA_CSS_LINE].width, 2);
	CU_ASSERT_EQUAL(dpa_src_set(&p, DPA_CSS_LINE, 100, 70000), 0);
	CU_ASSERT_EQUAL(p.src[DPA_CSS_LINE].width, 4);
	CU_ASSERT_EQUAL(dpa_src_set(&p, DPA_CSS_COL, 5, (1u << 29) - 1), 0);
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_CSS_LINE, 3), 7);
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_CSS_LINE, 2), 300);
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_CSS_LINE, 100), 70000);
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_CSS_LINE, 99), 0);
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_CSS_LINE, 5000), 0);  /* past the column */
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_CSS_COL, 5), (1u << 29) - 1);
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_CSS_FILE, 5), 0);      /* another column */
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_PS_LINE, 3), 0);
	p.n_css = 4;
	dpa_src_trim(&p);       /* ids 0 .. n_css kept, the rest given back */
	CU_ASSERT_EQUAL(p.src[DPA_CSS_LINE].n, 5);
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_CSS_LINE, 3), 7);
	CU_ASSERT_EQUAL(dpa_src_get(&p, DPA_CSS_LINE, 100), 0);
	dpa_profile_release(&p);
}

DPA_TEST_SUITE(strids,
	       DPA_TEST(test_ids),
	       DPA_TEST(test_growth),
	       DPA_TEST(test_layout));
