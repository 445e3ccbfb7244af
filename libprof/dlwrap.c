/*
 * dlwrap.c — the program's dlclose, seen before the library goes: the
 * writer's module list (write.c) adds it if it is new, so that the
 * functions and call sites of a library unloaded before the profile is
 * written are still named by their module (they showed as <unknown>).
 * Built twice, as sigwrap.c is: into libprof.a as __wrap_dlclose, which
 * deepprof-cc's link puts in front of libc's (-Wl,--wrap=dlclose), and
 * into libprof.so (DP_DLWRAP_SHARED) as dlclose itself.
 * Part of deepprof's libprof. MIT licence.
 */
#include <dlfcn.h>
#include "internal.h"

typedef int close_fn(void *);

#ifdef DP_DLWRAP_SHARED

DP_EXPORT int dlclose(void *handle)
{
	static void *r;
	close_fn *f = (close_fn *)dp_next_sym("dlclose", &r);
	dp_write_modules_scan();
	return f ? f(handle) : -1;
}

#else

close_fn __real_dlclose;

DP_EXPORT int __wrap_dlclose(void *handle)
{
	dp_write_modules_scan();
	return __real_dlclose(handle);
}

#endif
