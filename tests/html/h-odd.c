/* h-odd.c — symbols no C name could have, for the html suite: one with a
 * byte that is not UTF-8, one with a control character, one with "::" (no
 * `proc` name picks it, so it gets no page and is plain text). main calls
 * ns::f, which calls the first; main calls the second.
 * Part of deepprof's tests. MIT licence. */
int odd_bad(int x) __asm__("\"bad\377name\"");
int odd_bad(int x) { return x; }
int odd_colons(int x) __asm__("\"ns::f\"");
int odd_colons(int x) { return odd_bad(x); }
int odd_ctl(int x) __asm__("\"ctl\001x\"");
int odd_ctl(int x) { return x; }
int main(void) { return odd_colons(0) + odd_ctl(0); }
