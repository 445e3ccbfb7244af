/*
 * procwrap.c — the ends a process's destructors never see: _exit and _Exit
 * (the final profile is written first, as dp_abi_exiting does) and the
 * exec functions (a snapshot first, as dp_abi_exec does: if the exec
 * fails, the program goes on and its final profile replaces it). A plugin
 * build's code calls those two itself before such a call (instrument.cc);
 * a -finstrument-functions build's hooks see no call into libc, so its
 * runtime catches the calls here. Built three times, like sigwrap.c: into
 * libprof.a as __wrap__exit, __wrap_execve & co, which deepprof-cc
 * --deepprof-mode=cyg links in front of libc's (-Wl,--wrap=...); into
 * libprof.so (DP_PROCWRAP_SHARED) as _exit, execve & co themselves, ahead
 * of libc's in the lookup order; and into deepprof record's runtime
 * (DP_PROCWRAP_SHARED and DP_PROCWRAP_NO_EXEC: record.c has its own exec
 * functions) as _exit and _Exit. Not in a vfork child, which shares our
 * memory (runtime.c: own_process). Calls glibc makes inside itself
 * (exit's own _exit, system, posix_spawn) are not seen, and need not be.
 * Part of deepprof's libprof. MIT licence.
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"
#include "deepprof-abi.h"   /* dp_abi_exiting, dp_abi_exec (runtime.c) */

typedef void exit_fn(int);
typedef int execve_fn(const char *, char *const[], char *const[]);
typedef int execv_fn(const char *, char *const[]);
typedef int fexecve_fn(int, char *const[], char *const[]);

extern char **environ;

#if !defined(DP_PROCWRAP_SHARED) || !defined(DP_PROCWRAP_NO_EXEC)

/* An execl's arguments, arg0 and those after it up to the NULL, as an
 * argv: count_args gives n, fill_args fills the caller's n + 1 entries;
 * each leaves ap after the NULL (where execle's envp is). */
static size_t count_args(const char *arg0, va_list ap)
{
	size_t n = 0;
	for (const char *a = arg0; a; a = va_arg(ap, const char *))
		n++;
	return n;
}

static void fill_args(char **argv, const char *arg0, va_list ap)
{
	size_t i = 0;
	for (const char *a = arg0; a; a = va_arg(ap, const char *))
		argv[i++] = (char *)a;
	argv[i] = NULL;
}

#endif

#ifdef DP_PROCWRAP_SHARED

static void *r_exit, *r_Exit;
#ifndef DP_PROCWRAP_NO_EXEC
static void *r_execve, *r_execv, *r_execvp, *r_execvpe, *r_fexecve;
#endif

/* at start: the lookups must not run in a signal handler or a vfork child */
__attribute__((constructor)) static void prime(void)
{
	dp_next_sym("_exit", &r_exit);
	dp_next_sym("_Exit", &r_Exit);
#ifndef DP_PROCWRAP_NO_EXEC
	dp_next_sym("execve", &r_execve);
	dp_next_sym("execv", &r_execv);
	dp_next_sym("execvp", &r_execvp);
	dp_next_sym("execvpe", &r_execvpe);
	dp_next_sym("fexecve", &r_fexecve);
#endif
}

static _Noreturn void end(void **cache, const char *name, int status)
{
	exit_fn *f = (exit_fn *)dp_next_sym(name, cache);
	dp_abi_exiting();
	if (f)
		f(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

DP_EXPORT void _exit(int status)
{
	end(&r_exit, "_exit", status);
}

DP_EXPORT void _Exit(int status)
{
	end(&r_Exit, "_Exit", status);
}

#ifndef DP_PROCWRAP_NO_EXEC

DP_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn *f = (execve_fn *)dp_next_sym("execve", &r_execve);
	dp_abi_exec();
	return f ? f(path, argv, envp) : (errno = ENOSYS, -1);
}

DP_EXPORT int execv(const char *path, char *const argv[])
{
	execv_fn *f = (execv_fn *)dp_next_sym("execv", &r_execv);
	dp_abi_exec();
	return f ? f(path, argv) : (errno = ENOSYS, -1);
}

DP_EXPORT int execvp(const char *file, char *const argv[])
{
	execv_fn *f = (execv_fn *)dp_next_sym("execvp", &r_execvp);
	dp_abi_exec();
	return f ? f(file, argv) : (errno = ENOSYS, -1);
}

DP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	execve_fn *f = (execve_fn *)dp_next_sym("execvpe", &r_execvpe);
	dp_abi_exec();
	return f ? f(file, argv, envp) : (errno = ENOSYS, -1);
}

