/*
 * test_feedback_file.c — feedback files on hand-filled feedbacks: the exact
 * JSON document, the reader's round trip and refusals, reading files of
 * either encoding (dpf_feedback_read_file()) and its messages, and
 * dpf_feedback_combine() on known speedups. The documents it writes go to
 * the unit directory (fb-*.json) for check-feedback to validate against
 * schemas/feedback.schema.json. Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "feedback_file.h"
#include "file_json.h"
#include "file_msgpack.h"
#include "recursion.h"
#include "unit.h"

/* ================================================================
 * A hand-filled feedback of a program "/w/fib2"
 * ================================================================ */

static struct dpf_place place(const char *fn, uint32_t line, uint32_t col, uint32_t site,
			      uint64_t sum)
{
	struct dpf_place p = { fn, "fib2.c", line, col, site != 0, 0x00000000deadbeefULL,
				  site, sum };

	if (!site)
		p.tu_id = 0;
	return p;
}

/*
 * One input; candidate 1 (accepted) in solve: a() at 12:5 and b() at 13:5,
 * two tasks, a dependence a -> b on x; candidate 2 (too cheap) in main with
 * no site ids; one var use, one recursion (3 levels), two hot/cold entries.
 * speedup is the first candidate's speedup (speedup_min/median/max equal).
 */
static void fill(struct dpf_feedback *fb, const char *path, const char *program, double speedup)
{
	struct dpf_candidate *c;
	struct dpf_call *k;
	struct dpf_dep *d;
	double *lv;

	memset(fb, 0, sizeof(*fb));
	fb->version = DPF_FEEDBACK_VERSION;
	fb->program = dpf_strdup(fb, program);
	fb->n_input = 1;
	fb->input = dpf_alloc(fb, sizeof(*fb->input));
	fb->input[0] = (struct dpf_input){ dpf_strdup(fb, path), 0x0a1b2c3d,
					      fb->program, 1000000, 2000000, DPF_CSCS, true };
	dpf_options_default(&fb->opt);
	fb->opt.max_tasks = 2;
	fb->basis = DPF_CSCS;
	fb->ns_per_unit = 2.0;
	fb->program_cost = 1000000;

	fb->n_cand = 2;
	fb->cand = c = dpf_alloc(fb, 2 * sizeof(*c));
	c[0].id = 1;
	c[0].proc = place("solve", 10, 1, 0, 0x1122334455667788ULL);
	c[0].executions = 100;
	c[0].n_calls = 2;
	c[0].calls = k = dpf_alloc(fb, 2 * sizeof(*k));
	k[0] = (struct dpf_call){ place("solve", 12, 5, 3, 0x1122334455667788ULL), "a", 4000, 0 };
	k[1] = (struct dpf_call){ place("solve", 13, 5, 4, 0x1122334455667788ULL), "b", 3000, 1 };
	c[0].n_tasks = 2;
	c[0].n_deps = 1;
	c[0].deps = d = dpf_alloc(fb, sizeof(*d));
	*d = (struct dpf_dep){ 0, 1, "x", 0.25, 0.75, true, false };
	c[0].safety = DPF_SAFE;
	c[0].safety_why = "a and b are pure";
	c[0].verdict = DPF_ACCEPTED;
	c[0].verdict_why = "speedup above 1.01";
	c[0].partitions_tried = 2;
	c[0].search_complete = true;
	c[0].seq_time = 7000;
	c[0].par_time = 7000 / speedup;
	c[0].overhead = 500;
	c[0].speedup = speedup;
	c[0].program_speedup = 1.5;
	c[0].n_inputs_seen = 1;
	c[0].speedup_min = c[0].speedup_median = c[0].speedup_max = speedup;

	c[1].id = 2;
	c[1].proc = place("main", 20, 1, 0, 0);
	c[1].context = "main";
	c[1].executions = 1;
	c[1].n_calls = 2;
	c[1].calls = k = dpf_alloc(fb, 2 * sizeof(*k));
	k[0] = (struct dpf_call){ place("main", 21, 3, 0, 0), "c", 10, 0 };
	k[1] = (struct dpf_call){ place("main", 22, 3, 0, 0), NULL, 10, 0 };
	c[1].n_tasks = 1;
	c[1].safety = DPF_UNKNOWN_MEMORY;
	c[1].verdict = DPF_TOO_CHEAP;
	c[1].verdict_why = "calls below 20 us";
	c[1].seq_time = c[1].par_time = 20;
	c[1].speedup = c[1].program_speedup = 1;
	c[1].n_inputs_seen = 1;
	c[1].speedup_min = c[1].speedup_median = c[1].speedup_max = 1;

	fb->n_var_use = 1;
	fb->var_use = dpf_alloc(fb, sizeof(*fb->var_use));
	fb->var_use[0] = (struct dpf_var_use){ place("solve", 12, 5, 3, 0x1122334455667788ULL),
						  "a", -1, "return", DPF_PRODUCED, 1000, 0.25,
						  4000, true, "return after the loop" };
	fb->n_rec = 1;
	fb->rec = dpf_alloc(fb, sizeof(*fb->rec));
	fb->rec[0].at = place("fib", 2, 1, 0, 0xabcdef0123456789ULL);
	fb->rec[0].clique = 3;
	fb->rec[0].type = DPA_REC_DIVIDE;
	fb->rec[0].from_progrep = true;
	fb->rec[0].members = 1;
	fb->rec[0].entry_calls = 1;
	fb->rec[0].internal_calls = 6;
	fb->rec[0].depth = 3;
	fb->rec[0].cost_per_entry = 70;
	fb->rec[0].n_levels = 3;
	fb->rec[0].level_cost = lv = dpf_alloc(fb, 3 * sizeof(double));
	lv[0] = 70;
	lv[1] = 30;
	lv[2] = 10;
	fb->rec[0].cutoff_depth = 0;
	fb->rec[0].why = "levels too cheap";
	fb->rec[0].rec_sites = 2;
	fb->rec[0].branching = 2;
	fb->rec[0].per_call = 10;
	fb->rec[0].spawn_overhead = 900;
	fb->rec[0].own_per_call = 10;
	fb->rec[0].cores = 2;
	fb->n_hot = 2;
	fb->hot = dpf_alloc(fb, 2 * sizeof(*fb->hot));
	fb->hot[0] = (struct dpf_hot){ DPF_SITE, DPF_HOT,
					  place("solve", 12, 5, 3, 0x1122334455667788ULL), "a", 100,
					  4000, 3500, 4000, 8000, 100 };
	fb->hot[1] = (struct dpf_hot){ DPF_PROC, DPF_NEVER, place("unused", 30, 1, 0, 0),
					  NULL, 0, 0, 0, 0, 0, 0 };
}

