/* s-alloc.c — allocations with exact counts: each function makes a known set
 * of malloc/calloc/realloc/posix_memalign/aligned_alloc/memalign/valloc calls;
 * churn(n) mallocs and frees n blocks of 1..n bytes... (n from argv[1]). */
#include <malloc.h>
#include <stdlib.h>
static void *keep[16];
void do_malloc(void) { keep[0] = malloc(100); keep[1] = malloc(200); }
void do_calloc(void) { keep[2] = calloc(10, 8); }
void do_realloc(void) { keep[3] = malloc(16); keep[3] = realloc(keep[3], 64); }
void do_aligned(void)
{
	if (posix_memalign(&keep[4], 64, 128) != 0)
		exit(3);
	keep[5] = aligned_alloc(64, 256);
	keep[6] = memalign(32, 48);
	keep[7] = valloc(10);
}
void churn(int n)
{
	for (int i = 1; i <= n; i++) {
		char *p = malloc((size_t)i);
		p[0] = 1;
		free(p);
	}
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	do_malloc();
	do_calloc();
	do_realloc();
	do_aligned();
	churn(n);
	for (int i = 0; i < 8; i++) {
		if (!keep[i])
			return 2;
		free(keep[i]);
	}
	return 0;
}
