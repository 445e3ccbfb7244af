/* r-other.c — a second file with its own static helper (the name is
 * ambiguous in the profile of r-shapes). Part of deepprof's tests. MIT licence. */
static int helper(int x) { return x + 5; }
int helper_other(int x) { return helper(x); }
