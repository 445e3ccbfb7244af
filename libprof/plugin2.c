/*
 * plugin2.c — the deepprof GCC plugin's ABI v2 (compiler-plugins/deepprof-abi.h,
 * schemas/plugin-abi.md "The inline fast path"): the thread-local current csd
 * the plugin's inline code reads and writes, the runtime's placeholder nodes,
 * and the two slow paths, on the same graph and Deep.data as ABI v1.
 * Part of deepprof's libprof. MIT licence.
 *
 * The inline code counts calls (csd->hot.calls), the calls that returned
 * to their site (hot.exits) and back-edges (hot.loop_cscs), and switches
 * dp_cur; it keeps no shadow stack. So non-local exits are calls - exits
 * (longjmp, exit, pthread_exit need nothing here), and the runtime knows
 * the activations running only as a chain: the current csd, the csd that
 * made its caller's pd, and so on up to a thread root (struct dp_pd.parent).
 * That chain is the stack but where recursion folding sent a call back to
 * an older pd.
 *
 * KNOWN (schemas/plugin-abi.md, "The inline fast path"): recursion folds to
 * a pd found active from the chain and the calls not returned (active_pd):
 * a callback or a tail call counts as active only on the chain. A call a
 * longjmp left stops counting as active when the longjmp lands after a
 * setjmp in instrumented code (dp_abi_land), except calls into a pd that
 * is also active above the landing (a recursion the longjmp cut short) and
 * after a longjmp to uninstrumented code. A tail call's exits are the
 * share of returned calls into its caller's pd; a callback's are its calls
 * but those running at thread or process end (or, in a snapshot, running
 * on the chain: dp_plugin2_prepare). A signal handler landing between a
 * call site and its callee's prologue makes that callee a callback.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "internal.h"

_Static_assert(offsetof(struct dp_csd_hot, calls) == 0, "csd calls");
_Static_assert(offsetof(struct dp_csd_hot, loop_cscs) == 8, "csd loop_cscs");
_Static_assert(offsetof(struct dp_csd_hot, callee) == 16, "csd callee");
_Static_assert(offsetof(struct dp_csd_hot, target) == 24, "csd target");
_Static_assert(offsetof(struct dp_csd_hot, next) == 32, "csd next");
_Static_assert(offsetof(struct dp_csd_hot, exits) == 40, "csd exits");
_Static_assert(offsetof(struct dp_csd_hot, callee_ps) == 56, "csd callee_ps");
_Static_assert(sizeof(struct dp_csd_hot) <= DP_LINE, "a csd's hot part is one line");
_Static_assert(offsetof(struct dp_pd_hot, ps) == 0, "pd ps");
_Static_assert(offsetof(struct dp_pd_hot, slot) == 16, "pd slot");

/* A pd's hot part: what the inline code reads (ps, slot[]), after a
 * pointer back to the pd. Made with the pd, never freed. */
struct pd2 {
	struct dp_pd *pd;
	struct dp_pd_hot hot;       /* last: its slot[] follows */
};
#define PD2(h)  ((struct pd2 *)((char *)(h) - offsetof(struct pd2, hot)))
/* Slot i's counters (deepprof-abi.h, DP_PD_COUNT): below the pd2, made
 * with it. A pd2 of n slots takes PD2_SIZE(n) bytes from its start, its
 * counters first (PD2_AT: the pd2 in such a block) */
#define PD_COUNT(h, i) ((uint64_t *)((char *)(h) + DP_PD_COUNT(i)))
#define PD2_SIZE(n) (16 * ((size_t)(n) + 1) + sizeof(struct pd2) + (size_t)(n) * sizeof(uintptr_t))
#define PD2_AT(m, n) ((struct pd2 *)((char *)(m) + 16 * ((size_t)(n) + 1)))
_Static_assert(offsetof(struct pd2, hot) == 8, "the counters end 8 bytes below the pd2");
/* Each slot's counters: calls at all ones (the first call's add makes
 * it 0, the inline code's cue for its slow path), exits 0 */
static void counters_init(struct dp_pd_hot *h, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		PD_COUNT(h, i)[0] = ~(uint64_t)0;
		PD_COUNT(h, i)[1] = 0;
	}
}
/* What a csd counted: its hot part's and its slot's counters' */
static inline uint64_t v2_calls(const struct dp_csd *c)
{
	const uint64_t *k = DP_LOAD_ACQ(&c->ctr);
	return DP_LOAD(&c->hot.calls) + (k ? DP_LOAD(&k[0]) : 0);
}
static inline uint64_t v2_exits(const struct dp_csd *c)
{
	const uint64_t *k = DP_LOAD_ACQ(&c->ctr);
	return DP_LOAD(&c->hot.exits) + (k ? DP_LOAD(&k[1]) : 0);
}
#define CSD2(h) ((struct dp_csd *)((char *)(h) - offsetof(struct dp_csd, hot)))
/* A slot's value: a csd's hot part, tagged as a site stores it in dp_cur
 * (deepprof-abi.h), and back */
#define SLOTV(h)  ((uintptr_t)(h) | 1)
#define SLOT_HOT(v) ((struct dp_csd_hot *)((v) & ~(uintptr_t)1))

/*
 * Placeholders (deepprof-abi.h's runtime rules). None is a v2 csd (v2 == 0),
 * so dp_plugin2_csd() never names one:
 * unbound_pd: the callee of a csd not bound yet (ps NULL: a prologue
 *   reaching it goes slow); no slots, never indexed.
 * root_csd: dp_cur's initial value on every thread (untagged: the first
 *   prologue goes slow and makes a callback of the thread's root pd).
 * null_csd: every never-used slot of an indirect site (target NULL).
 * sink_csd: what the slow paths return when nothing can be recorded (the
 *   runtime stopped, busy, out of memory); its callee sink_pd has as many
 *   slots as any registered procedure has sites, every one sink_csd.
 * The next of each (deepprof-abi.h: what an indirect site tries before its
 * slow path) is itself, whose target matches no call.
 */
