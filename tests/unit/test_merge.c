/*
 * test_merge.c — dpa_merge(), dpa_profile_write() and the canonical text:
 * hand-built profiles with known merged counts (paths, recursion folding,
 * threads, header), refusals, and associativity/commutativity on profiles
 * made by simulating the runtime's recursion folding on random runs.
 * The builder (tmb_*) is shared with test_diff.c. Part of deepprof's tests. MIT licence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "merge.h"
#include "write_profile.h"
#include "strtab.h"

/* The builder's state; test_diff.c sees it as an opaque type. */
struct tmb {
	struct dpa_profile p;
	struct dpa_module mod[3];
	struct dpa_thread th[16];
	char *argv[3];
	struct dpa_ps *ps_a;
	struct dpa_css *css_a;
	struct dpa_pd *pd_a;
};

/* exported to test_diff.c */
struct tmb *tmb_new(const char *path, const char *arg);
void tmb_free(struct tmb *b);
struct dpa_profile *tmb_prof(struct tmb *b);
uint32_t tmb_fn(struct tmb *b, uint64_t off);
uint32_t tmb_thread(struct tmb *b, uint64_t tid);
uint32_t tmb_call(struct tmb *b, uint32_t caller, uint64_t site, uint64_t callee_off,
		  uint32_t callee, uint64_t calls);
void tmb_finish(struct tmb *b);
uint32_t tmb_find(const struct dpa_profile *p, uint32_t t, const uint64_t *path, int n);
uint64_t tmb_between(const struct dpa_profile *p, uint32_t caller, uint32_t callee,
		     enum dpa_measure m);
struct tmb *tmb_random(const char *path, unsigned seed, int calls);

struct dpa_profile *tmb_prof(struct tmb *b)
{
	return &b->p;
}

/* ================================================================
 * The builder: a profile of the imaginary program /bin/prog, module 1 the
 * program, module 2 libc (where the root's call sites are).
 * ================================================================ */

#define TB_CAP 8192

struct tmb *tmb_new(const char *path, const char *arg)
{
	struct tmb *b = calloc(1, sizeof(*b));
	struct dpa_profile *p;

	CU_ASSERT_FATAL(b != NULL);
	p = &b->p;
	b->ps_a = calloc(TB_CAP + 1, sizeof(struct dpa_ps));
	b->css_a = calloc(TB_CAP + 1, sizeof(struct dpa_css));
	b->pd_a = calloc(TB_CAP + 2, sizeof(struct dpa_pd));  /* + the sentinel */
	p->pd_thread = calloc(TB_CAP + 1, sizeof(uint32_t));  /* kept: not compacted */
	CU_ASSERT_FATAL(b->ps_a && b->css_a && b->pd_a && p->pd_thread &&
			dpa_csd_reserve(p, TB_CAP) == 0);
	p->path = (char *)path;
	p->hdr.version = p->hdr.min_version = 1;
	p->hdr.program = (char *)"/bin/prog";
	b->argv[0] = (char *)"/bin/prog";
	b->argv[1] = (char *)arg;
	p->hdr.argv = b->argv;
	p->hdr.argc = arg ? 2 : 1;
	p->hdr.pid = 100;
	p->hdr.ppid = 1;
	p->hdr.final = true;
	p->hdr.start_ns = 1000;
	p->hdr.wall_ns = 500;
	p->hdr.clock = (char *)"calls";
	p->hdr.timer_hz = 1000;
	p->hdr.cpu_ns = 4000000;
	p->hdr.ns_per_tick = 1e6;
	p->hdr.mem_bytes = 4096;
	b->mod[1].path = (char *)"/bin/prog";
	b->mod[1].build_id = (char *)"abcdef01";
	b->mod[1].base = 0x555500000000ULL;
	b->mod[1].size = 0x4000;
	b->mod[2].path = (char *)"/lib/libc.so.6";
	b->mod[2].base = 0x7f0000000000ULL;
	b->mod[2].size = 0x100000;
	p->module = b->mod;
	p->n_module = 2;
	p->ps = b->ps_a;
	p->css = b->css_a;
	p->pd = b->pd_a;
	p->thread = b->th;
	CU_ASSERT_FATAL(dpa_src_set(p, DPA_PS_NAME, 1, dpa_str_id(p, "<root>")) == 0);
	p->n_ps = 1;
	return b;
}

void tmb_free(struct tmb *b)
{
	if (!b)
		return;
	free(b->ps_a);
	free(b->css_a);
	free(b->pd_a);
	free(b->p.pd_thread);
	dpa_csd_release(&b->p);
	dpa_src_release(&b->p);
	dpa_strtab_free(b->p.strings);
	free(b);
}

uint32_t tmb_fn(struct tmb *b, uint64_t off)
{
	struct dpa_profile *p = &b->p;
	uint32_t k;

	for (k = 2; k <= p->n_ps; k++)
		if (dpa_ps_offset(p, k) == off)
			return k;
	CU_ASSERT_FATAL(p->n_ps < TB_CAP);
	k = ++p->n_ps;
	p->ps[k].module = 1;
	CU_ASSERT_FATAL(dpa_ps_set_offset(p, k, off) == 0);
	return k;
}

