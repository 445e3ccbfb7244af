/*
 * s-split.c — functions GCC's function splitting cuts into a head and a
 * part (f.part.0) for the rare path, which the default plugin build splits
 * as the plain build does (plugin-rt t039). loop1 and loop1b call rare()
 * 700 and 70 times, whose part runs for 100 and 10 of them; loop2 and
 * loop2b call trapped() 70 and 7 times, whose head runs a SIGILL handler
 * (an instrumented callback that makes a call and resumes after the ud2):
 * its part, 10 and 1 of the calls, then finds dp_cur naming the handler's
 * csd, not trapped's (ABI v2's dp_abi_resume).
 * Part of deepprof's tests. MIT licence.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

volatile unsigned sink;

static void __attribute__((noinline)) cold(unsigned x)
{
	sink += x;
}

static void on_ill(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	cold(1);
	((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] += 2;    /* past the ud2 */
}

static unsigned rare(unsigned x)
{
	if (__builtin_expect(x % 7 != 0, 1))
		return x;
	char buf[32];
	snprintf(buf, sizeof buf, "%u", x);
	unsigned y = (unsigned)atoi(buf);
	for (unsigned i = 0; i < 3; i++)
		cold(y + i);
	cold(x + y);
	return y;
}

static unsigned trapped(unsigned x)
{
	__asm__ volatile("ud2");
	if (__builtin_expect(x % 7 != 0, 1))
		return x;
	char buf[32];
	snprintf(buf, sizeof buf, "%u", x);
	unsigned y = (unsigned)atoi(buf);
	for (unsigned i = 0; i < 3; i++)
		cold(y + i);
	cold(x + y);
	return y;
}

static void __attribute__((noinline)) loop1(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += rare(i);
}

static void __attribute__((noinline)) loop1b(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += rare(i);
}

static void __attribute__((noinline)) loop2(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += trapped(i);
}

static void __attribute__((noinline)) loop2b(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += trapped(i);
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_ill;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGILL, &sa, NULL);
	loop1(700);
	loop1b(70);
	loop2(70);
	loop2b(7);
	printf("%u\n", sink);
	return 0;
}
