/* s-inl-lib.c — instrumented: g() is small enough for LTO to inline it
 * into u() (s-inl-u.c, compiled without the plugin); h() is not inlined.
 * Part of deepprof's tests. MIT licence. */
__attribute__((noinline)) int h(int x)
{
	return x * 3 + 1;
}

int g(int x)
{
	return h(x) + h(x + 1);
}
