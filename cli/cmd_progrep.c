/*
 * cmd_progrep.c — `deepprof progrep [--json] FILE`: the program
 * representation (analyses/progrep.h) of an ELF file, or of every module of
 * a Deep.data profile with its ps and css mapped to their records, as an
 * indented tree or JSON. Part of deepprof's command line. MIT licence.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "profile.h"
#include "progrep.h"

int cmd_progrep(int argc, char **argv);

static const char progrep_usage[] =
	"usage: deepprof progrep [--json] FILE\n"
	"\n"
	"Show the program representation the deepprof GCC plugin recorded in\n"
	"the .deepprof.progrep section of FILE: an executable, shared library or\n"
	"object file built with deepprof-cc, or a Deep.data profile (then the\n"
	"progrep of each of its modules, read from the module's file, and which\n"
	"record each procedure (ps) and call site (css) of the profile maps to).\n"
	"For each function: its parameters, its call sites in execution order\n"
	"nested in branches and loops together with where each parameter is first\n"
	"used and stored through ('use p', 'store through p'), what feeds each\n"
	"argument, what its result defines, the callee's memory effects, and the\n"
	"checksum of its source lines, checked against the source file now: ok,\n"
	"stale (the function changed since it was compiled), no-source or unknown.\n"
	"\n"
	"  --json       one JSON document: {\"file\", \"kind\" (\"elf\"|\"profile\"),\n"
	"               \"modules\": [{\"id\", \"path\", \"state\", \"message\", \"tus\",\n"
	"               \"checksums\", \"functions\"}], \"ps\", \"css\"}; functions are\n"
	"               the fn records of schemas/progrep.md plus \"checksum_state\"\n"
	"               and \"source_checksum\"; one array element per line\n"
	"  -h, --help   show this help\n"
	"\n"
	"A module without progrep (built with -finstrument-functions, or not\n"
	"instrumented) is listed as 'no progrep'. Exit status: 0 success, 2 bad\n"
	"usage, or FILE missing, not ELF nor Deep.data, an ELF file without the\n"
	"section, or a malformed record.\n";

static void progrep_help(void)
{
	const char *u = dp_cmd_usage("progrep");

	fputs(u ? u : progrep_usage, stdout);
}

/* ================================================================
 * JSON
 * ================================================================ */

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *jsum(uint64_t v)
{
	char b[17];

	snprintf(b, sizeof(b), "%016llx", (unsigned long long)v);
	return json_string(b);
}

static json_t *ref_json(const struct dpa_pr_ref *r, bool target)
{
	json_t *o;

	switch (r->kind) {
	case DPA_PR_NONE:
		return json_null();
	case DPA_PR_TEMP:
		return json_string("temp");
	case DPA_PR_PARAM:
	case DPA_PR_LOCAL:
	case DPA_PR_GLOBAL:
	case DPA_PR_VIA_PARAM:
		return json_pack("{ss}", dpa_pr_ref_name(r->kind), r->name);
	case DPA_PR_CALL:
		return json_pack("{so}", "call",
				 r->has_site ? json_integer(r->site) : json_null());
	case DPA_PR_HEAP:
		return json_pack("{sI}", "heap", (json_int_t)r->site);
	case DPA_PR_ADDR_OF:
		o = json_pack("{ss}", dpa_pr_ref_name(r->var), r->name);
		return json_pack("{so}", "addr_of", o);
	case DPA_PR_FUNCTION:
		return target ? json_string("function") : json_pack("{ss}", "function", r->name);
	case DPA_PR_CONST:
		return json_pack("{sb}", "const", 1);
	case DPA_PR_STRING:
		return target ? json_string("string") : json_pack("{ss}", "const", "string");
	case DPA_PR_MEMORY:
		return json_pack("{sb}", "memory", 1);
	default:    /* NULL, UNKNOWN: targets */
		return json_string(dpa_pr_ref_name(r->kind));
	}
}