uint32_t tmb_thread(struct tmb *b, uint64_t tid)
{
	struct dpa_profile *p = &b->p;
	uint32_t t = ++p->n_thread, r = ++p->n_pd;

	CU_ASSERT_FATAL(t < 16);
	p->pd[r].ps = 1;
	p->pd_thread[r] = t;
	p->thread[t].tid = tid;
	p->thread[t].root_pd = r;
	p->thread[t].cpu_ns = 1000 * t;
	p->thread[t].ticks = 3;
	p->thread[t].ticks_outside = 1;
	p->thread[t].allocs_outside = 2;
	p->thread[t].bytes_outside = 64;
	p->thread[t].exited = t > 1;
	return r;
}

static uint32_t tmb_site(struct tmb *b, uint32_t caller_ps, uint64_t site)
{
	struct dpa_profile *p = &b->p;
	uint32_t k, module = caller_ps == 1 ? 2 : 1;

	for (k = 1; k <= p->n_css; k++)
		if (p->css[k].caller_ps == caller_ps && dpa_css_offset(p, k) == site &&
		    p->css[k].module == module)
			return k;
	CU_ASSERT_FATAL(p->n_css < TB_CAP);
	k = ++p->n_css;
	p->css[k].caller_ps = caller_ps;
	p->css[k].module = module;
	CU_ASSERT_FATAL(dpa_css_set_offset(p, k, site) == 0);
	p->css[k].kind = caller_ps == 1 ? DPA_CSS_CALLBACK : DPA_CSS_DYNAMIC;
	return k;
}

uint32_t tmb_call(struct tmb *b, uint32_t caller, uint64_t site, uint64_t callee_off,
		 uint32_t callee, uint64_t calls)
{
	struct dpa_profile *p = &b->p;
	uint32_t ps = tmb_fn(b, callee_off), css = tmb_site(b, p->pd[caller].ps, site), c;

	if (!callee) {
		CU_ASSERT_FATAL(p->n_pd < TB_CAP);
		callee = ++p->n_pd;
		p->pd[callee].ps = ps;
		p->pd_thread[callee] = p->pd_thread[caller];
	}
	CU_ASSERT_FATAL(p->n_csd < TB_CAP);
	c = ++p->n_csd;
	p->csd[c].css = css;
	p->csd[c].caller_pd = caller;
	p->csd[c].callee_pd = callee;
	dpa_csd_set(p, c, DPA_CALLS, calls);
	dpa_csd_set(p, c, DPA_EXITS, calls);
	dpa_csd_set(p, c, DPA_CSCS, calls);
	dpa_csd_set(p, c, DPA_TICKS, calls / 2);
	dpa_csd_set(p, c, DPA_ALLOCS, calls % 3);
	dpa_csd_set(p, c, DPA_BYTES, 8 * (calls % 3));
	return callee;
}

void tmb_finish(struct tmb *b)
{
	struct dpa_profile *p = &b->p;
	uint32_t k;

	p->hdr.calls = p->hdr.cscs = p->hdr.ticks = p->hdr.allocs = p->hdr.bytes = 0;
	for (k = 1; k <= p->n_csd; k++) {
		p->hdr.calls += dpa_own(p, k, DPA_CALLS);
		p->hdr.cscs += dpa_own(p, k, DPA_CSCS);
		p->hdr.ticks += dpa_own(p, k, DPA_TICKS);
		p->hdr.allocs += dpa_own(p, k, DPA_ALLOCS);
		p->hdr.bytes += dpa_own(p, k, DPA_BYTES);
	}
	p->hdr.ticks += 2;
	p->hdr.ticks_outside = 2;
}

/* The pd reached from thread t's root by following callee procedures at
 * offsets path[0..n) (the first matching csd at each step), or 0. */
uint32_t tmb_find(const struct dpa_profile *p, uint32_t t, const uint64_t *path, int n)
{
	uint32_t cur = p->thread[t].root_pd, k;
	int i;

	for (i = 0; i < n; i++) {
		uint32_t next = 0;
		for (k = 1; k <= p->n_csd && !next; k++)
			if (p->csd[k].caller_pd == cur && p->ps[p->pd[p->csd[k].callee_pd].ps].module &&
			    dpa_ps_offset(p, p->pd[p->csd[k].callee_pd].ps) == path[i])
				next = p->csd[k].callee_pd;
		if (!next)
			return 0;
		cur = next;
	}
	return cur;
}

/* Measure m summed over the csds from caller to callee. */
uint64_t tmb_between(const struct dpa_profile *p, uint32_t caller, uint32_t callee, enum dpa_measure m)
{
	uint64_t s = 0;
	uint32_t k;

	for (k = 1; k <= p->n_csd; k++)
		if (p->csd[k].caller_pd == caller && p->csd[k].callee_pd == callee)
			s += dpa_own(p, k, m);
	return s;
}