static struct dp_pd_hot unbound_pd;
static struct dp_csd root_csd = { .hot = { .callee = &unbound_pd, .magic = DP_CSD_MAGIC } };
static struct dp_csd null_csd = { .hot = { .callee = &unbound_pd, .magic = DP_CSD_MAGIC,
					     .next = (uintptr_t)&null_csd.hot + 1 } };
static struct dp_csd sink_csd = { .hot = { .callee = &unbound_pd, .magic = DP_CSD_MAGIC,
					     .next = (uintptr_t)&sink_csd.hot + 1 } };
static uint32_t sink_slots;         /* sink_pd's slots (under dp_rt.lock) */

/* The running activation's csd, bit 0 set from a call site until the
 * caller restores dp_cur after the call (deepprof-abi.h: a prologue leaves it). Written by inline code and
 * by the slow paths on the owning thread; read by the timer and the
 * allocation hooks on it, and by the final writer. */
DP_EXPORT __thread uintptr_t dp_cur __attribute__((tls_model("initial-exec"))) = (uintptr_t)&root_csd.hot;

/*
 * After the program's constructors, before main: a constructor is a
 * callback of the thread's root that has returned, but dp_cur still names
 * its csd, and main would hang below it. In a static link libprof.a's
 * constructors run after the program's (the linker lays .init_array out
 * in link order, libprof.a last); where they run first (libprof.so) this
 * changes nothing.
 */
__attribute__((constructor)) static void after_constructors(void)
{
	dp_cur = (uintptr_t)&root_csd.hot;
}

/* tu->runtime[3]: the TU's v2 state is ready (sink_pd big enough). */
enum { TU_V2 = 3 };

/* --- private prototypes --- */
static int ensure(struct dp_tu *tu);
static struct dp_thread *ready(void);
static struct dp_pd *pd_new2(struct dp_thread *t, struct dp_ps *ps, struct dp_csd *parent);
static int bind2(struct dp_thread *t, struct dp_csd *c, struct dp_ps *ps);
static int bind_uninstrumented2(struct dp_thread *t, struct dp_csd *c);
static struct dp_csd *callback2(struct dp_thread *t, struct dp_pd *parent, struct dp_ps *ps);
DP_COLD static struct dp_csd_hot *enter(struct dp_tu *tu, uint32_t psn, uintptr_t cur);
DP_COLD static struct dp_csd_hot *call(struct dp_tu *tu, uint32_t site, void *fn, struct dp_pd_hot *pdh);
DP_COLD static void land(struct dp_thread *t, struct dp_csd *me, uintptr_t cur);

/* ==== registration ========================================================= */

/* Make sink_pd hold as many slots as tu's largest procedure has sites.
 * -1 when out of memory (the TU's slow paths then record nothing). */
static int ensure(struct dp_tu *tu)
{
	if (likely(DP_LOAD_ACQ(&tu->runtime[TU_V2])))
		return 0;
	uint32_t n = 1;
	const uint32_t *x = tu->flags & DP_TU_EXTRA_SLOTS ? tu->extra : NULL;
	for (uint32_t i = 0; i < tu->n_ps; i++) {
		uint32_t slots = tu->ps[i].n_css + (x ? x[i + 1] - x[i] : 0);
		if (slots > n)
			n = slots;
	}
	int r = 0;
	dp_lock();
	if (n > sink_slots) {
		char *m = dp_mem_map(PD2_SIZE(n));     /* its counters and slots */
		struct pd2 *s = m ? PD2_AT(m, n) : NULL;
		if (s) {
			counters_init(&s->hot, n);
			for (uint32_t i = 0; i < n; i++)
				s->hot.slot[i] = SLOTV(&sink_csd.hot);
			s->hot.n_slot = n;
			sink_slots = n;
			/* the old one stays mapped: code may still be reading it */
			dp_csd_bind_hot(&sink_csd.hot, &s->hot);
		} else {
			r = -1;
		}
	}
	if (!r)
		DP_STORE_REL(&tu->runtime[TU_V2], (void *)1);
	DP_STORE_REL(&dp_rt.abi2, 1);
	dp_unlock();
	return r;
}

void dp_plugin2_register(struct dp_tu *tu)
{
	if (ensure(tu) < 0) {
		DP_ADD(&dp_rt.lost, 1);
		dp_log(tu->file ? tu->file : "?", ": out of memory:", "its calls are not recorded");
	}
}

/* ==== nodes ================================================================ */

/* The calling thread's state if it may record now. */
static struct dp_thread *ready(void)
{
	struct dp_thread *t = dp_self;
	if (!t && !(t = dp_thread_init()))
		return NULL;
	uint32_t stop = t->h->stop;
	if (stop) {
		if (!(stop & (DP_STOPPED | DP_EXITED)))
			t->lost++;
		return NULL;
	}
	return t;
}

/* The site whose csds slot i of a pd of static ps holds. */
static uint32_t slot_site(const struct dp_ps *ps, uint32_t i)
{
	return i < ps->n_css ? ps->first_css + i : ps->extra[i - ps->n_css];
}

/* The slot of site in a pd of ps (its own sites', then the extra ones), or
 * UINT32_MAX. */
static uint32_t site_slot(const struct dp_ps *ps, uint32_t site)
{
	uint32_t i = site - ps->first_css;
	if (i < ps->n_css)
		return i;
	for (uint32_t j = 0; j < ps->n_extra; j++)
		if (ps->extra[j] == site)
			return ps->n_css + j;
	return UINT32_MAX;
}

/* A pd of ps made by csd parent, with its hot part: the slots of an
 * instrumented procedure's indirect sites hold null_csd, the others NULL. */
