/*
 * unwind.c — walking a stack from a signal's context, for sampling
 * (record.c) and for ticks that land in uninstrumented code (timer.c):
 * libunwind's local unwinder, dlopen'ed RTLD_LOCAL so that its own
 * _Unwind_* (the C++ exception ABI) never displace libgcc_s's in the
 * program. Part of deepprof's libprof. MIT licence.
 */
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <link.h>
#include <sys/auxv.h>
#include <libunwind.h>
#include "internal.h"

/* libunwind's entry points, set once by dp_unwind_init (before any
 * handler uses them) and never changed. */
static struct {
	int (*init_local2)(unw_cursor_t *, unw_context_t *, int);
	int (*step)(unw_cursor_t *);
	int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
	int (*get_proc_info)(unw_cursor_t *, unw_proc_info_t *);
	int (*set_caching_policy)(unw_addr_space_t, unw_caching_policy_t);
	unw_addr_space_t *local_as;
} U;
static int state;       /* 0 not tried, 1 ready, -1 unavailable */

#define STR_(x) #x
#define STR(x) STR_(x)  /* the name a libunwind macro stands for: _ULx86_64_step */

int dp_unwind_init(const char *who)
{
	if (state)
		return state > 0 ? 0 : -1;
	void *lib = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (lib) {
		U.init_local2 = (int (*)(unw_cursor_t *, unw_context_t *, int))dlsym(lib, STR(unw_init_local2));
		U.step = (int (*)(unw_cursor_t *))dlsym(lib, STR(unw_step));
		U.get_reg = (int (*)(unw_cursor_t *, unw_regnum_t, unw_word_t *))dlsym(lib, STR(unw_get_reg));
		U.get_proc_info = (int (*)(unw_cursor_t *, unw_proc_info_t *))dlsym(lib, STR(unw_get_proc_info));
		U.set_caching_policy = (int (*)(unw_addr_space_t, unw_caching_policy_t))
			dlsym(lib, STR(unw_set_caching_policy));
		U.local_as = dlsym(lib, STR(unw_local_addr_space));
	}
	if (!U.init_local2 || !U.step || !U.get_reg || !U.get_proc_info || !U.set_caching_policy ||
	    !U.local_as) {
		if (who)        /* NULL: quietly (the runtime's default use) */
			dp_log(who, "cannot load libunwind.so.8:", lib ? "a symbol is missing" : dlerror());
		state = -1;
		return -1;
	}
	/* libunwind's cache of unwinding rules by address (Debian's is built
	 * without a per-thread cache; without any cache a tick costs ms) */
	U.set_caching_policy(*U.local_as, UNW_CACHE_GLOBAL);
	DP_STORE_REL(&state, 1);
	return 0;
}

/*
 * Walk the stack of the context uc (a signal handler's third argument) into
 * out[0 .. return value): innermost first, the interrupted pc and then each
 * return address, with the entry of the function holding it (0 when no
 * unwind information covers it). At most max frames; *deeper is set when
 * the stack went on. Async-signal-safe (no malloc; libunwind's cache lock
 * masks signals around itself). 0 when nothing could be unwound.
 */
int dp_unwind(void *uc, struct dp_uframe *out, int max, bool *deeper)
{
	unw_cursor_t cur;
	int n = 0;
	*deeper = false;
	if (DP_LOAD_ACQ(&state) <= 0 ||
	    U.init_local2(&cur, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) != 0)
		return 0;
	do {
		unw_word_t ip;
		unw_proc_info_t pi;
		if (U.get_reg(&cur, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		if (n == max) {
			*deeper = true;
			break;
		}
		out[n].ip = ip;
		out[n].fn = U.get_proc_info(&cur, &pi) == 0 ? pi.start_ip : 0;
		n++;
	} while (U.step(&cur) > 0);
	return n;
}

/* ==== which code is instrumented ========================================== */

/*
 * The modules (executable, shared objects) holding instrumented code: each
 * one's whole mapped range, to find it again from a table's address, and
 * the range of its executable segments, which a tick's pc is tested
 * against. Noted outside any handler (a TU's registration, runtime init),
 * read by the tick handler: entries are written before n_code publishes
 * them, and never change or go (a module dlclose'd leaves a stale range;
 * code mapped there later counts as instrumented, as a tick in it did).
 */
#define CODE_MAX 64
static struct code_mod {
	uintptr_t lo, hi;           /* every PT_LOAD segment */
	uintptr_t xlo, xhi;         /* the PF_X ones */
} code[CODE_MAX];
static uint32_t n_code;
static pthread_mutex_t code_lock = PTHREAD_MUTEX_INITIALIZER;

/* dl_iterate_phdr's callback: the ranges of the module holding find->addr */
struct find {
	uintptr_t addr;
	struct code_mod m;
};

static int find_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct find *f = arg;
	struct code_mod m = { UINTPTR_MAX, 0, UINTPTR_MAX, 0 };
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (lo < m.lo)
			m.lo = lo;
		if (hi > m.hi)
			m.hi = hi;
		if (ph->p_flags & PF_X) {
			if (lo < m.xlo)
				m.xlo = lo;
			if (hi > m.xhi)
				m.xhi = hi;
		}
	}
	if (f->addr < m.lo || f->addr >= m.hi)
		return 0;
	f->m = m;
	return 1;
}

/* The module holding addr, with code; false when there is none. */
static bool find_module(uintptr_t addr, struct code_mod *out)
{
	struct find f = { .addr = addr };
	if (!dl_iterate_phdr(find_cb, &f) || f.m.xlo >= f.m.xhi)
		return false;
	*out = f.m;
	return true;
}

void dp_code_note(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	pthread_mutex_lock(&code_lock);
	uint32_t n = n_code, i = 0;
	while (i < n && (a < code[i].lo || a >= code[i].hi))
		i++;
	if (i == n && n < CODE_MAX && find_module(a, &code[n]))
		DP_STORE_REL(&n_code, n + 1);
	pthread_mutex_unlock(&code_lock);
}

/* The dynamic loader's code, where a tick is never unwound: libunwind
 * looks up unwind tables with dl_iterate_phdr, and the interrupted code
 * may be changing the list of modules that walks (dlopen). */
static struct code_mod loader;

void dp_code_note_loader(void)
{
	uintptr_t base = (uintptr_t)getauxval(AT_BASE);
	if (base)       /* 0: a static program, no loader */
		find_module(base, &loader);
}

bool dp_code_in_loader(uintptr_t pc)
{
	return pc >= loader.xlo && pc < loader.xhi;
}

bool dp_code_instrumented(uintptr_t pc)
{
	uint32_t n = DP_LOAD_ACQ(&n_code);
	for (uint32_t i = 0; i < n; i++)
		if (pc >= code[i].xlo && pc < code[i].xhi)
			return true;
	return false;
}