/* ================================================================
 * Hand-built cases
 * ================================================================ */

enum { MAIN = 0x1100, F = 0x1200, G = 0x1300, H = 0x1400, FACT = 0x1500,
       EVEN = 0x1600, ODD = 0x1700, W = 0x1800, V = 0x1900 };
#define ROOTSITE 0x27000

static struct dpa_merged merge2(const struct dpa_profile *a, const struct dpa_profile *b)
{
	struct dpa_merged m;
	struct dpa_error err = { { 0 } };
	const struct dpa_profile *in[2] = { a, b };

	CU_ASSERT_EQUAL_FATAL(dpa_merge(&m, in, 2, NULL, &err), 0);
	return m;
}

/* g reached from main and from f: two contexts, each summed on its own. */
static void test_merge_paths(void)
{
	struct tmb *a = tmb_new("A", "1"), *b = tmb_new("B", "2");
	uint32_t r, mn, f;
	struct dpa_merged m;
	const struct dpa_profile *o;
	uint32_t pm, pf, pgm, pgf, ph;

	r = tmb_thread(a, 11);
	mn = tmb_call(a, r, ROOTSITE, MAIN, 0, 1);
	f = tmb_call(a, mn, MAIN + 0x10, F, 0, 2);
	tmb_call(a, mn, MAIN + 0x20, G, 0, 3);
	tmb_call(a, f, F + 0x5, G, 0, 4);
	tmb_finish(a);

	r = tmb_thread(b, 22);
	mn = tmb_call(b, r, ROOTSITE, MAIN, 0, 1);
	f = tmb_call(b, mn, MAIN + 0x10, F, 0, 5);
	f = tmb_call(b, f, F + 0x5, G, 0, 7);
	tmb_call(b, f, G + 0x9, H, 0, 1);
	tmb_finish(b);

	m = merge2(&a->p, &b->p);
	o = &m.prof;
	CU_ASSERT_EQUAL(o->n_thread, 1);
	CU_ASSERT_EQUAL(o->n_pd, 6);    /* root, main, f, g under main, g under f, h */
	CU_ASSERT_EQUAL(o->n_csd, 5);
	CU_ASSERT_EQUAL(o->n_ps, 5);    /* <root>, main, f, g, h */
	pm = tmb_find(o, 1, (uint64_t[]){ MAIN }, 1);
	pf = tmb_find(o, 1, (uint64_t[]){ MAIN, F }, 2);
	pgm = tmb_find(o, 1, (uint64_t[]){ MAIN, G }, 2);
	pgf = tmb_find(o, 1, (uint64_t[]){ MAIN, F, G }, 3);
	ph = tmb_find(o, 1, (uint64_t[]){ MAIN, F, G, H }, 4);
	CU_ASSERT(pm && pf && pgm && pgf && ph);
	CU_ASSERT_NOT_EQUAL(pgm, pgf);
	CU_ASSERT_EQUAL(tmb_between(o, o->thread[1].root_pd, pm, DPA_CALLS), 2);
	CU_ASSERT_EQUAL(tmb_between(o, pm, pf, DPA_CALLS), 7);
	CU_ASSERT_EQUAL(tmb_between(o, pm, pgm, DPA_CALLS), 3);
	CU_ASSERT_EQUAL(tmb_between(o, pf, pgf, DPA_CALLS), 11);
	CU_ASSERT_EQUAL(tmb_between(o, pf, pgf, DPA_TICKS), 2 + 3);
	CU_ASSERT_EQUAL(tmb_between(o, pf, pgf, DPA_BYTES), 8 * (1 + 1));
	CU_ASSERT_EQUAL(tmb_between(o, pgf, ph, DPA_CALLS), 1);
	/* the canonical order: pds breadth first from the root */
	CU_ASSERT_EQUAL(o->thread[1].root_pd, 1);
	CU_ASSERT_EQUAL(pm, 2);
	CU_ASSERT_EQUAL(o->hdr.calls, 1 + 2 + 3 + 4 + 1 + 5 + 7 + 1);
	CU_ASSERT_EQUAL(m.csd_map[1][3], m.csd_map[0][4]);  /* f->g of both */
	CU_ASSERT_EQUAL(m.pd_map[0][5], pgf);
	dpa_merged_release(&m);
	tmb_free(a);
	tmb_free(b);
}

/* Folded recursion: fact calls itself, folded in A, unfolded once in C
 * (fact -> fact' -> fact'); mutual recursion even <-> odd. */