static struct dp_pd *pd_new2(struct dp_thread *t, struct dp_ps *ps, struct dp_csd *parent)
{
	/* an OpenMP region of a plugin function has the function's sites */
	bool st = ps->kind == DP_PS_STATIC || (ps->kind == DP_PS_REGION && ps->layout);
	uint32_t n = st ? ps->n_css + ps->n_extra : 0;
	char *m = dp_mem_thread(t, PD2_SIZE(n));     /* its counters and slots */
	struct pd2 *h = m ? PD2_AT(m, n) : NULL;
	struct dp_pd *pd = h ? dp_graph_pd_new(t, ps) : NULL;
	if (!pd)
		return NULL;
	counters_init(&h->hot, n);
	h->pd = pd;
	h->hot.ps = !st ? NULL : ps->kind == DP_PS_REGION ? ps->layout : (const struct dp_ps_static *)ps->fn;
	h->hot.n_slot = n;
	const struct dp_tu *tu = ps->tu;
	for (uint32_t i = 0; i < n; i++)
		if (tu->css[slot_site(ps, i)].kind == DP_CSS_KIND_INDIRECT)
			h->hot.slot[i] = SLOTV(&null_csd.hot);
	pd->hot = &h->hot;
	pd->parent = parent;
	return pd;
}

/* What a v2 csd's site says about its exits (deepprof-abi.h: the inline
 * code counts exits only after a call that returns to a restore). */
enum how { BY_COUNT, BY_CHAIN, TAIL, NORET, LEAF };
static enum how how(const struct dp_csd *c)
{
	if (c->css->kind == DP_CSS_CALLBACK)
		return BY_CHAIN;                /* no hook sees a callback return */
	if (DP_CSS_IS_REGION(c->css->kind))
		return BY_COUNT;                /* omp.c counts a region's runs and returns */
	uint32_t f = c->css->sflags;
	return f & DP_CSS_NORETURN ? NORET : f & (DP_CSS_LEAF_CALLEE | DP_CSS_RETURNS | DP_CSS_LEAF_PROC) ? LEAF :
	       f & DP_CSS_TAIL ? TAIL : BY_COUNT;
}

/* c is a tail call of a library function declared leaf (DP_CSS_TAIL and
 * DP_CSS_RETURNS): its calls all return (LEAF), but no restore follows
 * them, so its tag outlives the call, and its caller's activation too. */
static bool leaf_tail(const struct dp_csd *c)
{
	return (c->css->sflags & (DP_CSS_TAIL | DP_CSS_RETURNS)) == (DP_CSS_TAIL | DP_CSS_RETURNS);
}

/*
 * Whether calls through c may still be running: it counts exits inline
 * (BY_COUNT) and has calls that neither returned nor are known to have
 * been left by a longjmp. For a BY_COUNT csd, c->nonlocal holds those
 * (land() sets it; the counts written are calls - exits non-local exits
 * whatever it holds).
 */
static bool running(const struct dp_csd *c)
{
	return how(c) == BY_COUNT && v2_calls(c) > v2_exits(c) + c->nonlocal;
}

/* Pushes pd on t->seen (the search stack, *n entries), marking it with
 * stamp. -1 when out of memory. */
static int push(struct dp_thread *t, uint32_t *n, struct dp_pd *pd, uint64_t stamp)
{
	if (!t->seen && !(t->seen = dp_mem_map((t->seen_cap = 256) * sizeof *t->seen)))
		return -1;
	if (*n == t->seen_cap) {
		struct dp_pd **m = dp_mem_map(2 * t->seen_cap * sizeof *m);
		if (!m)
			return -1;
		memcpy(m, t->seen, *n * sizeof *m);  /* the old array stays mapped */
		t->seen = m;
		t->seen_cap *= 2;
	}
	pd->mark = stamp;
	t->seen[(*n)++] = pd;
	return 0;
}

/*
 * The pd of ps active on t's stack, if any, searched back from pd: through
 * each pd's maker (the creation chain, top of the file) and through the
 * csds bound to it whose calls may still be running (running(): exits are
 * counted inline, and a landing after a longjmp forgets the calls it
 * left). Only pds believed active are visited, so the search is bounded
 * by the stack's distinct pds, not by the graph.
 */
static struct dp_pd *active_pd(struct dp_thread *t, struct dp_pd *from, struct dp_ps *ps)
{
	uint64_t stamp = ++t->stamp;
	uint32_t n = 0;
	for (struct dp_pd *pd = from; pd; pd = pd->parent ? pd->parent->caller : NULL) {
		if (pd->ps == ps)
			return pd;      /* the common case: on the creation chain */
	}
	if (push(t, &n, from, stamp) < 0)
		return NULL;
	while (n) {
		struct dp_pd *pd = t->seen[--n];
		for (struct dp_csd *c = pd->in_head; c; c = c->in_next) {
			if (c != pd->parent && !running(c))
				continue;
			struct dp_pd *up = c->caller;
			if (!up || up->mark == stamp)
				continue;
			if (up->ps == ps)
				return up;
			if (push(t, &n, up, stamp) < 0)
				return NULL;
		}
	}
	return NULL;
}

/*
 * A longjmp landed in the activation of csd me (dp_abi_land); cur is
 * dp_cur as the longjmp left it: the csd current where it was made. First
 * marks `live` the pds believed active from me's callee up, as active_pd
 * searches; then searches up from cur's csd through every pd not live:
 * none of those has an activation left, so every call into one that still
 * looks running was left by the longjmp (its nonlocal becomes calls -
 * exits). Bounded, like active_pd, by the pds of the two stacks.
 */
