/* v-lib.c — the serve suite's "library" module (for contour exclusion:
 * exclude=v-lib.c charges leaf and unit to the calls into them).
 * Part of deepprof's tests. MIT licence. */
void unit(void) { }
void leaf(int n) { for (int i = 0; i < n; i++) unit(); }