DP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	fexecve_fn *f = (fexecve_fn *)dp_next_sym("fexecve", &r_fexecve);
	dp_abi_exec();
	return f ? f(fd, argv, envp) : (errno = ENOSYS, -1);
}

#define REAL_EXECV execv
#define REAL_EXECVP execvp
#define REAL_EXECVE execve
#define EXECL execl
#define EXECLP execlp
#define EXECLE execle

#endif

#else   /* libprof.a, through deepprof-cc's --wrap */

exit_fn __real__exit, __real__Exit;
execve_fn __real_execve, __real_execvpe;
execv_fn __real_execv, __real_execvp;
fexecve_fn __real_fexecve;

DP_EXPORT void __wrap__exit(int status)
{
	dp_abi_exiting();
	__real__exit(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

DP_EXPORT void __wrap__Exit(int status)
{
	dp_abi_exiting();
	__real__Exit(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

DP_EXPORT int __wrap_execve(const char *path, char *const argv[], char *const envp[])
{
	dp_abi_exec();
	return __real_execve(path, argv, envp);
}

DP_EXPORT int __wrap_execv(const char *path, char *const argv[])
{
	dp_abi_exec();
	return __real_execv(path, argv);
}

DP_EXPORT int __wrap_execvp(const char *file, char *const argv[])
{
	dp_abi_exec();
	return __real_execvp(file, argv);
}

DP_EXPORT int __wrap_execvpe(const char *file, char *const argv[], char *const envp[])
{
	dp_abi_exec();
	return __real_execvpe(file, argv, envp);
}

DP_EXPORT int __wrap_fexecve(int fd, char *const argv[], char *const envp[])
{
	dp_abi_exec();
	return __real_fexecve(fd, argv, envp);
}

#define REAL_EXECV __wrap_execv
#define REAL_EXECVP __wrap_execvp
#define REAL_EXECVE __wrap_execve
#define EXECL __wrap_execl
#define EXECLP __wrap_execlp
#define EXECLE __wrap_execle

#endif

#ifdef EXECL

/* The list forms: their arguments as an array argv (on the stack), then
 * the array form above (which writes the snapshot). LIST_ARGV leaves ap
 * after the list's NULL, where execle's envp is; the caller ends it. */
#define LIST_ARGV(argv, arg0, ap)                       \
	va_start(ap, arg0);                             \
	size_t n_args = count_args(arg0, ap);           \
	va_end(ap);                                     \
	char *argv[n_args + 1];                         \
	va_start(ap, arg0);                             \
	fill_args(argv, arg0, ap)

DP_EXPORT int EXECL(const char *path, const char *arg0, ...)
{
	va_list ap;
	LIST_ARGV(argv, arg0, ap);
	va_end(ap);
	return REAL_EXECV(path, argv);
}

DP_EXPORT int EXECLP(const char *file, const char *arg0, ...)
{
	va_list ap;
	LIST_ARGV(argv, arg0, ap);
	va_end(ap);
	return REAL_EXECVP(file, argv);
}

DP_EXPORT int EXECLE(const char *path, const char *arg0, ...)
{
	va_list ap;
	LIST_ARGV(argv, arg0, ap);
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return REAL_EXECVE(path, argv, envp);
}

#endif