DP_COLD static void land(struct dp_thread *t, struct dp_csd *me, uintptr_t cur)
{
	struct dp_csd *d = dp_plugin2_csd(cur);
	if (!d || !me->callee || !d->caller)
		return;
	uint64_t live = ++t->stamp, dead = ++t->stamp;
	uint32_t n = 0;
	if (push(t, &n, me->callee, live) < 0)
		return;
	while (n) {
		struct dp_pd *pd = t->seen[--n];
		for (struct dp_csd *c = pd->in_head; c; c = c->in_next) {
			struct dp_pd *up = c->caller;
			if ((c == pd->parent || running(c)) && up && up->mark != live &&
			    push(t, &n, up, live) < 0)
				return;
		}
	}
	struct dp_pd *start[2] = { d->callee, d->caller };
	for (int i = 0; i < 2; i++)
		if (start[i] && start[i]->mark != live && start[i]->mark != dead &&
		    push(t, &n, start[i], dead) < 0)
			return;
	while (n) {
		struct dp_pd *pd = t->seen[--n];
		for (struct dp_csd *c = pd->in_head; c; c = c->in_next) {
			bool run = running(c);
			if (run)
				c->nonlocal = v2_calls(c) - v2_exits(c);
			struct dp_pd *up = c->caller;
			if ((c == pd->parent || run) && up && up->mark != live && up->mark != dead &&
			    push(t, &n, up, dead) < 0)
				return;
		}
	}
}

/* Bind c to callee ps: the pd of ps active on the stack if there is one
 * (recursion folding), else a new pd made by c; then publish c. */
static int bind2(struct dp_thread *t, struct dp_csd *c, struct dp_ps *ps)
{
	struct dp_pd *pd = active_pd(t, c->caller, ps);
	if (!pd && !(pd = pd_new2(t, ps, c)))
		return -1;
	c->psi = ps->idx;
	c->callee = pd;
	c->in_next = pd->in_head;
	pd->in_head = c;
	dp_csd_bind_hot(&c->hot, pd->hot);
	dp_graph_csd_publish(t, c);
	return 0;
}

/* Bind c, whose callee never entered instrumented code, to that
 * uninstrumented callee. */
static int bind_uninstrumented2(struct dp_thread *t, struct dp_csd *c)
{
	struct dp_ps *ps = dp_plugin_uninstrumented_ps(c);
	return ps ? bind2(t, c, ps) : -1;
}

/* The callback csd of (parent, ps), made if new; NULL when out of memory. */
static struct dp_csd *callback2(struct dp_thread *t, struct dp_pd *parent, struct dp_ps *ps)
{
	uintptr_t key = ps->fn;
	uintptr_t j = dp_hash(key, 0) & parent->mask;
	struct dp_csd *c;
	while ((c = parent->tab[j])) {
		if (c->site == key && c->fn == 0)
			return c;
		j = (j + 1) & parent->mask;
	}
	struct dp_css init = { .kind = DP_CSS_CALLBACK, .callee = ps };
	struct dp_css *css = dp_graph_css_get(key, parent->ps, &init);
	if (!css || !(c = dp_csd_new(t)))
		return NULL;
	c->site = key;
	c->css = css;
	c->caller = parent;
	dp_csd_set_v2(c);
	c->hot.callee = &unbound_pd;
	if (dp_graph_tab_insert(t, parent, c) < 0 || bind2(t, c, ps) < 0)
		return NULL;
	return c;
}

/* Whether entering ps is the call c is making (c not bound yet). */
static bool expects(const struct dp_csd *c, const struct dp_ps *ps)
{
	if (DP_CSS_IS_REGION(c->css->kind))
		return true;                    /* omp.c's: its site is no table record */
	if (c->css->kind == DP_CSS_KIND_INDIRECT)   /* a target outside instrumented code
						       calls ps back (a plugin's function) */
		return !c->fn || dp_code_instrumented(c->fn);
	return c->css->callee_name && ps->name && strcmp(c->css->callee_name, ps->name) == 0;
}

/* ==== ticks outside instrumented code (timer.c) =========================== */

struct dp_csd *dp_plugin2_outside(struct dp_thread *t, bool *root)
{
	struct dp_csd *c = dp_plugin2_csd(DP_LOAD(&dp_cur));
	*root = false;
	for (int hops = 0; c && hops < 64; hops++) {
		if (DP_LOAD(&c->hot.callee) == &unbound_pd) {
			/* a call not entered: made into uninstrumented code if its
			 * site says so (a callee in another TU may just not have
			 * reached its prologue yet) */
			if (!c->css || c->css->kind != DP_CSS_EXTERNAL)
				return NULL;
			dp_busy_on(t);
			int r = bind_uninstrumented2(t, c);
			dp_busy_off(t);
			return r < 0 ? NULL : c;
		}
		const struct dp_ps *ps = c->callee ? c->callee->ps : NULL;
		if (!ps)
			return NULL;
		if (ps->uninstrumented || ps->kind == DP_PS_EXTERNAL || ps->kind == DP_PS_SAMPLED)
			return c;
		/* an instrumented callee: the pc is not in it, so a callback
		 * that returned into the library that called it, whose call
		 * made the callback's parent pd (or a thread's or the
		 * program's start, from the root) */
		if (!c->css || c->css->kind != DP_CSS_CALLBACK || !c->caller)
			return NULL;
		if (!c->caller->parent) {
			*root = c->caller == t->root;
			return NULL;
		}
		c = c->caller->parent;
	}
	return NULL;
}

/* ==== OpenMP regions (omp.c) ============================================== */

struct dp_pd *dp_plugin2_context(struct dp_thread *t)
{
	struct dp_csd *c = dp_plugin2_csd(dp_cur);
	if (!c)
		return NULL;
	if (!c->callee) {
		/* a call being made entered code that makes the region: an
		 * uninstrumented function, which the region runs under */
		dp_busy_on(t);
		int r = bind_uninstrumented2(t, c);
		dp_busy_off(t);
		if (r < 0)
			return NULL;
	}
	return c->callee;
}

int dp_plugin2_region_bind(struct dp_thread *t, struct dp_csd *c, struct dp_ps *ps)
{
	dp_csd_set_v2(c);
	c->hot.callee = &unbound_pd;
	return bind2(t, c, ps);
}

struct dp_pd *dp_plugin2_pd_new(struct dp_thread *t, struct dp_ps *ps, struct dp_csd *parent, bool hot)
{
	if (hot)
		return pd_new2(t, ps, parent);
	struct dp_pd *pd = dp_graph_pd_new(t, ps);
	if (pd)
		pd->parent = parent;
	return pd;
}