static void test_merge_recursion(void)
{
	struct tmb *a = tmb_new("A", NULL), *c = tmb_new("C", NULL);
	uint32_t r, mn, ft, ft2, ev, od;
	struct dpa_merged m;
	const struct dpa_profile *o;
	uint32_t pf, pe, po;

	r = tmb_thread(a, 1);
	mn = tmb_call(a, r, ROOTSITE, MAIN, 0, 1);
	ft = tmb_call(a, mn, MAIN + 0x30, FACT, 0, 1);
	tmb_call(a, ft, FACT + 0x8, FACT, ft, 4);
	ev = tmb_call(a, mn, MAIN + 0x40, EVEN, 0, 2);
	od = tmb_call(a, ev, EVEN + 0x4, ODD, 0, 3);
	tmb_call(a, od, ODD + 0x4, EVEN, ev, 2);
	tmb_finish(a);

	r = tmb_thread(c, 2);
	mn = tmb_call(c, r, ROOTSITE, MAIN, 0, 1);
	ft = tmb_call(c, mn, MAIN + 0x30, FACT, 0, 1);
	ft2 = tmb_call(c, ft, FACT + 0x8, FACT, 0, 1);
	tmb_call(c, ft2, FACT + 0x8, FACT, ft2, 5);
	ev = tmb_call(c, mn, MAIN + 0x40, EVEN, 0, 1);
	od = tmb_call(c, ev, EVEN + 0x4, ODD, 0, 1);
	tmb_call(c, od, ODD + 0x4, EVEN, ev, 1);
	tmb_finish(c);

	m = merge2(&a->p, &c->p);
	o = &m.prof;
	CU_ASSERT_EQUAL(o->n_pd, 5);    /* root, main, fact, even, odd */
	CU_ASSERT_EQUAL(o->n_csd, 6);
	pf = tmb_find(o, 1, (uint64_t[]){ MAIN, FACT }, 2);
	pe = tmb_find(o, 1, (uint64_t[]){ MAIN, EVEN }, 2);
	po = tmb_find(o, 1, (uint64_t[]){ MAIN, EVEN, ODD }, 3);
	CU_ASSERT_EQUAL(tmb_find(o, 1, (uint64_t[]){ MAIN, FACT, FACT, FACT }, 4), pf);
	CU_ASSERT_EQUAL(tmb_between(o, pf, pf, DPA_CALLS), 4 + 1 + 5);
	CU_ASSERT_EQUAL(tmb_between(o, 2, pf, DPA_CALLS), 2);
	CU_ASSERT_EQUAL(tmb_between(o, pe, po, DPA_CALLS), 4);
	CU_ASSERT_EQUAL(tmb_between(o, po, pe, DPA_CALLS), 3);
	CU_ASSERT_EQUAL(tmb_find(o, 1, (uint64_t[]){ MAIN, EVEN, ODD, EVEN }, 4), pe);
	dpa_merged_release(&m);
	tmb_free(a);
	tmb_free(c);
}

/* Thread 1 with thread 1; workers by start routine, then position. */
static void test_merge_threads(void)
{
	struct tmb *a = tmb_new("A", NULL), *b = tmb_new("B", NULL);
	uint32_t r, w;
	struct dpa_merged m;
	const struct dpa_profile *o;
	uint32_t t;
	char buf[64];

	r = tmb_thread(a, 10);
	tmb_call(a, r, ROOTSITE, MAIN, 0, 1);
	r = tmb_thread(a, 11);
	w = tmb_call(a, r, ROOTSITE + 0x40, W, 0, 1);
	tmb_call(a, w, W + 0x4, G, 0, 10);
	r = tmb_thread(a, 12);
	w = tmb_call(a, r, ROOTSITE + 0x40, W, 0, 1);
	tmb_call(a, w, W + 0x4, G, 0, 20);
	tmb_finish(a);

	r = tmb_thread(b, 20);
	tmb_call(b, r, ROOTSITE, MAIN, 0, 1);
	r = tmb_thread(b, 21);
	tmb_call(b, r, ROOTSITE + 0x40, V, 0, 1);
	r = tmb_thread(b, 22);
	w = tmb_call(b, r, ROOTSITE + 0x40, W, 0, 1);
	tmb_call(b, w, W + 0x4, G, 0, 100);
	tmb_finish(b);

	m = merge2(&a->p, &b->p);
	o = &m.prof;
	CU_ASSERT_EQUAL_FATAL(o->n_thread, 4);      /* main, W #0, W #1, V */
	CU_ASSERT_EQUAL(m.thread_map[0][1], 1);
	CU_ASSERT_EQUAL(m.thread_map[1][1], 1);
	CU_ASSERT_EQUAL(m.thread_map[0][2], m.thread_map[1][3]);   /* first W of each */
	CU_ASSERT_NOT_EQUAL(m.thread_map[0][3], m.thread_map[0][2]);
	CU_ASSERT_NOT_EQUAL(m.thread_map[1][2], m.thread_map[0][2]);
	t = m.thread_map[0][2];
	CU_ASSERT_EQUAL(tmb_between(o, tmb_find(o, t, (uint64_t[]){ W }, 1),
				   tmb_find(o, t, (uint64_t[]){ W, G }, 2), DPA_CALLS), 110);
	CU_ASSERT_EQUAL(o->thread[t].tid, 11);
	CU_ASSERT_EQUAL(o->thread[t].cpu_ns, 2000 + 3000);
	CU_ASSERT_EQUAL(o->thread[t].ticks, 6);
	CU_ASSERT_EQUAL(o->thread[t].bytes_outside, 128);
	t = m.thread_map[0][3];
	CU_ASSERT_EQUAL(tmb_between(o, tmb_find(o, t, (uint64_t[]){ W }, 1),
				   tmb_find(o, t, (uint64_t[]){ W, G }, 2), DPA_CALLS), 20);
	CU_ASSERT_EQUAL(o->thread[t].cpu_ns, 3000);
	t = m.thread_map[1][2];
	CU_ASSERT_PTR_NOT_NULL(tmb_find(o, t, (uint64_t[]){ V }, 1) ? o : NULL);
	CU_ASSERT_STRING_EQUAL(dpa_merge_ps_label(o, o->pd[tmb_find(o, t, (uint64_t[]){ V }, 1)].ps,
						  buf, sizeof(buf)), "0x1900 in prog");
	/* every pd belongs to its thread */
	for (uint32_t k = 1; k <= o->n_csd; k++)
		CU_ASSERT_EQUAL(dpa_pd_thread(o, o->csd[k].caller_pd), dpa_pd_thread(o, o->csd[k].callee_pd));
	dpa_merged_release(&m);
	tmb_free(a);
	tmb_free(b);
}

