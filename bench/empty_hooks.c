/*
 * empty_hooks.c — -finstrument-functions hooks that do nothing: linked into
 * the "empty" variant of each benchmark, it is the floor of the approach
 * (the cost of the calls the compiler inserts, with no runtime behind them).
 * Built without -finstrument-functions. Part of deepprof's bench. MIT licence.
 */

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

/* noinline + noipa: an empty body still costs a real call, as a runtime's would */
__attribute__((noinline, noipa, no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, noipa, no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
	__asm__ volatile("" ::: "memory");
}