/* What fill(fb, "Deep.data", "/w/fib2", 2) must be, compact. */
#define PL_SOLVE(line, col, site) \
	"{\"fn\":\"solve\",\"file\":\"fib2.c\",\"line\":" #line ",\"col\":" #col ",\"site\":" site \
	",\"checksum\":\"1122334455667788\"}"
static const char expect_doc[] =
	"{\"format\":\"deepprof-feedback\",\"version\":1,\"min_version\":1,"
	"\"program\":\"/w/fib2\",\"basis\":\"cscs\",\"ns_per_unit\":2.0,"
	"\"ns_per_unit_source\":\"instrumented run\",\"program_cost\":1000000,"
	"\"inputs\":[{\"path\":\"Deep.data\",\"crc32\":\"0a1b2c3d\",\"program\":\"/w/fib2\","
	"\"basis\":\"cscs\",\"cscs\":1000000,\"cpu_ns\":2000000,\"has_progrep\":true}],"
	"\"options\":{\"basis\":\"auto\",\"call_threshold_ns\":20000.0,\"proc_threshold_ns\":50000.0,"
	"\"speedup_threshold\":1.01,\"max_tasks\":2,\"search_budget\":1000,"
	"\"hot_threshold_ns\":100000.0,\"rare_calls\":1,\"per_context\":false,\"list_share\":0.01,"
	"\"program_time_ns\":0.0},"
	"\"overheads\":{\"source\":\"defaults\",\"spawn_cost_ns\":400.0,\"spawn_delay_ns\":1200.0,"
	"\"barrier_cost_ns\":200.0,\"signal_cost_ns\":100.0,\"wait_cost_ns\":100.0,"
	"\"wakeup_delay_ns\":5000.0},"
	"\"candidates\":[{\"id\":1,\"proc\":" PL_SOLVE(10, 1, "null") ",\"context\":null,"
	"\"executions\":100,\"n_tasks\":2,\"calls\":["
	"{\"at\":" PL_SOLVE(12, 5, "\"00000000deadbeef:3\"") ",\"callee\":\"a\",\"cost\":4000.0,\"task\":0},"
	"{\"at\":" PL_SOLVE(13, 5, "\"00000000deadbeef:4\"") ",\"callee\":\"b\",\"cost\":3000.0,\"task\":1}],"
	"\"deps\":[{\"from\":0,\"to\":1,\"var\":\"x\",\"produced\":0.25,\"consumed\":0.75,\"known\":true}],"
	"\"safety\":\"safe\",\"safety_why\":\"a and b are pure\",\"check_inputs\":0,\"check_executions\":0,\"reach\":[],\"verdict\":\"accepted\","
	"\"verdict_why\":\"speedup above 1.01\",\"partitions_tried\":2,\"search_complete\":true,"
	"\"seq_time\":7000.0,\"par_time\":3500.0,\"overhead\":500.0,\"speedup\":2.0,"
	"\"program_speedup\":1.5,\"n_inputs_seen\":1,\"speedup_min\":2.0,\"speedup_median\":2.0,"
	"\"speedup_max\":2.0},"
	"{\"id\":2,\"proc\":{\"fn\":\"main\",\"file\":\"fib2.c\",\"line\":20,\"col\":1,\"site\":null,"
	"\"checksum\":null},\"context\":\"main\",\"executions\":1,\"n_tasks\":1,\"calls\":["
	"{\"at\":{\"fn\":\"main\",\"file\":\"fib2.c\",\"line\":21,\"col\":3,\"site\":null,\"checksum\":null},"
	"\"callee\":\"c\",\"cost\":10.0,\"task\":0},"
	"{\"at\":{\"fn\":\"main\",\"file\":\"fib2.c\",\"line\":22,\"col\":3,\"site\":null,\"checksum\":null},"
	"\"callee\":null,\"cost\":10.0,\"task\":0}],\"deps\":[],"
	"\"safety\":\"unknown_memory\",\"safety_why\":null,\"check_inputs\":0,\"check_executions\":0,\"reach\":[],\"verdict\":\"too_cheap\","
	"\"verdict_why\":\"calls below 20 us\",\"partitions_tried\":0,\"search_complete\":false,"
	"\"seq_time\":20.0,\"par_time\":20.0,\"overhead\":0.0,\"speedup\":1.0,\"program_speedup\":1.0,"
	"\"n_inputs_seen\":1,\"speedup_min\":1.0,\"speedup_median\":1.0,\"speedup_max\":1.0}],"
	"\"var_use\":[{\"at\":" PL_SOLVE(12, 5, "\"00000000deadbeef:3\"") ",\"callee\":\"a\",\"arg\":-1,"
	"\"var\":\"return\",\"use\":\"produced\",\"time\":1000.0,\"fraction\":0.25,\"call_cost\":4000.0,"
	"\"known\":true,\"why\":\"return after the loop\"}],"
	"\"recursion\":[{\"at\":{\"fn\":\"fib\",\"file\":\"fib2.c\",\"line\":2,\"col\":1,\"site\":null,"
	"\"checksum\":\"abcdef0123456789\"},\"clique\":3,\"type\":\"divide_and_conquer\","
	"\"from_progrep\":true,\"members\":1,\"entry_calls\":1,\"internal_calls\":6,\"depth\":3.0,"
	"\"cost_per_entry\":70.0,\"level_cost\":[70.0,30.0,10.0],\"cutoff_depth\":0,"
	"\"why\":\"levels too cheap\",\"rec_sites\":2,\"branching\":2,\"per_call\":10.0,"
	"\"spawn_overhead\":900.0,"
	"\"own_per_call\":10.0,\"combine_cost\":0.0,\"cores\":2,\"par_cost\":0.0}],"
	"\"hot_cold\":[{\"kind\":\"site\",\"temp\":\"hot\",\"at\":" PL_SOLVE(12, 5, "\"00000000deadbeef:3\"")
	",\"callee\":\"a\",\"calls\":100,\"mean\":4000.0,\"median\":3500.0,\"mean_cscs\":4000.0,"
	"\"mean_ns\":8000.0,\"outer_calls\":100},"
	"{\"kind\":\"proc\",\"temp\":\"never\",\"at\":{\"fn\":\"unused\",\"file\":\"fib2.c\",\"line\":30,"
	"\"col\":1,\"site\":null,\"checksum\":null},\"callee\":null,\"calls\":0,\"mean\":0.0,"
	"\"median\":0.0,\"mean_cscs\":0.0,\"mean_ns\":0.0,\"outer_calls\":0}]}";