static json_t *refs_json(const struct dpa_pr_ref *r, uint32_t n, bool target)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < n; i++)
		json_array_append_new(a, ref_json(&r[i], target));
	return a;
}

static json_t *body_json(const struct dpa_pr_body *b)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < b->n; i++) {
		const struct dpa_pr_item *it = &b->items[i];
		json_t *arms;

		switch (it->kind) {
		case DPA_PR_ITEM_CALL:
			json_array_append_new(a, json_pack("{sI}", "call", (json_int_t)it->site));
			break;
		case DPA_PR_ITEM_BRANCH:
			arms = json_array();
			for (uint32_t k = 0; k < it->n_arms; k++)
				json_array_append_new(arms, body_json(&it->arms[k]));
			json_array_append_new(a, json_pack("{s{sssIso}}", "branch", "kind",
							   it->is_switch ? "switch" : "if", "line",
							   (json_int_t)it->line, "arms", arms));
			break;
		case DPA_PR_ITEM_USE:
		case DPA_PR_ITEM_STORE:
			json_array_append_new(a, json_pack("{ss}", it->kind == DPA_PR_ITEM_USE ?
							   "use" : "store", it->name));
			break;
		default:
			json_array_append_new(a, json_pack("{s{sIso}}", "loop", "line",
							   (json_int_t)it->line, "body",
							   body_json(&it->body)));
		}
	}
	return a;
}

static json_t *call_json(const struct dpa_progrep *pr, const struct dpa_pr_call *c)
{
	char id[48];
	json_t *o, *args = json_array();

	snprintf(id, sizeof(id), "%016llx:%u", (unsigned long long)pr->tu[pr->fn[c->fn].tu].id,
		 c->site);
	o = json_pack("{sIsssosssIsIss}", "site", (json_int_t)c->site, "id", id, "callee",
		      jstr(c->callee), "kind", dpa_css_kind_name(c->kind), "line",
		      (json_int_t)c->line, "col", (json_int_t)c->col, "effects",
		      dpa_pr_effects_name(c->effects));
	if (c->tail)
		json_object_set_new(o, "tail", json_true());
	if (c->noreturn)
		json_object_set_new(o, "noreturn", json_true());
	if (c->kind == DPA_CSS_INDIRECT || c->n_target_from)
		json_object_set_new(o, "target_from",
				    refs_json(c->target_from, c->n_target_from, false));
	for (uint32_t a = 0; a < c->n_args; a++) {
		const struct dpa_pr_arg *g = &c->args[a];
		json_t *ao = json_pack("{so}", "from", refs_json(g->from, g->n_from, false));

		if (g->has_points_to)
			json_object_set_new(ao, "points_to",
					    refs_json(g->points_to, g->n_points_to, true));
		json_array_append_new(args, ao);
	}
	json_object_set_new(o, "args", args);
	json_object_set_new(o, "result", ref_json(&c->result, false));
	return o;
}

static json_t *fn_json(const struct dpa_progrep *pr, const struct dpa_pr_fn *f)
{
	json_t *params = json_array(), *unplaced = json_array(), *calls = json_array(), *o;
	char tu[17];

	snprintf(tu, sizeof(tu), "%016llx", (unsigned long long)pr->tu[f->tu].id);
	for (uint32_t i = 0; i < f->n_params; i++)
		json_array_append_new(params, json_pack("{sossso}", "name", jstr(f->params[i].name),
							"type", f->params[i].type, "pointer",
							json_boolean(f->params[i].pointer)));
	for (uint32_t i = 0; i < f->n_unplaced; i++)
		json_array_append_new(unplaced, json_integer(f->unplaced[i]));
	for (uint32_t i = 0; i < f->n_sites; i++)
		json_array_append_new(calls, call_json(pr, &f->calls[i]));
	o = json_pack("{sssIsssssIsIsosssososIsIsI}", "tu", tu, "ps", (json_int_t)f->ps, "fn",
		      f->name, "file", f->file, "line", (json_int_t)f->line, "end_line",
		      (json_int_t)f->end_line, "checksum", jsum(f->checksum), "checksum_state",
		      dpa_pr_sum_name(f->sum_state), "source_checksum",
		      f->sum_state <= DPA_PR_SUM_STALE ? jsum(f->source_sum) : json_null(),
		      "public", json_boolean(f->public_), "first_site", (json_int_t)f->first_site,
		      "n_sites", (json_int_t)f->n_sites, "backedges", (json_int_t)f->backedges);
	json_object_set_new(o, "params", params);
	json_object_set_new(o, "body", body_json(&f->body));
	json_object_set_new(o, "unplaced", unplaced);
	json_object_set_new(o, "calls", calls);
	return o;
}

