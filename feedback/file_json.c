/*
 * file_json.c — a feedback as the JSON document of a feedback file
 * (schemas/feedback.md) and that document read back into a feedback.
 * Part of deepprof's feedback library. MIT licence.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_json.h"
#include "recursion.h"
#include "utf8.h"

/* ================================================================
 * Writing
 * ================================================================ */

/* The writer's state: the first error wins. */
struct wr {
	struct dpa_error *err;
	bool failed;
};

static void wr_fail(struct wr *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Record the first failure in *w->err ("feedback: ..."). */
static void wr_fail(struct wr *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (w->failed)
		return;
	w->failed = true;
	if (!w->err)
		return;
	n = snprintf(w->err->msg, sizeof(w->err->msg), "feedback: ");
	va_start(ap, fmt);
	vsnprintf(w->err->msg + n, sizeof(w->err->msg) - n, fmt, ap);
	va_end(ap);
}

/* Set obj[key] = v (consumed); a NULL v (out of memory) fails *w. */
static void put(struct wr *w, json_t *obj, const char *key, json_t *v)
{
	if (!v || json_object_set_new(obj, key, v) < 0)
		wr_fail(w, "out of memory writing '%s'", key);
}

/* A JSON integer for an unsigned count (clamped to INT64_MAX). */
static json_t *jint(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* A JSON real; a value that is not finite fails *w naming where it is. */
static json_t *jreal(struct wr *w, double v, const char *where, const char *key)
{
	if (!isfinite(v)) {
		wr_fail(w, "%s.%s is not a finite number", where, key);
		return json_null();
	}
	return json_real(v);
}

/* A string (bytes that are not UTF-8 as U+FFFD) or null. */
static json_t *jstr(const char *s)
{
	return s ? dpa_json_string(s) : json_null();
}

/* 16 lower-case hex digits. */
static json_t *jhex64(uint64_t v)
{
	char b[17];

	snprintf(b, sizeof(b), "%016" PRIx64, v);
	return json_string(b);
}

static void put_real(struct wr *w, json_t *o, const char *key, double v, const char *where)
{
	put(w, o, key, jreal(w, v, where, key));
}

/* A place: {fn, file, line, col, site, checksum}. */
static json_t *place_json(struct wr *w, const struct dpf_place *p)
{
	json_t *o = json_object();
	char b[48];

	if (!o) {
		wr_fail(w, "out of memory");
		return NULL;
	}
	put(w, o, "fn", jstr(p->fn));
	put(w, o, "file", jstr(p->file));
	put(w, o, "line", jint(p->line));
	put(w, o, "col", jint(p->col));
	if (p->has_site) {
		snprintf(b, sizeof(b), "%016" PRIx64 ":%" PRIu32, p->tu_id, p->site);
		put(w, o, "site", json_string(b));
	} else {
		put(w, o, "site", json_null());
	}
	put(w, o, "checksum", p->checksum ? jhex64(p->checksum) : json_null());
	return o;
}

static json_t *inputs_json(struct wr *w, const struct dpf_feedback *fb)
{
	json_t *a = json_array();

	for (uint32_t i = 0; a && i < fb->n_input; i++) {
		const struct dpf_input *in = &fb->input[i];
		json_t *o = json_object();
		char b[9];

		if (!o || json_array_append_new(a, o) < 0) {
			wr_fail(w, "out of memory");
			break;
		}
		snprintf(b, sizeof(b), "%08" PRIx32, in->crc32);
		put(w, o, "path", jstr(in->path));
		put(w, o, "crc32", json_string(b));
		put(w, o, "program", jstr(in->program));
		put(w, o, "basis", json_string(dpf_basis_name(in->basis)));
		put(w, o, "cscs", jint(in->cscs));
		put(w, o, "cpu_ns", jint(in->cpu_ns));
		put(w, o, "has_progrep", json_boolean(in->has_progrep));
	}
	return a;
}

static json_t *options_json(struct wr *w, const struct dpf_options *opt)
{
	json_t *o = json_object();
	const char *wh = "options";

	if (!o)
		return NULL;
	put(w, o, "basis", json_string(opt->basis < 0 ? "auto" : dpf_basis_name(opt->basis)));
	put_real(w, o, "call_threshold_ns", opt->call_threshold, wh);
	put_real(w, o, "proc_threshold_ns", opt->proc_threshold, wh);
	put_real(w, o, "speedup_threshold", opt->speedup_threshold, wh);
	put(w, o, "max_tasks", jint(opt->max_tasks));
	put(w, o, "search_budget", jint(opt->search_budget));
	put_real(w, o, "hot_threshold_ns", opt->hot_threshold, wh);
	put(w, o, "rare_calls", jint(opt->rare_calls));
	put(w, o, "per_context", json_boolean(opt->per_context));
	put_real(w, o, "list_share", opt->list_share, wh);
	put_real(w, o, "program_time_ns", opt->program_ns, wh);
	return o;
}

static json_t *overheads_json(struct wr *w, const struct dpf_overheads *ov)
{
	json_t *o = json_object();
	const char *wh = "overheads";

	if (!o)
		return NULL;
	put(w, o, "source", jstr(ov->source));
	put_real(w, o, "spawn_cost_ns", ov->spawn_cost, wh);
	put_real(w, o, "spawn_delay_ns", ov->spawn_delay, wh);
	put_real(w, o, "barrier_cost_ns", ov->barrier_cost, wh);
	put_real(w, o, "signal_cost_ns", ov->signal_cost, wh);
	put_real(w, o, "wait_cost_ns", ov->wait_cost, wh);
	put_real(w, o, "wakeup_delay_ns", ov->wakeup_delay, wh);
	return o;
}

static json_t *candidate_json(struct wr *w, const struct dpf_candidate *c)
{
	json_t *o = json_object(), *calls = json_array(), *deps = json_array();
	char wh[48];

	if (!o || !calls || !deps) {
		json_decref(o);
		json_decref(calls);
		json_decref(deps);
		return NULL;
	}
	snprintf(wh, sizeof(wh), "candidate %" PRIu32, c->id);
	put(w, o, "id", jint(c->id));
	put(w, o, "proc", place_json(w, &c->proc));
	put(w, o, "context", jstr(c->context));
	put(w, o, "executions", jint(c->executions));
	put(w, o, "n_tasks", jint(c->n_tasks));
	for (uint32_t i = 0; i < c->n_calls; i++) {
		const struct dpf_call *k = &c->calls[i];
		json_t *e = json_object();

		if (!e || json_array_append_new(calls, e) < 0) {
			wr_fail(w, "out of memory");
			break;
		}
		put(w, e, "at", place_json(w, &k->at));
		put(w, e, "callee", jstr(k->callee));
		put_real(w, e, "cost", k->cost, wh);
		put(w, e, "task", jint(k->task));
	}
	put(w, o, "calls", calls);
	for (uint32_t i = 0; i < c->n_deps; i++) {
		const struct dpf_dep *d = &c->deps[i];
		json_t *e = json_object();

		if (!e || json_array_append_new(deps, e) < 0) {
			wr_fail(w, "out of memory");
			break;
		}
		put(w, e, "from", jint(d->from));
		put(w, e, "to", jint(d->to));
		put(w, e, "var", jstr(d->var));
		put_real(w, e, "produced", d->produced, wh);
		put_real(w, e, "consumed", d->consumed, wh);
		put(w, e, "known", json_boolean(d->known));
	}
	put(w, o, "deps", deps);
	put(w, o, "safety", json_string(dpf_safety_name(c->safety)));
	put(w, o, "safety_why", jstr(c->safety_why));
	put(w, o, "check_inputs", jint(c->check_inputs));
	put(w, o, "check_executions", jint(c->check_executions));
	{
		json_t *r = c->reach_all ? json_string("all") : json_array();

		for (uint32_t i = 0; !c->reach_all && i < c->n_reach; i++)
			json_array_append_new(r, jstr(c->reach[i]));
		put(w, o, "reach", r);
	}
	if (c->loop_line) {
		json_t *l = json_object();

		if (!l)
			wr_fail(w, "out of memory");
		else {
			put(w, l, "line", jint(c->loop_line));
			put_real(w, l, "iterations", c->iterations, wh);
			put(w, l, "cutoff", jint(c->loop_cutoff));
		}
		put(w, o, "loop", l);
	}
	put(w, o, "verdict", json_string(dpf_verdict_name(c->verdict)));
	put(w, o, "verdict_why", jstr(c->verdict_why));
	put(w, o, "partitions_tried", jint(c->partitions_tried));
	put(w, o, "search_complete", json_boolean(c->search_complete));
	put_real(w, o, "seq_time", c->seq_time, wh);
	put_real(w, o, "par_time", c->par_time, wh);
	put_real(w, o, "overhead", c->overhead, wh);
	put_real(w, o, "speedup", c->speedup, wh);
	put_real(w, o, "program_speedup", c->program_speedup, wh);
	put(w, o, "n_inputs_seen", jint(c->n_inputs_seen));
	put_real(w, o, "speedup_min", c->speedup_min, wh);
	put_real(w, o, "speedup_median", c->speedup_median, wh);
	put_real(w, o, "speedup_max", c->speedup_max, wh);
	return o;
}

static json_t *var_use_json(struct wr *w, const struct dpf_var_use *v)
{
	json_t *o = json_object();
	const char *wh = "var_use";

	if (!o)
		return NULL;
	put(w, o, "at", place_json(w, &v->at));
	put(w, o, "callee", jstr(v->callee));
	put(w, o, "arg", json_integer(v->arg));
	put(w, o, "var", jstr(v->var));
	put(w, o, "use", json_string(dpf_use_name(v->use)));
	put_real(w, o, "time", v->time, wh);
	put_real(w, o, "fraction", v->fraction, wh);
	put_real(w, o, "call_cost", v->call_cost, wh);
	put(w, o, "known", json_boolean(v->known));
	put(w, o, "why", jstr(v->why));
	return o;
}

static json_t *recursion_json(struct wr *w, const struct dpf_recursion *r)
{
	json_t *o = json_object(), *lv = json_array();
	const char *wh = "recursion";

	if (!o || !lv) {
		json_decref(o);
		json_decref(lv);
		return NULL;
	}
	put(w, o, "at", place_json(w, &r->at));
	put(w, o, "clique", jint(r->clique));
	put(w, o, "type", json_string(dpa_rec_type_name(r->type)));
	put(w, o, "from_progrep", json_boolean(r->from_progrep));
	put(w, o, "members", jint(r->members));
	put(w, o, "entry_calls", jint(r->entry_calls));
	put(w, o, "internal_calls", jint(r->internal_calls));
	put_real(w, o, "depth", r->depth, wh);
	put_real(w, o, "cost_per_entry", r->cost_per_entry, wh);
	for (uint32_t i = 0; i < r->n_levels; i++)
		if (json_array_append_new(lv, jreal(w, r->level_cost[i], wh, "level_cost")) < 0)
			wr_fail(w, "out of memory");
	put(w, o, "level_cost", lv);
	put(w, o, "cutoff_depth", jint(r->cutoff_depth));
	put(w, o, "why", jstr(r->why));
	put(w, o, "rec_sites", jint(r->rec_sites));
	put(w, o, "branching", jint(r->branching));
	put_real(w, o, "per_call", r->per_call, wh);
	put_real(w, o, "spawn_overhead", r->spawn_overhead, wh);
	put_real(w, o, "own_per_call", r->own_per_call, wh);
	put_real(w, o, "combine_cost", r->combine_cost, wh);
	put(w, o, "cores", jint(r->cores));
	put_real(w, o, "par_cost", r->par_cost, wh);
	if (r->nested_in) {
		json_t *x = json_object();

		if (x) {
			put(w, x, "clique", jint(r->nested_in));
			put_real(w, x, "levels", r->nested_levels, wh);
		}
		put(w, o, "nested", x);
	}
	return o;
}

static json_t *hot_json(struct wr *w, const struct dpf_hot *h)
{
	json_t *o = json_object();
	const char *wh = "hot_cold";

	if (!o)
		return NULL;
	put(w, o, "kind", json_string(dpf_hot_kind_name(h->kind)));
	put(w, o, "temp", json_string(dpf_temp_name(h->temp)));
	put(w, o, "at", place_json(w, &h->at));
	put(w, o, "callee", jstr(h->callee));
	put(w, o, "calls", jint(h->calls));
	put_real(w, o, "mean", h->mean, wh);
	put_real(w, o, "median", h->median, wh);
	put_real(w, o, "mean_cscs", h->mean_cscs, wh);
	put_real(w, o, "mean_ns", h->mean_ns, wh);
	put(w, o, "outer_calls", jint(h->outer_calls));
	return o;
}

/* Append n items made by fn to a new array set as doc[key]. */
#define PUT_LIST(w, doc, key, n, arr, fn)                                        \
	do {                                                                     \
		json_t *a_ = json_array();                                       \
		for (uint32_t i_ = 0; a_ && i_ < (n); i_++)                       \
			if (json_array_append_new(a_, fn(w, &(arr)[i_])) < 0)     \
				wr_fail(w, "out of memory in '%s'", key);          \
		put(w, doc, key, a_);                                            \
	} while (0)

json_t *dpf_feedback_to_json(const struct dpf_feedback *fb, struct dpa_error *err)
{
	struct wr w = { err, false };
	json_t *doc = json_object();

	if (!doc) {
		wr_fail(&w, "out of memory");
		return NULL;
	}
	put(&w, doc, "format", json_string(DPF_FEEDBACK_FORMAT));
	put(&w, doc, "version", jint(fb->version ? fb->version : DPF_FEEDBACK_VERSION));
	put(&w, doc, "min_version", jint(DPF_FEEDBACK_MIN_VERSION));
	put(&w, doc, "program", jstr(fb->program));
	put(&w, doc, "basis", json_string(dpf_basis_name(fb->basis)));
	put_real(&w, doc, "ns_per_unit", fb->ns_per_unit, "header");
	put(&w, doc, "ns_per_unit_source",
	    json_string(fb->ns_per_unit_source ? fb->ns_per_unit_source : "instrumented run"));
	put(&w, doc, "program_cost", jint(fb->program_cost));
	put(&w, doc, "inputs", inputs_json(&w, fb));
	put(&w, doc, "options", options_json(&w, &fb->opt));
	put(&w, doc, "overheads", overheads_json(&w, &fb->opt.ov));
	PUT_LIST(&w, doc, "candidates", fb->n_cand, fb->cand, candidate_json);
	PUT_LIST(&w, doc, "var_use", fb->n_var_use, fb->var_use, var_use_json);
	PUT_LIST(&w, doc, "recursion", fb->n_rec, fb->rec, recursion_json);
	PUT_LIST(&w, doc, "hot_cold", fb->n_hot, fb->hot, hot_json);
	if (w.failed) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* ================================================================
 * Reading
 * ================================================================ */

/* The reader's state: where in the document it is, for messages. */
struct rd {
	struct dpf_feedback *fb;
	const char *path;
	struct dpa_error *err;
	char where[96];
	bool failed;
};

static int rd_fail(struct rd *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "<path>: feedback: <where>.<key>: <what>" into *err; returns -1. */
static int rd_fail(struct rd *r, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->failed)
		return -1;
	r->failed = true;
	if (!r->err)
		return -1;
	n = snprintf(r->err->msg, sizeof(r->err->msg), "%s: feedback: %s%s%s%s", r->path,
		     r->where, *r->where && key ? "." : "", key ? key : "",
		     *r->where || key ? ": " : "");
	if (n < 0 || (size_t)n >= sizeof(r->err->msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(r->err->msg + n, sizeof(r->err->msg) - n, fmt, ap);
	va_end(ap);
	return -1;
}

static json_t *field(struct rd *r, const json_t *o, const char *key, int type)
{
	json_t *v = json_object_get(o, key);
	static const char *const names[] = { "an object", "an array", "a string", "an integer",
					     "a number", "a boolean", "a boolean", "null" };

	if (!v) {
		rd_fail(r, key, "missing");
		return NULL;
	}
	if (type == JSON_REAL ? !json_is_number(v) :
	    type == JSON_TRUE ? !json_is_boolean(v) : json_typeof(v) != (json_type)type) {
		rd_fail(r, key, "not %s", names[type]);
		return NULL;
	}
	return v;
}

/* s as a message may quote it: at most size - 4 bytes, control characters
 * as '?', "..." when cut (a message is one line). */
static const char *shown(const char *s, char *b, size_t size)
{
	size_t n = 0;

	for (; *s && n + 4 < size; s++)
		b[n++] = (unsigned char)*s < ' ' || *s == 0x7f ? '?' : *s;
	if (*s) {
		memcpy(b + n, "...", 3);
		n += 3;
	}
	b[n] = 0;
	return b;
}

/* A string field (copied into the arena); null allowed when nullable. */
static const char *get_str(struct rd *r, const json_t *o, const char *key, bool nullable)
{
	json_t *v = json_object_get(o, key);
	const char *s;

	if (nullable && json_is_null(v))
		return NULL;
	if (!(v = field(r, o, key, JSON_STRING)))
		return NULL;
	s = dpf_strdup(r->fb, json_string_value(v));
	if (!s)
		rd_fail(r, key, "out of memory");
	return s;
}

static uint64_t get_uint(struct rd *r, const json_t *o, const char *key, uint64_t max)
{
	json_t *v = field(r, o, key, JSON_INTEGER);
	json_int_t x;

	if (!v)
		return 0;
	x = json_integer_value(v);
	if (x < 0 || (uint64_t)x > max) {
		rd_fail(r, key, "%" JSON_INTEGER_FORMAT " out of range", x);
		return 0;
	}
	return (uint64_t)x;
}

/* A number (integer or real) that is not negative: every cost, time,
 * share and speedup of the format. */
static double get_real(struct rd *r, const json_t *o, const char *key)
{
	json_t *v = field(r, o, key, JSON_REAL);
	double d;

	if (!v)
		return 0;
	d = json_number_value(v);
	if (!(d >= 0)) {
		rd_fail(r, key, "%g is negative", d);
		return 0;
	}
	return d;
}

/* A number in [0, 1]. */
static double get_share(struct rd *r, const json_t *o, const char *key)
{
	double d = get_real(r, o, key);

	if (d > 1)
		rd_fail(r, key, "%g is above 1", d);
	return d;
}

static bool get_bool(struct rd *r, const json_t *o, const char *key)
{
	json_t *v = field(r, o, key, JSON_TRUE);

	return v && json_is_true(v);
}

/* A name among n[0 .. count); returns its index. */
static unsigned get_enum(struct rd *r, const json_t *o, const char *key,
			 const char *(*name)(unsigned), unsigned count)
{
	json_t *v = field(r, o, key, JSON_STRING);
	char q[64];

	if (!v)
		return 0;
	for (unsigned i = 0; i < count; i++)
		if (!strcmp(json_string_value(v), name(i)))
			return i;
	rd_fail(r, key, "unknown value '%s'", shown(json_string_value(v), q, sizeof(q)));
	return 0;
}

static const char *basis_n(unsigned i) { return dpf_basis_name(i); }
static const char *temp_n(unsigned i) { return dpf_temp_name(i); }
static const char *kind_n(unsigned i) { return dpf_hot_kind_name(i); }
static const char *use_n(unsigned i) { return dpf_use_name(i); }
static const char *safety_n(unsigned i) { return dpf_safety_name(i); }
static const char *verdict_n(unsigned i) { return dpf_verdict_name(i); }
static const char *rec_n(unsigned i) { return dpa_rec_type_name(i); }

/* Parse exactly `digits` hex digits (or up to, with digits 0 meaning 1..16)
 * ending at *end; -1 if not hex. */
static int parse_hex(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0 || len > 16)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

/* A place object at o[key]. */
static void get_place(struct rd *r, const json_t *o, const char *key, struct dpf_place *p)
{
	json_t *v = field(r, o, key, JSON_OBJECT), *s;
	size_t n = strlen(r->where);
	char q[64];

	if (!v)
		return;
	snprintf(r->where + n, sizeof(r->where) - n, "%s%s", n ? "." : "", key);
	p->fn = get_str(r, v, "fn", true);
	p->file = get_str(r, v, "file", true);
	p->line = (uint32_t)get_uint(r, v, "line", UINT32_MAX);
	p->col = (uint32_t)get_uint(r, v, "col", UINT32_MAX);
	s = json_object_get(v, "site");
	if (!json_is_null(s) && (s = field(r, v, "site", JSON_STRING))) {
		const char *t = json_string_value(s), *colon = strchr(t, ':');
		char *end;
		unsigned long site;

		if (!colon || colon - t != 16 || parse_hex(t, 16, &p->tu_id) < 0 ||
		    !colon[1] || colon[1] == '-' || colon[1] == '+' ||
		    (site = strtoul(colon + 1, &end, 10), *end) || site > UINT32_MAX) {
			rd_fail(r, "site", "'%s' is not <16 hex digits>:<decimal>",
				shown(t, q, sizeof(q)));
		} else {
			p->has_site = true;
			p->site = (uint32_t)site;
		}
	}
	s = json_object_get(v, "checksum");
	if (!json_is_null(s) && (s = field(r, v, "checksum", JSON_STRING))) {
		const char *t = json_string_value(s);

		if (strlen(t) != 16 || parse_hex(t, 16, &p->checksum) < 0)
			rd_fail(r, "checksum", "'%s' is not 16 hex digits", shown(t, q, sizeof(q)));
	}
	r->where[n] = 0;
}

/* The array doc[key] and room for its items in the arena. */
static void *get_list(struct rd *r, const json_t *doc, const char *key, size_t size,
		      uint32_t *n, json_t **arr)
{
	void *m;

	*n = 0;
	if (!(*arr = field(r, doc, key, JSON_ARRAY)))
		return NULL;
	if (json_array_size(*arr) > UINT32_MAX) {
		rd_fail(r, key, "too many items");
		return NULL;
	}
	*n = (uint32_t)json_array_size(*arr);
	m = dpf_alloc(r->fb, size * (*n ? *n : 1));
	if (!m)
		rd_fail(r, key, "out of memory");
	return m;
}

/* Say which item of list `key` the reader is in. */
static void at_item(struct rd *r, const char *key, size_t i, const json_t *item)
{
	snprintf(r->where, sizeof(r->where), "%s[%zu]", key, i);
	if (!json_is_object(item))
		rd_fail(r, NULL, "not an object");
}

static void read_header(struct rd *r, const json_t *doc)
{
	struct dpf_feedback *fb = r->fb;
	json_t *a, *o;

	fb->program = get_str(r, doc, "program", false);
	fb->basis = (uint8_t)get_enum(r, doc, "basis", basis_n, DPF_NBASES);
	fb->ns_per_unit = get_real(r, doc, "ns_per_unit");
	if (json_object_get(doc, "ns_per_unit_source"))     /* optional */
		fb->ns_per_unit_source = get_str(r, doc, "ns_per_unit_source", false);
	fb->program_cost = get_uint(r, doc, "program_cost", INT64_MAX);
	fb->input = get_list(r, doc, "inputs", sizeof(*fb->input), &fb->n_input, &a);
	if (!r->failed && !fb->n_input)
		rd_fail(r, "inputs", "empty");
	for (uint32_t i = 0; !r->failed && i < fb->n_input; i++) {
		struct dpf_input *in = &fb->input[i];
		json_t *e = json_array_get(a, i), *c;
		uint64_t crc = 0;
		char q[64];

		at_item(r, "inputs", i, e);
		if (r->failed)
			break;
		in->path = get_str(r, e, "path", false);
		if ((c = field(r, e, "crc32", JSON_STRING)) &&
		    (strlen(json_string_value(c)) != 8 ||
		     parse_hex(json_string_value(c), 8, &crc) < 0))
			rd_fail(r, "crc32", "'%s' is not 8 hex digits",
				shown(json_string_value(c), q, sizeof(q)));
		in->crc32 = (uint32_t)crc;
		in->program = get_str(r, e, "program", false);
		in->basis = (uint8_t)get_enum(r, e, "basis", basis_n, DPF_NBASES);
		in->cscs = get_uint(r, e, "cscs", INT64_MAX);
		in->cpu_ns = get_uint(r, e, "cpu_ns", INT64_MAX);
		in->has_progrep = get_bool(r, e, "has_progrep");
	}
	*r->where = 0;
	if (r->failed || !(o = field(r, doc, "options", JSON_OBJECT)))
		return;
	strcpy(r->where, "options");
	{
		json_t *b = field(r, o, "basis", JSON_STRING);

		if (b && !strcmp(json_string_value(b), "auto"))
			fb->opt.basis = -1;
		else if (b)
			fb->opt.basis = (int)get_enum(r, o, "basis", basis_n, DPF_NBASES);
	}
	fb->opt.call_threshold = get_real(r, o, "call_threshold_ns");
	fb->opt.proc_threshold = get_real(r, o, "proc_threshold_ns");
	fb->opt.speedup_threshold = get_real(r, o, "speedup_threshold");
	fb->opt.max_tasks = (unsigned)get_uint(r, o, "max_tasks", UINT32_MAX);
	fb->opt.search_budget = (unsigned)get_uint(r, o, "search_budget", UINT32_MAX);
	fb->opt.hot_threshold = get_real(r, o, "hot_threshold_ns");
	fb->opt.rare_calls = get_uint(r, o, "rare_calls", INT64_MAX);
	fb->opt.per_context = get_bool(r, o, "per_context");
	fb->opt.list_share = get_share(r, o, "list_share");
	if (json_object_get(o, "program_time_ns"))     /* optional */
		fb->opt.program_ns = get_real(r, o, "program_time_ns");
	*r->where = 0;
	if (r->failed || !(o = field(r, doc, "overheads", JSON_OBJECT)))
		return;
	strcpy(r->where, "overheads");
	{
		json_t *s = field(r, o, "source", JSON_STRING);

		if (s)
			snprintf(fb->opt.ov.source, sizeof(fb->opt.ov.source), "%s",
				 json_string_value(s));
	}
	fb->opt.ov.spawn_cost = get_real(r, o, "spawn_cost_ns");
	fb->opt.ov.spawn_delay = get_real(r, o, "spawn_delay_ns");
	fb->opt.ov.barrier_cost = get_real(r, o, "barrier_cost_ns");
	fb->opt.ov.signal_cost = get_real(r, o, "signal_cost_ns");
	fb->opt.ov.wait_cost = get_real(r, o, "wait_cost_ns");
	fb->opt.ov.wakeup_delay = get_real(r, o, "wakeup_delay_ns");
	*r->where = 0;
}

static void read_candidate(struct rd *r, const json_t *e, struct dpf_candidate *c)
{
	json_t *a;
	size_t n = strlen(r->where);

	c->id = (uint32_t)get_uint(r, e, "id", UINT32_MAX);
	if (!r->failed && c->id == 0)
		rd_fail(r, "id", "0 (ids start at 1)");
	get_place(r, e, "proc", &c->proc);
	c->context = get_str(r, e, "context", true);
	c->executions = get_uint(r, e, "executions", INT64_MAX);
	c->n_tasks = (uint32_t)get_uint(r, e, "n_tasks", UINT32_MAX);
	c->calls = get_list(r, e, "calls", sizeof(*c->calls), &c->n_calls, &a);
	for (uint32_t i = 0; !r->failed && i < c->n_calls; i++) {
		struct dpf_call *k = &c->calls[i];
		json_t *x = json_array_get(a, i);

		snprintf(r->where + n, sizeof(r->where) - n, ".calls[%" PRIu32 "]", i);
		if (!json_is_object(x)) {
			rd_fail(r, NULL, "not an object");
			break;
		}
		get_place(r, x, "at", &k->at);
		k->callee = get_str(r, x, "callee", true);
		k->cost = get_real(r, x, "cost");
		k->task = (uint32_t)get_uint(r, x, "task", UINT32_MAX);
		if (!r->failed && c->n_tasks && k->task >= c->n_tasks)
			rd_fail(r, "task", "%" PRIu32 " is not below n_tasks %" PRIu32, k->task,
				c->n_tasks);
	}
	r->where[n] = 0;
	if (r->failed)
		return;
	c->deps = get_list(r, e, "deps", sizeof(*c->deps), &c->n_deps, &a);
	for (uint32_t i = 0; !r->failed && i < c->n_deps; i++) {
		struct dpf_dep *d = &c->deps[i];
		json_t *x = json_array_get(a, i);

		snprintf(r->where + n, sizeof(r->where) - n, ".deps[%" PRIu32 "]", i);
		if (!json_is_object(x)) {
			rd_fail(r, NULL, "not an object");
			break;
		}
		d->from = (uint32_t)get_uint(r, x, "from", UINT32_MAX);
		d->to = (uint32_t)get_uint(r, x, "to", UINT32_MAX);
		if (!r->failed && (d->from >= c->n_calls || d->to >= c->n_calls))
			rd_fail(r, NULL, "from/to must index calls (%" PRIu32 " calls)", c->n_calls);
		d->var = get_str(r, x, "var", true);
		d->produced = get_real(r, x, "produced");
		d->consumed = get_real(r, x, "consumed");
		d->known = get_bool(r, x, "known");
	}
	r->where[n] = 0;
	c->safety = (uint8_t)get_enum(r, e, "safety", safety_n, DPF_NSAFETY);
	c->safety_why = get_str(r, e, "safety_why", true);
	/* the dependence check's counts: absent in files written before it */
	if (json_object_get(e, "check_inputs"))
		c->check_inputs = (uint32_t)get_uint(r, e, "check_inputs", UINT32_MAX);
	if (json_object_get(e, "check_executions"))
		c->check_executions = get_uint(r, e, "check_executions", INT64_MAX);
	/* the procedures beneath the calls: absent in files written before */
	{
		json_t *x = json_object_get(e, "reach");

		if (json_is_string(x) && !strcmp(json_string_value(x), "all")) {
			c->reach_all = true;
		} else if (json_is_array(x)) {
			size_t n = json_array_size(x);

			c->reach = n ? dpf_alloc(r->fb, n * sizeof(*c->reach)) : NULL;
			if (n && !c->reach)
				rd_fail(r, "reach", "out of memory");
			for (size_t i = 0; c->reach && i < n && !r->failed; i++) {
				json_t *y = json_array_get(x, i);

				if (!json_is_string(y))
					rd_fail(r, "reach", "element %zu is not a string", i);
				else if (!(c->reach[c->n_reach++] = dpf_strdup(r->fb, json_string_value(y))))
					rd_fail(r, "reach", "out of memory");
			}
		} else if (x) {
			rd_fail(r, "reach", "not an array of names or \"all\"");
		}
	}
	/* a loop candidate: absent in files written before them */
	{
		json_t *x = json_object_get(e, "loop");

		if (x && !json_is_null(x)) {
			if (!json_is_object(x)) {
				rd_fail(r, "loop", "not an object");
			} else {
				snprintf(r->where + n, sizeof(r->where) - n, ".loop");
				c->loop_line = (uint32_t)get_uint(r, x, "line", UINT32_MAX);
				c->iterations = get_real(r, x, "iterations");
				c->loop_cutoff = (uint32_t)get_uint(r, x, "cutoff", 64);
				if (!r->failed && !c->loop_line)
					rd_fail(r, "line", "0 (lines start at 1)");
				if (!r->failed && c->n_calls != 1)
					rd_fail(r, NULL, "a loop candidate has one call, not %" PRIu32,
						c->n_calls);
				r->where[n] = 0;
			}
		}
	}
	c->verdict = (uint8_t)get_enum(r, e, "verdict", verdict_n, DPF_NVERDICTS);
	c->verdict_why = get_str(r, e, "verdict_why", true);
	c->partitions_tried = (uint32_t)get_uint(r, e, "partitions_tried", UINT32_MAX);
	c->search_complete = get_bool(r, e, "search_complete");
	c->seq_time = get_real(r, e, "seq_time");
	c->par_time = get_real(r, e, "par_time");
	c->overhead = get_real(r, e, "overhead");
	c->speedup = get_real(r, e, "speedup");
	c->program_speedup = get_real(r, e, "program_speedup");
	c->n_inputs_seen = (uint32_t)get_uint(r, e, "n_inputs_seen", UINT32_MAX);
	c->speedup_min = get_real(r, e, "speedup_min");
	c->speedup_median = get_real(r, e, "speedup_median");
	c->speedup_max = get_real(r, e, "speedup_max");
}

static void read_var_use(struct rd *r, const json_t *e, struct dpf_var_use *v)
{
	json_t *a;

	get_place(r, e, "at", &v->at);
	v->callee = get_str(r, e, "callee", true);
	if ((a = field(r, e, "arg", JSON_INTEGER))) {
		json_int_t x = json_integer_value(a);

		if (x < -1 || x > INT32_MAX)
			rd_fail(r, "arg", "%" JSON_INTEGER_FORMAT " out of range", x);
		v->arg = (int32_t)x;
	}
	v->var = get_str(r, e, "var", true);
	v->use = (uint8_t)get_enum(r, e, "use", use_n, 2);
	v->time = get_real(r, e, "time");
	v->fraction = get_share(r, e, "fraction");
	v->call_cost = get_real(r, e, "call_cost");
	v->known = get_bool(r, e, "known");
	v->why = get_str(r, e, "why", true);
}

static void read_recursion(struct rd *r, const json_t *e, struct dpf_recursion *x)
{
	json_t *a;

	get_place(r, e, "at", &x->at);
	x->clique = (uint32_t)get_uint(r, e, "clique", UINT32_MAX);
	x->type = (uint8_t)get_enum(r, e, "type", rec_n, DPA_REC_NTYPES);
	x->from_progrep = get_bool(r, e, "from_progrep");
	x->members = (uint32_t)get_uint(r, e, "members", UINT32_MAX);
	x->entry_calls = get_uint(r, e, "entry_calls", INT64_MAX);
	x->internal_calls = get_uint(r, e, "internal_calls", INT64_MAX);
	x->depth = get_real(r, e, "depth");
	x->cost_per_entry = get_real(r, e, "cost_per_entry");
	x->level_cost = get_list(r, e, "level_cost", sizeof(double), &x->n_levels, &a);
	if (!r->failed && x->n_levels > 64)
		rd_fail(r, "level_cost", "more than 64 levels");
	for (uint32_t i = 0; !r->failed && i < x->n_levels; i++) {
		json_t *l = json_array_get(a, i);

		if (!json_is_number(l) || !(json_number_value(l) >= 0))
			rd_fail(r, "level_cost", "item %" PRIu32 " is not a number >= 0", i);
		else
			x->level_cost[i] = json_number_value(l);
	}
	x->cutoff_depth = (uint32_t)get_uint(r, e, "cutoff_depth", UINT32_MAX);
	x->why = get_str(r, e, "why", true);
	x->rec_sites = (uint32_t)get_uint(r, e, "rec_sites", UINT32_MAX);
	x->branching = (uint32_t)get_uint(r, e, "branching", UINT32_MAX);
	x->per_call = get_real(r, e, "per_call");
	x->spawn_overhead = get_real(r, e, "spawn_overhead");
	/* added in the same version: optional (0 when absent) */
	if (json_object_get(e, "own_per_call"))
		x->own_per_call = get_real(r, e, "own_per_call");
	if (json_object_get(e, "combine_cost"))
		x->combine_cost = get_real(r, e, "combine_cost");
	if (json_object_get(e, "cores"))
		x->cores = (uint32_t)get_uint(r, e, "cores", UINT32_MAX);
	if (json_object_get(e, "par_cost"))
		x->par_cost = get_real(r, e, "par_cost");
	{
		json_t *y = json_object_get(e, "nested");
		size_t n = strlen(r->where);

		if (y && !json_is_null(y)) {
			if (!json_is_object(y)) {
				rd_fail(r, "nested", "not an object");
			} else {
				snprintf(r->where + n, sizeof(r->where) - n, ".nested");
				x->nested_in = (uint32_t)get_uint(r, y, "clique", UINT32_MAX);
				x->nested_levels = get_real(r, y, "levels");
				if (!r->failed && (!x->nested_in || x->nested_levels < 1))
					rd_fail(r, NULL, "clique must be at least 1 and levels at least 1");
				r->where[n] = 0;
			}
		}
	}
}

static void read_hot(struct rd *r, const json_t *e, struct dpf_hot *h)
{
	h->kind = (uint8_t)get_enum(r, e, "kind", kind_n, 2);
	h->temp = (uint8_t)get_enum(r, e, "temp", temp_n, 3);
	get_place(r, e, "at", &h->at);
	h->callee = get_str(r, e, "callee", true);
	h->calls = get_uint(r, e, "calls", INT64_MAX);
	h->mean = get_real(r, e, "mean");
	h->median = get_real(r, e, "median");
	h->mean_cscs = get_real(r, e, "mean_cscs");
	h->mean_ns = get_real(r, e, "mean_ns");
	h->outer_calls = get_uint(r, e, "outer_calls", INT64_MAX);
}

/* Read list doc[key] with fn per item. */
#define READ_LIST(r, doc, key, arr, n, fn)                                      \
	do {                                                                    \
		json_t *a_;                                                     \
		(arr) = get_list(r, doc, key, sizeof(*(arr)), &(n), &a_);        \
		for (uint32_t i_ = 0; !(r)->failed && i_ < (n); i_++) {          \
			json_t *e_ = json_array_get(a_, i_);                     \
			at_item(r, key, i_, e_);                                 \
			if (!(r)->failed)                                        \
				fn(r, e_, &(arr)[i_]);                           \
		}                                                               \
		*(r)->where = 0;                                                \
	} while (0)

int dpf_feedback_from_json(struct dpf_feedback *fb, const json_t *doc, const char *path,
			   struct dpa_error *err)
{
	struct rd r = { fb, path ? path : "feedback", err, "", false };
	json_t *v;

	memset(fb, 0, sizeof(*fb));
	if (!json_is_object(doc))
		return rd_fail(&r, NULL, "not a feedback file (not a JSON object)");
	v = json_object_get(doc, "format");
	if (!json_is_string(v) || strcmp(json_string_value(v), DPF_FEEDBACK_FORMAT))
		return rd_fail(&r, NULL, "not a feedback file (\"format\" is not \"%s\")",
			       DPF_FEEDBACK_FORMAT);
	fb->version = (uint32_t)get_uint(&r, doc, "version", UINT32_MAX);
	if (!r.failed) {
		uint64_t minv = get_uint(&r, doc, "min_version", UINT32_MAX);

		if (!r.failed && (minv > DPF_FEEDBACK_VERSION || minv > fb->version || minv == 0))
			return rd_fail(&r, NULL, "version %" PRIu32 " (min_version %" PRIu64
				       ") is not readable by this deepprof (version %d)",
				       fb->version, minv, DPF_FEEDBACK_VERSION);
	}
	if (r.failed)
		return -1;
	read_header(&r, doc);
	if (r.failed)
		return -1;
	READ_LIST(&r, doc, "candidates", fb->cand, fb->n_cand, read_candidate);
	if (r.failed)
		return -1;
	READ_LIST(&r, doc, "var_use", fb->var_use, fb->n_var_use, read_var_use);
	if (r.failed)
		return -1;
	READ_LIST(&r, doc, "recursion", fb->rec, fb->n_rec, read_recursion);
	if (r.failed)
		return -1;
	READ_LIST(&r, doc, "hot_cold", fb->hot, fb->n_hot, read_hot);
	if (r.failed)
		return -1;
	for (uint32_t i = 0; i < fb->n_cand; i++)
		for (uint32_t j = 0; j < i; j++)
			if (fb->cand[i].id == fb->cand[j].id)
				return rd_fail(&r, NULL, "candidate id %" PRIu32 " appears twice",
					       fb->cand[i].id);
	return 0;
}
