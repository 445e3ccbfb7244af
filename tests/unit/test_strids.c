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

/* The node layouts: ps 24 bytes, css 36, pd 16; a css's kind and col share
 * a word without disturbing each other, and offsets keep all 64 bits. */
static void test_layout(void)
{
	struct dpa_css s[2];
	struct dpa_ps q;

	CU_ASSERT_EQUAL(sizeof(struct dpa_ps), 24);
	CU_ASSERT_EQUAL(sizeof(struct dpa_css), 36);
	CU_ASSERT_EQUAL(sizeof(struct dpa_pd), 16);
	memset(s, 0, sizeof(s));
	s[1].col = (1u << 29) - 1;
	s[1].kind = DPA_CSS_CALLBACK;
	s[1].offset = 0x123456789abcdef0ull;
	s[1].line = 7;
	CU_ASSERT_EQUAL(s[1].col, (1u << 29) - 1);
	CU_ASSERT_EQUAL(s[1].kind, DPA_CSS_CALLBACK);
	CU_ASSERT_EQUAL(s[1].offset, 0x123456789abcdef0ull);
	CU_ASSERT_EQUAL(s[1].line, 7);
	CU_ASSERT_EQUAL(s[0].offset, 0);
	memset(&q, 0, sizeof(q));
	q.offset = UINT64_MAX;
	CU_ASSERT_EQUAL(q.offset, UINT64_MAX);
	CU_ASSERT_EQUAL(q.name, 0);
	CU_ASSERT_EQUAL(q.line, 0);
}

DPA_TEST_SUITE(strids,
	       DPA_TEST(test_ids),
	       DPA_TEST(test_growth),
	       DPA_TEST(test_layout));
