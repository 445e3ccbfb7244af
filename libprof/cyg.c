/*
 * cyg.c — the -finstrument-functions entry points. They name a function by
 * its entry address and a call site by its return address, and hand both to
 * the graph core (graph.h) with their stack pointer (the hook's CFA, which is
 * the instrumented function's stack pointer at the call); the GCC plugin will
 * call the same core with static site indexes instead.
 * Part of deepprof's libprof. MIT licence.
 */
#include "graph.h"

DP_EXPORT void __cyg_profile_func_enter(void *fn, void *call_site)
{
	dp_graph_enter((uintptr_t)fn, (uintptr_t)call_site, (uintptr_t)__builtin_dwarf_cfa(),
		       (uintptr_t)__builtin_return_address(0));
}

DP_EXPORT void __cyg_profile_func_exit(void *fn, void *call_site)
{
	/* At -O2 GCC may jump to this hook after popping fn's frame: then our
	 * return address is fn's own (dp_graph_exit). */
	dp_graph_exit((uintptr_t)fn, (uintptr_t)call_site, (uintptr_t)__builtin_dwarf_cfa(),
		      (uintptr_t)__builtin_return_address(0));
}