/* Save doc as dpa_test_dir()/name for check-feedback's schema validation. */
static void save(const json_t *doc, const char *name)
{
	char path[4096];

	/* the unit directory may not exist yet (no fixture built): mkdir -p */
	snprintf(path, sizeof(path), "%s/", dpa_test_dir());
	for (char *s = path + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(path, 0777);
			*s = '/';
		}
	snprintf(path, sizeof(path), "%s/%s", dpa_test_dir(), name);
	CU_ASSERT_EQUAL(json_dump_file(doc, path, JSON_INDENT(2)), 0);
}

static char *compact(const json_t *doc)
{
	return json_dumps(doc, JSON_COMPACT);
}

/* ================================================================
 * The writer and the reader
 * ================================================================ */

static void test_write_exact(void)
{
	struct dpf_feedback fb;
	struct dpa_error err = { { 0 } };
	json_t *doc;
	char *s;

	fill(&fb, "Deep.data", "/w/fib2", 2);
	doc = dpf_feedback_to_json(&fb, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	s = compact(doc);
	CU_ASSERT_STRING_EQUAL(s, expect_doc);
	if (strcmp(s, expect_doc))
		fprintf(stderr, "\ngot  %s\nwant %s\n", s, expect_doc);
	save(doc, "fb-hand.json");
	free(s);
	json_decref(doc);
	dpf_feedback_release(&fb);
	CU_ASSERT_PTR_NULL(fb.pool);
}

static void test_read_round_trip(void)
{
	struct dpf_feedback fb, back;
	struct dpa_error err = { { 0 } };
	json_t *doc, *doc2;

	fill(&fb, "Deep.data", "/w/fib2", 2);
	fb.opt.basis = DPF_TICKS;
	fb.opt.per_context = true;
	strcpy(fb.opt.ov.source, "cal.json");
	doc = dpf_feedback_to_json(&fb, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL_FATAL(dpf_feedback_from_json(&back, doc, "x.json", &err), 0);
	/* the fields themselves */
	CU_ASSERT_EQUAL(back.n_cand, 2);
	CU_ASSERT_EQUAL(back.cand[0].calls[1].at.has_site, true);
	CU_ASSERT_EQUAL(back.cand[0].calls[1].at.tu_id, 0xdeadbeefULL);
	CU_ASSERT_EQUAL(back.cand[0].calls[1].at.site, 4);
	CU_ASSERT_EQUAL(back.cand[0].proc.checksum, 0x1122334455667788ULL);
	CU_ASSERT_EQUAL(back.cand[1].calls[0].at.has_site, false);
	CU_ASSERT_PTR_NULL(back.cand[1].calls[1].callee);
	CU_ASSERT_STRING_EQUAL(back.cand[1].context, "main");
	CU_ASSERT_EQUAL(back.cand[0].deps[0].produced, 0.25);
	CU_ASSERT_EQUAL(back.input[0].crc32, 0x0a1b2c3d);
	CU_ASSERT_EQUAL(back.opt.basis, DPF_TICKS);
	CU_ASSERT_EQUAL(back.opt.per_context, true);
	CU_ASSERT_EQUAL(back.opt.list_share, 0.01);
	CU_ASSERT_STRING_EQUAL(back.opt.ov.source, "cal.json");
	CU_ASSERT_EQUAL(back.rec[0].n_levels, 3);
	CU_ASSERT_EQUAL(back.rec[0].level_cost[2], 10);
	CU_ASSERT_EQUAL(back.rec[0].type, DPA_REC_DIVIDE);
	CU_ASSERT_EQUAL(back.var_use[0].arg, -1);
	CU_ASSERT_EQUAL(back.hot[1].temp, DPF_NEVER);
	CU_ASSERT_EQUAL(back.hot[0].outer_calls, 100);
	CU_ASSERT_PTR_NOT_NULL(dpf_feedback_candidate(&back, 2));
	CU_ASSERT_PTR_NULL(dpf_feedback_candidate(&back, 3));
	/* and the whole: written again, the same document */
	doc2 = dpf_feedback_to_json(&back, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc2);
	CU_ASSERT_TRUE(json_equal(doc, doc2));
	save(doc2, "fb-roundtrip.json");
	json_decref(doc);
	json_decref(doc2);
	dpf_feedback_release(&fb);
	dpf_feedback_release(&back);
}

/* Read doc after edit; expect -1 and exactly msg. */
static void refuse(const char *edit_json_path, json_t *value, const char *msg)
{
	struct dpf_feedback fb, back;
	struct dpa_error err = { { 0 } };
	json_t *doc;

	fill(&fb, "Deep.data", "/w/fib2", 2);
	doc = dpf_feedback_to_json(&fb, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	if (edit_json_path) {
		/* "key" or "list.index.key" */
		char buf[128], *a, *b, *c;
		json_t *o = doc;

		snprintf(buf, sizeof(buf), "%s", edit_json_path);
		a = strtok(buf, ".");
		b = strtok(NULL, ".");
		c = strtok(NULL, ".");
		if (b) {
			o = json_array_get(json_object_get(doc, a), atoi(b));
			a = c;
		}
		if (value)
			json_object_set_new(o, a, value);
		else
			json_object_del(o, a);
	}
	CU_ASSERT_EQUAL(dpf_feedback_from_json(&back, doc, "in.json", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
	if (strcmp(err.msg, msg))
		fprintf(stderr, "\ngot  %s\nwant %s\n", err.msg, msg);
	CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
	dpf_feedback_release(&back);
	json_decref(doc);
	dpf_feedback_release(&fb);
}

static void test_read_refuses(void)
{
	struct dpf_feedback back;
	struct dpa_error err = { { 0 } };
	json_t *arr = json_array();

	CU_ASSERT_EQUAL(dpf_feedback_from_json(&back, arr, "a.json", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "a.json: feedback: not a feedback file (not a JSON object)");
	dpf_feedback_release(&back);
	json_decref(arr);
	refuse("format", json_string("deepprof-calibration"),
	       "in.json: feedback: not a feedback file (\"format\" is not \"deepprof-feedback\")");
	refuse("min_version", json_integer(2),
	       "in.json: feedback: version 1 (min_version 2) is not readable by this deepprof "
	       "(version 1)");
	refuse("version", json_string("1"), "in.json: feedback: version: not an integer");
	refuse("candidates", NULL, "in.json: feedback: candidates: missing");
	refuse("candidates.1.speedup", json_string("fast"),
	       "in.json: feedback: candidates[1].speedup: not a number");
	refuse("candidates.0.verdict", json_string("maybe"),
	       "in.json: feedback: candidates[0].verdict: unknown value 'maybe'");
	refuse("candidates.0.safety", json_string("sa\nfe"),
	       "in.json: feedback: candidates[0].safety: unknown value 'sa?fe'");
	refuse("hot_cold.0.calls", json_integer(-3),
	       "in.json: feedback: hot_cold[0].calls: -3 out of range");
	refuse("inputs.0.crc32", json_string("xyz"),
	       "in.json: feedback: inputs[0].crc32: 'xyz' is not 8 hex digits");
	refuse("candidates.0.seq_time", json_real(-1),
	       "in.json: feedback: candidates[0].seq_time: -1 is negative");
	refuse("var_use.0.fraction", json_real(1.5),
	       "in.json: feedback: var_use[0].fraction: 1.5 is above 1");
	refuse("candidates.1.id", json_integer(1),
	       "in.json: feedback: candidate id 1 appears twice");
	{
		/* a place's site that is not <16 hex>:<decimal> */
		struct dpf_feedback fb;
		json_t *doc, *at;

		fill(&fb, "Deep.data", "/w/fib2", 2);
		doc = dpf_feedback_to_json(&fb, &err);
		at = json_object_get(json_array_get(json_object_get(doc, "var_use"), 0), "at");
		json_object_set_new(at, "site", json_string("deadbeef:3"));
		CU_ASSERT_EQUAL(dpf_feedback_from_json(&back, doc, "in.json", &err), -1);
		CU_ASSERT_STRING_EQUAL(err.msg, "in.json: feedback: var_use[0].at.site: 'deadbeef:3' "
				       "is not <16 hex digits>:<decimal>");
		dpf_feedback_release(&back);
		json_decref(doc);
		dpf_feedback_release(&fb);
	}
}

/* ================================================================
 * Files: dpf_feedback_read_file()
 * ================================================================ */

/* Write len bytes of buf to dpa_test_path(name); returns that path. */
static const char *put_file(const char *name, const void *buf, size_t len)
{
	const char *path = dpa_test_path(name);
	FILE *f = fopen(path, "wb");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(buf, 1, len, f), len);
	CU_ASSERT_EQUAL(fclose(f), 0);
	return path;
}

/* Read `path`: it must fail with one line "<path><rest>" (rest: a prefix of
 * what follows the path). */
static void read_fails(const char *path, const char *rest)
{
	struct dpf_feedback fb;
	struct dpa_error err = { { 0 } };
	char want[1024];

	snprintf(want, sizeof(want), "%s%s", path, rest);
	CU_ASSERT_EQUAL(dpf_feedback_read_file(&fb, path, &err), -1);
	CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
	CU_ASSERT_EQUAL(strncmp(err.msg, want, strlen(want)), 0);
	if (strncmp(err.msg, want, strlen(want)))
		fprintf(stderr, "\ngot  %s\nwant %s...\n", err.msg, want);
	dpf_feedback_release(&fb);
}

/* Read `path`: it must be the hand-filled feedback. */
static void read_ok(const char *path)
{
	struct dpf_feedback fb;
	struct dpa_error err = { { 0 } };

	CU_ASSERT_EQUAL(dpf_feedback_read_file(&fb, path, &err), 0);
	if (err.msg[0])
		fprintf(stderr, "\n%s\n", err.msg);
	CU_ASSERT_EQUAL(fb.n_cand, 2);
	CU_ASSERT_EQUAL(fb.n_rec, 1);
	CU_ASSERT_STRING_EQUAL(fb.program, "/w/fib2");
	dpf_feedback_release(&fb);
}

static void test_read_file(void)
{
	struct dpf_feedback fb;
	struct dpa_error err = { { 0 } };
	json_t *doc;
	char *js, *mp;
	size_t jn, mn;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dpa_test_tmpdir());
	fill(&fb, "Deep.data", "/w/fib2", 2);
	doc = dpf_feedback_to_json(&fb, &err);
	dpf_feedback_release(&fb);      /* fb is read into again below */
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	js = json_dumps(doc, JSON_INDENT(2));
	CU_ASSERT_PTR_NOT_NULL_FATAL(js);
	jn = strlen(js);
	CU_ASSERT_EQUAL_FATAL(dpf_msgpack_from_json(doc, &mp, &mn), 0);

	/* both encodings, told by the content whatever the name says */
	read_ok(put_file("f.json", js, jn));
	read_ok(put_file("f.msgpack", mp, mn));
	read_ok(put_file("json-named.msgpack", js, jn));
	read_ok(put_file("msgpack-named.json", mp, mn));
	read_ok(put_file("f.feedback", mp, mn));

	/* missing, empty, truncated, corrupt, too new: one line naming the file */
	read_fails(dpa_test_path("none.json"), ": cannot read: No such file or directory");
	read_fails(put_file("empty.json", "", 0), ": feedback: the file is empty");
	read_fails(put_file("empty.msgpack", "", 0), ": feedback: the file is empty");
	read_fails(put_file("cut.json", js, jn / 2), ": feedback: not JSON: line ");
	read_fails(put_file("cut.msgpack", mp, mn / 2),
		   ": feedback: truncated or corrupt MessagePack");
	read_fails(put_file("bad.json", "{ nope", 6), ": feedback: not JSON: line 1: ");
	read_fails(put_file("bad.msgpack", "\x81\xc1", 2),
		   ": feedback: truncated or corrupt MessagePack");
	read_fails(put_file("bad.data", "DEEPPROF", 8), ": feedback: not JSON: line 1: ");
	read_fails(put_file("array.msgpack", "\x92\x01\x02", 3),
		   ": feedback: not a feedback file (not a JSON object)");
	json_object_set_new(doc, "version", json_integer(99));
	json_object_set_new(doc, "min_version", json_integer(99));
	free(js);
	js = json_dumps(doc, JSON_INDENT(2));
	read_fails(put_file("new.json", js, strlen(js)),
		   ": feedback: version 99 (min_version 99) is not readable by this deepprof "
		   "(version 1)");
	/* a control character in the name does not break the line */
	memset(&err, 0, sizeof(err));
	CU_ASSERT_EQUAL(dpf_feedback_read_file(&fb, "no\nsuch.json", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "no?such.json: cannot read: No such file or directory");
	dpf_feedback_release(&fb);

	free(js);
	free(mp);
	json_decref(doc);
}

static void test_write_refuses_nan(void)
{
	struct dpf_feedback fb;
	struct dpa_error err = { { 0 } };

	fill(&fb, "Deep.data", "/w/fib2", 2);
	fb.cand[0].par_time = 0;
	fb.cand[0].speedup = 1.0 / fb.cand[0].par_time;
	CU_ASSERT_PTR_NULL(dpf_feedback_to_json(&fb, &err));
	CU_ASSERT_STRING_EQUAL(err.msg, "feedback: candidate 1.speedup is not a finite number");
	dpf_feedback_release(&fb);
}

/* ================================================================
 * Combining
 * ================================================================ */

static void test_combine_three(void)
{
	struct dpf_feedback in[3], out;
	struct dpa_error err = { { 0 } };
	const double sp[3] = { 1.75, 1.25, 1.5 };
	const char *paths[3] = { "a.data", "b.data", "c.data" };
	json_t *doc;

	for (int i = 0; i < 3; i++)
		fill(&in[i], paths[i], i == 1 ? "./fib2" : "/w/fib2", sp[i]);
	/* input c's second candidate is elsewhere: it stays on its own */
	in[2].cand[1].calls[0].at.line = 99;
	CU_ASSERT_EQUAL_FATAL(dpf_feedback_combine(&out, in, 3, &err), 0);
	CU_ASSERT_STRING_EQUAL(out.program, "/w/fib2");
	CU_ASSERT_EQUAL(out.n_input, 3);
	CU_ASSERT_STRING_EQUAL(out.input[1].path, "b.data");
	CU_ASSERT_EQUAL_FATAL(out.n_cand, 3);
	/* the accepted one first: seen 3 times, median 1.5 is c's estimate */
	CU_ASSERT_EQUAL(out.cand[0].id, 1);
	CU_ASSERT_EQUAL(out.cand[0].verdict, DPF_ACCEPTED);
	CU_ASSERT_EQUAL(out.cand[0].n_inputs_seen, 3);
	CU_ASSERT_EQUAL(out.cand[0].speedup_min, 1.25);
	CU_ASSERT_EQUAL(out.cand[0].speedup_median, 1.5);
	CU_ASSERT_EQUAL(out.cand[0].speedup_max, 1.75);
	CU_ASSERT_EQUAL(out.cand[0].speedup, 1.5);
	CU_ASSERT_EQUAL(out.cand[0].par_time, 7000 / 1.5);
	/* the rejected ones by program speedup (equal) then first appearance */
	CU_ASSERT_EQUAL(out.cand[1].id, 2);
	CU_ASSERT_EQUAL(out.cand[1].n_inputs_seen, 2);
	CU_ASSERT_EQUAL(out.cand[1].calls[0].at.line, 21);
	CU_ASSERT_EQUAL(out.cand[2].id, 3);
	CU_ASSERT_EQUAL(out.cand[2].n_inputs_seen, 1);
	CU_ASSERT_EQUAL(out.cand[2].calls[0].at.line, 99);
	/* the unions: identical entries once */
	CU_ASSERT_EQUAL(out.n_hot, 2);
	CU_ASSERT_EQUAL(out.n_rec, 1);
	CU_ASSERT_EQUAL(out.n_var_use, 1);
	CU_ASSERT_EQUAL(out.rec[0].level_cost[1], 30);
	/* out owns its strings: the inputs can go */
	for (int i = 0; i < 3; i++)
		dpf_feedback_release(&in[i]);
	CU_ASSERT_STRING_EQUAL(out.cand[0].calls[1].callee, "b");
	CU_ASSERT_STRING_EQUAL(out.cand[0].deps[0].var, "x");
	doc = dpf_feedback_to_json(&out, &err);
	CU_ASSERT_PTR_NOT_NULL(doc);
	if (doc)
		save(doc, "fb-combined.json");
	json_decref(doc);
	dpf_feedback_release(&out);
}

static void test_combine_two_median(void)
{
	struct dpf_feedback in[2], out;
	struct dpa_error err = { { 0 } };

	fill(&in[0], "a.data", "fib2", 2.0);
	fill(&in[1], "b.data", "fib2", 1.5);
	CU_ASSERT_EQUAL_FATAL(dpf_feedback_combine(&out, in, 2, &err), 0);
	CU_ASSERT_EQUAL(out.cand[0].n_inputs_seen, 2);
	CU_ASSERT_EQUAL(out.cand[0].speedup_min, 1.5);
	CU_ASSERT_EQUAL(out.cand[0].speedup_median, 1.75);
	CU_ASSERT_EQUAL(out.cand[0].speedup_max, 2.0);
	/* the representative: the lower middle one, b's */
	CU_ASSERT_EQUAL(out.cand[0].speedup, 1.5);
	CU_ASSERT_EQUAL(out.n_cand, 2);
	dpf_feedback_release(&out);
	/* a different site id is a different place */
	in[1].cand[0].calls[0].at.site = 7;
	CU_ASSERT_EQUAL_FATAL(dpf_feedback_combine(&out, in, 2, &err), 0);
	CU_ASSERT_EQUAL(out.n_cand, 3);
	CU_ASSERT_EQUAL(out.cand[0].n_inputs_seen, 1);
	CU_ASSERT_EQUAL(out.cand[0].speedup, 2.0);
	CU_ASSERT_EQUAL(out.cand[1].speedup, 1.5);
	dpf_feedback_release(&out);
	dpf_feedback_release(&in[0]);
	dpf_feedback_release(&in[1]);
}

static void test_combine_programs_differ(void)
{
	struct dpf_feedback in[2], out;
	struct dpa_error err = { { 0 } };

	fill(&in[0], "a.data", "/w/fib2", 2.0);
	fill(&in[1], "b.data", "/w/sort", 2.0);
	CU_ASSERT_EQUAL(dpf_feedback_combine(&out, in, 2, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "b.data: a profile of 'sort', not of 'fib2' like a.data");
	CU_ASSERT_PTR_NULL(out.pool);
	CU_ASSERT_EQUAL(dpf_feedback_combine(&out, in, 0, &err), -1);
	in[1].program = in[0].program;
	in[1].basis = DPF_TICKS;
	CU_ASSERT_EQUAL(dpf_feedback_combine(&out, in, 2, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "b.data: its estimates rest on ticks, those of a.data on "
			       "cscs (--basis chooses one for both)");
	dpf_feedback_release(&in[0]);
	dpf_feedback_release(&in[1]);
}

DPA_TEST_SUITE(feedback_file, DPA_TEST(test_write_exact), DPA_TEST(test_read_round_trip),
	       DPA_TEST(test_read_refuses), DPA_TEST(test_read_file),
	       DPA_TEST(test_write_refuses_nan),
	       DPA_TEST(test_combine_three), DPA_TEST(test_combine_two_median),
	       DPA_TEST(test_combine_programs_differ));