static void put_json(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	if (!s)
		die_status(DP_EXIT_FAIL, "out of memory");
	fputs(s, stdout);
	free(s);
	json_decref(o);
}

static void json_module(uint32_t id, const char *path, const char *state, const char *msg,
			const struct dpa_progrep *pr)
{
	json_t *tus = json_array(), *sums = json_object(), *head;
	char *s;
	size_t len;

	for (uint32_t i = 0; pr && i < pr->n_tu; i++) {
		const struct dpa_pr_tu *t = &pr->tu[i];
		char b[17];

		snprintf(b, sizeof(b), "%016llx", (unsigned long long)t->id);
		json_array_append_new(tus, json_pack("{sssssIsIsI}", "tu", b, "file", t->file,
						     "n_ps", (json_int_t)t->n_ps, "n_css",
						     (json_int_t)t->n_css, "abi",
						     (json_int_t)t->abi));
	}
	for (int k = 0; k < DPA_PR_SUM_NSTATES; k++)
		json_object_set_new(sums, dpa_pr_sum_name(k), json_integer(pr ? pr->n_sum[k] : 0));
	/* the module without its functions, left open for them */
	head = json_pack("{sIsssssoso}", "id", (json_int_t)id, "path", path, "state", state,
			 "message", jstr(msg), "tus", tus);
	s = head ? json_dumps(head, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(head);
	if (!s)
		die_status(DP_EXIT_FAIL, "out of memory");
	len = strlen(s);
	printf("%.*s,\"checksums\":", (int)(len - 1), s);
	free(s);
	put_json(sums);
	printf(",\"functions\":[");
	for (uint32_t i = 0; pr && i < pr->n_fn; i++) {
		printf(i ? ",\n" : "\n");
		put_json(fn_json(pr, &pr->fn[i]));
	}
	printf("]}");
}

static void json_start(const char *file, const char *kind)
{
	json_t *f = json_string(file);
	char *s = json_dumps(f, JSON_ENCODE_ANY);

	printf("{\"file\":%s,\"kind\":\"%s\",\n\"modules\":[\n", s ? s : "null", kind);
	free(s);
	json_decref(f);
}

/* ================================================================
 * Text
 * ================================================================ */

static void text_ref(const struct dpa_pr_ref *r)
{
	switch (r->kind) {
	case DPA_PR_PARAM:
	case DPA_PR_LOCAL:
	case DPA_PR_GLOBAL:
	case DPA_PR_VIA_PARAM:
	case DPA_PR_FUNCTION:
		if (r->name) {
			printf("%s %s", dpa_pr_ref_name(r->kind), r->name);
			return;
		}
		break;
	case DPA_PR_ADDR_OF:
		printf("&%s %s", dpa_pr_ref_name(r->var), r->name);
		return;
	case DPA_PR_CALL:
	case DPA_PR_HEAP:
		if (r->has_site)
			printf("%s %u", dpa_pr_ref_name(r->kind), r->site);
		else
			printf("builtin call");
		return;
	default:
		break;
	}
	fputs(dpa_pr_ref_name(r->kind), stdout);
}

static void text_refs(const struct dpa_pr_ref *r, uint32_t n)
{
	if (n == 0)
		fputs("?", stdout);
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			fputs(" | ", stdout);
		text_ref(&r[i]);
	}
}