static void test_merge_header(void)
{
	struct tmb *a = tmb_new("A", "zz"), *b = tmb_new("B", "aa");
	struct dpa_merged m;
	const struct dpa_header *h;

	tmb_call(a, tmb_thread(a, 1), ROOTSITE, MAIN, 0, 3);
	tmb_finish(a);
	tmb_call(b, tmb_thread(b, 1), ROOTSITE, MAIN, 0, 4);
	tmb_finish(b);
	b->p.hdr.start_ns = 900;
	b->p.hdr.final = false;
	b->p.hdr.mem_bytes = 8192;
	b->p.hdr.cpu_ns = 6000000;
	b->p.hdr.lost = 2;
	b->mod[1].base = 0x555400000000ULL;
	m = merge2(&a->p, &b->p);
	h = &m.prof.hdr;
	CU_ASSERT_STRING_EQUAL(h->program, "/bin/prog");
	CU_ASSERT_EQUAL_FATAL(h->argc, 2);
	CU_ASSERT_STRING_EQUAL(h->argv[1], "aa");
	CU_ASSERT_EQUAL(h->pid, 0);
	CU_ASSERT_EQUAL(h->final, false);
	CU_ASSERT_EQUAL(h->start_ns, 900);
	CU_ASSERT_EQUAL(h->wall_ns, 1000);
	CU_ASSERT_EQUAL(h->calls, 7);
	CU_ASSERT_EQUAL(h->ticks, 1 + 2 + 2 + 2);
	CU_ASSERT_EQUAL(h->cpu_ns, 10000000);
	CU_ASSERT_DOUBLE_EQUAL(h->ns_per_tick, 10000000.0 / 7, 1e-6);
	CU_ASSERT_EQUAL(h->mem_bytes, 8192);
	CU_ASSERT_EQUAL(h->lost, 2);
	CU_ASSERT_EQUAL(m.prof.n_module, 2);
	CU_ASSERT_STRING_EQUAL(m.prof.module[1].path, "/bin/prog");
	CU_ASSERT_EQUAL(m.prof.module[1].base, 0x555400000000ULL);
	CU_ASSERT_STRING_EQUAL(m.prof.module[1].build_id, "abcdef01");
	CU_ASSERT_PTR_NULL(m.prof.module[2].build_id);
	CU_ASSERT_EQUAL(m.prof.ps[1].module, 0);
	CU_ASSERT_STRING_EQUAL(dpa_src_str(&m.prof, DPA_PS_NAME, 1), "<root>");
	dpa_merged_release(&m);
	tmb_free(a);
	tmb_free(b);
}

