/*
 * test_abi_regs.c — the slow paths' entry points that keep registers
 * (DP_ABI_REGS_ENTRY, compiler-plugins/deepprof-abi.h; the asm that calls
 * them: compiler-plugins/slow_regs.cc). An entry point made by the macro
 * around a target that scrambles every register a SysV call may change,
 * called as the plugin's asm calls it: the target gets the four pushed
 * words as its arguments on an aligned stack, its result comes back in
 * rax, and every other general register, and the caller's red zone, hold
 * what they held before.
 * Part of deepprof's tests. MIT licence.
 */
#include <stdint.h>
#include "unit.h"
#include "../../compiler-plugins/deepprof-abi.h"

#ifndef DP_ABI_REGS_ENTRY
#error "deepprof builds for x86-64 (LP64) only"
#endif

static uint64_t got[4];
static int aligned, calls;
static uintptr_t result = 0x5eed;       /* what the target returns */

void *dp_test_regs_target(struct dp_tu *tu, uint32_t a, void *b, void *c);
void *dp_test_regs_target(struct dp_tu *tu, uint32_t a, void *b, void *c)
{
	_Alignas(16) volatile char probe[16];
	uintptr_t at = (uintptr_t)probe;
	__asm__("" : "+r"(at));         /* not folded: GCC takes the stack as aligned */
	aligned = (at & 15) == 0;
	got[0] = (uint64_t)(uintptr_t)tu;
	got[1] = a;
	got[2] = (uint64_t)(uintptr_t)b;
	got[3] = (uint64_t)(uintptr_t)c;
	calls++;
	/* what any C code may do to them, and to the SSE registers */
	__asm__ volatile("mov $-1, %%rdi\n\tmov $-1, %%rsi\n\tmov $-1, %%rdx\n\tmov $-1, %%rcx\n\t"
			 "mov $-1, %%r8\n\tmov $-1, %%r9\n\tmov $-1, %%r10\n\tmov $-1, %%r11"
			 ::: "rdi", "rsi", "rdx", "rcx", "r8", "r9", "r10", "r11");
	__asm__ volatile("pcmpeqd %%xmm0, %%xmm0\n\tpcmpeqd %%xmm1, %%xmm1\n\t"
			 "pcmpeqd %%xmm2, %%xmm2\n\tpcmpeqd %%xmm3, %%xmm3\n\tpcmpeqd %%xmm4, %%xmm4\n\t"
			 "pcmpeqd %%xmm5, %%xmm5\n\tpcmpeqd %%xmm6, %%xmm6\n\tpcmpeqd %%xmm7, %%xmm7\n\t"
			 "pcmpeqd %%xmm8, %%xmm8\n\tpcmpeqd %%xmm9, %%xmm9\n\tpcmpeqd %%xmm10, %%xmm10\n\t"
			 "pcmpeqd %%xmm11, %%xmm11\n\tpcmpeqd %%xmm12, %%xmm12\n\tpcmpeqd %%xmm13, %%xmm13\n\t"
			 "pcmpeqd %%xmm14, %%xmm14\n\tpcmpeqd %%xmm15, %%xmm15"
			 ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
			   "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
	return (void *)result;
}

DP_ABI_REGS_ENTRY(dp_test_regs_entry, dp_test_regs_target);

/* the SSE registers, which the entry points keep: the tests' asms name
 * them changed, as the plugin's do in a function compiled for AVX */
#define XMM_CLOBBERS                                                                \
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", \
	"xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

/* the registers as the asm left them (copied before any call) against
 * what they held before it */
static void same_regs(const uint64_t *now, const uint64_t *want, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		CU_ASSERT_EQUAL(now[i], want[i]);
}

static void test_registers_kept(void)
{
	register uint64_t rbx __asm__("rbx") = 0x1b, rcx __asm__("rcx") = 0x1c, rdx __asm__("rdx") = 0x1d;
	register uint64_t rsi __asm__("rsi") = 0x51, rdi __asm__("rdi") = 0xd1;
	register uint64_t r8 __asm__("r8") = 0x8, r9 __asm__("r9") = 0x9, r10 __asm__("r10") = 0x10;
	register uint64_t r11 __asm__("r11") = 0x11, r12 __asm__("r12") = 0x12, r13 __asm__("r13") = 0x13;
	register uint64_t r14 __asm__("r14") = 0x14, r15 __asm__("r15") = 0x15;
	uint64_t res;
	calls = 0;
	__asm__ volatile("lea -128(%%rsp), %%rsp\n\t"
			 "push $0x44\n\tpush $0x33\n\tpush $0x22\n\tpush $0x11\n\t"
			 "call *dp_test_regs_entry@GOTPCREL(%%rip)\n\t"
			 "lea 160(%%rsp), %%rsp"
			 : "=a"(res), "+r"(rbx), "+r"(rcx), "+r"(rdx), "+r"(rsi), "+r"(rdi), "+r"(r8),
			   "+r"(r9), "+r"(r10), "+r"(r11), "+r"(r12), "+r"(r13), "+r"(r14), "+r"(r15)
			 : : "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
			   "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
	/* copied before any call (which may reuse the registers) */
	uint64_t now[] = { rbx, rcx, rdx, rsi, rdi, r8, r9, r10, r11, r12, r13, r14, r15 };
	CU_ASSERT_EQUAL(calls, 1);
	CU_ASSERT_EQUAL(res, 0x5eed);
	CU_ASSERT_EQUAL(got[0], 0x11);
	CU_ASSERT_EQUAL(got[1], 0x22);
	CU_ASSERT_EQUAL(got[2], 0x33);
	CU_ASSERT_EQUAL(got[3], 0x44);
	CU_ASSERT(aligned);
	uint64_t want[] = { 0x1b, 0x1c, 0x1d, 0x51, 0xd1, 0x8, 0x9, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15 };
	same_regs(now, want, sizeof want / sizeof *want);
}

/* the SSE registers, which the asms of a function compiled without AVX
 * do not declare changed (the target sets every xmm register to all
 * ones) */
static void test_vector_kept(void)
{
	/* (two calls: an asm has at most 30 operands, and "+x" counts twice) */
	register double x0 __asm__("xmm0") = 0.5, x1 __asm__("xmm1") = 1.5, x2 __asm__("xmm2") = 2.5;
	register double x3 __asm__("xmm3") = 3.5, x4 __asm__("xmm4") = 4.5, x5 __asm__("xmm5") = 5.5;
	register double x6 __asm__("xmm6") = 6.5, x7 __asm__("xmm7") = 7.5;
	uint64_t res;
	calls = 0;
#define DP_TEST_CALL                                                            \
	"lea -128(%%rsp), %%rsp\n\tpush $0x44\n\tpush $0x33\n\tpush $0x22\n\t"  \
	"push $0x11\n\tcall *dp_test_regs_entry@GOTPCREL(%%rip)\n\tlea 160(%%rsp), %%rsp"
	__asm__ volatile(DP_TEST_CALL
			 : "=a"(res), "+x"(x0), "+x"(x1), "+x"(x2), "+x"(x3), "+x"(x4),
			   "+x"(x5), "+x"(x6), "+x"(x7)
			 : : "memory", "cc", "rdi", "rsi", "rdx", "rcx", "r8", "r9", "r10", "r11");
	double low[] = { x0, x1, x2, x3, x4, x5, x6, x7 };
	register double x8 __asm__("xmm8") = 8.5, x9 __asm__("xmm9") = 9.5, x10 __asm__("xmm10") = 10.5;
	register double x11 __asm__("xmm11") = 11.5, x12 __asm__("xmm12") = 12.5;
	register double x13 __asm__("xmm13") = 13.5, x14 __asm__("xmm14") = 14.5;
	register double x15 __asm__("xmm15") = 15.5;
	__asm__ volatile(DP_TEST_CALL
			 : "=a"(res), "+x"(x8), "+x"(x9), "+x"(x10), "+x"(x11), "+x"(x12), "+x"(x13),
			   "+x"(x14), "+x"(x15)
			 : : "memory", "cc", "rdi", "rsi", "rdx", "rcx", "r8", "r9", "r10", "r11");
#undef DP_TEST_CALL
	double high[] = { x8, x9, x10, x11, x12, x13, x14, x15 };
	CU_ASSERT_EQUAL(calls, 2);
	CU_ASSERT_EQUAL(res, 0x5eed);
	for (unsigned i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(low[i], i + 0.5);
		CU_ASSERT_EQUAL(high[i], i + 8.5);
	}
}

/* the caller's red zone (a function GCC sees make no call may keep data
 * below its stack pointer) and a misaligned stack on the way in */
static void test_red_zone_and_alignment(void)
{
	for (int mis = 0; mis < 2; mis++) {
		uint64_t kept = 0, res;
		aligned = 0;
		__asm__ volatile("sub %[mis], %%rsp\n\t"
				 "movq $0x2ed2, -8(%%rsp)\n\tmovq $0x2ed1, -128(%%rsp)\n\t"
				 "lea -128(%%rsp), %%rsp\n\t"
				 "push $4\n\tpush $3\n\tpush $2\n\tpush $1\n\t"
				 "call *dp_test_regs_entry@GOTPCREL(%%rip)\n\t"
				 "lea 160(%%rsp), %%rsp\n\t"
				 "mov -8(%%rsp), %[kept]\n\tadd -128(%%rsp), %[kept]\n\t"
				 "add %[mis], %%rsp"
				 : "=a"(res), [kept] "+r"(kept)
				 : [mis] "r"((uint64_t)(mis * 8))
				 : "memory", "cc", "rdi", "rsi", "rdx", "rcx", "r8", "r9", "r10", "r11",
				   "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
				   "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
		CU_ASSERT_EQUAL(res, 0x5eed);
		CU_ASSERT_EQUAL(kept, 0x2ed2 + 0x2ed1);
		CU_ASSERT(aligned);
		CU_ASSERT_EQUAL(got[0], 1);
		CU_ASSERT_EQUAL(got[3], 4);
	}
}

/* A direct site's count and check (DP_ABI_COUNT, the template the
 * plugin's asm uses): one more call in the calls word at pd + cnt
 * (deepprof-abi.h, DP_PD_COUNT); when that made it 0, the stub's call
 * with (tu, site, 0, pd), otherwise none; the general registers kept
 * either way (those that fit in an asm's 30 operands), rax too (the
 * stub's own scratch register). _EXIT: one more exit, 8 bytes on. */
static char fake_tu;
static void test_count(void)
{
	for (int first = 0; first < 2; first++) {
		uint64_t words[6] = { 0 };
		words[2] = first ? ~(uint64_t)0 : 41;
		register uint64_t rax __asm__("rax") = 0xa0, rbx __asm__("rbx") = 0x1b;
		register uint64_t rcx __asm__("rcx") = 0x1c, rsi __asm__("rsi") = 0x51;
		register uint64_t rdi __asm__("rdi") = 0xd1, r8 __asm__("r8") = 0x8;
		register uint64_t r10 __asm__("r10") = 0x10, r11 __asm__("r11") = 0x11;
		register uint64_t r12 __asm__("r12") = 0x12, r14 __asm__("r14") = 0x14;
		uintptr_t pd = (uintptr_t)&words[4], cur = 0x7;
		calls = 0;
		__asm__ volatile(DP_ABI_COUNT_EXIT("dp_test_regs_entry")
				 : [cur] "+m"(cur), "+r"(rax), "+r"(rbx), "+r"(rcx), "+r"(rsi),
				   "+r"(rdi), "+r"(r8), "+r"(r10), "+r"(r11), "+r"(r12), "+r"(r14)
				 : [pd] "r"(pd), [cnt] "i"(-16L), [site] "i"(17), [tu] "i"(&fake_tu)
				 : "cc", "memory", XMM_CLOBBERS);
		uint64_t now[] = { rax, rbx, rcx, rsi, rdi, r8, r10, r11, r12, r14 };
		uint64_t want[] = { 0xa0, 0x1b, 0x1c, 0x51, 0xd1, 0x8, 0x10, 0x11, 0x12, 0x14 };
		same_regs(now, want, sizeof want / sizeof *want);
		CU_ASSERT_EQUAL(calls, first ? 1 : 0);
		CU_ASSERT_EQUAL(words[2], first ? 0 : 42);
		CU_ASSERT_EQUAL(words[3], 1);
		CU_ASSERT_EQUAL(words[0] + words[1] + words[4] + words[5], 0);
		CU_ASSERT_EQUAL(cur, 0x7);
		if (first) {
			CU_ASSERT_EQUAL(got[0], (uint64_t)(uintptr_t)&fake_tu);
			CU_ASSERT_EQUAL(got[1], 17);
			CU_ASSERT_EQUAL(got[2], 0);
			CU_ASSERT_EQUAL(got[3], pd);
		}
	}
	/* DP_ABI_COUNT: the calls word only */
	uint64_t words[4] = { 5, 9, 0, 0 };
	uintptr_t pd = (uintptr_t)&words[2], cur = 0x7;
	calls = 0;
	__asm__ volatile(DP_ABI_COUNT("dp_test_regs_entry")
			 : [cur] "+m"(cur)
			 : [pd] "r"(pd), [cnt] "i"(-16L), [site] "i"(3), [tu] "i"(&fake_tu)
			 : "cc", "memory", XMM_CLOBBERS);
	CU_ASSERT_EQUAL(words[0], 6);
	CU_ASSERT_EQUAL(words[1], 9);
	CU_ASSERT_EQUAL(calls, 0);
}

/* The count and check with the site's csd (DP_ABI_COUNT_CHECK, given the
 * slot's value; _LOAD, _ENTER, loading it): the slot's csd, or at the
 * first call (the calls word made 0) the stub's; _ENTER sets the current
 * csd's place to it; the general registers kept, rax too, and the result
 * where the asm's operand is, rax or another. */
static void test_count_csd(void)
{
	for (int form = 0; form < 3; form++)
		for (int first = 0; first < 2; first++) {
			uint64_t words[3] = { first ? ~(uint64_t)0 : 7, 0, 0 };
			uintptr_t pd = (uintptr_t)&words[2], slot = first ? 0 : 0x1235, cur = 0x7;
			register uint64_t rax __asm__("rax") = 0xa0, rbx __asm__("rbx") = 0x1b;
			register uint64_t rcx __asm__("rcx") = 0x1c, rsi __asm__("rsi") = 0x51;
			register uint64_t rdi __asm__("rdi") = 0xd1, r8 __asm__("r8") = 0x8;
			register uint64_t r10 __asm__("r10") = 0x10, r11 __asm__("r11") = 0x11;
			register uintptr_t csd __asm__("rdx");
			calls = 0;
			result = 0x5eed;
			if (form == 0)
				__asm__ volatile(DP_ABI_COUNT_CHECK("dp_test_regs_entry")
						 : [csd] "=r"(csd), [slot] "+m"(slot), [cur] "+m"(cur), "+r"(rax),
						   "+r"(rbx), "+r"(rcx), "+r"(rsi), "+r"(rdi), "+r"(r8), "+r"(r10), "+r"(r11)
						 : "0"(slot), [pd] "r"(pd), [cnt] "i"(-16L), [site] "i"(17),
						   [tu] "i"(&fake_tu)
						 : "cc", "memory", XMM_CLOBBERS);
			else if (form == 1)
				__asm__ volatile(DP_ABI_COUNT_LOAD("dp_test_regs_entry")
						 : [csd] "=&r"(csd), [slot] "+m"(slot), [cur] "+m"(cur), "+r"(rax),
						   "+r"(rbx), "+r"(rcx), "+r"(rsi), "+r"(rdi), "+r"(r8), "+r"(r10), "+r"(r11)
						 : [pd] "r"(pd), [cnt] "i"(-16L), [site] "i"(17), [tu] "i"(&fake_tu)
						 : "cc", "memory", XMM_CLOBBERS);
			else
				__asm__ volatile(DP_ABI_COUNT_ENTER("dp_test_regs_entry")
						 : [csd] "=&r"(csd), [slot] "+m"(slot), [cur] "+m"(cur), "+r"(rax),
						   "+r"(rbx), "+r"(rcx), "+r"(rsi), "+r"(rdi), "+r"(r8), "+r"(r10), "+r"(r11)
						 : [pd] "r"(pd), [cnt] "i"(-16L), [site] "i"(17), [tu] "i"(&fake_tu)
						 : "cc", "memory", XMM_CLOBBERS);
			uint64_t now[] = { rax, rbx, rcx, rsi, rdi, r8, r10, r11 };
			uintptr_t got_csd = csd;
			uint64_t want[] = { 0xa0, 0x1b, 0x1c, 0x51, 0xd1, 0x8, 0x10, 0x11 };
			same_regs(now, want, sizeof want / sizeof *want);
			CU_ASSERT_EQUAL(calls, first ? 1 : 0);
			CU_ASSERT_EQUAL(words[0], first ? 0 : 8);
			CU_ASSERT_EQUAL(words[1], 0);
			CU_ASSERT_EQUAL(got_csd, first ? 0x5eed : 0x1235);
			CU_ASSERT_EQUAL(cur, form == 2 ? got_csd : 0x7);
			if (first)
				CU_ASSERT_EQUAL(got[3], pd);
		}
	/* the result in rax */
	uint64_t words[3] = { ~(uint64_t)0, 0, 0 };
	uintptr_t pd = (uintptr_t)&words[2], slot = 0, cur = 0x7, res;
	calls = 0;
	__asm__ volatile(DP_ABI_COUNT_LOAD("dp_test_regs_entry")
			 : [csd] "=&a"(res), [slot] "+m"(slot), [cur] "+m"(cur)
			 : [pd] "r"(pd), [cnt] "i"(-16L), [site] "i"(3), [tu] "i"(&fake_tu)
			 : "cc", "memory", XMM_CLOBBERS);
	CU_ASSERT_EQUAL(res, 0x5eed);
	CU_ASSERT_EQUAL(calls, 1);
	CU_ASSERT_EQUAL(got[1], 3);
}

/* After a site's call (DP_ABI_SITE_RESTORE, _LOAD, DP_ABI_RESTORE_COUNT):
 * the current csd's place set back to me and one more exit: the word at
 * csd + 39 of the csd given, or of the slot's, or the word at pd + ex (a
 * direct site's counters, deepprof-abi.h) */
static void test_site_restore(void)
{
	uint64_t line[2][8] = { { 0 } };
	uintptr_t cur = 0x7, me = 0x1230, tmp;
	uintptr_t given = (uintptr_t)line[0] + 1, slot = (uintptr_t)line[1] + 1;
	__asm__ volatile(DP_ABI_SITE_RESTORE : [cur] "+m"(cur) : [me] "r"(me), [csd] "r"(given) : "cc");
	CU_ASSERT_EQUAL(cur, 0x1230);
	CU_ASSERT_EQUAL(line[0][5], 1);
	cur = 0x7;
	__asm__ volatile(DP_ABI_SITE_RESTORE_LOAD
			 : [csd] "=&r"(tmp), [cur] "+m"(cur) : [me] "r"(me), [slot] "m"(slot) : "cc");
	CU_ASSERT_EQUAL(cur, 0x1230);
	CU_ASSERT_EQUAL(tmp, slot);
	CU_ASSERT_EQUAL(line[1][5], 1);
	CU_ASSERT_EQUAL(line[1][0] + line[0][0], 0);
	uint64_t words[4] = { 3, 4, 0, 0 };
	cur = 0x7;
	__asm__ volatile(DP_ABI_RESTORE_COUNT
			 : [cur] "+m"(cur) : [me] "r"(me), [pd] "r"(&words[2]), [ex] "i"(-8L) : "cc", "memory");
	CU_ASSERT_EQUAL(cur, 0x1230);
	CU_ASSERT_EQUAL(words[0], 3);
	CU_ASSERT_EQUAL(words[1], 5);
}

/* A quiet body's pending exit (DP_ABI_PENDING_EXIT): the word at p + off
 * gains d, -1 or 1, and no other word changes (the asms here name
 * memory, as the plugin's need not: no other code there reads that word) */
static void test_pending_exit(void)
{
	uint64_t line[8] = { 0 };
	line[5] = 10;
	uintptr_t me = (uintptr_t)line, tagged = me + 1;
	__asm__ volatile(DP_ABI_PENDING_EXIT : : [p] "r"(me), [d] "i"(-1L), [off] "i"(40L) : "cc", "memory");
	CU_ASSERT_EQUAL(line[5], 9);
	__asm__ volatile(DP_ABI_PENDING_EXIT : : [p] "r"(tagged), [d] "i"(1L), [off] "i"(39L) : "cc", "memory");
	__asm__ volatile(DP_ABI_PENDING_EXIT : : [p] "r"(me), [d] "i"(1L), [off] "i"(40L) : "cc", "memory");
	CU_ASSERT_EQUAL(line[5], 11);
	uint64_t rest = 0;
	for (int i = 0; i < 8; i++)
		rest += i == 5 ? 0 : line[i];
	CU_ASSERT_EQUAL(rest, 0);
}

/* A back-edge tick in a loop that makes a call (DP_ABI_TICK): the word
 * named gains 1, in its whole 64 bits, and no other word changes */
static void test_tick(void)
{
	uint64_t line[4] = { 0, 0xffffffffu, 0, 0 };
	for (int i = 0; i < 3; i++)
		__asm__ volatile(DP_ABI_TICK : [n] "+m"(line[1]));
	CU_ASSERT_EQUAL(line[1], 0x100000002ull);
	CU_ASSERT_EQUAL(line[0] + line[2] + line[3], 0);
}

/* A prologue's check (DP_ABI_ENTER_CHECK): the word compared equal, me
 * as given and no call; unequal, the stub's call with (tu, ps, c, 0) and
 * its result; the general registers kept either way, rax too */
static void test_enter_check(void)
{
	for (int bound = 0; bound < 2; bound++) {
		uint64_t word = bound ? 0x5a5a : 0x7777, expect = 0x5a5a;
		register uint64_t rax __asm__("rax") = 0xa0, rbx __asm__("rbx") = 0x1b;
		register uint64_t rdx __asm__("rdx") = 0x1d, rsi __asm__("rsi") = 0x51;
		register uint64_t rdi __asm__("rdi") = 0xd1, r8 __asm__("r8") = 0x8;
		register uint64_t r10 __asm__("r10") = 0x10, r11 __asm__("r11") = 0x11;
		register uintptr_t me __asm__("rcx");
		uint64_t c = 0xc0ff;
		uintptr_t fast = c - 1;
		calls = 0;
		__asm__ volatile(DP_ABI_ENTER_CHECK("dp_test_regs_entry")
				 : [me] "=r"(me), "+m"(fake_tu) /* (dp_cur's place) */, "+r"(rax), "+r"(rbx), "+r"(rdx), "+r"(rsi),
				   "+r"(rdi), "+r"(r8), "+r"(r10), "+r"(r11)
				 : "0"(fast), [c] "r"(c), [ps] "i"(9), [tu] "i"(&fake_tu), [exp] "r"(expect),
				   [pps] "m"(word)
				 : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
				   "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
		uint64_t now[] = { rax, rbx, rdx, rsi, rdi, r8, r10, r11 };
		uintptr_t got_me = me;
		uint64_t want[] = { 0xa0, 0x1b, 0x1d, 0x51, 0xd1, 0x8, 0x10, 0x11 };
		same_regs(now, want, sizeof want / sizeof *want);
		CU_ASSERT_EQUAL(calls, bound ? 0 : 1);
		CU_ASSERT_EQUAL(got_me, bound ? 0xc0fe : 0x5eed);
		if (!bound) {
			CU_ASSERT_EQUAL(got[0], (uint64_t)(uintptr_t)&fake_tu);
			CU_ASSERT_EQUAL(got[1], 9);
			CU_ASSERT_EQUAL(got[2], 0xc0ff);
			CU_ASSERT_EQUAL(got[3], 0);
		}
	}
}

DPA_TEST_SUITE(abi_regs, DPA_TEST(test_registers_kept), DPA_TEST(test_vector_kept),
	       DPA_TEST(test_red_zone_and_alignment),
	       DPA_TEST(test_count), DPA_TEST(test_count_csd), DPA_TEST(test_site_restore), DPA_TEST(test_pending_exit), DPA_TEST(test_tick),
	       DPA_TEST(test_enter_check))