static void text_call(const struct dpa_pr_call *c, int ind)
{
	printf("%*scall %u %s(", ind, "", c->site, c->callee ? c->callee : "*");
	for (uint32_t a = 0; a < c->n_args; a++) {
		const struct dpa_pr_arg *g = &c->args[a];

		if (a)
			fputs(", ", stdout);
		text_refs(g->from, g->n_from);
		if (g->has_points_to) {
			fputs(" => ", stdout);
			text_refs(g->points_to, g->n_points_to);
		}
	}
	fputs(") -> ", stdout);
	text_ref(&c->result);
	printf("  [%s, %s, line %u:%u%s%s", dpa_css_kind_name(c->kind),
	       dpa_pr_effects_name(c->effects), c->line, c->col, c->tail ? ", tail" : "",
	       c->noreturn ? ", noreturn" : "");
	if (c->kind == DPA_CSS_INDIRECT) {
		fputs(", target ", stdout);
		text_refs(c->target_from, c->n_target_from);
	}
	puts("]");
}

static void text_body(const struct dpa_pr_fn *f, const struct dpa_pr_body *b, int ind)
{
	for (uint32_t i = 0; i < b->n; i++) {
		const struct dpa_pr_item *it = &b->items[i];

		switch (it->kind) {
		case DPA_PR_ITEM_CALL:
			if (it->site >= f->first_site && it->site - f->first_site < f->n_sites)
				text_call(&f->calls[it->site - f->first_site], ind);
			break;
		case DPA_PR_ITEM_BRANCH:
			printf("%*s%s line %u\n", ind, "", it->is_switch ? "switch" : "if", it->line);
			for (uint32_t k = 0; k < it->n_arms; k++) {
				printf("%*sarm %u%s\n", ind + 2, "", k + 1,
				       it->arms[k].n ? "" : ": no calls");
				text_body(f, &it->arms[k], ind + 4);
			}
			break;
		case DPA_PR_ITEM_USE:
			printf("%*suse %s\n", ind, "", it->name);
			break;
		case DPA_PR_ITEM_STORE:
			printf("%*sstore through %s\n", ind, "", it->name);
			break;
		default:
			printf("%*sloop line %u%s\n", ind, "", it->line, it->body.n ? "" : ": no calls");
			text_body(f, &it->body, ind + 2);
		}
	}
}

static void text_fn(const struct dpa_pr_fn *f, int ind)
{
	printf("%*s%s(", ind, "", f->name);
	for (uint32_t i = 0; i < f->n_params; i++)
		printf("%s%s%s%s", i ? ", " : "", f->params[i].type, f->params[i].name ? " " : "",
		       f->params[i].name ? f->params[i].name : "");
	printf(")  %s:%u-%u%s  ps %u", dpa_basename(f->file), f->line, f->end_line,
	       f->public_ ? "" : "  static", f->ps);
	if (f->n_sites)
		printf("  sites %u..%u", f->first_site, f->first_site + f->n_sites - 1);
	printf("  backedges %u\n", f->backedges);
	printf("%*schecksum %016llx %s", ind + 2, "", (unsigned long long)f->checksum,
	       dpa_pr_sum_name(f->sum_state));
	if (f->sum_state == DPA_PR_SUM_STALE)
		printf(" (source now %016llx)", (unsigned long long)f->source_sum);
	putchar('\n');
	if (!f->body.n && !f->n_unplaced)
		printf("%*sno calls\n", ind + 2, "");
	text_body(f, &f->body, ind + 2);
	for (uint32_t i = 0; i < f->n_unplaced; i++) {
		uint32_t s = f->unplaced[i];

		printf("%*sunplaced:\n", ind + 2, "");
		text_call(&f->calls[s - f->first_site], ind + 4);
	}
}