/*
 * ps is entered with no call of it pending, and c heads the chain. If a
 * callback csd b on the chain calls ps, and every csd from c up to b may
 * have ended with no hook seeing it (a tail call, a callback: no restore
 * follows either), ps has returned to the code that called it back, which
 * calls it again (a thread pool's thread running its work function, which
 * may end in a tail call): the new call hangs where b does. A recursion of
 * ps would come through a call site. NULL: ps is not such a callback.
 */
static struct dp_pd *recalled(struct dp_csd *c, const struct dp_ps *ps)
{
	for (; c && c->callee && !c->ctx; c = c->caller->parent) {
		enum how w = how(c);
		if (w == BY_CHAIN && c->callee->ps == ps)
			return c->caller;
		if (w != BY_CHAIN && w != TAIL)
			return NULL;
	}
	return NULL;
}

/* ==== the slow paths ======================================================= */

/*
 * What a prologue could not do: a first call through a csd (bind it), a
 * callback (entered with no call of it pending: from uninstrumented code,
 * a thread's start, a signal handler), the thread's first instrumented
 * function. The csd of the new activation, never NULL.
 */
DP_COLD static struct dp_csd_hot *enter(struct dp_tu *tu, uint32_t psn, uintptr_t cur)
{
	if (ensure(tu) < 0)
		return &sink_csd.hot;
	struct dp_thread *t = ready();
	if (!t) {
		/* a call made through the sink was not recorded either (v1
		 * loses its call hook as well as its enter hook) */
		t = dp_self;
		if (cur == ((uintptr_t)&sink_csd.hot | 1) && t && !(t->h->stop & (DP_STOPPED | DP_EXITED)))
			t->lost++;
		return &sink_csd.hot;
	}
	dp_busy_on(t);
	struct dp_csd *r = NULL;
	struct dp_ps *ps = dp_plugin_static_ps(tu, psn);
	if (!ps)
		goto out;
	struct dp_csd *c = dp_plugin2_csd(cur);
	struct dp_pd *parent = t->root;
	bool tagged = cur & 1;
	/* a tail call of a library function declared leaf (DP_CSS_TAIL and
	 * DP_CSS_RETURNS) cannot call back: a prologue that finds its csd has
	 * been entered after it returned, and its caller with it, into code
	 * that restored no dp_cur (a constructor's runner, exit running its
	 * handlers, a library calling back): as if dp_cur named the caller's
	 * activation, which has returned too */
	if (c && tagged && leaf_tail(c)) {
		c = c->caller ? c->caller->parent : NULL;
		c = c && c->v2 ? c : NULL;
		tagged = false;
	}
	if (c && tagged) {
		if (c->hot.callee == &unbound_pd && expects(c, ps)) {
			if (bind2(t, c, ps) == 0)
				r = c;
			goto out;
		}
		if (c->callee && c->callee->ps == ps) {
			r = c;
			goto out;
		}
		/* the call c is making entered other code, which calls back;
		 * or c's callee runs and has made no call yet (a prologue
		 * leaves the tag: deepprof-abi.h): either way from c's callee;
		 * but a tail call may have returned, and its caller with it,
		 * to a library calling back again (recalled) */
		struct dp_pd *again = how(c) == TAIL ? recalled(c, ps) : NULL;
		if (again) {
			parent = again;
		} else {
			if (!c->callee && bind_uninstrumented2(t, c) < 0)
				goto out;
			parent = c->callee;
		}
	} else if (c) {
		/* entered while c's activation is current; if c is a callback
		 * of a library, the library calls back again: c's caller is
		 * uninstrumented, or ps was that callback and has returned */
		struct dp_pd *again = recalled(c, ps);
		parent = again ? again : c->callee;
		if (!again && c->css->kind == DP_CSS_CALLBACK && c->caller->ps->uninstrumented)
			parent = c->caller;
	}
	r = callback2(t, parent, ps);
	if (r) {
		r->hot.calls++;
		if (!(cur & 1)) {
			t->memo_cur = cur;
			t->memo_ps = &tu->ps[psn];
			t->memo_r = r;
		}
	}
out:
	dp_busy_off(t);
	if (!r) {
		t->lost++;
		return &sink_csd.hot;
	}
	return &r->hot;
}

/* The entry of t->callmemo for (pd, site, target). */
static inline struct dp_callmemo *callmemo(struct dp_thread *t, const void *pd, const void *site,
					   const void *fn)
{
	uintptr_t h = ((uintptr_t)pd >> 4) ^ ((uintptr_t)site >> 3) ^ ((uintptr_t)fn >> 2) * 0x9e3779b1u;
	return &t->callmemo[(h ^ h >> 11) & (DP_CALLMEMO - 1)];
}

/* An indirect site's csd h becomes its slot's, whose csd was old (both as
 * a slot holds them): old becomes h's next, which the site tries when the
 * slot's csd is for another target (deepprof-abi.h), so two targets in
 * turn find each other there. Stored before the slot: code that reads h
 * from the slot finds a csd of the slot in its next, whenever a signal
 * handler's call lands. */
static inline void set_next(struct dp_csd_hot *h, uintptr_t old)
{
	if (SLOT_HOT(old) != h)
		h->next = old;
}

/* Remember that call() found (or made) csd x for fn in slot of pdh: a
 * csd's target and its place in a pd never change, so the memo is right
 * for as long as it stays. Called busy: a signal handler's slow path
 * then does not read the memo while it is half written (ready() turns
 * it away), and the generation tells a read this one interrupted that the
 * memo changed under it. */
static void memo_call(struct dp_thread *t, struct dp_tu *tu, uint32_t site, void *fn,
		      struct dp_pd_hot *pdh, uintptr_t *slot, uintptr_t x)
{
	if (!t->callmemo && !(t->callmemo = dp_mem_map(DP_CALLMEMO * sizeof *t->callmemo)))
		return;
	const struct dp_css_static *s = &tu->css[site];
	struct dp_callmemo *m = callmemo(t, pdh, s, fn);
	m->pd = pdh;
	m->site = s;
	m->fn = fn;
	m->csd = x;
	m->slot = slot;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->callmemo_gen++;
}

