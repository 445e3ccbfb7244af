/*
 * test_progrep.c — analyses/progrep.c: the checksum, exact parsing of
 * hand-written records (every source, target, result and body form),
 * one-line errors for malformed ones, checksum states against a source
 * file, and the mapping of a profile's ps and css through a module file's
 * __deepprof_css table (a shared library built here with gcc and objcopy).
 * Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "unit.h"
#include "progrep.h"
#include "strtab.h"

/* Records are written with ' for " to keep them readable here. */
static int parse_q(struct dpa_progrep *pr, const char *path, const char *q, struct dpa_error *err)
{
	char *t = strdup(q);
	int rc;

	for (char *c = t; *c; c++)
		if (*c == '\'')
			*c = '"';
	rc = dpa_progrep_parse(pr, path, t, strlen(t), err);
	free(t);
	return rc;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* ================================================================ */

static void test_checksum(void)
{
	const char *t = "a\nbc\nd";

	CU_ASSERT_EQUAL(dpa_progrep_checksum(t, strlen(t), 2, 2), 0x003f9419133e54e8ULL);
	CU_ASSERT_EQUAL(dpa_progrep_checksum(t, strlen(t), 2, 3), 0xaa5d329bb2e9a9e4ULL);
	CU_ASSERT_EQUAL(dpa_progrep_checksum(t, strlen(t), 9, 9), 0xcbf29ce484222325ULL);
	CU_ASSERT_EQUAL(dpa_progrep_checksum(t, strlen(t), 1, 1) ==
			dpa_progrep_checksum(t, strlen(t), 2, 2), 0);
}

#define TU "{'progrep':1,'record':'tu','tu':'00000000000000ab','file':'t.c','n_ps':3,'n_css':6,'abi':2}\n"
#define FN_HEAD "{'progrep':1,'record':'fn','tu':'00000000000000ab','ps':2,'fn':'h','file':'/nonexistent/t.c'," \
	"'line':10,'end_line':20,'checksum':'0000000000000000','public':false,'first_site':1,'n_sites':3," \
	"'backedges':2,'params':[{'name':'p','type':'int *','pointer':true},{'name':null,'type':'int','pointer':false}],"
/* the same function with one site and an empty body */
#define FN1_HEAD "{'progrep':1,'record':'fn','tu':'00000000000000ab','ps':2,'fn':'h','file':'t.c','line':1," \
	"'end_line':1,'checksum':'0000000000000000','public':true,'first_site':1,'n_sites':1,'backedges':0," \
	"'params':[],'body':[],'unplaced':[],"
#define FN_BODY "'body':[{'call':1},{'loop':{'line':12,'body':[{'branch':{'kind':'switch','line':13," \
	"'arms':[[],[{'call':2}],[]]}}]}}],'unplaced':[3],"
#define CALL1 "{'site':1,'id':'00000000000000ab:1','callee':'malloc','kind':'external','line':11,'col':3," \
	"'effects':'memory','args':[{'from':[{'const':true}]}],'result':{'local':'m'}}"
#define CALL2 "{'site':2,'id':'00000000000000ab:2','callee':null,'kind':'indirect','line':14,'col':5," \
	"'effects':'memory','tail':true,'target_from':[{'param':'fp'},{'function':'k'}]," \
	"'args':[{'from':[{'call':1},{'call':null},{'addr_of':{'global':'G'}},{'const':'string'},{'memory':true}]," \
	"'points_to':[{'heap':1},{'via_param':'p'},'string','function','null','unknown',{'global':'G'}]}]," \
	"'result':'temp','future_key':[1,2]}"
#define CALL3 "{'site':3,'id':'00000000000000ab:3','callee':'k','kind':'normal','line':18,'col':1," \
	"'effects':'pure','noreturn':true,'args':[],'result':null}"
#define FN FN_HEAD FN_BODY "'calls':[" CALL1 "," CALL2 "," CALL3 "]}\n"
/* version 2: a function u(int *p, int n, char *) with use and store items
 * (its unnamed third parameter cannot be named by one) */
#define FNU_HEAD "{'progrep':2,'record':'fn','tu':'00000000000000ab','ps':1,'fn':'u','file':'t.c','line':1," \
	"'end_line':9,'checksum':'0000000000000000','public':true,'first_site':4,'n_sites':2,'backedges':1," \
	"'params':[{'name':'p','type':'int *','pointer':true},{'name':'n','type':'int','pointer':false}," \
	"{'name':null,'type':'char *','pointer':true}],"
#define FNU_CALLS "'calls':[{'site':4,'id':'00000000000000ab:4','callee':'k','kind':'normal','line':3,'col':1," \
	"'effects':'memory','args':[{'from':[{'param':'p'}],'points_to':[{'via_param':'p'}]}],'result':null}," \
	"{'site':5,'id':'00000000000000ab:5','callee':'k','kind':'normal','line':6,'col':1," \
	"'effects':'memory','args':[],'result':null}]}\n"

static void test_parse_exact(void)
{
	struct dpa_progrep pr;
	struct dpa_error err = { { 0 } };
	const struct dpa_pr_fn *f;
	const struct dpa_pr_call *c;
	const struct dpa_pr_item *it;
	const struct dpa_pr_arg *a;

	CU_ASSERT_EQUAL_FATAL(parse_q(&pr, "t.o", TU "\n\n" FN, &err), 0);
	CU_ASSERT_EQUAL(pr.n_tu, 1);
	CU_ASSERT_EQUAL(pr.n_fn, 1);
	CU_ASSERT_EQUAL(pr.tu[0].id, 0xab);
	CU_ASSERT_STRING_EQUAL(pr.tu[0].file, "t.c");
	CU_ASSERT_EQUAL(pr.tu[0].n_ps, 3);
	CU_ASSERT_EQUAL(pr.tu[0].n_css, 6);
	CU_ASSERT_EQUAL(pr.tu[0].abi, 2);
	f = dpa_progrep_fn(&pr, 0xab, 2);
	CU_ASSERT_PTR_EQUAL_FATAL(f, &pr.fn[0]);
	CU_ASSERT_PTR_NULL(dpa_progrep_fn(&pr, 0xab, 1));
	CU_ASSERT_PTR_NULL(dpa_progrep_fn(&pr, 0xac, 2));
	CU_ASSERT_PTR_NULL(dpa_progrep_fn(&pr, 0xab, 3));
	CU_ASSERT_STRING_EQUAL(f->name, "h");
	CU_ASSERT_EQUAL(f->line, 10);
	CU_ASSERT_EQUAL(f->end_line, 20);
	CU_ASSERT_EQUAL(f->checksum, 0);
	CU_ASSERT_EQUAL(f->sum_state, DPA_PR_SUM_UNKNOWN);
	CU_ASSERT_EQUAL(pr.n_sum[DPA_PR_SUM_UNKNOWN], 1);
	CU_ASSERT_FALSE(f->public_);
	CU_ASSERT_EQUAL(f->first_site, 1);
	CU_ASSERT_EQUAL(f->n_sites, 3);
	CU_ASSERT_EQUAL(f->backedges, 2);
	CU_ASSERT_EQUAL_FATAL(f->n_params, 2);
	CU_ASSERT_STRING_EQUAL(f->params[0].name, "p");
	CU_ASSERT_STRING_EQUAL(f->params[0].type, "int *");
	CU_ASSERT_TRUE(f->params[0].pointer);
	CU_ASSERT_PTR_NULL(f->params[1].name);
	CU_ASSERT_FALSE(f->params[1].pointer);
	CU_ASSERT_EQUAL_FATAL(f->n_unplaced, 1);
	CU_ASSERT_EQUAL(f->unplaced[0], 3);

	/* body: call 1; loop 12 { switch 13 { [], [call 2], [] } } */
	CU_ASSERT_EQUAL_FATAL(f->body.n, 2);
	CU_ASSERT_EQUAL(f->body.items[0].kind, DPA_PR_ITEM_CALL);
	CU_ASSERT_EQUAL(f->body.items[0].site, 1);
	it = &f->body.items[1];
	CU_ASSERT_EQUAL_FATAL(it->kind, DPA_PR_ITEM_LOOP);
	CU_ASSERT_EQUAL(it->line, 12);
	CU_ASSERT_EQUAL_FATAL(it->body.n, 1);
	it = &it->body.items[0];
	CU_ASSERT_EQUAL_FATAL(it->kind, DPA_PR_ITEM_BRANCH);
	CU_ASSERT_TRUE(it->is_switch);
	CU_ASSERT_EQUAL(it->line, 13);
	CU_ASSERT_EQUAL_FATAL(it->n_arms, 3);
	CU_ASSERT_EQUAL(it->arms[0].n, 0);
	CU_ASSERT_EQUAL_FATAL(it->arms[1].n, 1);
	CU_ASSERT_EQUAL(it->arms[1].items[0].site, 2);
	CU_ASSERT_EQUAL(it->arms[2].n, 0);

	/* site 1: malloc(const) -> local m */
	c = dpa_progrep_site(&pr, 0xab, 1);
	CU_ASSERT_PTR_EQUAL_FATAL(c, &f->calls[0]);
	CU_ASSERT_PTR_NULL(dpa_progrep_site(&pr, 0xab, 0));
	CU_ASSERT_PTR_NULL(dpa_progrep_site(&pr, 0xab, 4));
	CU_ASSERT_EQUAL(c->fn, 0);
	CU_ASSERT_STRING_EQUAL(c->callee, "malloc");
	CU_ASSERT_EQUAL(c->kind, DPA_CSS_EXTERNAL);
	CU_ASSERT_EQUAL(c->effects, DPA_PR_EFF_MEMORY);
	CU_ASSERT_EQUAL(c->line, 11);
	CU_ASSERT_EQUAL(c->col, 3);
	CU_ASSERT_FALSE(c->tail || c->noreturn);
	CU_ASSERT_EQUAL_FATAL(c->n_args, 1);
	CU_ASSERT_EQUAL_FATAL(c->args[0].n_from, 1);
	CU_ASSERT_EQUAL(c->args[0].from[0].kind, DPA_PR_CONST);
	CU_ASSERT_FALSE(c->args[0].has_points_to);
	CU_ASSERT_EQUAL(c->result.kind, DPA_PR_LOCAL);
	CU_ASSERT_STRING_EQUAL(c->result.name, "m");

	/* site 2: the indirect call with every source and target */
	c = dpa_progrep_site(&pr, 0xab, 2);
	CU_ASSERT_PTR_EQUAL_FATAL(c, &f->calls[1]);
	CU_ASSERT_PTR_NULL(c->callee);
	CU_ASSERT_EQUAL(c->kind, DPA_CSS_INDIRECT);
	CU_ASSERT_TRUE(c->tail);
	CU_ASSERT_EQUAL_FATAL(c->n_target_from, 2);
	CU_ASSERT_EQUAL(c->target_from[0].kind, DPA_PR_PARAM);
	CU_ASSERT_STRING_EQUAL(c->target_from[0].name, "fp");
	CU_ASSERT_EQUAL(c->target_from[1].kind, DPA_PR_FUNCTION);
	CU_ASSERT_STRING_EQUAL(c->target_from[1].name, "k");
	CU_ASSERT_EQUAL_FATAL(c->n_args, 1);
	a = &c->args[0];
	CU_ASSERT_EQUAL_FATAL(a->n_from, 5);
	CU_ASSERT_EQUAL(a->from[0].kind, DPA_PR_CALL);
	CU_ASSERT_TRUE(a->from[0].has_site);
	CU_ASSERT_EQUAL(a->from[0].site, 1);
	CU_ASSERT_EQUAL(a->from[1].kind, DPA_PR_CALL);
	CU_ASSERT_FALSE(a->from[1].has_site);
	CU_ASSERT_EQUAL(a->from[2].kind, DPA_PR_ADDR_OF);
	CU_ASSERT_EQUAL(a->from[2].var, DPA_PR_GLOBAL);
	CU_ASSERT_STRING_EQUAL(a->from[2].name, "G");
	CU_ASSERT_EQUAL(a->from[3].kind, DPA_PR_STRING);
	CU_ASSERT_EQUAL(a->from[4].kind, DPA_PR_MEMORY);
	CU_ASSERT_TRUE(a->has_points_to);
	CU_ASSERT_EQUAL_FATAL(a->n_points_to, 7);
	CU_ASSERT_EQUAL(a->points_to[0].kind, DPA_PR_HEAP);
	CU_ASSERT_EQUAL(a->points_to[0].site, 1);
	CU_ASSERT_EQUAL(a->points_to[1].kind, DPA_PR_VIA_PARAM);
	CU_ASSERT_STRING_EQUAL(a->points_to[1].name, "p");
	CU_ASSERT_EQUAL(a->points_to[2].kind, DPA_PR_STRING);
	CU_ASSERT_EQUAL(a->points_to[3].kind, DPA_PR_FUNCTION);
	CU_ASSERT_PTR_NULL(a->points_to[3].name);
	CU_ASSERT_EQUAL(a->points_to[4].kind, DPA_PR_NULL);
	CU_ASSERT_EQUAL(a->points_to[5].kind, DPA_PR_UNKNOWN);
	CU_ASSERT_EQUAL(a->points_to[6].kind, DPA_PR_GLOBAL);
	CU_ASSERT_EQUAL(c->result.kind, DPA_PR_TEMP);

	/* site 3: pure, noreturn, no arguments, no result */
	c = &f->calls[2];
	CU_ASSERT_EQUAL(c->site, 3);
	CU_ASSERT_EQUAL(c->effects, DPA_PR_EFF_PURE);
	CU_ASSERT_EQUAL(c->kind, DPA_CSS_NORMAL);
	CU_ASSERT_TRUE(c->noreturn);
	CU_ASSERT_EQUAL(c->n_args, 0);
	CU_ASSERT_EQUAL(c->result.kind, DPA_PR_NONE);
	dpa_progrep_release(&pr);
	dpa_progrep_release(&pr);      /* releasing twice is harmless */
}

/* Each malformed input and the exact line it gives. */
static const struct {
	const char *text, *msg;
} bad_cases[] = {
	{ "{'progrep':1,'record':'tu','tu':'00000000000000AB','file':'t.c','n_ps':3,'n_css':6,'abi':1}\n",
	  "t.o: .deepprof.progrep line 1: tu \"00000000000000AB\" is not 16 lower-case hex digits" },
	{ "{'progrep':1,'record':'tu','tu':'00000000000000ab','file':'t.c','n_ps':3,'n_css':900000000,'abi':1}\n",
	  "t.o: .deepprof.progrep line 1: TU 00000000000000ab: n_ps 3, n_css 900000000: more than the section can describe" },
	{ TU TU, "t.o: .deepprof.progrep line 2: a second tu record for TU 00000000000000ab" },
	{ "\n" TU "[1]\n", "t.o: .deepprof.progrep line 3: not a JSON object" },
	{ TU "{'progrep':1,'record':'xx','tu':'00000000000000ab'}\n",
	  "t.o: .deepprof.progrep line 2: unknown record \"xx\"" },
	{ TU "{'progrep':0,'record':'tu','tu':'00000000000000ab'}\n",
	  "t.o: .deepprof.progrep line 2: progrep version 0, this reader reads 1 to 2" },
	{ TU "{'record':'tu','tu':'00000000000000ab'}\n", "t.o: .deepprof.progrep line 2: progrep: missing" },
	{ TU "{'progrep':1,'record':'tu','tu':'00000000000000ac','file':'t.c','n_ps':-1,'n_css':6,'abi':1}\n",
	  "t.o: .deepprof.progrep line 2: n_ps: -1 out of range" },
	{ TU "{'progrep':1,'record':'tu','tu':'00000000000000ac','file':7,'n_ps':1,'n_css':6,'abi':1}\n",
	  "t.o: .deepprof.progrep line 2: file: not a string" },
	{ TU FN FN, "t.o: .deepprof.progrep line 3: h: a second record for ps 2 of TU 00000000000000ab" },
	{ TU FN_HEAD FN_BODY "'calls':[" CALL1 "," CALL2 "]}\n",
	  "t.o: .deepprof.progrep line 2: h: 2 call records for 3 sites" },
	{ TU FN_HEAD FN_BODY "'calls':[" CALL1 "," CALL3 "," CALL2 "]}\n",
	  "t.o: .deepprof.progrep line 2: calls: site 3 where site 2 was expected" },
	{ TU FN_HEAD "'body':[{'call':4}],'unplaced':[],'calls':[" CALL1 "," CALL2 "," CALL3 "]}\n",
	  "t.o: .deepprof.progrep line 2: body call: site 4 is not one of h's sites (1..3)" },
	{ TU FN_HEAD "'body':[{'branch':{'kind':'if','line':1,'arms':[[]]}}],'unplaced':[],'calls':[]}\n",
	  "t.o: .deepprof.progrep line 2: branch: fewer than 2 arms" },
	{ TU FN_HEAD "'body':[{'branch':{'kind':'while','line':1,'arms':[[],[]]}}],'unplaced':[],'calls':[]}\n",
	  "t.o: .deepprof.progrep line 2: branch: kind: neither \"if\" nor \"switch\"" },
	{ TU FN_HEAD "'body':[{'jump':1,'call':1}],'unplaced':[],'calls':[]}\n",
	  "t.o: .deepprof.progrep line 2: body: an item is not a one-key object" },
	{ TU FNU_HEAD "'body':[{'use':'q'}],'unplaced':[],'calls':[]}\n",
	  "t.o: .deepprof.progrep line 2: body use: \"q\" is not a parameter of u" },
	{ TU FNU_HEAD "'body':[{'loop':{'line':3,'body':[{'store':'P'}]}}],'unplaced':[],'calls':[]}\n",
	  "t.o: .deepprof.progrep line 2: body store: \"P\" is not a parameter of u" },
	{ TU FNU_HEAD "'body':[{'store':'n'}],'unplaced':[],'calls':[]}\n",
	  "t.o: .deepprof.progrep line 2: body store: parameter \"n\" of u is not a pointer" },
	{ TU FNU_HEAD "'body':[{'use':0}],'unplaced':[],'calls':[]}\n",
	  "t.o: .deepprof.progrep line 2: body use: not a string" },
	{ TU FNU_HEAD "'body':[{'store':null}],'unplaced':[],'calls':[]}\n",
	  "t.o: .deepprof.progrep line 2: body store: not a string" },
	{ TU FNU_HEAD "'body':[{'use':''}],'unplaced':[],'calls':[]}\n",
	  "t.o: .deepprof.progrep line 2: body use: \"\" is not a parameter of u" },
	{ TU "{'progrep':3,'record':'tu','tu':'00000000000000ac'}\n",
	  "t.o: .deepprof.progrep line 2: progrep version 3, this reader reads 1 to 2" },
	{ TU FN_HEAD FN_BODY "'calls':[" CALL1 ",{'site':2,'id':'00000000000000ab:7'}," CALL3 "]}\n",
	  "t.o: .deepprof.progrep line 2: site 2: id \"00000000000000ab:7\" is not \"00000000000000ab:2\"" },
	{ TU FN1_HEAD "'calls':[{'site':1,'id':'00000000000000ab:1','callee':'m','kind':'normal','line':1,"
	  "'col':1,'effects':'memory','args':[{'from':[{'call':6}]}],'result':null}]}\n",
	  "t.o: .deepprof.progrep line 2: from: site 6 out of range (TU 00000000000000ab has 6)" },
	{ TU FN1_HEAD "'calls':[{'site':1,'id':'00000000000000ab:1','callee':'m','kind':'normal','line':1,"
	  "'col':1,'effects':'memory','args':[{'from':[],'points_to':['bogus']}],'result':null}]}\n",
	  "t.o: .deepprof.progrep line 2: points_to: unknown target \"bogus\"" },
	{ TU FN1_HEAD "'calls':[{'site':1,'id':'00000000000000ab:1','callee':'m','kind':'normal','line':1,"
	  "'col':1,'effects':'volatile','args':[],'result':null}]}\n",
	  "t.o: .deepprof.progrep line 2: site 1: unknown effects \"volatile\"" },
	{ TU FN1_HEAD "'calls':[{'site':1,'id':'00000000000000ab:1','callee':'m','kind':'normal','line':1,"
	  "'col':1,'effects':'memory','args':[],'result':{'register':'x'}}]}\n",
	  "t.o: .deepprof.progrep line 2: site 1: result: not null, \"temp\" or a named variable" },
	{ "{'progrep':1,'record':'fn','tu':'00000000000000ab'}\n",
	  "t.o: .deepprof.progrep line 1: fn record of TU 00000000000000ab before its tu record" },
	{ TU "{'progrep':1,'record':'tu'", "t.o: .deepprof.progrep line 2: truncated: the last record has no newline" },
	{ TU "{'progrep':1,,}\n", "t.o: .deepprof.progrep line 2: not JSON: string or '}' expected near ',' (column 14)" },
};

static void test_parse_errors(void)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct dpa_progrep pr;
		struct dpa_error err = { { 0 } };
		int rc = parse_q(&pr, "t.o", bad_cases[i].text, &err);

		CU_ASSERT_EQUAL(rc, -1);
		if (strcmp(err.msg, bad_cases[i].msg)) {
			printf("\ncase %zu: got  %s\n         want %s\n", i, err.msg, bad_cases[i].msg);
			CU_FAIL("wrong error message");
		}
		CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
		dpa_progrep_release(&pr);
	}
}