static void test_merge_refuses(void)
{
	struct tmb *a = tmb_new("runs/A.data", NULL), *b = tmb_new("runs/B.data", NULL);
	struct dpa_merged m;
	struct dpa_error err = { { 0 } };
	const struct dpa_profile *in[2] = { &a->p, &b->p };
	struct dpa_merge_options force = { .force = true };

	tmb_call(a, tmb_thread(a, 1), ROOTSITE, MAIN, 0, 3);
	tmb_finish(a);
	tmb_call(b, tmb_thread(b, 1), ROOTSITE, MAIN, 0, 4);
	tmb_finish(b);

	b->p.hdr.program = (char *)"/bin/other";
	CU_ASSERT_EQUAL(dpa_merge(&m, in, 2, NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "runs/A.data, runs/B.data: different programs (/bin/prog vs /bin/other)");
	CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
	CU_ASSERT_EQUAL(dpa_merge(&m, in, 2, &force, &err), 0);
	CU_ASSERT_EQUAL(m.prof.hdr.calls, 7);
	dpa_merged_release(&m);

	b->p.hdr.program = (char *)"/bin/prog";
	b->mod[1].build_id = (char *)"abcdef02";
	CU_ASSERT_EQUAL(dpa_merge(&m, in, 2, NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "runs/A.data, runs/B.data: different builds of /bin/prog (build id abcdef01 vs abcdef02)");
	b->mod[1].build_id = (char *)"abcdef01";

	b->p.hdr.clock = (char *)"calls+loops";
	CU_ASSERT_EQUAL(dpa_merge(&m, in, 2, &force, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "runs/A.data, runs/B.data: different clocks (\"calls\" vs \"calls+loops\"): cannot merge");
	b->p.hdr.clock = (char *)"calls";

	/* an input whose csd points nowhere */
	b->p.csd[1].callee_pd = 9;
	CU_ASSERT_EQUAL(dpa_merge(&m, in, 2, NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "runs/B.data: csd 1 refers to a record that does not exist");
	b->p.csd[1].callee_pd = 2;
	CU_ASSERT_EQUAL(dpa_merge(&m, in, 0, NULL, &err), -1);
	tmb_free(a);
	tmb_free(b);
}

/* Named procedures (plugin builds) match by name and by the call site's
 * offset inside its caller, so a rebuild that moved functions still merges
 * context by context (with --force: the build ids differ). */
static void name_all(struct tmb *b, uint64_t shift)
{
	static const struct { uint64_t off; const char *name; } names[] = {
		{ MAIN, "main" }, { F, "f" }, { G, "g" }, { H, "h" } };
	struct dpa_profile *p = &b->p;

	for (uint32_t k = 2; k <= p->n_ps; k++)
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (dpa_ps_offset(p, k) == names[i].off + shift) {
				CU_ASSERT_FATAL(dpa_src_set(p, DPA_PS_NAME, k, dpa_str_id(p, names[i].name)) == 0);
				CU_ASSERT_FATAL(dpa_src_set(p, DPA_PS_FILE, k, dpa_str_id(p, "prog.c")) == 0);
			}
}

static void test_merge_by_name(void)
{
	struct tmb *a = tmb_new("A", NULL), *b = tmb_new("B", NULL);
	struct dpa_merged m;
	struct dpa_error err = { { 0 } };
	struct dpa_merge_options force = { .force = true };
	const struct dpa_profile *in[2] = { &a->p, &b->p };
	uint32_t r, mn, f, pf, pg;
	const uint64_t s = 0x40;    /* B's functions moved by 0x40 */

	r = tmb_thread(a, 1);
	mn = tmb_call(a, r, ROOTSITE, MAIN, 0, 1);
	f = tmb_call(a, mn, MAIN + 0x10, F, 0, 2);
	tmb_call(a, f, F + 0x8, G, 0, 4);
	tmb_finish(a);
	name_all(a, 0);
	r = tmb_thread(b, 1);
	mn = tmb_call(b, r, ROOTSITE, MAIN + s, 0, 1);
	f = tmb_call(b, mn, MAIN + s + 0x10, F + s, 0, 3);
	tmb_call(b, f, F + s + 0x8, G + s, 0, 5);
	tmb_call(b, f, F + s + 0xc, G + s, 0, 7);      /* a new call site of g in f */
	tmb_finish(b);
	name_all(b, s);
	b->mod[1].build_id = (char *)"abcdef99";

	CU_ASSERT_EQUAL(dpa_merge(&m, in, 2, NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "A, B: different builds of /bin/prog (build id abcdef01 vs abcdef99)");
	CU_ASSERT_EQUAL_FATAL(dpa_merge(&m, in, 2, &force, &err), 0);
	CU_ASSERT_EQUAL(m.prof.n_ps, 4);
	CU_ASSERT_EQUAL(m.prof.n_pd, 5);        /* root, main, f, g from f+0x8, g from f+0xc */
	CU_ASSERT_EQUAL(m.prof.n_csd, 4);       /* the two sites of g stay apart */
	pf = tmb_find(&m.prof, 1, (uint64_t[]){ MAIN, F }, 2);
	pg = tmb_find(&m.prof, 1, (uint64_t[]){ MAIN, F, G }, 3);
	CU_ASSERT(pf && pg);
	CU_ASSERT_EQUAL(tmb_between(&m.prof, 2, pf, DPA_CALLS), 5);
	CU_ASSERT_EQUAL(m.csd_map[0][3], m.csd_map[1][3]);      /* f+0x8 -> g */
	CU_ASSERT_NOT_EQUAL(m.csd_map[1][4], m.csd_map[1][3]);
	CU_ASSERT_EQUAL(dpa_own(&m.prof, m.csd_map[0][3], DPA_CALLS), 4 + 5);
	CU_ASSERT_EQUAL(dpa_own(&m.prof, m.csd_map[1][4], DPA_CALLS), 7);
	CU_ASSERT_EQUAL(m.prof.csd[m.csd_map[1][4]].caller_pd, pf);
	CU_ASSERT_STRING_EQUAL(dpa_src_str(&m.prof, DPA_PS_NAME, pf ? m.prof.pd[pf].ps : 1), "f");
	CU_ASSERT_PTR_NULL(m.prof.module[1].build_id);  /* the builds disagree */
	dpa_merged_release(&m);
	tmb_free(a);
	tmb_free(b);
}

/* ================================================================
 * Random runs of one imaginary program, recorded as libprof records them
 * ================================================================ */

struct sim {
	struct tmb *b;
	unsigned long long rng;
	uint32_t stack[64];     /* pds on the stack, outermost first */
	int depth;
	int budget;             /* calls left */
};

static unsigned rnd(struct sim *s, unsigned n)
{
	s->rng = s->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((s->rng >> 33) % n);
}

/* The program: 8 functions at 0x2000 + 0x100 k; function k has 3 call
 * sites at +0x10 j; site j of k calls (k + j + 1) % 8, site 2 is indirect
 * and calls either that or k itself. */
static uint64_t fn_off(unsigned k) { return 0x2000 + 0x100 * k; }

static void sim_run(struct sim *s, uint32_t pd, unsigned k)
{
	struct dpa_profile *p = &s->b->p;
	unsigned n = rnd(s, 4), i;

	for (i = 0; i < n && s->budget > 0 && s->depth < 12; i++) {
		unsigned j = rnd(s, 3), callee = (k + j + 1) % 8, c;
		uint64_t site = fn_off(k) + 0x10 * j;
		uint32_t cpd = 0, ps;
		int d;

		if (j == 2 && rnd(s, 2))
			callee = k;
		ps = tmb_fn(s->b, fn_off(callee));
		s->budget--;
		for (c = 1; c <= p->n_csd; c++)
			if (p->csd[c].caller_pd == pd && p->pd[p->csd[c].callee_pd].ps == ps &&
			    dpa_css_offset(p, p->csd[c].css) == site)
				break;
		if (c <= p->n_csd) {
			dpa_csd_add(p, c, DPA_CALLS, 1);
			dpa_csd_add(p, c, DPA_EXITS, 1);
			dpa_csd_add(p, c, DPA_CSCS, 1);
			dpa_csd_add(p, c, DPA_TICKS, rnd(s, 2));
			cpd = p->csd[c].callee_pd;
		} else {
			for (d = 0; d < s->depth && !cpd; d++)
				if (p->pd[s->stack[d]].ps == ps)
					cpd = s->stack[d];      /* fold into the outermost */
			cpd = tmb_call(s->b, pd, site, fn_off(callee), cpd, 1);
			dpa_csd_set(p, p->n_csd, DPA_TICKS, rnd(s, 2));
		}
		s->stack[s->depth++] = cpd;
		sim_run(s, cpd, callee);
		s->depth--;
	}
}

struct tmb *tmb_random(const char *path, unsigned seed, int calls)
{
	struct sim s = { .b = tmb_new(path, NULL), .rng = seed * 7919ULL + 1 };
	int t, nthreads = 1 + (int)(seed % 3);

	for (t = 0; t < nthreads; t++) {
		uint32_t r = tmb_thread(s.b, 100 + seed + (unsigned)t);
		unsigned start = t == 0 ? 0 : 7 - (unsigned)(seed + (unsigned)t) % 2;
		uint32_t top = tmb_call(s.b, r, ROOTSITE + (t ? 0x40 : 0), fn_off(start), 0, 1);
		s.stack[0] = top;
		s.depth = 1;
		s.budget = calls;
		sim_run(&s, top, start);
	}
	tmb_finish(s.b);
	return s.b;
}

static char *canon_of_merge(const struct dpa_profile *const *in, uint32_t n)
{
	struct dpa_merged m;
	struct dpa_error err = { { 0 } };
	char *s;

	if (dpa_merge(&m, in, n, NULL, &err) < 0) {
		fprintf(stderr, "merge: %s\n", err.msg);
		return NULL;
	}
	s = dpa_merged_canon(&m, &err);
	dpa_merged_release(&m);
	return s;
}

static void test_merge_assoc_comm(void)
{
	unsigned seed, folded = 0, threads = 0;

	for (seed = 1; seed <= 12; seed++) {
		struct tmb *a = tmb_random("A", seed, 60), *b = tmb_random("B", seed + 100, 80),
			  *c = tmb_random("C", seed + 200, 40);
		struct dpa_merged ab, bc, ba;
		struct dpa_error err = { { 0 } };
		const struct dpa_profile *in[3];
		char *s1, *s2, *s3, *s4, *s5;

		for (uint32_t k = 1; k <= a->p.n_csd; k++)
			folded += a->p.csd[k].callee_pd <= a->p.csd[k].caller_pd;
		threads += a->p.n_thread > 1;
		in[0] = &a->p; in[1] = &b->p;
		CU_ASSERT_EQUAL_FATAL(dpa_merge(&ab, in, 2, NULL, &err), 0);
		in[0] = &b->p; in[1] = &a->p;
		CU_ASSERT_EQUAL_FATAL(dpa_merge(&ba, in, 2, NULL, &err), 0);
		in[0] = &b->p; in[1] = &c->p;
		CU_ASSERT_EQUAL_FATAL(dpa_merge(&bc, in, 2, NULL, &err), 0);
		in[0] = &ab.prof; in[1] = &c->p;
		s1 = canon_of_merge(in, 2);                 /* (A B) C */
		in[0] = &a->p; in[1] = &bc.prof;
		s2 = canon_of_merge(in, 2);                 /* A (B C) */
		in[0] = &c->p; in[1] = &ba.prof;
		s3 = canon_of_merge(in, 2);                 /* C (B A) */
		in[0] = &a->p; in[1] = &b->p; in[2] = &c->p;
		s4 = canon_of_merge(in, 3);                 /* A B C at once */
		s5 = dpa_merged_canon(&ab, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s2);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s3);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s4);
		CU_ASSERT_STRING_EQUAL(s1, s2);
		CU_ASSERT_STRING_EQUAL(s1, s3);
		CU_ASSERT_STRING_EQUAL(s1, s4);
		{
			char *s6 = dpa_merged_canon(&ba, &err);
			CU_ASSERT_STRING_EQUAL(s5, s6);     /* id for id */
			free(s6);
		}
		/* the merged calls are the inputs' calls */
		CU_ASSERT_EQUAL(ab.prof.hdr.calls, a->p.hdr.calls + b->p.hdr.calls);
		{
			uint64_t sum = 0;
			for (uint32_t k = 1; k <= ab.prof.n_csd; k++)
				sum += dpa_own(&ab.prof, k, DPA_CALLS);
			CU_ASSERT_EQUAL(sum, ab.prof.hdr.calls);
		}
		/* merging a profile with itself doubles every count, keeps the graph */
		{
			struct dpa_merged aa, a1;
			in[0] = &a->p; in[1] = &a->p;
			CU_ASSERT_EQUAL_FATAL(dpa_merge(&aa, in, 2, NULL, &err), 0);
			CU_ASSERT_EQUAL_FATAL(dpa_merge(&a1, in, 1, NULL, &err), 0);
			CU_ASSERT_EQUAL(aa.prof.n_pd, a->p.n_pd);
			CU_ASSERT_EQUAL(aa.prof.n_csd, a->p.n_csd);
			CU_ASSERT_EQUAL(a1.prof.n_pd, a->p.n_pd);
			for (uint32_t k = 1; k <= a->p.n_csd; k++)
				CU_ASSERT_EQUAL(dpa_own(&aa.prof, aa.csd_map[0][k], DPA_CALLS),
						2 * dpa_own(&a->p, k, DPA_CALLS));
			dpa_merged_release(&aa);
			dpa_merged_release(&a1);
		}
		free(s1); free(s2); free(s3); free(s4); free(s5);
		dpa_merged_release(&ab);
		dpa_merged_release(&ba);
		dpa_merged_release(&bc);
		tmb_free(a);
		tmb_free(b);
		tmb_free(c);
	}
	/* the generated runs did exercise folded recursion and threads */
	CU_ASSERT(folded >= 12);
	CU_ASSERT(threads >= 6);
}

/* Written, read back (the real reader), the same canonical text. */
static void test_merge_write_roundtrip(void)
{
	char dir[] = "/tmp/dpa-merge-XXXXXX", path[128], bad[160];
	struct tmb *a = tmb_random("A", 5, 200), *b = tmb_random("B", 6, 200);
	struct dpa_merged m;
	struct dpa_profile back;
	struct dpa_error err = { { 0 } };
	char *s1, *s2;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/merged.data", dir);
	m = merge2(&a->p, &b->p);
	CU_ASSERT_EQUAL_FATAL(dpa_profile_write(&m.prof, path, &err), 0);
	if (dpa_profile_read(&back, path, &err) < 0) {
		fprintf(stderr, "read back: %s\n", err.msg);
		CU_FAIL_FATAL("the written profile does not read back");
	}
	s1 = dpa_merged_canon(&m, &err);
	s2 = dpa_profile_canon(&back, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s2);
	CU_ASSERT_STRING_EQUAL(s1, s2);
	CU_ASSERT_EQUAL(back.n_csd, m.prof.n_csd);
	CU_ASSERT_EQUAL(back.hdr.calls, a->p.hdr.calls + b->p.hdr.calls);
	free(s1);
	free(s2);
	dpa_profile_release(&back);

	/* an unwritable place: one line naming it, nothing left behind */
	snprintf(bad, sizeof(bad), "%s/no/such/dir/x.data", dir);
	CU_ASSERT_EQUAL(dpa_profile_write(&m.prof, bad, &err), -1);
	CU_ASSERT(strncmp(err.msg, bad, strlen(bad)) == 0);
	CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
	dpa_merged_release(&m);
	unlink(path);
	rmdir(dir);
	tmb_free(a);
	tmb_free(b);
}

DPA_TEST_SUITE(merge,
	DPA_TEST(test_merge_paths),
	DPA_TEST(test_merge_recursion),
	DPA_TEST(test_merge_threads),
	DPA_TEST(test_merge_header),
	DPA_TEST(test_merge_refuses),
	DPA_TEST(test_merge_by_name),
	DPA_TEST(test_merge_assoc_comm),
	DPA_TEST(test_merge_write_roundtrip));