/* What a call site could not do: a first call through it in this pd, or an
 * indirect call to another target than last time. A direct site's slot is
 * set for good (the inline code reloads it after the call): to the sink if
 * nothing can be recorded. */
DP_COLD static struct dp_csd_hot *call(struct dp_tu *tu, uint32_t site, void *fn, struct dp_pd_hot *pdh)
{
	if (pdh->ps == NULL)
		return &sink_csd.hot;       /* the sink's pd: every slot is the sink */
	struct dp_pd *pd = PD2(pdh)->pd;
	struct dp_thread *t = NULL;
	uint32_t i = pd->ps->tu == tu && site < tu->n_css ? site_slot(pd->ps, site) : UINT32_MAX;
	if (i >= pdh->n_slot) {
		/* not this pd's site: code GCC split off a function inlined
		 * elsewhere, or inlined into code built without the plugin
		 * (calls=surviving) */
		if ((t = ready()))
			t->lost++;
		return &sink_csd.hot;
	}
	if (ensure(tu) < 0 || !(t = ready()))
		goto lost;
	struct dp_csd_hot *head = SLOT_HOT(pdh->slot[i]);
	struct dp_csd *first = head && head != &null_csd.hot ? CSD2(head)->thead : NULL;
	for (struct dp_csd *x = first; x; x = x->tnext)
		if (x->fn == (uintptr_t)fn) {
			set_next(&x->hot, pdh->slot[i]);
			pdh->slot[i] = SLOTV(&x->hot);        /* the last target first */
			dp_busy_on(t);
			memo_call(t, tu, site, fn, pdh, &pdh->slot[i], SLOTV(&x->hot));
			dp_busy_off(t);
			return &x->hot;
		}
	dp_busy_on(t);
	struct dp_css *css = dp_plugin_site_css(tu, site, pd->ps);
	struct dp_csd *c = css ? dp_csd_new(t) : NULL;
	if (c) {
		c->site = (uintptr_t)&tu->css[site];
		c->fn = (uintptr_t)fn;
		c->css = css;
		c->caller = pd;
		dp_csd_set_v2(c);
		c->hot.callee = &unbound_pd;
		c->hot.target = fn;
		c->hot.next = pdh->slot[i];     /* a csd of this slot, or null_csd: never 0 */
		if (css->callee && bind2(t, c, css->callee) < 0)
			c = NULL;
	}
	if (c) {
		if (first) {
			c->thead = first;
			c->tnext = first->tnext;
			first->tnext = c;
		} else {
			c->thead = c;
		}
		DP_STORE_REL(&pdh->slot[i], SLOTV(&c->hot));
		memo_call(t, tu, site, fn, pdh, &pdh->slot[i], SLOTV(&c->hot));
	}
	dp_busy_off(t);
	if (c)
		return &c->hot;
lost:
	if (t)
		t->lost++;
	if (!fn && !pdh->slot[i])
		DP_STORE_REL(&pdh->slot[i], SLOTV(&sink_csd.hot));
	return &sink_csd.hot;
}

/* What a direct site could not do at its first call through pdh: its
 * slot's csd, made by call() if new, and its counters (whose calls the
 * site took from all ones to 0) counting for it from this call on. The
 * sink where nothing can be recorded: the counters then count for none. */
DP_COLD static struct dp_csd_hot *count(struct dp_tu *tu, uint32_t site, struct dp_pd_hot *pdh)
{
	struct dp_csd_hot *h = call(tu, site, NULL, pdh);
	if (h == &sink_csd.hot)
		return h;
	uint64_t *k = PD_COUNT(pdh, site_slot(PD2(pdh)->pd->ps, site));
	k[0] += 1;
	struct dp_csd *c = CSD2(h);
	if (!c->ctr)
		DP_STORE_REL(&c->ctr, k);
	return h;
}

DP_EXPORT void *dp_abi_enter_slow(struct dp_tu *tu, uint32_t ps, uintptr_t cur)
{
	/* a library calling the same callback again (qsort's comparator):
	 * with dp_cur untagged, what enter() finds depends only on the
	 * graph's shape, which never changes once made; its memo is checked
	 * here, before any frame or errno work (memo_cur is never tagged) */
	struct dp_thread *t = dp_self;
	if (t && cur == t->memo_cur && &tu->ps[ps] == t->memo_ps && !t->h->stop) {
		struct dp_csd *m = t->memo_r;
		m->hot.calls++;
		dp_cur = (uintptr_t)&m->hot;
		return &m->hot;
	}
	int saved_errno = errno;
	struct dp_csd_hot *r = enter(tu, ps, cur);
	dp_cur = (uintptr_t)r;
	errno = saved_errno;
	return r;
}

DP_EXPORT void *dp_abi_resume(struct dp_tu *tu, uint32_t ps, uintptr_t cur)
{
	/* dp_cur names another procedure's csd: a signal handler ran since
	 * the activation of ps last set it, and left its own (or the
	 * runtime's sink). The handler's callback hangs below that
	 * activation: up the chain (the csd that made each pd) */
	struct dp_thread *t = dp_self;
	struct dp_csd *c = dp_plugin2_csd(cur);
	if (t && ps < tu->n_ps) {
		const void *want = &tu->ps[ps];
		for (int hops = 0; c && hops < 256; hops++) {
			struct dp_pd_hot *pdh = DP_LOAD(&c->hot.callee);
			if (pdh && pdh->ps == want) {
				dp_cur = (uintptr_t)&c->hot;
				return &c->hot;
			}
			c = c->caller ? c->caller->parent : NULL;
		}
		if (!(t->h->stop & (DP_STOPPED | DP_EXITED)))
			t->lost++;
	}
	dp_cur = (uintptr_t)&sink_csd.hot;
	return &sink_csd.hot;
}

