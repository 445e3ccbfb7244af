/* s-cfa-probe.c — -finstrument-functions hooks that stand in for libprof's
 * in s-cfa.c built with -DPROBE (a file of its own, so that GCC compiles
 * the program's calls of them as it does with libprof): per function, the
 * frame address of its last enter and exit hook and, for the enter hook,
 * the first stack word above it that holds the return address it reports. */
#include <stdint.h>
#include <stdio.h>

#define NOHOOKS __attribute__((no_instrument_function))      /* built with the program's flags */

struct seen { void *fn; uintptr_t in, out, ra; };
static struct seen seen[32];

NOHOOKS static struct seen *of(void *fn)
{
	for (int i = 0; i < 32; i++) {
		if (seen[i].fn == fn)
			return &seen[i];
		if (!seen[i].fn) {
			seen[i].fn = fn;
			return &seen[i];
		}
	}
	return NULL;
}

NOHOOKS void __cyg_profile_func_enter(void *fn, void *site)
{
	uintptr_t sp = (uintptr_t)__builtin_dwarf_cfa();
	struct seen *s = of(fn);
	if (!s)
		return;
	s->in = sp;
	const uintptr_t *p = (const uintptr_t *)sp;
	for (int i = 0; i < 4096 && *p != (uintptr_t)site; i++)
		p++;
	s->ra = (uintptr_t)p;
}

NOHOOKS void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	struct seen *s = of(fn);
	if (s)
		s->out = (uintptr_t)__builtin_dwarf_cfa();
}

/* How far unref's exit hook ran above its enter hook, and how far below
 * inner's the first copy of the return address lay for outer's. */
NOHOOKS void probe_report(void *unref_fn, void *outer_fn, void *inner_fn)
{
	struct seen *u = of(unref_fn), *o = of(outer_fn), *i = of(inner_fn);
	if (u && o && i)
		printf("unref exit above enter %ld\nouter copy below inner %ld\n",
		       (long)(u->out - u->in), (long)(i->ra - o->ra));
}
