/*
 * alloc.c — allocation counting: malloc and friends are interposed, counted
 * on the current csd (or the thread's outside sink) and passed to glibc's
 * own __libc_* entry points, so there is no dlsym bootstrap and no recursion.
 * free() is not interposed: it counts nothing, and a check build's checked
 * code calls __deepprof_chk_free before it (check.c).
 * Part of deepprof's libprof. MIT licence.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "internal.h"

/* Weak, so a program that brings its own allocator links and keeps it (its
 * allocations are then not counted). */
#define DP_ALLOC_FN DP_EXPORT __attribute__((weak))

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

/* Nonzero inside a check build's candidate call (check.c): the thread's own. */
__thread unsigned dp_ck_on __attribute__((tls_model("initial-exec")));

/* One allocation of n bytes asked, by the calling thread. */
static inline void count(size_t n)
{
	struct dp_thread *t = dp_self;
	if (likely(t)) {
		struct dp_csd *c = dp_cur_csd(t);
		c->allocs++;
		c->bytes += n;
	} else {
		DP_ADD(&dp_rt.allocs_outside, 1);
		DP_ADD(&dp_rt.bytes_outside, n);
	}
}

/* Referenced from runtime init so that a static link always pulls this file in. */
void dp_alloc_link(void)
{
}

/* Inside a candidate call of a check build (check.c): the block is the call's. */
static __attribute__((noinline, cold)) void *checked(void *p, size_t n)
{
	dp_check_alloc(p, n);
	return p;
}

/* The block CALL allocates: checked inside a check build's candidate call,
 * else glibc's call itself, a tail call (dp_ck_on is the thread's own:
 * the allocation does not change it). */
#define ALLOC(call, n) (unlikely(dp_ck_on) ? checked((call), (n)) : (call))

DP_ALLOC_FN void *malloc(size_t n)
{
	count(n);
	return ALLOC(__libc_malloc(n), n);
}

DP_ALLOC_FN void *calloc(size_t nmemb, size_t size)
{
	size_t n = 0;
	if (!__builtin_mul_overflow(nmemb, size, &n))
		count(n);
	return ALLOC(__libc_calloc(nmemb, size), n);
}

/* realloc counts one allocation of the new size, except realloc(p, 0), which frees. */
DP_ALLOC_FN void *realloc(void *p, size_t n)
{
	if (n || !p)
		count(n);
	if (unlikely(dp_ck_on) && p)
		dp_check_free(p);
	return ALLOC(__libc_realloc(p, n), n);
}

DP_ALLOC_FN void *memalign(size_t align, size_t n)
{
	count(n);
	return ALLOC(__libc_memalign(align, n), n);
}

DP_ALLOC_FN void *aligned_alloc(size_t align, size_t n)
{
	if (align == 0 || (align & (align - 1))) {
		errno = EINVAL;
		return NULL;
	}
	count(n);
	return __libc_memalign(align, n);
}

DP_ALLOC_FN int posix_memalign(void **out, size_t align, size_t n)
{
	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	int saved_errno = errno;
	count(n);
	void *p = __libc_memalign(align, n);
	if (!p) {
		errno = saved_errno;
		return ENOMEM;
	}
	*out = p;
	return 0;
}

DP_ALLOC_FN void *valloc(size_t n)
{
	count(n);
	return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), n);
}