__attribute__((noinline)) static void *call_slow(struct dp_tu *tu, uint32_t site, void *fn, void *pd)
{
	int saved_errno = errno;
	struct dp_csd_hot *r = call(tu, site, fn, pd);
	errno = saved_errno;
	return (void *)SLOTV(r);
}

DP_EXPORT void *dp_abi_call_slow(struct dp_tu *tu, uint32_t site, void *fn, void *pd)
{
	/* what call() found for this (pd, site, target) before, if it is
	 * still remembered: no errno, no search, no frame (call_slow has
	 * the rest); not while the thread is busy (a signal handler's call
	 * in the middle of the runtime's work), nor when a handler wrote the
	 * memo between the loads (memo_call) */
	struct dp_thread *t = dp_self;
	if (likely(t && t->callmemo && !t->h->stop)) {
		uint64_t gen = t->callmemo_gen;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		const void *s = &tu->css[site];
		const struct dp_callmemo *m = callmemo(t, pd, s, fn);
		/* compared as loaded (no register holds them all: no frame
		 * to save), all between the two reads of the generation */
		if (m->pd == pd && m->site == s && m->fn == fn) {
			uintptr_t csd = m->csd, *slot = m->slot;
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			if (t->callmemo_gen == gen) {
				set_next(SLOT_HOT(csd), *slot);
				*slot = csd;     /* the last target first, as call() does */
				return (void *)csd;
			}
		}
	}
	return call_slow(tu, site, fn, pd);
}

DP_EXPORT void *dp_abi_count_slow(struct dp_tu *tu, uint32_t site, void *fn, void *pd)
{
	(void)fn;
	int saved_errno = errno;
	struct dp_csd_hot *r = count(tu, site, pd);
	errno = saved_errno;
	return (void *)SLOTV(r);
}

/* The path of a site with no slot in its pd (a site of a part GCC split
 * off a function inlined elsewhere, with calls=surviving), which runs at
 * each of its calls: the same as dp_abi_call_slow, called as a call the
 * compiler sees (no _regs entry point: it saves only what is live). */
DP_EXPORT void *dp_abi_call_noslot(struct dp_tu *tu, uint32_t site, void *fn, void *pd)
{
	return dp_abi_call_slow(tu, site, fn, pd);
}

/* An indirect site whose target fn the compiler found to be procedure ps
 * of its TU, and inlined (GCC made the call direct after the site was
 * made): the csd for fn as dp_abi_call_slow finds it, bound to ps when it
 * is not yet, as a direct site's is when made. The site checks callee_ps
 * instead of the target, so the inlined body's prologue has nothing left
 * to check (schemas/plugin-abi.md, "Devirtualized sites"). */
DP_EXPORT void *dp_abi_call_bound(struct dp_tu *tu, uint32_t site, void *fn, void *pd, uint32_t ps)
{
	int saved_errno = errno;
	struct dp_csd_hot *r = call(tu, site, fn, pd);
	if (r != &sink_csd.hot && r->callee_ps != (ps < tu->n_ps ? &tu->ps[ps] : NULL)) {
		struct dp_thread *t = ready();
		struct dp_ps *p = t && ps < tu->n_ps ? dp_plugin_static_ps(tu, ps) : NULL;
		bool ok = false;
		if (p && r->callee == &unbound_pd) {
			dp_busy_on(t);
			ok = bind2(t, CSD2(r), p) == 0;
			dp_busy_off(t);
		}
		if (!ok) {      /* out of memory (a csd bound elsewhere cannot be fn's) */
			if (t)
				t->lost++;
			r = &sink_csd.hot;
		}
	}
	errno = saved_errno;
	return (void *)SLOTV(r);
}

#ifdef DP_ABI_REGS_ENTRY
/* the slow paths as the optimised code calls them (deepprof-abi.h) */
DP_ABI_REGS_ENTRY(dp_abi_enter_slow_regs, dp_abi_enter_slow);
DP_ABI_REGS_ENTRY(dp_abi_call_slow_regs, dp_abi_call_slow);
DP_ABI_REGS_ENTRY(dp_abi_count_slow_regs, dp_abi_count_slow);
DP_ABI_REGS_ENTRY(dp_abi_resume_regs, dp_abi_resume);
#endif

DP_EXPORT void dp_abi_land(struct dp_tu *tu, void *me)
{
	(void)tu;
	uintptr_t cur = dp_cur;
	if ((cur & ~(uintptr_t)1) == (uintptr_t)me)
		return;                 /* setjmp's first return: nothing was left */
	int saved_errno = errno;
	struct dp_thread *t = dp_self;
	struct dp_csd *m = dp_plugin2_csd((uintptr_t)me);
	if (t && m && !t->h->stop) {
		dp_busy_on(t);
		land(t, m, cur);
		dp_busy_off(t);
	}
	dp_cur = (uintptr_t)me;
	errno = saved_errno;
}

/* ==== thread and process end, fork ======================================== */

/* Call fn on every csd in a slot of one of t's v2 pds, bound or not (the
 * csds of an indirect site hang from its slot's csd). */
static void each_slot_csd(struct dp_thread *t, void (*fn)(struct dp_thread *, struct dp_csd *))
{
	uint32_t n = t->n_pd;
	struct dp_pd *pd = t->pd_head;
	for (uint32_t k = 0; k < n && pd; k++, pd = pd->next) {
		if (!pd->hot)
			continue;
		for (uint32_t i = 0; i < pd->hot->n_slot; i++) {
			struct dp_csd_hot *h = SLOT_HOT(pd->hot->slot[i]);
			if (!h || h == &null_csd.hot || h == &sink_csd.hot)
				continue;
			for (struct dp_csd *x = CSD2(h)->thead; x; x = x->tnext)
				fn(t, x);
		}
	}
}

/* x made calls that never entered instrumented code: bind it as a call of
 * an uninstrumented function (t is the calling thread). */
static void bind_if_pending(struct dp_thread *t, struct dp_csd *x)
{
	if (x->hot.callee == &unbound_pd && v2_calls(x) && bind_uninstrumented2(t, x) < 0)
		t->lost++;
}