/* use and store items: where they are, which parameter they name; an item
 * of a kind this reader does not know is left out, wherever it is */
static void test_parse_uses(void)
{
	static const char text[] = TU FNU_HEAD
		"'body':[{'use':'n'},{'store':'p'},{'later_kind':{'x':1}},{'use':'p'},{'call':4},"
		"{'store':'p'},{'branch':{'kind':'if','line':4,'arms':[[{'use':'n'}],[{'future':2}]]}},"
		"{'loop':{'line':5,'body':[{'store':'p'},{'call':5}]}}],'unplaced':[]," FNU_CALLS;
	struct dpa_progrep pr;
	struct dpa_error err = { { 0 } };
	const struct dpa_pr_fn *f;
	const struct dpa_pr_item *it;

	CU_ASSERT_EQUAL_FATAL(parse_q(&pr, "t.o", text, &err), 0);
	f = dpa_progrep_fn(&pr, 0xab, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL_FATAL(f->body.n, 7);    /* 8 written, later_kind left out */
	it = f->body.items;
	CU_ASSERT_EQUAL(it[0].kind, DPA_PR_ITEM_USE);
	CU_ASSERT_STRING_EQUAL(it[0].name, "n");
	CU_ASSERT_EQUAL(it[0].param, 1);
	CU_ASSERT_EQUAL(it[1].kind, DPA_PR_ITEM_STORE);
	CU_ASSERT_STRING_EQUAL(it[1].name, "p");
	CU_ASSERT_EQUAL(it[1].param, 0);
	CU_ASSERT_PTR_EQUAL(it[1].name, f->params[0].name);   /* the parameter's own string */
	CU_ASSERT_EQUAL(it[2].kind, DPA_PR_ITEM_USE);
	CU_ASSERT_STRING_EQUAL(it[2].name, "p");
	CU_ASSERT_EQUAL(it[2].param, 0);
	CU_ASSERT_EQUAL(it[3].kind, DPA_PR_ITEM_CALL);
	CU_ASSERT_EQUAL(it[3].site, 4);
	CU_ASSERT_PTR_NULL(it[3].name);
	CU_ASSERT_EQUAL(it[4].kind, DPA_PR_ITEM_STORE);
	CU_ASSERT_EQUAL(it[4].param, 0);
	CU_ASSERT_EQUAL_FATAL(it[5].kind, DPA_PR_ITEM_BRANCH);
	CU_ASSERT_EQUAL_FATAL(it[5].n_arms, 2);
	CU_ASSERT_EQUAL_FATAL(it[5].arms[0].n, 1);
	CU_ASSERT_EQUAL(it[5].arms[0].items[0].kind, DPA_PR_ITEM_USE);
	CU_ASSERT_EQUAL(it[5].arms[0].items[0].param, 1);
	CU_ASSERT_EQUAL(it[5].arms[1].n, 0);    /* its only item was of an unknown kind */
	CU_ASSERT_EQUAL_FATAL(it[6].kind, DPA_PR_ITEM_LOOP);
	CU_ASSERT_EQUAL(it[6].line, 5);
	CU_ASSERT_EQUAL_FATAL(it[6].body.n, 2);
	CU_ASSERT_EQUAL(it[6].body.items[0].kind, DPA_PR_ITEM_STORE);
	CU_ASSERT_EQUAL(it[6].body.items[0].param, 0);
	CU_ASSERT_EQUAL(it[6].body.items[1].kind, DPA_PR_ITEM_CALL);
	CU_ASSERT_EQUAL(it[6].body.items[1].site, 5);
	dpa_progrep_release(&pr);

	/* a version 1 record is still read (it simply has no such items) */
	CU_ASSERT_EQUAL(parse_q(&pr, "t.o", TU FN, &err), 0);
	CU_ASSERT_EQUAL(pr.n_fn, 1);
	dpa_progrep_release(&pr);
}

static void test_parse_deep(void)
{
	/* bodies nested 300 deep are refused, not recursed into without end */
	size_t n = 300, len = 0;
	char *t = malloc(strlen(TU) + strlen(FN_HEAD) + n * 40 + 200);
	struct dpa_progrep pr;
	struct dpa_error err = { { 0 } };

	len += (size_t)sprintf(t + len, "%s%s'body':", TU, FN_HEAD);
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(t + len, "[{'loop':{'line':1,'body':");
	len += (size_t)sprintf(t + len, "[]");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(t + len, "}}]");
	sprintf(t + len, ",'unplaced':[],'calls':[]}\n");
	CU_ASSERT_EQUAL(parse_q(&pr, "t.o", t, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "t.o: .deepprof.progrep line 2: loop body: nested deeper than 200");
	dpa_progrep_release(&pr);
	free(t);
}

/* Damaged records (a byte changed, or the text cut) are accepted or refused
 * with one line, never a crash (run under ASan+UBSan with SAN=1). */
static void test_parse_mutations(void)
{
	static const char good[] = TU FN;
	static const char bytes[] = "{}[]\",:0123456789-aez \n\0'";
	size_t n = strlen(good);
	char *t = malloc(n + 1);
	uint64_t x = 88172645463325252ULL;
	int refused = 0;

	for (int i = 0; i < 3000; i++) {
		struct dpa_progrep pr;
		struct dpa_error err = { { 0 } };
		size_t at, len = n;
		int rc;

		memcpy(t, good, n + 1);
		for (char *c = t; *c; c++)
			if (*c == '\'')
				*c = '"';
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		at = (size_t)(x % n);
		if (i % 4 == 3)
			len = at;               /* cut */
		else
			t[at] = bytes[(x >> 32) % (sizeof(bytes) - 1)];
		rc = dpa_progrep_parse(&pr, "t.o", t, len, &err);
		CU_ASSERT(rc == 0 || rc == -1);
		if (rc < 0) {
			refused++;
			CU_ASSERT_EQUAL(strncmp(err.msg, "t.o: .deepprof.progrep line ", 28), 0);
			CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
		}
		dpa_progrep_release(&pr);
	}
	CU_ASSERT(refused > 1000);
	free(t);
}

static void test_sum_states(void)
{
	const char *dir = dpa_test_tmpdir();
	char src[512], obj[512], text[4096];
	struct dpa_progrep pr;
	struct dpa_error err = { { 0 } };
	static const char rec[] =
		"{'progrep':1,'record':'fn','tu':'00000000000000ab','ps':%d,'fn':'f%d','file':'%s',"
		"'line':%d,'end_line':%d,'checksum':'%s','public':true,'first_site':0,'n_sites':0,"
		"'backedges':0,'params':[],'body':[],'unplaced':[],'calls':[]}\n";
	int len;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(src, sizeof(src), "%s/src.c", dir);
	snprintf(obj, sizeof(obj), "%s/src.o", dir);
	write_file(src, "int g(int);\nint f(void)\n{\n\treturn g(1);\n}\n");
	/* f0: lines 2-5 as recorded (ok); f1: the same lines, another sum
	 * (stale); f2: a relative name, found beside the object (ok);
	 * f3: a missing file; f4: checksum 0 (the plugin could not read it) */
	len = snprintf(text, sizeof(text), TU);
	len += snprintf(text + len, sizeof(text) - (size_t)len, rec, 0, 0, src, 2, 5, "828aa0211afdb470");
	len += snprintf(text + len, sizeof(text) - (size_t)len, rec, 1, 1, src, 2, 5, "828aa0211afdb471");
	len += snprintf(text + len, sizeof(text) - (size_t)len, rec, 2, 2, "src.c", 2, 5, "828aa0211afdb470");
	CU_ASSERT_EQUAL_FATAL(parse_q(&pr, obj, text, &err), 0);
	CU_ASSERT_EQUAL_FATAL(pr.n_fn, 3);
	CU_ASSERT_EQUAL(pr.fn[0].sum_state, DPA_PR_SUM_OK);
	CU_ASSERT_EQUAL(pr.fn[0].source_sum, 0x828aa0211afdb470ULL);
	CU_ASSERT_EQUAL(pr.fn[1].sum_state, DPA_PR_SUM_STALE);
	CU_ASSERT_EQUAL(pr.fn[1].checksum, 0x828aa0211afdb471ULL);
	CU_ASSERT_EQUAL(pr.fn[1].source_sum, 0x828aa0211afdb470ULL);
	CU_ASSERT_EQUAL(pr.fn[2].sum_state, DPA_PR_SUM_OK);
	CU_ASSERT_EQUAL(pr.n_sum[DPA_PR_SUM_OK], 2);
	CU_ASSERT_EQUAL(pr.n_sum[DPA_PR_SUM_STALE], 1);
	dpa_progrep_release(&pr);

	len = snprintf(text, sizeof(text), TU);
	len += snprintf(text + len, sizeof(text) - (size_t)len, rec, 0, 3, "/nonexistent/x.c", 1, 1,
			"828aa0211afdb470");
	len += snprintf(text + len, sizeof(text) - (size_t)len, rec, 1, 4, src, 1, 1, "0000000000000000");
	CU_ASSERT_EQUAL_FATAL(parse_q(&pr, obj, text, &err), 0);
	CU_ASSERT_EQUAL(pr.fn[0].sum_state, DPA_PR_SUM_NO_SOURCE);
	CU_ASSERT_EQUAL(pr.fn[0].source_sum, 0);
	CU_ASSERT_EQUAL(pr.fn[1].sum_state, DPA_PR_SUM_UNKNOWN);
	CU_ASSERT_STRING_EQUAL(dpa_pr_sum_name(DPA_PR_SUM_NO_SOURCE), "no-source");
	dpa_progrep_release(&pr);

	/* lines at the edges of a file, hashed as dpa_progrep_checksum() hashes
	 * them: from line 0, the empty line after the last newline, past the
	 * end, the whole file and one line more; and in a file without a final
	 * newline, its last line alone and with one more */
	{
		static const struct { int file; unsigned from, to; } cases[] = {
			{ 0, 0, 1 }, { 0, 6, 6 }, { 0, 7, 9 }, { 0, 1, 5 }, { 0, 2, 6 },
			{ 1, 2, 2 }, { 1, 2, 3 }, { 1, 3, 3 },
		};
		const char *body[2] = { "int g(int);\nint f(void)\n{\n\treturn g(1);\n}\n", "int a;\nint b;" };
		char src2[512];
		int n = (int)(sizeof(cases) / sizeof(cases[0]));

		snprintf(src2, sizeof(src2), "%s/src2.c", dir);
		write_file(src2, body[1]);
		len = snprintf(text, sizeof(text), "{'progrep':1,'record':'tu','tu':'00000000000000ab',"
			       "'file':'t.c','n_ps':%d,'n_css':0,'abi':2}\n", n);
		for (int i = 0; i < n; i++)
			len += snprintf(text + len, sizeof(text) - (size_t)len, rec, i, i,
					cases[i].file ? src2 : src, (int)cases[i].from, (int)cases[i].to,
					"0000000000000001");
		CU_ASSERT_EQUAL_FATAL(parse_q(&pr, obj, text, &err), 0);
		CU_ASSERT_EQUAL_FATAL(pr.n_fn, (uint32_t)n);
		for (int i = 0; i < n; i++) {
			const char *b = body[cases[i].file];

			CU_ASSERT_EQUAL(pr.fn[i].sum_state, DPA_PR_SUM_STALE);
			CU_ASSERT_EQUAL(pr.fn[i].source_sum, dpa_progrep_checksum(b, strlen(b), cases[i].from,
										   cases[i].to));
		}
		CU_ASSERT_EQUAL(pr.fn[1].source_sum, 0xcbf29ce484222325ULL);    /* nothing hashed */
		CU_ASSERT_EQUAL(pr.fn[2].source_sum, 0xcbf29ce484222325ULL);
		CU_ASSERT_EQUAL(pr.fn[5].source_sum, pr.fn[6].source_sum);
		CU_ASSERT_NOT_EQUAL(pr.fn[5].source_sum, 0xcbf29ce484222325ULL);
		dpa_progrep_release(&pr);
	}
}

/* ================================================================
 * Reading stays linear
 * ================================================================ */

/* The source of n functions f<first>.. of five lines each; without its
 * last newline when `cut`. */
static char *fn_source(size_t first, size_t n, bool cut, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	for (size_t j = 0; j < n; j++)
		fprintf(f, "int f%zu(int x)\n{\n\tint y = x * %zu;\n\treturn y + 1;\n}\n", first + j,
			first + j);
	fclose(f);
	if (cut && *len)
		text[--*len] = '\0';
	return text;
}

/*
 * A synthetic progrep of n functions (n a multiple of 16) in n/4 TUs, its
 * sources written into dir, parsed and checked record by record; returns
 * dpa_progrep_steps(). Every TU record comes first and the functions then
 * go round the TUs (a TU lookup that scanned would cost n/8 a record); half
 * the functions are in one source file that grows with n (a checksum that
 * scanned the file from its top would cost n/4 functions a record), the
 * others four to a file in n/8 small files without a final newline (the
 * last function of each is recorded as running two lines past the end).
 * Every 7th checksum is off by one: stale.
 */
static uint64_t parse_synthetic(size_t n, const char *dir)
{
	size_t n_tu = n / 4, n_small = n / 8, per_small = (n / 2) / n_small;
	char **src = calloc(n_small + 1, sizeof(*src));   /* [0]: the big file */
	size_t *src_len = calloc(n_small + 1, sizeof(*src_len));
	uint64_t *sum = calloc(n, sizeof(*sum)), steps;
	char path[600], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct dpa_progrep pr;
	struct dpa_error err = { { 0 } };
	uint32_t stale = 0;

	CU_ASSERT_FATAL(src && src_len && sum && f && n % 16 == 0);
	src[0] = fn_source(0, n / 2, false, &src_len[0]);
	snprintf(path, sizeof(path), "%s/big.c", dir);
	write_file(path, src[0]);
	for (size_t k = 1; k <= n_small; k++) {
		src[k] = fn_source((k - 1) * per_small, per_small, true, &src_len[k]);
		snprintf(path, sizeof(path), "%s/small%zu.c", dir, k);
		write_file(path, src[k]);
	}
	for (size_t t = 0; t < n_tu; t++)
		fprintf(f, "{\"progrep\":2,\"record\":\"tu\",\"tu\":\"%016zx\",\"file\":\"t%zu.c\","
			"\"n_ps\":4,\"n_css\":4,\"abi\":2}\n", 0x1000 + t, t);
	for (size_t i = 0; i < n; i++) {
		size_t tu = 0x1000 + i % n_tu, ps = i / n_tu, k, q;
		unsigned line, end;

		if (i % 2 == 0) {       /* in big.c */
			k = 0;
			q = i / 2;
			snprintf(path, sizeof(path), "%s/big.c", dir);
		} else {
			k = 1 + (i / 2) % n_small;
			q = (i / 2) / n_small;
			snprintf(path, sizeof(path), "%s/small%zu.c", dir, k);
		}
		line = (unsigned)(5 * q + 1);
		end = line + 4 + (k && q == per_small - 1 ? 2 : 0);
		sum[i] = dpa_progrep_checksum(src[k], src_len[k], line, end);
		fprintf(f, "{\"progrep\":2,\"record\":\"fn\",\"tu\":\"%016zx\",\"ps\":%zu,\"fn\":\"f%zu\","
			"\"file\":\"%s\",\"line\":%u,\"end_line\":%u,\"checksum\":\"%016llx\","
			"\"public\":true,\"first_site\":%zu,\"n_sites\":1,\"backedges\":0,"
			"\"params\":[{\"name\":\"x\",\"type\":\"int\",\"pointer\":false}],"
			"\"body\":[{\"use\":\"x\"},{\"call\":%zu}],\"unplaced\":[],"
			"\"calls\":[{\"site\":%zu,\"id\":\"%016zx:%zu\",\"callee\":\"g\",\"kind\":\"normal\","
			"\"line\":%u,\"col\":3,\"effects\":\"memory\",\"args\":[{\"from\":[{\"param\":\"x\"}]}],"
			"\"result\":\"temp\"}]}\n", tu, ps, i, path, line, end,
			(unsigned long long)(sum[i] ^ (i % 7 == 3)), ps, ps, ps, tu, ps, line + 3);
		stale += i % 7 == 3;
	}
	fclose(f);

	snprintf(path, sizeof(path), "%s/prog.o", dir);
	CU_ASSERT_EQUAL_FATAL(dpa_progrep_parse(&pr, path, text, len, &err), 0);
	CU_ASSERT_EQUAL(pr.n_tu, n_tu);
	CU_ASSERT_EQUAL_FATAL(pr.n_fn, n);
	CU_ASSERT_EQUAL(pr.n_sum[DPA_PR_SUM_OK], n - stale);
	CU_ASSERT_EQUAL(pr.n_sum[DPA_PR_SUM_STALE], stale);
	for (size_t i = 0; i < n; i++) {
		const struct dpa_pr_fn *fn = dpa_progrep_fn(&pr, 0x1000 + i % n_tu, (uint32_t)(i / n_tu));
		const struct dpa_pr_call *c = dpa_progrep_site(&pr, 0x1000 + i % n_tu, (uint32_t)(i / n_tu));
		char name[32];

		snprintf(name, sizeof(name), "f%zu", i);
		CU_ASSERT_PTR_EQUAL(fn, &pr.fn[i]);
		CU_ASSERT_PTR_EQUAL(c, &pr.fn[i].calls[0]);
		CU_ASSERT_STRING_EQUAL(pr.fn[i].name, name);
		CU_ASSERT_EQUAL(pr.fn[i].tu, i % n_tu);
		CU_ASSERT_EQUAL(pr.fn[i].source_sum, sum[i]);
		CU_ASSERT_EQUAL(pr.fn[i].sum_state, i % 7 == 3 ? DPA_PR_SUM_STALE : DPA_PR_SUM_OK);
	}
	steps = dpa_progrep_steps(&pr);
	dpa_progrep_release(&pr);
	CU_ASSERT_EQUAL(dpa_progrep_steps(&pr), 0);
	for (size_t k = 0; k <= n_small; k++)
		free(src[k]);
	free(src);
	free(src_len);
	free(sum);
	free(text);
	return steps;
}

/* Four times the program, about four times the work: a reader that went
 * quadratic again (a linear search per record, a scan from the top of a
 * source per function) would do about sixteen times the work, which its
 * step count shows without timing anything. */
static void test_parse_linear(void)
{
	const char *dir = dpa_test_tmpdir();
	char d1[512], d4[512];
	uint64_t s1, s4;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(d1, sizeof(d1), "%s/linear1", dir);
	snprintf(d4, sizeof(d4), "%s/linear4", dir);
	CU_ASSERT_FATAL(mkdir(d1, 0755) == 0 && mkdir(d4, 0755) == 0);
	s1 = parse_synthetic(1024, d1);
	s4 = parse_synthetic(4096, d4);
	CU_ASSERT(s1 >= 1024 * 10);     /* counted at all: records, lines indexed and hashed */
	if (s4 * 2 > s1 * 9) {          /* more than 4.5 times (today: 3.99) */
		printf("\n  steps: %llu for 1024 functions, %llu for 4096 (x%.2f)\n",
		       (unsigned long long)s1, (unsigned long long)s4, (double)s4 / (double)s1);
		CU_FAIL("reading a progrep is no longer linear in its size");
	}
}

static void test_read_files(void)
{
	struct dpa_progrep pr;
	struct dpa_error err = { { 0 } };
	char path[512];

	CU_ASSERT_EQUAL(dpa_progrep_read(&pr, "/nonexistent/a.out", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "/nonexistent/a.out: No such file or directory");
	dpa_progrep_release(&pr);
	snprintf(path, sizeof(path), "%s/text.o", dpa_test_tmpdir());
	write_file(path, "not ELF\n");
	CU_ASSERT_EQUAL(dpa_progrep_read(&pr, path, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "text.o: not an ELF file"));
	dpa_progrep_release(&pr);
	/* an ELF file without the section: 1, empty */
	snprintf(path, sizeof(path), "%s/libsym.so", dpa_test_dir());
	CU_ASSERT_EQUAL(dpa_progrep_read(&pr, path, &err), 1);
	CU_ASSERT_EQUAL(pr.n_fn, 0);
	CU_ASSERT_EQUAL(pr.n_tu, 0);
	dpa_progrep_release(&pr);
}

/* ================================================================
 * A profile mapped through a module's table
 * ================================================================ */

static const char mod_src[] =
	"#include <stdint.h>\n"
	"struct css { const char *callee, *file; uint32_t line, col, caller, callee_ps;\n"
	"             uint16_t kind, flags; uint32_t index; uint64_t tu_id; };\n"
	"_Static_assert(sizeof(struct css) == 48, \"dp_css_static is 48 bytes\");\n"
	"__attribute__((used)) static const struct css __deepprof_css[3] = {\n"
	"  { 0, 0, 3, 9, 0, 0, 1, 0, 0, 0x1122334455667788ULL },\n"
	"  { 0, 0, 4, 9, 0, 0, 1, 0, 1, 0x1122334455667788ULL },\n"
	"  { 0, 0, 5, 9, 1, 0, 1, 0, 2, 0x1122334455667788ULL },\n"
	"};\n"
	"int f(void) { return 1; }\n"
	"int g(void) { return 2; }\n";

#define MTU "{'progrep':1,'record':'tu','tu':'1122334455667788','file':'m.c','n_ps':2,'n_css':3,'abi':1}\n"
#define MFN(ps, name, first, n, calls) \
	"{'progrep':1,'record':'fn','tu':'1122334455667788','ps':" #ps ",'fn':'" name "','file':'m.c'," \
	"'line':1,'end_line':1,'checksum':'0000000000000000','public':true,'first_site':" #first "," \
	"'n_sites':" #n ",'backedges':0,'params':[],'body':[],'unplaced':[],'calls':[" calls "]}\n"
#define MCALL(s, callee) "{'site':" #s ",'id':'1122334455667788:" #s "','callee':'" callee "','kind':'normal'," \
	"'line':3,'col':9,'effects':'memory','args':[],'result':null}"

/* The address of `sym` in `lib` (nm), or 0. */
static uint64_t sym_addr(const char *lib, const char *sym)
{
	char cmd[1024], line[256], name[128], type;
	unsigned long long v;
	uint64_t r = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm '%s'", lib);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %c %127s", &v, &type, name) == 3 && !strcmp(name, sym))
			r = v;
	pclose(p);
	return r;
}

static void test_map_profile(void)
{
	const char *dir = dpa_test_tmpdir();
	char src[256], lib[256], txt[256], cmd[4096], rec[2048];
	struct dpa_profile p;
	struct dpa_progreps s;
	struct dpa_error err = { { 0 } };
	struct dpa_module mods[4];
	struct dpa_ps ps[5];
	struct dpa_css css[7];
	uint64_t tab, f, g;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(src, sizeof(src), "%s/m.c", dir);
	snprintf(lib, sizeof(lib), "%s/libm.so", dir);
	snprintf(txt, sizeof(txt), "%s/m.txt", dir);
	write_file(src, mod_src);
	snprintf(rec, sizeof(rec), "%s", MTU MFN(0, "f", 0, 2, MCALL(0, "x") "," MCALL(1, "y"))
		 MFN(1, "g", 2, 1, MCALL(2, "z")));
	for (char *c = rec; *c; c++)
		if (*c == '\'')
			*c = '"';
	write_file(txt, rec);
	snprintf(cmd, sizeof(cmd), "gcc -shared -fPIC -O0 -o '%s' '%s' && objcopy --add-section "
		 ".deepprof.progrep='%s' '%s'", lib, src, txt, lib);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	tab = sym_addr(lib, "__deepprof_css");
	f = sym_addr(lib, "f");
	g = sym_addr(lib, "g");
	CU_ASSERT_FATAL(tab && f && g);

	memset(&p, 0, sizeof(p));
	memset(mods, 0, sizeof(mods));
	memset(ps, 0, sizeof(ps));
	memset(css, 0, sizeof(css));
	p.path = "test.data";
	p.n_module = 3;
	p.module = mods;
	mods[1].path = lib;
	mods[2].path = "/nonexistent/lib.so";
	mods[3].path = lib;
	mods[3].build_id = "00";
	p.n_ps = 4;
	p.ps = ps;
	CU_ASSERT_FATAL(dpa_src_set(&p, DPA_PS_NAME, 1, dpa_str_id(&p, "<root>")) == 0);
	ps[2] = (struct dpa_ps){ .module = 1 };
	CU_ASSERT_FATAL(dpa_ps_set_offset(&p, 2, f) == 0);
	CU_ASSERT_FATAL(dpa_src_set(&p, DPA_PS_NAME, 2, dpa_str_id(&p, "f")) == 0);
	ps[3] = (struct dpa_ps){ .module = 1 };          /* unnamed: by its site */
	CU_ASSERT_FATAL(dpa_ps_set_offset(&p, 3, g) == 0);
	ps[4] = (struct dpa_ps){ .module = 1 };          /* no such function: */
	CU_ASSERT_FATAL(dpa_ps_set_offset(&p, 4, g) == 0);
	CU_ASSERT_FATAL(dpa_src_set(&p, DPA_PS_NAME, 4, dpa_str_id(&p, "h")) == 0);
	p.n_css = 6;
	p.css = css;
	css[1] = (struct dpa_css){ .caller_ps = 2, .module = 1 };
	CU_ASSERT_FATAL(dpa_css_set_offset(&p, 1, tab) == 0);
	css[2] = (struct dpa_css){ .caller_ps = 2, .module = 1 };
	CU_ASSERT_FATAL(dpa_css_set_offset(&p, 2, tab + 48) == 0);
	css[3] = (struct dpa_css){ .caller_ps = 3, .module = 1 };
	CU_ASSERT_FATAL(dpa_css_set_offset(&p, 3, tab + 96) == 0);
	css[4] = (struct dpa_css){ .caller_ps = 2, .module = 1 };   /* mid-record */
	CU_ASSERT_FATAL(dpa_css_set_offset(&p, 4, tab + 8) == 0);
	css[5] = (struct dpa_css){ .caller_ps = 2, .module = 1 };     /* in .text */
	CU_ASSERT_FATAL(dpa_css_set_offset(&p, 5, f + 4) == 0);
	css[6] = (struct dpa_css){ .caller_ps = 2, .module = 3 };       /* stale build */
	CU_ASSERT_FATAL(dpa_css_set_offset(&p, 6, tab) == 0);

	CU_ASSERT_EQUAL_FATAL(dpa_progreps_load(&s, &p, &err), 0);
	CU_ASSERT_EQUAL(s.mod[1].state, DPA_PR_LOADED);
	CU_ASSERT_EQUAL(s.mod[2].state, DPA_PR_UNREADABLE);
	CU_ASSERT_STRING_EQUAL(s.mod[2].msg, "/nonexistent/lib.so: No such file or directory");
	CU_ASSERT_EQUAL(s.mod[3].state, DPA_PR_MISMATCH);
	CU_ASSERT_EQUAL(s.n_loaded, 1);
	CU_ASSERT_EQUAL(s.n_unusable, 2);
	CU_ASSERT_EQUAL(s.n_absent, 0);
	CU_ASSERT_EQUAL(s.n_css_mapped, 3);
	CU_ASSERT_EQUAL(s.css[1].module, 1);
	CU_ASSERT_EQUAL(s.css[1].tu_id, 0x1122334455667788ULL);
	CU_ASSERT_EQUAL(s.css[1].site, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s.css[1].call);
	CU_ASSERT_STRING_EQUAL(s.css[1].call->callee, "x");
	CU_ASSERT_EQUAL(s.css[2].site, 1);
	CU_ASSERT_STRING_EQUAL(s.css[2].call->callee, "y");
	CU_ASSERT_EQUAL(s.css[3].site, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s.css[3].call);
	CU_ASSERT_STRING_EQUAL(s.css[3].call->callee, "z");
	CU_ASSERT_EQUAL(s.css[4].module, 0);
	CU_ASSERT_EQUAL(s.css[5].module, 0);
	CU_ASSERT_EQUAL(s.css[6].module, 0);
	CU_ASSERT_EQUAL(s.n_ps_mapped, 2);
	CU_ASSERT_EQUAL(s.ps[1].module, 0);
	CU_ASSERT_EQUAL(s.ps[2].module, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s.ps[2].fn);
	CU_ASSERT_STRING_EQUAL(s.ps[2].fn->name, "f");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s.ps[3].fn);
	CU_ASSERT_STRING_EQUAL(s.ps[3].fn->name, "g");
	CU_ASSERT_PTR_NULL(s.ps[4].fn);
	dpa_progreps_release(&s);

	/* a module whose progrep is malformed: an error naming the module file */
	write_file(txt, "{\"progrep\":1}\n");
	snprintf(cmd, sizeof(cmd), "objcopy --update-section .deepprof.progrep='%s' '%s'", txt, lib);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	CU_ASSERT_EQUAL(dpa_progreps_load(&s, &p, &err), -1);
	snprintf(rec, sizeof(rec), "%s: .deepprof.progrep line 1: record: missing", lib);
	CU_ASSERT_STRING_EQUAL(err.msg, rec);
	dpa_progreps_release(&s);
	dpa_src_release(&p);
	dpa_strtab_free(p.strings);
}