static void text_progrep(const struct dpa_progrep *pr, int ind)
{
	for (uint32_t t = 0; t < pr->n_tu; t++) {
		const struct dpa_pr_tu *tu = &pr->tu[t];

		printf("%*stu %016llx %s: %u functions, %u sites, abi %u\n", ind, "",
		       (unsigned long long)tu->id, tu->file, tu->n_ps, tu->n_css, tu->abi);
		for (uint32_t f = 0; f < pr->n_fn; f++)
			if (pr->fn[f].tu == t)
				text_fn(&pr->fn[f], ind + 2);
	}
}

static void text_sums(const struct dpa_progrep *pr)
{
	printf("%u TUs, %u functions; checksums: %u ok, %u stale, %u no-source, %u unknown\n",
	       pr->n_tu, pr->n_fn, pr->n_sum[DPA_PR_SUM_OK], pr->n_sum[DPA_PR_SUM_STALE],
	       pr->n_sum[DPA_PR_SUM_NO_SOURCE], pr->n_sum[DPA_PR_SUM_UNKNOWN]);
}

/* ================================================================
 * The two kinds of FILE
 * ================================================================ */

static int show_elf(const char *path, bool json)
{
	struct dpa_progrep pr;
	struct dpa_error err = { { 0 } };
	int rc = dpa_progrep_read(&pr, path, &err);

	if (rc < 0) {
		dpa_progrep_release(&pr);
		die_plain("%s", err.msg);
	}
	if (rc == 1) {
		dpa_progrep_release(&pr);
		die_plain("%s: no .deepprof.progrep section (not compiled by deepprof-cc's plugin, "
			  "or stripped)", path);
	}
	if (json) {
		json_start(path, "elf");
		json_module(0, path, dpa_pr_module_state_name(DPA_PR_LOADED), NULL, &pr);
		printf("\n],\n\"ps\":[],\n\"css\":[]}\n");
	} else {
		printf("%s: ", path);
		text_sums(&pr);
		text_progrep(&pr, 0);
	}
	dpa_progrep_release(&pr);
	return DP_EXIT_OK;
}

static json_t *key_json(uint64_t tu, uint32_t n)
{
	char b[17];

	snprintf(b, sizeof(b), "%016llx", (unsigned long long)tu);
	return json_pack("{sssI}", "tu", b, "index", (json_int_t)n);
}

static void show_profile_json(const struct dpa_profile *p, const struct dpa_progreps *s)
{
	json_start(p->path, "profile");
	for (uint32_t m = 1; m <= p->n_module; m++) {
		const struct dpa_pr_module *pm = &s->mod[m];

		printf(m > 1 ? ",\n" : "");
		json_module(m, p->module[m].path ? p->module[m].path : "",
			    dpa_pr_module_state_name(pm->state), pm->msg,
			    pm->state == DPA_PR_LOADED ? &pm->pr : NULL);
	}
	printf("\n],\n\"ps\":[");
	for (uint32_t i = 1; i <= p->n_ps; i++) {
		const struct dpa_pr_ps_map *mp = &s->ps[i];
		json_t *o = json_pack("{sIss}", "id", (json_int_t)i, "name", dpa_ps_name(p, i));

		if (mp->fn) {
			const struct dpa_progrep *pr = &s->mod[mp->module].pr;

			json_object_set_new(o, "progrep", key_json(pr->tu[mp->fn->tu].id, mp->fn->ps));
			json_object_set_new(o, "fn", json_string(mp->fn->name));
		} else {
			json_object_set_new(o, "progrep", json_null());
		}
		printf(i > 1 ? ",\n" : "\n");
		put_json(o);
	}
	printf("],\n\"css\":[");
	for (uint32_t i = 1; i <= p->n_css; i++) {
		const struct dpa_pr_css_map *mc = &s->css[i];
		json_t *o = json_pack("{sI}", "id", (json_int_t)i);

		if (mc->module) {
			char id[48];

			snprintf(id, sizeof(id), "%016llx:%u", (unsigned long long)mc->tu_id, mc->site);
			json_object_set_new(o, "progrep", json_string(id));
			json_object_set_new(o, "fn", mc->call ?
					    json_string(s->mod[mc->module].pr.fn[mc->call->fn].name) :
					    json_null());
			json_object_set_new(o, "callee", mc->call ? jstr(mc->call->callee) : json_null());
		} else {
			json_object_set_new(o, "progrep", json_null());
		}
		printf(i > 1 ? ",\n" : "\n");
		put_json(o);
	}
	printf("]}\n");
}

