/* s-inl-u.c — compiled without the plugin (an uninstrumented library
 * object in an LTO link): u() gets g()'s instrumented body inlined.
 * Part of deepprof's tests. MIT licence. */
int g(int);

__attribute__((noinline)) int u(int x)
{
	return g(x) * 2;
}