/* A lazy read (dpa_progreps_load_used()): the functions the profile maps
 * to are read whole, the others' heads only; a malformed rest of a function
 * never asked for is no error until dpa_progrep_fn_load() reads it, and then
 * the same one line as a full read's. */
static void test_map_profile_lazy(void)
{
	const char *dir = dpa_test_tmpdir();
	char src[256], lib[256], txt[256], cmd[4096], rec[4096], full_msg[512];
	struct dpa_profile p;
	struct dpa_progreps s;
	struct dpa_error err = { { 0 } };
	struct dpa_module mods[2];
	struct dpa_ps ps[3];
	struct dpa_css css[2];
	struct dpa_progrep *pr;
	struct dpa_pr_fn *k, *ok;
	uint64_t tab, f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(src, sizeof(src), "%s/lz.c", dir);
	snprintf(lib, sizeof(lib), "%s/liblz.so", dir);
	snprintf(txt, sizeof(txt), "%s/lz.txt", dir);
	write_file(src, mod_src);
	/* f (ps 0, sites 0-1) runs; g (ps 1, site 2) is well-formed and never
	 * runs; k (ps 2 of a TU of 3, site 3) never runs and its body names a
	 * site that is not its own */
	snprintf(rec, sizeof(rec), "%s",
		 "{'progrep':1,'record':'tu','tu':'1122334455667788','file':'m.c','n_ps':3,'n_css':4,'abi':1}\n"
		 MFN(0, "f", 0, 2, MCALL(0, "x") "," MCALL(1, "y"))
		 MFN(1, "g", 2, 1, MCALL(2, "z"))
		 "{'progrep':1,'record':'fn','tu':'1122334455667788','ps':2,'fn':'k','file':'m.c',"
		 "'line':1,'end_line':1,'checksum':'0000000000000000','public':true,'first_site':3,"
		 "'n_sites':1,'backedges':0,'params':[],'body':[{'call':9}],'unplaced':[],'calls':["
		 MCALL(3, "w") "]}\n");
	for (char *c = rec; *c; c++)
		if (*c == '\'')
			*c = '"';
	write_file(txt, rec);
	snprintf(cmd, sizeof(cmd), "gcc -shared -fPIC -O0 -o '%s' '%s' && objcopy --add-section "
		 ".deepprof.progrep='%s' '%s'", lib, src, txt, lib);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	tab = sym_addr(lib, "__deepprof_css");
	f = sym_addr(lib, "f");
	CU_ASSERT_FATAL(tab && f);

	memset(&p, 0, sizeof(p));
	memset(mods, 0, sizeof(mods));
	memset(ps, 0, sizeof(ps));
	memset(css, 0, sizeof(css));
	p.path = "test.data";
	p.n_module = 1;
	p.module = mods;
	mods[1].path = lib;
	p.n_ps = 2;
	p.ps = ps;
	CU_ASSERT_FATAL(dpa_src_set(&p, DPA_PS_NAME, 1, dpa_str_id(&p, "<root>")) == 0);
	ps[2] = (struct dpa_ps){ .module = 1 };
	CU_ASSERT_FATAL(dpa_ps_set_offset(&p, 2, f) == 0);
	CU_ASSERT_FATAL(dpa_src_set(&p, DPA_PS_NAME, 2, dpa_str_id(&p, "f")) == 0);
	p.n_css = 1;
	p.css = css;
	css[1] = (struct dpa_css){ .caller_ps = 2, .module = 1 };
	CU_ASSERT_FATAL(dpa_css_set_offset(&p, 1, tab) == 0);

	/* a full read rejects the section */
	CU_ASSERT_EQUAL(dpa_progreps_load(&s, &p, &err), -1);
	snprintf(full_msg, sizeof(full_msg), "%s: .deepprof.progrep line 4: body call: site 9 is "
		 "not one of k's sites (3..3)", lib);
	CU_ASSERT_STRING_EQUAL(err.msg, full_msg);
	dpa_progreps_release(&s);

	/* a lazy one reads f whole, g and k's heads */
	CU_ASSERT_EQUAL_FATAL(dpa_progreps_load_used(&s, &p, &err), 0);
	CU_ASSERT_EQUAL(s.n_ps_mapped, 1);
	CU_ASSERT_EQUAL(s.n_css_mapped, 1);
	pr = &s.mod[1].pr;
	CU_ASSERT_EQUAL_FATAL(pr->n_fn, 3);
	CU_ASSERT_FALSE(pr->fn[0].partial);
	CU_ASSERT_STRING_EQUAL(pr->fn[0].calls[1].callee, "y");
	CU_ASSERT_EQUAL(pr->fn[0].calls[1].col, 9);
	ok = &pr->fn[1];
	k = &pr->fn[2];
	CU_ASSERT_TRUE(ok->partial);
	CU_ASSERT_TRUE(k->partial);
	CU_ASSERT_STRING_EQUAL(k->name, "k");
	CU_ASSERT_EQUAL(k->first_site, 3);
	CU_ASSERT_EQUAL(k->n_sites, 1);
	CU_ASSERT_EQUAL(k->calls[0].site, 3);
	CU_ASSERT_EQUAL(k->calls[0].fn, 2);
	CU_ASSERT_PTR_EQUAL(dpa_progrep_site(pr, 0x1122334455667788ULL, 3), &k->calls[0]);
	CU_ASSERT_PTR_EQUAL(dpa_progrep_fn(pr, 0x1122334455667788ULL, 2), k);
	CU_ASSERT_PTR_NULL(k->calls[0].callee);         /* not read yet */
	CU_ASSERT_EQUAL(dpa_progreps_check(&s, &err), 0);
	/* g, asked for, is read whole, as a full read would */
	CU_ASSERT_EQUAL(dpa_progrep_fn_load(pr, ok), 0);
	CU_ASSERT_FALSE(ok->partial);
	CU_ASSERT_STRING_EQUAL(ok->calls[0].callee, "z");
	CU_ASSERT_EQUAL(ok->calls[0].line, 3);
	CU_ASSERT_EQUAL(ok->calls[0].effects, DPA_PR_EFF_MEMORY);
	CU_ASSERT_EQUAL(dpa_progrep_fn_load(pr, ok), 0);        /* once only */
	CU_ASSERT_EQUAL(dpa_progreps_check(&s, &err), 0);
	/* k's body is malformed: the full read's message, kept for the check */
	CU_ASSERT_EQUAL(dpa_progrep_fn_load(pr, k), -1);
	CU_ASSERT_TRUE(k->partial);
	CU_ASSERT_EQUAL(dpa_progreps_check(&s, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, full_msg);
	dpa_progreps_release(&s);

	/* a malformed head is an error of the lazy read too, with the same line */
	write_file(txt, "{\"progrep\":1,\"record\":\"tu\",\"tu\":\"1122334455667788\",\"file\":\"m.c\","
		   "\"n_ps\":3,\"n_css\":4,\"abi\":1}\n"
		   "{\"progrep\":1,\"record\":\"fn\",\"tu\":\"1122334455667788\",\"ps\":2,\"fn\":\"k\","
		   "\"file\":\"m.c\",\"line\":1,\"end_line\":1,\"checksum\":\"00\",\"public\":true,"
		   "\"first_site\":3,\"n_sites\":0,\"backedges\":0,\"params\":[],\"body\":[],"
		   "\"unplaced\":[],\"calls\":[]}\n");
	snprintf(cmd, sizeof(cmd), "objcopy --update-section .deepprof.progrep='%s' '%s'", txt, lib);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	CU_ASSERT_EQUAL(dpa_progreps_load_used(&s, &p, &err), -1);
	snprintf(full_msg, sizeof(full_msg), "%s: .deepprof.progrep line 2: k: checksum \"00\" is "
		 "not 16 hex digits", lib);
	CU_ASSERT_STRING_EQUAL(err.msg, full_msg);
	dpa_progreps_release(&s);
	dpa_src_release(&p);
	dpa_strtab_free(p.strings);
}

DPA_TEST_SUITE(progrep,
	       DPA_TEST(test_checksum),
	       DPA_TEST(test_parse_exact),
	       DPA_TEST(test_parse_errors),
	       DPA_TEST(test_parse_uses),
	       DPA_TEST(test_parse_deep),
	       DPA_TEST(test_parse_mutations),
	       DPA_TEST(test_sum_states),
	       DPA_TEST(test_parse_linear),
	       DPA_TEST(test_read_files),
	       DPA_TEST(test_map_profile),
	       DPA_TEST(test_map_profile_lazy));