static void show_profile_text(const struct dpa_profile *p, const struct dpa_progreps *s)
{
	printf("%s: %u modules: %u with progrep, %u without, %u unusable\n", p->path, p->n_module,
	       s->n_loaded, s->n_absent, s->n_unusable);
	for (uint32_t m = 1; m <= p->n_module; m++) {
		const struct dpa_pr_module *pm = &s->mod[m];

		printf("module %u %s: %s", m, p->module[m].path ? p->module[m].path : "",
		       pm->msg ? pm->msg : dpa_pr_module_state_name(pm->state));
		if (pm->state == DPA_PR_LOADED) {
			printf(", ");
			text_sums(&pm->pr);
			text_progrep(&pm->pr, 2);
		} else {
			putchar('\n');
		}
	}
	printf("procedures mapped: %u of %u\n", s->n_ps_mapped, p->n_ps);
	for (uint32_t i = 1; i <= p->n_ps; i++)
		if (s->ps[i].fn)
			printf("  ps %u %s -> %016llx ps %u\n", i, dpa_ps_name(p, i),
			       (unsigned long long)s->mod[s->ps[i].module].pr.tu[s->ps[i].fn->tu].id,
			       s->ps[i].fn->ps);
	printf("call sites mapped: %u of %u\n", s->n_css_mapped, p->n_css);
	for (uint32_t i = 1; i <= p->n_css; i++) {
		const struct dpa_pr_css_map *mc = &s->css[i];

		if (mc->module)
			printf("  css %u in %s -> %016llx:%u%s%s\n", i, dpa_ps_name(p, p->css[i].caller_ps),
			       (unsigned long long)mc->tu_id, mc->site, mc->call ? " " : " (no record)",
			       mc->call && mc->call->callee ? mc->call->callee : "");
	}
}

static int show_profile(const char *path, bool json)
{
	struct dpa_profile p;
	struct dpa_progreps s;
	struct dpa_error err = { { 0 } };

	if (dpa_profile_read(&p, path, &err) < 0)
		die_plain("%s", err.msg);
	if (dpa_progreps_load(&s, &p, &err) < 0) {
		dpa_progreps_release(&s);
		dpa_profile_release(&p);
		die_plain("%s", err.msg);
	}
	if (json)
		show_profile_json(&p, &s);
	else
		show_profile_text(&p, &s);
	dpa_progreps_release(&s);
	dpa_profile_release(&p);
	return DP_EXIT_OK;
}

int cmd_progrep(int argc, char **argv)
{
	const char *file = NULL;
	bool json = false;
	unsigned char magic[4] = { 0 };
	FILE *f;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			progrep_help();
			return DP_EXIT_OK;
		} else if (!strcmp(argv[i], "--") && i + 1 < argc && !file) {
			file = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1])
			usage_error("progrep", "unknown option '%s'", argv[i]);
		else if (file)
			usage_error("progrep", "more than one FILE");
		else
			file = argv[i];
	}
	if (!file)
		usage_error("progrep", "no FILE given");
	f = fopen(file, "rb");
	if (!f)
		die("%s: %s", file, strerror(errno));
	if (fread(magic, 1, 4, f) != 4)
		magic[0] = 0;
	fclose(f);
	if (!memcmp(magic, "\177ELF", 4))
		return show_elf(file, json);
	/* Deep.data starts with its HEADER, a MessagePack map */
	if ((magic[0] & 0xf0) == 0x80 || magic[0] == 0xde || magic[0] == 0xdf)
		return show_profile(file, json);
	die_plain("%s: neither an ELF file nor a Deep.data file", file);
}