/* Calls some csd of t made that never entered instrumented code: bind them
 * as calls of uninstrumented functions (t is the calling thread). */
static void bind_pending(struct dp_thread *t)
{
	each_slot_csd(t, bind_if_pending);
}

/*
 * The activations of the chain from t's current csd (see the top of the
 * file) that no hook will see end, at thread or process end: those of
 * callbacks and tail calls (the others' non-local exits are calls - exits).
 */
void dp_plugin2_unwind(struct dp_thread *t, bool returned)
{
	if (!t->cur)
		return;
	uintptr_t cur = DP_LOAD(t->cur);
	bool self = t == dp_self;
	if (self)
		bind_pending(t);
	struct dp_csd *c = dp_plugin2_csd(cur);
	if (c && (cur & 1) && how(c) != TAIL && !leaf_tail(c))
		returned = false;       /* a call still being made: exit(), pthread_exit (a tail
		                           call's tag outlives its return: no restore follows) */
	for (; c && c->callee; c = c->caller->parent) {
		if (c->ctx)
			continue;       /* omp.c's copy of another thread's context */
		enum how w = how(c);
		if (w != BY_CHAIN && w != TAIL && !leaf_tail(c))
			returned = false;       /* a call that would have counted its return */
		if ((w == BY_CHAIN || w == TAIL) && !returned)
			dp_add_local(&c->nonlocal, 1);
	}
	if (self)
		dp_cur = (uintptr_t)&root_csd.hot;
}

/*
 * c->snap, from dp_plugin2_prepare to dp_plugin2_counts in one write: SNAP_ENDED
 * when every call not seen returning is a non-local exit (a final profile,
 * or the thread has ended); otherwise (a snapshot of a running thread) the
 * number of activations of a callback or tail-call csd on the thread's
 * chain, which are running: a snapshot counts running calls as neither
 * exits nor non-local exits, as v1's does. A counting csd's running calls
 * are calls - exits - those a longjmp left (nonlocal, land()).
 */
enum { SNAP_ENDED = 1u << 31 };

void dp_plugin2_prepare(struct dp_thread *t)
{
	bool ended = DP_LOAD_ACQ(&dp_rt.final_done) || DP_LOAD_ACQ(&t->exited);
	uint32_t n = DP_LOAD_ACQ(&t->n_pd);
	struct dp_pd *pd = t->pd_head;
	for (uint32_t k = 0; k < n && pd; k++, pd = DP_LOAD_ACQ(&pd->next))
		pd->in_calls = pd->in_exits = 0;
	n = DP_LOAD_ACQ(&t->n_csd);
	struct dp_csd *c = t->csd_head;
	for (uint32_t k = 0; k < n && c; k++, c = DP_LOAD_ACQ(&c->next)) {
		if (!c->v2)
			continue;
		c->snap = ended ? SNAP_ENDED : 0;
		if (how(c) != BY_COUNT)
			continue;
		uint64_t calls = v2_calls(c), exits = v2_exits(c);
		c->callee->in_calls += calls;
		c->callee->in_exits += exits < calls ? exits : calls;
	}
	if (ended || !t->cur)
		return;
	for (c = dp_plugin2_csd(DP_LOAD(t->cur)); c && c->callee; c = c->caller->parent) {
		if (c->ctx)
			continue;
		enum how w = how(c);
		if ((w == BY_CHAIN || w == TAIL) && c->snap < SNAP_ENDED - 1)
			c->snap++;
	}
}

/*
 * A tail call ends when the activation it replaced would have: the calls
 * into its caller's pd through sites that count exits give the share of
 * them that returned (exact when they all did, or none did).
 */
void dp_plugin2_counts(const struct dp_csd *c, uint64_t *calls_out, uint64_t *exits_out, uint64_t *nonlocal_out)
{
	uint64_t calls = v2_calls(c), exits, nl = DP_LOAD(&c->nonlocal);
	bool ended = c->snap & SNAP_ENDED;
	uint64_t running = ended ? 0 : c->snap;
	switch (how(c)) {
	case NORET:
		exits = 0;
		break;
	case LEAF:
		exits = calls;
		break;
	case BY_COUNT:
		exits = v2_exits(c);
		if (exits > calls)
			exits = calls;  /* a forked child: calls made in the parent returned */
		running = ended ? 0 : calls - exits - (nl < calls - exits ? nl : calls - exits);
		break;
	case TAIL:
		if (c->caller->in_calls) {
			exits = (uint64_t)((unsigned __int128)calls * c->caller->in_exits / c->caller->in_calls);
			break;
		}
		/* fall through */
	default:
		exits = calls - (nl < calls ? nl : calls);
		exits -= running < exits ? running : exits;
		break;
	}
	if (exits > calls)
		exits = calls;          /* a forked child: calls made in the parent returned */
	if (running > calls - exits)
		running = calls - exits;
	*calls_out = calls;
	*exits_out = exits;
	*nonlocal_out = calls - exits - running;
}

/* A forked child forgets what csd x counted in the parent, remembering
 * whether calls through it were running then. */
static void forget(struct dp_thread *t, struct dp_csd *x)
{
	(void)t;
	if (!x->v2)
		return;         /* a v1 or -finstrument-functions csd: its site is no table record */
	if (running(x))
		x->inherited = 1;
	x->hot.calls = x->hot.loop_cscs = x->hot.exits = 0;
	if (x->ctr)
		x->ctr[0] = x->ctr[1] = 0;
	x->nonlocal = 0;
}

void dp_plugin2_fork_child(struct dp_thread *t)
{
	each_slot_csd(t, forget);
	for (struct dp_csd *x = t->csd_head; x; x = x->next)
		forget(t, x);
	/* the activations running were called in the parent */
	for (struct dp_csd *c = dp_plugin2_csd(dp_cur); c && c->callee; c = c->caller->parent)
		c->inherited = 1;
}
